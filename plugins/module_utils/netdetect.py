"""NPU device connectivity tests (``hccn_tool -netdetect`` / ``-net_health``): plain functions.

Ascend's PyTorch multi-node training guide checks two servers with eight tests, one per
device: set device i's detect address to device i of the other server
(``hccn_tool -i i -netdetect -s address X``), wait, then ``hccn_tool -i i -net_health -g``
must say ``Success``. With several peers every target is tested in turn. The functions here
plan those tests, run them through callables that talk to hccn_tool (the hccn_netdetect
module supplies them; tests supply fakes) and shape the results; they do no I/O themselves.

Input ("pairs"): ``[{"device": 0, "targets": ["192.168.100.111", ...]}, ...]``, as the
``npu_detect_targets`` filter's ``{device: [addresses]}`` becomes with
``dict2items(key_name='device', value_name='targets')``.

Health statuses and codes are hccn_tool's: 0 Success, 1 Socket fail, 2 Receive timeout,
3 Unreachable, 4 Time exceeded, 5 Fault, 6 Init, 7 Thread error, 8 Detect ip set,
-1 Unknown (anything else, and failures to run or parse the tool).
"""

import time
from collections.abc import Mapping

SUCCESS = "Success"
SUCCESS_CODE = 0
UNKNOWN = "Unknown"
UNKNOWN_CODE = -1
# Statuses the device reports while a check against a new detect address is still running.
PENDING_STATUSES = ("Init", "Detect ip set")

DEFAULT_TIMEOUT = 30.0
DEFAULT_DELAY = 2.0
DEFAULT_INTERVAL = 1.0


def is_ipv4(text):
    """True for dotted IPv4 text: four decimal octets 0..255 without leading zeros."""
    parts = text.split(".") if isinstance(text, str) else ()
    return len(parts) == 4 and all(
        part.isascii()
        and part.isdigit()
        and len(part) <= 3
        and int(part) <= 255
        and (part == "0" or not part.startswith("0"))
        for part in parts
    )


def parse_pairs(items):
    """Check the module input; return [(device, [targets])] sorted by device.

    ``items`` is a list of mappings with ``device`` (int >= 0, each once) and ``targets``
    (list of dotted IPv4 addresses, possibly empty; a single address string is accepted).
    Raises ValueError naming every problem.
    """
    if isinstance(items, (str, Mapping)) or not isinstance(items, (list, tuple)):
        raise ValueError(f"targets must be a list of {{device, targets}} mappings, not {type(items).__name__}")
    problems = []
    pairs = {}
    for position, item in enumerate(items):
        if not isinstance(item, Mapping):
            problems.append(f"entry {position}: {item!r} is not a mapping with device and targets")
            continue
        unknown = sorted(str(key) for key in item if key not in ("device", "targets"))
        if unknown:
            problems.append(f"entry {position}: unknown key {', '.join(unknown)} (known: device, targets)")
        device = item.get("device")
        if isinstance(device, str) and device.isascii() and device.isdigit():
            device = int(device)  # dict2items keeps int keys, but YAML authors may quote them
        if isinstance(device, bool) or not isinstance(device, int) or device < 0:
            problems.append(f"entry {position}: device {device!r} is not a device index (an integer >= 0)")
            continue
        if device in pairs:
            problems.append(f"device {device}: listed more than once")
            continue
        targets = item.get("targets")
        if isinstance(targets, str):
            targets = [targets]
        if not isinstance(targets, (list, tuple)):
            problems.append(f"device {device}: targets {targets!r} must be a list of IPv4 addresses")
            continue
        bad = [str(target) for target in targets if not is_ipv4(target)]
        if bad:
            problems.append(f"device {device}: target {', '.join(bad)} is not a valid dotted IPv4 address")
            continue
        duplicates = sorted({target for target in targets if list(targets).count(target) > 1})
        if duplicates:
            problems.append(f"device {device}: target {', '.join(duplicates)} is listed more than once")
            continue
        pairs[device] = list(targets)
    if problems:
        raise ValueError("; ".join(problems))
    return sorted(pairs.items())


def plan_rounds(pairs):
    """Split the tests into rounds: round r holds the r-th target of every device.

    A device has one detect address at a time, so its targets are tested one after the
    other; different devices are independent and share each round. Returns
    [[(device, target), ...], ...].
    """
    rounds = []
    for device, targets in pairs:
        for number, target in enumerate(targets):
            if number == len(rounds):
                rounds.append([])
            rounds[number].append((device, target))
    return rounds


def is_pending(health):
    """True while a health reading means "still checking" (Init, Detect ip set)."""
    return health.get("status") in PENDING_STATUSES


def unknown_health(error):
    """A health reading for a failure to run or parse hccn_tool."""
    return {"code": UNKNOWN_CODE, "status": UNKNOWN, "text": str(error)}


def new_result(device, target, address, labels=None):
    """A result entry before measuring (see hccn_netdetect's RETURN for the fields)."""
    return {
        "device": device,
        "address": address,
        "target": target,
        "target_label": (labels or {}).get(target),
        "detect_address": None,
        "status": None,
        "code": None,
        "text": None,
        "link": None,
        "attempts": 0,
        "seconds": 0.0,
        "timed_out": False,
        "tested": False,
        "success": False,
        "error": None,
    }


