"""MindSpore data-parallel check for msrun, mpirun and the dynamic cluster.

Every worker prints the AllGather of its rank (all ranks, in order, on every worker) and then
trains a small linear model on synthetic data with gradients averaged across workers, printing
`step: N, loss: V` lines: the loss must go down. The scheduler (MS_ROLE=MS_SCHED) runs the
same script; MindSpore keeps it inside init().

The device target is the node's: the launch's job.env sets CS_DEVICE_TARGET from the inventory
(Ascend on npu_nodes, GPU on gpu_nodes, CPU with cluster_backend: cpu, as in the sandbox), the
way MindSpore's msrun launch guide passes --device_target=Ascend to its script. --device-target
overrides it; with neither, MindSpore uses its package's backend.
"""
import argparse
import os
import socket

import numpy as np
import mindspore as ms
from mindspore import Tensor, nn, ops
from mindspore.communication import get_group_size, get_rank, init

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=20)
parser.add_argument("--lr", type=float, default=0.05)
parser.add_argument("--device-target", choices=["Ascend", "GPU", "CPU"],
                    default=os.environ.get("CS_DEVICE_TARGET") or None)
args = parser.parse_args()

if args.device_target:
    ms.set_context(mode=ms.GRAPH_MODE, device_target=args.device_target)
else:
    ms.set_context(mode=ms.GRAPH_MODE)
init()
ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
rank, size = get_rank(), get_group_size()
ms.set_seed(1)
print(f"rank {rank} of {size} on {socket.gethostname()}: device target {ms.get_context('device_target')}",
      flush=True)

gathered = ops.AllGather()(Tensor(np.array([float(rank)], dtype=np.float32))).asnumpy()
print(f"rank {rank} of {size} on {socket.gethostname()}: allgather: {[int(v) for v in gathered]}",
      flush=True)

# Synthetic regression data, a different shard per rank: y = x . w + 0.5
rng = np.random.default_rng(1234 + rank)
w_true = np.arange(1, 9, dtype=np.float32).reshape(8, 1) / 4
x = rng.standard_normal((64, 8)).astype(np.float32)
y = (x @ w_true + 0.5).astype(np.float32)

net = nn.Dense(8, 1)
loss_fn = nn.MSELoss()
optimizer = nn.SGD(net.trainable_params(), learning_rate=args.lr)


def forward(features, target):
    return loss_fn(net(features), target)


grad_fn = ms.value_and_grad(forward, None, net.trainable_params())
reducer = nn.DistributedGradReducer(optimizer.parameters, mean=True, degree=size)

data, label = Tensor(x), Tensor(y)
for step in range(args.steps):
    loss, grads = grad_fn(data, label)
    optimizer(reducer(grads))
    print(f"step: {step}, loss: {float(loss.asnumpy()):.6f}", flush=True)
print(f"rank {rank}: done", flush=True)
