#!/usr/bin/python
# -*- coding: utf-8 -*-
"""Documentation of the action plugin acceptance_heat_map (plugins/action/acceptance_heat_map.py), run on the controller."""

DOCUMENTATION = r"""
---
module: acceptance_heat_map
short_description: Write the acceptance report's node-by-node bandwidth heat map (PNG)
description:
  - Draws one cell per pair of nodes of an acceptance report (role C(acceptance)), coloured by
    the pair's bandwidth against the cluster's pair reference (green at 1, yellow, red at 0),
    black for a broken pair, grey for a pair not measured; the diagonal shows each node's own
    test. Nodes run in the report's order, top to bottom and left to right.
  - Node names label the rows (left) and the columns (above, written upwards) in a built-in
    pixel font; a domain all nodes share is left out and a name longer than 16 characters keeps
    its first 7 and last 8 joined by C(~). A legend below the grid explains the colours.
  - The file is replaced atomically, and only when its bytes differ.
author:
  - Cluster suite contributors
options:
  report:
    description:
      - The report (C(nodes) with C(node), C(status), C(intra_ratio); C(pairs) with C(pair),
        C(status), C(ratio)).
    type: dict
    required: true
  dest:
    description: Path of the PNG to write; its directory must exist.
    type: path
    required: true
  cell:
    description:
      - Side of one cell in pixels, at least 8 (a label's height).
      - By default 24, smaller for more than 32 nodes so that the grid stays near 768 pixels.
    type: int
extends_documentation_fragment:
  - action_common_attributes
  - cluster_suite.hpc.attributes
attributes:
  check_mode:
    support: full
    details: Reports whether the file would change, and writes nothing.
  diff_mode:
    support: none
"""

EXAMPLES = r"""
- name: Write the heat map beside the JSON report
  acceptance_heat_map:
    report: "{{ _acceptance_report }}"
    dest: logs/acceptance/heat_map.png
  delegate_to: localhost
"""

RETURN = r"""
dest:
  description: The PNG written.
  returned: always
  type: str
width:
  description: Width of the image in pixels.
  returned: always
  type: int
height:
  description: Height of the image in pixels.
  returned: always
  type: int
"""
