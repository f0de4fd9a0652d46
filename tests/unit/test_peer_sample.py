"""plugins/plugin_utils/acceptance/peer_sample.py: every pair up to a size, a bounded sample above."""
import itertools

from hypothesis import given, strategies as st

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.acceptance import peer_sample


def _check_rounds(rounds):
    for pairs in rounds:
        members = [node for pair in pairs for node in pair]
        assert len(members) == len(set(members)), f"a node twice in one round: {pairs}"


def _nodes(count):
    return [f"n{i}" for i in range(count)]


@given(st.integers(min_value=2, max_value=40))
def test_exhaustive_rounds_hold_every_pair_once_in_n_minus_1_rounds(count):
    nodes = _nodes(count)
    rounds = peer_sample.exhaustive_rounds(nodes)
    _check_rounds(rounds)
    pairs = [pair for members in rounds for pair in members]
    assert sorted(pairs) == sorted(itertools.combinations(nodes, 2))
    assert len(rounds) == (count - 1 if count % 2 == 0 else count)


def test_exhaustive_rounds_of_four_nodes():
    assert peer_sample.exhaustive_rounds(["a", "b", "c", "d"]) == [
        [("a", "d"), ("b", "c")], [("a", "c"), ("b", "d")], [("a", "b"), ("c", "d")]]


def test_fewer_than_two_nodes_have_no_pairs():
    assert peer_sample.exhaustive_rounds(["a"]) == []
    assert peer_sample.sampled_rounds(["a"], 3, 1) == []
    assert peer_sample.plan([], 16, 2, 0)["rounds"] == []


@given(st.integers(min_value=3, max_value=300), st.integers(min_value=0, max_value=6), st.integers(0, 2 ** 32 - 1))
def test_the_sample_holds_the_ring_in_bounded_rounds_whatever_the_size(count, partners, seed):
    nodes = _nodes(count)
    rounds = peer_sample.sampled_rounds(nodes, partners, seed)
    _check_rounds(rounds)
    assert len(rounds) <= peer_sample.rounds_bound(partners)
    pairs = [pair for members in rounds for pair in members]
    assert len(pairs) == len(set(pairs)), "a pair tested twice"
    for i in range(count):
        assert tuple(sorted((nodes[i], nodes[(i + 1) % count]), key=nodes.index)) in pairs
    peers = peer_sample.plan(nodes, 2, partners, seed)["peers"]
    assert all(2 <= len(found) <= 2 + partners for found in peers.values())


def test_1024_nodes_take_five_rounds_with_two_partners_against_1023_for_every_pair():
    nodes = _nodes(1024)
    sampled = peer_sample.plan(nodes, 16, 2, 12345)
    assert sampled["sampled"] and sampled["seed"] == 12345
    assert len(sampled["rounds"]) <= peer_sample.rounds_bound(2) == 5
    assert len(sampled["rounds"]) == 4  # even N: the ring in 2 rounds, one round per random partner
    pairs = sum(len(pairs) for pairs in sampled["rounds"])
    assert 1024 <= pairs <= 2048  # the ring's 1024 and at most 512 per partner
    assert len(peer_sample.exhaustive_rounds(nodes)) == 1023
    # An SSH mesh of every pair is 1024 x 1024 logins; the sample at most 1024 x (1 + 2 + 2).
    assert sum(len(found) + 1 for found in sampled["peers"].values()) <= 1024 * 5


def test_the_same_seed_gives_the_same_pairs_another_seed_others():
    nodes = _nodes(64)
    first = peer_sample.plan(nodes, 16, 2, 7)
    assert first == peer_sample.plan(nodes, 16, 2, 7)
    assert first["rounds"] != peer_sample.plan(nodes, 16, 2, 8)["rounds"]
    assert first["rounds"][:2] == peer_sample.plan(nodes, 16, 2, 8)["rounds"][:2]  # the ring is fixed


def test_up_to_the_size_every_pair_is_tested():
    nodes = _nodes(16)
    found = peer_sample.plan(nodes, 16, 2, 7)
    assert not found["sampled"] and found["seed"] is None
    assert all(len(peers) == 15 for peers in found["peers"].values())
    assert peer_sample.plan(_nodes(17), 16, 2, 7)["sampled"]


def test_odd_ring_needs_three_rounds():
    rounds = peer_sample.sampled_rounds(["a", "b", "c", "d", "e"], 0, 0)
    assert rounds == [[("a", "b"), ("c", "d")], [("b", "c"), ("d", "e")], [("a", "e")]]


def test_settings_errors_name_the_host_and_the_variable():
    good = {"cluster_exhaustive_max_nodes": 16, "cluster_sample_partners": 2, "cluster_sample_seed": ""}
    assert peer_sample.settings_errors(good, "n1") == []
    assert peer_sample.settings_errors(dict(good, cluster_sample_seed="42"), "n1") == []
    assert peer_sample.settings_errors(dict(good, cluster_exhaustive_max_nodes=1), "n1") == [
        "n1: cluster_exhaustive_max_nodes: must be a whole number from 2 to 100000, got 1"]
    assert peer_sample.settings_errors(dict(good, cluster_sample_partners=True), "n1") == [
        "n1: cluster_sample_partners: must be a whole number from 0 to 64, got True"]
    errors = peer_sample.settings_errors(dict(good, cluster_sample_seed="-1"), "n1")
    assert len(errors) == 1 and errors[0].startswith("n1: cluster_sample_seed: must be empty")


@given(st.integers(min_value=6, max_value=200), st.integers(0, 2 ** 32 - 1))
def test_a_random_round_draws_pairs_beyond_the_ring(count, seed):
    rounds = peer_sample.sampled_rounds(_nodes(count), 1, seed)
    assert sum(len(pairs) for pairs in rounds) > count
