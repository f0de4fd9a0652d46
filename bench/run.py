#!/usr/bin/env python3
"""Run the benchmarks: every scenario, or the ones named, on the sandbox.

    bench/run.py                                # all of them, with their default sizes and repeats
    bench/run.py doctor --nodes 2 8 --repeat 3  # one scenario, its own sizes
    bench/run.py --list

Each scenario writes bench/results/<scenario>.json (medians, min, max, the machine, the
versions) and bench/results/<scenario>.png; then bench/results/README.md is rewritten from
every result present. Scenarios run one after
another (never two at once: they would share the cores). Needs `make setup image sources ml`.
"""

import argparse
import importlib
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness  # noqa: E402  (bench/ is not a package: found through the path entry above)
import report  # noqa: E402

# In the order the issue lists them; the cheapest that needs no node runs last.
SCENARIOS = ("openmpi", "site_rerun", "launch_fanout", "doctor", "planning", "acceptance", "fleet_faults", "scale", "forks_memory")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("scenarios", nargs="*", metavar="scenario", help="any of: %s (default: all)" % ", ".join(SCENARIOS))
    parser.add_argument("--list", action="store_true", help="list the scenarios with their defaults")
    parser.add_argument("--nodes", type=int, nargs="+", help="sizes to measure (nodes, or hosts for planning)")
    parser.add_argument("--repeat", type=int, help="runs per size and series")
    parser.add_argument("--baseline-nodes", type=int, nargs="+",
                        help="openmpi: sizes at which to measure the every_node baseline too")
    parser.add_argument("--resume", action="store_true",
                        help="openmpi: keep the runs of the existing result and measure only the sizes it lacks")
    parser.add_argument("--plays", nargs="+",
                        help="scale: the plays to measure anew (default: all); site.yml still provisions the "
                             "fresh sandbox first, unmeasured, and the other plays' figures are kept")
    args = parser.parse_args()

    unknown = [name for name in args.scenarios if name not in SCENARIOS]
    if unknown:
        parser.error("unknown scenario(s) %s; choose from %s" % (", ".join(unknown), ", ".join(SCENARIOS)))
    modules = {name: importlib.import_module("scenarios." + name) for name in args.scenarios or SCENARIOS}
    if args.list:
        for name, module in modules.items():
            print("%-14s sizes %s, repeat %d: %s" % (name, module.DEFAULT_SIZES, module.DEFAULT_REPEAT, module.TITLE))
        return 0
    for name, module in modules.items():
        sizes = args.nodes or module.DEFAULT_SIZES
        repeat = args.repeat or module.DEFAULT_REPEAT
        harness.log("scenario %s: sizes %s, repeat %d" % (name, sizes, repeat))
        result, chart = module.run(sizes, repeat, args)
        harness.write_result(name, result, chart)
    report.write_reports()
    return 0


if __name__ == "__main__":
    sys.exit(main())
