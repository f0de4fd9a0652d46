"""Run the Molecule scenarios a few at a time, each on its own sandbox, and say where the time went.

    molecule/lanes.py [--lanes N] [scenario ...]      (default: every scenario, MOLECULE_LANES or 2 lanes)

Each scenario is a plain `molecule test -s NAME` with its own sandbox (podman network and nodes
named after it), run in its own copy of the checkout (git's tracked and unignored files, under
CHECKOUTS/NAME, replaced at its next run): what the project's playbooks write beside themselves
on the controller (logs/ with each job's gathered logs and summary, the acceptance and doctor
reports; sandbox/state) is then the scenario's own, never another's that runs beside it. So
scenarios only meet on the controller's shared cache, where the OpenMPI archives are. AFTER: a scenario starts only when these have finished. Every scenario that provisions with
the openmpi role waits for scenario openmpi, which builds Debian 12's OpenMPI into the controller
cache once per run; they then unpack that archive instead of each building it. Of the scenarios
that may start, the longest goes first (EXPECTED_MINUTES, measured on this 2-core machine; a new
scenario counts as DEFAULT_MINUTES until measured).

A scenario's output is printed whole when it ends, never interleaved with another's, then the
time of each of its phases (create, converge, idempotence, verify, destroy, ...). The run ends with
a table of every scenario and exits non-zero if any failed.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CHECKOUTS = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "cluster-suite", "lanes")
# Minutes of each scenario's whole `molecule test` in a CI run on this 2-core machine, two at a time
# (its first run builds OpenMPI for scenario openmpi, Debian 13's for mixed and the node images of
# Debian 11 and 13 for npu, of the systemd flavour for systemd).
EXPECTED_MINUTES = {
    "acceptance": 7.8, "cluster": 8.9, "doctor": 8.8, "firewall": 1.9, "fleet": 1.0, "guide": 7.8,
    "hang": 8.5, "ifaces": 1.7, "launch": 19.6, "mixed": 15.5, "npu": 6.5, "openmpi": 11.1, "python_env": 8.6,
    "sandbox": 0.5, "ssh_trust": 1.7, "systemd": 5.7, "upgrade": 7.2,
}
DEFAULT_MINUTES = 3.0
OPENMPI_USERS = ("acceptance", "cluster", "doctor", "guide", "hang", "launch", "mixed", "python_env", "sandbox",
                 "upgrade")
AFTER = {name: {"openmpi"} for name in OPENMPI_USERS}
# Molecule's line at the start of each action: "INFO     doctor ➜ converge: Executing".
PHASE = re.compile(r"\b(?P<scenario>[\w-]+) \u279c (?P<phase>\w+): Executing")
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def scenarios():
    """Every directory of molecule/ with a molecule.yml, sorted."""
    return sorted(name for name in os.listdir(HERE) if os.path.isfile(os.path.join(HERE, name, "molecule.yml")))


def phase_times(marks, end):
    """[(phase, seconds)] from [(seconds since start, phase)] and the end time; repeats are numbered."""
    result, seen = [], {}
    for index, (started, phase) in enumerate(marks):
        stop = marks[index + 1][0] if index + 1 < len(marks) else end
        seen[phase] = seen.get(phase, 0) + 1
        result.append((phase if seen[phase] == 1 else "%s#%d" % (phase, seen[phase]), stop - started))
    return result


def next_scenario(pending, running):
    """The pending scenario to start now, or None: nothing it comes AFTER left, longest first."""
    unfinished = set(pending) | set(running)
    ready = [name for name in pending if not AFTER.get(name, set()) & unfinished]
    if not ready:
        return None
    return max(ready, key=lambda name: (EXPECTED_MINUTES.get(name, DEFAULT_MINUTES), name))


def checkout_copy(name, root=ROOT, checkouts=CHECKOUTS):
    """A fresh copy of the checkout's files (tracked and not ignored, links kept as links) at
    checkouts/name/<basename of root>; the path."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=root,
                            check=True, stdout=subprocess.PIPE).stdout.decode("utf-8")
    dest = os.path.join(checkouts, name, os.path.basename(root))
    shutil.rmtree(os.path.dirname(dest), ignore_errors=True)
    for path in sorted(set(filter(None, listed.split("\0")))):
        source, target = os.path.join(root, path), os.path.join(dest, path)
        if not os.path.lexists(source):
            continue
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if os.path.islink(source):
            os.symlink(os.readlink(source), target)
        else:
            shutil.copy2(source, target)
    return dest


