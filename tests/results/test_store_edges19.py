"""The store's rough edges (store19): a folder that cannot be written, a full disk, a new store's
file left by a killed ingest, an unclosed IPv6 bracket, a PostgreSQL server that never answers, and
a store whose version record was lost. Each one line naming what is wrong and what to do."""

from __future__ import annotations

import os
import resource
import shlex
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers import ROOT, job, run_cli, tmpfs, vllm_output, write_job
from sweepgate.results import store
from sweepgate.results import store_schema
from sweepgate.results import store_url


def _jobs(folder: Path, n: int, run: str = "1") -> str:
    for i in range(n):
        conc = (4, 8, 16, 32)[i % 4]
        write_job(folder, f"job{i:03d}", vllm_output(conc, output_throughput=400.0 + i, date=f"20260101-1200{run:0>2}"),
                  job(run_id=run, row=dict(job()["row"], conc=conc, **{"exp-name": f"e{i}"})))
    return str(folder)


def _cli(argv: list[str], cwd: Path, timeout: float = 120, preexec=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sweepgate", *argv], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT / "utils")}, timeout=timeout,
                          preexec_fn=preexec)


def test_an_unclosed_ipv6_bracket_is_named_not_the_port(tmp_path, capsys):
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", "postgresql://u:p@[::1:5432/db", _jobs(tmp_path, 1))
    (line,) = err.strip().splitlines()
    assert rc == 1 and "the host's '[' is not closed" in line and "port" not in line.split(";")[0], err
    assert "[ADDRESS]:PORT" in line and ":p@" not in line


def _stored(url: str) -> int:
    with store.open_store(url, must_exist=True) as st:
        return len(st.records())


def _ingested(stdout: str) -> int:
    """N of the count line, "ingested N results (M new) into ...": what this ingest stored or found;
    0 when stdout is empty: a store that could not be opened at all (a disk full before its first
    write) is its one line on stderr, with no count line (msgs27)."""
    if stdout == "":
        return 0
    return int(stdout.strip().splitlines()[-1].split()[1])


def test_a_store_in_a_folder_no_one_may_write_names_the_folder(tmp_path, capsys):
    """/proc cannot be written even by root: SQLite's "unable to open database file" and "check that
    the database exists" said nothing of the folder."""
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", "sqlite:////proc/sweepgate-results.db",
                           _jobs(tmp_path, 1))
    (line,) = err.strip().splitlines()
    # msgs27: no "ingested 0 results ...; nothing stored" line before it (was expected here): a store
    # that cannot be opened is refused in its one line, as a SQLite file that is no database is
    assert rc == 1 and out == "", (out, err)
    assert "the store's folder /proc cannot be written" in line and "make the folder writable" in line, line
    assert "check that the database exists" not in line


@pytest.mark.skipif(os.geteuid() != 0 or not Path("/usr/bin/setpriv").exists(), reason="needs root and setpriv")
def test_a_store_in_a_folder_this_user_may_not_write_names_the_folder(tmp_path, capsys):
    """A chmod 555 folder, as a user who does not own it: a new store cannot be made there, and an
    existing one (writable itself) cannot take its -wal/-shm files beside it."""
    shared = Path(f"/tmp/sweepgate-ro-{os.getpid()}")  # pytest's tmp_path is closed to others
    shared.mkdir()
    try:
        jobs = _jobs(shared / "jobs", 2)
        assert run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{shared / 'r.db'}", jobs)[0] == 0
        (shared / "r.db").chmod(0o666)
        shared.chmod(0o555)
        for name in ("r.db", "new.db"):
            proc = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable,
                                   "-m", "sweepgate", "results", "ingest", "--db", f"sqlite:///{shared / name}",
                                   jobs], cwd=shared, capture_output=True, text=True, timeout=120,
                                  env={"PATH": os.environ["PATH"], "PYTHONPATH": str(ROOT / "utils"), "HOME": "/"})
            (line,) = proc.stderr.strip().splitlines()
            assert proc.returncode == 1 and f"the store's folder {shared} cannot be written" in line, line
        assert sorted(p.name for p in shared.iterdir()) == ["jobs", "r.db"]
    finally:
        shared.chmod(0o755)
        subprocess.run(["rm", "-rf", str(shared)], check=True)


