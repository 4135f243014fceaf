"""collate28: a store an older sweepgate wrote, with its times as written, has them in UTC once upgraded.

Until c2ee849 ("a record's started and finished times are stored in UTC") ingest stored a job's times as its
sidecar or client wrote them: ``2026-11-10T12:00:00+02:00``, ``2026-11-10T10:30:00.25Z``, vLLM's ``date`` as
``2026-11-10T11:00:00`` (no zone). That commit left the schema at Alembic revision 0003, so such a store
opens as current, and its rows are still so. The store orders rows by those columns as text in SQL
(``store_query._happened``), while Python (``record.happened``) reads them in UTC: ``12:00+02:00`` (10:00 UTC) was
the newest in the store, after ``10:30Z``, and a store and the same records read from `--baseline-jsonl`
files (an older sweepgate's results artifact) picked different baseline runs. Revision 0004 rewrites those
times in UTC (``record.stored_time``), in the columns and the stored record alike, as an ingest now stores
them; a time without a zone stays without one (s39i: which zone it is in is not known), text that is no time
stays as it is."""

from __future__ import annotations

import json

import pytest
import sqlalchemy as sa

import test_store_files_same_baseline_timeless27 as same  # its records, stores and comparisons both ways
from helpers import job, run_cli, vllm_output, write_job
from test_store_edges19 import _head
from test_store_hunt18 import _old_store
from sweepgate.results import record as R
from sweepgate.results import store

OLD_HEAD = "0003"  # the revision of a store made before times were stored in UTC
MAIN, PR_REF = same.MAIN, same.PR_REF


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request, env) -> str:
    return request.getfixturevalue("pg_url") if request.param == "postgresql" else f"sqlite:///{env / 'old.db'}"


def old_record(run: str, finished: str | None, started: str | None = None, *, conc: int = 4, ref: str = MAIN,
               value: float = 1000.0) -> dict:
    """A job's record as an older sweepgate stored it: its times as the sidecar or client wrote them."""
    rec = same._record(run, conc, ref=ref, hours=0, value=value)
    rec[R.STARTED], rec[R.FINISHED] = started, finished
    return rec


def stored_by_an_older_sweepgate(url: str, records: list[dict]) -> None:
    """A store made by the migrations up to OLD_HEAD, its rows inserted as that sweepgate's ``add`` did:
    the typed columns it had, copied from the record as it is, and the record."""
    _old_store(url, OLD_HEAD)
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        table = sa.Table("results", sa.MetaData(), autoload_with=conn)
        row = store.Store._row  # the columns of a record, as add writes them (those the old table has)
        conn.execute(table.insert(), [{k: v for k, v in row(None, rec, "2026-12-01T00:00:00+00:00").items()
                                       if k in table.c} for rec in records])
    engine.dispose()


def stored_rows(url: str) -> dict[str, tuple]:
    """Each row's (started, finished, the record's started and finished) by its run id."""
    engine = sa.create_engine(url)
    with engine.connect() as conn:
        got = conn.execute(sa.select(store.results.c.run_id, store.results.c.started, store.results.c.finished,
                                     store.results.c.record)).all()
    engine.dispose()
    return {run: (started, finished, rec.get(R.STARTED), rec.get(R.FINISHED))
            for run, started, finished, rec in got}


AS_WRITTEN = {  # run id: (started, finished) as the older sweepgate stored them
    "101": ("2026-11-10T11:30:00+02:00", "2026-11-10T12:00:00+02:00"),  # a sidecar in +02:00: 10:00 UTC
    "102": ("2026-11-10T09:45:00Z", "2026-11-10T10:30:00.25Z"),         # `date -u +…Z`, and a fraction
    "103": (None, "2026-11-10T11:00:00"),                               # vLLM's `date`: no zone
    "104": ("2026-11-10 08:00:00+00:00", "2026/11/10 08:30:00+00:00"),  # a blank, slashes
    "105": (None, "n/a"),                                               # no time: stays as it is
    "106": ("2026-11-10T07:00:00+00:00", "2026-11-10T07:30:00.500000+00:00"),  # in UTC already
}


def test_an_older_store_s_times_are_in_utc_once_it_is_upgraded(backend):
    """Columns and records alike; the rest of each record as it was; rows in UTC already untouched."""
    records = [old_record(run, finished, started, value=1000.0 + i)
               for i, (run, (started, finished)) in enumerate(AS_WRITTEN.items())]
    stored_by_an_older_sweepgate(backend, records)
    with store.open_store(backend) as st:  # the first command to open it upgrades it
        got = {r[R.RUN_ID]: r for r in st.records()}
    for run, (started, finished) in AS_WRITTEN.items():
        utc = (R.stored_time(started), R.stored_time(finished))
        assert stored_rows(backend)[run] == utc * 2, run
    assert stored_rows(backend)["101"][:2] == ("2026-11-10T09:30:00+00:00", "2026-11-10T10:00:00+00:00")
    assert stored_rows(backend)["103"][1] == "2026-11-10T11:00:00"  # no zone: none is made up
    assert stored_rows(backend)["105"][1] == "n/a"
    for rec in records:
        assert got[rec[R.RUN_ID]] == {**rec, R.STARTED: R.stored_time(rec[R.STARTED]),
                                      R.FINISHED: R.stored_time(rec[R.FINISHED])}


