"""PyTorch distributed check for torchrun: all_reduce (sum) of rank+1 over every rank.

Prints `rank R of W on HOST: all_reduce sum: S expected: E` and fails when S != E. The backend
comes from CS_TORCH_BACKEND (launch.yml: gloo on CPU, nccl on GPU, hccl on NPU nodes).
"""
import os
import socket
from datetime import timedelta

import torch
import torch.distributed as dist

backend = os.environ.get("CS_TORCH_BACKEND", "gloo")
dist.init_process_group(backend=backend, timeout=timedelta(seconds=120))
rank, world = dist.get_rank(), dist.get_world_size()
value = torch.tensor([float(rank + 1)])
dist.all_reduce(value, op=dist.ReduceOp.SUM)
expected = world * (world + 1) / 2
print(f"rank {rank} of {world} on {socket.gethostname()} (local rank {os.environ.get('LOCAL_RANK')}, "
      f"{backend}): all_reduce sum: {value.item()} expected: {expected}", flush=True)
dist.barrier()
dist.destroy_process_group()
if value.item() != expected:
    raise SystemExit(f"rank {rank}: all_reduce gave {value.item()}, expected {expected}")