def _file_size_limit(limit: int):
    def apply():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # past the limit a write fails (EFBIG), as on a full disk
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


def test_a_write_the_disk_refuses_says_so_and_stores_nothing_half(tmp_path, capsys):
    """A file size limit (a write that fails, as on a full disk): "disk I/O error; check that the
    database exists" sent the user looking for a store that was there."""
    url = f"sqlite:///{tmp_path / 'r.db'}"
    assert run_cli(capsys, "results", "ingest", "--db", url, _jobs(tmp_path / "a", 3, "1"))[0] == 0
    limit = (tmp_path / "r.db").stat().st_size + 4096
    proc = _cli(["results", "ingest", "--db", url, _jobs(tmp_path / "b", 40, "2")], tmp_path,
                preexec=_file_size_limit(limit))
    first = proc.stderr.strip().splitlines()[0]
    assert proc.returncode == 1 and f"writing to {tmp_path} failed" in first, proc.stderr
    assert "nothing of that write was stored" in first and "check that the database exists" not in first
    assert _stored(url) == 3 + _ingested(proc.stdout)  # each stored file whole, the one in hand not at all


def test_a_full_disk_says_the_disk_is_full_and_stores_nothing_half(tmp_path, capsys):
    """A real full disk: a small tmpfs (where this user may mount one)."""
    with tmpfs(tmp_path / "disk", "size=4m") as disk:
        url = f"sqlite:///{disk / 'r.db'}"
        assert run_cli(capsys, "results", "ingest", "--db", url, _jobs(tmp_path / "a", 3, "1"))[0] == 0
        with open(disk / "filler", "wb") as filler:  # the disk full but a few pages
            filler.write(b"\0" * (os.statvfs(disk).f_bavail * os.statvfs(disk).f_frsize - 8192))
        proc = _cli(["results", "ingest", "--db", url, _jobs(tmp_path / "b", 40, "2")], tmp_path)
        first = proc.stderr.strip().splitlines()[0]
        assert proc.returncode == 1 and f"the disk holding {disk} is full" in first, proc.stderr
        assert "nothing of it was stored" in first and "check that the database exists" not in first
        (disk / "filler").unlink()  # (a reader, too, needs room for the store's -shm file)
        assert _stored(url) == 3 + _ingested(proc.stdout)
        rc, out, err = run_cli(capsys, "results", "ingest", "--db", url, str(tmp_path / "b"))
        assert rc == 0 and _stored(url) == 43, err


def test_a_new_store_on_a_read_only_file_system_says_the_folder_not_its_part_file(tmp_path, capsys):
    """Removing the new store's part file, never made, said EROFS too, and that hid SQLite's own
    failure: the line named '.r.db.PID.new', a file the user never heard of."""
    with tmpfs(tmp_path / "disk", "ro,size=64k") as disk:
        rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{disk / 'r.db'}", _jobs(tmp_path, 1))
        (line,) = err.strip().splitlines()
        assert rc == 1 and f"the store's folder {disk} cannot be written" in line and ".new" not in line, line


def _lose_version(url: str) -> None:
    import sqlalchemy as sa

    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.exec_driver_sql("DELETE FROM alembic_version")
    engine.dispose()


