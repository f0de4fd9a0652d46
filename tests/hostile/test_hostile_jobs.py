"""The hostile-input corpus against every job_* string and list field.

For every field at least 500 values (hostile_corpus.generate: hand-written plus generated) go through the
same check the playbooks use (action validate_settings' job check, validation/gate.py's job_problems over plugins/plugin_utils/jobs/spec.py)
in this process. Each value must be either

- refused, with a message naming the variable and no raw control character (no other exception:
  no traceback), or
- accepted and then rendered by the real playbooks/render.yml (no SSH) into scripts that pass
  `bash -n`, with the value written where bash takes it as data (never unquoted, never breaking
  out of a comment), and list/mapping values given back byte-exact by bash: job_args as the
  argv of the launcher's command line, job_env names and values after `. ./job.env`, mpirun's
  extra arguments and -x names.

Renders are batched: list and mapping fields carry all their accepted values in one job; scalar
fields render a sample of HOSTILE_RENDER_SAMPLE accepted values (default 8; 3 for fields the plan
turns into numbers or booleans), several fields per
job, one job per launcher and round. A sample of refused values also goes through the real
playbooks/launch.yml (--check, ssh replaced by a stand-in): it must fail in its first play
naming the variable, before any connection.
"""
import json
import os
import random
import re
import zlib
from collections import namedtuple

import pytest

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.validation import gate
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.jobs import spec as job_spec
from hostile_corpus import (CODE_DIR, ROOT, SAFE_WORD, bash_words, command_at, contexts, env_values, generate,
                            unsafe_count)
from hostile_harness import (JOB_PLAY, SHELL_FILES, inventory_yaml, refusal_problems, render_problems, rendered,
                             run_all)

SAMPLE = int(os.environ.get("HOSTILE_RENDER_SAMPLE", "8"))
# Fields whose values become numbers or booleans in the plan: a few renders show the conversion.
CONVERTED_SAMPLE = 3
CONVERTED = ("job_port", "job_workers_per_node", "job_worker_num", "job_timeout", "job_cluster_timeout",
             "job_msrun_sim_level", "job_dynamic_recovery_wait", "job_torch_max_restarts", "job_source_env",
             "job_msrun_bind_core", "job_mpirun_hostfile", "job_mpirun_abort_on_failure", "job_dynamic_recovery",
             "job_dynamic_hccl_cm_init")
CONTROL = re.compile(r"[\x00-\x1f\x7f]")
LAUNCHERS = ("msrun", "mpirun", "dynamic", "torchrun")
HOSTS = ["n1", "n2"]
GROUPS = {"all": HOSTS, "ungrouped": [], "cluster": HOSTS, "cpu_nodes": HOSTS, "cluster_master": ["n1"]}
GROUP_VARS = {"ansible_connection": "ssh", "ansible_user": "trainer", "cluster_user": "trainer",
              "cluster_network_cidr": "127.0.0.0/24", "launch_python": "python3",
              "openmpi_prefix": "/usr/local/openmpi-4.1.4"}
HOST_VARS = {"n1": {"ansible_host": "127.0.0.31"}, "n2": {"ansible_host": "127.0.0.32"}}
HOSTVARS = {host: dict(GROUP_VARS, **values) for host, values in HOST_VARS.items()}
INVENTORY = inventory_yaml(GROUPS, HOST_VARS, GROUP_VARS)
BASE = {"job_name": "hostile", "job_code_dir": CODE_DIR, "job_script": "train.py", "job_workers_per_node": 1}
LAUNCH_BASE = {"msrun": {"job_launcher": "msrun"}, "mpirun": {"job_launcher": "mpirun"},
               "dynamic": {"job_launcher": "dynamic", "job_dynamic_recovery": True},
               "torchrun": {"job_launcher": "torchrun"}}
TLS_BASE = {"server_cert_path": "/etc/tls/server.pem", "client_cert_path": "/etc/tls/client.pem",
            "ca_cert_path": "/etc/tls/ca.pem", "client_password": "client-pw", "server_password": "server-pw"}
SECRET_ENV = getattr(job_spec, "SECRET_ENV", None)

# place: how a value goes into a job; render: scalar (sampled renders), tls (config.json),
# batch (list/mapping fields, all at once), None (not rendered by render.yml: classified only).
Field = namedtuple("Field", "id name variable launcher valid place render key")


