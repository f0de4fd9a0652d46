#!/usr/bin/python
# -*- coding: utf-8 -*-
"""Ansible module: summarise a training job from the logs gathered on the controller."""

DOCUMENTATION = r"""
---
module: job_summary
short_description: Summarise a training job from its gathered logs
description:
  - Reads C(<log_root>/<host>/...) (each node's job log directory, gathered by
    C(playbooks/launch.yml) or C(playbooks/logs.yml)) and reports per rank the exit status,
    the last loss line and, for failed ranks, the first error lines.
  - Writes the summary as JSON to O(dest) (default C(<log_root>/summary.json)).
  - Runs on the controller (C(delegate_to: localhost)).
author:
  - Cluster suite contributors
options:
  log_root:
    description: The job's folder of gathered logs, C(logs/<job>).
    type: path
    required: true
  job:
    description: The job's name.
    type: str
    required: true
  launcher:
    description: The job's launcher, for the report.
    type: str
  expected:
    description: Global rank to host of the plan; ranks without a status are reported missing.
    type: dict
    default: {}
  running_hosts:
    description: Nodes where the job still has processes.
    type: list
    elements: str
    default: []
  extra:
    description: More fields to store in the JSON summary (for example why the wait ended).
    type: dict
    default: {}
  dest:
    description: Where to write the JSON summary; default C(<log_root>/summary.json).
    type: path
extends_documentation_fragment:
  - action_common_attributes
attributes:
  check_mode:
    support: full
    details: In check mode the summary is computed but not written.
  diff_mode:
    support: none
  platform:
    platforms: posix
"""

EXAMPLES = r"""
- name: Summarise the job
  job_summary:
    log_root: "{{ playbook_dir }}/../logs/sample-msrun"
    job: sample-msrun
    launcher: msrun
    expected: {0: node1, 1: node1, 2: node2, 3: node2}
  delegate_to: localhost
  register: summary
"""

RETURN = r"""
summary:
  description: The whole summary (also written to O(dest)).
  returned: always
  type: dict
  sample: {"job": "sample-msrun", "result": "succeeded", "failed_ranks": [], "ranks": []}
result:
  description: V(succeeded), V(failed) or V(running).
  returned: always
  type: str
  sample: succeeded
text:
  description: The summary as printable lines.
  returned: always
  type: str
  sample: "job sample-msrun (msrun): succeeded, 4/4 ranks exited 0"
"""

import json
import os

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.job_logs import summarize


def main():
    module = AnsibleModule(
        argument_spec=dict(
            log_root=dict(type="path", required=True),
            job=dict(type="str", required=True),
            launcher=dict(type="str"),
            expected=dict(type="dict", default={}),
            running_hosts=dict(type="list", elements="str", default=[]),
            extra=dict(type="dict", default={}),
            dest=dict(type="path"),
        ),
        supports_check_mode=True,
    )
    params = module.params
    try:
        expected = {int(rank): host for rank, host in params["expected"].items()}
    except (TypeError, ValueError):
        module.fail_json(msg="expected: keys must be ranks (integers)")
    summary = summarize(params["log_root"], params["job"], params["launcher"], expected,
                        params["running_hosts"])
    summary.update(params["extra"])
    if summary.get("timed_out") and summary["result"] != "succeeded":
        summary["text"] += "\n  the job did not finish within job_timeout and was stopped"
    dest = params["dest"] or os.path.join(params["log_root"], "summary.json")
    changed = False
    if not module.check_mode:
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        with open(dest, "w", encoding="utf-8") as handle:
            json.dump(summary, handle, indent=2, sort_keys=True)
            handle.write("\n")
        changed = True
    module.exit_json(changed=changed, summary=summary, result=summary["result"], text=summary["text"])


if __name__ == "__main__":
    main()
