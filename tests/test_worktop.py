"""worktop.stored_bytes: a checkout's file read as git stores it, on the GPU host over a tree a
benchmark container could write."""

from __future__ import annotations

import os
import sys

from conftest import ROOT

sys.path.insert(0, str(ROOT / "utils"))

from sweepgate.core.worktop import stored_bytes  # noqa: E402


def test_a_file_is_its_bytes_a_link_its_target_s_name_and_a_linked_folder_nothing(tmp_path):
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs/runners.yaml").write_bytes(b"labels: {}\n")
    (tmp_path / "configs/lib.sh").symlink_to("/etc/hostname")
    (tmp_path / "linked").symlink_to(tmp_path / "configs")
    assert stored_bytes(str(tmp_path), "configs/runners.yaml") == b"labels: {}\n"
    assert stored_bytes(str(tmp_path), "configs/lib.sh") == b"/etc/hostname"
    assert stored_bytes(str(tmp_path), "linked/runners.yaml") is None
    assert stored_bytes(str(tmp_path), "configs/missing.yaml") is None
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git/config").write_bytes(b"[http]\n")
    (tmp_path / "configs/.GIT").mkdir()
    (tmp_path / "configs/.GIT/x").write_bytes(b"x\n")
    assert stored_bytes(str(tmp_path), ".git/config") is None  # no commit holds a file under .git (any case)
    assert stored_bytes(str(tmp_path), "configs/.GIT/x") is None


def test_what_is_no_file_or_link_is_never_opened(tmp_path, monkeypatch):
    """Diff review of 01e0f47: a FIFO (or a device node: a benchmark container can make one in the
    workspace) was opened on the host, O_NONBLOCK, and only then found to be no regular file; opening
    one wakes a writer waiting on it, or starts what the device does on open. git holds neither."""
    os.mkfifo(tmp_path / "benchmark_lib.sh")
    opened = []
    real_open = os.open
    monkeypatch.setattr(os, "open", lambda path, *a, **k: opened.append(str(path)) or real_open(path, *a, **k))
    assert stored_bytes(str(tmp_path), "benchmark_lib.sh") is None
    assert opened == []
