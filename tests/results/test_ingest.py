"""`results ingest` and `results show` end to end, on SQLite files."""

from __future__ import annotations

import datetime as dt
import json
import math
import os
import sqlite3
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import ROOT, ROW, SAMPLES, job, no_ref_said, run_cli, show_json, vllm_output, write_job
from sweepgate.results import record as R
from sweepgate.results import store


def db_of(tmp: Path) -> str:
    return f"sqlite:///{tmp / 'r.db'}"


def stored(db: str) -> list[dict]:
    with store.open_store(db) as st:
        return st.records()


def rows_in(tmp: Path) -> int:
    with sqlite3.connect(tmp / "r.db") as conn:
        return conn.execute("select count(*) from results").fetchone()[0]


def test_samples_twice_adds_nothing(samples, tmp_path, capsys):
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db_of(tmp_path), str(samples))
    assert rc == 1
    first = out.strip().splitlines()[-1]
    n = int(first.split()[1])
    assert first == f"ingested {n} results ({n} new) into {db_of(tmp_path)}" and n > 50
    refused = err.strip().splitlines()
    assert refused and all(": " in line and "; " in line for line in refused)
    rc, out, _ = run_cli(capsys, "results", "ingest", "--db", db_of(tmp_path), str(samples))
    assert out.strip().splitlines()[-1] == f"ingested {n} results (0 new) into {db_of(tmp_path)}"
    assert rows_in(tmp_path) == n


def test_sidecar_identity_and_retry(tmp_path, capsys):
    write_job(tmp_path / "a1", "res", vllm_output(), job(attempt=1))
    write_job(tmp_path / "a2", "res", vllm_output(), job(attempt=2))
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db_of(tmp_path), str(tmp_path / "a1"),
                           str(tmp_path / "a2"))
    assert rc == 0, err
    assert "ingested 2 results (2 new)" in out
    shown = show_json(capsys, db_of(tmp_path), "--run", "1001")
    assert len(shown) == 1 and shown[0][R.ATTEMPT] == 2  # one line per point: the newest attempt
    rec = shown[0]
    assert (rec[R.CONFIG_KEY], rec[R.HARDWARE], rec[R.CONC], rec[R.GPUS]) == ("dsr1-fp4-b300-vllm", "b300", 4, 8)
    assert rec[R.METRICS][R.OUTPUT_TPUT_PER_GPU] == pytest.approx(409.6 / 8)
    assert rec[R.METRICS][R.INTERACTIVITY] == pytest.approx(125.0)


def test_failed_run_is_a_failure(tmp_path, capsys):
    zeros = vllm_output(completed=0, failed=40, request_throughput=0.0, output_throughput=0.0,
                        total_token_throughput=0.0)
    write_job(tmp_path, "res", zeros, job())
    write_job(tmp_path, "dead", None, job(run_id="1001", status="failure"))
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db_of(tmp_path), str(tmp_path))
    assert rc == 0, err
    shown = stored(db_of(tmp_path))
    assert sorted(r[R.STATUS] for r in shown) == ["failure", "failure"]
    zero = next(r for r in shown if r[R.RESULT_FILENAME] == "res")
    assert zero[R.METRICS][R.SUCCESS_RATE] == 0


def test_row_flag_for_an_output_without_sidecar(tmp_path, capsys):
    out = write_job(tmp_path, "bare", vllm_output(), None)
    (tmp_path / "row.json").write_text(json.dumps(ROW))
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db_of(tmp_path), "--row", str(tmp_path / "row.json"),
                         "--run-id", "77", "--ref", "refs/pull/5/merge", "--attempt", "3", str(out))
    assert rc == 0, err
    (rec,) = show_json(capsys, db_of(tmp_path), "--run", "77")
    assert (rec[R.ATTEMPT], rec[R.REF], rec[R.TOPOLOGY]) == (3, "refs/pull/5/merge", "tp8-pp1-dcp1-pcp1-ep1-dpafalse")


def test_row_flag_for_outputs_with_their_own_sidecar_is_refused(tmp_path, capsys):
    """Hunt (D2): `--row --run-id MYRUN --ref ...` over a folder of sidecar-carrying jobs exited 0 and
    stored them under the sidecars' run, ignoring the flags without a word."""
    write_job(tmp_path / "run", "res", vllm_output(), job(run_id="pr1"))
    (tmp_path / "row.json").write_text(json.dumps(ROW))
    for target in (tmp_path / "run", tmp_path / "run" / "res.json"):
        rc, out, err = run_cli(capsys, "results", "ingest", "--db", db_of(tmp_path), "--row",
                               str(tmp_path / "row.json"), "--run-id", "MYRUN", "--ref", "refs/heads/main", str(target))
        assert rc == 1 and out == "", (out, err)
        assert err == (f"{tmp_path / 'run' / 'res.json'}: has its own job sidecar (res.job.json); --row/--run-id/"
                       "--ref are for an output without one; drop --row/--run-id/--ref to ingest it under its "
                       "sidecar's run, or pass only outputs without a .job.json\n"), err
    assert not (tmp_path / "r.db").exists()  # nothing stored


BAD = {
    "nan": (json.dumps(vllm_output(median_ttft_ms=math.nan)), "median_ttft_ms: nan is not a measurement"),
    # diff review of 632e207: named by the output's own key at its place, as a NaN is
    "negative": (json.dumps(vllm_output(median_tpot_ms=-3.0)), "median_tpot_ms: negative"),
    "unknown": (json.dumps({"hello": "world"}), "format: unknown JSON output"),
    "mismatch": (json.dumps(vllm_output(conc=8)), "max_concurrency: the output ran at concurrency 8"),
    # Hunt (D19): derived values and the request rate were not checked: Infinity and NaN were stored,
    # `show --json` then printed invalid JSON and a second ingest failed inside.
    "interactivity_inf": (json.dumps(vllm_output(median_tpot_ms=1e-320)),
                          "interactivity: inf, derived from tpot_p50_ms 9.99989e-321, is not a measurement"),
    "tput_sum_inf": (json.dumps({k: v for k, v in vllm_output(input_throughput=1e308, output_throughput=1e308).items()
                                 if k != "total_token_throughput"}),
                     # s38i: refused as no run's figure (record.MAX_FIGURE) before their sum overflows to inf
                     "output_throughput: 1e+308 is beyond any measurement (at most 1e+15, in any unit)"),
    "rate_nan": (json.dumps(vllm_output(request_rate=math.nan)), "request-rate: nan is not a rate"),
}
UNREADABLE = {
    "truncated": ('{"date": "20260101-120000", "model_id": "x", "median_ttft_ms": 1', "not valid JSON"),
    "empty": ("\n", "format: the file is empty"),
}