def test_a_sqlite_store_whose_version_record_was_lost_says_so_and_how_to_repair(tmp_path, capsys):
    """An empty alembic_version beside the store's results table was "another program's database"
    (ingest) and "not a sweepgate results store" (show); the repair the line gives works."""
    url = f"sqlite:///{tmp_path / 'r.db'}"
    jobs = _jobs(tmp_path / "a", 2)
    assert run_cli(capsys, "results", "ingest", "--db", url, jobs)[0] == 0
    _lose_version(url)
    before = (tmp_path / "r.db").read_bytes()
    for argv in (("ingest", jobs), ("show",), ("compare", "--run", "1")):
        rc, _, err = run_cli(capsys, "results", argv[0], "--db", url, *argv[1:])
        (line,) = err.strip().splitlines()
        assert rc == 1 and "the store's version record is missing" in line and "another program" not in line, err
    assert (tmp_path / "r.db").read_bytes() == before
    path, statement = shlex.split(line.split("run sqlite3 ", 1)[1].split(", then")[0])  # the repair it gives
    with sqlite3.connect(path) as conn:
        conn.execute(statement)
    conn.close()
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", url, jobs)
    assert rc == 0 and "(0 new)" in out and _stored(url) == 2, err


def test_a_postgresql_store_whose_version_record_was_lost_says_so(pg_url, tmp_path, capsys):
    jobs = _jobs(tmp_path / "a", 1)
    assert run_cli(capsys, "results", "ingest", "--db", pg_url, jobs)[0] == 0
    _lose_version(pg_url)
    for argv in (("ingest", jobs), ("show",)):
        rc, _, err = run_cli(capsys, "results", argv[0], "--db", pg_url, *argv[1:])
        (line,) = err.strip().splitlines()
        assert rc == 1 and "the store's version record is missing" in line and "another program" not in line, err
        assert f"INSERT INTO alembic_version (version_num) VALUES ('{_head()}') in psql" in line, line


def _head() -> str:
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(store_schema._alembic_config()).get_current_head()


def test_another_program_s_empty_alembic_version_and_results_table_is_still_foreign(tmp_path, capsys):
    """A results table without the store's columns beside an empty alembic_version is not a store."""
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL)")
        conn.execute("CREATE TABLE results (id INTEGER PRIMARY KEY, score REAL)")
    conn.close()
    rc, _, err = run_cli(capsys, "results", "show", "--db", f"sqlite:///{path}")
    assert rc == 1 and "version record" not in err and "not a sweepgate results store" in err, err
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{path}", _jobs(tmp_path / "a", 1))
    assert rc == 1 and "version record" not in err and "another program's database" in err, err


