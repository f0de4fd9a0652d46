"""The hostile-input corpus against the inventory values that reach a script or a command.

For every such value (the training user, addresses, networks, interface names, paths, programs,
environment names and values) at least 500 values go through plugins/plugin_utils/inventory_checks
(with the roles' argument specs, as action validate_settings runs it in playbooks/validate.yml)
in this process. Each value must be either refused, with a message naming the host and the
variable (no raw control character, no exception), or accepted and then:

- per-host values (ansible_host, the inventory name, render_iface, render_user_home) vary across
  the hosts of one generated inventory rendered by the real playbooks/render.yml (mpirun -H and
  torchrun): every script passes `bash -n`, and bash gives each host's values back byte-exact
  (the -H list, HCCL_IF_IP, GLOO_SOCKET_IFNAME, CS_HOST, CS_JOB_DIR);
- cluster-wide values (cluster_user, cluster_network_cidr, launch_python, openmpi_prefix) render
  a sample through render.yml (mpirun), read back from the mpirun command line, bin/python and
  job.env;
- role npu_env's values render through its own templates (env_npu.sh in each CANN layout,
  env_gpu.sh) with Ansible's filters: `bash -n`, never unquoted, npu_env_extra byte-exact.

A sample of refused values also goes through the real playbooks/validate.yml, which must fail
in its first play naming the host and the variable, and through playbooks/launch.yml, which must
refuse them before any connection too (ssh is a stand-in that records attempts).
"""
import os
import random
import re
import zlib

import jinja2
import pytest
import yaml
from ansible.plugins.filter.core import quote, regex_replace

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.validation import inventory as inventory_checks
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.validation import gate, role_settings
from hostile_corpus import (CODE_DIR, ENV_BLOCK, ROOT, SAFE_WORD, bash_n, bash_words, command_at, generate,
                            run_bash, unsafe_count)
from hostile_harness import (INVENTORY_PLAY, SHELL_FILES, inventory_yaml, refusal_problems,
                             render_problems, rendered, run_all)

SAMPLE = int(os.environ.get("HOSTILE_RENDER_SAMPLE", "8"))
CONTROL = re.compile(r"[\x00-\x1f\x7f]")
SPECS = role_settings.all_specs()
GROUP_VARS = {"ansible_connection": "ssh", "ansible_user": "trainer", "cluster_user": "trainer",
              "cluster_network_cidr": "127.0.0.0/24", "launch_python": "python3",
              "openmpi_prefix": "/usr/local/openmpi-4.1.4"}
HOST_VARS = {"n1": {"ansible_host": "127.0.0.31"}, "n2": {"ansible_host": "127.0.0.32"}}
JOB = {"job_name": "hostile", "job_code_dir": CODE_DIR, "job_script": "train.py", "job_workers_per_node": 1}
MPIRUN_COMMAND = (r"^\S*mpirun'? \\$", r"^rc=\$\?")

PER_HOST = {"ansible_host": ["127.0.0.32", "node2", "node-2.example.com"], "render_iface": ["eth0", "enp3s0f0.100"],
            "render_user_home": ["/home/trainer", "/data/home/t"], "inventory name": ["n2", "node-2.rack1"]}
CLUSTER = {"cluster_user": ["trainer", "ml_user"], "cluster_network_cidr": ["127.0.0.0/24", "127.0.0.0/8"],
           "launch_python": ["python3", "/opt/ml/bin/python3"], "openmpi_prefix": ["/usr/local/openmpi-4.1.4"],
           "ansible_user": ["trainer"]}
NPU_ENV = {"npu_env_install_path": ["/usr/local/Ascend"], "cluster_env_npu_path": ["/etc/cluster-suite/env_npu.sh"],
           "cluster_env_gpu_path": ["/etc/cluster-suite/env_gpu.sh"], "npu_env_hccl_socket_ifname": ["eth0", "^=eth0,eth1"],
           "npu_env_nccl_socket_ifname": ["en5", "=eth1"], "npu_env_hccl_if_ip": ["127.0.0.32"],
           "npu_env_extra(name)": ["A_1", "HOSTILE"], "npu_env_extra(value)": ["v", "a b"]}