@pytest.mark.parametrize("case", sorted(UNREADABLE))
@pytest.mark.parametrize("status", ["success", "cancelled"])
def test_a_job_s_empty_or_cut_short_output_stores_the_job_as_failed(case, status, tmp_path, capsys):
    """Review (CI path): one cancelled job's empty output failed the whole ingest (exit 1), so the
    collect job skipped the comparison and the PR got no report. The job is stored as failed (or
    cancelled), with a warning, as when it left no output; a file without a sidecar is refused."""
    text, message = UNREADABLE[case]
    write_job(tmp_path / "in", "bad", text, job(status=status))
    write_job(tmp_path / "in", "good", vllm_output(), job(run_id="2002"))
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db_of(tmp_path), str(tmp_path / "in"))
    (line,) = err.strip().splitlines()
    assert rc == 0 and "ingested 2 results (2 new)" in out
    assert line.startswith(str(tmp_path / "in" / "bad.json")) and message in line
    assert f"the job is stored as {'failure' if status == 'success' else status}, with no figures" in line
    stored_ = {r[R.RUN_ID]: r for r in stored(db_of(tmp_path))}
    assert stored_["1001"][R.STATUS] == ("failure" if status == "success" else status)
    assert not stored_["1001"][R.METRICS] and stored_["1001"][R.RESULT_FILENAME] == "bad"
    (tmp_path / "loose.json").write_text(text)  # no job: refused as before
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db_of(tmp_path), str(tmp_path / "loose.json"))
    assert rc == 1 and message in err
    # the warning is placed as the refusal is, column too (review of 6e5039c: 'bad.json:1: warning: ...')
    place = err.split(": ", 1)[0].removeprefix(str(tmp_path / "loose.json"))
    assert line.startswith(f"{tmp_path / 'in' / 'bad.json'}{place}: warning: "), (line, err)


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_input_one_line_and_nothing_stored(case, tmp_path, capsys):
    text, message = BAD[case]
    write_job(tmp_path, "bad", text, job())
    write_job(tmp_path, "good", vllm_output(), job(run_id="2002"))
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db_of(tmp_path), str(tmp_path))
    assert rc == 1
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(str(tmp_path / "bad.json")) and message in lines[0]
    assert "Traceback" not in err
    assert "ingested 1 results (1 new)" in out and rows_in(tmp_path) == 1


def test_read_only_database(tmp_path, capsys):
    write_job(tmp_path, "good", vllm_output(), job())
    rc, _, _ = run_cli(capsys, "results", "ingest", "--db", db_of(tmp_path), str(tmp_path))
    assert rc == 0
    ro = f"sqlite:///file:{tmp_path / 'r.db'}?mode=ro&uri=true"
    write_job(tmp_path, "other", vllm_output(), job(run_id="3003"))
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", ro, str(tmp_path))
    # the database's line, then how far the ingest got (good.json, already stored, went through)
    first, stopped = err.strip().splitlines()
    assert rc == 1 and "readonly" in first and "Traceback" not in err
    assert stopped.startswith("sweepgate results ingest: stopped by the database after 1 of 2 files")
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", "sqlite:////proc/no/such/dir/r.db", str(tmp_path))
    # the review: "check that the database exists" misled; ingest creates it, its folder is missing
    assert rc == 1 and len(err.strip().splitlines()) == 1 and "the store's folder /proc/no/such/dir does not exist" in err
    # said before any file is read (new-user review: every input was read, then "ingested 0 results ... into")
    assert out == "", out


def test_a_store_or_jsonl_under_a_file_says_the_folder_is_a_file(tmp_path, capsys):
    # A new user's `--db sqlite:///out/r.db` where out is a file was told "folder out does not exist".
    write_job(tmp_path, "good", vllm_output(), job())
    (tmp_path / "afile").write_text("")
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'afile' / 'r.db'}",
                         str(tmp_path / "good.json"))
    assert rc == 1 and f"the store's folder {tmp_path / 'afile'} is a file, not a folder" in err, err
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db_of(tmp_path), "--jsonl",
                         str(tmp_path / "afile" / "r.jsonl"), str(tmp_path / "good.json"))
    # the shared words of every file flag (core.outpaths.writable_file), no longer --jsonl's own (s31i)
    assert rc == 1 and err == (f"{tmp_path / 'afile' / 'r.jsonl'}: --jsonl: {tmp_path / 'afile'} is a file, not a "
                               "folder; pass --jsonl in an existing folder\n"), err  # s32c: as the store's folder


def test_a_default_store_whose_folder_is_a_file_is_refused_before_any_input_is_read(tmp_path, capsys, monkeypatch):
    # Review: .sweepgate a file in the checkout (the default store's folder) still read every input, then
    # "ingested 0 results ... into", as a --db under a file did before it was checked first.
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / ".sweepgate").write_text("")
    write_job(repo, "good", vllm_output(), job())
    monkeypatch.chdir(repo)
    monkeypatch.delenv("SWEEPGATE_DB", raising=False)
    rc, out, err = run_cli(capsys, "results", "ingest", str(repo / "good.json"))
    assert rc == 1 and out == "" and f"the store's folder {repo / '.sweepgate'} is a file, not a folder" in err, (out, err)