def test_an_older_store_s_rows_are_ordered_by_the_instant_once_upgraded(backend):
    """The store's order and `results show`'s newest are Python's: 102 (10:30 UTC) is newer than 101
    (12:00+02:00, 10:00 UTC), 103 (11:00 with no zone, ordered by that clock reading) the newest; as text, 101 was the newest."""
    records = [old_record(run, finished, started) for run, (started, finished) in AS_WRITTEN.items() if run != "105"]
    stored_by_an_older_sweepgate(backend, records)
    newest = [r[R.RUN_ID] for r in sorted(records, key=R.time_order, reverse=True)]
    assert newest == ["103", "102", "101", "104", "106"]
    with store.open_store(backend) as st:
        assert [r[R.RUN_ID] for r in st.records()] == newest
        assert [r[R.RUN_ID] for r in st.latest_per_point()] == ["103"]


def test_compare_picks_the_baseline_of_an_older_store_that_its_artifact_s_records_give(backend, env):
    """Main's runs 101 and 102 wrote their times in +02:00 (10:00 and 09:30 UTC), 103 and 104 in UTC (10:45,
    10:15): the newest two are 103 and 104, as the older sweepgate's results.jsonl of those records says
    (`--baseline-jsonl`, read in UTC); its store, read as text, gave 101, 102 and 103 for the newest three
    (`--window 2` and one more), and the PR was judged against 103 and 101."""
    main = [old_record("101", "2026-11-10T12:00:00+02:00", value=1000.0),
            old_record("102", "2026-11-10T11:30:00+02:00", value=900.0),
            old_record("103", "2026-11-10T10:45:00Z", value=1200.0),
            old_record("104", "2026-11-10T10:15:00Z", value=1100.0)]
    pr = [old_record("200", "2026-11-11T10:00:00Z", ref=PR_REF, value=1150.0)]
    stored_by_an_older_sweepgate(backend, main + pr)
    jsonl = env / "results.jsonl"
    jsonl.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in main + pr))
    from_store, from_files = same.compared_both_ways(backend, jsonl, "200", "--window", "2")
    assert same._tput(from_files)[1:] == (2, pytest.approx(1150.0))  # 103 and 104
    assert same._tput(from_store) == same._tput(from_files)
    assert from_store == from_files


def test_a_store_upgraded_so_takes_the_same_output_ingested_again(backend, env, capsys):
    """Stored results are immutable: the output of a row whose time was rewritten, ingested again, is the
    same result (a no-op), not a changed one."""
    path = write_job(env / "main", "res", vllm_output(),
                     job("101", started="2026-11-10T11:30:00+02:00", finished="2026-11-10T12:00:00+02:00"))
    rc, _, err = run_cli(capsys, "results", "ingest", "--jsonl", str(env / "new.jsonl"), "--db",
                         f"sqlite:///{env / 'scratch.db'}", str(path))
    assert rc == 0, err
    (rec,) = map(json.loads, (env / "new.jsonl").read_text().splitlines())
    old = {**rec, R.STARTED: "2026-11-10T11:30:00+02:00", R.FINISHED: "2026-11-10T12:00:00+02:00"}
    stored_by_an_older_sweepgate(backend, [old])
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", backend, str(path))
    assert rc == 0, err
    assert "(0 new)" in out, out
    assert stored_rows(backend)["101"] == ("2026-11-10T09:30:00+00:00", "2026-11-10T10:00:00+00:00") * 2


def test_the_upgrade_keeps_a_time_it_cannot_place(backend):
    """A time that has no UTC (``9999-12-31T23:59:59-05:00`` is past year 9999 there) stays as it was; the
    upgrade does not fail on it."""
    far = "9999-12-31T23:59:59-05:00"
    assert R.stored_time(far) == far
    stored_by_an_older_sweepgate(backend, [old_record("101", far)])
    with store.open_store(backend) as st:
        (rec,) = st.records()
    assert rec[R.FINISHED] == far and stored_rows(backend)["101"][1] == far


@pytest.mark.parametrize("damage", ["'not json'", "'[1]'", "'null'"])
def test_an_older_store_with_a_damaged_record_is_upgraded_and_said_damaged(damage, env, capsys):
    """A row whose record was damaged (edited by hand) and whose times are as written: the upgrade rewrites
    its columns, leaves the record, and `results show` says the store is damaged in one line, as it says of
    a current store (it was no internal error for the upgrade to read that record)."""
    url = f"sqlite:///{env / 'old.db'}"
    stored_by_an_older_sweepgate(url, [old_record("101", "2026-11-10T12:00:00+02:00"),
                                       old_record("102", "2026-11-10T11:00:00+02:00")])
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.exec_driver_sql(f"UPDATE results SET record = {damage} WHERE run_id = '101'")
        kept = conn.exec_driver_sql("SELECT record FROM results WHERE run_id = '101'").scalar()
    rc, _, err = run_cli(capsys, "results", "show", "--db", url)
    (line,) = err.strip().splitlines()
    assert rc == 1 and "internal error" not in line and "damaged" in line, line
    with engine.connect() as conn:
        rows = dict(conn.exec_driver_sql("SELECT run_id, finished FROM results").all())
        assert rows == {"101": "2026-11-10T10:00:00+00:00", "102": "2026-11-10T09:00:00+00:00"}
        assert conn.exec_driver_sql("SELECT record FROM results WHERE run_id = '101'").scalar() == kept
        assert conn.exec_driver_sql("SELECT version_num FROM alembic_version").scalar() == _head()  # 0004 and on
    engine.dispose()
