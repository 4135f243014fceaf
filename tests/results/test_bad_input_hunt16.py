"""Bad input hunt 16: inputs that met an internal error, or were stored under the wrong job,
driven through the real command line."""

from __future__ import annotations

import json

import pytest

from helpers import job, job_key_at, run_cli, vllm_output, write_job

HUGE = "1" + "0" * 400  # past the largest float (about 1.8e308)
HUGER = "7" * 5000  # past the 4,300 digits Python turns into an int


@pytest.mark.parametrize("digits", [HUGE, HUGER])
@pytest.mark.parametrize("key", ["total_input_tokens", "duration"])
def test_an_integer_too_big_for_a_float_is_refused_at_its_key(tmp_path, capsys, digits, key):
    """Hunt 16: an integer metric of 401 digits met "internal error: OverflowError: int too large to
    convert to float" (the finite check), one of 5,000 "ValueError: Exceeds the limit (4300 digits)"
    (the JSON reader): now read as the infinity 1e999 is, and refused at its key."""
    text = json.dumps(vllm_output())
    text = text.replace(f'"{key}": {vllm_output()[key]}', f'"{key}": {digits}')
    out = write_job(tmp_path / "run", "r", text, job())
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(tmp_path / "run"))
    assert rc == 1, err
    col = text.index(f'"{key}"') + 1
    assert err.startswith(f"{out}:1:{col}: {key}: inf is not a measurement; "), err
    assert "internal error" not in err and len(err.strip().splitlines()) == 1, err


def test_a_sidecar_attempt_of_5000_digits_is_refused(tmp_path, capsys):
    side = json.dumps(job()).replace('"attempt": 1', f'"attempt": {HUGER}')
    write_job(tmp_path / "run", "r", vllm_output(), None)
    (tmp_path / "run" / "r.job.json").write_text(side)
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(tmp_path / "run"))
    assert rc == 1, err
    assert err.startswith(f"{job_key_at(tmp_path / 'run' / 'r.job.json', 'attempt')}: job.attempt: expected an integer >= 1, got inf; "), err


@pytest.mark.parametrize("action", ["row-env", "reuse"])
def test_a_row_of_5000_digits_is_refused_not_an_internal_error(tmp_path, capsys, action, monkeypatch):
    """`ci row-env --row` and `ci reuse --matrix` read JSON the same way: the same refusal."""
    row = '{"conc": %s}' % HUGER
    if action == "row-env":
        argv = ["ci", "row-env", "--row", row, "--output", str(tmp_path / "env")]
    else:
        (tmp_path / "m.json").write_text('{"single_node": {"1k1k": [%s]}}' % row)
        argv = ["ci", "reuse", "--matrix", str(tmp_path / "m.json"), "--out", str(tmp_path / "o.json"),
                "--db", f"sqlite:///{tmp_path / 'r.db'}", "--run-id", "1"]
    rc, _, err = run_cli(capsys, *argv)
    assert rc == 1 and "internal error" not in err, err
    assert not (tmp_path / "o.json").exists()


@pytest.mark.parametrize("kind", ["folder", "fifo", "dangling", "loop"])
@pytest.mark.parametrize("named", ["folder", "file"])
def test_an_output_whose_sidecar_is_no_file_is_not_stored_without_its_job(tmp_path, capsys, kind, named):
    """Hunt 16: with X.job.json a folder, a FIFO or a broken link, X.json was stored as an output
    without a sidecar, under a made-up run id (local-<hash>) and no row: the job's identity was lost,
    and ingesting it again once the sidecar was fixed stored the run a second time."""
    import os

    out = write_job(tmp_path / "run", "r", vllm_output(), None)
    side = tmp_path / "run" / "r.job.json"
    {"folder": side.mkdir, "fifo": lambda: os.mkfifo(side), "dangling": lambda: side.symlink_to(tmp_path / "gone"),
     "loop": lambda: side.symlink_to(side)}[kind]()
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(out if named == "file" else tmp_path / "run"))
    assert rc == 1, err
    # s31: a loop was "a symbolic link to nothing" too, which it is not: it is said as the loop it is
    what = {"folder": "a folder", "fifo": "a FIFO, socket or device",
            "loop": f"a symbolic link in a loop (r.job.json -> {side})"}.get(kind, "a symbolic link to nothing")
    assert f"{out}:1:1: its job sidecar r.job.json is {what}; the output is not ingested without its job; " in err, err
    rc, show, err = run_cli(capsys, "results", "show", "--db", db, "--json")
    assert json.loads(show) == [] if rc == 0 else "no results store" in err, (show, err)


