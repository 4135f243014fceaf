"""Opening a SQLite store (store20): each failure said by what it is, in one line, nothing left behind:
a PostgreSQL dump or a folder given as --db, a store file another user owns, a reader on a full disk."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

import pgserver
from helpers import ROOT, job, run_cli, tmpfs, vllm_output, write_job


def _jobs(folder: Path, n: int = 1, run: str = "1") -> str:
    for i in range(n):
        write_job(folder, f"job{i}", vllm_output(4 * (i + 1)),
                  job(run_id=run, row=dict(job()["row"], conc=4 * (i + 1), **{"exp-name": f"e{i}"})))
    return str(folder)


READERS = (("show",), ("compare", "--run", "1"))


def _one_line(capsys, *argv) -> str:
    rc, _, err = run_cli(capsys, *argv)
    assert rc == 1 and "Traceback" not in err, err
    (line,) = err.strip().splitlines()
    return line


def test_a_postgresql_sql_dump_given_as_the_store_says_what_it_is_and_how_to_load_it(tmp_path, capsys):
    """It was "is not a SQLite database": true, and no help to whoever meant the database it dumps."""
    dump = tmp_path / "results.sql"
    dump.write_text("--\n-- PostgreSQL database dump\n--\n\n-- Dumped from database version 15.8\n\n"
                    "SET statement_timeout = 0;\nCREATE TABLE public.results (id integer NOT NULL);\n")
    before = dump.read_bytes()
    for url in (f"sqlite:///{dump}", f"sqlite:///file:{dump}?uri=true"):
        for argv in (("ingest", _jobs(tmp_path / "a")), *READERS):
            line = _one_line(capsys, "results", argv[0], "--db", url, *argv[1:])
            assert f"{dump}: is a PostgreSQL SQL dump, not a SQLite database; load it into a PostgreSQL database " \
                   f"(psql -d DB -f FILE) and pass --db postgresql://USER@HOST/DB" in line, line
    assert dump.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["a", "results.sql"]


def test_a_postgresql_archive_given_as_the_store_says_what_it_is(pg_url, tmp_path, capsys):
    """A real `pg_dump -Fc` of a store."""
    binaries = pgserver.bindir()
    assert run_cli(capsys, "results", "ingest", "--db", pg_url, _jobs(tmp_path / "a"))[0] == 0
    dump = tmp_path / "results.dump"
    import sqlalchemy as sa

    conninfo = sa.engine.make_url(pg_url).set(drivername="postgresql").render_as_string(hide_password=False)
    subprocess.run([str(binaries / "pg_dump") if binaries else "pg_dump", "-Fc", "-f", str(dump), conninfo],
                   check=True, capture_output=True)
    for argv in (("ingest", str(tmp_path / "a")), *READERS):
        line = _one_line(capsys, "results", argv[0], "--db", f"sqlite:///{dump}", *argv[1:])
        assert f"{dump}: is a PostgreSQL archive (pg_dump -Fc), not a SQLite database; load it into a PostgreSQL " \
               "database (pg_restore -d DB FILE)" in line, line


def test_a_folder_given_to_a_reader_is_said_to_be_a_folder(tmp_path, capsys):
    """`show --db sqlite:///FOLDER` said "no results store here", and through a file: URI that the
    folder around it "cannot be written; nothing was stored"."""
    folder = tmp_path / "results.db"
    folder.mkdir()
    for url in (f"sqlite:///{folder}", f"sqlite:///file:{folder}?uri=true"):
        for argv in READERS:
            line = _one_line(capsys, "results", argv[0], "--db", url, *argv[1:])
            assert line.endswith(f"{folder}: is a folder, not a SQLite database file; "
                                 "pass --db sqlite:///FOLDER/results.db"), line
    assert list(folder.iterdir()) == [] and sorted(p.name for p in tmp_path.iterdir()) == ["results.db"]


def _as(uid: int, argv: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", sys.executable, "-m",
                           "sweepgate", *argv], cwd=cwd, capture_output=True, text=True, timeout=120,
                          env={"PATH": os.environ["PATH"], "PYTHONPATH": str(ROOT / "utils"), "HOME": "/"})


@contextlib.contextmanager
def _shared_folder():
    """A folder every user may write (sticky, as /tmp): pytest's tmp_path is closed to others."""
    if os.geteuid() != 0 or not Path("/usr/bin/setpriv").exists():
        pytest.skip("needs root and setpriv")
    shared = Path(f"/tmp/sweepgate-shared-{os.getpid()}")
    shared.mkdir(mode=0o1777)
    shared.chmod(0o1777)
    try:
        yield shared
    finally:
        subprocess.run(["rm", "-rf", str(shared)], check=True)


