"""Where each launcher writes a rank's log, relative to the job's log directory.

Shared by the node module job_processes (when each rank last wrote, for hang detection) and the
controller's summary (plugin_utils/jobs/log_summary.py), so that both recognise the same files.
"""
import os
import re

# worker_<N>.log of msrun, torchrun and the dynamic cluster.
RANK_LOG = re.compile(r"(?:^|/)worker_(\d+)\.log$")
# mpirun's --output-filename layout: <dir>/1/rank.<N>/stdout and stderr.
MPI_LOG = re.compile(r"(?:^|/)rank\.(\d+)/std(?:out|err)$")


def rank_activity(log_dir):
    """{rank: newest mtime} of the rank logs under ``log_dir`` (links are never followed)."""
    found = {}
    for dirpath, dirs, files in os.walk(log_dir):
        dirs[:] = [name for name in dirs if not os.path.islink(os.path.join(dirpath, name))]
        for name in files:
            path = os.path.join(dirpath, name)
            match = RANK_LOG.search(os.path.relpath(path, log_dir)) or MPI_LOG.search(os.path.relpath(path, log_dir))
            if not match:
                continue
            try:
                info = os.stat(path, follow_symlinks=False)
            except OSError:
                continue
            rank = int(match.group(1))
            found[rank] = max(found.get(rank, 0.0), info.st_mtime)
    return found
