"""Every rank's stack of a job, from the dumps of module job_stacks on each node (py-spy's
JSON), grouped by identical stack, with the rank that holds the others up named.

Each rank's stack is its main thread's. Ranks whose Python frames are the same (function, file,
line) form a group, described by its innermost Python function and the innermost line of the
job's own code ("`all_reduce` at train.py:88"). The likely cause of a hang: when some ranks wait
in a collective (a frame named like all_reduce, barrier, ... or a collective library's wait),
the ranks that do not and the ranks whose process is gone; otherwise the ranks outside the one
largest group. A rank whose process is gone is described by its flight record (jobs/flight.py),
so the rank that held the others up is named even after a launcher or a collective's timeout
ended it.
Plain Python, stdlib only.
"""
import json
import os
import re
import shutil

# Frames of a rank that waits for the others: collectives of torch.distributed, MindSpore's
# communication operators and the libraries under them.
COLLECTIVE = re.compile(r"all_?reduce|all_?gather|reduce_?scatter|all_?to_?all|broadcast|barrier|"
                        r"collective|hccl|nccl|gloo|c10d::Work::wait|monitored_barrier|MPI_", re.IGNORECASE)
# The suite's own frames below the job's code (the rank wrapper and runpy): left out of the text.
WRAPPER_FILES = ("cs_rank.py", "<frozen runpy>")
MAX_FRAMES = 30
NAME_WIDTH = 120
ROLE_ORDER = {"rank": 0, "rank_child": 1, "rank_wrapper": 2, "scheduler": 3, "launcher": 4}


def frames_of(thread):
    """The frames of one py-spy thread, innermost first: [{name, file, short, line, native}]."""
    found = []
    for frame in thread.get("frames") or []:
        if not isinstance(frame, dict):
            continue
        found.append({"name": str(frame.get("name", "?")), "file": str(frame.get("filename") or ""),
                      "short": str(frame.get("short_filename") or frame.get("filename") or "?"),
                      "line": frame.get("line") if isinstance(frame.get("line"), int) else 0,
                      # py-spy names the shared object of a native frame in "module".
                      "native": bool(frame.get("module"))})
    return found


def main_thread(threads, pid):
    """The thread of ``threads`` (py-spy's JSON) that is the process's main thread."""
    threads = [item for item in threads or [] if isinstance(item, dict)]
    for thread in threads:
        if thread.get("os_thread_id") == pid or thread.get("thread_name") == "MainThread":
            return thread
    return threads[0] if threads else None


def frame_text(frame, width=None):
    """A frame as py-spy prints it: ``name (file:line)``, native ``name (library)``; the name cut
    to ``width`` characters when given (C++ template names run to thousands)."""
    name = frame["name"] if width is None or len(frame["name"]) <= width else frame["name"][:width] + "..."
    if frame["native"] or not frame["line"]:
        return f"{name} ({frame['short']})"
    return f"{name} ({frame['short']}:{frame['line']})"


def signature(frames):
    """What makes two stacks the same: their Python frames (native addresses differ per process)."""
    return tuple((frame["name"], frame["short"], frame["line"]) for frame in frames if not frame["native"])


def is_user_frame(frame, job_dir):
    """Whether ``frame`` is in the job's own code: under its job directory, or a relative file name
    (the wrapper runs the script by its path relative to the code directory), not the wrapper."""
    path = frame["file"]
    if frame["native"] or not path or path.startswith("<") or os.path.basename(path) in WRAPPER_FILES:
        return False
    if not os.path.isabs(path):
        return True
    return bool(job_dir) and os.path.normpath(path).startswith(os.path.normpath(job_dir) + os.sep)


def where(frames, job_dir):
    """'`all_reduce` at train.py:88': the innermost Python function and the innermost line of
    the job's code under it (or the innermost frame when no job code is on the stack)."""
    python = [frame for frame in frames if not frame["native"]]
    if not python:
        return f"`{frames[0]['name']}`" if frames else "no frame"
    user = next((frame for frame in python if is_user_frame(frame, job_dir)), python[0])
    return f"`{python[0]['name']}` at {user['short']}:{user['line']}"


def waits_in_collective(frames):
    """Whether the stack waits in a collective operation."""
    return any(COLLECTIVE.search(frame["name"]) for frame in frames)


