"""Input rules, checked on the controller before any node changes: the inventory as a whole
(inventory), role settings set in it against the roles' argument specs (inventory_settings), every
role's settings with its own rules (role_settings, with the rules of acceptance, doctor, firewall and
npu_env), the shell names a job may use (shell_names), and how messages show values (text)."""