def field(name, valid, launcher="msrun", place="scalar", render="scalar", key=None, ident=None):
    variable = "job_env" if place.startswith("env") else ("job_dynamic_tls" if place == "tls" else name)
    return Field(ident or name, name, variable, launcher, tuple(valid), place, render, key)


BOOLS = ["true", "false", "True"]
FIELDS = [
    field("job_name", ["hostile", "a.b_c-1"]),
    field("job_launcher", list(LAUNCHERS)),
    field("job_script", ["train.py", "./train.py"]),
    field("job_code_dir", [CODE_DIR, CODE_DIR + "/", "./" + CODE_DIR]),
    field("job_master", ["n1", "n2"]),
    field("job_master_addr", ["127.0.0.31", "127.0.0.32"]),
    field("job_base_dir", ["jobs", "/data/jobs", "~/jobs/x", "work/jobs"]),
    field("job_log_dir", ["logs", "out/logs"]),
    field("job_python", ["python3", "/opt/ml/bin/python3"]),
    field("job_setup", ["make", "mpicc -o ring ring.c"], render=None),
    field("job_port", ["8118", "29501", " 8119 "]),
    field("job_workers_per_node", ["1", "2"]),
    field("job_worker_num", ["2"]),
    field("job_timeout", ["3600"]),
    field("job_cluster_timeout", ["600"]),
    field("job_source_env", BOOLS),
    field("job_msrun_rank_table_file", ["/etc/cluster-suite/rank_table.json"]),
    field("job_msrun_sim_level", ["0", "1"]),
    field("job_msrun_bind_core", BOOLS),
    field("job_mpirun_prefix", ["/usr/local/openmpi-4.1.4", "/opt/ompi"], launcher="mpirun"),
    field("job_mpirun_if_include", ["eth0", "127.0.0.0/24", "eth0,eth1"], launcher="mpirun"),
    field("job_mpirun_hostfile", BOOLS, launcher="mpirun"),
    field("job_mpirun_abort_on_failure", BOOLS, launcher="mpirun"),
    field("job_dynamic_recovery_path", ["recovery", "state/rec"], launcher="dynamic"),
    field("job_dynamic_recovery_wait", ["30"], launcher="dynamic"),
    field("job_dynamic_recovery", BOOLS, launcher="dynamic"),
    field("job_dynamic_hccl_cm_init", BOOLS, launcher="dynamic"),
    field("job_torch_launcher", ["torchrun", "distributed_launch"], launcher="torchrun"),
    field("job_torch_backend", ["auto", "gloo", "nccl", "hccl"], launcher="torchrun"),
    field("job_torch_max_restarts", ["0", "3"], launcher="torchrun"),
    field("job_args", ["--lr=0.1", "train", "--epochs", "3"], place="list", render="batch"),
    field("job_mpirun_extra_args", ["--mca", "btl_tcp_if_exclude", "lo"], launcher="mpirun", place="list",
          render="batch"),
    field("job_mpirun_forward_env", ["LD_LIBRARY_PATH", "PYTHONPATH"], launcher="mpirun", place="list",
          render="batch"),
    field("job_hosts", ["n1", "n2"], place="hosts", render=None),
    field("job_env", ["HOSTILE", "A_1", "_x"], place="env_name", render="batch", ident="job_env(name)"),
    field("job_env", ["value", "1", "a b"], place="env_value", render="batch", ident="job_env(value)"),
] + [field("job_dynamic_tls", [TLS_BASE.get(key) or "ECDHE-RSA-AES128-GCM-SHA256", "/etc/tls/x.pem"],
           launcher="dynamic", place="tls", render="tls" if key not in job_spec.TLS_SECRETS else None, key=key,
           ident="job_dynamic_tls." + key)
     for key in ("server_cert_path", "crl_path", "client_cert_path", "ca_cert_path", "cipher_list",
                 "client_password", "server_password")]
BY_ID = {f.id: f for f in FIELDS}
# Fields every launcher renders: spread over the launchers' jobs of a round.
COMMON = [f for f in FIELDS if f.render == "scalar" and f.launcher == "msrun" and f.name != "job_launcher"
          and not f.name.startswith("job_msrun")]


