#!/usr/bin/env bash
# Launch one job RUNS times in a row and print a line per launch: its number, start (UTC),
# seconds, the playbook's exit status, the summary's result, each launcher's exit and what failed
# after every rank's script had returned 0 (the summary's warning). The logs of
# a failed launch are kept as logs/<job>.launch-<N>/. Exits non-zero when any launch failed.
#   bench/repeat_launch.sh [RUNS (20)] [JOB FILE (jobs/sample_msrun.yml)] [ansible-playbook args...]
# INVENTORY names the inventory (default the sandbox's, inventory/sandbox/hosts.yml, which
# `make site` brings up).
set -uo pipefail
cd "$(dirname "$0")/.."
runs=${1:-20}
job_file=${2:-jobs/sample_msrun.yml}
shift $(( $# < 2 ? $# : 2 ))
mkdir -p logs
job=$(python3 -c 'import sys, yaml; print(yaml.safe_load(open(sys.argv[1]))["job_name"])' "$job_file")
failed=0
for n in $(seq 1 "$runs"); do
  start=$(date -u +%FT%TZ); t0=$(date +%s)
  ansible-playbook -i "${INVENTORY:-inventory/sandbox/hosts.yml}" playbooks/launch.yml -e "@$job_file" "$@" \
    >"logs/$job.launch.out" 2>&1
  rc=$?
  result=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
after = "; ".join("%s on %s %s" % (a["kind"], a["host"], a["exit_text"]) for a in d.get("after_success") or [])
print(d.get("result"), " ".join("%s:%s" % (l["host"], l["exit"]) for l in d.get("launchers") or []),
      "warning: failed after every rank returned 0: " + after if after else "")' \
    "logs/$job/summary.json" 2>/dev/null || echo "no-summary")
  echo "launch $n $start $(( $(date +%s) - t0 ))s rc=$rc $result"
  if [ "$rc" != 0 ]; then
    failed=$((failed + 1))
    rm -rf "logs/$job.launch-$n"; cp -a "logs/$job" "logs/$job.launch-$n"
    cp "logs/$job.launch.out" "logs/$job.launch-$n/playbook.out"
  fi
done
echo "$job: $((runs - failed)) of $runs launches succeeded"
[ "$failed" = 0 ]
