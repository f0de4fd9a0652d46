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


def test_main_prints_the_last_failures(tmp_path, capsys):
    log = tmp_path / "test.log"
    log.write_text(LOG, encoding="utf-8")
    failed_tasks.main(str(log))
    out = capsys.readouterr().out
    assert "the last 2 of 2 failure(s)" in out
    assert out.rstrip().endswith("FAILED tests/unit/test_x.py::test_y - AssertionError")
    assert "got ssh_login@node2" in out
