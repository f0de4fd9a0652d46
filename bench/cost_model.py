"""The cost model of benchmark scenario scale: what a playbook costs on N nodes, fitted to the
sandbox's figures at 8, 16 and 32 nodes and predicted for 128 and 1024 real servers.

For each playbook, from the runs of bench/scenarios/scale.py:

- rounds R(N): the pair rounds the peer plan gives (plugins/plugin_utils/acceptance/peer_sample.py with the
  role cluster's defaults): acceptance's rounds, and for the doctor the peers each node logs in to
  one after another; 0 for the others;
- module runs M(N) = m + N x (m0 + m1 x R(N)): the once-per-run tasks (validation, the plan, the
  report), per node a fixed part and a part per round (least squares against N, N x R and 1, as
  many of them as the sizes measured can tell apart: without the once-per-run part a mean per node
  carries the small sizes' once-per-run tasks on to every node of a large fleet);
- the controller's CPU C(N) = c0 + c1 x M(N): a fixed part (start, parsing, the plays) and a part per
  module run (a fork, its ssh client, the result); the same for ansible-playbook's own process
  P(N) = p0 + p1 x M(N), the strategy and the results, which runs on one core;
- the nodes' CPU per node n(N) = n0 + n1 x R(N);
- per-round latency L: acceptance's median round seconds, the doctor's median seconds per peer of
  its SSH mesh, at the smallest size measured (the least contended: an upper bound for real servers).

On real servers, each node its own CPUs and the controller `cores` cores (forks at least as many):

    wall(N) ~ P(N) + (C(N) - P(N)) / cores + n(N) + R(N) x L

a sum of parts that overlap in a real run, so an upper bound. The fit is checked by fitting on the
sizes below the largest and predicting the largest (its figures are measured, not wall time: the
sandbox's nodes share 2 cores).

The pure functions are covered by tests/unit/test_bench_cost_model.py.
"""

import importlib.util
import os
import statistics

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Role cluster's defaults (roles/cluster/defaults/main.yml): every pair up to this many nodes.
EXHAUSTIVE_MAX_NODES = 8
SAMPLE_PARTNERS = 2
CONTROLLER_CORES = 16
PREDICT_SIZES = (128, 1024)
FLAT_LIMIT = 1.2
# Seconds at 1024 real servers each playbook should be predicted under (docs/large-fleet.md).
LIMITS_1024 = {"launch": 180, "doctor": 300, "site_rerun": 900}
PAIR_PLAYS = ("doctor", "acceptance")


def _peer_sample():
    path = os.path.join(ROOT, "plugins", "plugin_utils", "acceptance", "peer_sample.py")
    spec = importlib.util.spec_from_file_location("peer_sample", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PEER_SAMPLE = _peer_sample()


# ---------------------------------------------------------------- pure functions

def rounds(play, nodes, exhaustive_max=EXHAUSTIVE_MAX_NODES, partners=SAMPLE_PARTNERS, seed=0):
    """The pair rounds of a playbook on `nodes` nodes from the peer plan: acceptance's rounds, the
    doctor's peers per node (its SSH mesh logs in to them one after another); 0 for the others."""
    if play not in PAIR_PLAYS or nodes < 2:
        return 0
    plan = PEER_SAMPLE.plan(["node%d" % index for index in range(1, nodes + 1)], exhaustive_max, partners, seed)
    if play == "acceptance":
        return len(plan["rounds"])
    return max(len(peers) for peers in plan["peers"].values())


def least_squares(xs, ys):
    """(intercept, slope) of the least-squares line through the points; a flat line at the mean
    when every x is the same."""
    if len(xs) != len(ys) or not xs:
        raise ValueError("least_squares needs as many x as y, at least one: got %d and %d" % (len(xs), len(ys)))
    mean_x, mean_y = statistics.fmean(xs), statistics.fmean(ys)
    spread = sum((x - mean_x) ** 2 for x in xs)
    if spread == 0:
        return mean_y, 0.0
    slope = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys)) / spread
    return mean_y - slope * mean_x, slope


