"""What `results compare` judges as a point: a failed PR job, a run in which nothing completed,
a request-rate sweep and a point measured twice are each reported, never dropped."""

from __future__ import annotations

import json

import pytest
import sqlalchemy as sa

from helpers import VLLM_VS_SGLANG, job, run_cli, show_json, tagged_lines, vllm_output, write_job
from sweepgate.results import compare as C
from sweepgate.results import record as R
from sweepgate.results import store



def rate_sweep_twice(samples, folder):
    """A real vLLM rate sweep (6 rates) appended twice to one JSONL: each rate measured twice by one server.
    (Its file holds an SGLang server's sweep too, `--metadata framework=sgl`: no repeats of the vLLM one's,
    and refused whole, test_vllm_metadata30.)"""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "sweep.jsonl"
    path.write_text(tagged_lines(samples / VLLM_VS_SGLANG, "framework", "vllm") * 2, encoding="utf-8")
    return path


def history(folder, concs=(4, 8), runs=5, requests=40):
    """``runs`` main runs of every conc, output throughput within 1 % of 409.6 tok/s, each completing its
    ``requests``."""
    for n in range(runs):
        for conc in concs:
            row = {**job()["row"], "conc": conc}
            sidecar = job(run_id=str(100 + n), row=row, finished=f"2026-01-0{n + 1}T12:00:00+00:00")
            write_job(folder / f"main{n}", f"res_c{conc}", vllm_output(conc, output_throughput=409.6 + n,
                      **_served(requests, requests)), sidecar)


def _served(requests: int, completed: int) -> dict:
    """A vLLM output's counts of ``requests`` sent in its 100 s, ``completed`` of them completed."""
    return {"num_prompts": requests, "completed": completed, "failed": requests - completed,
            "request_throughput": completed / 100.0}


def pr_job(folder, conc, output, status="success"):
    row = {**job()["row"], "conc": conc}
    sidecar = job(run_id="777", row=row, status=status, ref="refs/pull/7/merge",
                  finished="2026-02-01T12:00:00+00:00")
    write_job(folder / "pr", f"res_c{conc}", output, sidecar)


def compare(capsys, db, *extra):
    rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "777", *extra)
    return rc, out, err


@pytest.fixture
def db(tmp_path):
    return f"sqlite:///{tmp_path / 'r.db'}"


def test_a_pr_job_that_failed_is_a_failed_point_and_fails_the_gate(tmp_path, db, capsys):
    history(tmp_path / "in")
    pr_job(tmp_path / "in", 4, vllm_output(4, output_throughput=410.0))
    pr_job(tmp_path / "in", 8, None, status="failure")  # the job's sidecar only: the script died
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path / "in"))
    assert rc == 0, err
    rc, out, err = compare(capsys, db, "--json", "--fail-on-regression")
    assert rc == 3, err
    doc = json.loads(out)
    # CONTRACTS section 8's words (five verdicts, a metric per point): the job's success rate,
    # regressed against main's; `status` says the job failed, and `failed-jobs` counts them.
    assert {p["verdict"] for p in doc["points"]} <= {"improved", "regressed", "unchanged", "insufficient-data", "new"}
    assert set(doc["counts"]) == {"improved", "regressed", "unchanged", "insufficient-data", "new"}
    failed = [p for p in doc["points"] if p.get("status") == "failure"]
    assert [(p["conc"], p["metric"], p["head"], p["verdict"]) for p in failed] == [(8, R.SUCCESS_RATE, 0.0,
                                                                                      C.REGRESSED)]
    assert failed[0]["baseline"]["n"] == 5 and failed[0]["baseline"]["median"] == 1.0 and failed[0]["change"] == -1.0
    assert doc["failed-jobs"] == 1 and doc["counts"][C.REGRESSED] == 1
    rc, out, _ = compare(capsys, db, "--markdown")
    assert rc == 0 and "#### Failed (1 point)" in out and "conc 8" in out.split("#### Failed (1 point)")[1].split("####")[0]
    rc, out, _ = compare(capsys, db)
    assert rc == 0 and "failure" in out and "1 point failed" in out


