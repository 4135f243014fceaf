"""timeless27: `results compare` picks the same baseline from a results store (`--db`) as from files
(`--baseline-jsonl`) holding the same records.

A record that carries no time (neither started nor finished: an output ingested with `--row` that states
none, such as an SGLang line or a vLLM output without its `date`) was placed by the store at the time it
was ingested, and by compare, reading files, as older than any record with a time. A dateless main result
ingested after a PR run left a point main measured only after the run one main measured only after it in
the store (judged against main's first 5 runs from then), and one main measured before it in the files
(judged against the dateless result alone).

One rule now, both ways (``record.happened``/``record.time_order``;
``store_query._happened``/``store_query._time_order`` in SQL): a record's finished time, else its started; one
without either happened before every record that has one (history filled in by hand); records of one time, those
without any too, are ordered by run id (GitHub's grow with time), then attempt: records of one time were ordered
by insertion in the store and by run id in compare, and a record with a start alone by its start in the store and
as timeless in compare.

The same records fed both ways are then compared both ways over generated histories (times tied, missing
or a start alone; failed jobs, retried attempts, rehearsals, `ci reuse` copies, eval scores; several
seq-lens; a run compared before, among or after main's, or one of main's again), on SQLite and on
PostgreSQL. They found one more divergence, main's picture for "not measured" (its own test below)."""

from __future__ import annotations

import contextlib
import datetime as dt
import io
import itertools
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pgserver
import synth
from helpers import ROW, job, run_cli, vllm_output, write_job
from sweepgate import cli
from sweepgate.results import record as R
from sweepgate.results import store

KEY = "dsr1-fp4-b300-vllm"  # helpers.job's config key
PR_REF, MAIN = "refs/pull/7/merge", synth.MAIN
TPUT = R.OUTPUT_TPUT_PER_GPU


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request, env) -> str:
    """An empty store's URL: SQLite, and PostgreSQL (``pg_url``)."""
    return request.getfixturevalue("pg_url") if request.param == "postgresql" else f"sqlite:///{env / 'r.db'}"


def compared_both_ways(url: str, jsonl: Path, run: str, *extra) -> tuple[dict, dict]:
    """`results compare --json` of ``run`` (read from the store) with the store's baseline, and with
    ``jsonl``'s (`--baseline-jsonl`)."""
    outs = []
    for files in ((), ("--baseline-jsonl", str(jsonl))):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = cli.main(["results", "compare", "--db", url, "--run", run, "--json", *extra, *files])
        assert rc == 0, err.getvalue()
        outs.append(json.loads(out.getvalue()))
    return outs[0], outs[1]


def _stored(url: str, jsonl: Path, records: list[dict]) -> None:
    """``records`` in the store at ``url`` and in ``jsonl``, one ingest after another, as the records came
    (``results ingest --jsonl`` writes each record as one JSON line)."""
    with store.open_store(url) as st_:
        for rec in records:
            st_.add([rec])
    jsonl.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in records))


def _tput(out: dict) -> tuple:
    """(verdict, baseline n, baseline median) of the one point's per-GPU throughput."""
    (point,) = [p for p in out["points"] if p["metric"] == TPUT]
    return point["verdict"], point["baseline"]["n"], point["baseline"]["median"]


def _dateless_output(folder: Path, tput: float) -> list[str]:
    """A vLLM output without its `date`, and the `--row` flags that ingest it under KEY."""
    doc = vllm_output(output_throughput=tput)
    del doc["date"]
    (folder / "row.json").write_text(json.dumps(ROW))
    return [str(write_job(folder / "by-hand", "res", doc, None)), "--row", str(folder / "row.json"),
            "--config-key", KEY, "--ref", MAIN]


def test_a_dateless_main_result_ingested_after_the_run_is_one_baseline_both_ways(backend, env, capsys):
    """PR run 500 ran 20 days ago; main measured its point only after it, in runs 601..606 a day apart, and an
    output of main's run 600 that states no time was ingested by hand today. Ingested into a store and written
    with `--jsonl` by the same ingests, the store judged the PR against runs 601..605 (n 5: it placed run 600
    today, after them) and the files against run 600 alone (n 1, insufficient-data). Both now do as the files
    did: without a time, run 600 is main's history from before any run with one, so main measured the point
    before the PR ran, and only run 600 is from before it."""
    jsonl = env / "main.jsonl"
    t0 = dt.datetime.now(dt.timezone.utc).replace(microsecond=0) - dt.timedelta(days=20)

    def at(days: int) -> str:
        return (t0 + dt.timedelta(days=days)).isoformat()

    def ingest(*argv) -> None:
        rc, _, err = run_cli(capsys, "results", "ingest", "--db", backend, "--jsonl", str(jsonl), *argv)
        assert rc == 0, err

    ingest(str(write_job(env / "pr", "res", vllm_output(), job("500", ref=PR_REF, started=at(0), finished=at(0)))))
    for n in range(1, 7):
        side = job(str(600 + n), started=at(n), finished=at(n))
        ingest(str(write_job(env / f"main-{n}", "res", vllm_output(output_throughput=400.0 + 10 * n), side)))
    ingest(*_dateless_output(env, 700.0), "--run-id", "600")
    (rec,) = [r for r in map(json.loads, jsonl.read_text().splitlines()) if r[R.RUN_ID] == "600"]
    assert rec.get(R.STARTED) is None and rec.get(R.FINISHED) is None  # the record carries no time

    from_store, from_files = compared_both_ways(backend, jsonl, "500")
    assert _tput(from_store) == _tput(from_files), (_tput(from_store), _tput(from_files))
    assert _tput(from_store)[:2] == ("insufficient-data", 1)
    assert from_store == from_files


