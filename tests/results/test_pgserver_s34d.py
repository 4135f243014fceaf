"""The throwaway PostgreSQL server of the tests (pgserver.py) does not outlive the process that started
it: a pytest killed by SIGKILL (or a closed session) skips every teardown, and left a `postgres` server
and its /tmp/sweepgate-pg-* folder behind for good."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import pgserver

HERE = Path(__file__).resolve().parent

PARENT = textwrap.dedent("""\
    import sys, time
    sys.path.insert(0, sys.argv[1])
    import pgserver
    with pgserver.server(pgserver.bindir()) as url:
        print(url, flush=True)
        time.sleep(600)
""")


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def _postmaster(url: str) -> tuple[int, Path]:
    """The server's postmaster PID and its folder (the data directory's parent: sweepgate-pg-*)."""
    import psycopg

    with psycopg.connect(url.replace("+psycopg", ""), connect_timeout=30) as conn:
        data = Path(conn.execute("SHOW data_directory").fetchone()[0])
    return int((data / "postmaster.pid").read_text().split()[0]), data.parent


def test_a_server_whose_starter_is_killed_is_stopped_and_its_folder_removed(tmp_path):
    binaries = pgserver.bindir()
    if binaries is None:
        if os.environ.get("SWEEPGATE_REQUIRE_PG"):
            pytest.fail("no PostgreSQL binaries")
        pytest.skip("no PostgreSQL binaries")
    parent = subprocess.Popen([sys.executable, "-c", PARENT, str(HERE)], stdout=subprocess.PIPE, text=True)
    pid, folder = None, None
    try:
        url = parent.stdout.readline().strip()
        assert url.startswith("postgresql+psycopg://"), url
        pid, folder = _postmaster(url)
        assert _alive(pid) and folder.name.startswith("sweepgate-pg-")
        parent.kill()  # SIGKILL: no teardown of the starter runs
        parent.wait()
        deadline = time.monotonic() + 60  # a hang guard; the stop takes well under a second
        while (_alive(pid) or folder.exists()) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(pid), f"the server (PID {pid}) outlived the process that started it"
        assert not folder.exists(), f"{folder} was left behind"
    finally:
        parent.kill()
        parent.wait()
        if pid is not None and _alive(pid):
            os.kill(pid, signal.SIGQUIT)  # PostgreSQL's immediate shutdown
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
