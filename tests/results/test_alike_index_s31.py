"""s31: the look-up that keeps each measured run stored once (``store_dedup._stored_alike``) scanned the whole table.

Every output ingested without a sidecar (its run id its content's hash) looks for a stored row of another run
holding one of its measurements, by the client's output throughput, the model and the client's time. No index
covered those columns, so each file read every row of the table: 400 SGLang JSONLs took 6.5 s to ingest into
a SQLite store holding 14,000 such rows, against 1.2 s into an empty one (tests/bench/ingest_speed.py
--hashed 400 --stored 2000). Revision 0005 adds ``ix_results_alike`` (output throughput, model, finished),
on a new store and on one an older sweepgate made, its rows kept; the look-up is served by it.

The files are the real SGLang sample (tests/data/results-samples), its figures scaled a little per file:
runs of one server, each its own measurements.
"""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from helpers import SGLANG_RUNS, run_cli, scaled_sglang_runs, show_json
from test_store_edges19 import _head
from test_store_hunt18 import _old_store
from sweepgate.results import ingest, store

OLD_HEAD = "0004"  # the revision of a store made before the look-up had its index
INDEX = "ix_results_alike"
# columns of later revisions than OLD_HEAD's indexed one (0006: NULL in older rows; 0007: false in older rows)
NEWER = {"output_sha256", "run_cancelled"}


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request, env) -> str:
    return request.getfixturevalue("pg_url") if request.param == "postgresql" else f"sqlite:///{env / 'old.db'}"


def stored_by_an_older_sweepgate(url: str, records: list[dict], revision: str = OLD_HEAD) -> None:
    """A store made by the migrations up to ``revision``, ``records`` inserted as that sweepgate's ``add`` did."""
    _old_store(url, revision)
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        table = sa.Table("results", sa.MetaData(), autoload_with=conn)
        conn.execute(table.insert(), [{k: v for k, v in store.Store._row(None, rec, "2026-12-01T00:00:00+00:00").items()
                                       if k in table.c} for rec in records])
    engine.dispose()


def indexes_and_rows(url: str) -> tuple[dict[str, list[str]], str, list[tuple]]:
    """(the results table's indexes and their columns, the schema revision, every row as stored)."""
    engine = sa.create_engine(url)
    with engine.connect() as conn:
        indexes = {ix["name"]: ix["column_names"] for ix in sa.inspect(conn).get_indexes("results")}
        revision = conn.exec_driver_sql("SELECT version_num FROM alembic_version").scalar()
        table = sa.Table("results", sa.MetaData(), autoload_with=conn)  # as it is (an older one: fewer columns)
        kept = [c for c in store.results.c if c.name != "record" and c.name in table.c and c.name not in NEWER]
        rows = sorted(tuple(r) for r in conn.execute(sa.select(*kept, sa.cast(store.results.c.record, sa.Text))))
    engine.dispose()
    return indexes, revision, rows


def test_an_older_store_holding_rows_gets_the_index_when_it_is_upgraded(backend, tmp_path, capsys):
    """Its rows as they were, the look-up still finding them: a grown JSONL's stored lines are not stored twice."""
    lines = SGLANG_RUNS.read_text(encoding="utf-8").splitlines(keepends=True)
    first = tmp_path / "runs" / "bench.jsonl"
    first.parent.mkdir()
    first.write_text("".join(lines[:4]), encoding="utf-8")
    scaled_sglang_runs(tmp_path / "others", 3, first=1)  # (run 0 is the sample as it is: the grown file)
    records = [rec for path in (first, *sorted((tmp_path / "others").iterdir())) for rec in ingest.records_of(path)]
    stored_by_an_older_sweepgate(backend, records)
    indexes, revision, before = indexes_and_rows(backend)
    assert revision == OLD_HEAD and INDEX not in indexes and len(before) == 4 + 3 * 7
    with store.open_store(backend):  # the first command to open it upgrades it
        pass
    indexes, revision, after = indexes_and_rows(backend)
    assert revision == _head()  # 0006 since s34a (output_sha256), 0007 since s47c (run_cancelled)
    assert indexes[INDEX] == ["output_throughput", "model", "finished"]  # was absent: every look-up a scan
    assert after == before
    first.write_text("".join(lines), encoding="utf-8")  # grown: new bytes, the run its first 4 lines are stored in
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", backend, str(first))
    assert rc == 0, err
    assert out.splitlines()[-1].startswith("ingested 7 results (3 new)"), out
    assert len(show_json(capsys, backend)) == len(before) + 3


def _look_ups(engine: sa.Engine, seen: list[tuple[str, object]]) -> None:
    """Keep in ``seen`` each statement (as sent, with its parameters) of ``_stored_alike``'s look-up."""
    @sa.event.listens_for(engine, "before_cursor_execute")
    def kept(conn, cursor, statement, parameters, context, executemany):
        if "output_throughput IN" in statement and "record" in statement and not executemany:
            seen.append((statement, parameters))


def _stored_hashed(url: str, capsys, tmp_path) -> list[tuple[str, object]]:
    """The look-ups of the last of 30 hashed SGLang JSONLs ingested one by one into the store at ``url``."""
    scaled_sglang_runs(tmp_path / "runs", 30)
    files = sorted((tmp_path / "runs").iterdir())
    assert run_cli(capsys, "results", "ingest", "--db", url, *map(str, files[:-1]))[0] == 0
    seen: list = []
    with store.open_store(url) as st:
        _look_ups(st.engine, seen)
        outcome = ingest.ingest([str(files[-1])], st)
    assert outcome.new == 7 and not outcome.problems
    assert seen, "no look-up of a stored measurement was made"
    return seen


def test_the_look_up_of_a_stored_measurement_reads_its_index_not_the_table_sqlite(db, capsys, tmp_path):
    seen = _stored_hashed(db, capsys, tmp_path)
    engine = sa.create_engine(db)
    with engine.connect() as conn:
        for statement, parameters in seen:
            plan = [row[3] for row in conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {statement}", parameters)]
            assert any(f"USING INDEX {INDEX}" in step for step in plan), plan  # was 'SCAN results'
            assert not any(step.startswith("SCAN results") for step in plan), plan
    engine.dispose()


def test_the_look_up_of_a_stored_measurement_can_read_its_index_postgresql(pg_url, capsys, tmp_path):
    """PostgreSQL picks a scan of so small a table by its costs; with scans made dear, the index serves the look-up
    (the planner falls back on a scan only when no index fits)."""
    seen = _stored_hashed(pg_url, capsys, tmp_path)
    engine = sa.create_engine(pg_url)
    with engine.connect() as conn:
        conn.exec_driver_sql("SET enable_seqscan = off")
        for statement, parameters in seen:
            plan = "\n".join(row[0] for row in conn.exec_driver_sql(f"EXPLAIN {statement}", parameters))
            assert INDEX in plan and "Seq Scan" not in plan, plan
    engine.dispose()
