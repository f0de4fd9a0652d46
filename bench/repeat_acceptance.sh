#!/usr/bin/env bash
# Run playbooks/acceptance.yml RUNS times on a provisioned sandbox with the shipped defaults plus
# the given -e arguments, and print the record: a header, then a line per run: its number, start
# (UTC), seconds, exit status, the nodes it condemned (slow, broken), the inconclusive ones, what it
# measured again and every sample of the tests measured again; last, how many runs condemned
# exactly the expected nodes (SLOW_NODE alone, or none). bench/acceptance_records.sh brings the
# sandbox up and down around it.
#   INVENTORY=... bench/repeat_acceptance.sh RUNS [SLOW_NODE] [ansible-playbook args...]
# SLOW_NODE (or "-"): every node's egress is shaped with tbf to 32 Mbit/s and SLOW_NODE's to a
# quarter of it (8 Mbit/s), as molecule/acceptance does; "-" shapes nothing (the sandbox as it is).
set -uo pipefail
cd "$(dirname "$0")/.."
runs=$1 slow=${2:--}
shift $(( $# < 2 ? $# : 2 ))
inventory=${INVENTORY:-inventory/sandbox/hosts.yml}
nodes=$(ansible-inventory -i "$inventory" --graph cluster | grep -c -- '--node')
label=acceptance-$nodes-nodes-$([ "$slow" = - ] && echo healthy || echo "$slow-slow")
out=logs/bench-$label
rm -rf "$out"; mkdir -p "$out"
if [ "$slow" != - ]; then
  ansible-playbook -i "$inventory" bench/playbooks/acceptance_shape.yml -e bench_shape_rate=32mbit \
    -e bench_slow_rate=8mbit -e "bench_slow_node=$slow" >"$out/shape.out" 2>&1 || { echo "shaping failed"; exit 1; }
fi
echo "# bench/repeat_acceptance.sh $runs $slow $* on $nodes nodes ($([ "$slow" = - ] && echo 'nothing shaped' \
  || echo "every node's egress 32 Mbit/s with tbf, $slow's 8 Mbit/s, a quarter"))"
echo "# ${SANDBOX_DESCRIPTION:-sandbox: $nodes nodes}; the suite's MPI allreduce probe, acceptance's shipped defaults unless given above"
echo "# machine: $(nproc) CPUs, $(free -g | awk '/^Mem:/ {print $2}') GiB, kernel $(uname -r); load average $(cut -d' ' -f1-3 /proc/loadavg) before"
echo "# commit: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . ':!bench/results' || echo ' (with changes)'); date: $(date -u +%F)"
echo "# columns: run N, start (UTC), seconds, ansible-playbook exit status, condemned nodes (left out of the healthy ones: slow, broken, or the worse node of a slow or broken pair), inconclusive nodes, what was measured again (own tests, suspect pairs, control pairs beside them), the samples (GB/s) of each test measured again (a pair's followed by each sample over the pairs beside it)"
expected=$([ "$slow" = - ] && echo none || echo "$slow")
as_expected=0
for n in $(seq 1 "$runs"); do
  start=$(date -u +%FT%TZ); t0=$(date +%s)
  ansible-playbook -i "$inventory" playbooks/acceptance.yml -e "acceptance_report_dir=$PWD/$out/run-$n" "$@" \
    >"$out/run-$n.out" 2>&1
  rc=$?
  line=$(python3 - "$out/run-$n/report.json" <<'PY'
import json, sys
try:
    report = json.load(open(sys.argv[1]))
except OSError:
    print("no-report")
    sys.exit()
s = report["summary"]
again = report.get("measured_again") or {}
def text(values):
    return "[" + ",".join("broke" if v is None else "%.4g" % v for v in values) + "]"
samples = ["%s-own%s" % (r["node"], text(r["intra_samples"])) for r in report["nodes"] if len(r.get("intra_samples") or []) > 1]
samples += ["%s%s%s" % ("-".join(p["pair"]), text(p["samples"]),
                        "/beside" + text(p["beside"]) if any(v is not None for v in p.get("beside") or []) else "")
            for p in report["pairs"] if len(p.get("samples") or []) > 1]
names = lambda xs: ",".join(xs) or "none"
controls = again.get("controls") or []
# Condemned: every node left out of the healthy ones, slow or broken itself or the worse node of a
# slow or broken pair (either way it is quarantined).
condemned = sorted(set(s["slow_nodes"] + s["broken_nodes"]) | set(report.get("excluded") or {}))
print("condemned=%s inconclusive=%s again=own:%s;pairs:%s;controls:%s whole=%s samples: %s" % (
    names(condemned), names(s.get("inconclusive_nodes", [])), names(again.get("intra", [])),
    names(["-".join(p) for r in again.get("rounds", []) for p in r if p not in controls]),
    names(["-".join(p) for p in controls]), report["cluster"]["status"], " ".join(samples) or "-"))
PY
)
  echo "run $n $start $(( $(date +%s) - t0 ))s rc=$rc $line"
  case $line in "condemned=$expected "*) as_expected=$((as_expected + 1)) ;; esac
  if [ "$line" = no-report ]; then tail -30 "$out/run-$n.out"; echo "run $n wrote no report: stopped"; break; fi
done
echo "$label: $as_expected of $runs runs condemned exactly: $expected"
