"""bench/scenarios/scale.py's pure parts: the process tree, /proc stat lines, module runs, tasks,
the longest pause of a host, output lines, the doctor's seconds per peer and figures per node."""
from scenarios import scale


def result(event, host, task, start, end, duration=1.0, stdout=""):
    return {"event": event, "stdout": stdout,
            "event_data": {"host": host, "task": task, "duration": duration, "res": {},
                           "start": "2026-11-26T10:00:%06.3f" % start, "end": "2026-11-26T10:00:%06.3f" % end}}


def test_descendants_walk_the_whole_tree_but_not_the_root_or_strangers():
    parents = {10: 1, 11: 10, 12: 11, 13: 12, 20: 1, 21: 20}
    assert scale.descendants(parents, 10) == {11, 12, 13}
    assert scale.descendants(parents, 13) == set()


def test_stat_fields_read_the_parent_and_own_cpu_past_a_name_with_spaces():
    line = "4242 (ssh: /tmp/cp/x [mux]) S 1 4242 4242 0 -1 4194560 300 0 0 0 25 12 7 3 20 0 1 0 100"
    assert scale.stat_fields(line) == (1, 37)


def test_module_runs_leave_skips_out_and_tasks_count_starts():
    events = [result("runner_on_ok", "node1", "a", 0, 1), result("runner_on_skipped", "node1", "b", 1, 2),
              result("runner_on_failed", "node2", "a", 0, 1), result("runner_on_ok", "node2", "b", 1, 2),
              {"event": "playbook_on_task_start", "event_data": {"task": "a"}},
              {"event": "playbook_on_task_start", "event_data": {"task": "b"}}]
    assert scale.module_runs(events) == {"node1": 1, "node2": 2}
    assert scale.task_count(events) == 2


def test_longest_idle_gap_is_per_host_between_one_task_end_and_the_next_start():
    events = [result("runner_on_ok", "node1", "a", 0, 1), result("runner_on_ok", "node1", "b", 4.5, 5),
              result("runner_on_ok", "node2", "a", 0, 3), result("runner_on_ok", "node2", "b", 4, 9)]
    assert scale.longest_idle_gap(events) == 3.5
    assert scale.longest_idle_gap([result("runner_on_ok", "node1", "a", 0, 1)]) is None


def test_output_lines_count_every_printed_line():
    events = [{"event": "x", "stdout": "one\ntwo"}, {"event": "y", "stdout": ""}, {"event": "z", "stdout": "three"}]
    assert scale.output_lines(events) == 3


def test_mesh_seconds_per_peer_counts_the_node_itself():
    events = [result("runner_on_ok", "node1", scale.MESH_TASK, 0, 6, duration=6.0),
              result("runner_on_ok", "node2", scale.MESH_TASK, 0, 2, duration=2.0),
              result("runner_on_ok", "node3", scale.MESH_TASK, 0, 9, duration=9.0)]
    peers = {"node1": ["node2", "node3"], "node2": ["node1"], "node3": ["node1", "node2"]}
    # 6 / 3, 2 / 2, 9 / 3: the median is 2.
    assert scale.mesh_seconds_per_peer(events, peers) == 2.0
    assert scale.mesh_seconds_per_peer([], peers) is None


def test_per_node_divides_and_keeps_the_unmeasured():
    assert scale.per_node({"a": 32, "b": None, "c": 1}, 8) == {"a": 4.0, "b": None, "c": 0.125}


def test_assemble_tables_every_figure_with_the_model_and_its_aims():
    import report
    from test_bench_cost_model import run

    records = []
    for play in ("site", "doctor", "acceptance"):
        for nodes in (8, 16, 32):
            records.append(dict(run(play, nodes, 40, 2, rounds_seconds=5.0), idle_nodes_memory_mib=2 * nodes,
                                mesh_seconds_per_peer=0.5, ssh_connections=nodes, ssh_sessions=nodes * 40))
    result, chart = scale.assemble(records)
    assert result["summary"]["site"]["8"]["median"] == records[0]["controller_cpu_seconds"] / 8
    captions = [table["caption"] for table in result["tables"]]
    assert "SSH connections (new masters in the run's ControlPath directory):" in captions
    assert set(result["model"]["plays"]) == {"site", "doctor", "acceptance"}
    assert any(entry["aim"].startswith("doctor on 1024") for entry in result["aims"])
    assert chart["summary"] is result["summary"]
    text = report.scenario_markdown(dict(result, scenario="scale", measured="now", machine={"cpus": 2},
                                         versions={"commit": "x"}), "")
    assert "| SSH sessions" not in text and "| doctor.yml | 8 | 16 | 32 |" in text
    assert "idle 2.0, 2.0, 2.0 MiB per node" in text


def test_doctor_settings_are_the_busy_ones_where_every_node_imports_fit_and_crowded_past_that():
    memory = 23.4 * 1024
    assert scale.doctor_settings(32, memory) == scale.DOCTOR_SETTINGS
    assert scale.doctor_settings(42, memory) == scale.DOCTOR_SETTINGS
    crowded = scale.doctor_settings(43, memory)
    assert crowded["doctor_frameworks"] == [] and crowded["doctor_ssh_timeout"] == 90
    assert crowded["doctor_import_timeout"] == scale.DOCTOR_SETTINGS["doctor_import_timeout"]
    assert scale.doctor_settings(64, memory) == crowded
