"""MindSpore dynamic-cluster recovery check (MS_ENABLE_RECOVERY=1).

Recovery as MindSpore's dynamic cluster launch guide describes it.

Every worker: local training on its own synthetic shard until
--seconds after the job's first start (the start time is kept under MS_RECOVERY_PATH), saving
its checkpoint and step after every step, then a final AllGather. A worker restarted by
recover.yml (same MS_NODE_ID) re-registers with the scheduler, loads its checkpoint, goes on
from the next step and meets the others in the final AllGather, the job's only collective.
(The CPU backend's ring collectives neither wait for a peer that is being recovered nor match
operations of a restarted process with earlier ones, so the gradient exchange is kept out of
the window in which a worker may die.) Prints `step: N, loss: V` lines and
`final allgather: [...]`.
"""
import argparse
import os
import socket
import time

import numpy as np
import mindspore as ms
from mindspore import Tensor, nn, ops
from mindspore.communication import get_group_size, get_rank, init

parser = argparse.ArgumentParser()
parser.add_argument("--seconds", type=float, default=100)
parser.add_argument("--step-seconds", type=float, default=1.0)
args = parser.parse_args()

# The node's device target from the launch's job.env (see allgather_train.py).
if os.environ.get("CS_DEVICE_TARGET"):
    ms.set_context(mode=ms.GRAPH_MODE, device_target=os.environ["CS_DEVICE_TARGET"])
else:
    ms.set_context(mode=ms.GRAPH_MODE)
init()
rank, size = get_rank(), get_group_size()
ms.set_seed(1)
recovery = os.environ.get("MS_RECOVERY_PATH", ".")
state_dir = os.path.join(recovery, f"rank_{rank}")
os.makedirs(state_dir, exist_ok=True)
step_file, ckpt_file = os.path.join(state_dir, "step"), os.path.join(state_dir, "net.ckpt")
start_file = os.path.join(state_dir, "started")

net = nn.Dense(8, 1)
start = 0
if os.path.exists(step_file) and os.path.exists(ckpt_file) and os.path.exists(start_file):
    ms.load_param_into_net(net, ms.load_checkpoint(ckpt_file))
    with open(step_file, encoding="utf-8") as handle:
        start = int(handle.read()) + 1
    print(f"rank {rank} on {socket.gethostname()}: recovered, going on from step {start}", flush=True)
else:
    print(f"rank {rank} of {size} on {socket.gethostname()}: starting", flush=True)
    with open(start_file, "w", encoding="utf-8") as handle:
        handle.write(str(time.time()))
with open(start_file, encoding="utf-8") as handle:
    deadline = float(handle.read()) + args.seconds

rng = np.random.default_rng(1234 + rank)
w_true = np.arange(1, 9, dtype=np.float32).reshape(8, 1) / 4
x = rng.standard_normal((64, 8)).astype(np.float32)
y = (x @ w_true + 0.5).astype(np.float32)
loss_fn = nn.MSELoss()
optimizer = nn.SGD(net.trainable_params(), learning_rate=0.01)


def forward(features, target):
    return loss_fn(net(features), target)


grad_fn = ms.value_and_grad(forward, None, net.trainable_params())
data, label = Tensor(x), Tensor(y)
step = start
while time.time() < deadline:
    loss, grads = grad_fn(data, label)
    optimizer(grads)
    ms.save_checkpoint(net, ckpt_file)
    with open(step_file + ".tmp", "w", encoding="utf-8") as handle:
        handle.write(str(step))
    os.replace(step_file + ".tmp", step_file)
    print(f"step: {step}, loss: {float(loss.asnumpy()):.6f}", flush=True)
    step += 1
    time.sleep(args.step_seconds)

gathered = ops.AllGather()(Tensor(np.array([float(rank)], dtype=np.float32))).asnumpy()
print(f"rank {rank} on {socket.gethostname()}: final allgather: {[int(v) for v in gathered]}", flush=True)