def test_a_run_in_which_nothing_completed_is_failed_not_improved(tmp_path, db, capsys):
    history(tmp_path / "in")
    zeros = vllm_output(8, completed=0, failed=40, request_throughput=0.0, output_throughput=0.0,
                        total_token_throughput=0.0,
                        **{f"{stat}_{lat}_ms": 0.0 for lat in ("ttft", "tpot", "itl", "e2el")
                           for stat in ("mean", "median", "p99")})
    pr_job(tmp_path / "in", 8, zeros)
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path / "in"))
    assert rc == 0, err
    rec = next(r for r in show_json(capsys, db, "--run", "777"))
    assert rec[R.STATUS] == "failure"
    assert not set(rec[R.METRICS]) & set(R.LATENCY_METRICS) and R.INTERACTIVITY not in rec[R.METRICS]
    assert rec[R.METRICS][R.COMPLETED] == 0  # what was measured stays: nothing completed
    rc, out, _ = compare(capsys, db, "--json", "--fail-on-regression")
    doc = json.loads(out)
    assert rc == 3 and [(p["verdict"], p["metric"], p["head"]) for p in doc["points"]] == [
        (C.REGRESSED, R.SUCCESS_RATE, 0.0)]
    assert doc["counts"][C.IMPROVED] == 0 and doc["failed-jobs"] == 1


def test_a_rate_sweep_is_a_point_per_rate_and_repeats_are_named(samples, tmp_path, db, capsys):
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(rate_sweep_twice(samples, tmp_path / "in")))
    assert rc == 0, err
    (run,) = {r[R.RUN_ID] for r in show_json(capsys, db)}
    rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", run, "--json")
    assert rc == 0, err
    doc = json.loads(out)
    rates = {p.get(R.REQUEST_RATE) for p in doc["points"]}
    assert rates == {"1", "10", "20", "30", "35", None}  # None: the unlimited ("inf") one
    assert sorted((p.get(R.REQUEST_RATE) or "inf", p["measurements"]) for p in doc["repeated"]) == [
        ("1", 2), ("10", 2), ("20", 2), ("30", 2), ("35", 2), ("inf", 2)]
    rc, out, _ = run_cli(capsys, "results", "compare", "--db", db, "--run", run, "--markdown")
    assert "6 points were measured more than once" in out and "rate 35/s" in out


def test_a_point_keeps_matching_whether_the_client_writes_inf_or_no_rate():
    assert R.rate_key("inf") is R.rate_key(None) is R.rate_key(float("inf")) is None
    assert R.rate_key(2) == R.rate_key(2.0) == R.rate_key("2") == "2"
    base = {R.CONFIG_KEY: "k", R.CONC: 4}
    assert R.point_values({**base, R.REQUEST_RATE: "inf"}) == R.point_values(base)
    assert R.point_values({**base, R.REQUEST_RATE: 2.0}) != R.point_values(base)


def test_run_ids_order_as_numbers():
    recs = [{R.CONFIG_KEY: "k", R.RUN_ID: run, R.ATTEMPT: 1, R.STATUS: "success", R.METRICS: {"x": 1}}
            for run in ("1000", "999")]
    assert [r[R.RUN_ID] for r in C.baseline_window(recs, 1)[C.point_of(recs[0])]] == ["1000"]


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_migration_0003_fills_the_rate_of_rows_stored_before_it(backend, samples, tmp_path, capsys, request):
    from alembic import command
    from alembic.config import Config

    db = f"sqlite:///{tmp_path / 'm.db'}" if backend == "sqlite" else request.getfixturevalue("pg_url")
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(rate_sweep_twice(samples, tmp_path / "in")))
    assert rc == 0, err
    cfg = Config()
    cfg.set_main_option("script_location", "sweepgate.results:migrations")
    with store.open_store(db) as st, st.engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "0002")
        assert "request_rate" not in {c["name"] for c in sa.inspect(conn).get_columns("results")}
    with store.open_store(db) as st, st.engine.connect() as conn:
        got = sorted(conn.execute(sa.text("SELECT request_rate FROM results")).scalars(), key=str)
    assert got == sorted(["1", "10", "20", "30", "35", None] * 2, key=str)


