"""Which OS vars file of a role applies to a node, chosen the way geerlingguy's roles choose it:
the first file that exists of <distribution>-<version>.yml, <distribution>-<major version>.yml,
<distribution>.yml, <os_family>.yml, then default.yml.

Ansible's facts name openEuler, EulerOS, Kylin, CentOS and Rocky as distributions of the RedHat
family, and Ubuntu as one of the Debian family; a distribution name with spaces ("Kylin Linux
Advanced Server") gives a file name with underscores.
"""
import re

DEFAULT = "default.yml"


def _part(value):
    text = "" if value is None else str(value).strip()
    return re.sub(r"\s+", "_", text)


def candidates(facts):
    """The vars file names to try, most specific first, from a node's ``ansible_facts``."""
    facts = facts or {}
    distribution = _part(facts.get("distribution"))
    version = _part(facts.get("distribution_version"))
    major = _part(facts.get("distribution_major_version"))
    family = _part(facts.get("os_family"))
    names = []
    if distribution:
        names += [f"{distribution}-{v}.yml" for v in (version, major) if v]
        names.append(f"{distribution}.yml")
    if family:
        names.append(f"{family}.yml")
    names.append(DEFAULT)
    unique = []
    for name in names:
        if name not in unique:
            unique.append(name)
    return unique


def first_found(facts, available):
    """The file of ``candidates(facts)`` that is among ``available`` (names), or None."""
    present = set(available)
    return next((name for name in candidates(facts) if name in present), None)
