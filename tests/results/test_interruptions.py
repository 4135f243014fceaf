"""What the crash-safety review found between the files of an ingest and around the outputs: a
signal after a file is stored, a database that fails halfway, a file name that is not UTF-8, a
step summary the disk cuts short, two chart writers in one folder, a closed or ASCII stdout."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys

import pytest

from helpers import ROOT, job, run_cli, vllm_output, write_job
from sweepgate import cli
from sweepgate.results import store


def three_jobs(folder):
    for n, conc in enumerate((4, 8, 16)):
        write_job(folder, f"r{n}", vllm_output(conc), job(row={**job()["row"], "conc": conc}))


def stored_count(db: str) -> int:
    with store.open_store(db) as st:
        return len(st.records())


@pytest.mark.parametrize("signum, rc, said", [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated")])
def test_a_signal_just_after_a_file_is_stored_is_counted_with_it(tmp_path, capsys, monkeypatch, signum, rc, said):
    """The review's race: Ctrl-C landed between the commit and the count, so the report and --jsonl
    left out a file the store holds. Now the signal waits until the file is counted."""
    three_jobs(tmp_path / "in")
    real_add = store.Store.add

    def add_then_signal(self, records, **kw):
        new = real_add(self, records, **kw)
        os.kill(os.getpid(), signum)
        return new

    monkeypatch.setattr(store.Store, "add", add_then_signal)
    db = f"sqlite:///{tmp_path / 'r.db'}"
    code, out, err = run_cli(capsys, "results", "ingest", "--db", db, "--jsonl", str(tmp_path / "o.jsonl"),
                             str(tmp_path / "in"))
    assert code == rc and f"{said} after 1 of 3 files" in err, err
    assert "ingested 1 results (1 new)" in out and stored_count(db) == 1
    assert len((tmp_path / "o.jsonl").read_text().splitlines()) == 1


def test_a_database_failing_halfway_still_reports_what_was_done(tmp_path, capsys, monkeypatch):
    """The review: a full disk mid-ingest printed only the database line; the stored rows, the refused
    files and where to resume were lost."""
    three_jobs(tmp_path / "in")
    write_job(tmp_path / "in", "a_bad", vllm_output(99), job())  # another job's output: refused
    real_add, calls = store.Store.add, []

    def fail_second(self, records, **kw):
        calls.append(1)
        if len(calls) == 2:
            raise store.database_error(self.url, OSError("database or disk is full"))
        return real_add(self, records, **kw)

    monkeypatch.setattr(store.Store, "add", fail_second)
    db = f"sqlite:///{tmp_path / 'r.db'}"
    code, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path / "in"))
    lines = err.strip().splitlines()
    assert code == 1 and "ingested 1 results (1 new)" in out
    assert any("a_bad.json" in line for line in lines), err  # the refused file is still named
    assert any("database: database or disk is full" in line for line in lines), err
    assert lines[-1].startswith("sweepgate results ingest: stopped by the database after 2 of 4 files"), err


def test_a_file_name_that_is_not_utf8_refuses_that_file_only(tmp_path, capsys):
    folder = tmp_path / "in"
    three_jobs(folder)
    bad = os.fsencode(folder) + b"/m_name\xff"
    os.rename(folder / "r1.json", bad + b".json")
    os.rename(folder / "r1.job.json", bad + b".job.json")
    db = f"sqlite:///{tmp_path / 'r.db'}"
    code, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(folder))
    assert code == 1 and "internal error" not in err
    assert "m_name\\xff" in err and "the file name is not UTF-8" in err, err
    assert "ingested 2 results (2 new)" in out and stored_count(db) == 2


def test_an_interrupt_while_the_flags_are_read_is_one_line(capsys, monkeypatch):
    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "build_parser", interrupted)
    assert cli.main(["matrix", "--base-ref", "a", "--head-ref", "b"]) == 130
    assert capsys.readouterr().err == "sweepgate: interrupted\n"


def _limited(limit: int):
    def apply():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # past the limit a write fails (EFBIG), as on a full disk
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


def test_a_step_summary_the_disk_cuts_short_is_left_as_it_was(tmp_path):
    summary = tmp_path / "summary.md"
    summary.write_text("# earlier step\n")
    code = ("import sys; from sweepgate.core.atomic import append_text; from sweepgate.core.errors import run_guarded;"
            "sys.exit(run_guarded(lambda: append_text(sys.argv[1], 'x' * 100000, what='the step summary')))")
    proc = subprocess.run([sys.executable, "-c", code, str(summary)], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT / "utils")}, preexec_fn=_limited(8192))
    assert proc.returncode == 1 and "cannot write the step summary" in proc.stderr, proc.stderr
    assert summary.read_text() == "# earlier step\n"


def test_a_chart_writer_ignores_another_s_temporary_file(tmp_path):
    """Two compares into one --plots folder renamed each other's fixed '.NAME.tmp'; one failed."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from sweepgate.results import charts

    (tmp_path / ".c.png.tmp").mkdir()  # the other writer's file, at the name every writer used
    fig = plt.figure()
    assert charts._save(fig, tmp_path / "c.png", "png") == tmp_path / "c.png"
    assert (tmp_path / "c.png").stat().st_size > 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [".c.png.tmp", "c.png"]


def _sweepgate(*args: str, env: dict | None = None, shell_prefix: str = "") -> subprocess.CompletedProcess:
    cmd = " ".join([shell_prefix, f'"{sys.executable}" -m sweepgate', *args])
    return subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT / "utils"), **(env or {})})


