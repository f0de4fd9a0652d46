"""Rank script of the safety checks (molecule/launch/tasks/safety.yml): records what it received.

    echo_rank.py --token-sha256=HEX [--tls-sha256=HEX,HEX] [--mindspore] [ANY ARGS...]

Writes $CS_LOG_DIR/echo_<rank>.json (rank: CS_RANK, "scheduler" for the dynamic cluster's
scheduler) with its arguments and every SAFETY_* environment variable as base64 of their raw
bytes, so the controller compares them byte for byte with the job description. Checks that the
secret job_env value MY_API_TOKEN (and, with --tls-sha256, the TLS passwords of
CS_TLS_CLIENT_PASSWORD / CS_TLS_SERVER_PASSWORD and the config at CS_TLS_CONFIG) arrived, by
sha256 only: no secret is written or printed. Exits 1 when one did not. With --mindspore it then
joins the MindSpore cluster and prints the AllGather of the ranks.
"""
import base64
import hashlib
import json
import os
import sys


def b64(raw):
    return base64.b64encode(raw).decode("ascii")


def sha256(name):
    return hashlib.sha256(os.environb.get(name.encode(), b"")).hexdigest()


def option(prefix):
    return next((arg[len(prefix):] for arg in sys.argv[1:] if arg.startswith(prefix)), None)


def main():
    rank = os.environ.get("CS_RANK", "unknown")
    checks = {"token": sha256("MY_API_TOKEN") == option("--token-sha256=")}
    tls = option("--tls-sha256=")
    if tls is not None:
        client, _, server = tls.partition(",")
        config = os.environ.get("CS_TLS_CONFIG", "")
        checks["tls_client_password"] = sha256("CS_TLS_CLIENT_PASSWORD") == client
        checks["tls_server_password"] = sha256("CS_TLS_SERVER_PASSWORD") == server
        checks["tls_config"] = bool(config) and os.path.isfile(config)
    record = {
        "rank": rank,
        "argv_b64": [b64(os.fsencode(arg)) for arg in sys.argv[1:]],
        "env_b64": {name.decode(): b64(value) for name, value in sorted(os.environb.items())
                    if name.startswith(b"SAFETY_")},
        "checks": checks,
    }
    path = os.path.join(os.environ["CS_LOG_DIR"], "echo_%s.json" % rank)
    with open(path, "w", encoding="ascii") as handle:
        json.dump(record, handle, sort_keys=True)
        handle.write("\n")
    print("rank %s: %s" % (rank, ", ".join("%s %s" % (k, "ok" if v else "WRONG") for k, v in sorted(checks.items()))),
          flush=True)
    if not all(checks.values()):
        return 1
    if "--mindspore" in sys.argv[1:]:
        import numpy as np
        import mindspore as ms
        from mindspore import Tensor, ops
        from mindspore.communication import get_rank, init

        ms.set_context(device_target="CPU")
        init()
        gathered = ops.AllGather()(Tensor(np.array([float(get_rank())], dtype=np.float32))).asnumpy()
        print("rank %s: allgather: %s" % (rank, [int(v) for v in gathered]), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
