"""One rank of a job that fails the way FAULT_KIND (job_env) says, for the failure checks of
molecule/launch/tasks/failures.yml. FAULT_RANK is the rank that misbehaves.

    sigkill  the rank kills itself with SIGKILL; the others wait (mpirun stops them)
    memory   the rank lowers its address-space limit (RLIMIT_AS, as `ulimit -v` does) and
             allocates past it; the others wait
    port     the MindSpore scheduler finds its port taken by another process started just
             before it binds, as when something takes the port after the launch's checks
    hang     every rank joins a gloo group; the rank then sleeps forever while the others
             log a few more lines and wait for it in an all_reduce
    none     every rank logs a line and exits 0
"""
import os
import resource
import signal
import socket
import subprocess
import sys
import threading
import time

FAULT = os.environ.get("FAULT_KIND", "none")
FAULTY = os.environ.get("FAULT_RANK", "")
RANK = os.environ.get("CS_RANK", "")
HOST = socket.gethostname()


def say(text):
    print(f"rank {RANK} on {HOST}: {text}", flush=True)


def wait_to_be_stopped():
    for _ in range(300):
        time.sleep(1)
    say("never stopped")
    sys.exit(1)


def take_port(port):
    """Start a process that listens on ``port`` (it carries the job's tag: stop.yml ends it)."""
    holder = ("import socket, sys, time; s = socket.socket(); s.bind(('0.0.0.0', int(sys.argv[1]))); "
              "s.listen(); print('listening', flush=True); time.sleep(600)")
    child = subprocess.Popen([sys.executable, "-c", holder, str(port)], stdout=subprocess.PIPE, text=True)
    child.stdout.readline()


def heartbeat(stop):
    while not stop.wait(3):
        say("still starting")


def hang():
    stop = threading.Event()
    threading.Thread(target=heartbeat, args=(stop,), daemon=True).start()
    say("importing torch")
    import torch
    import torch.distributed as dist
    from datetime import timedelta
    dist.init_process_group(backend="gloo", timeout=timedelta(seconds=1800))
    dist.barrier()
    stop.set()
    if RANK == FAULTY:
        say("sleeping forever")
        while True:
            time.sleep(60)
    for step in range(8):
        say(f"step {step}")
        time.sleep(1)
    say("waiting for every rank in all_reduce")
    dist.all_reduce(torch.ones(1))
    say("all_reduce returned")


def main():
    say(f"started (fault {FAULT} on rank {FAULTY})")
    if FAULT == "port" and os.environ.get("MS_ROLE") == "MS_SCHED":
        take_port(os.environ["MS_SCHED_PORT"])
    if FAULT == "port":
        from mindspore.communication import init
        init()
        say("cluster built")
        return
    if FAULT == "hang":
        hang()
        return
    if RANK != FAULTY:
        if FAULT != "none":
            wait_to_be_stopped()
        return
    if FAULT == "sigkill":
        say("killing myself with SIGKILL")
        os.kill(os.getpid(), signal.SIGKILL)
    if FAULT == "memory":
        limit = 512 * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        say("address space limited to 512 MiB, allocating 1 GiB")
        buffer = bytearray(1024 * 1024 * 1024)
        say(f"allocated {len(buffer)} bytes")


main()