def base_job(launcher):
    job = dict(BASE, **LAUNCH_BASE[launcher])
    return job


def put(job, fld, value):
    """``job`` with ``value`` in field ``fld``."""
    if fld.place == "scalar":
        job[fld.name] = value
    elif fld.place == "list":
        job[fld.name] = [value]
    elif fld.place == "hosts":
        job["job_hosts"] = ["n1", value]
    elif fld.place == "env_name":
        job["job_env"] = dict(job.get("job_env") or {}, **{value: "hostile"})
    elif fld.place == "env_value":
        job["job_env"] = dict(job.get("job_env") or {}, HOSTILE_VALUE=value)
    else:
        job["job_dynamic_tls"] = dict(job.get("job_dynamic_tls") or TLS_BASE, **{fld.key: value})
    return job


def job_for(fld, value, launcher=None):
    return put(base_job(launcher or fld.launcher), fld, value)


def classify(job):
    """('accepted' | 'refused' | 'exception', messages) through the playbooks' own filter."""
    try:
        errors = gate.job_problems(job, GROUPS, HOSTVARS, ROOT, "python3")
    except Exception as error:  # pylint: disable=broad-except  (any other exception is a failure)
        return "exception", ["%s: %s" % (type(error).__name__, str(error)[:300])]
    return ("refused" if errors else "accepted"), list(errors)


def shown(value, limit=70):
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "...(%d chars)" % len(value)


def summary(problems, limit=12):
    lines = ["%d problem(s):" % len(problems)] + problems[:limit]
    if len(problems) > limit:
        lines.append("... and %d more" % (len(problems) - limit))
    return "\n".join(lines)


@pytest.fixture(scope="module")
def classified():
    """{field id: [(value, status, messages)]} for every value of every field."""
    table = {}
    for fld in FIELDS:
        table[fld.id] = [(value,) + classify(job_for(fld, value)) for value in generate(fld.id, fld.valid)]
    return table


def accepted(classified_rows):
    return [value for value, status, _ in classified_rows if status == "accepted"]


def sample(fld, values):
    """Up to SAMPLE accepted values (not the base job's own), those with unsafe characters first."""
    count = CONVERTED_SAMPLE if fld.name in CONVERTED else SAMPLE
    base = base_job(fld.launcher)
    own = base.get(fld.name) if fld.place == "scalar" else TLS_BASE.get(fld.key)
    rng = random.Random(zlib.crc32(fld.id.encode()))
    nasty = [v for v in values if v != own and not SAFE_WORD.fullmatch(v)]
    plain = [v for v in values if v != own and SAFE_WORD.fullmatch(v)]
    rng.shuffle(nasty)
    rng.shuffle(plain)
    return (nasty + plain)[:count]


def plan_renders(table):
    """[(key, job, [(field, value)])]: baselines, scalar rounds, list batches."""
    renders = [(("base", launcher), base_job(launcher), []) for launcher in LAUNCHERS]
    groups = {launcher: [] for launcher in LAUNCHERS}
    for index, fld in enumerate(COMMON):
        groups[LAUNCHERS[index % len(LAUNCHERS)]].append(fld)
    for fld in FIELDS:
        if fld.render in ("scalar", "tls") and fld not in COMMON and fld.name != "job_launcher":
            groups[fld.launcher].append(fld)
    samples = {fld.id: sample(fld, accepted(table[fld.id])) for fld in FIELDS if fld.render in ("scalar", "tls")}
    for round_ in range(SAMPLE):
        for launcher, fields in groups.items():
            assigned = [(fld, samples[fld.id][round_]) for fld in fields if round_ < len(samples[fld.id])]
            if not assigned:
                continue
            job = base_job(launcher)
            for fld, value in assigned:
                put(job, fld, value)
            if classify(job)[0] == "accepted":
                renders.append((("scalar", launcher, round_), job, assigned))
            else:  # accepted one by one, not together: render them one by one
                renders += [(("single", fld.id, round_), job_for(fld, value, launcher), [(fld, value)])
                            for fld, value in assigned]
    for fld in FIELDS:
        if fld.render != "batch":
            continue
        values = accepted(table[fld.id])
        for kind, part in (("plain", [v for v in values if not CONTROL.search(v)]),
                           ("control", [v for v in values if CONTROL.search(v)])):
            if not part:
                continue
            launchers = LAUNCHERS if fld.name == "job_args" else (
                ("msrun", "mpirun") if fld.name == "job_env" else ("mpirun",))
            for launcher in launchers:
                job = base_job(launcher)
                if fld.place == "list":
                    job[fld.name] = part
                elif fld.place == "env_name":
                    job["job_env"] = {name: "hostile-name" for name in part}
                else:
                    job["job_env"] = {"HOSTILE_V%04d" % i: value for i, value in enumerate(part)}
                renders.append((("batch", fld.id, kind, launcher), job, [(fld, v) for v in part]))
    return renders


