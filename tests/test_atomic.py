"""Atomic writes: a file that cannot be replaced is one line naming it, and is left as it was."""

from __future__ import annotations

import os
from pathlib import Path
import subprocess
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "utils"))

from sweepgate.core.atomic import atomic_write  # noqa: E402
from sweepgate.core.errors import SweepgateError  # noqa: E402


def test_a_replace_the_system_refuses_is_one_line_and_the_file_is_as_it_was(tmp_path, monkeypatch):
    """Bad-input review: `changelog add` on an immutable perf-changelog.yaml ended in "internal error:
    PermissionError: [Errno 1] Operation not permitted: '.perf-changelog.yaml.t54txrf6.tmp' -> ..."."""
    target = tmp_path / "perf-changelog.yaml"
    target.write_text("old\n")

    def refused(src, dst):
        raise PermissionError(1, os.strerror(1), src, None, dst)

    monkeypatch.setattr(os, "replace", refused)
    with pytest.raises(SweepgateError) as info:
        atomic_write(target, b"new\n")
    (d,) = info.value.diagnostics
    assert d.render() == (f"{target}: cannot write it: Operation not permitted; make the file and its folder "
                          "writable (and the disk not full), then rerun; the file is as it was")
    assert target.read_text() == "old\n" and [p.name for p in tmp_path.iterdir()] == ["perf-changelog.yaml"]


def test_changelog_add_on_an_immutable_changelog(tmp_path):
    """The same through the command, where the file system can make a file immutable (chattr +i)."""
    from sweepgate.commands.example import SEED_KEY, build_repo

    repo = tmp_path / "repo"
    repo.mkdir()
    build_repo(str(repo))
    changelog = repo / "perf-changelog.yaml"
    if subprocess.run(["chattr", "+i", str(changelog)], capture_output=True).returncode != 0:
        pytest.skip("chattr +i is not available on this file system")
    try:
        before = changelog.read_bytes()
        proc = subprocess.run([sys.executable, "-m", "sweepgate", "changelog", "add", "--key", SEED_KEY,
                               "--description", "retune"], cwd=repo, capture_output=True, text=True,
                              env={**os.environ, "PYTHONPATH": str(ROOT / "utils")})
        assert proc.returncode == 1 and "internal error" not in proc.stderr, proc.stderr
        assert "perf-changelog.yaml: cannot write it: Operation not permitted" in proc.stderr, proc.stderr
        assert changelog.read_bytes() == before
    finally:
        subprocess.run(["chattr", "-i", str(changelog)], capture_output=True)


def test_a_device_a_pipe_or_a_symlink_is_written_never_replaced(tmp_path):
    """A check of the compare command's failed writes found `--comment-file /dev/full` had, as root,
    replaced the device node /dev/full with a regular file (a rename onto it); `/dev/stdout` would go
    the same way. Such a path is now written through; a symlink keeps pointing at its file."""
    import stat

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    atomic_write(fifo, b"through the pipe\n")
    assert os.read(reader, 100) == b"through the pipe\n"
    os.close(reader)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    target = tmp_path / "real.md"
    target.write_text("old\n")
    link = tmp_path / "link.md"
    link.symlink_to(target)
    atomic_write(link, b"new\n")
    assert link.is_symlink() and target.read_text() == "new\n"
    if Path("/dev/full").exists():
        with pytest.raises(SweepgateError) as exc:
            atomic_write(Path("/dev/full"), b"x")
        assert "No space left on device" in exc.value.diagnostics[0].render()
        assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


def test_a_replaced_link_lends_the_new_file_none_of_its_target_s_bits(tmp_path):
    """Diff review of f0bf232: with through=False the link at the path is replaced, never followed, yet
    the new file took the permission bits of the file the link points at (stat follows links): a
    container's link to a world-writable or set-id host file made the sidecar world-writable or set-id."""
    host = tmp_path / "host-file"
    host.write_text("the host's\n")
    host.chmod(0o4777)
    side = tmp_path / "res.job.json"
    side.symlink_to(host)
    atomic_write(side, b"{}\n", through=False)
    assert not side.is_symlink() and side.read_bytes() == b"{}\n" and host.read_text() == "the host's\n"
    assert side.stat().st_mode & 0o7777 == 0o644
    kept = tmp_path / "kept"
    kept.write_text("old\n")
    kept.chmod(0o600)
    atomic_write(kept, b"new\n", through=False)
    assert kept.stat().st_mode & 0o7777 == 0o600


def test_an_interrupt_the_moment_the_temporary_file_exists_leaves_nothing(tmp_path, monkeypatch):
    """Security review: atomic_write made its temporary file before the block that removes it on a failure,
    so a Ctrl-C between the two left an empty `.NAME.XXXXXXXX.tmp` (as results.charts._save once did). A
    KeyboardInterrupt at the first line that runs once mkstemp has returned and a Ctrl-C can raise again (the
    hold it is made under, ``core.signals.Held``, is over: within it a Ctrl-C is only noted, s45a) stands in for
    that signal."""
    import signal
    import tempfile

    from sweepgate.core import atomic
    from sweepgate.core.signals import Held

    real, made = tempfile.mkstemp, []

    def mkstemp(*args, **kwargs):
        answer = real(*args, **kwargs)
        made.append(answer[1])
        return answer

    def tracer(frame, event, arg):
        holding = isinstance(getattr(signal.getsignal(signal.SIGINT), "__self__", None), Held)
        if made and event == "line" and frame.f_code is not mkstemp.__code__ and not holding:  # back in its caller
            sys.settrace(None)
            raise KeyboardInterrupt
        return tracer

    monkeypatch.setattr(atomic.tempfile, "mkstemp", mkstemp)
    (tmp_path / "f").write_bytes(b"old")
    sys.settrace(tracer)
    try:
        with pytest.raises(KeyboardInterrupt):
            atomic_write(tmp_path / "f", b"new")
    finally:
        sys.settrace(None)
    assert made and sorted(p.name for p in tmp_path.iterdir()) == ["f"] and (tmp_path / "f").read_bytes() == b"old"