def _record_health(result, health):
    result["status"] = health.get("status")
    result["code"] = health.get("code")
    result["text"] = health.get("text")


def _safe(call, *args):
    """Run ``call``; return (value, None) or (None, error text)."""
    try:
        return call(*args), None
    except (OSError, ValueError, RuntimeError) as error:
        return None, str(error)


def run_tests(
    pairs,
    tool,
    timeout=DEFAULT_TIMEOUT,
    delay=DEFAULT_DELAY,
    interval=DEFAULT_INTERVAL,
    labels=None,
    clock=time.monotonic,
    sleep=time.sleep,
):
    """Test every (device, target) pair; return the result entries in test order.

    ``tool`` provides callables (any object with these attributes; each raises
    OSError/ValueError/RuntimeError on failure):

    * ``address(device)``  -> the device's own address or None
    * ``set_detect(device, target)``
    * ``health(device)``   -> {"code", "status", "text"} (hccn_output.parse_net_health)
    * ``link(device)``     -> "UP" / "DOWN"

    Per round: set the detect address of every device in the round, wait ``delay``
    seconds, then read each device's health every ``interval`` seconds while it is
    pending (Init), until ``timeout`` seconds after the set. A pending status at the
    timeout is reported with ``timed_out``. A tool failure becomes status Unknown (-1)
    with ``error`` set; the other tests go on.
    """
    addresses = {}
    for device, _targets in pairs:
        addresses[device], _error = _safe(tool.address, device)
    results = []
    for round_pairs in plan_rounds(pairs):
        started = clock()
        pending = []
        for device, target in round_pairs:
            result = new_result(device, target, addresses[device], labels)
            results.append(result)
            _none, error = _safe(tool.set_detect, device, target)
            if error:
                _record_health(result, unknown_health(error))
                result["error"] = error
            else:
                result["tested"] = True
                result["detect_address"] = target
                pending.append(result)
        if pending and delay > 0:
            sleep(delay)
        while pending:
            still = []
            for result in pending:
                health, error = _safe(tool.health, result["device"])
                result["attempts"] += 1
                result["seconds"] = round(clock() - started, 3)
                if error:
                    health = unknown_health(error)
                    result["error"] = error
                _record_health(result, health)
                if error is None and is_pending(health):
                    if clock() - started < timeout:
                        still.append(result)
                    else:
                        result["timed_out"] = True
            pending = still
            if pending:
                sleep(max(0.0, min(interval, timeout - (clock() - started))))
        for result in results[-len(round_pairs) :]:
            if result["tested"]:
                result["link"], _error = _safe(tool.link, result["device"])
            result["success"] = result["code"] == SUCCESS_CODE
    return results


def observe(pairs, tool, labels=None):
    """Check mode: report each device's current state without setting anything.

    ``tool`` as for run_tests plus ``detect(device)`` -> the current detect address or
    None. Every (device, target) entry carries the device's current health, measured
    against its current detect address (``detect_address``), read once; ``tested`` is
    false and ``success`` is true only when that address is the target and the status
    is Success.
    """
    results = []
    for device, targets in pairs:
        address, _error = _safe(tool.address, device)
        detect, detect_error = _safe(tool.detect, device)
        health, health_error = _safe(tool.health, device)
        link, _error = _safe(tool.link, device)
        error = detect_error or health_error
        for target in targets:
            result = new_result(device, target, address, labels)
            result.update(detect_address=detect, link=link, attempts=1, error=error)
            _record_health(result, health if health is not None else unknown_health(error))
            result["success"] = detect == target and result["code"] == SUCCESS_CODE
            results.append(result)
    return results


def summarize(results, pairs=()):
    """Counts and failures of a result list: {"total", "succeeded", "failed", "failures",
    "untested_devices"}; ``untested_devices`` lists devices of ``pairs`` without targets."""
    failures = [result for result in results if not result["success"]]
    return {
        "total": len(results),
        "succeeded": len(results) - len(failures),
        "failed": len(failures),
        "failures": failures,
        "untested_devices": [device for device, targets in pairs if not targets],
    }


def describe(result):
    """One line for a result: ``device 3 (192.168.103.101) -> 192.168.103.111 (node2
    device 3): Receive timeout (code 2), link UP, 2 attempts in 3.1 s``."""
    target = result["target"]
    if result.get("target_label"):
        target = f"{target} ({result['target_label']})"
    source = f"device {result['device']}"
    if result.get("address"):
        source += f" ({result['address']})"
    status = result.get("status") or UNKNOWN
    if result.get("error") and status == UNKNOWN:
        status = f"{UNKNOWN}: {result['error']}"
    line = f"{source} -> {target}: {status} (code {result.get('code')})"
    if result.get("timed_out"):
        line += ", still pending at the timeout"
    if not result.get("tested"):
        if result.get("attempts"):
            line += f", not tested: check mode, current detect address {result.get('detect_address') or 'unset'}"
        else:
            line += ", not tested"
    if result.get("link"):
        line += f", link {result['link']}"
    attempts = result.get("attempts", 0)
    line += f", {attempts} attempt{'s' if attempts != 1 else ''}"
    if result.get("seconds"):
        line += f" in {result['seconds']:.1f} s"
    return line
