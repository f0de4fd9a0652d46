"""plugins/plugin_utils/acceptance_schedule.py: rounds of disjoint pairs."""
import itertools

import pytest
from hypothesis import given, strategies as st

import acceptance_schedule as sched


def _check_rounds(rounds):
    for pairs in rounds:
        members = [node for pair in pairs for node in pair]
        assert len(members) == len(set(members)), f"a node twice in one round: {pairs}"


@given(st.integers(min_value=2, max_value=40))
def test_round_robin_holds_every_pair_once_in_n_minus_1_rounds(count):
    nodes = [f"n{i}" for i in range(count)]
    rounds = sched.round_robin(nodes)
    _check_rounds(rounds)
    pairs = [pair for members in rounds for pair in members]
    assert sorted(pairs) == sorted(itertools.combinations(nodes, 2))
    assert len(rounds) == (count - 1 if count % 2 == 0 else count)
    if count % 2 == 0:
        assert all(len(members) == count // 2 for members in rounds)


def test_round_robin_four_nodes():
    assert sched.round_robin(["a", "b", "c", "d"]) == [
        [("a", "d"), ("b", "c")], [("a", "c"), ("b", "d")], [("a", "b"), ("c", "d")]]


def test_fewer_than_two_nodes_have_no_pairs():
    assert sched.round_robin([]) == []
    assert sched.round_robin(["a"]) == []
    assert sched.schedule(["a"], "ring", 3) == []


@given(st.integers(min_value=2, max_value=64), st.integers(min_value=0, max_value=5), st.integers(0, 1000))
def test_ring_holds_the_neighbours_and_bounded_partners(count, partners, seed):
    nodes = [f"n{i}" for i in range(count)]
    pairs = sched.ring_pairs(nodes, partners, seed)
    assert len(pairs) == len(set(pairs))
    for i in range(count):
        first, second = nodes[i], nodes[(i + 1) % count]
        if first != second:
            assert tuple(sorted((first, second), key=nodes.index)) in pairs
    assert len(pairs) <= count * (partners + 1)
    rounds = sched.pack_rounds(pairs)
    _check_rounds(rounds)
    assert sorted(p for members in rounds for p in members) == sorted(pairs)


def test_ring_is_the_same_for_the_same_seed():
    nodes = [f"n{i}" for i in range(32)]
    assert sched.schedule(nodes, "ring", 2, 7) == sched.schedule(nodes, "ring", 2, 7)
    assert len(sched.schedule(nodes, "ring", 2, 7)) < len(sched.round_robin(nodes))


def test_partner_of_and_unknown_schedule():
    rounds = sched.round_robin(["a", "b", "c"])
    assert [pair for pair in sched.partner_of(rounds, "a")].count(None) == 1
    with pytest.raises(ValueError, match="unknown schedule 'star'"):
        sched.schedule(["a", "b"], "star")