def _ingest_in_utc(capsys, db_folder: Path, source: Path):
    """``results ingest`` of ``source`` into ``db_folder``'s store with the local time zone UTC (the
    GPU samples' timestamps are local time), the zone restored after."""
    import time

    try:
        with pytest.MonkeyPatch.context() as utc:
            utc.setenv("TZ", "UTC")
            time.tzset()
            return run_cli(capsys, "results", "ingest", "--db", db_of(db_folder), str(source))
    finally:
        time.tzset()


def test_gpu_metrics_energy(tmp_path, capsys):
    write_job(tmp_path, "res", vllm_output(), job())
    lines = ["timestamp, index, power.draw [W]"]
    start = dt.datetime(2026, 1, 1, 11, 57, 30)
    for second in range(0, 181, 10):  # 11:57:30 .. 12:00:30 local time, 8 GPUs at 500 W
        t = (start + dt.timedelta(seconds=second)).strftime("%Y/%m/%d %H:%M:%S.000")
        lines += [f"{t}, {gpu}, 500.00 W" for gpu in range(8)]
    (tmp_path / "gpu_metrics.csv").write_text("\n".join(lines) + "\n")
    rc, _, err = _ingest_in_utc(capsys, tmp_path, tmp_path)
    assert rc == 0, err
    (rec,) = show_json(capsys, db_of(tmp_path))
    # 8 GPUs x 500 W x 120 s over 40,960 output tokens
    assert rec[R.METRICS][R.ENERGY_PER_OUTPUT_TOKEN_J] == pytest.approx(8 * 500 * 120 / 40960)


def test_gpu_samples_of_more_gpus_than_the_job_ran_on_count_the_job_s_own(tmp_path, capsys):
    """Hunt 15: nvidia-smi and amd-smi sample every GPU of the node. A TP4 job of an InferenceX fork on an
    eight-GPU B300 (zianglih/InferenceX, glm52_b300_fixed_seq: metadata gpu_count 4, CUDA_VISIBLE_DEVICES
    0-3, gpu_metrics.csv of GPUs 0-7) had its energy per token summed over the four idle GPUs too; then
    (95f541f) it had none at all, as had every job of the benchmark library's own monitor on fewer GPUs
    than its node. The job's GPUs are the ones that drew the most, wherever they sit on the node."""
    write_job(tmp_path, "res", vllm_output(), job(row={**ROW, "tp": 4}))
    lines = ["timestamp, index, power.draw [W]"]
    for second in range(0, 181, 10):  # 11:57:30 .. 12:00:30; the job on GPUs 2-5 at 900 W, the rest idle
        t = (dt.datetime(2026, 1, 1, 11, 57, 30) + dt.timedelta(seconds=second)).strftime("%Y/%m/%d %H:%M:%S.000")
        lines += [f"{t}, {gpu}, {900 if 2 <= gpu <= 5 else 150:.2f} W" for gpu in range(8)]
    (tmp_path / "gpu_metrics.csv").write_text("\n".join(lines) + "\n")
    rc, _, err = _ingest_in_utc(capsys, tmp_path, tmp_path)
    assert (rc, err) == (0, "")
    (rec,) = show_json(capsys, db_of(tmp_path))
    assert rec[R.METRICS][R.ENERGY_PER_OUTPUT_TOKEN_J] == pytest.approx(4 * 900 * 120 / 40960)


def test_gpu_samples_of_fewer_gpus_than_the_job_ran_on_give_no_energy(tmp_path, capsys):
    """One node's samples of a job on two (tp 8 x pp 2): the other node's draw is not in them."""
    write_job(tmp_path, "res", vllm_output(), job(row={**ROW, "tp": 8, "pp": 2}))
    (tmp_path / "gpu_metrics.csv").write_text(_power_csv(dt.datetime(2026, 1, 1, 11, 57, 30), 500))
    rc, _, err = _ingest_in_utc(capsys, tmp_path, tmp_path)
    said = f"{tmp_path / 'gpu_metrics.csv'}:1: warning: no energy per output token: it samples 8 GPUs, the job ran on"
    assert rc == 0 and f"{said} 16" in err, err
    (rec,) = show_json(capsys, db_of(tmp_path))
    assert rec[R.METRICS].get(R.ENERGY_PER_OUTPUT_TOKEN_J) is None


def test_an_output_of_several_runs_reads_its_gpu_samples_once_and_warns_once(tmp_path, capsys, monkeypatch):
    """Diff review of 95f541f: each run of a JSONL output read and parsed the samples beside it again
    and said the GPU-count warning again, once a run."""
    from sweepgate.results.formats import gpu_metrics

    runs = "".join(json.dumps(vllm_output()) + "\n" for _ in range(3))
    write_job(tmp_path, "res", runs, job(row={**ROW, "tp": 8, "pp": 2}))
    (tmp_path / "gpu_metrics.csv").write_text(_power_csv(dt.datetime(2026, 1, 1, 11, 57, 30), 500))
    real, parsed = gpu_metrics.samples, []
    monkeypatch.setattr(gpu_metrics, "samples", lambda text, path: parsed.append(path) or real(text, path))
    rc, _, err = _ingest_in_utc(capsys, tmp_path, tmp_path)
    assert rc == 0 and err.count("no energy per output token: it samples 8 GPUs") == 1, err
    assert len(parsed) == 1 and len(stored(db_of(tmp_path))) == 3


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.booleans(), min_size=1, max_size=8))
def test_corrupt_subset_keeps_good_files_and_is_idempotent(tmp_path_factory, capsys, corrupt):
    folder = tmp_path_factory.mktemp("batch")
    db = f"sqlite:///{folder / 'r.db'}"
    for i, bad in enumerate(corrupt):  # a bad output: one that says something impossible (refused)
        text = json.dumps(vllm_output(median_tpot_ms=-3.0) if bad else vllm_output(mean_ttft_ms=120.0 + i))
        write_job(folder / "in", f"r{i}", text, job(run_id=f"run{i}"))
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(folder / "in"))
    good = corrupt.count(False)
    assert rc == (1 if any(corrupt) else 0)
    assert len(err.strip().splitlines()) == corrupt.count(True)
    if not good:  # every file refused: no database is made
        assert out.strip() == f"ingested 0 results (0 new) into {db}; nothing stored"
        assert not (folder / "r.db").exists()
        return
    assert out.strip().endswith(f"ingested {good} results ({good} new) into {db}")
    runs = sorted(r[R.RUN_ID] for r in stored(db))
    assert runs == sorted(f"run{i}" for i, bad in enumerate(corrupt) if not bad)
    rc, out, _ = run_cli(capsys, "results", "ingest", "--db", db, str(folder / "in"))
    assert "(0 new)" in out and len(stored(db)) == good


