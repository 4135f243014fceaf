"""s50a: marking a run's records cancelled, or un-marking those a re-run carries, takes the run's write lock.

s49b made every ingest's transaction on PostgreSQL take an advisory lock of each run it writes
(``store._write_lock``) before it reads what the store holds of them. ``Store.mark_copies_cancelled`` and
``Store.unmark_carried`` read a run's rows and write marks on them but took no lock of it: each read what was
committed when its SELECT began, so a writer of that run committing meanwhile was missed. A `ci reuse` copy stored
while its run was being marked cancelled stayed unmarked (in main's baseline: a cancelled run's record), and a
re-run attempt's output stored while the earlier attempt's results were being un-marked left the earlier one's,
no longer its job's newest, un-marked. Both now take the lock of the run they change, in their transaction: they
wait for the writer's commit and then read its rows.

Each test holds a writer's transaction open (``Store.add``'s ``before_commit``) while the mark runs in a thread of
its own, and lets the writer commit once the server says the mark waits on a lock, or the mark has ended (as it
did, at once, without the lock): no timing.
"""

from __future__ import annotations

import threading

import sqlalchemy as sa
import synth

from sweepgate.results import record as R
from sweepgate.results import reuse, store

MAIN = "refs/heads/main"


def _waiting(url: str) -> bool:
    """Whether a connection to ``url``'s database waits on an advisory lock (of that database: pg_locks is the
    server's)."""
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            return bool(conn.execute(sa.text(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND database = "
                "(SELECT oid FROM pg_database WHERE datname = current_database())")).scalar())
    finally:
        engine.dispose()


def _alongside(url: str, work) -> tuple[callable, dict]:
    """A ``before_commit`` that runs ``work(store)`` in a thread on a store of its own and returns once that waits
    on a lock or has ended; and the dict its thread leaves what ``work`` returned in (``done``) and whether it
    was seen waiting (``waited``)."""
    told: dict = {}

    def run():
        with store.open_store(url, must_exist=True) as st:
            told["done"] = work(st)

    def hold():
        thread = threading.Thread(target=run)
        thread.start()
        while thread.is_alive() and not told.get("waited"):
            told["waited"] = _waiting(url)
        told["thread"] = thread

    return hold, told


def _rows(url: str) -> list[tuple]:
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            return sorted(tuple(r) for r in conn.execute(
                sa.select(store.results.c.run_id, store.results.c.attempt, store.results.c.result_filename,
                          store.results.c.run_cancelled)))
    finally:
        engine.dispose()


def _measured(run: str, conc: int, attempt: int = 1, cancelled: bool = False) -> dict:
    (rec,) = [dict(r) for r in synth.pr_run(concs=(conc,), keys=synth.KEYS[:1], run=run, ref=MAIN)]
    rec.update({R.STATUS: "success", R.ATTEMPT: attempt, R.RUN_IDENTITY: f"{conc:064x}"})
    if cancelled:
        rec[R.RUN_CANCELLED] = True
    return rec


def test_a_copy_stored_while_its_run_is_marked_cancelled_is_marked(pg_url):
    with store.open_store(pg_url) as st:
        st.add([_measured("103", 4)])
        found = st.reusable([f"{4:064x}"])
    copies = reuse.reused_records(reuse.Found([("fixed", {}, f"{4:064x}")], found), run_id="104", attempt=1,
                                  ref=MAIN, commit="c" * 40)
    hold, told = _alongside(pg_url, lambda st: st.mark_copies_cancelled("104", 1))
    with store.open_store(pg_url) as st:
        assert st.add(copies, keep_stored=True, before_commit=hold) == 1
    told["thread"].join()
    (copy,) = [row for row in _rows(pg_url) if row[0] == "104"]
    assert copy[3] is True, _rows(pg_url)  # was False: the mark read the run before the copy was committed
    assert told == {"waited": True, "done": 1, "thread": told["thread"]}


def test_an_attempt_stored_while_the_earlier_one_is_unmarked_keeps_the_earlier_one_marked(pg_url):
    """Attempt 1 of run 104 was cancelled after its jobs c4 and c8 succeeded (stored marked); *Re-run all jobs*
    made attempt 2, whose c8 is stored while attempt 2's collect un-marks what it carries: c4 of attempt 1 is
    carried, c8 of attempt 1 is not (attempt 2 ran it again)."""
    with store.open_store(pg_url) as st:
        st.add([_measured("104", 4, cancelled=True), _measured("104", 8, cancelled=True)])
    hold, told = _alongside(pg_url, lambda st: st.unmark_carried("104", 2))
    with store.open_store(pg_url) as st:
        assert st.add([_measured("104", 8, attempt=2)], before_commit=hold) == 1
    told["thread"].join()
    c4, c8 = (f"{synth.KEYS[0]}_b300_isl1024_conc{conc}" for conc in (4, 8))
    assert _rows(pg_url) == [("104", 1, c4, False), ("104", 1, c8, True), ("104", 2, c8, False)], \
        _rows(pg_url)  # c8 of attempt 1 was un-marked: read before attempt 2's c8 was committed
    assert told == {"waited": True, "done": 1, "thread": told["thread"]}

