#!/usr/bin/env bash
# Records the summary's corpus of real runs: launches each job of tests/corpus/jobs/ (all, or
# those named) on the sandbox through playbooks/launch.yml, as an operator would, and keeps its
# gathered logs exactly as the run wrote them in tests/data/corpus/<name>/ (the summary's own
# output, summary.json and stacks/, is left out; summary_inputs.json, what the summary was made
# from besides the logs, is kept; file_times.json keeps each file's modification time, which git
# does not). The expected verdict of each run is written by hand in
# tests/data/corpus/expected.yml from the fault the job was told to make, never from the summary.
#   make sandbox-up NODES=4 && ansible-playbook -i inventory/sandbox/hosts.yml site.yml
#   tests/corpus/record.sh [name ...]
set -uo pipefail
cd "$(dirname "$0")/../.."
export PATH=$PWD/.venv/bin:$PATH ANSIBLE_CONFIG=$PWD/ansible.cfg
inventory=${SANDBOX_INVENTORY:-inventory/sandbox/hosts.yml}
names=("$@")
[ ${#names[@]} -gt 0 ] || names=($(ls tests/corpus/jobs | sed 's/\.yml$//'))
for name in "${names[@]}"; do
  job=tests/corpus/jobs/$name.yml
  job_name=$(sed -n 's/^job_name: //p' "$job")
  started=$(date +%s)
  ansible-playbook -i "$inventory" playbooks/launch.yml -e @"$job" >"/tmp/corpus-$name.log" 2>&1
  rc=$?
  echo "$name: launch exit $rc in $(( $(date +%s) - started )) s"
  dest=tests/data/corpus/$name
  rm -rf "$dest"
  mkdir -p "$dest"
  (cd "logs/$job_name" && tar --exclude=./summary.json --exclude=./stacks -cf - .) | tar -xf - -C "$dest"
  # Git keeps no modification times, and the summary orders a rank that died without a record by
  # its log's last write: keep every file's time beside the run.
  python3 - "$dest" <<'PY'
import json, os, sys
root = sys.argv[1]
times = {os.path.relpath(os.path.join(d, f), root): os.stat(os.path.join(d, f)).st_mtime
         for d, _dirs, files in os.walk(root) for f in files}
with open(os.path.join(root, "file_times.json"), "w", encoding="utf-8") as handle:
    json.dump(times, handle, indent=1, sort_keys=True)
    handle.write("\n")
PY
done
