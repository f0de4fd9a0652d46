"""Where a CI run's time went: each phase's time from the markers `make test` prints ("=== phase
lint started at <epoch>"), each Molecule scenario's from molecule/lanes.py's lines, and the whole
run's against the budget. Exits 1 when the run took longer than the budget, so that the change
that made the suite slow is the one that fails."""
import argparse
import re
import sys

MARKER = re.compile(r"^=== phase (?P<phase>[\w-]+) (?P<event>started|ended) at (?P<epoch>\d+)$")
SCENARIO = re.compile(r"^=== scenario (?P<name>[\w-]+) (?P<result>passed|FAILED.*?) in (?P<time>\d+:\d\d) \((?P<phases>.*)\)$")


def phase_seconds(lines):
    """[(phase, seconds)] in the order the phases started; a phase run twice counts both runs."""
    started, total, order = {}, {}, []
    for line in lines:
        match = MARKER.match(line.rstrip("\n"))
        if not match:
            continue
        phase, epoch = match.group("phase"), int(match.group("epoch"))
        if match.group("event") == "started":
            started[phase] = epoch
            if phase not in order:
                order.append(phase)
        elif phase in started:
            total[phase] = total.get(phase, 0) + epoch - started.pop(phase)
    return [(phase, total[phase]) for phase in order if phase in total]


def scenario_lines(lines):
    return [line.rstrip("\n")[4:] for line in lines if SCENARIO.match(line.rstrip("\n"))]


def minutes(seconds):
    return "%d:%02d" % divmod(int(seconds), 60)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("log")
    parser.add_argument("--total", type=int, required=True, help="the whole run's seconds")
    parser.add_argument("--budget", type=int, required=True, help="the most seconds a run may take")
    args = parser.parse_args(argv)
    with open(args.log, encoding="utf-8", errors="replace") as handle:
        lines = handle.readlines()
    print("=== Where the time went")
    for phase, seconds in phase_seconds(lines):
        print("  phase %-10s %7s" % (phase, minutes(seconds)))
    for line in scenario_lines(lines):
        print("  " + line)
    print("  whole run        %7s (budget %s)" % (minutes(args.total), minutes(args.budget)))
    if args.total > args.budget:
        print("=== CI failed: the run took %s, over the budget of %s. Make the suite faster (where the time "
              "went is above; docs/testing.md says how the scenarios share the machine) "
              "rather than dropping checks." % (
                  minutes(args.total), minutes(args.budget)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
