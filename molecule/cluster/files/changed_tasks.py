"""What a run of ansible-playbook changed, per node, for molecule/cluster/verify.yml.

    ANSIBLE_STDOUT_CALLBACK=ansible.posix.json ansible-playbook ... | changed_tasks.py

Reads the json callback's output on stdin (the document from the first line that is "{") and prints JSON: {"changed": {node: [task name, ...]},
"failed": {node: [task name: message, ...]}, "stats": {node: {"changed": n, "failures": n,
"unreachable": n, ...}}, "messages": [every debug message of the run, a line each]}. A task of a
loop counts once, as changed when any of its items changed.
"""
import json
import sys


def main():
    text = sys.stdin.read()
    # The json document starts at a line of its own; profile_tasks (ansible.cfg) prints around it.
    start = 0 if text.startswith("{\n") else text.find("\n{\n") + 1
    try:
        run, _ = json.JSONDecoder().raw_decode(text, start)
    except ValueError:
        lines = text.strip().splitlines()
        print(json.dumps({"changed": {}, "failed": {"run": ["no json output"] + lines[-20:]}, "stats": {},
                          "messages": []}))
        return
    changed, failed, messages = {}, {}, []
    for play in run.get("plays", []):
        for task in play.get("tasks", []):
            name = task["task"]["name"]
            for node, result in task.get("hosts", {}).items():
                if result.get("changed"):
                    changed.setdefault(node, [])
                    if name not in changed[node]:
                        changed[node].append(name)
                if result.get("failed") or result.get("unreachable"):
                    failed.setdefault(node, []).append("%s: %s" % (name, str(result.get("msg", ""))[:300]))
                message = result.get("msg") if result.get("action") in ("debug", "ansible.builtin.debug") else None
                if isinstance(message, list):
                    messages += [str(line) for line in message]
                elif message is not None:
                    messages.append(str(message))
    json.dump({"changed": changed, "failed": failed, "stats": run.get("stats", {}), "messages": messages},
              sys.stdout, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
