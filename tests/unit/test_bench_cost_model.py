"""bench/cost_model.py: rounds from the peer plan, the least-squares fit, the model's fit and
prediction, the check at the largest size, flatness and the aims."""
import pytest

import cost_model


def test_rounds_follow_the_peer_plan_and_stop_growing_above_the_switch():
    # Every pair up to 8 nodes: N-1 rounds (N even), N-1 peers per node.
    assert cost_model.rounds("acceptance", 8) == 7
    assert cost_model.rounds("doctor", 8) == 7
    # Above: the ring (2 rounds, 3 with N odd) and 2 random partners.
    assert cost_model.rounds("acceptance", 16) == 4
    assert cost_model.rounds("doctor", 16) <= 4
    assert cost_model.rounds("acceptance", 32) == 4
    assert cost_model.rounds("acceptance", 9) == 5
    assert max(cost_model.rounds("acceptance", n) for n in (9, 17, 33, 128, 1024)) <= 5
    assert cost_model.rounds("doctor", 1024) <= 4
    assert cost_model.rounds("site", 1024) == 0
    assert cost_model.rounds("doctor", 1) == 0


def test_least_squares_finds_a_line_and_falls_back_to_the_mean():
    intercept, slope = cost_model.least_squares([8, 16, 32], [10, 18, 34])
    assert intercept == pytest.approx(2.0)
    assert slope == pytest.approx(1.0)
    assert cost_model.least_squares([4, 4], [1.0, 3.0]) == (2.0, 0.0)
    with pytest.raises(ValueError, match="as many x as y"):
        cost_model.least_squares([1, 2], [1])


def run(play, nodes, per_node_modules, rounds_modules=0.0, rounds_seconds=None, per_run_modules=0):
    """A run made from a known model: 5 s + 0.05 s per module run on the controller, 2 of it in the
    main process + 0.01 s per module run; 3 s per node + 0.5 s per round on the nodes."""
    pair_rounds = cost_model.rounds(play, nodes)
    modules = per_run_modules + nodes * (per_node_modules + rounds_modules * pair_rounds)
    entry = {"play": play, "nodes": nodes, "module_runs": modules, "controller_cpu_seconds": 5 + 0.05 * modules,
             "controller_main_cpu_seconds": 2 + 0.01 * modules, "nodes_cpu_seconds": nodes * (3 + 0.5 * pair_rounds),
             "rounds": pair_rounds, "controller_peak_pss_mib": 100 + 20 * nodes}
    if rounds_seconds is not None:
        entry["round_seconds"] = {"Run this round's pair test %d" % i: rounds_seconds for i in range(pair_rounds)}
    return entry


def test_fit_recovers_the_model_and_predicts_the_largest_size():
    runs = [run("acceptance", nodes, 20, 4, rounds_seconds=6.0, per_run_modules=12) for nodes in (8, 16, 32)]
    model = cost_model.fit(runs)
    assert model["module_runs_per_node"] == pytest.approx([20, 4])
    assert model["module_runs_per_run"] == pytest.approx(12)
    assert model["controller_cpu"] == pytest.approx([5, 0.05])
    assert model["controller_main_cpu"] == pytest.approx([2, 0.01])
    assert model["nodes_cpu_per_node"] == pytest.approx([3, 0.5])
    assert model["round_latency_seconds"] == 6.0
    analysis = cost_model.analyse(runs)
    check = analysis["plays"]["acceptance"]["check"]
    assert check["fitted_on"] == [8, 16]
    # Two sizes tell apart two terms, per node and per round: the once-per-run part is left out.
    assert check["figures"]["module_runs"][2] == pytest.approx(1.0, abs=0.02)
    assert check["figures"]["rounds"][2] == pytest.approx(1.0)


def test_module_runs_keep_the_once_per_run_tasks_apart_from_the_nodes():
    # The launch's task results measured at 8, 16 and 32 nodes (bench/results/scale.json): 4 per
    # node and 27 once per run, which predicted the 283 measured at 64 nodes; a mean per node
    # (the tasks per node of the small sizes) predicted 382.
    per_node, per_round, per_run = cost_model.module_runs_fit([8, 16, 32], [0, 0, 0], [59, 91, 155])
    assert (per_node, per_round, per_run) == pytest.approx((4.0, 0.0, 27.0))
    model = cost_model.fit([{"play": "launch", "nodes": n, "module_runs": m, "controller_cpu_seconds": 1.0 * n,
                             "controller_main_cpu_seconds": 0.1 * n, "nodes_cpu_seconds": 2.0 * n}
                            for n, m in ((8, 59), (16, 91), (32, 155))])
    assert cost_model.predict(model, 64)["module_runs"] == 283
    # One size: only the part per node.
    assert cost_model.module_runs_fit([8, 8], [0, 0], [40, 40]) == pytest.approx((5.0, 0.0, 0.0))


def test_solve_least_squares_refuses_columns_it_cannot_tell_apart():
    assert cost_model.solve_least_squares([[1, 2, 3], [1, 1, 1]], [3, 5, 7]) == pytest.approx([2.0, 1.0])
    assert cost_model.solve_least_squares([[1, 2, 3], [2, 4, 6]], [1, 2, 3]) is None


def test_predict_puts_the_node_cost_in_parallel_and_spreads_the_forks_over_the_cores():
    model = cost_model.fit([run("site", nodes, 50) for nodes in (8, 16)])
    prediction = cost_model.predict(model, 1024, cores=16)
    modules = 1024 * 50
    controller, main = 5 + 0.05 * modules, 2 + 0.01 * modules
    assert prediction["module_runs"] == modules
    assert prediction["rounds"] == 0
    assert prediction["wall_seconds_real_servers"] == pytest.approx(main + (controller - main) / 16 + 3, abs=0.1)


def test_flatness_and_memory_per_worker():
    runs = [run("site", nodes, 50) for nodes in (8, 16, 32)]
    assert cost_model.flatness(runs) == pytest.approx(((5 + 0.05 * 400) / 8) / ((5 + 0.05 * 1600) / 32), abs=0.01)
    assert cost_model.memory_per_worker(runs) == pytest.approx((100, 20))


def test_aims_name_each_play_and_judge_the_doctor_at_1024_nodes():
    records = [run("doctor", nodes, 30, 0, rounds_seconds=None) | {"mesh_seconds_per_peer": 1.0}
               for nodes in (8, 16, 32)]
    analysis = cost_model.analyse(records)
    found = {entry["aim"]: entry for entry in cost_model.aims(analysis, records)}
    flat = [entry for name, entry in found.items() if name.startswith("doctor: controller CPU per node")]
    assert flat and flat[0]["limit"] == 1.2
    rounds = [entry for name, entry in found.items() if name.startswith("acceptance: rounds constant")]
    assert rounds[0]["met"] is True
    doctor = [entry for name, entry in found.items() if name.startswith("doctor on 1024")][0]
    assert doctor["value"] == analysis["plays"]["doctor"]["predictions"][1]["wall_seconds_real_servers"]
    assert doctor["met"] == (doctor["value"] <= 300)
    assert any("fitted on [8, 16]" in line for line in cost_model.notes(analysis))
