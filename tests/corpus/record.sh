#!/usr/bin/env bash
# Records the summary's corpus of real runs: launches each job of tests/corpus/jobs/ (all, or
# those named) on the sandbox through playbooks/launch.yml, as an operator would, and keeps its
# gathered logs exactly as the run wrote them in tests/data/corpus/<name>/ (the summary's own
# output, summary.json and stacks/, is left out; summary_inputs.json, what the summary was made
# from besides the logs, is kept). The expected verdict of each run is written by hand in
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
done
