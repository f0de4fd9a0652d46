"""Input rules, checked on the controller before any node changes: the inventory as a whole
(inventory), every role's settings against its argument spec and its own rules (role_settings, with
the rules of acceptance, doctor, firewall and npu_env), and the shell names a job may use
(shell_names)."""