FIELDS = dict(PER_HOST, **CLUSTER, **NPU_ENV)


def variable(ident):
    return ident.split("(")[0]


def inventory(changes=None, hosts=None):
    """(groups, hostvars) of the base inventory with ``changes`` {var: value} on ``hosts`` (all)."""
    hostvars = {h: dict(GROUP_VARS, **v) for h, v in HOST_VARS.items()}
    for host in hosts or list(hostvars):
        hostvars[host].update(changes or {})
    names = list(hostvars)
    return {"all": names, "cluster": names, "cpu_nodes": names, "cluster_master": ["n1"]}, hostvars


def placed(ident, value):
    """(groups, hostvars) with ``value`` in field ``ident``."""
    if ident == "inventory name":
        groups, hostvars = inventory()
        hostvars[value] = hostvars.pop("n2")
        names = ["n1", value]
        return dict(groups, all=names, cluster=names, cpu_nodes=names), hostvars
    if ident in PER_HOST:
        return inventory({ident: value}, ["n2"])
    if ident == "npu_env_extra(name)":
        return inventory({"npu_env_extra": {value: "x"}})
    if ident == "npu_env_extra(value)":
        return inventory({"npu_env_extra": {"HOSTILE": value}})
    return inventory({ident: value})


def classify(groups, hostvars):
    try:
        errors = inventory_checks.inventory_errors(groups, hostvars, SPECS)
    except Exception as error:  # pylint: disable=broad-except  (any exception is a failure)
        return "exception", ["%s: %s" % (type(error).__name__, str(error)[:300])]
    return ("refused" if errors else "accepted"), errors


def shown(value, limit=70):
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "...(%d chars)" % len(value)


def summary(problems, limit=12):
    lines = ["%d problem(s):" % len(problems)] + problems[:limit]
    if len(problems) > limit:
        lines.append("... and %d more" % (len(problems) - limit))
    return "\n".join(lines)


def pick(ident, values, count=SAMPLE):
    """A fixed sample of ``values`` (those with characters outside the plain set first)."""
    rng = random.Random(zlib.crc32(ident.encode()))
    nasty = [v for v in values if not SAFE_WORD.fullmatch(v)]
    plain = [v for v in values if SAFE_WORD.fullmatch(v)]
    rng.shuffle(nasty)
    rng.shuffle(plain)
    return (nasty + plain)[:count]


@pytest.fixture(scope="module")
def classified():
    return {ident: [(value,) + classify(*placed(ident, value)) for value in generate(ident, valid)]
            for ident, valid in FIELDS.items()}


def accepted(rows):
    return [value for value, status, _ in rows if status == "accepted"]


# --- classification --------------------------------------------------------------------------

@pytest.mark.parametrize("ident", list(FIELDS))
def test_every_value_gets_500_distinct_values(classified, ident):
    values = [row[0] for row in classified[ident]]
    assert len(values) >= 500 and len(set(values)) == len(values)
    assert any(CONTROL.search(v) for v in values) and any(len(v) >= 4096 for v in values)


@pytest.mark.parametrize("ident", list(FIELDS))
def test_refusals_name_the_host_and_the_variable(classified, ident):
    problems = []
    for value, status, messages in classified[ident]:
        if status == "exception":
            problems.append("%s: not an error list: %s" % (shown(value), messages[0]))
            continue
        if status != "refused":
            continue
        hosts = ("n1", "n2", value, repr(value)[:60]) if ident == "inventory name" else ("n1", "n2")
        named = [m for m in messages if ": %s" % variable(ident) in m and m.startswith(hosts)]
        if not named:
            problems.append("%s: no message names a host and %s: %s" % (shown(value), variable(ident), messages[:2]))
        raw = [m for m in messages if CONTROL.search(m)]
        if raw:
            problems.append("%s: a message holds a raw control character: %r" % (shown(value), raw[0][:150]))
    assert not problems, summary(problems)


