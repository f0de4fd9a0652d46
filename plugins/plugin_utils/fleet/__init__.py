"""The fleet's memory and operations: the node ledger (ledger) and how it is listed and read
(ledger_view), the doctor's and acceptance's verdicts for it (findings), carrying on past nodes
lost in a run (carry_on), the rolling upgrade's batches (rolling_upgrade) and each node's clock
(clock)."""