def shown_frames(frames, limit=MAX_FRAMES):
    """The frames to print: the suite's wrapper frames and what lies below them left out."""
    shown = []
    for frame in frames:
        if os.path.basename(frame["short"]) in WRAPPER_FILES or frame["short"] in WRAPPER_FILES:
            break
        shown.append(frame_text(frame, NAME_WIDTH))
    return shown[:limit] + ([f"... {len(shown) - limit} more frames"] if len(shown) > limit else [])


def collect(nodes):
    """Every process of the job from ``nodes`` ({host: job_stacks result}), with its frames.

    Returns [{host, pid, ppid, role, rank, cmd, python, native, error, native_error, threads,
    frames, where, waiting, in_code}], ranks first.
    """
    found = []
    for host in sorted(nodes):
        result = nodes[host] or {}
        job_dir = result.get("job_dir")
        for item in result.get("processes") or []:
            entry = dict(item, host=host)
            thread = main_thread(item.get("threads"), item.get("pid"))
            entry["frames"] = frames_of(thread) if thread else []
            entry["where"] = where(entry["frames"], item.get("job_dir") or job_dir) if entry["frames"] else None
            entry["waiting"] = waits_in_collective(entry["frames"])
            # A rank without a frame of its own code has left its script (it returned or raised and
            # the wrapper is recording its end): it is ending, not where the others wait.
            entry["in_code"] = any(is_user_frame(frame, item.get("job_dir") or job_dir) for frame in entry["frames"])
            found.append(entry)
    return sorted(found, key=lambda item: (ROLE_ORDER.get(item.get("role"), 9),
                                           item.get("rank") if isinstance(item.get("rank"), int) else -1,
                                           item["host"], item.get("pid") or 0))


def _rank_list(members):
    """'rank 0, 1 on node1; rank 2 on node2'."""
    by_host = {}
    for item in members:
        by_host.setdefault(item["host"], []).append(str(item["rank"]))
    return "; ".join(f"rank {', '.join(ranks)} on {host}" for host, ranks in by_host.items())


def analyse(nodes, expected=None, exits=None, started=None):
    """The stacks of a job: groups of ranks by identical stack, gone ranks, the likely cause.

    ``nodes``: {host: job_stacks result}; ``expected``: {rank: host} of the plan; ``exits``:
    {rank: exit status} known from the ranks' status files (a gone rank that exited 0 finished);
    ``started``: the ranks that left a log or a status (one without a process and without either
    has not started yet; without ``started`` every rank counts as started).
    """
    expected = {int(rank): host for rank, host in (expected or {}).items()}
    exits = {int(rank): code for rank, code in (exits or {}).items()}
    processes = collect(nodes)
    ranks = [item for item in processes if item.get("role") == "rank"]
    alive = {item["rank"] for item in ranks}
    missing = [(rank, host) for rank, host in sorted(expected.items()) if rank not in alive and exits.get(rank) != 0]
    started = set(expected) if started is None else {int(rank) for rank in started} | set(exits)
    gone = [{"rank": rank, "host": host, "exit": exits.get(rank)} for rank, host in missing if rank in started]
    not_started = [{"rank": rank, "host": host} for rank, host in missing if rank not in started]
    groups = {}
    for item in ranks:
        key = signature(item["frames"]) if item["frames"] else ("no stack", item.get("error") or "")
        groups.setdefault(key, []).append(item)
    group_list = []
    for members in sorted(groups.values(), key=lambda members: (-len(members), members[0]["rank"])):
        first = members[0]
        group_list.append({
            "ranks": [item["rank"] for item in members],
            "hosts": {str(item["rank"]): item["host"] for item in members},
            "where": first["where"] or f"no stack ({first.get('error') or 'not dumped'})",
            "waiting": first["waiting"],
            "in_code": first["in_code"],
            "dumped": bool(first["frames"]),
            "example": {"rank": first["rank"], "host": first["host"], "pid": first["pid"],
                        "native": first.get("native", False), "source": first.get("source", "py-spy")},
            "recorded": {str(item["rank"]): item.get("age") for item in members
                         if item.get("source") == "flight recorder"},
            "stack": shown_frames(first["frames"]),
        })
    causes = likely_causes(group_list, gone)
    others = [item for item in processes if item.get("role") in ("scheduler", "launcher") and item.get("python")]
    return {
        "groups": group_list,
        "gone": gone,
        "not_started": not_started,
        "likely_cause": causes,
        "others": [{"host": item["host"], "role": item["role"], "pid": item["pid"], "cmd": item.get("cmd"),
                    "where": item["where"], "error": item.get("error"), "stack": shown_frames(item["frames"])}
                   for item in others],
        "errors": [{"host": item["host"], "pid": item["pid"], "role": item.get("role"), "rank": item.get("rank"),
                    "error": item["error"]} for item in processes
                   if item.get("error") and item.get("python")],
        "native_errors": sorted({item["native_error"] for item in processes if item.get("native_error")}),
        "node_errors": {host: (nodes[host] or {}).get("error") for host in sorted(nodes)
                        if (nodes[host] or {}).get("error")},
        "ranks": len(ranks),
        "recorded": sum(1 for item in ranks if item.get("source") == "flight recorder"),
        "hosts": sorted(nodes),
    }


