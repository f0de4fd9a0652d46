"""torchrun over gloo: which interface the collective traffic leaves by.

Prints the interface variables the rank got, then all_reduces 16 MiB four times and prints the
bytes each interface of the node sent meanwhile (/sys/class/net/<if>/statistics/tx_bytes).
"""
import json
import os
import socket
from datetime import timedelta

import torch
import torch.distributed as dist

VARIABLES = ("NCCL_SOCKET_IFNAME", "GLOO_SOCKET_IFNAME", "HCCL_SOCKET_IFNAME", "HCCL_IF_IP")


def sent():
    return {name: int(open(f"/sys/class/net/{name}/statistics/tx_bytes", encoding="ascii").read())
            for name in sorted(os.listdir("/sys/class/net"))}


dist.init_process_group(backend="gloo", timeout=timedelta(seconds=120))
rank = dist.get_rank()
print(f"rank {rank} on {socket.gethostname()} interface variables: "
      + json.dumps({name: os.environ.get(name) for name in VARIABLES}, sort_keys=True), flush=True)
before = sent()
tensor = torch.ones(4 * 1024 * 1024)
for _ in range(4):
    dist.all_reduce(tensor)
dist.barrier()
after = sent()
print(f"rank {rank} on {socket.gethostname()} bytes sent during all_reduce: "
      + json.dumps({name: after[name] - before[name] for name in after}, sort_keys=True), flush=True)
dist.destroy_process_group()
