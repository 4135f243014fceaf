"""The store's look-ups by lists of values bind each value (s38d).

SQLAlchemy binds each value of an ``IN (...)`` list as one variable, and SQLite refuses a statement that binds
more than its limit: 999 before SQLite 3.32, which some distributions' Pythons still ship (32766 since; PostgreSQL
65535). Lists that grow with the data (the result names of a JSONL's lines, the run identities of a matrix, the
config keys of a run) were bound whole: under the old limit, ingesting a job's 1100-line JSONL again, ``ci reuse``
of a matrix of 1100 rows and ``results compare`` of a run of 1100 config keys each failed with "too many SQL
variables". Each list is now read IN_CHUNK values a statement, with the same answers, in the same order.

The old limit is set on each SQLite connection for real (``sqlite3.Connection.setlimit``), through a SQLAlchemy
``connect`` event; the answers are checked against those read with no chunking at all (IN_CHUNK larger than
every list, no limit set).
"""

from __future__ import annotations

import contextlib
import json
import sqlite3

import pytest
import sqlalchemy as sa

from helpers import ROW, SGLANG_RUNS, job, run_cli, write_job
from sweepgate.results import record as R
from sweepgate.results import store
from sweepgate.results import store_schema

OLD_LIMIT = 999  # SQLITE_MAX_VARIABLE_NUMBER before SQLite 3.32
MANY = 1100  # values in a list: more than OLD_LIMIT


@contextlib.contextmanager
def old_sqlite():
    """Every SQLite connection opened meanwhile binds OLD_LIMIT variables a statement at most."""
    def lower(dbapi_connection, _record) -> None:
        if isinstance(dbapi_connection, sqlite3.Connection):
            dbapi_connection.setlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER, OLD_LIMIT)

    sa.event.listen(sa.engine.Engine, "connect", lower)
    try:
        yield
    finally:
        sa.event.remove(sa.engine.Engine, "connect", lower)


def _jsonl(lines: int) -> str:
    """A job's JSONL of ``lines`` runs of its point (a real bench_serving line), each of its own figures."""
    first = json.loads(SGLANG_RUNS.read_text(encoding="utf-8").splitlines()[0]) | {"max_concurrency": ROW["conc"]}
    return "".join(json.dumps({k: v * (1 + i / 10000) if isinstance(v, float) and k.endswith("_ms") else v
                               for k, v in first.items()}) + "\n" for i in range(lines))


def _ingest(capsys, db: str, folder) -> str:
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(folder))
    assert rc == 0, (out, err)
    return out


def test_the_limit_is_real(env):
    with old_sqlite(), store.open_store(f"sqlite:///{env / 'r.db'}") as st, st.engine.connect() as conn:
        assert conn.execute(sa.select(sa.literal(1).in_(list(range(OLD_LIMIT - 1))))).scalar() == 1  # and the 1
        with pytest.raises(sa.exc.OperationalError, match="too many SQL variables"):
            conn.execute(sa.select(sa.literal(1).in_(list(range(OLD_LIMIT)))))


def test_a_long_jsonl_ingested_again(env, capsys):
    """Its rows are read back by their result names (``file.jsonl#N``), one a line: 1100 values."""
    db = f"sqlite:///{env / 'r.db'}"
    write_job(env / "a", "c4", _jsonl(MANY), job(run_id="900"))
    with old_sqlite():
        assert f"ingested {MANY} results ({MANY} new)" in _ingest(capsys, db, env / "a")
        assert f"ingested {MANY} results (0 new)" in _ingest(capsys, db, env / "a")


def _stored(env, capsys) -> tuple[str, list[dict]]:
    """A store of a job's MANY-line JSONL (run 900), and its records."""
    db = f"sqlite:///{env / 'r.db'}"
    write_job(env / "a", "c4", _jsonl(MANY), job(run_id="900"))
    _ingest(capsys, db, env / "a")
    with store.open_store(db) as st:
        return db, st.run_results("900")


def _as(recs: list[dict], run: str, ref: str, day: int, **each) -> list[dict]:
    """``recs`` as a run of their own: ``run`` on ``ref`` on day ``day``, each record's ``each`` field made its own
    (``f(i)`` of its place)."""
    return [rec | {R.RUN_ID: run, R.REF: ref, R.STARTED: f"2026-01-{day:02}T10:00:00+00:00",
                   R.FINISHED: f"2026-01-{day:02}T11:00:00+00:00"} | {f: make(i) for f, make in each.items()}
            for i, rec in enumerate(recs)]


def _unchunked(monkeypatch, read):
    """``read()`` with every list in one statement, no limit set: as the store read them before."""
    with monkeypatch.context() as m:
        m.setattr(store_schema, "IN_CHUNK", 10 * MANY, raising=False)  # none before s38d
        return read()


