"""forget_ledger in sandbox/lib.sh, which `sandbox/sandbox down` calls: the node ledger of the
sandbox's inventory (the file and the directory it is in, each a ledger of its own) goes with its
lock; other inventories' ledgers stay. lib.sh is sourced by bash; nothing is built or run."""

import os
import shlex
import subprocess
from pathlib import Path

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.fleet import ledger as node_ledger

ROOT = Path(__file__).resolve().parents[2]
LIB = ROOT / "sandbox" / "lib.sh"


def forget(state_home, inventory):
    environment = {key: value for key, value in os.environ.items() if not key.startswith("SANDBOX_")}
    environment["XDG_STATE_HOME"] = str(state_home)
    run = subprocess.run(["bash", "-c", f'source "{LIB}"; forget_ledger {shlex.quote(str(inventory))}'],
                         env=environment, capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    return run


def test_the_ledger_of_the_inventory_and_its_lock_are_forgotten(tmp_path):
    ledger_dir = tmp_path / "state" / "cluster-suite" / "ledger"
    inventory = tmp_path / "sandbox" / "state" / "molecule-cluster" / "hosts.yml"
    other = tmp_path / "inventory" / "prod" / "hosts.yml"
    kept = []
    for source in (inventory, inventory.parent, other):
        path = node_ledger.ledger_path(str(ledger_dir), str(source))
        with node_ledger.locked(path):
            node_ledger.write(path, node_ledger.empty(str(source)))
        kept.append(path)
    forget(tmp_path / "state", inventory)
    for path in kept[:2]:
        assert not os.path.exists(path) and not os.path.exists(path + ".lock")
    assert os.path.exists(kept[2]) and os.path.exists(kept[2] + ".lock")


def test_no_ledger_directory_is_nothing_to_forget(tmp_path):
    forget(tmp_path / "none", tmp_path / "hosts.yml")
    assert not (tmp_path / "none").exists()


def test_sandbox_down_forgets_the_ledger_of_its_inventory():
    script = (ROOT / "sandbox" / "sandbox").read_text()
    down = script[script.index("cmd_down() {"):script.index("cmd_status() {")]
    assert 'forget_ledger "$inventory"' in down