@pytest.fixture
def silent_server():
    """A real socket on 127.0.0.1 that takes connections (the kernel's backlog) and never says a word."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        yield f"127.0.0.1:{listener.getsockname()[1]}"


def test_a_postgresql_server_that_never_answers_is_named_after_the_default_timeout(silent_server, tmp_path):
    """psycopg waited 130 s (a run of such hosts: each) before a line that named no server."""
    started = time.monotonic()
    proc = _cli(["results", "ingest", "--db", f"postgresql://u:p@{silent_server}/db", _jobs(tmp_path, 1)], tmp_path,
                timeout=60)
    (line,) = proc.stderr.strip().splitlines()
    # msgs27: stdout held "ingested 0 results ...; nothing stored" (was expected here): a store that
    # cannot be opened is its one line, nothing on stdout, as a SQLite file that is no database is
    assert proc.returncode == 1 and proc.stdout == "", (proc.stdout, proc.stderr)
    said = f"the PostgreSQL server at {silent_server} did not answer within {store_url.PG_CONNECT_TIMEOUT_S} s"
    assert said in line
    assert "?connect_timeout=SECONDS" in line and ":p@" not in line
    # waited the default, and not psycopg's 130 s (a bound that leaves a busy host 30 s to start a CLI)
    assert store_url.PG_CONNECT_TIMEOUT_S <= time.monotonic() - started < store_url.PG_CONNECT_TIMEOUT_S + 30


def test_a_connect_timeout_the_url_or_environment_gives_is_kept(silent_server, tmp_path, capsys, monkeypatch):
    """The wait is the one given, not the default: the default is set far off (60 s) so that a bound
    between the two (30 s) tells them apart on any host, however busy; and no shorter than given."""
    monkeypatch.setattr(store_url, "PG_CONNECT_TIMEOUT_S", 60)
    for url, env in ((f"postgresql://u:p@{silent_server}/db?connect_timeout=2", None),
                     (f"postgresql://u:p@{silent_server}/db", "3")):
        if env:
            monkeypatch.setenv("PGCONNECT_TIMEOUT", env)
        started = time.monotonic()
        rc, _, err = run_cli(capsys, "results", "show", "--db", url)
        waited = 2 if env is None else 3
        assert rc == 1 and f"did not answer within {waited} s" in err, err
        assert waited <= time.monotonic() - started < 30


def _killed_while_making(db: Path, jobs: str) -> list[Path]:
    """Start ingests into the new store ``db`` and SIGKILL each as soon as its part file appears, until one
    is killed before it linked the store into place: the files it left beside ``db``."""
    for _ in range(20):
        proc = subprocess.Popen([sys.executable, "-m", "sweepgate", "results", "ingest", "--db", f"sqlite:///{db}",
                                 jobs], cwd=db.parent, env={**os.environ, "PYTHONPATH": str(ROOT / "utils")},
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        part = db.with_name(f".{db.name}.{proc.pid}.new")
        while proc.poll() is None and not part.exists():
            time.sleep(0.001)
        proc.kill()
        proc.wait()
        left = sorted(p for p in db.parent.iterdir() if p.name.startswith(f".{db.name}."))
        if left and not db.exists():
            return left
        db.unlink(missing_ok=True)
        for path in left:
            path.unlink()
    pytest.fail("no ingest was killed while it made the store")


def test_a_new_store_s_file_a_killed_ingest_left_is_removed_by_a_later_ingest(tmp_path, capsys):
    """SIGKILL while a new store was being made left its hidden .r.db.PID.new beside it for ever."""
    folder = tmp_path / "store"
    folder.mkdir()
    db, jobs = folder / "r.db", _jobs(tmp_path / "jobs", 2)
    left = _killed_while_making(db, jobs)
    assert left[0].name.endswith(".new"), left
    live = subprocess.Popen(["sleep", "60"])
    try:
        kept = [folder / f".r.db.{live.pid}.new", folder / ".other.db.999999999.new", folder / ".r.db.12x.new",
                folder / ".r.db.0.new", folder / ".r.db.999999999.new.bak"]
        for path in kept:
            path.write_bytes(b"")
        old = time.time() - 3600  # an hour untouched
        for path in left + kept:
            os.utime(path, (old, old))
        fresh = folder / ".r.db.999999998.new"  # a dead PID's, written just now: another host's opener may be at it
        fresh.write_bytes(b"")
        rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{db}", jobs)
        assert rc == 0 and "(2 new)" in out, err
        assert sorted(p.name for p in folder.iterdir()) == sorted(["r.db", *(p.name for p in kept), fresh.name])
    finally:
        live.kill()
        live.wait()


@pytest.mark.skipif(os.geteuid() != 0 or not Path("/usr/bin/setpriv").exists(), reason="needs root and setpriv")
def test_a_store_this_user_may_not_read_says_so_not_that_it_is_no_database(tmp_path, capsys):
    shared = Path(f"/tmp/sweepgate-unreadable-{os.getpid()}")  # pytest's tmp_path is closed to others
    shared.mkdir()
    try:
        jobs = _jobs(shared / "jobs", 1)
        url = f"sqlite:///{shared / 'r.db'}"
        assert run_cli(capsys, "results", "ingest", "--db", url, jobs)[0] == 0
        (shared / "r.db").chmod(0o600)
        shared.chmod(0o777)
        for argv in (["ingest", "--db", url, jobs], ["show", "--db", url]):
            proc = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable,
                                   "-m", "sweepgate", "results", *argv], cwd=shared, capture_output=True, text=True,
                                  timeout=120, env={"PATH": os.environ["PATH"], "PYTHONPATH": str(ROOT / "utils"),
                                                    "HOME": "/"})
            (line,) = proc.stderr.strip().splitlines()
            assert proc.returncode == 1 and "r.db: cannot be read: Permission denied" in line, line
    finally:
        subprocess.run(["rm", "-rf", str(shared)], check=True)


def test_a_postgresql_port_no_server_listens_at_is_named(tmp_path, capsys):
    """"connection failed: ... Connection refused; check that the database exists and is writable"."""
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    for argv in (["ingest", _jobs(tmp_path, 1)], ["show"]):
        rc, _, err = run_cli(capsys, "results", argv[0], "--db", f"postgresql://u:p@127.0.0.1:{port}/db", *argv[1:])
        (line,) = err.strip().splitlines()
        assert rc == 1 and f"no PostgreSQL server listens at 127.0.0.1:{port} (connection refused)" in line, line
        assert "check that the database exists" not in line


def test_a_store_that_cannot_be_opened_is_its_one_line_with_no_count_line(tmp_path, capsys):
    """New-user review (msgs27): with no PostgreSQL server at the --db URL, ingest printed "ingested 0
    results (0 new) into ...; nothing stored" on stdout before the connection's line, where a SQLite
    file that is no database gets its one line alone. Both are one line now, nothing on stdout (nor
    `--jsonl`'s "appended 0 records" line); a file refused before the store was reached keeps its line."""
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    jobs = _jobs(tmp_path / "jobs", 2)
    (tmp_path / "not.db").write_text("not a database\n" * 100)
    for url in (f"postgresql+psycopg://u:p@127.0.0.1:{port}/db", f"sqlite:///{tmp_path / 'not.db'}"):
        rc, out, err = run_cli(capsys, "results", "ingest", "--db", url, jobs)
        (line,) = err.strip().splitlines()
        assert rc == 1 and out == "", (url, out, err)
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"postgresql://u:p@127.0.0.1:{port}/db",
                           "--jsonl", str(tmp_path / "records.jsonl"), jobs)
    (line,) = err.strip().splitlines()
    assert rc == 1 and out == "" and f"no PostgreSQL server listens at 127.0.0.1:{port}" in line, (out, err)
    (tmp_path / "bad.json").write_text("{")  # refused before the store is first wanted
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"postgresql://u:p@127.0.0.1:{port}/db",
                           str(tmp_path / "bad.json"), jobs)
    refused, line = err.strip().splitlines()
    assert rc == 1 and out == "" and refused.startswith(f"{tmp_path / 'bad.json'}:"), err
    assert f"no PostgreSQL server listens at 127.0.0.1:{port}" in line, err


def test_a_refused_postgresql_connection_names_the_port_and_host_libpq_took_from_the_environment(
        tmp_path, capsys, monkeypatch):
    """Review (review19): with the port or host given by $PGPORT/$PGHOST (as libpq reads them), the one line
    named port 5432 and 'the local socket', where nothing had been tried: the user was sent to look at a
    server that may well be up."""
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    folder = tmp_path / "sock"
    folder.mkdir()
    with socket.socket(socket.AF_UNIX) as dead:  # a socket file no server listens at
        dead.bind(str(folder / f".s.PGSQL.{port}"))
    monkeypatch.setenv("PGPORT", str(port))
    for url, where in ((f"postgresql://u:p@127.0.0.1/db", f"127.0.0.1:{port}"), ("postgresql://u:p@/db", f"{folder}:{port}")):
        monkeypatch.setenv("PGHOST", str(folder))
        rc, _, err = run_cli(capsys, "results", "show", "--db", url)
        (line,) = err.strip().splitlines()
        assert rc == 1 and f"no PostgreSQL server listens at {where} (connection refused)" in line, line
