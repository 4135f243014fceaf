"""InferenceX's eval adapters (Kimi/MiniMax vendor verifiers, BFCL: InferenceX utils/evals/*_eval.py,
``_compatibility_result``) write lm-eval's results layout under ``"result_format": "inferencex-eval-v1"``,
the marker InferenceX itself reads as an eval result beside ``lm_eval_version``. When the eval could not
run or finish they write a placeholder score of 0.0 with ``integration_error`` ({type, message}).
Hunt 19: such a failure was stored as a succeeded eval scoring 0.0, and an artifact without lm-eval's
versions/configs keys was "unknown JSON output"."""

from __future__ import annotations

import json
import math

import pytest
from helpers import job, no_ref_said, run_cli, show_json, vllm_output, write_job
from sweepgate.results import record as R

TASK = "kimi_tool_call_schema"


def artifact(score: float, effective: int, error: dict | None = None) -> dict:
    doc = {"result_format": "inferencex-eval-v1", "eval_adapter": "kimi-vendor-verifier", "model_name": "kimi-k3",
           "results": {TASK: {"exact_match,strict-match": score, "exact_match_stderr,strict-match": 0.0}},
           "configs": {TASK: {"metric_list": [{"metric": "exact_match"}], "filter_list": [{"name": "strict-match"}]}},
           "n-samples": {TASK: {"original": 2, "effective": effective}}}
    if error is not None:
        doc["integration_error"] = error
    return doc


def ingest(tmp_path, capsys, doc: dict) -> tuple[int, str, list[dict]]:
    """(exit code, stderr but its no-ref line, the stored records) of ``doc`` ingested alone (no sidecar, no --row)."""
    out = tmp_path / "results_kimi_vendor_2026-08-01T10-00-00.000000.json"
    out.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(out))
    return rc, no_ref_said(err), show_json(capsys, db)


def test_an_integration_error_is_a_failed_eval_not_a_zero_score(tmp_path, capsys):
    rc, err, (rec,) = ingest(tmp_path, capsys, artifact(0.0, 0, {"type": "TimeoutExpired",
                                                               "message": "timed out after 900 seconds"}))
    assert rc == 0 and rec[R.STATUS] == "failure" and rec[R.EVALS] == [] and rec[R.MODEL] == "kimi-k3"
    (line,) = err.strip().splitlines()
    assert "warning: integration_error" in line and "TimeoutExpired: timed out after 900 seconds" in line


def test_a_completed_adapter_result_is_stored_as_scored(tmp_path, capsys):
    rc, err, (rec,) = ingest(tmp_path, capsys, artifact(0.5, 2))
    (e,) = rec[R.EVALS]
    assert rc == 0 and err == "" and rec[R.STATUS] == "success"
    assert (e[R.EVAL_TASK], e[R.EVAL_METRIC], e[R.EVAL_FILTER], e[R.EVAL_VALUE], e[R.EVAL_SAMPLES]) == (
        TASK, "exact_match", "strict-match", 0.5, 2)


def test_the_marker_alone_tells_an_eval_result(tmp_path, capsys):
    """InferenceX reads any results JSON with the marker as an eval result, lm-eval's other keys or not."""
    doc = {"result_format": "inferencex-eval-v1", "results": {"fixture-task": {"acc": 0.75}},
           "n-samples": {"fixture-task": {"effective": 4}}}
    rc, err, (rec,) = ingest(tmp_path, capsys, doc)
    assert rc == 0 and [(e[R.EVAL_METRIC], e[R.EVAL_VALUE], e[R.EVAL_SAMPLES]) for e in rec[R.EVALS]] == [
        ("acc", 0.75, 4)]


def _compare_adapter_runs(tmp_path, capsys, main: dict, pr: dict) -> tuple[int, dict]:
    """main's run and a PR run, each one job whose eval output is an adapter's artifact, compared."""
    db = f"sqlite:///{tmp_path / 'c.db'}"
    for run, ref, doc in (("1001", "refs/heads/main", main), ("2002", "refs/pull/7/head", pr)):
        folder = tmp_path / run
        write_job(folder, "res", vllm_output(), job(run_id=run, ref=ref))
        (folder / "res-eval.json").write_text(json.dumps(doc), encoding="utf-8")
        rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(folder))
        assert rc == 0, err
    rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "2002", "--json", "--fail-on-regression")
    assert rc in (0, 3), err
    return rc, json.loads(out)


def test_the_adapters_placeholder_stderr_does_not_make_every_change_a_regression(tmp_path, capsys):
    """Review (review19): the adapters write `exact_match_stderr` as a fixed 0.0, no measurement. Read as one,
    any change was beyond noise: 203 of 204 tool-call cases passing after main's 204 was `regressed` and
    failed the run (exit 3). Their scores are pass rates over `effective` cases, so the stderr is the one
    lm-eval gives a mean of 0/1 answers, sqrt(p(1-p)/(n-1)): a one-case wobble is `unchanged`, a drop of
    a fifth still `regressed`."""
    rc, out = _compare_adapter_runs(tmp_path, capsys, artifact(1.0, 204), artifact(203 / 204, 204))
    (score,) = out["evals"]
    assert (rc, score["verdict"]) == (0, "unchanged"), score
    assert score["head"]["stderr"] == pytest.approx(math.sqrt((203 / 204) * (1 / 204) / 203))
    rc, out = _compare_adapter_runs(tmp_path / "drop", capsys, artifact(1.0, 204), artifact(0.8, 204))
    assert (rc, out["evals"][0]["verdict"]) == (3, "regressed"), out["evals"]