def test_sidecar_command_writes_what_ingest_reads(tmp_path, capsys, monkeypatch):
    out = write_job(tmp_path, "res", vllm_output(), None)
    env = {"ROW": json.dumps(ROW), "RESULT_DIR": str(tmp_path), "RESULT_FILENAME": "res", "GITHUB_RUN_ID": "555",
           "GITHUB_RUN_ATTEMPT": "2", "GITHUB_SHA": "f" * 40, "GITHUB_REF": "refs/heads/main",
           "RUNNER_NAME": "b300-nv_01", "JOB_STARTED": "2026-01-01T00:00:00Z", "JOB_STATUS": "success"}
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    rc, _, err = run_cli(capsys, "results", "sidecar")
    assert rc == 0, err
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db_of(tmp_path), str(out))
    assert rc == 0, err
    (rec,) = stored(db_of(tmp_path))
    assert (rec[R.RUN_ID], rec[R.ATTEMPT], rec[R.RUNNER_NAME], rec[R.REHEARSAL]) == ("555", 2, "b300-nv_01", False)
    # A retried attempt whose script failed leaves no output: its sidecar alone is a new (failure) row.
    monkeypatch.setenv("JOB_STATUS", "failure")
    monkeypatch.setenv("GITHUB_RUN_ATTEMPT", "3")
    (tmp_path / "res.json").unlink()
    rc, _, _ = run_cli(capsys, "results", "sidecar")
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db_of(tmp_path), str(tmp_path))
    assert rc == 0, err
    assert sorted(r[R.STATUS] for r in stored(db_of(tmp_path))) == ["failure", "success"]


def _power_csv(start: dt.datetime, watts: float) -> str:
    lines = ["timestamp, index, power.draw [W]"]
    for second in range(0, 181, 10):  # 3 minutes from start, 8 GPUs
        t = (start + dt.timedelta(seconds=second)).strftime("%Y/%m/%d %H:%M:%S.000")
        lines += [f"{t}, {gpu}, {watts:.2f} W" for gpu in range(8)]
    return "\n".join(lines) + "\n"


def test_each_job_reads_its_own_gpu_metrics_in_a_merged_folder(tmp_path, capsys):
    """Review: the benchmark library wrote RESULT_DIR/gpu_metrics.csv, which the workflow never
    uploaded (it uploads RESULT_FILENAME*) and which the collect job's merged download would have
    overwritten job by job: energy per token never reached the store from CI. Each job now writes
    <RESULT_FILENAME>.gpu_metrics.csv; a plain gpu_metrics.csv is still read for a one-job folder."""
    folder = tmp_path / "merged"
    write_job(folder, "qwen3.5_a", vllm_output(), job(run_id="1"))
    write_job(folder, "qwen3.5_b", vllm_output(), job(run_id="2"))
    start = dt.datetime(2026, 1, 1, 11, 57, 30)
    (folder / "qwen3.5_a.gpu_metrics.csv").write_text(_power_csv(start, 500))
    (folder / "qwen3.5_b.gpu_metrics.csv").write_text(_power_csv(start, 250))
    rc, out, err = _ingest_in_utc(capsys, tmp_path, folder)
    assert rc == 0, err
    assert "skipped 2 files with no job sidecar" in out  # the CSVs are helper files, not results
    energy = {r[R.RESULT_FILENAME]: r[R.METRICS].get(R.ENERGY_PER_OUTPUT_TOKEN_J) for r in stored(db_of(tmp_path))}
    assert energy == pytest.approx({"qwen3.5_a": 8 * 500 * 120 / 40960, "qwen3.5_b": 8 * 250 * 120 / 40960})


def _artifact_folder(root: Path) -> Path:
    """What run-sweep's collect job downloads: each job's output, sidecar and eval, and the
    helper files its script leaves beside them (as `sweepgate rehearse` leaves them)."""
    job_dir = root / "results" / "bmk_res"
    write_job(job_dir, "res", vllm_output(), job())
    write_job(job_dir, "res_conc4", vllm_output(), None)          # a multi-node job's per-conc part
    export = SAMPLES / "aiperf" / "aiperf_kimik2.7_fp4_mi355x_tp4_conc4.json"
    (job_dir / "aiperf_res").mkdir()
    (job_dir / "aiperf_res" / "profile_export_aiperf.json").write_bytes(export.read_bytes())
    (job_dir / "gpu_metrics.csv").write_text("timestamp, index, power.draw [W]\n")
    (job_dir / "logs").mkdir()
    (job_dir / "logs" / "server.log").write_text("INFO started\n")
    evals = SAMPLES / "lm_eval" / "lmeval0.4.8_gsm8k_granite_limit1_smoketest.json"
    (job_dir / "res-eval.json").write_bytes(evals.read_bytes())  # paired with res.job.json
    write_job(root / "results" / "bmk_dead", "dead", None, job(run_id="1001", status="failure",
                                                               row=dict(ROW, conc=8)))
    return root / "results"