class Run(threading.Thread):
    """One `molecule test -s NAME`, its output kept in memory and its phases timed."""

    def __init__(self, name, molecule):
        super().__init__(daemon=True)
        self.name_ = name
        self.molecule = molecule
        self.lines, self.marks = [], []
        self.started = self.ended = None
        self.rc = None

    def run(self):
        self.started = time.monotonic()
        # Molecule runs ansible-playbook and ansible-config from PATH: the venv's, as under make.
        env = dict(os.environ, PATH=os.pathsep.join([os.path.dirname(self.molecule), os.environ.get("PATH", "")]))
        checkout = checkout_copy(self.name_)
        # Molecule looks for the shared base config at the repository's root; the copy has no .git.
        argv = [self.molecule, "--base-config", os.path.join(checkout, ".config", "molecule", "config.yml"),
                "test", "-s", self.name_]
        proc = subprocess.Popen(argv, cwd=checkout, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True, errors="replace")
        for line in proc.stdout:
            self.lines.append(line)
            match = PHASE.search(ANSI.sub("", line))
            if match and match.group("scenario") == self.name_:
                self.marks.append((time.monotonic() - self.started, match.group("phase")))
        self.rc = proc.wait()
        self.ended = time.monotonic()

    @property
    def seconds(self):
        return self.ended - self.started


def minutes(seconds):
    return "%d:%02d" % divmod(round(seconds), 60)


def report(run, out):
    out.write("".join(run.lines))
    phases = ", ".join("%s %s" % (phase, minutes(sec)) for phase, sec in phase_times(run.marks, run.seconds))
    out.write("=== scenario %s %s in %s (%s)\n" % (run.name_, "passed" if run.rc == 0 else "FAILED (rc %d)" % run.rc,
                                                 minutes(run.seconds), phases))
    out.flush()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--lanes", type=int, default=int(os.environ.get("MOLECULE_LANES", "2")))
    parser.add_argument("scenario", nargs="*")
    args = parser.parse_args(argv)
    known = scenarios()
    unknown = sorted(set(args.scenario) - set(known))
    if unknown:
        parser.error("no such scenario: %s (known: %s)" % (", ".join(unknown), ", ".join(known)))
    if args.lanes < 1:
        parser.error("--lanes must be 1 or more")
    molecule = os.path.join(os.path.dirname(sys.executable), "molecule")
    pending = list(args.scenario or known)
    running, done = {}, []
    start = time.monotonic()
    out = sys.stdout
    while pending or running:
        while len(running) < args.lanes:
            name = next_scenario(pending, running)
            if name is None:
                break
            pending.remove(name)
            running[name] = Run(name, molecule)
            running[name].start()
            out.write("=== scenario %s started at %s (running: %s)\n" % (
                name, minutes(time.monotonic() - start), ", ".join(running)))
            out.flush()
        time.sleep(1)
        for name, run in list(running.items()):
            if not run.is_alive():
                run.join()
                del running[name]
                done.append(run)
                report(run, out)
    out.write("\n=== Molecule: %d scenario(s) in %s on %d lane(s)\n" % (len(done), minutes(time.monotonic() - start),
                                                                       args.lanes))
    for run in sorted(done, key=lambda r: r.name_):
        phases = dict(phase_times(run.marks, run.seconds))
        out.write("  %-12s %-6s %6s   %s\n" % (
            run.name_, "ok" if run.rc == 0 else "FAILED", minutes(run.seconds),
            "  ".join("%s %s" % (p, minutes(s)) for p, s in phases.items())))
    failed = [run.name_ for run in done if run.rc != 0]
    if failed:
        out.write("=== failed: %s\n" % ", ".join(failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
