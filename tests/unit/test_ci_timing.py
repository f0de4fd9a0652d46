"""CI's timing: the Molecule scenarios run a few at a time without meeting on the controller's
shared cache (molecule/lanes.py), and .ci/phases.py says where a run's time went and fails a run
over the budget."""
import importlib.util
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, ROOT / path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


lanes = load("lanes", "molecule/lanes.py")
phases = load("phases", ".ci/phases.py")


def test_every_scenario_is_found_and_has_a_measured_time():
    found = lanes.scenarios()
    assert {"openmpi", "launch", "doctor"} <= set(found)
    assert sorted(lanes.EXPECTED_MINUTES) == found


def test_the_openmpi_build_goes_first_and_its_users_wait_for_it():
    every = lanes.scenarios()
    assert lanes.next_scenario(every, {}) == "openmpi"
    running = {"openmpi": None}
    pending = [name for name in every if name != "openmpi"]
    while True:
        name = lanes.next_scenario(pending, running)
        if name is None:
            break
        assert name not in lanes.OPENMPI_USERS, name
        pending.remove(name)
        running[name] = None
    assert set(pending) == set(lanes.OPENMPI_USERS)
    # Once openmpi is done, the longest of its users starts.
    assert lanes.next_scenario(pending, {}) == "launch"


def test_a_scenario_not_measured_yet_counts_as_the_default():
    assert lanes.next_scenario(["brand_new", "firewall"], {}) == "brand_new"


def test_phase_times_number_repeated_phases_and_end_at_the_run_end():
    marks = [(0, "destroy"), (4, "create"), (30, "converge"), (90, "idempotence"), (130, "verify"), (300, "destroy")]
    assert lanes.phase_times(marks, 310) == [("destroy", 4), ("create", 26), ("converge", 60), ("idempotence", 40),
                                             ("verify", 170), ("destroy#2", 10)]


def test_molecule_phase_lines_are_read_through_their_colours():
    line = "INFO     \x1b[1mdoctor\x1b[0m \u279c \x1b[2mconverge\x1b[0m: \x1b[3mExecuting\x1b[0m\n"
    match = lanes.PHASE.search(lanes.ANSI.sub("", line))
    assert match.group("scenario", "phase") == ("doctor", "converge")


def test_unknown_scenarios_and_no_lanes_are_refused():
    with pytest.raises(SystemExit):
        lanes.main(["no_such_scenario"])
    with pytest.raises(SystemExit):
        lanes.main(["--lanes", "0", "firewall"])


LOG = """\
=== phase setup started at 1000
=== phase setup ended at 1090
=== phase lint started at 1100
=== phase unit started at 1100
=== phase lint ended at 1250
=== phase unit ended at 1400
=== phase setup started at 1400
=== phase setup ended at 1402
=== scenario firewall passed in 1:12 (destroy 0:03, create 0:10, converge 0:20, verify 0:30, destroy#2 0:09)
=== scenario launch FAILED (rc 2) in 9:40 (destroy 0:03)
"""


def test_phase_seconds_add_up_a_phase_run_twice(tmp_path):
    assert phases.phase_seconds(LOG.splitlines(True)) == [("setup", 92), ("lint", 150), ("unit", 300)]
    assert phases.scenario_lines(LOG.splitlines(True))[1].startswith("scenario launch FAILED")


def test_a_run_over_the_budget_fails(tmp_path, capsys):
    log = tmp_path / "test.log"
    log.write_text(LOG)
    assert phases.main([str(log), "--total", "4400", "--budget", "4500"]) == 0
    assert "phase unit" in capsys.readouterr().out
    assert phases.main([str(log), "--total", "4501", "--budget", "4500"]) == 1
    assert "over the budget of 75:00" in capsys.readouterr().out


def test_each_scenario_runs_in_its_own_copy_of_the_checkout(tmp_path):
    # scenarios side by side once read each other's logs/acceptance/report.json and logs/<job>/
    root = tmp_path / "checkout"
    (root / "roles").mkdir(parents=True)
    (root / "roles" / "main.yml").write_text("tracked\n")
    (root / "gone.yml").write_text("deleted after it was added\n")
    (root / ".gitignore").write_text("logs/\n")
    (root / "logs").mkdir()
    (root / "logs" / "report.json").write_text("{}\n")
    (root / "link").symlink_to("roles")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(root)]
    lanes.subprocess.run(git + ["init", "-q"], check=True)
    lanes.subprocess.run(git + ["add", "."], check=True)
    lanes.subprocess.run(git + ["commit", "-qm", "t"], check=True)
    (root / "gone.yml").unlink()
    (root / "new.yml").write_text("not yet added\n")
    copy = pathlib.Path(lanes.checkout_copy("acceptance", str(root), str(tmp_path / "lanes")))
    assert copy == tmp_path / "lanes" / "acceptance" / "checkout"
    assert (copy / "roles" / "main.yml").read_text() == "tracked\n"
    assert (copy / "new.yml").is_file() and not (copy / "gone.yml").exists()
    assert not (copy / "logs").exists()
    assert (copy / "link").is_symlink() and (copy / "link").resolve() == (copy / "roles").resolve()
    # a later run starts from a fresh copy: what the last one wrote is gone
    (copy / "logs").mkdir()
    again = pathlib.Path(lanes.checkout_copy("acceptance", str(root), str(tmp_path / "lanes")))
    assert again == copy and not (copy / "logs").exists()
