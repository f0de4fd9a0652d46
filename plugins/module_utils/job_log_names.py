"""Where each launcher writes a rank's log, relative to the job's log directory.

Shared by the node module job_log_activity (hang detection) and the controller's summary
(plugin_utils/jobs/log_summary.py), so that both recognise the same files.
"""
import re

# worker_<N>.log of msrun, torchrun and the dynamic cluster.
RANK_LOG = re.compile(r"(?:^|/)worker_(\d+)\.log$")
# mpirun's --output-filename layout: <dir>/1/rank.<N>/stdout and stderr.
MPI_LOG = re.compile(r"(?:^|/)rank\.(\d+)/std(?:out|err)$")
