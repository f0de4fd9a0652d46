"""The attributes every module of the suite documents (extends_documentation_fragment:
cluster_suite.hpc.attributes): the descriptions and the platform, once. Each module's own
DOCUMENTATION says only how it supports check mode and diff mode."""


class ModuleDocFragment:
    DOCUMENTATION = r"""
attributes:
  check_mode:
    description: Can run in check_mode and return changed status prediction without modifying target, if not
      supported the action will be skipped.
  diff_mode:
    description: Will return details on what has changed (or possibly needs changing in check_mode), when in diff mode
  platform:
    description: Target OS/families that can be operated against
    support: N/A
    platforms: posix
"""
