"""The end of a failed CI log repeats the last failures (.ci/failed_tasks.py), so that a CI page
showing only the tail of the log still says which task failed and why."""
import importlib.util
import pathlib

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / ".ci" / "failed_tasks.py"
spec = importlib.util.spec_from_file_location("failed_tasks", SCRIPT)
failed_tasks = importlib.util.module_from_spec(spec)
spec.loader.exec_module(failed_tasks)

LOG = """\
  \x1b[2m│\x1b[0m TASK [Wait for the health status to settle]
  \x1b[2m│\x1b[0m FAILED - RETRYING: [node1]: Wait for the health status to settle (10 retries left).
  \x1b[2m│\x1b[0m ok: [node1]
  \x1b[2m│\x1b[0m
  \x1b[2m│\x1b[0m TASK [Exactly the expected checks fail: every_node_restarted]
  \x1b[2m│\x1b[0m \x1b[0;31mfatal: [localhost]: FAILED! => {\x1b[0m
  \x1b[2m│\x1b[0m \x1b[0;31m    "msg": "every_node_restarted: expected  to fail, got ssh_login@node2"\x1b[0m
  \x1b[2m│\x1b[0m \x1b[0;31m}\x1b[0m
  \x1b[2m│\x1b[0m
  \x1b[2m│\x1b[0m PLAY RECAP
FAILED tests/unit/test_x.py::test_y - AssertionError
make: *** [Makefile:57: molecule] Error 2
"""


def test_failed_task_with_its_message_and_a_failed_test():
    found = failed_tasks.failed_tasks(LOG.splitlines(keepends=True))
    assert found[0] == ("TASK [Exactly the expected checks fail: every_node_restarted]", [
        "fatal: [localhost]: FAILED! => {",
        '    "msg": "every_node_restarted: expected  to fail, got ssh_login@node2"',
        "}"])
    assert found[1] == ("pytest", ["FAILED tests/unit/test_x.py::test_y - AssertionError"])
    assert len(found) == 2


def test_retries_and_a_passing_log_are_not_failures():
    assert failed_tasks.failed_tasks(LOG.splitlines(keepends=True)[:4]) == []


def test_main_prints_failed_tests(tmp_path, capsys):
    log = tmp_path / "test.log"
    log.write_text(LOG, encoding="utf-8")
    failed_tasks.main(str(log))
    out = capsys.readouterr().out
    assert "0 scenario(s), 1 test(s)" in out
    assert out.rstrip().endswith("FAILED tests/unit/test_x.py::test_y - AssertionError")


def test_without_scenarios_or_tests_main_prints_the_last_failures(tmp_path, capsys):
    log = tmp_path / "test.log"
    log.write_text(LOG.replace("FAILED tests/unit/test_x.py::test_y - AssertionError\n", ""), encoding="utf-8")
    failed_tasks.main(str(log))
    out = capsys.readouterr().out
    assert "the last 1 of 1 failure(s)" in out
    assert "got ssh_login@node2" in out


SCENARIOS = """\
  \x1b[2m│\x1b[0m TASK [Run a playbook that is meant to fail]
  \x1b[2m│\x1b[0m fatal: [node1]: FAILED! => {"msg": "refused on purpose"}
  \x1b[2m│\x1b[0m ...ignoring
=== scenario firewall passed in 2:25 (verify 1:41)
  \x1b[2m│\x1b[0m TASK [Refuse bad settings]
  \x1b[2m│\x1b[0m fatal: [node1]: FAILED! => {"msg": "expected by the test"}
  \x1b[2m│\x1b[0m
  \x1b[2m│\x1b[0m TASK [Read each node's rank log]
  \x1b[2m│\x1b[0m failed: [localhost] (item=node2) => {"stderr": "cat: job.env: No such file or directory"}
  \x1b[2m│\x1b[0m
=== scenario ifaces FAILED (rc 2) in 0:35 (verify 0:11)
  \x1b[2m│\x1b[0m TASK [A deliberate failure of the next scenario]
  \x1b[2m│\x1b[0m fatal: [node1]: FAILED! => {"msg": "expected, later in the log"}
  \x1b[2m│\x1b[0m
=== scenario sandbox passed in 0:29 (verify 0:10)
"""


def test_each_failed_scenario_shows_the_failure_that_stopped_it(tmp_path, capsys):
    log = tmp_path / "test.log"
    log.write_text(SCENARIOS, encoding="utf-8")
    failed_tasks.main(str(log))
    out = capsys.readouterr().out
    assert "1 scenario(s), 0 test(s)" in out
    assert "--- scenario ifaces\nTASK [Read each node's rank log]" in out
    assert "No such file or directory" in out
    assert "expected by the test" not in out
    assert "expected, later in the log" not in out