def test_a_closed_or_full_stdout_is_one_line(tmp_path):
    closed = _sweepgate("full-sweep", "--single-node", "--max-conc", "4", shell_prefix="exec 1>&-;")
    assert closed.returncode == 1 and "standard output is closed" in closed.stderr, closed.stderr
    full = _sweepgate("full-sweep", "--single-node", "--max-conc", "4", "> /dev/full")
    assert full.returncode == 1, full.stderr
    assert full.stderr.strip() == ("standard output: cannot write: No space left on device; free space or "
                                   "write the output elsewhere"), full.stderr
    for flags in ("--version", "--help", "results --help"):  # argparse's own writes, before any command runs
        said = _sweepgate(flags, "> /dev/full")
        assert said.returncode == 1 and said.stderr == full.stderr, (flags, said.stderr)
    gone = _sweepgate("--help", "| true")  # a reader that left: nothing said, as for a command's output
    assert gone.stderr == "", gone.stderr


def test_an_ascii_stdout_gets_escapes_not_a_crash(tmp_path):
    """The review: with an ASCII stdout (no UTF-8 locale coercion) the compare table's "\u00b1" was an
    internal error; it is written as an escape instead."""
    import synth

    url = f"sqlite:///{tmp_path / 'r.db'}"
    with store.open_store(url) as st:
        st.add(synth.history() + synth.pr_run())
    proc = _sweepgate("results", "compare", "--db", url, "--run", "pr-7",
                      env={"PYTHONIOENCODING": "ascii", "NO_COLOR": "1", "COLUMNS": "200"})
    assert proc.returncode == 0 and "internal error" not in proc.stderr, proc.stderr
    assert "(\\xb15%)" in proc.stdout, proc.stdout[:2000]


def test_a_signal_before_the_commit_stops_at_once_and_stores_nothing(tmp_path, capsys, monkeypatch):
    """Diff review: signals were held through the whole add, a lock's busy wait included (up to
    minutes); until the rows are about to be committed they act at once."""
    three_jobs(tmp_path / "in")

    def waiting_on_a_lock(self, records, **kw):
        os.kill(os.getpid(), signal.SIGTERM)  # arrives while the store waits, before_commit not yet called
        raise AssertionError("the signal was held")

    monkeypatch.setattr(store.Store, "add", waiting_on_a_lock)
    db = f"sqlite:///{tmp_path / 'r.db'}"
    code, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path / "in"))
    assert code == 143 and "terminated after 0 of 3 files" in err and "ingested 0 results" in out, err


def test_append_text_writes_a_pipe_as_it_is(tmp_path):
    """Diff review: seeking /dev/stdout or a FIFO to note where it ended was an internal error."""
    code = ("import sys; from sweepgate.core.atomic import append_text; "
            "append_text('/dev/stdout', 'k=v\\n'); append_text(sys.argv[1], 'x\\n')")
    (tmp_path / "f").write_text("a\n")
    proc = subprocess.run(f'"{sys.executable}" -c "{code}" {tmp_path / "f"} | cat', shell=True, capture_output=True,
                          text=True, env={**os.environ, "PYTHONPATH": str(ROOT / "utils")})
    assert proc.returncode == 0 and proc.stdout == "k=v\n", proc.stderr
    assert (tmp_path / "f").read_text() == "a\nx\n"


def test_charts_are_readable_by_others_as_before(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from sweepgate.results import charts

    path = charts._save(plt.figure(), tmp_path / "c.png", "png")
    assert path.stat().st_mode & 0o777 == 0o644


def test_cli_main_under_a_redirected_stdout_object(capsys):
    """Diff review: a caller's StringIO stdout has no reconfigure()."""
    import contextlib
    import io

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        assert cli.main(["full-sweep", "--single-node", "--max-conc", "4"]) == 0
    assert buffer.getvalue().startswith("[")


@pytest.mark.parametrize("failure", [KeyboardInterrupt, lambda: store.sa.exc.OperationalError("x", {}, Exception("disk I/O error"))])
def test_a_new_store_whose_schema_never_landed_is_not_left_behind(tmp_path, monkeypatch, failure):
    """Crash review item 8: an interrupt (or a database error) while a new store's schema was made
    left an empty file that `results show` then called "not a sweepgate results store"."""
    from alembic import command

    def broken_upgrade(*_a, **_k):
        raise failure()

    monkeypatch.setattr(command, "upgrade", broken_upgrade)
    db = tmp_path / "new.db"
    with pytest.raises((KeyboardInterrupt, store.StoreError)):
        store.open_store(f"sqlite:///{db}")
    assert sorted(p.name for p in tmp_path.iterdir()) == []
    monkeypatch.undo()
    with store.open_store(f"sqlite:///{db}") as st:  # the next open makes it whole
        assert st.records() == []


def test_an_existing_store_is_never_removed_by_a_failed_open(tmp_path, monkeypatch):
    db = tmp_path / "old.db"
    db.write_bytes(b"")  # somebody's empty file: not ours to delete
    from alembic import command
    monkeypatch.setattr(command, "upgrade", lambda *_a, **_k: (_ for _ in ()).throw(KeyboardInterrupt()))
    with pytest.raises(KeyboardInterrupt):
        store.open_store(f"sqlite:///{db}")
    assert db.is_file()