def solve_least_squares(columns, ys):
    """The coefficients of the least-squares fit of ys on the columns (lists of the same length as
    ys), by the normal equations; None when the columns cannot be told apart (a singular system)."""
    size = len(columns)
    matrix = [[sum(a * b for a, b in zip(columns[i], columns[j])) for j in range(size)]
              + [sum(a * y for a, y in zip(columns[i], ys))] for i in range(size)]
    scale = max((abs(value) for row in matrix for value in row[:size]), default=0.0)
    for col in range(size):
        pivot = max(range(col, size), key=lambda row: abs(matrix[row][col]))
        if abs(matrix[pivot][col]) <= 1e-9 * scale:
            return None
        matrix[col], matrix[pivot] = matrix[pivot], matrix[col]
        for row in range(size):
            if row != col:
                factor = matrix[row][col] / matrix[col][col]
                matrix[row] = [value - factor * lead for value, lead in zip(matrix[row], matrix[col])]
    return [matrix[i][size] / matrix[i][i] for i in range(size)]


def module_runs_fit(sizes, pair_rounds, modules):
    """(m0, m1, m) of M = m + N x (m0 + m1 x R): per node, per node and round, once per run. The
    terms are taken in that order, as many as there are sizes measured (fewer when they cannot be
    told apart); a term left out is 0, the per-round one always for a playbook without rounds."""
    candidates = [("per_node", list(sizes)), ("per_round", [n * r for n, r in zip(sizes, pair_rounds)]),
                  ("per_run", [1.0] * len(sizes))]
    candidates = [(name, column) for name, column in candidates if any(column)]
    for count in range(min(len(candidates), len(set(sizes))), 0, -1):
        solved = solve_least_squares([column for _, column in candidates[:count]], modules)
        if solved is not None:
            chosen = dict(zip([name for name, _ in candidates[:count]], solved))
            return chosen.get("per_node", 0.0), chosen.get("per_round", 0.0), chosen.get("per_run", 0.0)
    return 0.0, 0.0, 0.0


def fit(runs):
    """The model of one playbook from its runs (dicts with nodes, module_runs, controller_cpu_seconds,
    controller_main_cpu_seconds, nodes_cpu_seconds and, for the pair plays, round seconds)."""
    if not runs:
        raise ValueError("no runs to fit")
    play = runs[0]["play"]
    sizes = [run["nodes"] for run in runs]
    pair_rounds = [rounds(play, size) for size in sizes]
    modules = [run["module_runs"] for run in runs]
    m0, m1, per_run = module_runs_fit(sizes, pair_rounds, modules)
    c0, c1 = least_squares(modules, [run["controller_cpu_seconds"] for run in runs])
    p0, p1 = least_squares(modules, [run["controller_main_cpu_seconds"] for run in runs])
    n0, n1 = least_squares(pair_rounds, [run["nodes_cpu_seconds"] / run["nodes"] for run in runs])
    smallest = min(runs, key=lambda run: run["nodes"])
    return {"play": play, "fitted_on": sorted(sizes), "module_runs_per_node": [m0, m1],
            "module_runs_per_run": per_run, "controller_cpu": [c0, c1], "controller_main_cpu": [p0, p1],
            "nodes_cpu_per_node": [n0, n1], "round_latency_seconds": round_latency(smallest)}


def round_latency(run):
    """Seconds per round of a run: acceptance's median round, the doctor's seconds per peer; 0 else."""
    if run["play"] == "acceptance" and run.get("round_seconds"):
        return statistics.median(run["round_seconds"].values())
    if run["play"] == "doctor" and run.get("mesh_seconds_per_peer") is not None:
        return run["mesh_seconds_per_peer"]
    return 0.0


