"""Module program_links (plugins/modules/program_links.py), run as Ansible runs it, on real files."""
import os

from module_runner import run_module


def setup_dirs(tmp_path):
    src, dest = tmp_path / "prefix" / "bin", tmp_path / "bin"
    src.mkdir(parents=True)
    dest.mkdir()
    for name in ("mpirun", "orted"):
        (src / name).write_text("#!/bin/sh\n")
    os.symlink("orted", src / "orterun")
    return src, dest


def test_links_are_made_missing_programs_skipped_and_a_second_run_changes_nothing(tmp_path):
    src, dest = setup_dirs(tmp_path)
    args = dict(src_dir=str(src), dest_dir=str(dest), programs=["mpirun", "orterun", "mpicc"])
    planned = run_module("program_links", args, tmp_path / "args.json", check=True)
    assert planned["changed"] and os.listdir(dest) == []
    result = run_module("program_links", args, tmp_path / "args.json")
    assert result["linked"] == [f"{dest}/mpirun -> {src}/mpirun", f"{dest}/orterun -> {src}/orterun"]
    assert result["missing"] == ["mpicc"]
    assert result["diff"]["after"] == f"{dest}/mpirun -> {src}/mpirun\n{dest}/orterun -> {src}/orterun\n"
    assert os.readlink(dest / "mpirun") == f"{src}/mpirun"
    assert sorted(os.listdir(dest)) == ["mpirun", "orterun"]
    assert not run_module("program_links", args, tmp_path / "args.json")["changed"]


def test_a_regular_file_in_the_way_stops_every_change_and_a_link_elsewhere_is_repointed(tmp_path):
    src, dest = setup_dirs(tmp_path)
    os.symlink("/usr/bin/mpirun.openmpi", dest / "mpirun")
    (dest / "orted").write_text("local\n")
    result = run_module("program_links", dict(src_dir=str(src), dest_dir=str(dest), programs=["mpirun", "orted"]),
                        tmp_path / "args.json")
    assert result["failed"]
    assert result["msg"] == f"{dest}/orted: not a link, and never replaced by one; move it away and run again (nothing was changed)"
    assert os.readlink(dest / "mpirun") == "/usr/bin/mpirun.openmpi"
    assert (dest / "orted").read_text() == "local\n"
    os.unlink(dest / "orted")
    result = run_module("program_links", dict(src_dir=str(src), dest_dir=str(dest), programs=["mpirun", "orted"]),
                        tmp_path / "args.json")
    assert result["linked"] == [f"{dest}/mpirun -> {src}/mpirun", f"{dest}/orted -> {src}/orted"]
    assert result["diff"]["before"] == f"{dest}/mpirun -> /usr/bin/mpirun.openmpi\n"
    assert os.readlink(dest / "mpirun") == f"{src}/mpirun"
    assert sorted(os.listdir(dest)) == ["mpirun", "orted"]


def test_a_program_name_with_a_slash_is_refused_before_anything_changes(tmp_path):
    src, dest = setup_dirs(tmp_path)
    result = run_module("program_links", dict(src_dir=str(src), dest_dir=str(dest), programs=["mpirun", "../x"]),
                        tmp_path / "args.json")
    assert result["failed"] and "'../x'" in result["msg"]
    assert os.listdir(dest) == []
