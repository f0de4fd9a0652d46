# Temporary listener of playbooks/doctor.yml's master port check: python3 -c "<this>" PORT PIDFILE SECONDS.
# Accepts every connection, waits for the peer to close first (so the master port is left
# without a TIME_WAIT socket that would make it look busy), and exits after SECONDS or when killed.
import os
import socket
import sys
import threading
import time

port, pidfile, seconds = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])
server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
server.bind(("0.0.0.0", port))
server.listen(256)
with open(pidfile, "w", encoding="utf-8") as handle:
    handle.write(str(os.getpid()))
server.settimeout(0.5)


def drain(conn):
    conn.settimeout(10)
    try:
        while conn.recv(4096):
            pass
    except OSError:
        pass
    conn.close()


deadline = time.monotonic() + seconds
while time.monotonic() < deadline:
    try:
        conn, _ = server.accept()
    except socket.timeout:
        continue
    threading.Thread(target=drain, args=(conn,), daemon=True).start()
server.close()