@pytest.mark.parametrize("fresh", [False, True])
def test_a_store_another_process_keeps_locked_is_refused_after_one_busy_timeout(tmp_path, capsys, monkeypatch,
                                                                                 fresh):
    """Hunt 16: with another process holding the store's write lock (a sqlite3 shell with a
    transaction open), `results ingest` waited the 60 s busy timeout 5 times over (5 minutes, in
    silence), then said "database is locked; check that the database exists and is writable"."""
    import sqlite3
    import time

    import sqlalchemy as sa

    from sweepgate.results import store_url

    monkeypatch.setattr(store_url, "SQLITE_BUSY_TIMEOUT_S", 1)
    # Each "database is locked" SQLite gives is one busy timeout waited out (the lock is held all along):
    # counted, not timed, since on a loaded host the ingest's own work took 5-9 s beside the one 1 s wait.
    locked = []

    def count_locked(context):
        locked.append("database is locked" in str(context.original_exception))

    sa.event.listen(sa.Engine, "handle_error", count_locked)
    db = tmp_path / "r.db"
    if fresh:  # the lock is taken before sweepgate made its schema
        sqlite3.connect(db).close()
    else:
        rc, _, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{db}",
                             str(write_job(tmp_path / "a", "r", vllm_output(), job(run_id="1"))))
        assert rc == 0, err
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        began = time.monotonic()
        rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{db}",
                               str(write_job(tmp_path / "b", "r", vllm_output(), job(run_id="2"))))
        took = time.monotonic() - began
    finally:
        holder.execute("ROLLBACK")
        holder.close()
        sa.event.remove(sa.Engine, "handle_error", count_locked)
    assert rc == 1, (out, err)
    assert f"sqlite:///{db}: database: database is locked (waited 1 s for it); another process holds its " \
           "write lock" in err, err
    assert locked.count(True) == 1, locked  # one busy timeout waited, not one per attempt
    assert took < 30, took  # and the 1 s one (not the default 60 s): a guard only, the count is the check


@pytest.mark.parametrize("value", ["nan", "inf", "-3"])
def test_a_bad_value_in_an_aiperf_csv_is_placed_at_its_row(tmp_path, capsys, value):
    """Hunt 16: a NaN, Infinity or negative figure in a real AIPerf CSV export was refused at
    ``path:1:1`` (the place a JSON document's refusal gets when its key is not found), not at its row."""
    from helpers import SAMPLES

    text = (SAMPLES / "aiperf" / "aiperf_kimik2.7_fp4_mi355x_tp4_conc1.csv").read_text(encoding="utf-8")
    row = "Inter Token Latency (ms),13.21,"
    assert row in text
    (tmp_path / "x.csv").write_text(text.replace(row, f"Inter Token Latency (ms),{value},"))
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(tmp_path / "x.csv"))
    line = text[:text.index(row)].count("\n") + 1
    assert rc == 1, err
    assert err.startswith(f"{tmp_path / 'x.csv'}:{line}:{len(row) - len('13.21,') + 1}: Inter Token Latency (ms).avg: "), err


@pytest.mark.parametrize("ref", ["main", "pull/42/merge"])
def test_a_sidecar_whose_ref_is_not_a_full_ref_is_refused(tmp_path, capsys, ref):
    """Hunt 16: `--ref main` is refused (a result stored under "main" is no run of refs/heads/main,
    which compare reads), but a sidecar saying "ref": "main" was stored so, and silently never found."""
    write_job(tmp_path / "run", "r", vllm_output(), job(ref=ref))
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path / "run"))
    assert rc == 1, (out, err)
    assert err.startswith(f"{job_key_at(tmp_path / 'run' / 'r.job.json', 'ref')}: job.ref: '{ref}' is not a full ref; write "
                          f"refs/{'heads/' if ref == 'main' else ''}{ref} (refs/pull/N/head for a PR)"), err


@pytest.mark.parametrize("commit", ["main", "c0ffee1"])  # in upper case: test_sidecar_commit_case_s49b
def test_a_sidecar_whose_commit_is_not_a_full_sha_is_refused(tmp_path, capsys, commit):
    """A sidecar's commit was stored as written: a branch name or an abbreviation named no commit,
    and the report's commit links left it out without a word."""
    write_job(tmp_path / "run", "r", vllm_output(), job(commit=commit))
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(tmp_path / "run"))
    assert rc == 1, (out, err)
    assert err.startswith(f"{job_key_at(tmp_path / 'run' / 'r.job.json', 'commit')}: job.commit: '{commit}' is not a full commit SHA; "
                          "write the commit the job checked out"), err
    assert not (tmp_path / "r.db").exists() or "r" not in out