def test_a_repository_that_keeps_only_results_compares_with_default_thresholds(tmp_path, capsys, monkeypatch):
    import subprocess

    subprocess.run(["git", "init", "-q", str(tmp_path / "repo")], check=True)
    monkeypatch.chdir(tmp_path / "repo")
    history(tmp_path / "in")
    pr_job(tmp_path / "in", 4, vllm_output(4, output_throughput=410.0))
    db = f"sqlite:///{tmp_path / 'r.db'}"
    assert run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path / "in"))[0] == 0
    rc, out, err = compare(capsys, db, "--json")
    assert rc == 0, err
    assert {p["verdict"] for p in json.loads(out)["points"]} == {C.UNCHANGED}


def test_a_failed_point_is_drawn_where_its_baseline_stands(tmp_path, db, capsys):
    history(tmp_path / "in")
    pr_job(tmp_path / "in", 4, vllm_output(4, output_throughput=410.0))
    pr_job(tmp_path / "in", 8, None, status="failure")
    assert run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path / "in"))[0] == 0
    rc, _, err = compare(capsys, db, "--plots", str(tmp_path / "plots"))
    assert rc == 0, err
    (svg,) = (tmp_path / "plots").glob("*.svg")
    text = svg.read_text()
    assert text.count('id="failed-point-') == 1 and text.count('id="pr-point-') == 1
    assert ">8 failed<" in text and "PR job failed (at its baseline)" in text


@pytest.mark.parametrize("order", [(1.0, 1.0, 0.7), (0.7, 1.0, 1.0), (1.0, 0.7, 1.0)])
def test_repeats_of_a_point_are_judged_by_their_median_whatever_their_file_names(tmp_path, db, capsys, order):
    """Three result files of one PR job for conc 4: one 30 % slow outlier. The verdict is the
    median's, not the measurement whose file name sorts last."""
    history(tmp_path / "in", concs=(4,))
    row = {**job()["row"], "conc": 4}
    for i, factor in enumerate(order):
        sidecar = job(run_id="777", row=row, ref="refs/pull/7/merge", finished="2026-02-01T12:00:00+00:00")
        write_job(tmp_path / "in" / "pr", f"res_c4_{i}", vllm_output(4, output_throughput=411.6 * factor),
                  sidecar)
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path / "in"))
    assert rc == 0, err
    rc, out, err = compare(capsys, db, "--json", "--fail-on-regression")
    doc = json.loads(out)
    tput = next(p for p in doc["points"] if p["metric"] == R.OUTPUT_TPUT_PER_GPU)
    assert rc == 0 and tput["verdict"] == C.UNCHANGED, tput
    assert {p["verdict"] for p in doc["points"]} == {C.UNCHANGED}
    assert [p["measurements"] for p in doc["repeated"]] == [3]
    rc, out, _ = compare(capsys, db, "--markdown")
    assert "judged by the median of its measurements" in out


def test_a_baseline_run_s_repeats_are_one_value_their_median():
    base = [{R.CONFIG_KEY: "k", R.CONC: 4, R.RUN_ID: "1", R.ATTEMPT: 1, R.STATUS: "success",
             R.METRICS: {"x": v}} for v in (10.0, 30.0, 11.0)]
    base.append({**base[0], R.ATTEMPT: 2, R.METRICS: {"x": 50.0}})  # a re-run replaces attempt 1
    base.append({**base[0], R.RUN_ID: "2", R.METRICS: {"x": 12.0, "y": 1.0}})
    base.append({**base[0], R.RUN_ID: "2", R.METRICS: {"x": 14.0}})
    (window,) = C.baseline_window(base, 5).values()
    assert [(r[R.RUN_ID], r[R.METRICS]) for r in window] == [("2", {"x": 13.0, "y": 1.0}), ("1", {"x": 50.0})]


def test_ten_requests_in_four_hundred_newly_failing_is_a_regression_not_a_small_change(tmp_path, db, capsys):
    """2.5 % of requests failed where main never failed one of its 2,000 (beyond what main's counts
    explain: Fisher's p about 1e-8): below the 5 % relative threshold that suits throughput, but a
    success rate has a threshold of its own, 0."""
    history(tmp_path / "in", concs=(4,), requests=400)
    pr_job(tmp_path / "in", 4, vllm_output(4, output_throughput=411.6, **_served(400, 390)))
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path / "in"))
    assert rc == 0, err
    rc, out, _ = compare(capsys, db, "--json", "--fail-on-regression")
    verdicts = {p["metric"]: p["verdict"] for p in json.loads(out)["points"]}
    assert rc == 3 and verdicts[R.SUCCESS_RATE] == C.REGRESSED
    assert verdicts[R.OUTPUT_TPUT_PER_GPU] == C.UNCHANGED
    per_config = {"dsr1-fp4-b300-vllm": {"thresholds": {R.SUCCESS_RATE: 0.05}}}  # a config may allow some
    assert C.Settings(per_config=per_config).threshold_for("dsr1-fp4-b300-vllm", R.SUCCESS_RATE) == 0.05
    assert C.Settings(threshold=0.2).threshold_for("other", R.SUCCESS_RATE) == 0.0
    assert C.Settings(threshold=0.2).threshold_for("other", R.OUTPUT_TPUT_PER_GPU) == 0.2


