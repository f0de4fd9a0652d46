"""A MindSpore (msrun) job that hangs: every worker all-reduces a tensor each step; in step
--hang-step, rank --sleep-rank sleeps inside its step instead, so the others wait for it in
AllReduce. Scenario hang dumps every rank's stack and expects that rank named as the cause."""
import argparse
import socket
import time

import numpy as np
import mindspore as ms
from mindspore import Tensor, ops
from mindspore.communication import get_group_size, get_rank, init

parser = argparse.ArgumentParser()
parser.add_argument("--sleep-rank", type=int, required=True)
parser.add_argument("--hang-step", type=int, default=2)
args = parser.parse_args()


def step(index, rank, all_reduce, value):
    if index == args.hang_step and rank == args.sleep_rank:
        print(f"step: {index}, rank {rank} sleeps inside its step", flush=True)
        time.sleep(3600)
    return all_reduce(value)


def main():
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    init()
    rank, size = get_rank(), get_group_size()
    all_reduce = ops.AllReduce()
    value = Tensor(np.ones(4, dtype=np.float32))
    for index in range(args.hang_step + 1):
        value = step(index, rank, all_reduce, value) / size
        print(f"step: {index}, loss: {float(value.sum().asnumpy()):.4f} (rank {rank} on {socket.gethostname()})",
              flush=True)


main()