def test_results_show_does_not_take_a_dateless_result_ingested_later_for_the_newest(env, capsys):
    """The same rule in `results show`: main's run of yesterday is the newest figure of the point, not a
    dateless output of an older run ingested by hand after it (the newest by its ingest time)."""
    db = f"sqlite:///{env / 'r.db'}"
    yesterday = (dt.datetime.now(dt.timezone.utc).replace(microsecond=0) - dt.timedelta(days=1)).isoformat()
    path = write_job(env / "main", "res", vllm_output(output_throughput=400.0),
                     job("601", started=yesterday, finished=yesterday))
    assert run_cli(capsys, "results", "ingest", "--db", db, str(path))[0] == 0
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, *_dateless_output(env, 700.0), "--run-id", "590")
    assert rc == 0, err
    rc, shown, err = run_cli(capsys, "results", "show", "--db", db, "--json")
    assert rc == 0, err
    assert [r[R.RUN_ID] for r in json.loads(shown)] == ["601"]


# --- records as ingest stores them ---------------------------------------------------------------------

POINTS = tuple((isl, conc) for isl in (1024, 8192) for conc in (4, 8, 16))  # (isl, conc)
DAY0 = dt.datetime(2026, 11, 1, tzinfo=dt.timezone.utc)
SCORE = {R.EVAL_TASK: "gsm8k", R.EVAL_METRIC: "exact_match", R.EVAL_FILTER: "strict-match", R.EVAL_STDERR: 0.01,
         R.EVAL_SAMPLES: 1319}


def _time(hours: int | None) -> str | None:
    return None if hours is None else (DAY0 + dt.timedelta(hours=hours)).isoformat()


def _record(run: str, conc: int, *, ref: str = MAIN, attempt: int = 1, hours: int | None, started_only: bool = False,
            status: str = "success", value: float, rehearsal: bool = False, evals: bool = False,
            isl: int = 1024) -> dict:
    """One job's record as ingest stores it: its times in UTC (none when ``hours`` is None; a start alone
    with ``started_only``), a failed job's without figures; with ``evals``, its eval scores' record."""
    rec = synth.make(run, synth.KEYS[0], conc, {**synth.curve(conc), TPUT: value}, ref=ref, rehearsal=rehearsal,
                     isl=isl)
    rec[R.ATTEMPT], rec[R.STATUS] = attempt, status
    rec[R.FINISHED] = None if started_only else _time(hours)
    rec[R.STARTED] = _time(hours - 1 if hours is not None and not started_only else hours)
    if status != "success":
        rec[R.METRICS] = {}
    if evals:
        rec.update({R.CLIENT: R.EVAL_CLIENT, R.RESULT_FILENAME: rec[R.RESULT_FILENAME] + "-eval", R.METRICS: {},
                    R.EVALS: [] if status != "success" else [{**SCORE, R.EVAL_VALUE: value / 2000}]})
    return rec


def _copy(origin: dict, run: str, attempt: int, ref: str) -> dict:
    """``origin`` recorded again by `ci reuse` against ``run``: it keeps the time it was measured."""
    return {**origin, R.RUN_ID: run, R.ATTEMPT: attempt, R.REF: ref,
            R.REUSED_FROM: {R.RUN_ID: origin[R.RUN_ID], R.ATTEMPT: origin[R.ATTEMPT],
                            R.RESULT_FILENAME: origin[R.RESULT_FILENAME]}}


