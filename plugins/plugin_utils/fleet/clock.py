"""A node's clock against the controller's, and the service that keeps it in time.

Plain stdlib functions (see docs/architecture.md) used by the action plugin node_clock (role doctor's
`clock` check, role job's gathering of logs) and the doctor's report. A read is the node's
`date +%s.%N` taken between two controller timestamps: the node's time is taken to be the
midpoint, so the offset is known within half the round trip (the uncertainty). Of several reads
the one with the shortest round trip counts.
"""

# /proc/<pid>/comm of each time service (the kernel keeps 15 characters of the name).
SYNC_SERVICES = (("chronyd", "chrony"), ("systemd-timesyn", "systemd-timesyncd"), ("ntpd", "ntpd"),
                 ("openntpd", "openntpd"))


class ClockError(Exception):
    """A node's clock reading could not be understood."""


def read_offset(before, node_text, after):
    """{"offset", "uncertainty", "round_trip"} in seconds of one read: ``node_text`` is the node's
    `date +%s.%N` taken between the controller's ``before`` and ``after`` (epoch seconds);
    offset is node minus controller."""
    try:
        node_now = float(str(node_text).strip())
    except ValueError as error:
        raise ClockError("the node's clock reading %r is not epoch seconds" % (node_text,)) from error
    round_trip = max(after - before, 0.0)
    return {"offset": round(node_now - (before + after) / 2.0, 3),
            "uncertainty": round(round_trip / 2.0, 3),
            "round_trip": round(round_trip, 3)}


def best_read(reads):
    """The read with the shortest round trip (the tightest bound), with the number of reads."""
    if not reads:
        raise ClockError("no clock reading")
    best = min(reads, key=lambda read: read["round_trip"])
    return dict(best, reads=len(reads))


def sync_service(process_names):
    """The time service running among ``process_names`` (/proc/*/comm), or "none"."""
    names = {name.strip() for name in process_names}
    return next((service for comm, service in SYNC_SERVICES if comm in names), "none")


def describe(clock):
    """'+0.012 s (±0.004 s)' of a measured clock."""
    return "%+.3f s (±%.3f s)" % (clock["offset"], clock["uncertainty"])


def verdict(clock, warn_ms, fail_ms):
    """(status, message) of a node's clock: judged on the largest skew the read allows,
    |offset| + uncertainty, against ``warn_ms`` and ``fail_ms``."""
    bound_ms = (abs(clock["offset"]) + clock["uncertainty"]) * 1000.0
    service = clock.get("sync_service") or "none"
    text = "clock %s against the controller's, best of %s read(s); time service: %s" % (
        describe(clock), clock.get("reads", 1), service)
    if bound_ms > fail_ms:
        status, limit = "fail", "doctor_clock_fail_ms %s" % fail_ms
    elif bound_ms > warn_ms:
        status, limit = "warn", "doctor_clock_warn_ms %s" % warn_ms
    else:
        return "ok", text
    advice = ("start it or check its sources" if service != "none"
              else "install and enable chrony or systemd-timesyncd")
    return status, "%s: skew up to %.0f ms is above %s; %s (the job summary orders failures of several " \
                   "nodes by their clocks)" % (text, bound_ms, limit, advice)
