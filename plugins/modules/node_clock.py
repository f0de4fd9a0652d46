#!/usr/bin/python
# -*- coding: utf-8 -*-
"""Documentation of the action plugin node_clock (plugins/action/node_clock.py), which times the node from the controller."""

DOCUMENTATION = r"""
---
module: node_clock
short_description: Measure a node's clock against the controller's and name its time service
description:
  - Reads the node's clock (C(date +%s.%N), one shell command over the task's connection, no
    module transferred) O(reads) times, each between two controller timestamps. The node's
    time is taken at the midpoint of each read; the read with the shortest round trip counts,
    and half its round trip is the uncertainty of the offset.
  - Names the time service running on the node from its process names (C(/proc/*/comm)) -
    C(chrony), C(systemd-timesyncd), C(ntpd), C(openntpd), or C(none).
  - Changes nothing; runs in check mode too.
author:
  - Cluster suite contributors
options:
  reads:
    description: How many times to read the clock, 1 to 50.
    type: int
    default: 5
extends_documentation_fragment:
  - action_common_attributes
  - cluster_suite.hpc.attributes
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
"""

EXAMPLES = r"""
- name: Measure this node's clock against the controller's
  cluster_suite.hpc.node_clock:
    reads: 5
  register: clock
"""

RETURN = r"""
offset:
  description: The node's clock minus the controller's, in seconds (3 decimals).
  returned: always
  type: float
  sample: 0.012
uncertainty:
  description: Half the round trip of the read that counts, in seconds; the true offset lies within offset plus or minus this.
  returned: always
  type: float
  sample: 0.004
round_trip:
  description: The round trip of the read that counts, in seconds.
  returned: always
  type: float
  sample: 0.008
reads:
  description: How many reads were taken.
  returned: always
  type: int
  sample: 5
sync_service:
  description: The time service running on the node, or C(none).
  returned: always
  type: str
  sample: chrony
"""