@pytest.mark.parametrize("hours", [12, None], ids=["one-time", "no-time"])
def test_results_of_one_time_are_ordered_by_run_id_in_the_store_as_in_files(backend, env, hours):
    """Main runs 100..103 finished at one time, or stated none (outputs ingested by hand), and were ingested
    the newest run first: of one time the store took the rows inserted last for its newest (100..102, so 101
    and 102 with --window 2), where compare, and so the files, take the higher run ids (102 and 103: GitHub's
    grow with time)."""
    main = [_record(str(run), 4, hours=hours, value=1000.0 + 100 * (run - 100)) for run in (103, 102, 101, 100)]
    pr = [_record("200", 4, ref=PR_REF, hours=24, value=1150.0)]
    _stored(backend, env / "all.jsonl", main + pr)
    from_store, from_files = compared_both_ways(backend, env / "all.jsonl", "200", "--window", "2")
    assert _tput(from_files)[1:] == (2, pytest.approx(1250.0))  # runs 102 and 103
    assert _tput(from_store) == _tput(from_files)
    assert from_store == from_files


def test_results_with_a_start_and_no_end_are_ordered_by_it_in_files_as_in_the_store(backend, env):
    """Main's outputs stated when they started and not when they ended (ingested by hand): compare ordered
    records by their end alone, so it took all four for equally old and picked the higher run ids (102, 103),
    while the store ordered them by their start and picked the two that ran last (100 and 101)."""
    main = [_record(str(run), 4, hours=hours, started_only=True, value=1000.0 + 100 * (run - 100))
            for run, hours in ((103, 0), (102, 12), (101, 24), (100, 36))]
    pr = [_record("200", 4, ref=PR_REF, hours=48, value=1150.0)]
    _stored(backend, env / "all.jsonl", main + pr)
    from_store, from_files = compared_both_ways(backend, env / "all.jsonl", "200", "--window", "2")
    assert _tput(from_store)[1:] == (2, pytest.approx(1050.0))  # runs 100 and 101, the latest started
    assert _tput(from_files) == _tput(from_store)
    assert from_store == from_files


def test_main_s_picture_is_the_same_from_the_store_when_its_newest_run_re_ran_the_older_one_s_last_jobs(backend, env):
    """Not measured: main-10 swept conc 4, 128, 8, 32, 64 from 10:00 to 14:50, an hour each; main-11, dispatched
    at 13:30 while it still ran, re-ran conc 32 and 64. Main's picture is both runs (they overlap), and the PR,
    which ran conc 4 and 8, dropped conc 128 of it. From files it said so; from a store it did not: the store
    gave main-10's newest record of each point only, so main-10 seemed to end at 12:50 (its conc 8), before
    main-11 began, and was left out of the picture."""
    def timed(run: str, conc: int, start: str, end: str) -> dict:
        rec = synth.make(run, synth.KEYS[0], conc, synth.curve(conc))
        return {**rec, R.STARTED: f"2026-11-05T{start}:00+00:00", R.FINISHED: f"2026-11-05T{end}:00+00:00"}

    main = [timed("10", conc, f"{10 + i}:00", f"{10 + i}:50") for i, conc in enumerate((4, 128, 8, 32, 64))]
    main += [timed("11", 32, "13:30", "14:40"), timed("11", 64, "14:40", "15:30")]
    pr = [{**rec, R.RUN_ID: "20", R.REF: PR_REF, R.STARTED: "2026-11-06T10:00:00+00:00",
           R.FINISHED: "2026-11-06T11:00:00+00:00"} for rec in main[:4:2]]  # conc 4 and 8
    _stored(backend, env / "all.jsonl", synth.history(runs=3, keys=(synth.KEYS[0],)) + main + pr)
    from_store, from_files = compared_both_ways(backend, env / "all.jsonl", "20")
    said = [(p["conc"], p["not-measured"], p["baseline-run"]) for p in from_files["not-measured"]]
    assert said == [(32, "point", "11"), (64, "point", "11"), (128, "point", "10")]
    assert from_store["not-measured"] == from_files["not-measured"]
    assert from_store == from_files


# --- the same history both ways, generated -------------------------------------------------------------

def _measured(records: list[dict], isl: int, conc: int, run: str) -> list[dict]:
    """What `ci reuse` could copy for a point: other runs' own successful throughput records of it."""
    return [r for r in records if (r[R.ISL], r[R.CONC]) == (isl, conc) and not r.get(R.REUSED_FROM)
            and r[R.STATUS] == "success" and r.get(R.CLIENT) != R.EVAL_CLIENT and r[R.RUN_ID] != run]