def test_ten_requests_in_fifty_thousand_failing_reads_as_a_change_where_it_is_judged_one(tmp_path, db, capsys):
    """A run of 51,190 of 51,200 completed, where main's five completed all of theirs, is red, so its row
    must not read "1 ... 1 ... +0.0%"."""
    history(tmp_path / "in", concs=(4,), requests=51200)
    pr_job(tmp_path / "in", 4, vllm_output(4, **_served(51200, 51190)))
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path / "in"))
    assert rc == 0, err
    for flag in ("--markdown", None):
        rc, out, _ = compare(capsys, db, *([flag] if flag else []))
        (row,) = [line for line in out.splitlines() if R.SUCCESS_RATE in line and "regressed" in line]
        assert "99.980%" in row and "100.000%" in row and "-0.02%" in row, row  # as its interval needs


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_a_stored_baseline_run_s_repeats_count_as_their_median(tmp_path, capsys, request, kind):
    """From the store too: each main run measured conc 4 three times, one a 4x slow outlier whose
    file sorts last. The baseline is each run's median, so an unchanged PR is unchanged."""
    db = request.getfixturevalue("pg_url") if kind == "postgresql" else f"sqlite:///{tmp_path / 'r.db'}"
    row = {**job()["row"], "conc": 4}
    for n in range(3):
        sidecar = job(run_id=str(100 + n), row=row, finished=f"2026-01-0{n + 1}T12:00:00+00:00")
        for i, tput in enumerate((409.6 + n, 410.6 + n, 102.4)):
            write_job(tmp_path / "in" / f"main{n}", f"res_c4_{i}", vllm_output(4, output_throughput=tput), sidecar)
    pr_job(tmp_path / "in", 4, vllm_output(4, output_throughput=410.5))
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path / "in"))
    assert rc == 0, err
    rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "777", "--json")
    tput = next(p for p in json.loads(out)["points"] if p["metric"] == R.OUTPUT_TPUT_PER_GPU)
    assert tput["verdict"] == C.UNCHANGED and tput["baseline"]["n"] == 3, tput


def test_an_older_main_run_is_judged_against_the_runs_before_it(tmp_path, db, capsys):
    """Review: `compare --run 9001` (main's oldest run) used 9002..9005, its future, as baseline."""
    history(tmp_path / "in", concs=(4,))  # runs 100..104 on main, a day apart
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path / "in"))
    assert rc == 0, err
    for run, n in (("103", 3), ("100", 0)):
        rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", run, "--json")
        assert rc == 0, err
        assert {p["baseline"]["n"] for p in json.loads(out)["points"]} == {n}, (run, out)


def test_a_reader_who_stops_reading_does_not_change_the_verdict_or_lose_the_comment(tmp_path, db, capsys):
    """Review: `compare --fail-on-regression | head -1` exited 1 (rich's exit on a broken pipe),
    not 3, and wrote no --comment-file. A real process whose stdout's reader is gone."""
    import os
    import subprocess
    import sys

    from helpers import ROOT

    history(tmp_path / "in")
    pr_job(tmp_path / "in", 4, vllm_output(4, output_throughput=300.0))
    pr_job(tmp_path / "in", 8, vllm_output(8, output_throughput=300.0))
    assert run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path / "in"))[0] == 0
    comment = tmp_path / "comment.md"
    for fmt in ([], ["--json"], ["--markdown"]):
        comment.unlink(missing_ok=True)
        read, write = os.pipe()
        os.close(read)  # gone before the first byte: every write to stdout fails with EPIPE
        proc = subprocess.run([sys.executable, "-m", "sweepgate", "results", "compare", "--db", db, "--run", "777",
                               "--fail-on-regression", "--comment-file", str(comment), *fmt],
                              stdout=write, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
                              env={**os.environ, "PYTHONPATH": str(ROOT / "utils")})
        os.close(write)
        assert proc.returncode == 3 and proc.stderr == "", (fmt, proc.stderr)
        assert "regressed" in comment.read_text()


