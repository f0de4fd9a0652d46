"""Which pairs of nodes the acceptance test measures, and in which rounds.

Every round is a set of disjoint pairs, so all pairs of a round run at once and no node takes
part in two tests at the same time.

- round_robin: the circle method. N nodes (one idle "bye" slot added when N is odd) give N-1
  rounds (N rounds when N is odd) that together hold every pair exactly once.
- ring: each node with its ring neighbour, plus `partners` more partners per node picked with a
  seeded random generator (the same seed gives the same pairs), packed greedily into rounds. For
  large clusters: about N*(partners+1)/2 pairs instead of N*(N-1)/2.
"""
import random

SCHEDULES = ("round_robin", "ring")


def round_robin(nodes):
    """Rounds of disjoint pairs holding every pair of `nodes` exactly once (circle method)."""
    slots = list(nodes)
    if len(slots) < 2:
        return []
    if len(slots) % 2:
        slots.append(None)
    count = len(slots)
    rounds = []
    for _ in range(count - 1):
        pairs = []
        for i in range(count // 2):
            first, second = slots[i], slots[count - 1 - i]
            if first is not None and second is not None:
                pairs.append(_ordered(first, second, nodes))
        rounds.append(pairs)
        # the first slot stays, the others turn by one
        slots = [slots[0], slots[-1]] + slots[1:-1]
    return rounds


def ring_pairs(nodes, partners=0, seed=0):
    """The ring's neighbour pairs plus `partners` random partners per node, each pair once."""
    nodes = list(nodes)
    count = len(nodes)
    if count < 2:
        return []
    pairs = set()
    for i, node in enumerate(nodes):
        other = nodes[(i + 1) % count]
        if other != node:
            pairs.add(_ordered(node, other, nodes))
    generator = random.Random(seed)
    for node in nodes:
        candidates = [other for other in nodes if other != node and _ordered(node, other, nodes) not in pairs]
        generator.shuffle(candidates)
        for other in candidates[:max(0, partners)]:
            pairs.add(_ordered(node, other, nodes))
    order = {node: i for i, node in enumerate(nodes)}
    return sorted(pairs, key=lambda pair: (order[pair[0]], order[pair[1]]))


def pack_rounds(pairs):
    """Pairs packed greedily into rounds of disjoint pairs, in the order given."""
    rounds = []
    for pair in pairs:
        for members in rounds:
            if not any(node in member for member in members for node in pair):
                members.append(pair)
                break
        else:
            rounds.append([pair])
    return rounds


def schedule(nodes, kind="round_robin", partners=0, seed=0):
    """Rounds of disjoint pairs for `kind` ("round_robin" or "ring")."""
    if kind == "round_robin":
        return round_robin(nodes)
    if kind == "ring":
        return pack_rounds(ring_pairs(nodes, partners, seed))
    raise ValueError(f"unknown schedule {kind!r} (known: {', '.join(SCHEDULES)})")


def partner_of(rounds, node):
    """For each round, the pair `node` is in (or None): what a node runs in that round."""
    found = []
    for pairs in rounds:
        found.append(next((list(pair) for pair in pairs if node in pair), None))
    return found


def _ordered(first, second, nodes):
    nodes = list(nodes)
    return (first, second) if nodes.index(first) < nodes.index(second) else (second, first)