def likely_causes(groups, gone):
    """[{rank, host, where, reason}]: the ranks that hold the others up, or [] when no rank stands out."""
    waiting = [group for group in groups if group["waiting"] and group["dumped"]]
    if waiting:
        held = sum(len(group["ranks"]) for group in waiting)
        reason = f"while {held} rank(s) wait in a collective"
        found = [{"rank": item["rank"], "host": item["host"], "where": "its process is gone"
                  + (f" (exit {item['exit']})" if item.get("exit") is not None else ""), "reason": reason}
                 for item in gone]
        for group in groups:
            if not group["waiting"] and group["dumped"] and group["in_code"]:
                found += [{"rank": rank, "host": group["hosts"][str(rank)], "where": _where_of(group, rank),
                           "reason": reason} for rank in group["ranks"]]
        return found
    dumped = [group for group in groups if group["dumped"]]
    if len(dumped) > 1 and len(dumped[0]["ranks"]) > len(dumped[1]["ranks"]):
        reason = f"while {len(dumped[0]['ranks'])} rank(s) are in {dumped[0]['where']}"
        return [{"rank": rank, "host": group["hosts"][str(rank)], "where": _where_of(group, rank), "reason": reason}
                for group in dumped[1:] if group["in_code"] for rank in group["ranks"]]
    return []


def _where_of(group, rank):
    """Where a rank of ``group`` was, saying when it comes from the rank's flight record."""
    recorded = group.get("recorded") or {}
    if str(rank) not in recorded:
        return group["where"]
    age = recorded[str(rank)]
    when = f", {age} s before it ended" if age is not None else ""
    return f"{group['where']} (its last flight record{when}; the process is gone)"


def render(analysis, folder):
    """The stacks as summary lines (``folder``: where the dumps were written)."""
    recorded = analysis.get("recorded", 0)
    if recorded:
        lines = [f"  stacks of {analysis['ranks']} rank(s) on {', '.join(analysis['hosts'])} (py-spy "
                 f"{analysis['ranks'] - recorded}, flight recorder {recorded}): {folder}"]
    else:
        lines = [f"  stacks (py-spy) of {analysis['ranks']} rank(s) on {', '.join(analysis['hosts'])}: {folder}"]
    for host, error in analysis["node_errors"].items():
        lines.append(f"    {host}: {error}")
    for group in analysis["groups"]:
        members = [{"rank": rank, "host": group["hosts"][str(rank)]} for rank in group["ranks"]]
        count = f"{len(members)} ranks" if len(members) > 1 else f"rank {members[0]['rank']}"
        lines.append(f"    {count} in {group['where']}" if group["dumped"] else f"    {count}: {group['where']}")
        lines[-1] += f": {_rank_list(members)}" if len(members) > 1 else f" on {members[0]['host']}"
    for item in analysis["gone"]:
        lines.append(f"    rank {item['rank']} on {item['host']}: its process is gone"
                     + (f" (exit {item['exit']})" if item.get("exit") is not None else ""))
    for item in analysis.get("not_started", []):
        lines.append(f"    rank {item['rank']} on {item['host']}: not started (no process, no log yet)")
    for item in analysis["likely_cause"]:
        lines.append(f"    likely cause: rank {item['rank']} on {item['host']}, {item['where']}, {item['reason']}")
    for group in analysis["groups"]:
        if not group["dumped"]:
            continue
        example = group["example"]
        same = [str(rank) for rank in group["ranks"] if rank != example["rank"]]
        lines.append(f"    stack of rank {example['rank']} on {example['host']} (pid {example['pid']}"
                     f"{', native frames' if example['native'] else ''}"
                     f"{', its last flight record' if example.get('source') == 'flight recorder' else ''})"
                     + (f", the same on rank {', '.join(same)}" if same else "") + ":")
        lines += [f"      {frame}" for frame in group["stack"]]
    for item in analysis["others"]:
        lines.append(f"    {item['role']} on {item['host']} (pid {item['pid']}): "
                     + (f"in {item['where']}" if item["where"] else f"no stack ({item['error']})"))
    for item in analysis["errors"]:
        who = f"rank {item['rank']}" if item.get("rank") is not None else item.get("role")
        lines.append(f"    {who} on {item['host']} (pid {item['pid']}) not dumped: {item['error']}")
    for error in analysis["native_errors"]:
        lines.append(f"    without native frames: {error}")
    return lines