@pytest.mark.parametrize("argv, said", [
    (["--threshold", "-0.1"], "argument --threshold: -0.1 is negative"),
    (["--threshold", "nan"], "argument --threshold: nan is not a number"),
    (["--window", "1"], "argument --window: 1 is out of range; pass a number from 2 to 1000 (an interval needs 2 baseline runs)"),
    (["--window", "2", "--min-samples", "3"], "argument --min-samples: 3 is above --window 2"),
    (["--window", "99999999999999999999999"],  # was an OverflowError
     "argument --window: 99999999999999999999999 is out of range; pass a number from 2 to 1000 (an interval needs 2 baseline runs)"),
])
def test_flag_values_out_of_range_say_what_is_wrong_with_them(db, capsys, argv, said):
    """Review: `--threshold -0.1` read "not a relative change below 1"; `--window 2` alone blamed a
    --min-samples never passed (its default, 3)."""
    with pytest.raises(SystemExit) as exit_:
        run_cli(capsys, "results", "compare", "--db", db, "--run", "1", *argv)
    assert exit_.value.code == 2 and said in capsys.readouterr().err


def test_a_window_of_two_takes_two_samples_unless_told_otherwise(tmp_path, db, capsys):
    history(tmp_path / "in", concs=(4,), runs=2)
    pr_job(tmp_path / "in", 4, vllm_output(4, output_throughput=300.0))
    assert run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path / "in"))[0] == 0
    rc, out, err = compare(capsys, db, "--window", "2", "--json")
    tput = next(p for p in json.loads(out)["points"] if p["metric"] == R.OUTPUT_TPUT_PER_GPU)
    assert rc == 0 and tput["verdict"] == C.REGRESSED and tput["baseline"]["n"] == 2, err


def test_the_report_counts_points_apart_from_verdicts(tmp_path, db, capsys):
    """Review: "1 failed, 5 regressed" read as six points; it was one failed job and five metrics of
    one other point. A line counts points, each under its worst verdict."""
    history(tmp_path / "in", concs=(4, 8, 16))
    pr_job(tmp_path / "in", 4, vllm_output(4, output_throughput=250.0, median_tpot_ms=12.0))  # three metrics worse
    pr_job(tmp_path / "in", 8, None, status="failure")
    pr_job(tmp_path / "in", 16, vllm_output(16, output_throughput=411.6))
    assert run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path / "in"))[0] == 0
    rc, md, _ = compare(capsys, db, "--markdown")
    counts = "1 point failed, 1 point regressed (3 metrics), 1 point unchanged"  # each point once: said once (s41o)
    assert rc == 0 and md.splitlines()[1].endswith(counts) and "each by its worst verdict" not in md
    rc, out, _ = compare(capsys, db)
    assert out.splitlines()[-1].endswith(counts) and "each by its worst verdict" not in out


def test_a_failed_eval_job_is_an_eval_failure_not_the_point_s(tmp_path, db, capsys):
    """Review: at conc 4 the throughput job ran 20 % slow and the eval-only job failed; the point
    read "(job) failure", measured 2x, and the regression was in neither the table nor the JSON."""
    history(tmp_path / "in", concs=(4,))
    pr_job(tmp_path / "in", 4, vllm_output(4, output_throughput=330.0))
    eval_row = {**job()["row"], "conc": 4, "eval-only": True, "run-eval": True}
    write_job(tmp_path / "in" / "pr-eval", "res_c4_eval", None,
              job(run_id="777", row=eval_row, status="failure", ref="refs/pull/7/merge",
                  finished="2026-02-01T12:05:00+00:00"))
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path / "in"))
    assert rc == 0, err
    rc, out, _ = compare(capsys, db, "--json", "--fail-on-regression")
    doc = json.loads(out)
    verdicts = {p["metric"]: p["verdict"] for p in doc["points"]}
    assert rc == 3 and verdicts[R.OUTPUT_TPUT_PER_GPU] == C.REGRESSED and C.FAILED not in verdicts.values()
    assert "repeated" not in doc
    (failed,) = doc["evals"]
    assert (failed["task"], failed["verdict"], failed["conc"]) == ("(job)", C.FAILED, 4)
    rc, md, _ = compare(capsys, db, "--markdown")
    assert "eval scores: 1 failed" in md.splitlines()[1] and "the eval job's status is failure" in md