REFUSED_SAMPLE = ("job_args", "job_env(name)", "job_env(value)", "job_python", "job_base_dir", "job_log_dir",
                  "job_mpirun_if_include", "job_mpirun_prefix", "job_name", "job_dynamic_tls.server_cert_path")
NASTY = ("\n", "\x00", "$(", "`", ";", "'", "..", " ")


def refused_sample(table):
    """One refused value per field of REFUSED_SAMPLE, the nastiest first (fixed choice)."""
    chosen = []
    for index, ident in enumerate(REFUSED_SAMPLE):
        values = [value for value, status, _ in table[ident] if status == "refused"]
        wanted = NASTY[index % len(NASTY)]
        pick = next((v for v in values if wanted in v), values[0] if values else None)
        if pick is not None:
            chosen.append((BY_ID[ident], pick))
    return chosen


@pytest.fixture(scope="module")
def runs(classified, tmp_path_factory):
    """Every ansible-playbook run of this module, a few at a time, before the first assertion."""
    tmp = tmp_path_factory.mktemp("hostile_jobs")
    planned = plan_renders(classified)
    todo = [(key, {"workdir": str(tmp / ("r%03d" % i)), "playbook": "playbooks/render.yml",
                   "inventory_text": INVENTORY, "job": job})
            for i, (key, job, _) in enumerate(planned)]
    refusals = refused_sample(classified)
    todo += [(("refused", fld.id), {"workdir": str(tmp / ("x%03d" % i)), "playbook": "playbooks/launch.yml",
                                    "inventory_text": INVENTORY, "job": job_for(fld, value), "check": True,
                                    # Should validation let it through: render only, write no logs.
                                    "extra": {"render_only": True, "job_wait": False}})
             for i, (fld, value) in enumerate(refusals)]
    results = run_all(todo)
    return {"planned": planned, "results": results, "refusals": refusals}


# --- classification --------------------------------------------------------------------------

@pytest.mark.parametrize("ident", list(BY_ID))
def test_every_field_gets_500_distinct_values(classified, ident):
    values = [row[0] for row in classified[ident]]
    assert len(values) >= 500 and len(set(values)) == len(values)
    assert any(CONTROL.search(v) for v in values) and any(len(v) >= 4096 for v in values)
    assert any("$(" in v for v in values) and any(not v.isascii() for v in values)


@pytest.mark.parametrize("ident", list(BY_ID))
def test_refusals_name_the_variable(classified, ident):
    fld = BY_ID[ident]
    problems = []
    for value, status, messages in classified[ident]:
        if status == "exception":
            problems.append("%s: not a JobSpecError: %s" % (shown(value), messages[0]))
        elif status == "refused":
            if not any(fld.variable in message for message in messages):
                problems.append("%s: no message names %s: %s" % (shown(value), fld.variable, messages[:2]))
            raw = [m for m in messages if CONTROL.search(m)]
            if raw:
                problems.append("%s: a message holds a raw control character: %r" % (shown(value), raw[0][:150]))
    assert not problems, summary(problems)


# --- renders ---------------------------------------------------------------------------------

def _files_of(result):
    return rendered(result) if result["rc"] == 0 else {}


