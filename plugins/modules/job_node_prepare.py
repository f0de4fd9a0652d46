"""Documentation of action job_node_prepare (plugins/action/job_node_prepare.py); it has no module code."""

DOCUMENTATION = r"""
---
module: job_node_prepare
short_description: A launch's writes on one node in one task (directories, scripts, code, setup)
description:
  - On the node, one after another, stopping at the first that fails, makes and clears the job
    directories (module M(cluster_suite.hpc.job_workspace) with O(workspace)), writes O(files)
    and O(private_files) under O(root) (module M(cluster_suite.hpc.rendered_files)), copies the
    controller's directory O(code_src) to O(root)/code/ (action M(ansible.builtin.copy), modes
    preserved) and runs the command O(setup).
  - One task instead of six per node, as ansible-playbook's own process handles every task result on
    one core, which at a thousand nodes sets how long a launch takes.
author:
  - Cluster suite contributors
options:
  workspace:
    description: The options of M(cluster_suite.hpc.job_workspace).
    type: dict
    required: true
  root:
    description: The job directory on the node, where O(files) and the code go.
    type: path
    required: true
  files:
    description: The options O(cluster_suite.hpc.rendered_files#module:files) (path, content, mode).
    type: list
    elements: dict
    required: true
  private_files:
    description:
      - Files whose text is a secret, written mode V(0600) unless given; never logged or returned.
    type: list
    elements: dict
    default: []
  code_src:
    description: The controller's code directory to copy; left out, nothing is copied.
    type: path
  setup:
    description: A command (argv) to run last, as the task's user; left out, nothing is run.
    type: list
    elements: str
extends_documentation_fragment:
  - action_common_attributes
  - cluster_suite.hpc.attributes
attributes:
  check_mode:
    support: partial
    details: Each module and the copy report what they would change; the setup command is run
      only outside check mode.
  diff_mode:
    support: none
seealso:
  - module: cluster_suite.hpc.job_workspace
  - module: cluster_suite.hpc.rendered_files
"""

EXAMPLES = r"""
- name: Make the job directories, write the scripts, copy the code
  cluster_suite.hpc.job_node_prepare:
    workspace:
      home: /home/trainer
      job_dir: /home/trainer/jobs/demo
      name: demo
      clear: [logs, run]
      make: [run, logs]
    root: /home/trainer/jobs/demo
    files:
      - {path: start.sh, content: "#!/usr/bin/env bash\n", mode: "0755"}
    code_src: /srv/project/train
"""

RETURN = r"""
written:
  description: Paths (relative to O(root)) of O(files) and O(private_files) written because they were missing or differed.
  returned: always
  type: list
  elements: str
  sample: [start.sh]
unchanged:
  description: How many of the files already had the same text and mode.
  returned: always
  type: int
  sample: 4
code_changed:
  description: Whether the copy of the code directory changed anything.
  returned: always
  type: bool
  sample: false
workspace:
  description: The result of job_workspace.
  returned: always
  type: dict
  sample: {changed: true}
setup:
  description: The setup command's rc, stdout and stderr; null without O(setup).
  returned: always
  type: dict
  sample: {rc: 0, stdout: "", stderr: ""}
"""