def test_folder_walk_skips_helper_outputs_beside_sidecars(tmp_path, capsys):
    folder = _artifact_folder(tmp_path)
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db_of(tmp_path), str(folder))
    assert rc == 0, err
    lines = out.strip().splitlines()
    assert lines[-2:] == ["skipped 3 files with no job sidecar (helper outputs)",
                          f"ingested 3 results (3 new) into {db_of(tmp_path)}"]
    recs = stored(db_of(tmp_path))
    assert sorted(r[R.RESULT_FILENAME] for r in recs) == ["dead", "res", "res-eval"]
    assert {r[R.RUN_ID] for r in recs} == {"1001"}  # no content-hash run for a helper file
    rc, out, _ = run_cli(capsys, "results", "ingest", "-v", "--db", db_of(tmp_path), str(folder))
    listed = sorted(line.removeprefix("skipped ") for line in out.splitlines() if line.startswith(f"skipped {folder}"))
    assert listed == sorted(str(folder / "bmk_res" / p) for p in
                            ("aiperf_res/profile_export_aiperf.json", "gpu_metrics.csv", "res_conc4.json"))
    assert out.strip().splitlines()[-1] == f"ingested 3 results (0 new) into {db_of(tmp_path)}"


def test_explicit_file_and_sidecarless_tree_keep_todays_behaviour(tmp_path, capsys):
    folder = _artifact_folder(tmp_path)
    part = folder / "bmk_res" / "res_conc4.json"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db_of(tmp_path), str(part))
    assert rc == 0, err
    assert "skipped" not in out
    (rec,) = stored(db_of(tmp_path))
    assert rec[R.RUN_ID].startswith("local-")
    raw = tmp_path / "raw"
    write_job(raw / "sub", "a", vllm_output(), None)
    write_job(raw, "b", vllm_output(conc=8), None)
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'raw.db'}", str(raw))
    assert rc == 0, err
    assert "skipped" not in out and out.strip().splitlines()[-1].startswith("ingested 2 results (2 new)")


def test_a_walk_takes_upper_case_names_and_says_what_it_cannot_read(tmp_path, capsys, monkeypatch):
    """Hunt (D14): a walked folder dropped RES.JSON, a broken symbolic link, a FIFO and a subfolder it
    could not list without a word (even with -v) and exited 0; named on the command line each was
    ingested or refused. Now each is ingested or refused, one line each; the rest is stored."""
    raw = tmp_path / "raw"
    write_job(raw, "a", vllm_output(), None)
    write_job(raw, "B", vllm_output(conc=8), None).rename(raw / "B.JSON")
    (raw / "gone.json").symlink_to(tmp_path / "nowhere.json")
    os.mkfifo(raw / "pipe.json")
    write_job(raw / "locked", "c", vllm_output(conc=16), None)
    listdir = os.scandir

    def scandir(path="."):  # as a non-root user meets a chmod-000 folder (root reads it all the same)
        if os.fspath(path) == str(raw / "locked"):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return listdir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    rc, out, err = run_cli(capsys, "results", "ingest", "-v", "--db", db_of(tmp_path), str(raw))
    assert rc == 1 and "ingested 2 results (2 new)" in out, (out, err)
    assert no_ref_said(err).splitlines() == [  # a.json and B.JSON, stored on no ref, said in one line more
        f"{raw / 'locked'}: cannot read this folder (Permission denied); its files are not ingested; make it "
        "readable, or pass the folders that can be read",
        f"{raw / 'gone.json'}: a symbolic link to nothing ({tmp_path / 'nowhere.json'}); not ingested; fix the "
        "link or remove it",
        f"{raw / 'pipe.json'}: not a regular file (a FIFO, socket or device); not ingested; replace it with the "
        "result file or remove it"]
    assert sorted(r[R.CONC] for r in stored(db_of(tmp_path))) == [4, 8]


def test_a_job_that_says_success_without_an_output_is_stored_failed_with_a_warning(tmp_path, capsys):
    """Review: a sidecar saying success with no result file was stored as a failure without a word."""
    write_job(tmp_path, "lost", None, job(run_id="1002"))
    write_job(tmp_path, "dead", None, job(run_id="1001", status="failure"))  # a failed job: nothing to say
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db_of(tmp_path), str(tmp_path))
    assert rc == 0 and "ingested 2 results (2 new)" in out
    (line,) = err.strip().splitlines()
    # placed as a refusal of a whole document naming no key is (review of 6e5039c: it read 'lost.job.json: ...')
    assert line.startswith(f"{tmp_path / 'lost.job.json'}:1:1: warning: the job says success but left no result file")
    assert sorted(r[R.STATUS] for r in stored(db_of(tmp_path))) == ["failure", "failure"]


def test_a_csv_export_beside_its_json_twin_is_counted_not_silently_dropped(tmp_path, capsys):
    """A folder of AIPerf exports: 16 files gave 9 results and said nothing of 6 CSVs, the same runs
    as the JSON beside each (read from the JSON). They are counted now, and listed with -v."""
    folder = tmp_path / "exports"
    folder.mkdir()
    for name in ("aiperf_kimik2.7_fp4_mi355x_tp4_conc1", "aiperf_kimik2.7_fp4_mi355x_tp4_conc4"):
        for suffix in (".json", ".csv"):
            (folder / f"{name}{suffix}").write_bytes((SAMPLES / "aiperf" / f"{name}{suffix}").read_bytes())
    csv_only = SAMPLES / "aiperf" / "genaiperf_nim-llama3-8b_trtllm_isl200_osl50_conc100.csv"
    (folder / csv_only.name).write_bytes(csv_only.read_bytes())  # no JSON twin: a result of its own
    rc, out, err = run_cli(capsys, "results", "ingest", "-v", "--db", db_of(tmp_path), str(folder))
    assert rc == 0, err
    lines = out.strip().splitlines()
    assert lines[-3:] == [
        f"skipped {folder / 'aiperf_kimik2.7_fp4_mi355x_tp4_conc4.csv'}",
        "skipped 2 CSV files beside a JSON export of the same name (the same run, read from the JSON)",
        f"ingested 3 results (3 new) into {db_of(tmp_path)}"]


