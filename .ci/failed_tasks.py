"""Repeat why a CI log failed (Ansible's failed tasks, pytest's failed tests): each one's task line
and the first lines of its message, colours removed, so that the end of the log says why CI
failed. Failures a test provokes on purpose are in the log too: for each failed Molecule scenario
the last failure in its output (the one that stopped it) is shown, then every failed test; a log
with neither shows its last failures."""
import re
import sys

ANSI = re.compile(r"\x1b\[[0-9;]*m")
BORDER = re.compile(r"^\s*[│|]\s?")
# Ansible's failed tasks and its own errors; pytest's failed tests, one line each.
FAILURE = re.compile(r"^(fatal|failed): \[|^ERROR! ")
FAILED_TEST = re.compile(r"^(FAILED|ERROR) \S+::")
# molecule/lanes.py prints each scenario's output whole, then this line.
SCENARIO_ENDED = re.compile(r"^=== scenario (?P<name>\S+) (?P<verdict>passed|FAILED)")
LINES_PER_FAILURE = 14
MAX_FAILURES = 2


def failed_tasks(lines):
    """[(task line, [failure lines])] of every failure in lines, in order."""
    task, found = "", []
    for index, raw in enumerate(lines):
        line = BORDER.sub("", ANSI.sub("", raw.rstrip("\n")))
        if line.startswith(("TASK [", "PLAY [")):
            task = line.rstrip(" *")
        elif FAILED_TEST.search(line):
            found.append(("pytest", [line]))
        elif FAILURE.search(line) and "...ignoring" not in "".join(lines[index:index + 3]):
            body = []
            for text in lines[index:index + LINES_PER_FAILURE]:
                text = BORDER.sub("", ANSI.sub("", text.rstrip("\n")))
                if not text.strip():
                    break
                body.append(text)
            found.append((task, body))
    return found


def failed_scenarios(lines):
    """[(scenario, its last failure or None)] of every scenario the log says FAILED."""
    found, section = [], []
    for raw in lines:
        ended = SCENARIO_ENDED.search(ANSI.sub("", raw))
        if not ended:
            section.append(raw)
            continue
        if ended.group("verdict") == "FAILED":
            failures = [failure for failure in failed_tasks(section) if failure[0] != "pytest"]
            found.append((ended.group("name"), failures[-1] if failures else None))
        section = []
    return found


def main(path):
    with open(path, encoding="utf-8", errors="replace") as log:
        lines = log.readlines()
    found = failed_tasks(lines)
    scenarios = failed_scenarios(lines)
    tests = [failure for failure in found if failure[0] == "pytest"]
    if scenarios or tests:
        print("=== CI failed: %d scenario(s), %d test(s); each one's failure from %s ===" % (
            len(scenarios), len(tests), path))
        for name, failure in scenarios:
            print("--- scenario %s" % name)
            if failure:
                show(failure)
        for failure in tests:
            show(failure)
        return
    print("=== CI failed; the last %d of %d failure(s) in %s ===" % (
        min(len(found), MAX_FAILURES), len(found), path))
    for failure in found[-MAX_FAILURES:]:
        show(failure)


def show(failure):
    task, body = failure
    print(task)
    print("\n".join("  " + line[:300] for line in body))


if __name__ == "__main__":
    main(sys.argv[1])