def test_a_store_another_user_owns_is_refused_at_once_and_left_as_it_was(capsys):
    """Its file read-only for this user in a folder it may write: SQLite opened it read-only, left
    this user's -wal/-shm beside it, and failed at the first write with "attempt to write a readonly
    database; check that the database exists and is writable"."""
    with _shared_folder() as shared:
        jobs = _jobs(shared / "jobs", 2)
        subprocess.run(["chmod", "-R", "a+rX", str(shared / "jobs")], check=True)
        url = f"sqlite:///{shared / 'r.db'}"
        assert _as(1001, ["results", "ingest", "--db", url, jobs], shared).returncode == 0
        proc = _as(1002, ["results", "ingest", "--db", url, jobs], shared)
        (line,) = proc.stderr.strip().splitlines()
        assert proc.returncode == 1 and line.startswith(
            f"{shared / 'r.db'}: the store file is read-only for this user (mode 644, owned by uid 1001); nothing "
            "was stored; make it writable for this user"), line
        assert sorted(p.name for p in shared.iterdir()) == ["jobs", "r.db"]


def test_a_reader_of_a_store_another_user_owns_leaves_nothing_its_owner_cannot_write(capsys):
    """`results show` by another user left its own -wal/-shm files beside the store (mode 644): its
    owner's next ingest then failed ("attempt to write a readonly database")."""
    with _shared_folder() as shared:
        jobs = _jobs(shared / "jobs", 1)
        more = _jobs(shared / "more", 1, run="2")
        subprocess.run(["chmod", "-R", "a+rX", str(shared / "jobs"), str(shared / "more")], check=True)
        url = f"sqlite:///{shared / 'r.db'}"
        assert _as(1001, ["results", "ingest", "--db", url, jobs], shared).returncode == 0
        proc = _as(1002, ["results", "show", "--db", url], shared)
        assert proc.returncode == 0 and "1 point" in proc.stdout, proc.stderr
        assert sorted(p.name for p in shared.iterdir()) == ["jobs", "more", "r.db"]
        proc = _as(1001, ["results", "ingest", "--db", url, more], shared)
        assert proc.returncode == 0 and "(1 new)" in proc.stdout, proc.stderr


def test_a_reader_of_a_store_on_a_full_disk_is_told_why_reading_needs_room(tmp_path, capsys):
    """show/compare on a full disk said "the write failed and nothing of it was stored": they store
    nothing; they need room for the store's -shm/-wal files."""
    with tmpfs(tmp_path / "disk", "size=4m") as disk:
        url = f"sqlite:///{disk / 'r.db'}"
        assert run_cli(capsys, "results", "ingest", "--db", url, _jobs(tmp_path / "a", 2))[0] == 0
        with open(disk / "filler", "wb") as filler:
            filler.write(b"\0" * (os.statvfs(disk).f_bavail * os.statvfs(disk).f_frsize))
        for argv in READERS:
            line = _one_line(capsys, "results", argv[0], "--db", url, *argv[1:])
            assert f"the disk holding {disk} is full: reading the store needs room for its -shm and -wal files " \
                   "beside it; nothing was changed; free space on that disk" in line, line
            assert "stored" not in line
        (disk / "filler").unlink()
        rc, out, err = run_cli(capsys, "results", "show", "--db", url)
        assert rc == 0 and "2 points" in out, err


def test_a_reader_of_a_store_another_user_owns_sees_the_results_still_in_its_wal(capsys):
    """While another process had the store open (an ingest, a sqlite3 shell), its newest results were
    in its WAL only: another user's `results show --run` read the file as unchanging and said the run
    "has no results"."""
    with _shared_folder() as shared:
        jobs, more = _jobs(shared / "jobs", 1), _jobs(shared / "more", 1, run="2")
        subprocess.run(["chmod", "-R", "a+rX", jobs, more], check=True)
        url = f"sqlite:///{shared / 'r.db'}"
        assert _as(1001, ["results", "ingest", "--db", url, jobs], shared).returncode == 0
        holder = sqlite3.connect(shared / "r.db")  # keeps the WAL: the ingest's close is not the last
        try:
            holder.execute("SELECT count(*) FROM results").fetchone()
            assert _as(1001, ["results", "ingest", "--db", url, more], shared).returncode == 0
            assert (shared / "r.db-wal").stat().st_size > 0
            proc = _as(1002, ["results", "show", "--db", url, "--run", "2"], shared)
            assert proc.returncode == 0 and "run 2: 1 point" in proc.stdout, proc.stdout + proc.stderr
        finally:
            holder.close()
        assert sorted(p.name for p in shared.iterdir()) == ["jobs", "more", "r.db"]
