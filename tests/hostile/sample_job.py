#!/usr/bin/env python3
"""A job carrying a fixed sample of accepted hostile values, for a real launch that compares
what every rank receives byte-exact (the node side of "delivered byte-exact").

    .venv/bin/python tests/hostile/sample_job.py OUT_DIR [--launcher torchrun] [--count 30]
                     [--seed 0] [--name hostile-echo] [--workers 1]

writes
    OUT_DIR/hostile_job.json   job variables for `ansible-playbook playbooks/launch.yml -e @...`:
                               job_code_dir tests/hostile/echo_job, job_script echo.py, job_args and
                               job_env with the hostile values, HOSTILE_ENV_NAMES naming the variables
    OUT_DIR/expected.json      {"argv": [...], "env": {name: value}}: what echo.py must report on
                               every rank (logs/<job>/<host>/ holds echo/rank_<N>.json, one JSON line
                               per rank in the rank's log too)

The values come from the corpus (hostile_corpus.generate: hand-written plus hypothesis, fixed seed), keep
those plugins/plugin_utils/jobs/spec.py accepts, and pick, with a seeded random choice, one value with each
kind of trouble (spaces, both quotes, $(...), backticks, ;, &&, .., /, ~, unicode, a 4 KB string,
...) before filling up. Environment names avoid what the launch itself needs (PATH, LD_*, PYTHON*,
framework and MPI variables) and what the shell owns (_, UID, IFS, ...).
"""
import argparse
import json
import os
import random
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [HERE, os.path.join(ROOT, "collections")]

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.jobs import spec as job_spec  # noqa: E402  pylint: disable=wrong-import-position
from hostile_corpus import generate  # noqa: E402  pylint: disable=wrong-import-position

CODE_DIR = "tests/hostile/echo_job"
TROUBLE = [" ", "'", '"', "$(", "`", ";", "&&", "|", "..", "/", "~", "\\", "*", "#", "-", "=", "$", "!", "%"]
# Names a launch needs or the shell owns: never replaced by a hostile job_env entry.
AVOID = re.compile(r"(_|PATH|HOME|USER|SHELL|PWD|OLDPWD|TERM|LANG|LC_.*|TMPDIR|TZ|IFS|ENV|LD_.*|PYTHON.*|BASH.*|"
                   r"SHELLOPTS|UID|EUID|PPID|GROUPS|RANDOM|SRANDOM|LINENO|SECONDS|EPOCH.*|FUNCNAME|HISTCMD|"
                   r"DIRSTACK|PIPESTATUS|OPT.*|HOSTNAME|MS_.*|HCCL_.*|NCCL_.*|GLOO_.*|OMPI_.*|PMIX_.*|OPAL_.*|"
                   r"ORTE_.*|TORCH.*|CUDA.*|ASCEND.*|MASTER_.*|RANK|LOCAL_.*|WORLD_.*|GROUP_.*|ROLE_.*|CS_.*|"
                   r"HOSTILE_.*|.*PROXY.*)", re.IGNORECASE)
GROUPS = {"all": ["n1", "n2"], "cluster": ["n1", "n2"], "cpu_nodes": ["n1", "n2"], "cluster_master": ["n1"]}
HOSTVARS = {"n1": {"ansible_host": "127.0.0.31", "cluster_user": "trainer"},
            "n2": {"ansible_host": "127.0.0.32", "cluster_user": "trainer"}}


def _accepted(job_for, values):
    out = []
    for value in values:
        try:
            job_spec.build_plan(job_for(value), GROUPS, HOSTVARS, ROOT, "python3")
        except job_spec.JobSpecError:
            continue
        out.append(value)
    return out


def _choose(rng, values, count, offset=0):
    """One value with each kind of trouble (a 4 KB string, unicode, then TROUBLE from ``offset`` on),
    then random ones."""
    chosen = []
    kinds = TROUBLE[offset:] + TROUBLE[:offset]
    tests = [lambda v: len(v) >= 4096, lambda v: not v.isascii()] + [lambda v, t=t: t in v for t in kinds]
    for test in tests:
        candidates = [v for v in values if test(v) and v not in chosen]
        if candidates and len(chosen) < count:
            chosen.append(rng.choice(candidates))
    rest = [v for v in values if v not in chosen]
    rng.shuffle(rest)
    return chosen + rest[:count - len(chosen)]


def sample(launcher="torchrun", count=30, seed=0, name="hostile-echo", workers=1):
    """(job variables, expected {"argv", "env"})."""
    rng = random.Random(seed)
    base = {"job_name": name, "job_launcher": launcher, "job_code_dir": CODE_DIR, "job_script": "echo.py",
            "job_workers_per_node": workers}
    args = _accepted(lambda v: dict(base, job_args=[v]), generate("job_args", ["--lr=0.1", "train"]))
    values = _accepted(lambda v: dict(base, job_env={"HOSTILE_VALUE": v}), generate("job_env(value)", ["value"]))
    names = [n for n in _accepted(lambda v: dict(base, job_env={v: "x"}), generate("job_env(name)", ["HOSTILE"]))
             if not AVOID.fullmatch(n)]
    n_args = count * 2 // 5
    n_names = max(1, count // 5)
    job_args = _choose(rng, args, n_args)
    chosen = _choose(rng, values, count - n_args - n_names, offset=n_args - 2)
    env = {"HOSTILE_V%02d" % i: v for i, v in enumerate(chosen)}
    for index, env_name in enumerate(_choose(rng, names, n_names)):
        env[env_name] = "name-%d" % index
    env["HOSTILE_ENV_NAMES"] = ",".join(sorted(env) + ["HOSTILE_ENV_NAMES"])
    job = dict(base, job_args=job_args, job_env=env)
    job_spec.build_plan(job, GROUPS, HOSTVARS, ROOT, "python3")  # JobSpecError if the whole job is refused
    return job, {"argv": job_args, "env": dict(env)}


def write(out_dir, **options):
    job, expected = sample(**options)
    os.makedirs(out_dir, exist_ok=True)
    paths = (os.path.join(out_dir, "hostile_job.json"), os.path.join(out_dir, "expected.json"))
    for path, data in zip(paths, (job, expected)):
        with open(path, "w", encoding="ascii") as handle:
            json.dump(data, handle, ensure_ascii=True, indent=1, sort_keys=True)
            handle.write("\n")
    return paths


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("out_dir")
    parser.add_argument("--launcher", default="torchrun", choices=job_spec.LAUNCHERS)
    parser.add_argument("--count", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--name", default="hostile-echo")
    parser.add_argument("--workers", type=int, default=1)
    options = parser.parse_args(argv)
    for path in write(options.out_dir, launcher=options.launcher, count=options.count, seed=options.seed,
                      name=options.name, workers=options.workers):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
