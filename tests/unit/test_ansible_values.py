"""plugins/plugin_utils/ansible_values.py: the helpers every controller filter shares."""

import collections

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.ansible_values import is_int, plain


class LazyMapping(collections.abc.Mapping):
    """Stands for Ansible's lazy containers (hostvars, lazy dicts): a mapping, not a dict."""

    def __init__(self, data):
        self.data = data

    def __getitem__(self, key):
        return self.data[key]

    def __iter__(self):
        return iter(self.data)

    def __len__(self):
        return len(self.data)


def test_plain_unwraps_mappings_and_sequences_recursively():
    value = LazyMapping({"a": (1, LazyMapping({2: ["x"]})), 3: "y"})
    result = plain(value)
    assert result == {"a": [1, {"2": ["x"]}], "3": "y"}
    assert type(result) is dict and type(result["a"]) is list and type(result["a"][1]) is dict
    assert plain(value, str_keys=False) == {"a": [1, {2: ["x"]}], 3: "y"}
    assert plain("text") == "text" and plain(None) is None


def test_is_int_is_no_bool():
    assert is_int(0) and is_int(-3)
    assert not is_int(True) and not is_int("1") and not is_int(1.0) and not is_int(None)
