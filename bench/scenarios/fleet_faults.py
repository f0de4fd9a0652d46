"""Scenario 7: a fleet with faults, one after another on one sandbox of N nodes (16 by default).

The faults Molecule proves on a few nodes, each step one playbook run, timed (wall and the
controller's CPU) and its outcome asserted (exit code, the node ledger, the reports, the nodes'
files): a step whose outcome is not the expected one stops the scenario and reports no time.
D is the last node, S the one before it, R node2, A a new node N+1, U the last node of the
upgrade's second batch:

 1. provision        site.yml on every node
    Then a training environment of its own on every node (not timed): the sandbox's nodes run
    the ready-made ML volume (cluster_python_provided), so the upgrade steps give role python_env
    cluster_python_provided "" and pins of six alone, from a wheelhouse of the run's own: site.yml
    --tags python_env with six 1.16.0 on every node.
 1a. upgrade_stopped upgrade.yml to six 1.17.0, fleet_batch_size N/4, with node1's keys removed
                     from U's known_hosts (U the last node of the second batch): the first batch
                     upgraded and gated, the second fails its gate (the doctor's ssh_mesh on U),
                     U quarantined with the report as evidence, the later batches untouched on
                     1.16.0, each named by the run, which exits non-zero
 1b. upgrade_resumed the fault removed, U returned by force (not timed): upgrade.yml again upgrades
                     the rest and gates U again (it holds 1.17.0 but failed its gate); every node
                     on 1.17.0, U passed by the doctor and acceptance since its return
 2. dead_doctor      D stopped (podman stop): the doctor fails D alone (ssh_login), quarantines it
                     as unreachable and passes every other node
 3. dead_acceptance  acceptance: every node but D healthy and passed in the ledger
 4. return_refused   D started again: fleet.yml return is refused (no doctor pass since)
 5. return_doctor    the doctor passes every node, D too, which stays quarantined
 6. slow_acceptance  every node's egress shaped with tbf (100mbit), S's to 25mbit: acceptance
                     quarantines S alone and passes D
 7. return           fleet.yml return D, now accepted
 8. launch           launch.yml (the mpirun fan-out job) without any -e: S gets no rank, D does
 9. dead_site        S returned (forced, link repaired); D stopped again: site.yml carries on with
                     the others, quarantines D as unreachable and leaves it out of their
                     known_hosts. Then D started and returned by force: site.yml left it out of
                     every node's /etc/hosts and known_hosts, so the doctor could not pass it
10. replace_refused  R reinstalled (new host keys): replace.yml with a wrong fingerprint is
                     refused, the controller's and node1's known_hosts unchanged
11. replace          replace.yml with R's fingerprint: R's new key in node1's known_hosts, the old
                     one out; its site.yml brings D back into every node's files
12. add              node A made: add.yml gives it every role, OpenMPI not rebuilt, A in node1's
                     /etc/hosts and known_hosts

Every run has a ControlPath directory of its own, closed afterwards, and the ledger lives in a
temporary XDG_STATE_HOME. The controller's CPU is that of ansible-playbook, its workers and the
ssh clients (resource.getrusage of the children); the detached ControlPersist masters are not
counted.
"""

import glob
import hashlib
import json
import math
import os
import shlex
import shutil
import socket
import subprocess
import tempfile
import time

import harness
from scenarios import acceptance, doctor, launch_fanout, openmpi

TITLE = ("A fleet with faults: a dead node, its return, a rolling upgrade stopped by a failed gate, a replaced, a "
         "slow and an added node")
DEFAULT_SIZES = [16]
DEFAULT_REPEAT = 1
STEPS = ("provision", "upgrade_stopped", "upgrade_resumed", "dead_doctor", "dead_acceptance", "return_refused", "return_doctor", "slow_acceptance",
         "return", "launch", "dead_site", "replace_refused", "replace", "add")
LABELS = {
    "provision": "site.yml, every node",
    "upgrade_stopped": "upgrade.yml, U's gate fails: batch 2 stops it",
    "upgrade_resumed": "upgrade.yml after U's forced return: the rest, U gated again",
    "dead_doctor": "doctor.yml, D stopped: D alone fails, quarantined",
    "dead_acceptance": "acceptance.yml, D stopped: the others judged",
    "return_refused": "fleet.yml return D: refused (no doctor pass)",
    "return_doctor": "doctor.yml, D back: every node passes",
    "slow_acceptance": "acceptance.yml, S shaped to a quarter: S quarantined, D passed",
    "return": "fleet.yml return D: accepted",
    "launch": "launch.yml (mpirun job): S gets no rank",
    "dead_site": "site.yml, D stopped: D quarantined (unreachable)",
    "replace_refused": "replace.yml R, wrong fingerprint: refused",
    "replace": "replace.yml R, its fingerprint (site.yml)",
    "add": "add.yml A (site.yml, OpenMPI not rebuilt)",
}
DEFAULT_MAX_FAIL_PERCENTAGE = 10  # role cluster's cluster_max_fail_percentage
SHAPE = "bench/playbooks/acceptance_shape.yml"
SLOW_RATE = "25mbit"
# The doctor bench's timeouts for a busy machine, and a temporary master-port listener that outlives
# the slowest of 16 nodes sharing 2 cores (the default 120 s did not).
DOCTOR_SETTINGS = dict(doctor.BUSY_SETTINGS, doctor_listener_seconds=600)
ACCEPTANCE_SETTINGS = {"acceptance_timeout": acceptance.TIMEOUT,
                       "acceptance_intra_slow_ratio": acceptance.INTRA_SLOW_RATIO}