@pytest.mark.parametrize("ident", list(PER_HOST) + list(CLUSTER))
def test_the_playbook_filter_says_the_same(classified, ident):
    """validation/gate.py (what validate.yml runs, through action validate_settings) agrees with the direct checks."""
    rows = classified[ident]
    for value, status, messages in [rows[i] for i in range(0, len(rows), max(1, len(rows) // 15))]:
        groups, hostvars = placed(ident, value)
        assert gate.inventory_problems(groups, hostvars) == messages, shown(value)


# --- renders through playbooks/render.yml ----------------------------------------------------

def _unique(values, key=lambda v: v):
    seen, out = set(), []
    for value in values:
        if key(value) not in seen:
            seen.add(key(value))
            out.append(value)
    return out


def per_host_inventories(table):
    """[(groups, host_vars)]: every accepted per-host value on a host of its own (128 hosts a file)."""
    addresses = _unique(v for v in accepted(table["ansible_host"]) if v != "127.0.0.31")
    names = _unique((v for v in accepted(table["inventory name"]) if v != "n1"), key=lambda v: v.split(".")[0])
    ifaces, homes = accepted(table["render_iface"]), accepted(table["render_user_home"])
    count = max(len(addresses), len(names), len(ifaces), len(homes))
    hosts = []
    for i in range(count):
        name = names[i] if i < len(names) else "h%04d" % i
        spare = "127.0.%d.%d" % (1 + i // 250, i % 250 + 1)
        hosts.append((name, {"ansible_host": addresses[i] if i < len(addresses) else spare,
                             "render_iface": ifaces[i % len(ifaces)], "render_user_home": homes[i % len(homes)]}))
    out = []
    for start in range(0, len(hosts), 127):
        chunk = [("n1", {"ansible_host": "127.0.0.31", "render_iface": "eth0"})] + hosts[start:start + 127]
        for _ in range(5):  # drop hosts that only clash with each other (short names, addresses)
            groups = {"all": [h for h, _ in chunk], "cluster": [h for h, _ in chunk], "cluster_master": ["n1"],
                      "npu_nodes": [h for i, (h, _) in enumerate(chunk) if i % 2],
                      "cpu_nodes": [h for i, (h, _) in enumerate(chunk) if not i % 2]}
            host_vars = {h: dict(v, **({"npu_device_count": 8} if i % 2 else {})) for i, (h, v) in enumerate(chunk)}
            errors = inventory_checks.inventory_errors(groups, {h: dict(GROUP_VARS, **v) for h, v in host_vars.items()})
            clash = {m.split(":")[0] for m in errors}
            if not errors or not clash & {h for h, _ in chunk[1:]}:
                break
            chunk = [(h, v) for h, v in chunk if h == "n1" or h not in clash]
        out.append((groups, host_vars, errors))
    return out


def cluster_rounds(table):
    """[(changes, [(ident, value)])]: the sampled cluster-wide values, one of each per render."""
    samples = {ident: pick(ident, [v for v in accepted(table[ident]) if v != GROUP_VARS.get(ident)])
               for ident in ("cluster_user", "cluster_network_cidr", "launch_python", "openmpi_prefix")}
    rounds = []
    for round_ in range(SAMPLE):
        assigned = [(ident, values[round_]) for ident, values in samples.items() if round_ < len(values)]
        if assigned:
            rounds.append((dict(assigned), assigned))
    return rounds


def refused_sample(table, fields, count):
    chosen = []
    for index, ident in enumerate(fields[:count]):
        values = [value for value, status, _ in table[ident] if status == "refused"]
        wanted = ("\n", "$(", ";", " ", "\t", "'", "..", "\x00")[index % 8]
        value = next((v for v in values if wanted in v), values[0] if values else None)
        if value is not None:
            chosen.append((ident, value))
    return chosen


VALIDATE_SAMPLE = ("cluster_user", "ansible_host", "cluster_network_cidr", "launch_python", "openmpi_prefix",
                   "render_iface", "npu_env_nccl_socket_ifname", "npu_env_extra(value)")
LAUNCH_SAMPLE = ("cluster_user", "ansible_host", "launch_python", "openmpi_prefix")


@pytest.fixture(scope="module")
def runs(classified, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("hostile_inventory")
    todo, planned = [], {}
    base_groups, base_vars = inventory()
    base_text = inventory_yaml(base_groups, HOST_VARS, GROUP_VARS)
    mpirun = dict(JOB, job_launcher="mpirun")
    todo.append((("base",), dict(workdir=str(tmp / "base"), playbook="playbooks/render.yml",
                                 inventory_text=base_text, job=mpirun)))
    for index, (groups, host_vars, errors) in enumerate(per_host_inventories(classified)):
        text = inventory_yaml(groups, host_vars, GROUP_VARS)
        for launcher, job in (("mpirun", dict(mpirun, job_mpirun_hostfile=False)),
                              ("torchrun", dict(JOB, job_launcher="torchrun"))):
            key = ("per-host", index, launcher)
            planned[key] = (groups, host_vars, errors)
            todo.append((key, dict(workdir=str(tmp / ("h%d-%s" % (index, launcher))), playbook="playbooks/render.yml",
                                   inventory_text=text, job=job)))
    for index, (changes, assigned) in enumerate(cluster_rounds(classified)):
        key = ("cluster", index)
        planned[key] = (changes, assigned)
        todo.append((key, dict(workdir=str(tmp / ("c%d" % index)), playbook="playbooks/render.yml",
                               inventory_text=inventory_yaml(base_groups, HOST_VARS, dict(GROUP_VARS, **changes)),
                               job=mpirun)))
    samples = {"validate": refused_sample(classified, VALIDATE_SAMPLE, len(VALIDATE_SAMPLE)),
               "launch": refused_sample(classified, LAUNCH_SAMPLE, len(LAUNCH_SAMPLE))}
    for kind, chosen in samples.items():
        for index, (ident, value) in enumerate(chosen):
            groups, hostvars = placed(ident, value)
            host_vars = {h: {k: v for k, v in hv.items() if GROUP_VARS.get(k) != v or k in ("ansible_host",)}
                         for h, hv in hostvars.items()}
            playbook = "playbooks/validate.yml" if kind == "validate" else "playbooks/launch.yml"
            todo.append(((kind, ident), dict(workdir=str(tmp / ("%s%d" % (kind, index))), playbook=playbook,
                                             inventory_text=inventory_yaml(groups, host_vars, GROUP_VARS),
                                             job=dict(JOB, job_launcher="mpirun"), check=True,
                                             extra={"render_only": True, "job_wait": False})))
    return {"results": run_all(todo), "planned": planned, "samples": samples}


def _exports(path, names):
    """{name: value} of `export NAME=...` lines of a rendered file, read back by bash after a static
    check that each line is one plain quoted word (nothing can expand or run)."""
    with open(path, encoding="utf-8", errors="surrogateescape") as handle:
        lines = [line for line in handle.read().split("\n")
                 if re.match(r"export (%s)=" % "|".join(names), line)]
    for line in lines:
        if not ENV_BLOCK.fullmatch(line + "\n"):
            raise ValueError("%s: not a plain export line: %r" % (os.path.basename(path), line[:120]))
    script = "\n".join(lines) + "\nprintf '%s\\0' " + " ".join('"${%s-<unset>}"' % n for n in names)
    proc = run_bash(script, {"PATH": "/nonexistent"}, "/")
    values = proc.stdout.decode("utf-8", "surrogateescape").split("\0")[:-1]
    return dict(zip(names, values))


def test_base_inventory_renders(runs):
    assert render_problems(runs["results"][("base",)], ["n1", "n2"]) == []


def test_per_host_values_render_byte_exact(classified, runs):
    keys = [k for k in runs["planned"] if k[0] == "per-host"]
    assert keys, "no per-host render planned"
    problems, covered = [], {ident: set() for ident in PER_HOST}
    for key in keys:
        groups, host_vars, errors = runs["planned"][key]
        if errors:
            problems.append("%s: the generated inventory is refused: %s" % (key, errors[:3]))
        result = runs["results"][key]
        hosts = groups["cluster"]
        common = render_problems(result, hosts)
        problems += ["%s: %s" % (key, p) for p in common]
        if common:
            continue
        files = rendered(result)
        out = result["out_dir"]
        for host in hosts:
            hv = host_vars[host]
            home = hv.get("render_user_home", "/home/trainer")
            want = {"CS_HOST": host, "CS_JOB_DIR": home.rstrip("/") + "/jobs/hostile",
                    "GLOO_SOCKET_IFNAME": hv.get("render_iface", "")}
            if host in groups["npu_nodes"]:
                want["HCCL_IF_IP"] = hv["ansible_host"]
            try:
                got = _exports(os.path.join(out, host, "job.env"), list(want))
            except ValueError as error:
                problems.append("%s %s: %s" % (key, host, error))
                continue
            problems += ["%s %s: job.env %s is %s, expected %s" % (key, host, n, shown(got.get(n)), shown(w))
                         for n, w in want.items() if got.get(n) != w]
            for value in hv.values():
                for path in SHELL_FILES:
                    if isinstance(value, str) and unsafe_count(files[host].get(path, ""), value):
                        problems.append("%s %s/%s: %s stands unquoted" % (key, host, path, shown(value)))
            covered["ansible_host"].add(hv["ansible_host"])
            covered["render_iface"].add(hv.get("render_iface"))
            covered["render_user_home"].add(hv.get("render_user_home"))
            covered["inventory name"].add(host)
        if key[2] == "mpirun":
            try:
                words = bash_words(command_at(files["n1"]["launch.sh"], *MPIRUN_COMMAND) or "")
                got_h = words[words.index("-H") + 1].split(",")
                want_h = ["%s:1" % host_vars[h]["ansible_host"] for h in hosts]
                if got_h[0] != want_h[0] or sorted(got_h) != sorted(want_h):
                    problems.append("%s: -H list differs: %s" % (key, sorted(set(got_h) ^ set(want_h))[:4]))
            except ValueError as error:
                problems.append("%s: n1/launch.sh: %s" % (key, error))
    for ident in PER_HOST:
        missing = [v for v in accepted(classified[ident]) if v not in covered[ident] and v != "n1"
                   and v != "127.0.0.31"]
        if ident == "ansible_host":  # inventory names sharing a short name are left out on purpose
            problems += ["%s %s: accepted but not rendered" % (ident, shown(v)) for v in missing][:5]
    assert not problems, summary(problems)


def test_cluster_values_render_byte_exact(runs):
    keys = [k for k in runs["planned"] if k[0] == "cluster"]
    assert keys, "no cluster-wide render planned"
    base_files = rendered(runs["results"][("base",)])
    problems = []
    for key in keys:
        changes, assigned = runs["planned"][key]
        result = runs["results"][key]
        label = ", ".join("%s=%s" % (i, shown(v, 40)) for i, v in assigned)
        common = render_problems(result, ["n1", "n2"])
        problems += ["%s: %s" % (label, p) for p in common]
        if common:
            continue
        files = rendered(result)
        user = changes.get("cluster_user", "trainer")
        prefix = changes.get("openmpi_prefix", GROUP_VARS["openmpi_prefix"])
        cidr = changes.get("cluster_network_cidr", GROUP_VARS["cluster_network_cidr"])
        python = changes.get("launch_python", "python3")
        try:
            words = bash_words(command_at(files["n1"]["launch.sh"], *MPIRUN_COMMAND) or "")
            checks = {"mpirun": (words[0], prefix + "/bin/mpirun"),
                      "--prefix": (words[words.index("--prefix") + 1], prefix),
                      "btl_tcp_if_include": (words[words.index("btl_tcp_if_include") + 1], cidr)}
            python_line = files["n1"]["bin/python"].split("exec ", 1)[1].strip()
            python_words = bash_words(python_line[:-len(' "$@"')] if python_line.endswith(' "$@"') else python_line)
            checks["bin/python"] = (python_words[0], python if python.startswith("/") else "/usr/bin/" + python)
            home = "/root" if user == "root" else "/home/" + user
            checks["CS_JOB_DIR"] = (_exports(os.path.join(result["out_dir"], "n1", "job.env"), ["CS_JOB_DIR"])
                                    .get("CS_JOB_DIR"), home + "/jobs/hostile")
            problems += ["%s: %s is %s, expected %s" % (label, name, shown(got), shown(want))
                         for name, (got, want) in checks.items() if got != want]
        except (ValueError, IndexError) as error:
            problems.append("%s: %s" % (label, error))
        for _ident, value in assigned:
            for host in ("n1", "n2"):
                for path in SHELL_FILES:
                    text = files[host].get(path, "")
                    if unsafe_count(text, value) > unsafe_count(base_files.get(host, {}).get(path, ""), value):
                        problems.append("%s: %s/%s: %s stands unquoted" % (label, host, path, shown(value)))
    assert not problems, summary(problems)


# --- role npu_env's templates ------------------------------------------------------------------

TEMPLATES = os.path.join(ROOT, "roles", "npu_env", "templates")
LAYOUTS = {"ascend-toolkit": ("ascend-toolkit/set_env.sh", "ascend-toolkit/latest"), "nnae": ("", "nnae/latest"),
           "toolkit": ("", "toolkit")}


def _role_template(name, overrides, tmp_path, label):
    """Render a template of role npu_env with Ansible's filters (and the cluster defaults it reads); the file path."""
    context = {}
    for role in ("cluster", "npu_env"):
        with open(os.path.join(ROOT, "roles", role, "defaults", "main.yml"), encoding="utf-8") as handle:
            context.update(yaml.safe_load(handle))
    context.update({"inventory_hostname": "n2", "npu_env_hccl_if_ip": "127.0.0.32", "_npu_env_host_ip": "127.0.0.32",
                    "_npu_env_has_driver_libs": True, "_npu_env_msnpureport": "/usr/local/Ascend/msnpureport",
                    "npu_device_count": 8})
    context.update(overrides)
    install = context["npu_env_install_path"]
    layout = context.pop("layout", "ascend-toolkit")
    set_env, root = LAYOUTS[layout]
    context["_npu_env_layout"] = {"name": layout, "set_env": install + "/" + set_env if set_env else "",
                                   "root": install + "/" + root}
    context.setdefault("_npu_env_nccl_ifname", context["npu_env_nccl_socket_ifname"] or "=eth0")
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), trim_blocks=True,
                             undefined=jinja2.StrictUndefined, keep_trailing_newline=True)
    env.filters.update(quote=quote, regex_replace=regex_replace)
    path = os.path.join(str(tmp_path), label)
    with open(path, "w", encoding="utf-8", errors="surrogateescape") as handle:
        handle.write(env.get_template(name).render(**context))
    return path


@pytest.mark.parametrize("ident", [i for i in NPU_ENV if not i.startswith("npu_env_extra")])
def test_npu_env_values_render_as_data(classified, tmp_path, ident):
    problems = []
    values = pick(ident, accepted(classified[ident]), 20)
    for index, value in enumerate(values):
        for template in ("env_npu.sh.j2", "env_gpu.sh.j2"):
            for layout in (LAYOUTS if template == "env_npu.sh.j2" else ["ascend-toolkit"]):
                try:
                    path = _role_template(template, {ident: value, "layout": layout}, tmp_path,
                                          "%d-%s-%s" % (index, template, layout))
                except Exception as error:  # pylint: disable=broad-except  (a template error is a failure)
                    problems.append("%s: %s: %s: %s" % (shown(value), template, type(error).__name__, error))
                    continue
                complaint = bash_n(path)
                with open(path, encoding="utf-8", errors="surrogateescape") as handle:
                    text = handle.read()
                if complaint:
                    problems.append("%s: %s (%s): bash -n: %s" % (shown(value), template, layout, complaint[:200]))
                if unsafe_count(text, value):
                    problems.append("%s: %s (%s): stands unquoted" % (shown(value), template, layout))
    assert not problems, summary(problems)


def test_npu_env_extra_is_delivered_byte_exact(classified, tmp_path):
    names = [n for n in accepted(classified["npu_env_extra(name)"])]
    values = accepted(classified["npu_env_extra(value)"])
    extra = dict({name: "hostile-name" for name in names}, **{"HOSTILE_V%04d" % i: v for i, v in enumerate(values)})
    assert len(extra) > 100
    problems = []
    for template in ("env_npu.sh.j2", "env_gpu.sh.j2"):
        path = _role_template(template, {"npu_env_extra": extra}, tmp_path, template)
        complaint = bash_n(path)
        if complaint:
            problems.append("%s: bash -n: %s" % (template, complaint[:300]))
        with open(path, encoding="utf-8", errors="surrogateescape") as handle:
            text = handle.read()
        marker = "# Site additions (npu_env_extra).\n"
        block = text[text.index(marker) + len(marker):]
        plain = ENV_BLOCK.match(block)
        if block[plain.end():].strip() and not block[plain.end():].lstrip().startswith(("#", "if ")):
            problems.append("%s: npu_env_extra is not plain export lines: %r" % (template, block[plain.end():][:100]))
            continue
        got = _exports_block(block[:plain.end()], list(extra))
        problems += ["%s: %s is %s, expected %s" % (template, n, shown(got.get(n)), shown(v))
                     for n, v in extra.items() if got.get(n) != v][:10]
    assert not problems, summary(problems)


def _exports_block(block, names):
    script = block + "printf '%s\\0' " + " ".join('"${%s-<unset>}"' % n for n in names)
    proc = run_bash(script, {"PATH": "/nonexistent"}, "/")
    return dict(zip(names, proc.stdout.decode("utf-8", "surrogateescape").split("\0")[:-1]))


# --- a sample of refusals through the real playbooks -------------------------------------------

@pytest.mark.parametrize("ident", VALIDATE_SAMPLE)
def test_validate_refuses_in_its_first_play(runs, ident):
    chosen = dict(runs["samples"]["validate"])
    assert ident in chosen, "no refused value of %s" % ident
    result = runs["results"][("validate", ident)]
    host = "n1" if ident in CLUSTER or ident.startswith("npu_env") else "n2"
    problems = refusal_problems(result, INVENTORY_PLAY, variable(ident), host)
    assert not problems, "%s = %s:\n%s\n%s" % (ident, shown(chosen[ident]), "\n".join(problems), result["out"][-2500:])


@pytest.mark.parametrize("ident", LAUNCH_SAMPLE)
def test_launch_refuses_before_any_connection(runs, ident):
    chosen = dict(runs["samples"]["launch"])
    assert ident in chosen, "no refused value of %s" % ident
    result = runs["results"][("launch", ident)]
    # launch.yml imports playbooks/validate.yml first: the inventory is refused by its first play.
    problems = refusal_problems(result, INVENTORY_PLAY, variable(ident))
    assert not problems, "%s = %s:\n%s\n%s" % (ident, shown(chosen[ident]), "\n".join(problems), result["out"][-2500:])
