"""timeless27: `results compare` picks the same baseline from a results store (`--db`) as from files
(`--baseline-jsonl`) holding the same records.

A record that carries no time (neither started nor finished: an output ingested with `--row` that states
none, such as an SGLang line or a vLLM output without its `date`) was placed by the store at the time it
was ingested, and by compare, reading files, as older than any record with a time. A dateless main result
ingested after a PR run left a point main measured only after the run one main measured only after it in
the store (judged against main's first 5 runs from then), and one main measured before it in the files
(judged against the dateless result alone).

One rule now, both ways (``record.happened``/``record.time_order``; ``store._happened``/``store._time_order``
in SQL): a record's finished time, else its started; one without either happened before every record that
has one (history filled in by hand); records of one time, those without any too, are ordered by run id
(GitHub's grow with time), then attempt: records of one time were ordered by insertion in the store and
by run id in compare, and a record with a start alone by its start in the store and as timeless in
compare."""

from __future__ import annotations

import contextlib
import datetime as dt
import io
import json
from pathlib import Path

import pytest

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