@pytest.mark.parametrize("finished, runs", [("2026-01-03T18:00:00+00:00", (100, 101, 102)),  # the 3 before it
                                            ("2025-12-01T12:00:00+00:00", (100, 101, 102))])  # the first 3 after it
def test_a_pr_run_compared_again_later_keeps_its_baseline(tmp_path, db, capsys, finished, runs):
    """Review: a PR run compared again after main ran more was judged against main's later runs,
    so its verdicts (and its posted comment) changed with time. A PR run that no main run came
    before (a store filled after it) is still judged, against main's first runs after it (not its
    newest, which move on every night: test_later_baseline_fixed)."""
    history(tmp_path / "in", concs=(4,))  # main runs 100..104 finished 2026-01-01..05
    row = {**job()["row"], "conc": 4}
    write_job(tmp_path / "in" / "pr", "res_c4", vllm_output(4, output_throughput=411.0),
              job(run_id="777", row=row, ref="refs/pull/7/merge", started=finished, finished=finished))
    assert run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path / "in"))[0] == 0
    rc, out, err = compare(capsys, db, "--json", "--window", "3", "--min-samples", "2")
    (tput,) = [p for p in json.loads(out)["points"] if p["metric"] == R.OUTPUT_TPUT_PER_GPU]
    median = (409.6 + runs[1] - 100) / 8  # run 10n measured 409.6 + n tok/s on 8 GPUs
    assert rc == 0 and tput["baseline"]["n"] == 3 and tput["baseline"]["median"] == pytest.approx(median), (err, tput)


@pytest.mark.parametrize("output", [None, "whole"])
def test_a_cancelled_job_s_point_is_insufficient_data_in_the_json(tmp_path, db, capsys, output):
    """Contract audit: the JSON spoke a sixth verdict ("failed", metric and head null) for a job
    that did not finish; a cancelled one measured nothing, so it is insufficient-data, with no
    head even when it left an output, and --fail-on-regression does not fail on it."""
    history(tmp_path / "in")
    pr_job(tmp_path / "in", 8, vllm_output(8) if output else None, status="cancelled")
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path / "in"))
    assert rc == 0, err
    rc, out, _ = compare(capsys, db, "--json", "--fail-on-regression")
    (point,) = [p for p in json.loads(out)["points"] if p.get("status") == "cancelled"]
    assert (point["metric"], point["head"], point["verdict"]) == (R.SUCCESS_RATE, None, C.INSUFFICIENT)
    assert rc == 0 and json.loads(out)["failed-jobs"] == 1


def test_a_failed_job_is_a_success_rate_of_0_whatever_its_output_counted(tmp_path, db, capsys):
    """Diff review: a job that failed after its client completed every request read "regressed"
    with a change of 0: none of a failed job's figures is judged, so it counts as 0."""
    history(tmp_path / "in")
    pr_job(tmp_path / "in", 8, vllm_output(8), status="failure")
    assert run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path / "in"))[0] == 0
    rc, out, _ = compare(capsys, db, "--json", "--fail-on-regression")
    (point,) = [p for p in json.loads(out)["points"] if p.get("status") == "failure"]
    assert (point["head"], point["baseline"]["median"], point["change"], point["verdict"]) == (
        0.0, 1.0, -1.0, C.REGRESSED)
    assert rc == 3


def test_a_failed_job_without_a_baseline_is_new_and_fails_nothing(tmp_path, db, capsys):
    """Diff review: exit 3 while the JSON showed no regression (a new config's failed job read
    `new`); the exit follows the JSON (the job's own failure already marks the run)."""
    pr_job(tmp_path / "in", 8, None, status="failure")
    assert run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path / "in"))[0] == 0
    rc, out, _ = compare(capsys, db, "--json", "--fail-on-regression")
    doc = json.loads(out)
    assert [(p["verdict"], p["head"]) for p in doc["points"]] == [(C.NEW, 0.0)] and doc["failed-jobs"] == 1
    assert rc == 0