def thread_text(threads, pid):
    """A process's dump as py-spy prints it (every thread, innermost frame first)."""
    lines = []
    for thread in threads or []:
        name = thread.get("thread_name")
        lines.append(f"Thread {thread.get('os_thread_id') or thread.get('thread_id')}"
                     f" ({'active' if thread.get('active') else 'idle'})" + (f": \"{name}\"" if name else ""))
        lines += [f"    {frame_text(frame)}" for frame in frames_of(thread)]
    return "\n".join([f"Process {pid}"] + lines) + "\n"


def dump_name(item):
    """The file name (without extension) of a process's dump: rank_3, launcher_4121, ..."""
    if item.get("role") == "rank":
        return f"rank_{int(item['rank'])}"
    if item.get("role") in ("rank_child", "rank_wrapper"):
        return f"rank_{int(item['rank'])}_{item['role'][5:]}_{int(item['pid'])}"
    role = item.get("role") if item.get("role") in ("scheduler", "launcher") else "process"
    return f"{role}_{int(item['pid'])}"


# Marks a stacks folder as the suite's own, so that the next dump may replace it.
STACKS_MARKER = ".cluster-suite-stacks"


def write_stacks(log_root, nodes, analysis, text):
    """Write the dumps under ``<log_root>/stacks/`` (replaced): per node ``<host>/<name>.json``
    (py-spy's JSON with the process's pid, role, rank and command) and ``.txt``, and
    ``summary.txt`` and ``summary.json``. Refuses a ``stacks`` or node folder that is a link.
    Returns the folder."""
    folder = os.path.join(log_root, "stacks")
    if os.path.islink(log_root) or os.path.islink(folder):
        raise ValueError(f"{folder}: a symbolic link is never written through")
    if os.path.isdir(folder):
        # Only a folder this function made (its marker) is replaced: log_root may be the user's.
        if not os.path.isfile(os.path.join(folder, STACKS_MARKER)):
            raise ValueError(f"{folder}: not made by the suite (no {STACKS_MARKER}); move it away first")
        shutil.rmtree(folder)
    os.makedirs(folder)
    with open(os.path.join(folder, STACKS_MARKER), "w", encoding="utf-8") as handle:
        handle.write("stacks written by cluster-suite; replaced by the next dump\n")
    for host in sorted(nodes):
        if host in ("", ".", "..") or "/" in host:
            raise ValueError(f"{host!r} is not a node name to write a folder for")
        host_dir = os.path.join(folder, host)
        os.makedirs(host_dir)
        for item in (nodes[host] or {}).get("processes") or []:
            name = dump_name(item)
            record = {key: item.get(key) for key in ("pid", "ppid", "role", "rank", "cmd", "native", "error",
                                                     "native_error", "threads")}
            with open(os.path.join(host_dir, name + ".json"), "w", encoding="utf-8") as handle:
                json.dump(record, handle, indent=1)
                handle.write("\n")
            if item.get("threads"):
                with open(os.path.join(host_dir, name + ".txt"), "w", encoding="utf-8") as handle:
                    handle.write(f"{item.get('cmd')}\n" + thread_text(item["threads"], item.get("pid")))
    with open(os.path.join(folder, "summary.json"), "w", encoding="utf-8") as handle:
        json.dump(analysis, handle, indent=1, sort_keys=True)
        handle.write("\n")
    with open(os.path.join(folder, "summary.txt"), "w", encoding="utf-8") as handle:
        handle.write(text + "\n")
    return folder
