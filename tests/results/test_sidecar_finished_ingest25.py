"""`results sidecar` stamped `job.finished` with the time the command ran. In the workflow that is the
job's end, but a sidecar written again later (by hand, as a refusal's hint asks) moved the job to the
rewrite's time: compare orders a point's baseline runs by `finished`, so an old run read as main's
newest, and the GPU samples' energy window stretched to the rewrite. Now `finished` is when the job's
own files (output, eval scores, GPU samples) were last written since JOB_STARTED, and the step's own
time only for a job that left none (CONTRACTS section 8)."""

from __future__ import annotations

import datetime as dt
import json
import os
import time

from helpers import ROW, run_cli, vllm_output  # helpers puts utils/ on sys.path

from sweepgate.core import jobfile


def iso(t: float) -> str:
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).isoformat(timespec="seconds")


def sidecar(capsys, monkeypatch, results, started: float) -> dict:
    for k, v in {"ROW": json.dumps(ROW), "RESULT_DIR": str(results), "RESULT_FILENAME": "res",
                 "JOB_STATUS": "success", "GITHUB_RUN_ID": "5", "GITHUB_REF": "refs/heads/main",
                 "GITHUB_SHA": "ab" * 20, "JOB_STARTED": iso(started)}.items():
        monkeypatch.setenv(k, v)
    for k in ("ROW_ID", "MATRIX_FILE", "JOB_CONTEXT_FILE", "GITHUB_ACTIONS", "CONFIG_KEY", "GITHUB_ENV"):
        monkeypatch.delenv(k, raising=False)
    rc, _, err = run_cli(capsys, "results", "sidecar")
    assert rc == 0, err
    return json.loads((results / f"res{jobfile.SUFFIX}").read_text(encoding="utf-8"))["job"]


def written(path, text: str, at: float) -> None:
    path.write_text(text, encoding="utf-8")
    os.utime(path, (at, at))


def test_finished_is_when_the_jobs_last_file_was_written_and_a_rewrite_keeps_it(tmp_path, capsys, monkeypatch):
    results = tmp_path / "results"
    results.mkdir()
    now = time.time()
    started, output_at, eval_at = now - 3600, now - 1800, now - 1200
    written(results / "res.json", json.dumps(vllm_output()), output_at)
    written(results / "res-eval.json", "{}", eval_at)
    job = sidecar(capsys, monkeypatch, results, started)
    assert (job["started"], job["finished"]) == (iso(started), iso(eval_at)), job
    (results / f"res{jobfile.SUFFIX}").unlink()
    assert sidecar(capsys, monkeypatch, results, started)["finished"] == iso(eval_at)  # written again: the same


def test_a_job_that_left_no_file_after_its_start_finishes_when_the_step_runs(tmp_path, capsys, monkeypatch):
    results = tmp_path / "results"
    results.mkdir()
    before = time.time()
    written(results / "res.json", json.dumps(vllm_output()), before - 7200)  # another job's, left behind
    job = sidecar(capsys, monkeypatch, results, before - 3600)
    finished = dt.datetime.fromisoformat(job["finished"]).timestamp()
    assert int(before) <= finished <= time.time(), job
