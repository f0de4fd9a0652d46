"""MindSpore data-parallel check for msrun and the dynamic cluster (CPU backend in the sandbox).

Every worker prints the AllGather of its rank (all ranks, in order, on every worker) and then
trains a small linear model on synthetic data with gradients averaged across workers, printing
`step: N, loss: V` lines: the loss must go down. The scheduler (MS_ROLE=MS_SCHED) runs the
same script; MindSpore keeps it inside init().
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
parser.add_argument("--device-target", default=os.environ.get("MS_DEVICE_TARGET", "CPU"))
args = parser.parse_args()

ms.set_context(mode=ms.GRAPH_MODE, device_target=args.device_target)
init()
ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
rank, size = get_rank(), get_group_size()
ms.set_seed(1)

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
