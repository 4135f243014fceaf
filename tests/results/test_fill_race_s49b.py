"""s49b review: two ingests writing one run at once on PostgreSQL, each reading what the store holds before the
other committed.

s48a lets a re-ingest write the ref (and commit) a stored result was stored without (``store_immutable.Provided``),
and keeps a run on one ref (``_one_ref_per_run``); both decide on rows read earlier in the transaction. PostgreSQL
reads what was committed when each statement began, so an ingest that read the stored result on no ref while
another was giving it refs/heads/main then wrote refs/pull/7/head over it (a stored ref changed, which no ingest
may do), and two outputs of one run stored at once on two refs were both kept. SQLite takes its one writer lock
before the first read (``store._write_lock``); PostgreSQL's writers of one run now take a lock of that run
before theirs. The second ingest here starts while the first holds its transaction open (its ``before_commit``)
and is let go once the server says it waits on a lock: no timing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import sqlalchemy as sa

from helpers import ROOT, ROW, job, run_cli, vllm_output, write_job
from sweepgate.results import store

MAIN, PR = "refs/heads/main", "refs/pull/7/head"
SHA = "c0ffee" * 6 + "abcd"


def _job(folder, name: str, ref: str | None, conc: int = 4):
    return write_job(folder, name, vllm_output(conc), job(run_id="8", row=dict(ROW, conc=conc), ref=ref))


def _waiting(url: str) -> bool:
    """Whether a connection to ``url``'s database other than the asking one waits on a lock."""
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            return bool(conn.execute(sa.text(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'")).scalar())
    finally:
        engine.dispose()


def _while_held(monkeypatch, url: str, argv: list[str]) -> list:
    """Make the next ``Store.add`` start ``sweepgate results ingest ARGV`` (a real process) before it commits, and
    commit once that process waits on a lock or has ended; the process is returned in the list, for the caller to
    wait for."""
    started, real = [], store.Store.add
    env = {**os.environ, "PYTHONPATH": str(ROOT / "utils"), "NO_COLOR": "1"}
    env.pop("GITHUB_ACTIONS", None)

    def hold():
        if started:
            return
        proc = subprocess.Popen([sys.executable, "-m", "sweepgate", "results", "ingest", "--db", url, *argv],
                                env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        started.append(proc)
        while proc.poll() is None and not _waiting(url):
            pass

    def add(self, records, before_commit=None, **kw):
        def then():  # ingest's own first (a signal's check)
            if before_commit is not None:
                before_commit()
            hold()

        return real(self, records, before_commit=then, **kw)

    monkeypatch.setattr(store.Store, "add", add)
    return started


def _stored(url: str) -> list[tuple]:
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            return [(r.result_filename, r.ref, r.record["ref"]) for r in conn.execute(
                sa.select(store.results.c.result_filename, store.results.c.ref, store.results.c.record)
                .order_by(store.results.c.result_filename))]
    finally:
        engine.dispose()


def test_a_ref_filled_in_meanwhile_is_not_written_over(tmp_path, capsys, monkeypatch, pg_url):
    _job(tmp_path / "none", "res", None)
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", pg_url, str(tmp_path / "none"))
    assert rc == 0, err
    _job(tmp_path / "main", "res", MAIN)
    _job(tmp_path / "pr", "res", PR)
    other = _while_held(monkeypatch, pg_url, [str(tmp_path / "pr")])
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", pg_url, str(tmp_path / "main"))
    (proc,) = other
    said, refused = proc.communicate(timeout=120)
    assert rc == 0 and "filled in the ref of 1 result" in out, out + err
    assert _stored(pg_url) == [("res", MAIN, MAIN)]  # was refs/pull/7/head, the later writer's
    assert proc.returncode == 1 and f"run-id '8' is stored on {MAIN}, but this output is on {PR}" in refused, \
        said + refused  # as when the two run one after the other
    assert "filled in" not in said, said


def test_two_outputs_of_one_run_stored_at_once_on_two_refs_are_not_both_kept(tmp_path, capsys, monkeypatch, pg_url):
    _job(tmp_path / "main", "c4", MAIN, conc=4)
    _job(tmp_path / "pr", "c8", PR, conc=8)
    other = _while_held(monkeypatch, pg_url, [str(tmp_path / "pr")])
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", pg_url, str(tmp_path / "main"))
    (proc,) = other
    said, refused = proc.communicate(timeout=120)
    assert rc == 0 and "(1 new)" in out, out + err
    assert _stored(pg_url) == [("c4", MAIN, MAIN)], json.dumps(_stored(pg_url))  # was c8 on PR's ref beside it
    assert proc.returncode == 1 and f"run-id '8' is stored on {MAIN}, but this output is on {PR}" in refused, \
        said + refused