def _strings(value):
    """Every string inside a plan (values that reach the templates as they were given)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _strings(item)


def _leaks(files, base_files, value, cache, label):
    """Shell files where ``value`` stands unquoted (more often than in the baseline render)."""
    found = []
    for host, paths in files.items():
        for path in SHELL_FILES:
            text = paths.get(path)
            if text is None or value not in text:
                continue
            key = (label, host, path)
            if key not in cache:
                cache[key] = contexts(text)
            count = unsafe_count(text, value, cache[key])
            base_text = base_files.get(host, {}).get(path, "")
            if count > unsafe_count(base_text, value):
                found.append("%s/%s" % (host, path))
    return found


def _scalar_problems(runs_):
    """{field id: [problem]} of the scalar and TLS renders; {field id: values rendered}."""
    results = runs_["results"]
    base_files = {launcher: _files_of(results[("base", launcher)]) for launcher in LAUNCHERS}
    problems, rendered_values, cache = {}, {}, {}
    for key, job, assigned in runs_["planned"]:
        if key[0] not in ("scalar", "single"):
            continue
        result = results[key]
        common = render_problems(result, HOSTS)
        files = _files_of(result)
        launcher = job["job_launcher"]
        try:
            plan_strings = list(_strings(job_filters.job_plan(job, GROUPS, HOSTVARS, ROOT, "python3")))
        except Exception:  # pylint: disable=broad-except  (refused: render_problems says why it failed)
            plan_strings = []
        for fld, value in assigned:
            own = list(common)
            # A value the plan carries as a string (not turned into a number or boolean).
            verbatim = any(value in text for text in plan_strings)
            leaks = _leaks(files, base_files[launcher], value, cache, result["workdir"]) if files and verbatim else []
            if leaks:
                own.append("written where bash does not take it as data: " + ", ".join(leaks))
            if fld.render == "tls" and files:
                for host, paths in files.items():
                    try:
                        config = json.loads(paths.get("tls/config.json", "null")) or {}
                    except ValueError as error:
                        own.append("%s/tls/config.json: not JSON: %s" % (host, error))
                        continue
                    if config.get(fld.key) != value:
                        own.append("%s/tls/config.json: %s is %s" % (host, fld.key, shown(config.get(fld.key))))
            problems.setdefault(fld.id, []).extend("%s: %s" % (shown(value), p) for p in own)
            rendered_values.setdefault(fld.id, []).append(value)
    return problems, rendered_values


@pytest.fixture(scope="module")
def scalar_results(runs):
    return _scalar_problems(runs)


@pytest.mark.parametrize("launcher", LAUNCHERS)
def test_base_jobs_render(runs, launcher):
    result = runs["results"][("base", launcher)]
    assert render_problems(result, HOSTS) == []
    files = rendered(result)
    assert set(files) == set(HOSTS) and all("launch.sh" in files[h] and "job.env" in files[h] for h in HOSTS)


@pytest.mark.parametrize("ident", [f.id for f in FIELDS if f.render in ("scalar", "tls") and f.name != "job_launcher"])
def test_accepted_scalar_values_render_as_data(classified, scalar_results, ident):
    problems, rendered_values = scalar_results
    fld = BY_ID[ident]
    wanted = sample(fld, accepted(classified[ident]))
    assert sorted(rendered_values.get(ident, []), key=repr) == sorted(wanted, key=repr)
    assert not problems.get(ident), summary(problems[ident])


def test_job_launcher_values_are_the_launchers(classified):
    # Each launcher renders in its base job (test_base_jobs_render); nothing else is accepted.
    assert sorted(accepted(classified["job_launcher"])) == sorted(LAUNCHERS)


# --- list and mapping fields: byte-exact -----------------------------------------------------

ARGV_COMMANDS = {  # launcher -> [(file, start of the command, its end)]
    "msrun": [("launch.sh", r'^"\$CS_PYTHON" "\$CS_JOB_DIR/cs_rank\.py" --reap msrun \\$', r"^rc=\$\?")],
    "torchrun": [("launch.sh", r'^"\$CS_PYTHON" -m torch\.distributed\.(?:run|launch) \\$', r"^rc=\$\?")],
    "dynamic": [("launch.sh", r'^[ \t]*"\$CS_PYTHON" "\$CS_JOB_DIR/cs_rank\.py" ', r' >>"\$CS_LOG_DIR/'),
                ("launch.sh", r'^[ \t]*exec "\$CS_PYTHON" "\$CS_JOB_DIR/cs_rank\.py" ', r' >>"\$CS_LOG_DIR/')],
    "mpirun": [("rank.sh", r'^exec "\$CS_PYTHON" "\$CS_JOB_DIR/cs_rank\.py" ', r"\Z")],
}
MPIRUN_COMMAND = (r"^\S*mpirun'? \\$", r"^rc=\$\?")


def _words(text, start, end):
    command = command_at(text, start, end)
    if command is None:
        raise ValueError("command not found (%s)" % start)
    return bash_words(command)


def _first_difference(got, want, values):
    for index, (a, b) in enumerate(zip(got, want)):
        if a != b:
            return "word %d is %s, expected %s" % (index, shown(a), shown(b))
    return "%d words, expected %d (%s ...)" % (len(got), len(want), ", ".join(shown(v) for v in values[:3]))


def _batch_problems(runs_, ident):
    problems = []
    for key, job, assigned in runs_["planned"]:
        if key[0] != "batch" or key[1] != ident:
            continue
        result = runs_["results"][key]
        values = [value for _, value in assigned]
        label = "%s batch of %d value(s) (%s) with %s" % (key[2], len(values), ", ".join(
            shown(v, 30) for v in values[:4]) + (", ..." if len(values) > 4 else ""), key[3])
        common = render_problems(result, HOSTS)
        if common:
            problems += ["%s: %s" % (label, p) for p in common]
            continue
        files = rendered(result)
        launcher = key[3]
        try:
            if ident == "job_args":
                for host in HOSTS:
                    for path, start, end in ARGV_COMMANDS[launcher]:
                        words = _words(files[host][path], start, end)
                        # The last cs_rank.py runs the script (msrun's first is the reaper).
                        got = words[len(words) - words[::-1].index("/J/cs_rank.py"):]
                        if got != ["train.py"] + values:
                            problems.append("%s: %s/%s: argv differs: %s" % (
                                label, host, path, _first_difference(got, ["train.py"] + values, values)))
            elif ident.startswith("job_env"):
                env = job["job_env"]
                names = [n for n in env if not (SECRET_ENV and SECRET_ENV.fullmatch(n))]
                for host in HOSTS:
                    got = env_values(os.path.join(result["out_dir"], host, "job.env"), names)
                    wrong = [n for n in names if got.get(n) != env[n]]
                    problems += ["%s: %s/job.env: %s gives back %s, expected %s" % (
                        label, host, n, shown(got.get(n)), shown(env[n])) for n in wrong[:5]]
                if launcher == "mpirun":
                    words = _words(files["n1"]["launch.sh"], *MPIRUN_COMMAND)
                    pairs = set(zip(words, words[1:]))
                    problems += ["%s: n1/launch.sh: no -x %s" % (label, n) for n in names if ("-x", n) not in pairs][:5]
            else:
                words = _words(files["n1"]["launch.sh"], *MPIRUN_COMMAND)
                if ident == "job_mpirun_extra_args":
                    if words[-1 - len(values):-1] != values:
                        problems.append("%s: mpirun argv differs: %s" % (
                            label, _first_difference(words[-1 - len(values):-1], values, values)))
                else:
                    pairs = set(zip(words, words[1:]))
                    problems += ["%s: no -x %s" % (label, shown(n)) for n in values if ("-x", n) not in pairs][:5]
        except (ValueError, KeyError) as error:
            problems.append("%s: %s" % (label, error))
    return problems


@pytest.mark.parametrize("ident", [f.id for f in FIELDS if f.render == "batch"])
def test_accepted_list_values_are_delivered_byte_exact(classified, runs, ident):
    assert any(key[0] == "batch" and key[1] == ident for key, _, _ in runs["planned"]) or \
        not accepted(classified[ident])
    problems = _batch_problems(runs, ident)
    assert not problems, summary(problems)


# --- a sample of refusals through the real launch.yml ------------------------------------------

def test_refused_sample_is_big_enough(runs):
    assert len(runs["refusals"]) >= 10


@pytest.mark.parametrize("index", range(len(REFUSED_SAMPLE)))
def test_refused_sample_fails_in_the_first_play(runs, index):
    if index >= len(runs["refusals"]):
        pytest.fail("no refused value of %s to run" % REFUSED_SAMPLE[index])
    fld, value = runs["refusals"][index]
    result = runs["results"][("refused", fld.id)]
    problems = refusal_problems(result, JOB_PLAY, fld.variable)
    assert not problems, "%s = %s:\n%s\n%s" % (fld.id, shown(value), "\n".join(problems), result["out"][-2500:])
