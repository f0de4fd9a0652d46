"""The platform every module of the suite supports, once (extends_documentation_fragment:
cluster_suite.hpc.attributes, beside ansible-core's action_common_attributes, which describes the
attributes). Each module's own DOCUMENTATION says only how it supports check mode and diff mode."""


class ModuleDocFragment:
    DOCUMENTATION = r"""
attributes:
  platform:
    platforms: posix
"""