def test_a_csv_export_named_beside_its_json_twin_is_the_same_run_not_a_second_one(tmp_path, capsys):
    """A new user's `results ingest exports/*` (the shell names every file) stored each AIPerf run twice,
    once from its JSON and once from its CSV, under two run ids, while `results ingest exports/` stored it
    once: the README says a CSV beside a JSON export of the same name is skipped. A CSV named alone is
    still a result of its own."""
    folder = tmp_path / "exports"
    folder.mkdir()
    name = "aiperf_kimik2.7_fp4_mi355x_tp4_conc1"
    for suffix in (".json", ".csv"):
        (folder / f"{name}{suffix}").write_bytes((SAMPLES / "aiperf" / f"{name}{suffix}").read_bytes())
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db_of(tmp_path),
                           str(folder / f"{name}.csv"), str(folder / f"{name}.json"))
    assert rc == 0, err
    assert out.strip().splitlines()[-2:] == [
        "skipped 1 CSV file beside a JSON export of the same name (the same run, read from the JSON)",
        f"ingested 1 results (1 new) into {db_of(tmp_path)}"]
    assert [r[R.RESULT_FILENAME] for r in stored(db_of(tmp_path))] == [f"{name}.json"]
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db_of(tmp_path), str(folder / f"{name}.csv"))
    assert rc == 0 and out.strip().splitlines()[-1] == f"ingested 1 results (1 new) into {db_of(tmp_path)}", err


def test_an_interrupted_ingest_says_how_far_it_got_and_keeps_the_jsonl_in_step(tmp_path, capsys, monkeypatch):
    """Review at scale: Ctrl-C half-way through 877 files stored 530 (each whole) and said only
    "interrupted"; compare then judged a run that was a third short."""
    from sweepgate.results import ingest

    for i in range(5):
        write_job(tmp_path / "in", f"r{i}", vllm_output(4 + i), job(run_id="run1", row={**ROW, "conc": 4 + i}))
    real, calls = ingest._file_records, []

    def stop_at_the_fourth(path, *rest):
        calls.append(path)
        if len(calls) == 4:
            raise KeyboardInterrupt
        return real(path, *rest)

    monkeypatch.setattr(ingest, "_file_records", stop_at_the_fourth)
    db, out = db_of(tmp_path), tmp_path / "all.jsonl"
    rc, stdout, err = run_cli(capsys, "results", "ingest", "--db", db, "--jsonl", str(out), str(tmp_path / "in"))
    assert rc == 130 and "ingested 3 results (3 new)" in stdout
    assert err.strip() == ("sweepgate results ingest: interrupted after 3 of 5 files: those stored are whole, the "
                           "rest are not stored; run the same ingest again to finish (what is stored is skipped)")
    assert len(stored(db)) == 3 and len(out.read_text().splitlines()) == 3
    monkeypatch.setattr(ingest, "_file_records", real)
    rc, stdout, _ = run_cli(capsys, "results", "ingest", "--db", db, "--jsonl", str(out), str(tmp_path / "in"))
    assert rc == 0 and "ingested 5 results (2 new)" in stdout and len(out.read_text().splitlines()) == 5


def test_runs_ingested_with_row_and_no_config_key_are_each_others_baseline(tmp_path, capsys):
    """Hunt: the README's `--row FILE --run-id ID --ref REF` stores no config key; compare then
    looked the baseline up by the key "None", found nothing, called every point new and let a
    regressed PR pass `--fail-on-regression` with exit 0."""
    (tmp_path / "row.json").write_text(json.dumps(ROW))
    db = db_of(tmp_path)
    for run, tput in (("1", 409.6), ("2", 411.0), ("3", 408.2), ("9", 300.0)):
        out = write_job(tmp_path / run, "bare", vllm_output(output_throughput=tput), None)
        ref = "refs/pull/8/merge" if run == "9" else "refs/heads/main"
        rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, "--row", str(tmp_path / "row.json"),
                             "--run-id", run, "--ref", ref, str(out))
        assert rc == 0, err
    rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "9", "--json", "--fail-on-regression")
    rows = {v["metric"]: v for v in json.loads(out)["points"]}
    assert rows[R.OUTPUT_TPUT_PER_GPU]["verdict"] == "regressed", rows
    assert rows[R.OUTPUT_TPUT_PER_GPU]["baseline"]["n"] == 3
    assert rc == 3 and "no baseline results" not in err


@pytest.mark.parametrize("ref,fix", [("main", "refs/heads/main"), ("pull/8/merge", "refs/pull/8/merge"),
                                     ("pull/8", "refs/pull/8/head"),  # not refs/pull/8, which is no PR's ref
                                     ("refs/pull/8", "refs/pull/8/head")])
def test_a_row_ingest_takes_a_full_ref_only(tmp_path, capsys, ref, fix):
    """New-user review: `--ref main` stored the runs under the literal ref "main", which compare's
    baseline (refs/heads/main) never reads: the PR was judged on the two runs stored otherwise."""
    out = write_job(tmp_path, "bare", vllm_output(), None)
    (tmp_path / "row.json").write_text(json.dumps(ROW))
    with pytest.raises(SystemExit) as exc:
        run_cli(capsys, "results", "ingest", "--db", db_of(tmp_path), "--row", str(tmp_path / "row.json"),
                "--run-id", "1", "--ref", ref, str(out))
    err = capsys.readouterr().err
    assert exc.value.code == 2 and f"'{ref}' is not a full ref; pass {fix}" in err
    assert "refs/pull/N/head for a PR" in err  # the ref the workflow stores a PR's results under
    assert not (tmp_path / "r.db").exists()


