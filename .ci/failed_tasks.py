"""Repeat the last failures of a CI log (Ansible's failed tasks, pytest's failed tests): each one's
task line and the first lines of its message, colours removed, so that the end of the log says
why CI failed. Failures a test provokes on purpose are among them; the last is the one that
stopped the run."""
import re
import sys

ANSI = re.compile(r"\x1b\[[0-9;]*m")
BORDER = re.compile(r"^\s*[│|]\s?")
# Ansible's failed tasks and its own errors; pytest's failed tests, one line each.
FAILURE = re.compile(r"^(fatal|failed): \[|^ERROR! ")
FAILED_TEST = re.compile(r"^(FAILED|ERROR) \S+::")
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


def main(path):
    with open(path, encoding="utf-8", errors="replace") as log:
        found = failed_tasks(log.readlines())
    print("=== CI failed; the last %d of %d failure(s) in %s ===" % (
        min(len(found), MAX_FAILURES), len(found), path))
    for task, body in found[-MAX_FAILURES:]:
        print(task)
        print("\n".join("  " + line[:300] for line in body))


if __name__ == "__main__":
    main(sys.argv[1])
