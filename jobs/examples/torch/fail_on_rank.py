"""A job that fails on purpose: rank --fail-rank raises after the first barrier; the others wait
in a second barrier that never completes (as ranks hang in a collective when a peer dies),
until launch.yml stops the job."""
import argparse
import os
import socket
import time
from datetime import timedelta

import torch.distributed as dist

parser = argparse.ArgumentParser()
parser.add_argument("--fail-rank", type=int, default=3)
args = parser.parse_args()
dist.init_process_group(backend=os.environ.get("CS_TORCH_BACKEND", "gloo"), timeout=timedelta(seconds=600))
rank = dist.get_rank()
dist.barrier()
print(f"rank {rank} on {socket.gethostname()}: past the first barrier", flush=True)
if rank == args.fail_rank:
    time.sleep(1)
    raise RuntimeError(f"rank {rank} fails on purpose")
dist.barrier()
