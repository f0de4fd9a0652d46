"""The doctor's verdicts from what each node returned: the checks of each concern (ssh, network,
npu, npu_health, versions) behind one entry (checks), and the report (report)."""