def test_a_line_on_another_dataset_is_not_filed_as_the_rows_run(tmp_path, capsys):
    """Review: a real SGLang JSONL holds random-1024/1024 and ShareGPT lines at the same request rates;
    ingested with a 1024/1024 row, the ShareGPT lines were filed under the row's isl/osl and each rate
    was judged as the median of two workloads ("measured more than once"). Such a line is another
    workload: the file is refused at it, as an output at another concurrency or length is."""
    import shutil

    mixed = tmp_path / "online.jsonl"
    shutil.copy(SAMPLES / "sglang" / "sglang_2024-12_llama3.3-70b_h200x4_online.jsonl", mixed)
    first_sharegpt = next(i for i, line in enumerate(mixed.read_text().splitlines(), 1) if '"sharegpt"' in line)
    # the sweep ran uncapped (max_concurrency null), which a row naming a conc is refused for
    uncapped = {k: v for k, v in ROW.items() if k != "conc"}
    (tmp_path / "row.json").write_text(json.dumps(dict(uncapped, framework="sglang")))
    args = ["results", "ingest", "--db", db_of(tmp_path), "--row", str(tmp_path / "row.json"), "--run-id", "7",
            "--ref", "refs/heads/main"]
    rc, out, err = run_cli(capsys, *args, str(mixed))
    assert rc == 1, (out, err)
    assert err.startswith(f"{mixed}:{first_sharegpt}:") and "ran the sharegpt dataset" in err, err
    assert len(err.strip().splitlines()) == 1 and "ingested 0 results" in out
    random_only = tmp_path / "random.jsonl"
    random_only.write_text("".join(line for line in mixed.read_text().splitlines(True) if '"sharegpt"' not in line))
    rc, out, err = run_cli(capsys, *args, str(random_only))
    assert rc == 0 and "ingested 5 results (5 new)" in out, (out, err)


def test_a_line_without_a_dataset_name_is_not_filed_as_a_fixed_length_rows_run(tmp_path, capsys):
    """Diff review of f7c30cb: a ShareGPT line is refused for a fixed-seq-len row, but a 2024 line with no
    dataset_name, which ran ShareGPT (bench_serving's default then, as the contract says), was still
    filed under the row's 1024/1024 (its requests averaged 403 tokens in and 255 out)."""
    real = ROOT / "tests" / "data" / "results-real" / "sglang" / "sglang_2024-11_dlora_nodataset_rr0_100prompts.jsonl"
    (tmp_path / "row.json").write_text(json.dumps(dict(ROW, framework="sglang")))
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db_of(tmp_path), "--row", str(tmp_path / "row.json"),
                           "--run-id", "7", "--ref", "refs/heads/main", str(real))
    assert rc == 1 and err.startswith(f"{real}:1:") and "ran the sharegpt" in err, (out, err)
    assert "ingested 0 results" in out


def test_a_random_ids_line_at_another_length_is_refused(tmp_path, capsys):
    """Diff review of f7c30cb: the dataset check took every `random…` dataset as the row's workload, but
    the length check read lengths of `random` only, so an SGLang `random-ids` line asked for 2048/1024
    passed both and was filed under a 1024/1024 row. One rule (measurement.random_lengths) for both."""
    first = (SAMPLES / "sglang" / "sglang_2024-12_llama3.3-70b_h200x4_online.jsonl").read_text().splitlines()[0]
    line = dict(json.loads(first), dataset_name="random-ids", random_input_len=2048)
    out_file = tmp_path / "ids.jsonl"
    out_file.write_text(json.dumps(line) + "\n")
    uncapped = {k: v for k, v in ROW.items() if k != "conc"}  # the line ran uncapped: a row naming no conc
    (tmp_path / "row.json").write_text(json.dumps(dict(uncapped, framework="sglang")))
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db_of(tmp_path), "--row", str(tmp_path / "row.json"),
                           "--run-id", "7", "--ref", "refs/heads/main", str(out_file))
    col = out_file.read_text().index('"random_input_len"') + 1  # at the output's own key
    assert rc == 1 and err.startswith(f"{out_file}:1:{col}: random_input_len: the output used 2048 input tokens") \
        and "ingested 0 results" in out, (out, err)
    assert len(err.splitlines()) == 1, err


def test_the_spring_2024_request_throughput_typo_is_read_as_the_request_throughput(tmp_path, capsys):
    """benchmark_serving.py wrote its request throughput as "request_inthroughput" for a while in 2024;
    it was dropped without a word, and the point stored without a request rate."""
    old = vllm_output()
    old["request_inthroughput"] = old.pop("request_throughput")
    write_job(tmp_path / "in", "old", old, job())
    rc, _, err = run_cli(capsys, "results", "ingest", str(tmp_path / "in"), "--db", db_of(tmp_path))
    assert rc == 0, err
    (rec,) = stored(db_of(tmp_path))
    assert rec[R.METRICS][R.REQUEST_THROUGHPUT] == 0.4


def test_a_vllm_goodput_is_stored_and_its_null_is_none(tmp_path, capsys):
    """Hunt 16: `vllm bench serve --goodput` writes the rate of requests that met its SLOs as
    request_goodput (before 0.10 under "request_goodput:"); it was dropped without a word."""
    write_job(tmp_path / "in", "slo", vllm_output(**{"request_goodput:": 0.35}), job(run_id="1"))
    write_job(tmp_path / "in", "plain", vllm_output(request_goodput=None), job(run_id="2"))
    rc, _, err = run_cli(capsys, "results", "ingest", str(tmp_path / "in"), "--db", db_of(tmp_path))
    assert rc == 0, err
    got = {rec[R.RUN_ID]: rec[R.METRICS].get(R.REQUEST_GOODPUT) for rec in stored(db_of(tmp_path))}
    assert got == {"1": 0.35, "2": None}


@pytest.mark.parametrize("flag", ["--run-id", "--config-key"])
def test_an_empty_row_value_is_told_empty_not_missing(tmp_path, capsys, flag):
    """New-user review 25: `--run-id "$RUN"` with RUN unset read "--row needs --run-id and --ref",
    though --run-id was there; an empty --config-key was taken as none. Both say the value is empty."""
    out = write_job(tmp_path, "bare", vllm_output(), None)
    (tmp_path / "row.json").write_text(json.dumps(ROW))
    given = {"--run-id": "1", "--config-key": "dsr1-fp8-b300-vllm", flag: ""}
    with pytest.raises(SystemExit) as exc:
        run_cli(capsys, "results", "ingest", "--db", db_of(tmp_path), "--row", str(tmp_path / "row.json"),
                "--ref", "refs/heads/main", *[a for k, v in given.items() for a in (k, v)], str(out))
    err = capsys.readouterr().err
    assert exc.value.code == 2 and f"argument {flag}: empty value" in err, err
    assert "needs --run-id" not in err and not (tmp_path / "r.db").exists()


