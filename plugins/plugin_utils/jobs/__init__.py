"""Jobs: every check of a job description (checks), with the job variables and their defaults
(defaults), the launchers and node kinds (launchers), the job's directories (paths) and the dynamic
cluster's TLS settings (tls); the plan the launch templates render (spec), the framework versions a
job needs (versions), the healthy nodes it may use (healthy), and the summary of a run: its logs
unpacked (log_unpack) and read (log_summary), failures matched against the catalogue (failures),
stacks grouped to the rank that holds the others up (stacks), with the flight records of ranks
that ended (flight)."""
