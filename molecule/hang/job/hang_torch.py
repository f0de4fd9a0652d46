"""A torchrun (gloo) job that hangs: every rank all_reduces a tensor each step; in step
--hang-step, rank --sleep-rank sleeps inside its step instead, so the others wait for it in
all_reduce. Scenario hang dumps every rank's stack and expects that rank named as the cause."""
import argparse
import socket
import time

import torch
import torch.distributed as dist

parser = argparse.ArgumentParser()
parser.add_argument("--sleep-rank", type=int, required=True)
parser.add_argument("--hang-step", type=int, default=2)
args = parser.parse_args()


def step(index, rank, value):
    if index == args.hang_step and rank == args.sleep_rank:
        print(f"step: {index}, rank {rank} sleeps inside its step", flush=True)
        time.sleep(3600)
    dist.all_reduce(value)
    return value


def main():
    dist.init_process_group(backend="gloo")
    rank = dist.get_rank()
    value = torch.ones(4)
    for index in range(args.hang_step + 1):
        value = step(index, rank, value) / dist.get_world_size()
        print(f"step: {index}, loss: {float(value.sum()):.4f} (rank {rank} on {socket.gethostname()})", flush=True)
    dist.destroy_process_group()


main()