def test_an_artifact_zip_or_a_gzipped_output_is_told_to_be_unpacked(tmp_path, capsys):
    """New user (newuser27): a run's artifact downloaded from the Actions page is a .zip; ingesting
    it said "not UTF-8 text (byte 10); pass a client's JSON/JSONL/CSV output", which reads as a
    damaged file, and a folder holding only such zips said it held no result files. A gzipped
    output said the same. Each now names what it is and how to unpack it; nothing is stored."""
    import gzip
    import zipfile

    art = tmp_path / "dl"
    art.mkdir()
    with zipfile.ZipFile(art / "sweepgate-results.zip", "w") as z:
        z.writestr("res.json", json.dumps(vllm_output()))
    (tmp_path / "res.json.gz").write_bytes(gzip.compress(json.dumps(vllm_output()).encode()))
    db = db_of(tmp_path)
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(art / "sweepgate-results.zip"),
                           str(tmp_path / "res.json.gz"))
    assert rc == 1 and "nothing stored" in out, (out, err)
    assert err.splitlines() == [
        f"{art / 'sweepgate-results.zip'}:1: a zip archive (as a browser downloads a GitHub Actions artifact), "
        "not the file itself; unzip it (unzip FILE -d DIR) and ingest the folder",
        f"{tmp_path / 'res.json.gz'}:1: gzip-compressed, not the file itself; "
        "gunzip it (gunzip -k FILE) and ingest the file"]
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(art))
    assert rc == 1 and err.splitlines() == [
        f"{art}: no result files (.json, .jsonl, .csv) in this folder, only 1 zip archive "
        "(sweepgate-results.zip); unzip each (unzip FILE -d DIR) and ingest the folders"], err
    # main's results artifact, downloaded as a zip and passed to compare as its baseline
    write_job(tmp_path / "pr", "res", vllm_output(), job(run_id="7", ref="refs/pull/7/head"))
    assert run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path / "pr"))[0] == 0
    rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "7",
                           "--baseline-jsonl", str(art / "sweepgate-results.zip"))
    assert rc == 1 and err.splitlines() == [
        f"{art / 'sweepgate-results.zip'}:1: a zip archive (as a browser downloads a GitHub Actions artifact), "
        "not the file itself; unzip it (unzip FILE -d DIR) and pass the files it holds"], err


def test_a_gzipped_file_without_a_gz_name_is_told_a_command_that_unpacks_it(tmp_path, capsys):
    """review27: a gzipped output or baseline saved under its plain name (res.json, main.jsonl: a
    download kept compressed) was told "gunzip -k FILE", which gunzip refuses for a name without .gz
    ("unknown suffix -- ignored"). It is now told `gunzip -c FILE > NEW_FILE`; a .gz name keeps -k."""
    import gzip

    packed = gzip.compress(json.dumps(vllm_output()).encode())
    (tmp_path / "res.json").write_bytes(packed)
    (tmp_path / "main.jsonl").write_bytes(packed)
    db = db_of(tmp_path)
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path / "res.json"))
    assert rc == 1 and err.splitlines() == [
        f"{tmp_path / 'res.json'}:1: gzip-compressed, not the file itself; "
        "gunzip it (gunzip -c FILE > NEW_FILE) and ingest the file"], err
    write_job(tmp_path / "pr", "res", vllm_output(), job(run_id="7", ref="refs/pull/7/head"))
    assert run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path / "pr"))[0] == 0
    rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "7",
                           "--baseline-jsonl", str(tmp_path / "main.jsonl"))
    assert rc == 1 and err.splitlines() == [
        f"{tmp_path / 'main.jsonl'}:1: gzip-compressed, not the file itself; "
        "gunzip it (gunzip -c FILE > NEW_FILE) and pass the file"], err


def test_a_zip_of_results_beside_unzipped_jobs_is_warned_of(tmp_path, capsys):
    """review27: a folder holding one unzipped job and another job's artifact still zipped ingested the
    one and never named the zip: its results were passed over without a word. The zip is now warned of
    (stored results are right, exit 0); a zip that holds no result-named file (logs) is not named."""
    import zipfile

    runs = tmp_path / "runs"
    write_job(runs, "one", vllm_output(), job(run_id="7", ref="refs/pull/7/head"))
    with zipfile.ZipFile(runs / "two.zip", "w") as z:
        z.writestr("two/res.json", json.dumps(vllm_output()))
        z.writestr("two/res.job.json", "{}")
    (runs / "logs").mkdir()
    with zipfile.ZipFile(runs / "logs" / "server.zip", "w") as z:
        z.writestr("server.log", "started\n")
    (runs / "broken.zip").write_bytes(b"not a zip")
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db_of(tmp_path), str(runs))
    assert rc == 0 and out.splitlines()[-1].startswith("ingested 1 results (1 new)"), (out, err)
    assert err.splitlines() == [
        f"{runs / 'two.zip'}: warning: a zip archive of 2 .json/.jsonl/.csv files, not ingested; "
        "unzip it (unzip FILE -d DIR) and ingest DIR too"], err


def test_a_folder_of_gzipped_results_names_them(tmp_path, capsys):
    """review27: a folder holding only gzipped outputs (res.json.gz) said "no result files" and named
    nothing, where a folder of zips names its zips. It names them now, with how to unpack them; a
    gzipped log (server.log.gz) is no result and is not named."""
    import gzip

    runs = tmp_path / "runs"
    runs.mkdir()
    for name in ("b.json.gz", "a.jsonl.gz"):
        (runs / name).write_bytes(gzip.compress(json.dumps(vllm_output()).encode()))
    (runs / "server.log.gz").write_bytes(gzip.compress(b"started\n"))
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db_of(tmp_path), str(runs))
    assert rc == 1 and err.splitlines() == [
        f"{runs}: no result files (.json, .jsonl, .csv) in this folder, only 2 gzipped result files "
        "(a.jsonl.gz, b.json.gz); gunzip each (gunzip -k FILE) and ingest the folder"], err
