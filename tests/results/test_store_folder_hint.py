"""The fix a missing SQLite store folder is given (`--db sqlite:///DIR/r.db`, DIR not there): "create
the folder" only where it can be made. On a read-only location, or under a file, it cannot: such a
--db is told to name a folder this user can write."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

import pytest

from helpers import ROOT, job, run_cli, vllm_output, write_job


def _refusal(capsys, db: Path, jobs: Path) -> str:
    write_job(jobs, "good", vllm_output(), job())
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{db}", str(jobs))
    (line,) = err.strip().splitlines()
    assert rc == 1 and out == "", (out, err)
    return line


def test_a_missing_folder_that_can_be_made_is_to_be_created(tmp_path, capsys):
    folder = tmp_path / "stores" / "team"
    line = _refusal(capsys, folder / "r.db", tmp_path / "jobs")
    assert line == (f"{folder / 'r.db'}: the store's folder {folder} does not exist; create it (mkdir -p {folder}), "
                    "or pass a --db URL in an existing folder"), line
    assert not (tmp_path / "stores").exists()  # the probe leaves nothing


def test_a_missing_folder_under_a_file_cannot_be_created(tmp_path, capsys):
    """ENOTDIR: the path runs through a regular file, so no mkdir can help."""
    (tmp_path / "afile").write_text("")
    folder = tmp_path / "afile" / "sub"
    line = _refusal(capsys, folder / "r.db", tmp_path / "jobs")
    assert line == (f"{folder / 'r.db'}: the store's folder {folder} does not exist and cannot be created under "
                    f"{tmp_path / 'afile'}, a file; pass a --db URL in a folder you can write"), line


def test_a_folder_that_is_a_file_is_not_to_be_created(tmp_path, capsys):
    (tmp_path / "afile").write_text("")
    line = _refusal(capsys, tmp_path / "afile" / "r.db", tmp_path / "jobs")
    assert line.endswith("is a file, not a folder; pass a --db URL in a folder (or move that file away)"), line


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs /proc")
def test_a_missing_folder_on_a_location_no_one_may_write_is_not_to_be_created(tmp_path, capsys):
    """/proc takes no new folder even from root: "create the folder" could not help there."""
    folder = Path("/proc") / f"sweepgate-{uuid.uuid4().hex}"
    line = _refusal(capsys, folder / "r.db", tmp_path / "jobs")
    assert line == (f"{folder / 'r.db'}: the store's folder {folder} does not exist and cannot be created in /proc "
                    "(it takes no new folders); pass a --db URL in a folder you can write"), line


def test_a_missing_folder_in_a_read_only_folder_is_not_to_be_created(tmp_path, capsys):
    """A chmod 0555 folder: as root (whom permission bits do not stop) the command runs as nobody."""
    shared = Path(tempfile.mkdtemp(prefix="sweepgate-ro-"))  # pytest's tmp_path is closed to others
    try:
        shared.chmod(0o555)
        folder = shared / "sub"
        argv = ["results", "ingest", "--db", f"sqlite:///{folder / 'r.db'}", str(shared)]
        if os.geteuid() == 0:
            if not shutil.which("setpriv"):
                pytest.skip("root needs setpriv to run as a user the folder's mode stops")
            proc = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable,
                                   "-m", "sweepgate", *argv], cwd=shared, capture_output=True, text=True, timeout=120,
                                  env={"PATH": os.environ["PATH"], "PYTHONPATH": str(ROOT / "utils"), "HOME": "/"})
            rc, err = proc.returncode, proc.stderr
        else:
            rc, _, err = run_cli(capsys, *argv)
        (line,) = err.strip().splitlines()
        assert rc == 1 and line == (f"{folder / 'r.db'}: the store's folder {folder} does not exist and cannot be "
                                    f"created in {shared} (Permission denied); pass a --db URL in a folder you can "
                                    "write"), err
        assert list(shared.iterdir()) == []
    finally:
        shared.chmod(0o755)
        shutil.rmtree(shared)
