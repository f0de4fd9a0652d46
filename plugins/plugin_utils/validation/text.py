"""How the validation messages show values: a value's plain type and repr (control characters
escaped, long values cut), the control characters a value holds, hosts named in groups, and one
message per variable and problem for all the hosts that share it."""
import re

# Control characters: never in a value that reaches a script, a command line or a file name.
CONTROL = re.compile(r"[\x00-\x1f\x7f]")
CONTROL_NAMES = {"\x00": "NUL (\\x00)", "\n": "a newline (\\n)", "\r": "a carriage return (\\r)",
                 "\t": "a tab (\\t)", "\x1b": "an escape (\\x1b)", "\x7f": "a DEL (\\x7f)"}


def type_name(value):
    """The plain type name of a value (Ansible's tagged str/int subclasses read as str/int)."""
    for kind in (bool, int, float, str, list, dict):
        if isinstance(value, kind):
            return kind.__name__
    return "null" if value is None else type(value).__name__


def shown(value, limit=80):
    """repr() of a value without Ansible's tagged subclasses showing through (control characters
    escaped, so a message stays on one line), cut after ``limit`` characters."""
    for kind in (bool, int, float, str):
        if isinstance(value, kind):
            value = kind(value)
            break
    text = repr(value)
    if len(text) > limit:
        text = f"{text[:limit]}... ({len(value) if isinstance(value, (str, list, dict)) else len(text)} long)"
    return text


def host_text(host):
    """A host as messages name it: as it is, or repr() when it holds a control character."""
    return shown(host) if control_text(host) or not isinstance(host, str) else host


def control_text(value):
    """What is wrong with a string holding a control character ("contains a newline (\\n)"),
    None when it holds none (or is not a string)."""
    if not isinstance(value, str):
        return None
    found = CONTROL.search(value)
    if not found:
        return None
    char = found.group()
    name = CONTROL_NAMES.get(char, f"the control character \\x{ord(char):02x}")
    return f"contains {name} at offset {found.start()}: control characters are refused"


def control_problems(name, value):
    """[(variable path, text)] for every string inside ``value`` (lists, mappings and their keys)
    that holds a control character."""
    text = control_text(value)
    if text:
        return [(name, f"{shown(value)} {text}")]
    problems = []
    if isinstance(value, dict):
        for key, item in value.items():
            text = control_text(key)
            if text:
                problems.append((name, f"key {shown(key)} {text}"))
            else:
                problems += control_problems(f"{name}.{key}", item)
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            problems += control_problems(f"{name}[{index}]", item)
    return problems


def hosts_text(hosts, limit=5):
    hosts = list(hosts)
    if len(hosts) > limit:
        return ", ".join(hosts[:limit]) + f" (and {len(hosts) - limit} more)"
    return ", ".join(hosts)


def grouped(found):
    """{(variable, text): [hosts]} as messages, one per variable and problem."""
    return [f"{hosts_text(holders)}: {name}: {text}" for (name, text), holders in found.items()]
