"""Helpers for the values the controller plugins receive from Ansible."""


def plain(value, str_keys=True, scalars=False):
    """Ansible's lazy containers (hostvars, lazy dicts and lists, unsafe text) as plain dicts and
    lists, recursively; mapping keys become str unless ``str_keys`` is false (then they are kept
    as they are, so that a checker can still report a key that is not a string). With
    ``scalars``, Ansible's tagged bools, ints, floats and strings become the plain types too."""
    if isinstance(value, dict) or hasattr(value, "items"):
        return {(str(key) if str_keys else key): plain(item, str_keys, scalars) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(item, str_keys, scalars) for item in value]
    if scalars:
        for kind in (bool, int, float, str):
            if isinstance(value, kind):
                return kind(value)
    return value


def is_int(value):
    """True for an int that is not a bool (YAML's true is no count)."""
    return isinstance(value, int) and not isinstance(value, bool)
