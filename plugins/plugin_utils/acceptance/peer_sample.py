"""Which pairs of nodes the checks test once a cluster is too large to test every pair.

Up to a size (cluster_exhaustive_max_nodes) the doctor's SSH mesh and NPU link test and
acceptance's pair test cover every pair. Above it each node is tested against its two ring
neighbours and `partners` random partners, built as rounds of disjoint pairs:

- the ring (node i with node i+1, the last with the first) is 2 rounds when N is even, 3 when
  N is odd (an odd cycle cannot be split into two sets of disjoint pairs);
- each random partner is one round: a random perfect matching of the nodes (a shuffle paired
  off two by two; with N odd one node sits that round out; of DRAWS shuffles the one with the
  most pairs not yet drawn), from a generator seeded with `seed`, so the same seed gives the
  same pairs and another seed other pairs.

So the sample is at most ROUNDS_FIXED + partners rounds whatever N is, every node has at most
2 + partners partners, and a pair already drawn is not tested twice (its round just holds one
pair fewer).
"""
import random

# The ring's rounds at most (N odd).
ROUNDS_FIXED = 3
# Shuffles drawn for each random round; the one with the most new pairs is kept.
DRAWS = 8


def rounds_bound(partners):
    """The most rounds a sample with `partners` random partners per node can take, for any N."""
    return ROUNDS_FIXED + max(0, int(partners))


def sampled_rounds(nodes, partners, seed):
    """Rounds of disjoint pairs: the ring's, then one random matching per partner."""
    nodes = list(nodes)
    count = len(nodes)
    if count < 2:
        return []
    order = {node: index for index, node in enumerate(nodes)}
    seen = set()

    def keep(pairs):
        kept = []
        for pair in pairs:
            pair = _ordered(pair, order)
            if pair[0] != pair[1] and pair not in seen:
                seen.add(pair)
                kept.append(pair)
        return sorted(kept, key=lambda pair: (order[pair[0]], order[pair[1]]))

    ring = [(nodes[i], nodes[(i + 1) % count]) for i in range(count)]
    if count % 2 == 0:
        ring_rounds = [ring[0::2], ring[1::2]]
    else:
        # The closing pair (last, first) shares a node with both other rounds' ends.
        ring_rounds = [ring[0:count - 1:2], ring[1:count - 1:2], ring[count - 1:]]
    rounds = [keep(pairs) for pairs in ring_rounds]
    generator = random.Random(seed)
    for _ in range(max(0, int(partners))):
        best = []
        for _ in range(DRAWS):
            shuffled = list(nodes)
            generator.shuffle(shuffled)
            fresh = [pair for pair in zip(shuffled[0::2], shuffled[1::2]) if _ordered(pair, order) not in seen]
            if len(fresh) > len(best):
                best = fresh
        rounds.append(keep(best))
    return [pairs for pairs in rounds if pairs]


def _ordered(pair, order):
    first, second = pair
    return (first, second) if order[first] < order[second] else (second, first)


def exhaustive_rounds(nodes):
    """Rounds of disjoint pairs holding every pair exactly once (the circle method): N-1 rounds,
    N when N is odd."""
    slots = list(nodes)
    if len(slots) < 2:
        return []
    order = {node: index for index, node in enumerate(nodes)}
    if len(slots) % 2:
        slots.append(None)
    count = len(slots)
    rounds = []
    for _ in range(count - 1):
        pairs = []
        for i in range(count // 2):
            first, second = slots[i], slots[count - 1 - i]
            if first is not None and second is not None:
                pairs.append((first, second) if order[first] < order[second] else (second, first))
        rounds.append(pairs)
        # the first slot stays, the others turn by one
        slots = [slots[0], slots[-1]] + slots[1:-1]
    return rounds


def plan(nodes, exhaustive_max_nodes, partners, seed):
    """The pairs to test: every pair up to `exhaustive_max_nodes` nodes, a sample above.

    Returns {"sampled", "seed", "partners", "rounds", "peers"}: `peers` maps each node to the
    sorted nodes it is paired with (in node order).
    """
    nodes = list(nodes)
    sampled = len(nodes) > int(exhaustive_max_nodes)
    rounds = sampled_rounds(nodes, partners, seed) if sampled else exhaustive_rounds(nodes)
    order = {node: index for index, node in enumerate(nodes)}
    peers = {node: [] for node in nodes}
    for pairs in rounds:
        for first, second in pairs:
            peers[first].append(second)
            peers[second].append(first)
    return {
        "sampled": sampled,
        "seed": int(seed) if sampled else None,
        "partners": int(partners) if sampled else None,
        "rounds": [[list(pair) for pair in pairs] for pairs in rounds],
        "peers": {node: sorted(found, key=order.get) for node, found in peers.items()},
    }


# The settings of role cluster the sample reads, with their bounds.
SETTINGS = ("cluster_exhaustive_max_nodes", "cluster_sample_partners", "cluster_sample_seed")


def _whole(value):
    """An int from an int or a string of digits (an -e value), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.isdigit():
        return int(value)
    return None


def settings_errors(settings, host):
    """Problems of the sample's settings, each naming the host and the variable."""
    found = []
    for name, low, high in (("cluster_exhaustive_max_nodes", 2, 100000), ("cluster_sample_partners", 0, 64)):
        value = _whole(settings.get(name))
        if value is None or not low <= value <= high:
            found.append(f"{host}: {name}: must be a whole number from {low} to {high}, got {settings.get(name)!r}")
    seed = settings.get("cluster_sample_seed")
    if seed not in ("", None) and (_whole(seed) is None or not _whole(seed) < 2 ** 32):
        found.append(f"{host}: cluster_sample_seed: must be empty (a new sample each run) or a whole number "
                     f"from 0 to {2 ** 32 - 1} (the seed a report printed, to test the same pairs again), got {seed!r}")
    return found
