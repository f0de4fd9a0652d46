"""Plans of the provisioning roles: OpenMPI's build key and who builds (openmpi_build), the
training environment's packages (python_env), the OS family's vars (os_vars), firewalld's rules
(firewalld_rules) and SSH host keys (host_keys)."""
