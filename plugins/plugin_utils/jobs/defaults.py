"""Every job variable with its default, read from role job's defaults (roles/job/defaults/main.yml,
three folders up from plugins/plugin_utils/jobs in the checkout as in the installed collection):
the one list of what a job description may hold."""
import os

import yaml

DEFAULTS_FILE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))),
                             "roles", "job", "defaults", "main.yml")
# Required, so commented out in the defaults file: no default.
REQUIRED = ("job_name", "job_launcher", "job_script")
# Options of a run rather than of the job (read by role job's tasks themselves).
RUN_OPTIONS = ("job_wait", "job_stop_grace", "job_stacks_root", "job_render_only", "job_render_dir")
# Defaults the defaults file computes with Jinja from other settings (job_port from
# cluster_master_port / cluster_torchrun_port, job_python from the inventory's launch_python).
# Ansible resolves them before the job reaches these checks, so the text of the expression means
# nothing here: they stand as None, "worked out from the inventory" (job_port: DEFAULT_PORTS of
# the launcher; job_python: the launch_python of build_plan). Any other templated default is an
# error when this module is loaded: decide how jobs/checks.py treats it and list it here.
TEMPLATED = ("job_port", "job_python")


def _load_defaults(path=DEFAULTS_FILE):
    """{job variable: default} of the job itself (not RUN_OPTIONS), from role job's defaults."""
    with open(path, encoding="utf-8") as handle:
        defaults = yaml.safe_load(handle) or {}
    loaded = {name: None for name in REQUIRED}
    for name, value in defaults.items():
        if name in RUN_OPTIONS:
            continue
        if isinstance(value, str) and ("{{" in value or "{%" in value):
            if name not in TEMPLATED:
                raise ValueError(f"{path}: {name}: a templated default that jobs/checks.py does not know; "
                                 f"add it to TEMPLATED with what it stands for")
            value = None
        loaded[name] = value
    return loaded


DEFAULTS = _load_defaults()
