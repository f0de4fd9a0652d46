"""Every rank prints where it runs and with which Python; started by mpirun through cs_rank.py."""
import os
import platform
import socket

print("rank %s of %s on %s: Python %s" % (os.environ["OMPI_COMM_WORLD_RANK"], os.environ["OMPI_COMM_WORLD_SIZE"],
                                          socket.gethostname(), platform.python_version()), flush=True)
