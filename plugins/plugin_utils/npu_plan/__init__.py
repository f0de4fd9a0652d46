"""The NPU device IP plan: address arithmetic (ipv4), each hardware model's subnet rules and the
plan's validation (rules), a plan from the 3-line setting (generation), netdetect targets (detect),
the plan from the inventory (hostvars), their one entry (plan), and the HCCL rank table (rank_table)."""
