"""settings_changes in sandbox/lib.sh: whether `sandbox/sandbox up` keeps a node or makes it anew,
from the settings the node was made with (its labels and image) and those asked for. lib.sh is
sourced by bash with a made-up environment; nothing is built or run."""

import os
import shlex
import subprocess
from pathlib import Path

import pytest

LIB = Path(__file__).resolve().parents[2] / "sandbox" / "lib.sh"

ASKED = {"release": "bookworm", "flavour": "sshd", "image": "0123456789ab", "npu-devices": "8",
         "offline": "0", "ml-volume": "none", "user": "trainer", "login": "trainer"}


def words(settings):
    return " ".join(f"{name}={value}" for name, value in settings.items())


def changes(had, wanted=None):
    environment = {key: value for key, value in os.environ.items()
                   if not key.startswith("SANDBOX_")}
    asked = words(wanted or ASKED)
    script = f'source "{LIB}"; settings_changes {shlex.quote(had)} {shlex.quote(asked)}'
    run = subprocess.run(["bash", "-c", script], env=environment,
                         capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    return run.stdout


def test_a_node_made_as_asked_is_kept():
    assert changes(words(ASKED)) == ""


def test_other_labels_of_the_node_do_not_count():
    assert changes("sandbox=clustersuite " + words(ASKED) + " maintainer=someone") == ""


@pytest.mark.parametrize("name, had, asked", [
    ("ml-volume", "none", "cluster-suite-ml-5f1e2d3c4b5a"),
    ("ml-volume", "cluster-suite-ml-5f1e2d3c4b5a", "cluster-suite-ml-000000000000"),
    ("flavour", "sshd", "systemd"),
    ("login", "trainer", "admin"),
    ("user", "trainer", "student"),
    ("release", "bookworm", "trixie"),
    ("npu-devices", "8", "0"),
    ("offline", "1", "0"),
])
def test_each_setting_that_differs_is_named(name, had, asked):
    result = changes(words({**ASKED, name: had}), {**ASKED, name: asked})
    assert result == f"{name} {had} -> {asked}\n"


def test_the_issue_case_a_site_node_asked_for_with_the_ml_volume():
    made_by_site = {**ASKED, "offline": "1"}
    asked = {**ASKED, "ml-volume": "cluster-suite-ml-5f1e2d3c4b5a"}
    assert changes(words(made_by_site), asked) == \
        "offline 1 -> 0, ml-volume none -> cluster-suite-ml-5f1e2d3c4b5a\n"


def test_the_image_is_named_when_nothing_else_differs():
    result = changes(words({**ASKED, "image": "ba9876543210"}))
    assert result == "image ba9876543210 -> 0123456789ab\n"


def test_a_new_release_is_named_without_its_image():
    had = words({**ASKED, "release": "bullseye", "image": "ba9876543210"})
    assert changes(had) == "release bullseye -> bookworm\n"


def test_a_node_made_before_settings_were_recorded_is_made_anew():
    # Such a node carries the release label at most; its image is always known.
    result = changes("sandbox=clustersuite release=bookworm image=0123456789ab")
    assert result == ("flavour unrecorded -> sshd, npu-devices unrecorded -> 8, "
                      "offline unrecorded -> 0, ml-volume unrecorded -> none, "
                      "user unrecorded -> trainer, login unrecorded -> trainer\n")


def test_an_image_not_pulled_yet_differs():
    asked = {**ASKED, "image": "registry.example/cluster-node:1"}
    assert changes(words(ASKED), asked) == "image 0123456789ab -> registry.example/cluster-node:1\n"