def predict(model, nodes, cores=CONTROLLER_CORES):
    """The figures of a playbook on `nodes` nodes, and its wall time on real servers (upper bound)."""
    pair_rounds = rounds(model["play"], nodes)
    m0, m1 = model["module_runs_per_node"]
    modules = model["module_runs_per_run"] + nodes * (m0 + m1 * pair_rounds)
    controller = model["controller_cpu"][0] + model["controller_cpu"][1] * modules
    main = min(controller, model["controller_main_cpu"][0] + model["controller_main_cpu"][1] * modules)
    node = model["nodes_cpu_per_node"][0] + model["nodes_cpu_per_node"][1] * pair_rounds
    latency = pair_rounds * model["round_latency_seconds"]
    wall = main + (controller - main) / cores + node + latency
    return {"nodes": nodes, "rounds": pair_rounds, "module_runs": round(modules), "controller_cpu_seconds": round(controller, 1),
            "controller_main_cpu_seconds": round(main, 1), "controller_cpu_per_node": round(controller / nodes, 3),
            "nodes_cpu_per_node": round(node, 2), "rounds_seconds": round(latency, 1),
            "wall_seconds_real_servers": round(wall, 1), "controller_cores": cores}


def compare(predicted, measured):
    """{figure: [predicted, measured, predicted / measured]} for the figures both have."""
    pairs = {"module_runs": measured["module_runs"], "controller_cpu_seconds": measured["controller_cpu_seconds"],
             "controller_main_cpu_seconds": measured["controller_main_cpu_seconds"],
             "nodes_cpu_per_node": measured["nodes_cpu_seconds"] / measured["nodes"],
             "rounds": measured.get("rounds") or 0}
    return {key: [predicted[key], round(value, 3), None if not value else round(predicted[key] / value, 2)]
            for key, value in pairs.items()}


def flatness(runs):
    """The largest controller CPU per node over the smallest, over the sizes of one playbook."""
    values = [run["controller_cpu_seconds"] / run["nodes"] for run in runs]
    return round(max(values) / min(values), 2) if values and min(values) > 0 else None


def memory_per_worker(runs):
    """(fixed MiB, MiB per worker) of the controller's peak PSS against its workers min(128, N)
    (the project's forks), least squares over every run of every playbook."""
    points = [(min(128, run["nodes"]), run["controller_peak_pss_mib"]) for run in runs
              if run.get("controller_peak_pss_mib")]
    if not points:
        return None
    return least_squares([x for x, _ in points], [y for _, y in points])


def by_play(records):
    found = {}
    for record in records:
        found.setdefault(record["play"], []).append(record)
    return {play: sorted(runs, key=lambda run: run["nodes"]) for play, runs in found.items()}


def analyse(records, plays=("site", "site_rerun", "doctor", "acceptance", "launch")):
    """Per playbook: the fit on every size, the predictions, and the check (fit below the largest
    size, predict it)."""
    analysis = {}
    for play, runs in by_play(records).items():
        if play not in plays:
            continue
        model = fit(runs)
        entry = {"model": model, "predictions": [predict(model, size) for size in PREDICT_SIZES],
                 "flatness": flatness(runs)}
        largest = runs[-1]
        if len(runs) >= 3:
            check = fit(runs[:-1])
            entry["check"] = {"fitted_on": check["fitted_on"], "predicted_nodes": largest["nodes"],
                              "figures": compare(predict(check, largest["nodes"]), dict(largest))}
        analysis[play] = entry
    memory = memory_per_worker(records)
    return {"plays": analysis, "controller_cores": CONTROLLER_CORES,
            "memory_per_worker_mib": None if memory is None else [round(value, 1) for value in memory]}