def test_reuse_of_a_matrix_of_many_identities(env, capsys, monkeypatch):
    """``ci reuse`` looks up every matrix row's run identity (``Store.reusable``)."""
    db, recs = _stored(env, capsys)
    ids = [f"identity-{i:04}" for i in range(MANY)]
    with store.open_store(db) as st:
        st.add(_as(recs, "901", "refs/heads/main", 2, **{R.RUN_IDENTITY: lambda i: ids[i]}))
        st.add(_as(recs[:300], "902", "refs/heads/main", 3, **{R.RUN_IDENTITY: lambda i: ids[2 * i]}))

    def read():
        with store.open_store(db) as st:
            return st.reusable(ids + ["identity-none"])
    expected = _unchunked(monkeypatch, read)
    assert len(expected) == MANY and expected[ids[2]][0][R.RUN_ID] == "902" and expected[ids[1]][0][R.RUN_ID] == "901"
    with old_sqlite():
        assert read() == expected
        assert list(read()) == list(expected)


def test_compare_of_a_run_of_many_config_keys(env, capsys, monkeypatch):
    """``results compare`` reads each point's baseline by the run's config keys (``last_runs_of_points``) and main's
    latest picture of them (``records_of_keys``): 1100 keys, of runs on two days and a PR's."""
    db, recs = _stored(env, capsys)
    key = {R.CONFIG_KEY: lambda i: f"key-{i:04}"}
    with store.open_store(db) as st:
        st.add(_as(recs, "910", "refs/heads/main", 2, **key))
        st.add(_as(recs[::2], "911", "refs/heads/main", 3, **key))
        st.add(_as(recs, "920", "refs/pull/7/merge", 4, **key))

    def compare():
        rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "920", "--json")
        assert rc == 0, err
        return json.loads(out)
    expected = _unchunked(monkeypatch, compare)
    assert len({p[R.CONFIG_KEY] for p in expected["points"]}) == MANY
    assert {p["baseline"]["n"] for p in expected["points"]} == {1, 2}
    with old_sqlite():
        assert compare() == expected


def test_store_reads_of_many_keys_and_runs(env, capsys, monkeypatch):
    """The store's reads by lists, each of more values than the old limit, read as they were read in one
    statement: the same records, in the same order (newest first, placed across statements)."""
    db, recs = _stored(env, capsys)
    keys = [f"key-{i:04}" for i in range(MANY)]
    with store.open_store(db) as st:
        for n in range(4):
            st.add(_as(recs, str(930 + n), "refs/heads/main", 5 + n % 2,
                       **{R.CONFIG_KEY: lambda i: keys[i]}))
    runs = [f"run-{i}" for i in range(MANY)] + ["930"]  # 930 on day 5, 931 and 933 since day 6
    points = [dict(zip(R.POINT_IDENTITY, R.point_values(rec))) | {R.CONFIG_KEY: keys[i]} for i, rec in enumerate(recs)]

    def read():
        with store.open_store(db) as st:
            return (st.records_of_keys(keys, "refs/heads/main", runs=runs),
                    st.records_of_keys(keys, "refs/heads/main", since="2026-01-06T00:00:00+00:00", runs=runs),
                    st.last_runs_of_points("refs/heads/main", points + [dict(points[0], **{R.CONFIG_KEY: None})], 3))
    expected = _unchunked(monkeypatch, read)
    assert [len(found) for found in expected] == [MANY, 3 * MANY, 3 * MANY]
    with old_sqlite():
        assert read() == expected


def test_postgresql_reads_more_identities_than_it_binds(env, capsys, pg_url, monkeypatch):
    """PostgreSQL's protocol binds 65535 values a statement: ``ci reuse`` of a matrix of more run identities (a
    few thousand points of a dozen recipes each) failed. The answers are those of the lists read whole where
    they fit, and records newest first are placed across statements there as on SQLite."""
    write_job(env / "a", "c4", _jsonl(5), job(run_id="900"))
    _ingest(capsys, pg_url, env / "a")
    ids = [f"identity-{i:05}" for i in range(70000)]
    with store.open_store(pg_url) as st:
        recs = st.run_results("900")
        st.add(_as(recs, "901", "refs/heads/main", 2, **{R.RUN_IDENTITY: lambda i: ids[i * 9999]}))
        st.add(_as(recs, "902", "refs/heads/main", 3, **{R.RUN_IDENTITY: lambda i: ids[i * 9999 + 1]}))
        hits = st.reusable(ids)
        assert {i: [r[R.RUN_ID] for r in found] for i, found in hits.items()} == {
            **{ids[i * 9999]: ["901"] for i in range(5)}, **{ids[i * 9999 + 1]: ["902"] for i in range(5)}}

    def read():
        with store.open_store(pg_url) as st:
            return st.reusable(ids[:2 * 9999 + 2]), st.records_of_keys([recs[0][R.CONFIG_KEY]], "refs/heads/main",
                                                                       runs=[f"run-{i}" for i in range(500)] + ["901"])
    expected = _unchunked(monkeypatch, read)
    assert len(expected[0]) == 6 and len(expected[1]) == 5
    assert read() == expected