@st.composite
def histories(draw) -> tuple[list[dict], str]:
    """(main's records and the compared run's, in the order they were ingested; the compared run's id)."""
    hours = st.one_of(st.none(), st.sampled_from((0, 12, 24, 36, 48, 50, 60)))  # ties, and no time
    statuses = st.sampled_from(("success", "success", "success", "failure"))
    ids = draw(st.lists(st.integers(95, 130), min_size=2, max_size=7, unique=True))
    records: list[dict] = []
    for run in map(str, ids):
        when = draw(hours)
        rehearsal = draw(st.booleans()) and draw(st.booleans())
        started_only = when is not None and draw(st.booleans())
        points = draw(st.lists(st.sampled_from(POINTS), min_size=1, max_size=4, unique=True))
        for attempt in (1, 2)[:draw(st.integers(1, 2))]:
            for isl, conc in points:
                shift = draw(st.sampled_from((0, 0, 1, -1))) if when is not None else 0
                kw = dict(attempt=attempt, hours=None if when is None else when + shift + 3 * (attempt - 1),
                          started_only=started_only, status=draw(statuses), rehearsal=rehearsal, isl=isl,
                          value=1000.0 + 7 * int(run) + conc + attempt)
                earlier = _measured(records, isl, conc, run)
                if earlier and draw(st.integers(0, 5)) == 0:  # `ci reuse` recorded an earlier result again
                    records.append(_copy(draw(st.sampled_from(earlier)), run, attempt, MAIN))
                else:
                    records.append(_record(run, conc, **kw))
                if draw(st.integers(0, 3)) == 0:
                    records.append(_record(run, conc, **kw, evals=True))
    on_main = draw(st.integers(0, 7)) == 0  # an older main run compared again
    run = str(draw(st.sampled_from(ids))) if on_main else "200"
    if not on_main:
        when, rehearsal = draw(hours), draw(st.integers(0, 5)) == 0
        for isl, conc in draw(st.lists(st.sampled_from(POINTS), min_size=1, max_size=4, unique=True)):
            earlier = _measured(records, isl, conc, run)
            if earlier and draw(st.integers(0, 4)) == 0:  # a result reused for the PR's run
                records.append(_copy(draw(st.sampled_from(earlier)), run, 1, PR_REF))
                continue
            kw = dict(ref=PR_REF, hours=when, rehearsal=rehearsal, isl=isl, status=draw(statuses), value=1100.0 + conc)
            records.append(_record(run, conc, **kw))
            if draw(st.booleans()):
                records.append(_record(run, conc, **kw, evals=True))
    return draw(st.permutations(records)), run


def _brief(records: list[dict]) -> list[tuple]:
    """Each record as (run, attempt, isl, conc, eval?, started, finished, status, copied from, rehearsal)."""
    return [(r[R.RUN_ID], r[R.ATTEMPT], r[R.ISL], r[R.CONC], r.get(R.CLIENT) == R.EVAL_CLIENT,
             (r.get(R.STARTED) or "")[5:13], (r.get(R.FINISHED) or "")[5:13], r[R.STATUS],
             (r.get(R.REUSED_FROM) or {}).get(R.RUN_ID), r[R.REHEARSAL]) for r in records]


def _differences(a: dict, b: dict) -> list:
    """The entries of two `--json` outputs that differ, side by side."""
    out = []
    for name in sorted(set(a) | set(b)):
        x, y = a.get(name), b.get(name)
        if isinstance(x, list) and isinstance(y, list) and len(x) == len(y):
            out += [(name, i, p, q) for i, (p, q) in enumerate(zip(x, y)) if p != q]
        elif x != y:
            out.append((name, x, y))
    return out


def _same_both_ways(url: str, folder: Path, history: tuple[list[dict], str]) -> None:
    records, run = history
    jsonl = folder / f"{next(_COUNT)}.jsonl"
    _stored(url, jsonl, records)
    from_store, from_files = compared_both_ways(url, jsonl, run, "--window", "3", "--min-samples", "2")
    assert from_store == from_files, "\n".join(map(str, [f"run {run}", *_brief(records), "store | files:",
                                                          *_differences(from_store, from_files)]))


_TEMPLATE: dict[str, bytes] = {}
_COUNT = itertools.count()
GENERATED = dict(deadline=None, derandomize=True, database=None,
                 suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                        HealthCheck.data_too_large])


@settings(max_examples=60, **GENERATED)
@given(history=histories())
def test_the_store_and_the_files_pick_the_same_baseline(history, env):
    if not _TEMPLATE:  # an empty store made once and copied: migrating one per example would take longer
        with store.open_store(f"sqlite:///{env / 'template.db'}") as st_:
            st_.add([])
        _TEMPLATE["db"] = (env / "template.db").read_bytes()
    path = env / f"r{next(_COUNT)}.db"
    path.write_bytes(_TEMPLATE["db"])
    _same_both_ways(f"sqlite:///{path}", env, history)


@settings(max_examples=12, **GENERATED)
@given(history=histories())
def test_the_store_and_the_files_pick_the_same_baseline_on_postgresql(history, env, pg_server):
    with pgserver.database(pg_server) as url:
        _same_both_ways(url, env, history)
