"""Database URLs and stores a user gets wrong, or cannot write: one line each, no secret in it,
nothing stored where it would be lost (review of the results commands with hostile input)."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from helpers import job, run_cli, vllm_output, write_job

ROOT = Path(__file__).resolve().parents[2]


def _ingest(capsys, url: str, folder: Path) -> tuple[int, str, str]:
    write_job(folder, "res", vllm_output(), job())
    return run_cli(capsys, "results", "ingest", "--db", url, str(folder))


@pytest.mark.parametrize("url", ["sqlite:///", "sqlite://", "sqlite:///:memory:"])
def test_an_in_memory_sqlite_url_is_refused_not_ingested_into_and_lost(tmp_path, capsys, url):
    """`--db "sqlite:///$DB"` with DB unset stored into memory, said "ingested 1 results" and exit 0;
    `show` on it read an empty store."""
    rc, out, err = _ingest(capsys, url, tmp_path / "run")
    (line,) = err.strip().splitlines()
    assert rc == 1 and "ingested" not in out and "in-memory store keeps nothing" in line, (out, err)
    rc, out, err = run_cli(capsys, "results", "show", "--db", url)
    assert rc == 1 and out == "" and "in-memory" in err


def test_a_sqlite_url_with_two_slashes_says_where_the_file_goes(tmp_path, capsys):
    rc, _, err = _ingest(capsys, "sqlite://x.db", tmp_path / "run")
    (line,) = err.strip().splitlines()  # SQLAlchemy's own message is five lines
    assert rc == 1 and "'x.db' is read as a host" in line and "sqlite:///x.db" in line


@pytest.mark.parametrize("url,secret", [
    ("postgresql+psycopg://user:p@ss:w0rdSECRET@127.0.0.1/db", "SECRET"),  # was a ValueError quoting it
    ("postgresql+psycopg://u:pa@ss@127.0.0.1:1/db", "ss@"),  # was shown as u:***@ss@127.0.0.1
])
def test_a_password_with_an_unescaped_at_sign_never_reaches_the_log(tmp_path, capsys, monkeypatch, url, secret):
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    for argv in (("results", "show", "--db", url), ("results", "compare", "--run", "1", "--db", url)):
        rc, out, err = run_cli(capsys, *argv)
        assert rc == 1 and secret not in err + out and "internal error" not in err, err
        assert "percent-encode" in err.splitlines()[0]
        # the annotation names no file: a URL is not a path in the workspace
        (annotation,) = [x for x in err.splitlines() if x.startswith("::error")]
        assert "file=" not in annotation and secret not in annotation


def test_a_store_of_a_newer_schema_is_refused_in_one_line_and_left_alone(tmp_path, capsys):
    url = f"sqlite:///{tmp_path / 'r.db'}"
    assert _ingest(capsys, url, tmp_path / "run")[0] == 0
    with sqlite3.connect(tmp_path / "r.db") as conn:
        conn.execute("UPDATE alembic_version SET version_num = '0099_future'")
    before = (tmp_path / "r.db").read_bytes()
    for argv in (("results", "show"), ("results", "compare", "--run", "1001"), ("results", "ingest")):
        rc, _, err = run_cli(capsys, *argv, "--db", url, *([str(tmp_path / "run")] if argv[1] == "ingest" else []))
        (line,) = err.strip().splitlines()
        assert rc == 1 and "schema (revision 0099_future) is newer than this sweepgate's" in line, err
    assert (tmp_path / "r.db").read_bytes() == before


def _as_nobody(argv: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {"PATH": os.environ["PATH"], "PYTHONPATH": str(ROOT / "utils"), "HOME": str(cwd), "NO_COLOR": "1"}
    return subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                           sys.executable, "-m", "sweepgate", *argv], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)


needs_nobody = pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv"),
                                  reason="permissions are tested as nobody, which needs root and setpriv")


@needs_nobody
def test_a_store_the_reader_cannot_write_is_read(tmp_path, capsys):
    """A read-only mount or a copy owned by another user: show and compare said "attempt to write a
    readonly database" (WAL needs its -shm file beside the store)."""
    shared = Path(tempfile.mkdtemp(prefix="sweepgate-ro-"))  # pytest's tmp_path is closed to others
    try:
        url = f"sqlite:///{shared / 'r.db'}"
        assert _ingest(capsys, url, tmp_path / "run")[0] == 0
        (shared / "r.db").chmod(0o444)
        shared.chmod(0o555)
        shown = _as_nobody(["results", "show", "--db", url, "--json"], shared)
        assert shown.returncode == 0 and '"run-id": "1001"' in shown.stdout, shown.stderr
        compared = _as_nobody(["results", "compare", "--db", url, "--run", "1001"], shared)
        assert compared.returncode == 0, compared.stderr
        assert sorted(p.name for p in shared.iterdir()) == ["r.db"]
    finally:
        shared.chmod(0o755)
        shutil.rmtree(shared)


@needs_nobody
def test_the_default_store_in_a_checkout_the_user_cannot_write_is_one_line(tmp_path):
    checkout = Path(tempfile.mkdtemp(prefix="sweepgate-checkout-"))
    try:
        subprocess.run(["git", "init", "-q", str(checkout)], check=True)
        write_job(checkout / "run", "res", vllm_output(), job())
        checkout.chmod(0o555)
        proc = _as_nobody(["results", "ingest", "run"], checkout)
        (line,) = proc.stderr.strip().splitlines()
        assert proc.returncode == 1 and "internal error" not in line, proc.stderr
        assert line.startswith(f"{checkout}/.sweepgate: cannot create the results store's folder: Permission denied")
    finally:
        checkout.chmod(0o755)
        shutil.rmtree(checkout)
