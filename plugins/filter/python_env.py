"""Filters of the python_env role (logic: plugins/plugin_utils/provision/python_env.py).

    lines: "{{ settings | cluster_suite.hpc.python_env_requirements }}"              ["torch===2.13.0+cpu", ...]
    pins: "{{ settings | cluster_suite.hpc.python_env_pins }}"                       [{name, version}, ...]
    (both take (compat, with_cann): CANN's Python dependencies of the table added on an NPU node)
    found: "{{ settings | cluster_suite.hpc.python_env_problems(host, compat, cann, backend) }}"  {errors, warnings}
    key: "{{ python_version | cluster_suite.hpc.python_env_key(machine, libc) }}"   cp311-manylinux_2_36_x86_64
    tags: "{{ key | cluster_suite.hpc.python_env_platform }}"      [[platform, ...], python version]
    problems: "{{ filenames | cluster_suite.hpc.python_env_wheel_problems(host, python_version, names) }}"
    sums: "{{ text | cluster_suite.hpc.python_env_sha256sums }}"                     {filename: sha256}
    problems: "{{ recorded | cluster_suite.hpc.python_env_checksum_problems(actual) }}"
    todo: "{{ wheels | cluster_suite.hpc.python_env_copy_plan(node_sums) }}"
    pending: "{{ pins | cluster_suite.hpc.python_env_pins_to_install(installed) }}"  [{name, version}]
    keys: "{{ node_reads | cluster_suite.hpc.python_env_keys_to_fill(pins) }}"   keys of the nodes not current
    text: "{{ sums | cluster_suite.hpc.python_env_sha256sums_text }}"
    wheels: "{{ stat_results | cluster_suite.hpc.python_env_wheel_list }}"         [{name, sha256, size}]
"""


from ansible.errors import AnsibleFilterError

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.provision import python_env
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.ansible_values import plain


def _true(value):
    """A bool given by a template: True, or its text."""
    return value is True or str(value).strip().lower() == "true"


def python_env_requirements(settings, compat=None, with_cann=False):
    return python_env.requirement_lines(plain(settings), plain(compat), _true(with_cann))


def python_env_pins(settings, compat=None, with_cann=False):
    return [{"name": name, "version": version}
            for name, version in python_env.pins(plain(settings), plain(compat), _true(with_cann))]


def python_env_problems(settings, host, compat, cann=None, backend=None):
    errors, warnings = python_env.combination_problems(str(host), plain(settings), plain(compat),
                                                       cann or None, backend)
    return {"errors": errors, "warnings": warnings}


def python_env_key(python_version, machine, libc):
    return python_env.wheelhouse_key(python_version, machine, libc)


def python_env_platform(key):
    try:
        platforms, version = python_env.platform_of(str(key))
    except ValueError as exc:
        raise AnsibleFilterError("python_env_platform: %s" % exc) from exc
    return [platforms, version]


def python_env_wheel_problems(filenames, host, python_version, names):
    return python_env.wheel_problems(str(host), plain(filenames), str(python_version), plain(names))


def python_env_sha256sums(text):
    return python_env.parse_sha256sums(text)


def python_env_checksum_problems(recorded, actual):
    return python_env.checksum_problems(plain(recorded), plain(actual))


def python_env_copy_plan(wheels, node_sums):
    return python_env.copy_plan(plain(wheels), plain(node_sums))


def python_env_pins_to_install(pins, installed):
    return python_env.pins_to_install(plain(pins), plain(installed))


def python_env_keys_to_fill(node_reads, pins_wanted):
    return python_env.keys_to_fill(plain(node_reads), plain(pins_wanted))


def python_env_sha256sums_text(sums):
    return python_env.sha256sums_text(plain(sums))


def python_env_wheel_list(stat_results):
    return python_env.wheel_list(plain(stat_results))


class FilterModule:
    def filters(self):
        return {
            "python_env_requirements": python_env_requirements,
            "python_env_pins": python_env_pins,
            "python_env_problems": python_env_problems,
            "python_env_key": python_env_key,
            "python_env_platform": python_env_platform,
            "python_env_wheel_problems": python_env_wheel_problems,
            "python_env_sha256sums": python_env_sha256sums,
            "python_env_checksum_problems": python_env_checksum_problems,
            "python_env_copy_plan": python_env_copy_plan,
            "python_env_pins_to_install": python_env_pins_to_install,
            "python_env_keys_to_fill": python_env_keys_to_fill,
            "python_env_sha256sums_text": python_env_sha256sums_text,
            "python_env_wheel_list": python_env_wheel_list,
        }
