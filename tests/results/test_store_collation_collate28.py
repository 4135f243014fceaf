"""collate28: a PostgreSQL store whose database compares text by a linguistic collation orders runs as
`results compare` does in Python, by code point.

The store orders times and run ids as text in SQL (``store_query._happened``, ``_run_order``, ``_time_order``),
the same text Python orders in ``record.happened``/``run_order``/``time_order``. SQLite compares text by
its bytes (code points, as Python); a PostgreSQL database compares it by its default collation, which
``initdb`` takes from the server's locale: on a server set up with ``en_US.UTF-8`` or ICU's ``und`` that is
linguistic (punctuation before digits, ``_`` before ``-``, ``.`` before ``+``, letters case-blind first).
There ``2026-11-10T10:00:00.500000+00:00`` (half a second past ten) sorted before ``2026-11-10T10:00:00+00:00``
and ``run_B`` before ``run-a``, so the store took a different run for the newest, let a main run half a second
after a PR's start into the PR's baseline, and picked other baseline runs than the same records read from
`--baseline-jsonl` files. Each test here fails on such a database without ``COLLATE "C"`` in those queries.
The databases are made with ICU's root locale (``CREATE DATABASE … LOCALE_PROVIDER icu ICU_LOCALE 'und'``):
Debian's PostgreSQL is built with ICU, and the test machines have no libc locale but C."""

from __future__ import annotations

import datetime as dt
import json
import os

import pytest
from hypothesis import given, settings

import pgserver
import test_store_files_same_baseline_timeless27 as same  # its records, stores and comparisons both ways
from helpers import ROW, job, run_cli, vllm_output, write_job
from sweepgate.results import record as R
from sweepgate.results import store
from sweepgate.results.store_adapter import point_dict

ICU_LOCALE = "und"  # ICU's root locale: CLDR's default order, which en-US and most others share
MAIN, PR_REF, KEY = same.MAIN, same.PR_REF, same.KEY
T = dt.datetime(2026, 11, 10, 10, tzinfo=dt.timezone.utc)


def at(seconds: float) -> str:
    """A time ``seconds`` after T, as ingest stores it (``R.stored_time``: microseconds only when it has any)."""
    return (T + dt.timedelta(seconds=seconds)).isoformat()


@pytest.fixture
def linguistic(pg_server):
    """An empty database whose text compares linguistically; it must really order these texts otherwise
    than Python does, or every test here would pass on it without the fix."""
    import sqlalchemy as sa

    database = pgserver.database(pg_server, icu_locale=ICU_LOCALE)
    try:
        url = database.__enter__()
    except sa.exc.SQLAlchemyError as exc:
        if os.environ.get("SWEEPGATE_REQUIRE_PG"):
            raise
        pytest.skip(f"the PostgreSQL server makes no ICU database: {str(exc).splitlines()[0]}")
    try:
        engine = sa.create_engine(url)
        with engine.connect() as conn:
            pairs = [("run_B", "run-a"), (at(0.5), at(0)), ("dsr1_fp4", "dsr1-fp8")]
            for low, high in pairs:
                assert high < low  # by code point, as Python compares them
                said = conn.execute(sa.text("SELECT CAST(:a AS text) < CAST(:b AS text)"), {"a": low, "b": high})
                assert said.scalar()  # by the database's collation
        engine.dispose()
        yield url
    finally:
        database.__exit__(None, None, None)


@pytest.fixture(params=["sqlite", "postgresql", "postgresql-icu"])
def backend(request, env) -> str:
    """An empty store's URL: SQLite, PostgreSQL with the server's C collation, and with ICU's."""
    if request.param == "sqlite":
        return f"sqlite:///{env / 'r.db'}"
    return request.getfixturevalue("pg_url" if request.param == "postgresql" else "linguistic")


def timed(run: str, when: str | None, *, conc: int = 4, ref: str = MAIN, value: float = 1000.0, **kw) -> dict:
    """A job's record as ingest stores it, started and finished at ``when``."""
    rec = same._record(run, conc, ref=ref, hours=0, value=value, **kw)
    rec[R.STARTED] = rec[R.FINISHED] = when
    return rec


# --- the store's own queries ---------------------------------------------------------------------------

RECORDS = [timed(run, when, value=1000.0 + i) for i, (run, when) in enumerate([
    ("run-a", at(0)), ("run_B", at(0)), ("run-b", at(0)), ("Run-c", at(0)), ("run.d", at(0)), ("100", at(0)),
    ("99", at(0)), ("101", at(0.5)), ("102", at(1)), ("103", at(0.25)), ("104", None), ("run_e", None),
    ("run-f", None)])]


def _brief(records: list[dict]) -> list[tuple]:
    return [(r[R.RUN_ID], r[R.FINISHED]) for r in records]


