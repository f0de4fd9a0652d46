"""A MindSpore (msrun) job that hangs: every worker all-reduces a tensor each step; in step
--hang-step, rank --sleep-rank sleeps inside its step instead, so the others wait for it in
AllReduce. Scenario hang dumps every rank's stack and expects that rank named as the cause.

MindSpore's CPU collectives give up on a peer after 30 s, where HCCL on NPUs waits
HCCL_EXEC_TIMEOUT (30 minutes by default): the waiting ranks enter AllReduce again when it gives
up, so they keep waiting as they would on NPUs (GLOG_v=4 in the job keeps MindSpore's error
line for each attempt out of their logs, which would count as log activity). Until the training
starts, every worker logs a line every 3 s while MindSpore loads."""
import argparse
import socket
import threading
import time


def heartbeat(stop):
    while not stop.wait(3):
        print("starting", flush=True)


started = threading.Event()
threading.Thread(target=heartbeat, args=(started,), daemon=True).start()

import numpy as np  # noqa: E402  (after the heartbeat: loading MindSpore takes long)
import mindspore as ms  # noqa: E402
from mindspore import Tensor, ops  # noqa: E402
from mindspore.communication import get_group_size, get_rank, init  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--sleep-rank", type=int, required=True)
parser.add_argument("--hang-step", type=int, default=2)
args = parser.parse_args()


def step(index, rank, all_reduce, value):
    if index == args.hang_step and rank == args.sleep_rank:
        print(f"step: {index}, rank {rank} sleeps inside its step", flush=True)
        time.sleep(3600)
    while True:
        try:
            result = all_reduce(value)
            result.asnumpy()  # PyNative runs the operator asynchronously: wait for it here
            return result
        except RuntimeError:
            continue


def main():
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    init()
    started.set()
    rank, size = get_rank(), get_group_size()
    all_reduce = ops.AllReduce()
    value = Tensor(np.ones(4, dtype=np.float32))
    for index in range(args.hang_step + 1):
        value = step(index, rank, all_reduce, value) / size
        print(f"step: {index}, loss: {float(value.sum().asnumpy()):.4f} (rank {rank} on {socket.gethostname()})",
              flush=True)


main()
