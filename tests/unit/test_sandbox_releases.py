"""SANDBOX_RELEASES in sandbox/lib.sh: which Debian release each node runs and which image it
comes from. lib.sh is sourced by bash with a made-up environment; nothing is built or run."""

import os
import subprocess
from pathlib import Path

import pytest

LIB = Path(__file__).resolve().parents[2] / "sandbox" / "lib.sh"


def bash(script, **env):
    environment = {key: value for key, value in os.environ.items()
                   if not key.startswith("SANDBOX_")}
    environment.update(env)
    return subprocess.run(["bash", "-c", f'source "{LIB}"; {script}'], env=environment,
                          capture_output=True, text=True, check=False)


def test_nodes_take_the_releases_in_turn():
    run = bash("for i in 1 2 3 4 5 6 7; do node_release $i; done",
               SANDBOX_RELEASES="bullseye,bookworm,trixie")
    assert run.stdout.split() == ["bullseye", "bookworm", "trixie"] * 2 + ["bullseye"]


def test_default_is_bookworm_everywhere():
    run = bash("sandbox_releases; node_release 1; node_release 5")
    assert run.stdout.split() == ["bookworm"] * 3


def test_each_release_is_built_once():
    run = bash("sandbox_releases", SANDBOX_RELEASES="trixie,bookworm,trixie")
    assert run.stdout.split() == ["trixie", "bookworm"]


@pytest.mark.parametrize("flavour, release, name", [
    ("sshd", "bookworm", "localhost/cluster-suite-node:"),
    ("sshd", "bullseye", "localhost/cluster-suite-node-bullseye:"),
    ("systemd", "bookworm", "localhost/cluster-suite-node-systemd:"),
    ("systemd", "trixie", "localhost/cluster-suite-node-trixie-systemd:"),
])
def test_image_names(flavour, release, name):
    run = bash(f"sandbox_image_ref {release}", SANDBOX_FLAVOUR=flavour)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith(name)
    assert len(run.stdout.strip()) == len(name) + 12


def test_a_release_without_recipe_is_refused():
    run = bash("echo reached", SANDBOX_RELEASES="bookworm,jessie")
    assert run.returncode == 1
    assert "jessie" in run.stderr
    assert "reached" not in run.stdout
    assert bash("echo reached", SANDBOX_RELEASES=",").returncode == 1
