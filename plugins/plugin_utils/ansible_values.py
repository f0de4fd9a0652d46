"""Helpers for the values the controller plugins receive from Ansible."""


def plain(value, str_keys=True):
    """Ansible's lazy containers (hostvars, lazy dicts and lists, unsafe text) as plain dicts and
    lists, recursively; mapping keys become str unless ``str_keys`` is false (then they are kept
    as they are, so that a checker can still report a key that is not a string)."""
    if isinstance(value, dict) or hasattr(value, "items"):
        return {(str(key) if str_keys else key): plain(item, str_keys) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(item, str_keys) for item in value]
    return value


def is_int(value):
    """True for an int that is not a bool (YAML's true is no count)."""
    return isinstance(value, int) and not isinstance(value, bool)
