#!/usr/bin/env bash
# The records of acceptance's confirm-before-condemning (bench/results/): on one sandbox of 8
# plain CPU nodes provisioned for acceptance (site.yml's firewall, ssh and openmpi roles),
# RUNS acceptance runs on all 8 with nothing shaped (none may be condemned), then RUNS on
# node1-node4 alone (an inventory of those 4) with node3's egress at a quarter of the others'
# (node3 alone must be condemned every time). Brings the sandbox down at the end. Run it alone
# on the machine (its verdicts read bandwidth): bench/acceptance_records.sh [RUNS (10)]
set -uo pipefail
cd "$(dirname "$0")/.."
runs=${1:-10}
export PATH=$PWD/.venv/bin:$PATH ANSIBLE_CONFIG=$PWD/ansible.cfg
mkdir -p logs/bench-acceptance-records
small=$(mktemp -d)
trap 'sandbox/sandbox down >>logs/bench-acceptance-records/sandbox.out 2>&1; rm -rf "$small"' EXIT
trap 'exit 143' TERM INT
SANDBOX_ML=1 NPU_DEVICES=0 NODES=8 sandbox/sandbox up >logs/bench-acceptance-records/sandbox.out 2>&1 \
  || { echo "sandbox up failed"; exit 1; }
ansible-playbook -i inventory/sandbox/hosts.yml site.yml --tags firewall,ssh,openmpi \
  >logs/bench-acceptance-records/site.out 2>&1 || { echo "site.yml failed"; exit 1; }
SANDBOX_DESCRIPTION="sandbox: 8 plain CPU nodes (SANDBOX_ML=1 NPU_DEVICES=0 NODES=8 sandbox/sandbox up), site.yml --tags firewall,ssh,openmpi" \
  bench/repeat_acceptance.sh "$runs" - | tee bench/results/acceptance_confirm_healthy_8_nodes.txt
# node1-node4 of the same sandbox as a cluster of its own (its own node ledger); node5-node8 idle.
python3 - "$small" <<'PY'
import os, sys, yaml
with open("inventory/sandbox/hosts.yml") as handle:
    inventory = yaml.safe_load(handle)
keep = {"node1", "node2", "node3", "node4"}
def prune(group):
    if isinstance(group.get("hosts"), dict):
        group["hosts"] = {name: value for name, value in group["hosts"].items() if name in keep}
    for child in (group.get("children") or {}).values():
        prune(child or {})
prune(inventory["all"])
with open(os.path.join(sys.argv[1], "hosts.yml"), "w") as handle:
    yaml.safe_dump(inventory, handle)
os.symlink(os.path.abspath("inventory/sandbox/group_vars"), os.path.join(sys.argv[1], "group_vars"))
PY
INVENTORY=$small/hosts.yml \
SANDBOX_DESCRIPTION="sandbox: node1-node4 of 8 plain CPU nodes (SANDBOX_ML=1 NPU_DEVICES=0 NODES=8 sandbox/sandbox up, site.yml --tags firewall,ssh,openmpi) as an inventory of 4, node5-node8 idle" \
  bench/repeat_acceptance.sh "$runs" node3 \
  -e '{"acceptance_min_bytes": 524288, "acceptance_max_bytes": 1048576, "acceptance_iters": 3}' \
  | tee bench/results/acceptance_confirm_slow_node_4_nodes.txt
