"""Checks of the acceptance_* settings, on the controller before any node is contacted: every
problem at once, each naming the host and the variable."""
STAGES = ("intra", "pairs", "cluster")


def _int(value):
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit() and value == value.strip():
        return int(value)
    return None


def _ratio(value):
    if isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if 0 < number <= 1 else None


def settings_errors(settings, host="controller"):
    """Problems of the settings (a dict acceptance_* -> value). The choices of acceptance_tool and
    acceptance_schedule are the argument spec's (role_settings.choice_problems), typos are
    role_settings.typo_problems'."""
    errors = []

    def bad(name, what):
        errors.append(f"{host}: {name}: {what}, got {settings.get(name)!r}")

    # 0 ranks or max bytes: the tool's own (one rank per device, 1 GiB; the probe's 1 or 2, 4 MiB).
    limits = {"acceptance_ranks_per_node": (0, 1024), "acceptance_intra_ranks": (0, 1024),
              "acceptance_min_bytes": (4, 1 << 40), "acceptance_max_bytes": (0, 1 << 40),
              "acceptance_judge_bytes": (0, 1 << 40), "acceptance_iters": (1, 100000),
              "acceptance_warmup_iters": (0, 100000), "acceptance_timeout": (1, 86400),
              "acceptance_samples": (3, 9)}
    numbers = {}
    for name, (low, high) in limits.items():
        number = _int(settings.get(name))
        if number is None or not low <= number <= high:
            bad(name, f"must be an integer from {low} to {high}")
        numbers[name] = number
    low, high = numbers["acceptance_min_bytes"], numbers["acceptance_max_bytes"]
    if low is not None and high and high < low:
        bad("acceptance_max_bytes", f"must not be below acceptance_min_bytes ({low})")
    judged = numbers["acceptance_judge_bytes"]
    if judged and high == 0:
        bad("acceptance_judge_bytes", "must be 0 (the largest) while acceptance_max_bytes is 0 (the tool's own)")
    elif judged and low and high and high >= low:
        sizes, size = [], low
        while size <= high:
            sizes.append(size)
            size *= 2
        if judged not in sizes:
            bad("acceptance_judge_bytes", f"must be 0 (the largest) or a measured size ({', '.join(map(str, sizes))})")
    for name in ("acceptance_slow_ratio", "acceptance_intra_slow_ratio", "acceptance_cluster_slow_ratio"):
        if _ratio(settings.get(name)) is None:
            bad(name, "must be a number above 0 and at most 1")
    spread = settings.get("acceptance_spread_limit")
    if isinstance(spread, bool) or not _number(spread) or float(spread) < 1:
        bad("acceptance_spread_limit", "must be a number of at least 1 (the largest sample over the smallest)")
    stages = settings.get("acceptance_stages")
    if not isinstance(stages, list) or not stages or any(stage not in STAGES for stage in stages) \
            or len(set(stages)) != len(stages):
        bad("acceptance_stages", f"must be a non-empty list of {', '.join(STAGES)}, each once")
    expected = settings.get("acceptance_expected_busbw")
    if not isinstance(expected, dict) or not all(
            isinstance(table, dict) and all(_int(size) and _number(value) for size, value in table.items())
            for table in expected.values()):
        bad("acceptance_expected_busbw", "must map a hardware model to {message size in bytes: GB/s above 0}")
    for name in ("acceptance_fail", "acceptance_include_quarantined"):
        if not isinstance(settings.get(name, True), bool):
            bad(name, "must be true or false")
    for name in ("acceptance_hccl_test_path", "acceptance_nccl_tests_path",
                 "acceptance_hccl_test_source", "acceptance_nccl_tests_source"):
        value = settings.get(name)
        if value == "" and name.endswith("_path"):
            continue
        if not isinstance(value, str) or not value.startswith("/") or any(c in value for c in "\n\r\0"):
            bad(name, "must be an absolute path" + (" or '' (build it)" if name.endswith("_path") else ""))
    report_dir = settings.get("acceptance_report_dir")
    if not isinstance(report_dir, str) or not report_dir or ".." in report_dir.split("/"):
        bad("acceptance_report_dir", "must be a directory path without '..'")
    if_include = settings.get("acceptance_if_include")
    if not isinstance(if_include, str) or not all(c.isalnum() or c in "./,:_-" for c in if_include):
        bad("acceptance_if_include", "must be interface names or a CIDR (letters, digits, '.', '/', ',', ':', '_', '-')")
    return errors


def _number(value):
    if isinstance(value, bool):
        return False
    try:
        return float(value) > 0
    except (TypeError, ValueError):
        return False