# Every pair in the doctor and acceptance, whatever the size: the upgrade steps' fault (node U's
# known_hosts without node1) shows only in the pair U-node1, which a sample may leave out.
EVERY_PAIR = {"cluster_exhaustive_max_nodes": 100000}
# The upgrade steps' training environment (as Molecule scenario upgrade's): six alone, from a
# wheelhouse of the run's own, in role python_env's venv instead of the ML volume.
OLD_PIN, NEW_PIN = "1.16.0", "1.17.0"
TRAINING_PYTHON = "/opt/cluster-suite/python/bin/python"  # role cluster's cluster_python_env_path


class StepFailed(SystemExit):
    pass


# ---------------------------------------------------------------- pure functions

def roles(nodes):
    """The nodes each fault is done to: D (dead), S (slow), R (replaced), A (added), U (its gate
    fails in the upgrade: the last node of the second batch)."""
    if nodes < 4:
        raise ValueError("fleet_faults needs at least 4 nodes (node1 the master, R, S and D apart), got %d" % nodes)
    return {"dead": "node%d" % nodes, "slow": "node%d" % (nodes - 1), "replaced": "node2",
            "added": "node%d" % (nodes + 1), "upgrade_gate": "node%d" % (2 * upgrade_batch_size(nodes))}


def upgrade_batch_size(nodes):
    """fleet_batch_size for the upgrade steps: a quarter of the nodes, so that a batch passes, one
    fails and two are left untouched."""
    return max(1, nodes // 4)


def upgrade_batches(nodes):
    """The upgrade's batches of node names, in the inventory's order."""
    size = upgrade_batch_size(nodes)
    names = ["node%d" % index for index in range(1, nodes + 1)]
    return [names[start:start + size] for start in range(0, nodes, size)]


def pins_vars(pin, wheelhouse):
    """The -e of the upgrade steps: role python_env's own venv with six at `pin` alone."""
    return {"cluster_python_provided": "", "python_env_mindspore_version": "", "python_env_torch_version": "",
            "python_env_extra_requirements": ["six==%s" % pin], "python_env_wheelhouse": wheelhouse}


def max_fail_settings(nodes):
    """The -e that lets site.yml, the doctor and acceptance lose one node of `nodes` (lost / nodes >
    percent / 100 stops everything); nothing when role cluster's default already does."""
    needed = math.ceil(100 / nodes)
    return {} if needed <= DEFAULT_MAX_FAIL_PERCENTAGE else {"cluster_max_fail_percentage": needed}


def run_output(events):
    """The text ansible-playbook printed, from the runner's events."""
    return "\n".join(event.get("stdout", "") for event in events if event.get("stdout"))


def per_host(recap_stats, counter, hosts):
    """{host: n} of a recap counter for the given hosts (0 where the recap has none)."""
    return {host: (recap_stats.get(counter) or {}).get(host, 0) for host in hosts}


def changed_tasks(events, hosts):
    """{host: sorted names of the tasks that reported changed there} for the given hosts."""
    found = {host: set() for host in hosts}
    for result in harness.task_host_durations(events):
        if result["changed"] and result["host"] in found:
            found[result["host"]].add(result["task"])
    return {host: sorted(tasks) for host, tasks in found.items()}


def node_state(ledger, node):
    """(state, source, the node's entry) in a ledger; a node the ledger does not know is in service."""
    entry = (ledger.get("nodes") or {}).get(node) or {}
    return entry.get("state", "in_service"), entry.get("source"), entry


def verdict(ledger, node, source):
    return (((ledger.get("nodes") or {}).get(node) or {}).get("verdicts") or {}).get(source, {}).get("result")


def known_hosts_names(text):
    """Every host name or address a known_hosts text has a key for (hashed names are not read)."""
    names = set()
    for line in text.splitlines():
        fields = line.split()
        if len(fields) >= 3 and not line.startswith("#"):
            marker = fields[0].startswith("@")
            names.update(name.strip("[]").split("]:")[0] for name in fields[1 if marker else 0].split(","))
    return names


def step_summary(steps, key):
    """Samples.summary() of one figure of every step: {step: {nodes: stats}}."""
    samples = harness.Samples()
    for step in steps:
        if step.get(key) is not None:
            samples.add(step["step"], step["size"], step[key])
    summary = samples.summary()
    return {name: summary[name] for name in STEPS if name in summary}


# ---------------------------------------------------------------- the sandbox's nodes

def podman_exec(sandbox, node, command):
    """A command on a node through podman (the node's console), its stdout; failures raise."""
    return subprocess.run(["podman", "exec", "%s-%s" % (sandbox.prefix, node), "sh", "-c", command],
                          capture_output=True, text=True, check=True, timeout=120).stdout


def podman(*argv):
    subprocess.run(["podman", *argv], check=True, stdout=subprocess.DEVNULL, timeout=300)


def node_address(sandbox, node):
    import yaml  # noqa: PLC0415  (PyYAML comes with ansible-core in the venv)

    with open(sandbox.inventory, encoding="utf-8") as handle:
        inventory = yaml.safe_load(handle)
    for group in inventory["all"]["children"]["cluster"]["children"].values():
        if node in (group.get("hosts") or {}):
            return group["hosts"][node]["ansible_host"]
    raise StepFailed("bench: %s is not in %s" % (node, sandbox.inventory))


def wait_for_sshd(address, timeout=180):
    """Until sshd answers on the address with its banner."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((address, 22), timeout=5) as connection:
                if connection.recv(64).startswith(b"SSH-"):
                    return
        except OSError:
            pass
        time.sleep(1)
    raise StepFailed("bench: no sshd on %s after %d s" % (address, timeout))


def sha256_of(path):
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


# ---------------------------------------------------------------- one fleet

class Fleet:
    """One sandbox, its ledger and the steps measured on it."""

    def __init__(self, sandbox, state_home, report_dir, wheelhouse):
        self.sandbox, self.state_home, self.report_dir = sandbox, state_home, report_dir
        self.wheelhouse = wheelhouse
        self.size = sandbox.nodes
        self.faults = roles(sandbox.nodes)
        self.steps = []

    # --- runs

    def play(self, playbook, extravars=None, cmdline=None):
        """One playbook run with a ControlPath directory of its own, closed afterwards."""
        control = tempfile.mkdtemp(prefix="bench-cp-")
        try:
            return harness.run_playbook(playbook, self.sandbox.inventory, dict(EVERY_PAIR, **(extravars or {})),
                                        cmdline=cmdline,
                                        envvars={"ANSIBLE_SSH_CONTROL_PATH_DIR": control,
                                                 "XDG_STATE_HOME": self.state_home})
        finally:
            harness.close_masters(control)
            shutil.rmtree(control, ignore_errors=True)

    def step(self, name, run, checks, **extra):
        """Assert every (condition, what) of `checks` for the run, then keep its figures."""
        for condition, what in checks:
            if not condition:
                failed = [(result["host"], result["task"]) for result in harness.task_host_durations(run.events)
                          if result["status"] in ("failed", "unreachable")]
                raise StepFailed("bench: fleet_faults step %s on %d nodes: expected %s (rc %s; failed tasks %s); "
                                 "the end of its output:\n%s" % (name, self.size, what, run.rc, failed[:6],
                                                                 run_output(run.events)[-3000:]))
        nodes = len(self.hosts())
        described = run.describe()
        cpu = described["controller_cpu_seconds"]
        self.steps.append(dict(described, step=name, size=self.size, cluster_nodes=nodes,
                               cpu_per_node=None if cpu is None else round(cpu / nodes, 3),
                               checked=[what for _, what in checks], **extra))
        harness.log("fleet_faults %s on %d nodes: %.1f s, controller CPU %s s (%s s per node), rc %s" % (
            name, nodes, run.wall, cpu, self.steps[-1]["cpu_per_node"], run.rc))

    # --- what the steps read

    def hosts(self):
        return ["node%d" % index for index in range(1, self.sandbox.nodes + 1)]

    def ledger(self):
        """The sandbox's node ledger; none yet is an empty one (every node in service)."""
        found = glob.glob(os.path.join(self.state_home, "cluster-suite", "ledger", "*.json"))
        if len(found) > 1:
            raise StepFailed("bench: expected one node ledger under %s, found %s" % (self.state_home, found))
        if not found:
            return {"nodes": {}}
        with open(found[0], encoding="utf-8") as handle:
            return json.load(handle)

    def node_file(self, node, path):
        return podman_exec(self.sandbox, node, "cat %s" % shlex.quote(path))

    def host_key(self, node):
        """(the key's base64 blob, its SHA256 fingerprint) of a node's ed25519 host key, on its console."""
        lines = podman_exec(self.sandbox, node, "cat /etc/ssh/ssh_host_ed25519_key.pub && "
                                                "ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub").splitlines()
        return lines[0].split()[1], lines[1].split()[1]

    def others(self, *left_out):
        return [host for host in self.hosts() if host not in left_out]

    # --- the steps

    def provision(self):
        run = self.play("site.yml")
        recap = harness.recap(run.events)
        self.step("provision", run, [
            (run.rc == 0, "site.yml exits 0"),
            (sum(per_host(recap, "failures", self.hosts()).values()) == 0, "no failed task on any node"),
        ])
        self.require(self.play(SHAPE), "shaping the nodes")

    def six_versions(self, nodes):
        """{node: six's version in role python_env's venv}, read on each node's console."""
        return {node: podman_exec(self.sandbox, node, "%s -c 'import six; print(six.__version__)'"
                                  % TRAINING_PYTHON).strip() for node in nodes}

    def upgrade(self):
        """The rolling upgrade: the second batch fails its gate and stops it; after U's repair and
        forced return, a second run upgrades the rest and gates U again."""
        faulty, size = self.faults["upgrade_gate"], upgrade_batch_size(self.size)
        batches = upgrade_batches(self.size)
        first, second, rest = batches[0], batches[1], [node for batch in batches[2:] for node in batch]
        self.require(self.play("site.yml", pins_vars(OLD_PIN, self.wheelhouse), cmdline="--tags python_env"),
                     "the training environment with six %s" % OLD_PIN)
        settings = dict(DOCTOR_SETTINGS, **ACCEPTANCE_SETTINGS)
        upgrade_vars = dict(settings, fleet_batch_size=size, **pins_vars(NEW_PIN, self.wheelhouse))
        master_address = node_address(self.sandbox, "node1")
        podman_exec(self.sandbox, faulty, "cp /etc/ssh/ssh_known_hosts /root/ssh_known_hosts.bench && "
                                          "ssh-keygen -R node1 -f /etc/ssh/ssh_known_hosts && "
                                          "ssh-keygen -R %s -f /etc/ssh/ssh_known_hosts" % shlex.quote(master_address))
        run = self.play("playbooks/upgrade.yml", cmdline=self.json_vars(**upgrade_vars))
        output, ledger, six = run_output(run.events), self.ledger(), self.six_versions(self.hosts())
        state, source, entry = node_state(ledger, faulty)
        self.step("upgrade_stopped", run, [
            (run.rc != 0, "upgrade.yml exits non-zero"),
            (all(six[node] == NEW_PIN for node in first + second),
             "the first two batches on six %s (%s)" % (NEW_PIN, {node: six[node] for node in first + second})),
            (all(six[node] == OLD_PIN for node in rest), "the later batches untouched on six %s (%s)" % (
                OLD_PIN, {node: six[node] for node in rest})),
            ((state, source) == ("quarantined", "doctor") and "ssh_mesh" in (entry.get("reason") or ""),
             "%s quarantined by the doctor's ssh_mesh (%s: %s)" % (faulty, state, entry.get("reason"))),
            ((entry.get("evidence") or "").endswith("report.json"), "the report as evidence (%s)" % entry.get("evidence")),
            (all(node_state(ledger, node)[0] == "in_service" for node in self.others(faulty)),
             "every other node in service"),
            (all(verdict(ledger, node, "doctor") == "pass" and verdict(ledger, node, "acceptance") == "pass"
                 for node in first), "the first batch passed by the doctor and acceptance"),
            (all(node_state(ledger, node)[2].get("upgraded") for node in second if node != faulty),
             "the stopped batch's other nodes marked upgraded (gated by the next run)"),
            ("The upgrade stopped at the batch %s" % ", ".join(second) in output, "the run names the stopped batch"),
            ("Upgraded and gated: %s" % ", ".join(first) in output, "the run names the first batch upgraded"),
            ("Not upgraded, still on the previous environment: %s" % ", ".join(rest) in output,
             "the run names the later batches untouched"),
        ], batch_size=size)

        podman_exec(self.sandbox, faulty, "cp /root/ssh_known_hosts.bench /etc/ssh/ssh_known_hosts")
        self.force_return(faulty, "bench: known_hosts restored")
        returned = node_state(self.ledger(), faulty)[2]["since"]
        run = self.play("playbooks/upgrade.yml", cmdline=self.json_vars(**upgrade_vars))
        ledger, six = self.ledger(), self.six_versions(self.hosts())
        verdicts = node_state(ledger, faulty)[2].get("verdicts") or {}
        self.step("upgrade_resumed", run, [
            (run.rc == 0, "upgrade.yml exits 0"),
            (set(six.values()) == {NEW_PIN}, "every node on six %s (%s)" % (NEW_PIN, six)),
            (all(verdicts.get(source, {}).get("result") == "pass" and verdicts[source]["time"] >= returned
                 for source in ("doctor", "acceptance")),
             "%s gated again: passed by the doctor and acceptance since its return (%s)" % (faulty, verdicts)),
            (all(node_state(ledger, node)[0] == "in_service" and verdict(ledger, node, "acceptance") == "pass"
                 for node in self.hosts()), "every node in service with acceptance's pass"),
        ], batch_size=size)

    def dead_node(self):
        """D stopped while in service: the doctor and acceptance check and judge the others."""
        dead = self.faults["dead"]
        podman("stop", "-t", "0", "%s-%s" % (self.sandbox.prefix, dead))
        others = self.others(dead)
        run, report = self.doctor("doctor-dead")
        failed = sorted({entry["node"] for entry in report["entries"] if entry["status"] == "fail"})
        ledger = self.ledger()
        self.step("dead_doctor", run, [
            (run.rc != 0, "doctor.yml exits non-zero"),
            (failed == [dead], "failed checks on %s alone (found on %s)" % (dead, failed)),
            (any(entry["node"] == dead and entry["check"] == "ssh_login" and entry["status"] == "fail"
                 for entry in report["entries"]), "%s's ssh_login fails" % dead),
            (node_state(ledger, dead)[:2] == ("quarantined", "unreachable"), "%s quarantined as unreachable" % dead),
            (all(node_state(ledger, node)[0] == "in_service" and verdict(ledger, node, "doctor") == "pass"
                 for node in others), "every other node in service with the doctor's pass"),
        ], report_summary=report["summary"])

        run, report = self.acceptance("acceptance-dead")
        ledger = self.ledger()
        self.step("dead_acceptance", run, [
            (run.rc != 0, "acceptance.yml exits non-zero"),
            (sorted(report.get("healthy") or []) == sorted(others), "every node but %s healthy (healthy: %s)" % (
                dead, report.get("healthy"))),
            (node_state(ledger, dead)[0] == "quarantined", "%s still quarantined" % dead),
            (all(node_state(ledger, node)[0] == "in_service" and verdict(ledger, node, "acceptance") == "pass"
                 for node in others), "every other node in service with acceptance's pass"),
        ], excluded=report.get("excluded"))

    def return_node(self):
        """D back: its return refused until the doctor and acceptance pass it; S slow meanwhile."""
        dead, slow = self.faults["dead"], self.faults["slow"]
        podman("start", "%s-%s" % (self.sandbox.prefix, dead))
        wait_for_sshd(node_address(self.sandbox, dead))
        before = self.ledger()
        run = self.play("playbooks/fleet.yml", cmdline=self.json_vars(fleet_action="return", fleet_nodes=[dead]))
        self.step("return_refused", run, [
            (run.rc != 0, "fleet.yml return exits non-zero"),
            ("%s: not passed by the doctor since it was quarantined" % dead in run_output(run.events),
             "the refusal names %s and the doctor" % dead),
            (self.ledger() == before, "the ledger unchanged"),
        ])

        run, report = self.doctor("doctor-back")
        ledger = self.ledger()
        self.step("return_doctor", run, [
            (run.rc == 0, "doctor.yml exits 0"),
            (report["summary"]["fail"] == 0, "no failed check (%s)" % report["summary"]),
            (verdict(ledger, dead, "doctor") == "pass", "%s passed by the doctor" % dead),
            (node_state(ledger, dead)[0] == "quarantined", "%s still quarantined (a pass never returns it)" % dead),
        ], report_summary=report["summary"])

        # S's egress at a quarter of the others' (D's shaping went with its restart).
        for extravars, cmdline in (({}, None), ({"bench_shape_rate": SLOW_RATE}, "--limit %s" % slow)):
            self.require(self.play(SHAPE, extravars, cmdline=cmdline), "shaping the nodes")
        run, report = self.acceptance("acceptance-slow")
        ledger = self.ledger()
        state, source, _ = node_state(ledger, slow)
        self.step("slow_acceptance", run, [
            (run.rc != 0, "acceptance.yml exits non-zero"),
            (sorted(report.get("excluded") or {}) == [slow], "%s alone left out (left out: %s)" % (
                slow, report.get("excluded"))),
            ((state, source) == ("quarantined", "acceptance"), "%s quarantined by acceptance" % slow),
            (verdict(ledger, dead, "acceptance") == "pass", "%s passed by acceptance" % dead),
            (all(node_state(ledger, node)[0] == "in_service" for node in self.others(slow, dead)),
             "every other node in service"),
        ], excluded=report.get("excluded"), table=report_lines(os.path.join(self.report_dir, "acceptance-slow")))

        run = self.play("playbooks/fleet.yml", cmdline=self.json_vars(fleet_action="return", fleet_nodes=[dead]))
        self.step("return", run, [
            (run.rc == 0, "fleet.yml return exits 0"),
            (node_state(self.ledger(), dead)[0] == "in_service", "%s in service" % dead),
        ])

        others = self.others(slow)
        job = launch_fanout.load_job(os.path.join(harness.ROOT, launch_fanout.JOBS["mpirun"]))
        job_logs = os.path.join(launch_fanout.LOGS_ROOT, job["job_name"])
        shutil.rmtree(job_logs, ignore_errors=True)
        run = self.play(launch_fanout.PLAYBOOK, cmdline="-e %s" % shlex.quote(
            "@" + os.path.join(harness.ROOT, launch_fanout.JOBS["mpirun"])))
        records = launch_fanout.read_started(job_logs)
        problem = launch_fanout.ranks_problem(records, launch_fanout.expected_ranks(job, len(others)))
        rank_hosts = sorted({record["host"] for record in records})
        self.step("launch", run, [
            (run.rc == 0, "launch.yml exits 0"),
            (problem is None, "exactly the ranks of %d nodes%s" % (len(others), "" if problem is None else
                                                                     " (%s)" % problem)),
            (rank_hosts == sorted(others), "ranks on every node but %s (on %s)" % (slow, rank_hosts)),
        ], ranks=len(records))

        self.require(self.play(SHAPE, {}, cmdline="--limit %s" % slow), "shaping %s back" % slow)
        self.force_return(slow, "bench: link repaired")

    def dead_site(self):
        """D stopped again, in service: site.yml carries on with the others and quarantines it; D
        started and returned by force (site.yml left it out of the others' files), for replace.yml's
        site.yml to bring it back in."""
        dead = self.faults["dead"]
        podman("stop", "-t", "0", "%s-%s" % (self.sandbox.prefix, dead))
        others = self.others(dead)
        run = self.play("site.yml", max_fail_settings(self.size))
        recap, ledger = harness.recap(run.events), self.ledger()
        self.step("dead_site", run, [
            (run.rc != 0, "site.yml exits non-zero"),
            (per_host(recap, "dark", [dead])[dead] + per_host(recap, "failures", [dead])[dead] > 0,
             "%s failed or unreachable in the recap" % dead),
            (sum(per_host(recap, "failures", others).values()) + sum(per_host(recap, "dark", others).values()) == 0,
             "no failed or unreachable task on the other nodes"),
            ("%s: unreachable in play" % dead in run_output(run.events), "the run names %s as unreachable" % dead),
            (node_state(ledger, dead)[:2] == ("quarantined", "unreachable"), "%s quarantined as unreachable" % dead),
            (all(node_state(ledger, node)[0] == "in_service" for node in others), "every other node in service"),
            (dead not in known_hosts_names(self.node_file("node1", "/etc/ssh/ssh_known_hosts")),
             "%s out of node1's known_hosts" % dead),
        ])
        podman("start", "%s-%s" % (self.sandbox.prefix, dead))
        wait_for_sshd(node_address(self.sandbox, dead))
        self.force_return(dead, "bench: powered on again, rejoins through site.yml")

    def replace(self):
        replaced, dead = self.faults["replaced"], self.faults["dead"]
        old_blob, _ = self.host_key(replaced)
        podman_exec(self.sandbox, replaced, "rm -f /etc/ssh/ssh_host_*")
        podman("restart", "-t", "0", "%s-%s" % (self.sandbox.prefix, replaced))
        wait_for_sshd(node_address(self.sandbox, replaced))
        new_blob, fingerprint = self.host_key(replaced)
        controller_known = os.path.join(os.path.dirname(self.sandbox.inventory), "known_hosts")
        sums = (sha256_of(controller_known), hashlib.sha256(self.node_file("node1", "/etc/ssh/ssh_known_hosts").encode()).hexdigest())
        wrong = "SHA256:" + "A" * 43
        run = self.play("playbooks/replace.yml", cmdline=self.json_vars(
            fleet_nodes=[replaced], fleet_host_key_fingerprint=wrong))
        after = (sha256_of(controller_known), hashlib.sha256(self.node_file("node1", "/etc/ssh/ssh_known_hosts").encode()).hexdigest())
        self.step("replace_refused", run, [
            (old_blob != new_blob, "%s has a new host key" % replaced),
            (run.rc != 0, "replace.yml exits non-zero"),
            ("%s: fleet_host_key_fingerprint: %s matches none" % (replaced, wrong) in run_output(run.events),
             "the refusal names %s and the fingerprint" % replaced),
            (after == sums, "the controller's and node1's known_hosts unchanged"),
        ])
        run = self.play("playbooks/replace.yml", cmdline=self.json_vars(
            fleet_nodes=[replaced], fleet_host_key_fingerprint=fingerprint))
        known = self.node_file("node1", "/etc/ssh/ssh_known_hosts")
        with open(controller_known, encoding="utf-8") as handle:
            controller = handle.read()
        dead_blob, _ = self.host_key(dead)
        recap = harness.recap(run.events)
        self.step("replace", run, [
            (run.rc == 0, "replace.yml exits 0"),
            (sum(per_host(recap, "failures", self.hosts()).values()) == 0, "no failed task on any node"),
            (new_blob in known and old_blob not in known, "node1's known_hosts: %s's new key in, the old out" % replaced),
            (new_blob in controller and old_blob not in controller, "the controller's known_hosts: the new key, not the old"),
            (dead_blob in known, "node1's known_hosts holds %s again" % dead),
            (any(dead in line.split()[1:] for line in self.node_file("node1", "/etc/hosts").splitlines()),
             "node1's /etc/hosts holds %s again" % dead),
        ])

    def add(self):
        added = self.faults["added"]
        old = self.hosts()
        self.sandbox.grow(self.sandbox.nodes + 1)
        run = self.play("playbooks/add.yml", cmdline=self.json_vars(fleet_nodes=[added]))
        recap = harness.recap(run.events)
        blob, _ = self.host_key(added)
        address = node_address(self.sandbox, added)
        etc_hosts = self.node_file("node1", "/etc/hosts")
        builds = harness.changed_hosts(run.events, openmpi.COMPILE_TASK)
        self.step("add", run, [
            (run.rc == 0, "add.yml exits 0"),
            (sum(per_host(recap, "failures", self.hosts()).values()) == 0, "no failed task on any node"),
            (per_host(recap, "ok", [added])[added] > 0, "%s provisioned" % added),
            (builds == [], "OpenMPI not rebuilt (built on %s)" % builds),
            (blob in self.node_file("node1", "/etc/ssh/ssh_known_hosts"), "%s's key in node1's known_hosts" % added),
            (any(line.split()[:1] == [address] and added in line.split()[1:] for line in etc_hosts.splitlines()),
             "%s in node1's /etc/hosts" % added),
        ], old_nodes_changed=changed_tasks(run.events, old))

    # --- helpers of the steps

    def doctor(self, name):
        """The doctor (busy-machine timeouts, the fail limit for one node), its run and report."""
        path = os.path.join(self.report_dir, name + ".json")
        run = self.play("playbooks/doctor.yml", dict(DOCTOR_SETTINGS, doctor_report_path=path,
                                                     **max_fail_settings(self.size)))
        if not os.path.exists(path):
            self.step(name, run, [(False, "the doctor's report %s" % path)])
        with open(path, encoding="utf-8") as handle:
            return run, json.load(handle)

    def acceptance(self, name):
        """Acceptance (the bench's timeout and own-test ratio, the fail limit), its run and report."""
        directory = os.path.join(self.report_dir, name)
        run = self.play("playbooks/acceptance.yml", dict(ACCEPTANCE_SETTINGS, acceptance_report_dir=directory,
                                                         **max_fail_settings(self.size)))
        path = os.path.join(directory, "report.json")
        if not os.path.exists(path):
            self.step(name, run, [(False, "acceptance's report %s" % path)])
        with open(path, encoding="utf-8") as handle:
            return run, json.load(handle)

    def force_return(self, node, reason):
        """Return a node by force with the reason (not timed), and check the ledger took it."""
        run = self.play("playbooks/fleet.yml", cmdline=self.json_vars(
            fleet_action="return", fleet_nodes=[node], fleet_force=True, fleet_reason=reason))
        state, _, entry = node_state(self.ledger(), node)
        if run.rc != 0 or state != "in_service" or reason not in (entry.get("reason") or ""):
            raise StepFailed("bench: the forced return of %s failed (rc %s, %s: %s)" % (
                node, run.rc, state, entry.get("reason")))

    @staticmethod
    def require(run, what):
        if run.rc != 0:
            raise StepFailed("bench: %s failed (rc %s): %s" % (what, run.rc, run_output(run.events)[-2000:]))

    @staticmethod
    def json_vars(**variables):
        return "-e %s" % shlex.quote(json.dumps(variables))



def report_lines(directory):
    with open(os.path.join(directory, "report.txt"), encoding="utf-8") as handle:
        return handle.read().splitlines()


# ---------------------------------------------------------------- the scenario

def run(sizes, repeat, args):
    del args  # no options of its own
    steps = []
    for nodes in sizes:
        roles(nodes)  # refuse too few nodes before a sandbox is made
        for _ in range(repeat):
            # Kept when a step fails: its reports and the ledger say why.
            scratch = tempfile.mkdtemp(prefix="bench-fleet-")
            state_home, report_dir = os.path.join(scratch, "state"), os.path.join(scratch, "reports")
            os.makedirs(report_dir)
            sandbox = harness.Sandbox("bench-fleet-%d" % nodes, nodes, npu_devices=0, ml=True)
            sandbox.env["XDG_STATE_HOME"] = state_home
            with sandbox:
                fleet = Fleet(sandbox, state_home, report_dir, os.path.join(scratch, "wheelhouse"))
                try:
                    for fault in (fleet.provision, fleet.upgrade, fleet.dead_node, fleet.return_node, fleet.dead_site,
                                  fleet.replace, fleet.add):
                        fault()
                except StepFailed:
                    harness.log("the reports and the ledger of the failed run: %s" % scratch)
                    raise
                finally:
                    steps += fleet.steps
            shutil.rmtree(scratch)
            harness.write_result("fleet_faults", *assemble(steps, sizes, repeat))
    return assemble(steps, sizes, repeat)


def assemble(steps, sizes, repeat):
    """The result and chart from the steps so far."""
    walls = step_summary(steps, "wall_seconds")
    cpu = step_summary(steps, "controller_cpu_seconds")
    per_node = step_summary(steps, "cpu_per_node")
    loads = [step["loadavg_before"] for step in steps if step.get("loadavg_before")]
    largest = max(sizes)
    done = {step["step"] for step in steps if step["size"] == largest}
    result = {
        "title": TITLE,
        "metric": "Wall time of each step's playbook run, its outcome asserted (exit code, the node ledger, "
                  "reports, the nodes' files); D the last node, S the one before, R node2, A a new node",
        "size_label": "nodes",
        "repeat": repeat,
        "labels": LABELS,
        "series_order": list(STEPS),
        "summary": walls,
        "tables": [{"caption": "The controller's CPU seconds per step (ansible-playbook, its workers, the ssh "
                               "clients):", "summary": cpu},
                   {"caption": "The controller's CPU seconds per node of the cluster at that step "
                               "(add: N+1 nodes):", "summary": per_node}],
        "aims": [harness.aim("every step's outcome as expected on %d nodes (steps done)" % largest,
                             len(done), len(STEPS), "==")],
        "notes": [
            "Each step's outcome is asserted before its time is kept: %s." % "; ".join(
                "%s: %s" % (step["step"], ", ".join(step["checked"])) for step in steps if step["size"] == largest),
            "Settings for a busy machine: the doctor's %s; acceptance's %s; cluster_max_fail_percentage %s." % (
                ", ".join("%s %s" % item for item in sorted(DOCTOR_SETTINGS.items())),
                ", ".join("%s %s" % item for item in sorted(ACCEPTANCE_SETTINGS.items())),
                ", ".join("%s at %d nodes" % (max_fail_settings(size).get("cluster_max_fail_percentage",
                                                                          "the default 10"), size)
                          for size in sizes)),
            "Not timed: shaping every node's egress with tbf to 100mbit after provisioning (the sandbox's "
            "traffic is CPU-bound and noisy otherwise) and S's to %s before slow_acceptance; the upgrade's "
            "training environment of six %s on every node (site.yml --tags python_env) before upgrade_stopped, "
            "U's fault (node1's keys out of its known_hosts), its removal and U's forced return before "
            "upgrade_resumed; stopping, "
            "starting and reinstalling nodes (podman); S's forced return (link repaired) before dead_site, D's "
            "forced return after it, and node A's creation before add." % (SLOW_RATE, OLD_PIN),
            "The doctor and acceptance meet the dead node before site.yml does: once site.yml has left a node "
            "out of every other node's /etc/hosts and known_hosts, the doctor fails the others' etc_hosts check "
            "for it (seen on 4 nodes: all 3 others failed), so D returns by force after "
            "dead_site and replace.yml's site.yml brings it back.",
            "The sandbox's nodes share the controller's %d cores, and other work shared the machine: 1-minute load "
            "average before the steps %s. Wall times are inflated by it; the controller's CPU seconds much less." % (
                os.cpu_count(), "-" if not loads else "%.1f to %.1f" % (min(load[0] for load in loads),
                                                                         max(load[0] for load in loads))),
            "The controller's CPU does not count the detached ControlPersist SSH masters (each run has its own "
            "ControlPath directory, closed afterwards).",
        ],
        "steps": steps,
    }
    chart = {"title": "A fleet with faults: wall time per step", "summary": walls, "xlabel": "nodes",
             "labels": LABELS, "bars": True}
    return result, chart
