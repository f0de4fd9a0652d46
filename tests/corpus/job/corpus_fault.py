"""A small data-parallel training job that fails on purpose, for the summary's corpus of real runs
(tests/corpus/record.sh). CORPUS_FRAMEWORK (job_env) picks the framework: mindspore (msrun, the
dynamic cluster), torch (torchrun, gloo) or none (mpirun: ranks that only compute, as an MPI
program's Python driver would). With a framework every rank gathers a value from every rank each
step; every rank prints `step: N, loss: V`. CORPUS_FAULT says what rank CORPUS_RANK does in step
CORPUS_STEP (3):

    none        nothing: the job succeeds
    raise       raises RuntimeError in its step
    sigkill     is killed by SIGKILL in its step (as by the OOM killer)
    sigsegv     reads address 0 from native code (ctypes): a real SIGSEGV in its step
    memory      lowers its address-space limit (as `ulimit -v`) and allocates past it
    sleep       sleeps inside stalled_step() while the others wait for it in the collective
    import      imports a module that does not exist, before the training
    exit_crash  finishes the training, then reads address 0 from native code in an exit handler
                (after the rank wrapper recorded exit 0), as MindSpore's teardown crash does
    sched_exit  (dynamic cluster) the scheduler exits 1 before it serves anyone
    port        (msrun) another process takes the scheduler's port just before it binds
    slow        every rank sleeps in long_step() for an hour (job_timeout ends it)
"""
import atexit
import ctypes
import os
import resource
import socket
import subprocess
import sys
import time

FRAMEWORK = os.environ.get("CORPUS_FRAMEWORK", "mindspore")
FAULT = os.environ.get("CORPUS_FAULT", "none")
FAULT_RANK = int(os.environ.get("CORPUS_RANK", "1"))
FAULT_STEP = int(os.environ.get("CORPUS_STEP", "3"))
STEPS = int(os.environ.get("CORPUS_STEPS", "8"))


def say(rank, text):
    print(f"rank {rank} on {socket.gethostname()}: {text}", flush=True)


def native_crash():
    ctypes.string_at(0)


def stalled_step(rank):
    say(rank, "sleeps inside stalled_step")
    time.sleep(3600)


def long_step(rank):
    say(rank, "sleeps inside long_step")
    time.sleep(3600)


def misbehave(rank, step):
    if rank != FAULT_RANK or step != FAULT_STEP:
        return
    if FAULT == "raise":
        raise RuntimeError(f"corpus: rank {rank} raises in step {step}")
    if FAULT == "sigkill":
        say(rank, "kills itself with SIGKILL")
        os.kill(os.getpid(), 9)
    if FAULT == "sigsegv":
        say(rank, "reads address 0")
        native_crash()
    if FAULT == "memory":
        say(rank, "allocates past its address-space limit")
        soft = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        resource.setrlimit(resource.RLIMIT_AS, (soft * 4, resource.getrlimit(resource.RLIMIT_AS)[1]))
        hoard = [bytearray(64 * 1024 * 1024) for _ in range(4096)]
        say(rank, f"allocated {len(hoard)} blocks")
    if FAULT == "sleep":
        stalled_step(rank)


def take_port(port):
    """Start a process that listens on ``port`` (it carries the job's tag: stop.yml ends it)."""
    holder = ("import socket, sys, time; s = socket.socket(); "
              "s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(('0.0.0.0', int(sys.argv[1]))); "
              "s.listen(); print('listening', flush=True); time.sleep(600)")
    child = subprocess.Popen([sys.executable, "-c", holder, str(port)], stdout=subprocess.PIPE, text=True)
    if child.stdout.readline().strip() != "listening":
        raise SystemExit(f"corpus: could not take port {port} before the scheduler")


def mindspore_gather():
    import numpy as np
    import mindspore as ms
    from mindspore import Tensor, ops
    from mindspore.communication import get_group_size, get_rank, init

    if FAULT == "port" and os.environ.get("MS_ROLE") == "MS_SCHED":
        take_port(int(os.environ["MS_SCHED_PORT"]))
    if FAULT == "sched_exit" and os.environ.get("MS_ROLE") == "MS_SCHED":
        print("corpus: the scheduler exits 1 before it serves anyone", flush=True)
        sys.exit(1)
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target=os.environ.get("CS_DEVICE_TARGET") or "CPU")
    init()
    rank, size = get_rank(), get_group_size()
    gather = ops.AllGather()

    def step_value(value):
        return float(gather(Tensor(np.array([value], dtype=np.float32))).asnumpy().mean())

    return rank, size, step_value


def torch_gather():
    from datetime import timedelta

    import torch
    import torch.distributed as dist

    dist.init_process_group(backend=os.environ.get("CS_TORCH_BACKEND", "gloo"),
                            timeout=timedelta(seconds=int(os.environ.get("CORPUS_TORCH_TIMEOUT", "60"))))
    rank, size = dist.get_rank(), dist.get_world_size()

    def step_value(value):
        tensor = torch.tensor([value])
        dist.all_reduce(tensor)
        return float(tensor.item()) / size

    return rank, size, step_value


def no_framework():
    rank = int(os.environ["CS_RANK"])
    return rank, int(os.environ.get("OMPI_COMM_WORLD_SIZE", "1")), lambda value: value


def main():
    rank = int(os.environ.get("CS_RANK", "-1")) if os.environ.get("CS_RANK", "").isdigit() else -1
    if FAULT == "import" and rank == FAULT_RANK:
        import corpus_missing_module  # noqa: F401  (the fault: a module the node lacks)
    start = {"torch": torch_gather, "mindspore": mindspore_gather}.get(FRAMEWORK, no_framework)
    rank, size, step_value = start()
    say(rank, f"of {size} started")
    loss = 4.0
    for step in range(STEPS):
        misbehave(rank, step)
        if FAULT == "slow" and step == FAULT_STEP:
            long_step(rank)
        loss = step_value(loss * 0.8)
        print(f"step: {step}, loss: {loss:.4f}", flush=True)
        time.sleep(0.5)
    say(rank, "done")
    if FAULT == "exit_crash" and rank == FAULT_RANK:
        atexit.register(native_crash)


if __name__ == "__main__":
    main()
