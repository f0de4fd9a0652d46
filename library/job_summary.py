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
  - With O(archive), only unpacks one node's archive of its job log directory into
    C(<log_root>/<host>/) (replaced), in plain Python rather than with tar, because the
    logs are written on the node by the job. Only regular files (byte for byte, without
    setuid/setgid bits or group/other write) and directories are written; symbolic and hard
    links, devices, fifos, absolute names and names with C(..) are left out and returned in
    RV(not_copied). C(<log_root>) is never followed when it is a symbolic link.
  - Runs on the controller (delegated to localhost).
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
  hosts:
    description: The nodes of this run. Only their folders under O(log_root) are read; a
      folder of another node was left by an earlier run of the job on other nodes and is named
      in the summary as not read. Without it, every folder is read.
    type: list
    elements: str
  dest:
    description: Where to write the JSON summary; default C(<log_root>/summary.json).
    type: path
  not_copied:
    description: What was left out of each node's logs when they were unpacked (host to the
      RV(not_copied) list of the unpack); recorded in the summary.
    type: dict
    default: {}
  catalogue:
    description:
      - The catalogue of known failures (C(roles/job/files/failure_catalogue.yml) read as data,
        C({failures: [{id, signature, exit, cause, fix, source}]})). With it, every failed rank,
        scheduler and launcher is matched against it and the summary names the cause and the fix,
        and the first failure is the one that ended first on the controller's clock.
    type: dict
    default: {}
  clocks:
    description: Each node's clock offset against the controller, C({host: {offset, uncertainty}})
      in seconds (node minus controller), to order failures of several nodes on one clock.
    type: dict
    default: {}
  archive:
    description: A node's job log directory packed by tar (any compression); unpack it into
      C(<log_root>/<host>/) instead of summarising. Removed after unpacking.
    type: path
  host:
    description: The node whose archive O(archive) is (the folder name under O(log_root)).
    type: str
extends_documentation_fragment:
  - action_common_attributes
attributes:
  check_mode:
    support: full
    details: In check mode the summary is computed but not written; an archive is read but not unpacked.
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

- name: Unpack node1's logs under logs/sample-msrun/node1/
  job_summary:
    log_root: "{{ playbook_dir }}/../logs/sample-msrun"
    job: sample-msrun
    host: node1
    archive: /tmp/cluster-suite-logs.x1/node1.tar.gz
  delegate_to: localhost
  register: unpacked
"""

RETURN = r"""
summary:
  description: The whole summary (also written to O(dest)).
  returned: without O(archive)
  type: dict
  sample: {"job": "sample-msrun", "result": "succeeded", "failed_ranks": [], "ranks": []}
result:
  description: V(succeeded), V(failed) or V(running).
  returned: without O(archive)
  type: str
  sample: succeeded
text:
  description: The summary as printable lines.
  returned: without O(archive)
  type: str
  sample: "job sample-msrun (msrun): succeeded, 4/4 ranks exited 0"
files:
  description: Regular files unpacked from O(archive).
  returned: with O(archive)
  type: int
  sample: 12
bytes:
  description: Bytes of the regular files unpacked from O(archive).
  returned: with O(archive)
  type: int
  sample: 40960
not_copied:
  description: Members of O(archive) that were not unpacked, and why.
  returned: with O(archive)
  type: list
  elements: dict
  sample: [{"member": "./x", "reason": "symbolic link to /home/ctrl/.ssh"}]
"""

import json
import os

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.job_failures import CatalogueError, diagnose, hang_lines, load_catalogue
from ansible.module_utils.job_logs import UnpackError, diagnosis_logs, render, summarize, unpack_logs


def unpack(module):
    """Unpack one node's archive under <log_root>/<host>/ and remove the archive."""
    params = module.params
    host, archive = params["host"], params["archive"]
    if not host:
        module.fail_json(msg="job_summary: archive %s is given without host (the node it comes from)" % archive)
    if module.check_mode and not os.path.exists(archive):
        module.exit_json(changed=False, files=0, bytes=0, not_copied=[])
    try:
        result = unpack_logs(archive, params["log_root"], host, check=module.check_mode)
    except UnpackError as exc:
        module.fail_json(msg="%s: the logs of job %s were not unpacked: %s" % (host, params["job"], exc))
    if not module.check_mode:
        os.unlink(archive)
    for item in result["not_copied"]:
        module.warn("%s: %s in the logs of job %s was not copied: %s"
                    % (host, item["member"], params["job"], item["reason"]))
    module.exit_json(changed=not module.check_mode, **result)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            log_root=dict(type="path", required=True),
            job=dict(type="str", required=True),
            launcher=dict(type="str"),
            expected=dict(type="dict", default={}),
            running_hosts=dict(type="list", elements="str", default=[]),
            extra=dict(type="dict", default={}),
            hosts=dict(type="list", elements="str"),
            dest=dict(type="path"),
            not_copied=dict(type="dict", default={}),
            catalogue=dict(type="dict", default={}),
            clocks=dict(type="dict", default={}),
            archive=dict(type="path"),
            host=dict(type="str"),
        ),
        supports_check_mode=True,
    )
    params = module.params
    if params["archive"]:
        unpack(module)
    try:
        expected = {int(rank): host for rank, host in params["expected"].items()}
    except (TypeError, ValueError):
        module.fail_json(msg="expected: keys must be ranks (integers)")
    summary = summarize(params["log_root"], params["job"], params["launcher"], expected,
                        params["running_hosts"], params["not_copied"], params["hosts"])
    summary.update(params["extra"])
    if params["catalogue"]:
        try:
            catalogue = load_catalogue(params["catalogue"])
        except CatalogueError as exc:
            module.fail_json(msg="catalogue: %s" % exc)
        if (summary.get("hang") or {}).get("hung"):
            summary["result"] = "hung"
        diagnose(summary, diagnosis_logs(params["log_root"], params["hosts"]), catalogue, params["clocks"])
        summary["text"] = render(summary)
    summary["text"] += "".join("\n" + line for line in hang_lines(summary.get("hang")))
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
