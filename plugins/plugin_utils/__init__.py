"""The controller's plain-Python logic, one package per stage of docs/architecture.md: validation,
npu_plan, doctor, acceptance, jobs, fleet and provision. Shared by all: ansible_values (Ansible's
values as plain Python) and controller_action (the base of the action plugins)."""