def test_records_are_ordered_as_python_orders_them(linguistic):
    """Newest first (``records``, ``last_runs``), oldest first (``history``) and the newest of a point
    (``latest_per_point``) are ``R.time_order``'s: ``101`` (10:00:00.5) came after ``100`` (10:00:00), and of
    one time ``run_B`` after ``run-a``."""
    with store.open_store(linguistic) as st:
        for rec in RECORDS:
            st.add([rec])
        newest = sorted(RECORDS, key=R.time_order, reverse=True)
        assert _brief(st.records()) == _brief(newest)
        assert _brief(st.history(point_dict(RECORDS[0]))) == _brief(newest[::-1])
        assert _brief(st.latest_per_point()) == _brief(newest[:1])
        assert _brief(st.last_runs(MAIN, point_dict(RECORDS[0]), n=4)) == _brief(newest[:4])


def test_a_run_s_past_and_future_are_cut_at_its_time_as_python_cuts_them(linguistic):
    """``before``/``after`` (a run's past; a point's first runs from a PR's time on): half a second past ten
    is after ten, not before it."""
    with store.open_store(linguistic) as st:
        for rec in RECORDS:
            st.add([rec])
        point = point_dict(RECORDS[0])
        before = st.last_runs_of_points(MAIN, [point], n=20, before=at(0.25))
        after = st.last_runs_of_points(MAIN, [point], n=20, after=at(0.25))
    assert sorted(_brief(before)) == sorted(_brief(r for r in RECORDS if R.happened(r) < at(0.25)))
    assert sorted(_brief(after)) == sorted(_brief(r for r in RECORDS if R.happened(r) >= at(0.25)))


def test_a_pr_s_runs_are_ordered_by_their_last_time(linguistic):
    """``runs_of_pr`` (the PR's runs `--run 7` is told of, the newest last): run ``x`` ended at 10:00:00.7, ``y``
    at 10:00:00.3, so ``y`` is the older; MAX() by the database's collation took 10:00:00 for ``x``'s end."""
    with store.open_store(linguistic) as st:
        st.add([timed("x", at(0), ref=PR_REF), timed("x", at(0.7), ref=PR_REF, conc=8),
                timed("y", at(0.3), ref=PR_REF)])
        assert st.runs_of_pr(7) == ["y", "x"]


def test_a_result_finished_after_since_is_reusable(linguistic):
    """``reusable(since=…)`` (`ci reuse`'s oldest result it may reuse): one finished half a second after
    ``since`` is young enough."""
    rec = {**timed("101", at(0.5)), R.RUN_IDENTITY: "identity-1"}
    with store.open_store(linguistic) as st:
        st.add([rec])
        assert list(st.reusable(["identity-1"], since=at(0))) == ["identity-1"]
        assert st.reusable(["identity-1"], since=at(1)) == {}


def test_a_run_s_results_are_ordered_by_config_key_as_text_is_in_python(linguistic):
    """``run_results``: by config key, hardware, conc, as Python orders the keys' text."""
    records = [{**timed("101", at(0), conc=conc), R.CONFIG_KEY: key, R.RESULT_FILENAME: f"{key}-{conc}"}
               for key in ("dsr1_fp4", "dsr1-fp8", "Dsr1-fp8") for conc in (8, 4)]
    with store.open_store(linguistic) as st:
        st.add(records)
        got = [(r[R.CONFIG_KEY], r[R.CONC]) for r in st.run_results("101")]
    assert got == sorted((r[R.CONFIG_KEY], r[R.CONC]) for r in records)


# --- `results compare` from a store and from files -----------------------------------------------------

def test_the_newest_of_runs_of_no_time_is_the_later_run_id_as_text_both_ways(backend, env, capsys):
    """Main's runs ``run-a`` and ``run_b`` measured conc 4, their outputs ingested by hand (``--row``,
    ``--run-id``) with no time; the PR measured conc 8 only. Of one time (none, too) the newer run is the
    later id: ``run_b`` by code point (Python, the files), ``run-a`` in a store of a linguistic collation
    (``_`` before ``-``), so the conc 4 the PR did not measure was said to be main's of another run
    (``baseline-run``)."""
    jsonl = env / "main.jsonl"

    def ingest(*argv) -> None:
        rc, _, err = run_cli(capsys, "results", "ingest", "--db", backend, "--jsonl", str(jsonl), *argv)
        assert rc == 0, err

    (env / "row.json").write_text(json.dumps(ROW))  # conc 4
    for run in ("run-a", "run_b"):
        doc = vllm_output(4)
        del doc["date"]  # an output that states no time
        ingest(str(write_job(env / run, "res", doc, None)), "--row", str(env / "row.json"), "--config-key", KEY,
               "--ref", MAIN, "--run-id", run)
    write_job(env / "pr", "res-8", vllm_output(8), job("200", ref=PR_REF, row={**ROW, "conc": 8}, started=at(3600),
                                                       finished=at(3660)))
    ingest(str(env / "pr"))
    from_store, from_files = same.compared_both_ways(backend, jsonl, "200")
    assert [(p["conc"], p["baseline-run"]) for p in from_files["not-measured"]] == [(4, "run_b")]
    assert from_store["not-measured"] == from_files["not-measured"]
    assert from_store == from_files


