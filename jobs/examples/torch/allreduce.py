"""PyTorch distributed check for torchrun: all_reduce (sum) of rank+1 over every rank.

Prints `rank R of W on HOST (local rank L, DEVICE, BACKEND): all_reduce sum: S expected: E` and
fails when S != E. The backend comes from CS_TORCH_BACKEND, which the launch's job.env sets from
the node's cluster_backend: hccl on Ascend NPUs (torch_npu imported, each rank on device
npu:<local rank>, as in Ascend's PyTorch multi-node training guide), nccl on NVIDIA GPUs (each
rank on cuda:<local rank>), gloo on the CPU (the sandbox).
"""
import os
import socket
from datetime import timedelta

import torch
import torch.distributed as dist

backend = os.environ.get("CS_TORCH_BACKEND", "gloo")
local_rank = int(os.environ.get("LOCAL_RANK", "0"))
if backend == "hccl":
    import torch_npu  # noqa: F401  (registers the npu device and the hccl backend)

    device = torch.device(f"npu:{local_rank}")
    torch.npu.set_device(device)
elif backend == "nccl":
    device = torch.device(f"cuda:{local_rank}")
    torch.cuda.set_device(device)
else:
    device = torch.device("cpu")

dist.init_process_group(backend=backend, timeout=timedelta(seconds=120))
rank, world = dist.get_rank(), dist.get_world_size()
value = torch.tensor([float(rank + 1)], device=device)
dist.all_reduce(value, op=dist.ReduceOp.SUM)
total = value.item()
expected = world * (world + 1) / 2
print(f"rank {rank} of {world} on {socket.gethostname()} (local rank {local_rank}, {device}, "
      f"{backend}): all_reduce sum: {total} expected: {expected}", flush=True)
dist.barrier()
dist.destroy_process_group()
if total != expected:
    raise SystemExit(f"rank {rank}: all_reduce gave {total}, expected {expected}")