def aims(analysis, records):
    """The issue's aims, each met or not with its number."""
    import harness  # noqa: PLC0415  (bench/ is on the path)

    found = []
    for play, entry in analysis["plays"].items():
        sizes = entry["model"]["fitted_on"]
        found.append(harness.aim("%s: controller CPU per node flat from %d to %d nodes (largest / smallest)" % (
            play, min(sizes), max(sizes)), entry["flatness"], FLAT_LIMIT))
    for play in PAIR_PLAYS:
        above = [rounds(play, size) for size in (EXHAUSTIVE_MAX_NODES + 1, 32, 64, 128, 256, 512, 1024)]
        measured = {record["nodes"]: record["rounds"] for record in records
                    if record["play"] == play and record["nodes"] > EXHAUSTIVE_MAX_NODES}
        found.append(harness.aim("%s: rounds constant above %d nodes (the most from %d to 1024 nodes by the peer "
                                 "plan; measured: %s)" % (
                                     play, EXHAUSTIVE_MAX_NODES, EXHAUSTIVE_MAX_NODES + 1,
                                     ", ".join("%d at %d nodes" % (measured[size], size) for size in sorted(measured))
                                     or "-"),
                                 max(above), PEER_SAMPLE.rounds_bound(SAMPLE_PARTNERS)))
    for play, limit in LIMITS_1024.items():
        entry = analysis["plays"].get(play)
        if entry:
            wall = [prediction for prediction in entry["predictions"] if prediction["nodes"] == 1024][0]
            found.append(harness.aim("%s on 1024 real servers (controller of %d cores), predicted seconds" % (
                play, CONTROLLER_CORES), wall["wall_seconds_real_servers"], limit))
    return found


def notes(analysis):
    """The model's assumptions and the check at the largest size, in words."""
    lines = ["Model per playbook (bench/cost_model.py): module runs M = m + N x (m0 + m1 x R), controller CPU = "
             "c0 + c1 x M, of it ansible-playbook's own process p0 + p1 x M (one core), nodes' CPU per node n0 + "
             "n1 x R, R the peer plan's rounds, L the seconds per round at the smallest size. Real servers: wall "
             "<= P + (C - P) / %d cores + n + R x L (parts that overlap in a real run, summed: an upper bound)." %
             CONTROLLER_CORES]
    for play, entry in analysis["plays"].items():
        model = entry["model"]
        lines.append("%s: m %.1f module runs per run, m0 %.1f, m1 %.2f per node; c0 %.1f s, c1 %.4f s per "
                     "module run; p0 %.1f s, p1 %.4f s; n0 %.2f s, n1 %.3f s per node; L %.1f s. Predicted: %s." % (
                         play, model["module_runs_per_run"], model["module_runs_per_node"][0],
                         model["module_runs_per_node"][1],
                         model["controller_cpu"][0], model["controller_cpu"][1], model["controller_main_cpu"][0],
                         model["controller_main_cpu"][1], model["nodes_cpu_per_node"][0],
                         model["nodes_cpu_per_node"][1], model["round_latency_seconds"],
                         "; ".join("%d nodes: %d rounds, controller %.0f CPU s (%.0f s of it one core), node %.1f "
                                   "CPU s, about %.0f s on real servers" % (
                                       p["nodes"], p["rounds"], p["controller_cpu_seconds"],
                                       p["controller_main_cpu_seconds"], p["nodes_cpu_per_node"],
                                       p["wall_seconds_real_servers"]) for p in entry["predictions"])))
        if "check" in entry:
            lines.append("%s, fitted on %s, predicts %d nodes (predicted, measured, ratio): %s." % (
                play, entry["check"]["fitted_on"], entry["check"]["predicted_nodes"], "; ".join(
                    "%s %s / %s / %s" % (key, *values) for key, values in entry["check"]["figures"].items())))
    memory = analysis.get("memory_per_worker_mib")
    if memory:
        lines.append("The controller's peak PSS against its workers (min(forks, N)): %.0f MiB + %.1f MiB per worker, "
                     "so about %.0f MiB at forks 128." % (memory[0], memory[1], memory[0] + 128 * memory[1]))
    return lines