def test_the_newest_run_of_one_second_is_the_one_that_ended_last_both_ways(backend, env):
    """Main's run 101 ended at 10:00:00.5, runs 102, 103 and 104 at 10:00:00: 101 and 104 are the newest two, by
    Python and the files; a store of a linguistic collation put ``.5`` before the whole second, read 104, 103
    and 102 for the newest three (one more than `--window 2`), and the PR was judged against 104 and 103."""
    main = [timed("101", at(0.5), value=1200.0), timed("102", at(0), value=800.0), timed("103", at(0), value=900.0),
            timed("104", at(0), value=1000.0)]
    pr = [timed("200", at(3600), ref=PR_REF, value=1050.0)]
    same._stored(backend, env / "all.jsonl", main + pr)
    from_store, from_files = same.compared_both_ways(backend, env / "all.jsonl", "200", "--window", "2")
    assert same._tput(from_files)[1:] == (2, pytest.approx(1100.0))
    assert same._tput(from_store) == same._tput(from_files)
    assert from_store == from_files


def test_a_main_run_half_a_second_after_the_pr_is_not_in_its_past_both_ways(backend, env):
    """The PR's run started at 10:00:00; main's run 102 ended half a second later, run 101 a day before. The
    PR's baseline is its past, run 101 alone (the files); a store of a linguistic collation took 10:00:00.5
    for before 10:00:00 and judged the PR against both."""
    main = [timed("101", at(-86400), value=1000.0), timed("102", at(0.5), value=1400.0)]
    pr = [timed("200", at(0), ref=PR_REF, value=1050.0)]
    same._stored(backend, env / "all.jsonl", main + pr)
    from_store, from_files = same.compared_both_ways(backend, env / "all.jsonl", "200")
    assert same._tput(from_files)[1:] == (1, pytest.approx(1000.0))
    assert same._tput(from_store) == same._tput(from_files)
    assert from_store == from_files


# --- the generated histories, on a database of a linguistic collation ----------------------------------

def _twisted(history: tuple[list[dict], str]) -> tuple[list[dict], str]:
    """A generated history with run ids and times a linguistic collation orders otherwise than Python: each
    run ``N`` is ``run-N`` or ``run_N`` (odd, even), and a third of the runs measured half a second past their
    hour (a ``ci reuse`` copy keeps the time of the run it copies)."""
    records, run = history

    def named(n) -> str:
        return f"run{'-_'[int(n) % 2]}{n}"

    def shifted(t: str | None, n) -> str | None:
        return t if t is None or int(n) % 3 else (dt.datetime.fromisoformat(t) + dt.timedelta(seconds=0.5)).isoformat()

    out = []
    for rec in records:
        origin = R.measured_by(rec)[0]
        rec = {**rec, R.RUN_ID: named(rec[R.RUN_ID]), R.STARTED: shifted(rec.get(R.STARTED), origin),
               R.FINISHED: shifted(rec.get(R.FINISHED), origin)}
        if isinstance(rec.get(R.REUSED_FROM), dict):
            rec[R.REUSED_FROM] = {**rec[R.REUSED_FROM], R.RUN_ID: named(rec[R.REUSED_FROM][R.RUN_ID])}
        out.append(rec)
    return out, named(run)


def _same_both_ways(url: str, folder, history: tuple[list[dict], str]) -> None:
    """``same._same_both_ways`` with `--window 2`: fewer runs than the generated ones, so which are the
    newest matters more often."""
    records, run = history
    jsonl = folder / f"{next(same._COUNT)}.jsonl"
    same._stored(url, jsonl, records)
    from_store, from_files = same.compared_both_ways(url, jsonl, run, "--window", "2", "--min-samples", "2")
    assert from_store == from_files, "\n".join(map(str, [f"run {run}", *same._brief(records), "store | files:",
                                                          *same._differences(from_store, from_files)]))


@settings(max_examples=15, **same.GENERATED)
@given(history=same.histories().map(_twisted))
def test_the_store_and_the_files_pick_the_same_baseline_on_a_linguistic_postgresql(history, env, pg_server):
    with pgserver.database(pg_server, icu_locale=ICU_LOCALE) as url:
        _same_both_ways(url, env, history)


@settings(max_examples=15, **same.GENERATED)
@given(history=same.histories().map(_twisted))
def test_the_store_and_the_files_pick_the_same_baseline_of_such_runs_on_sqlite(history, env):
    """The same histories on SQLite (BINARY, its default collation, is by code point): the control."""
    _same_both_ways(f"sqlite:///{env / f'r{next(same._COUNT)}.db'}", env, history)

