"""formats30 hunt: real outputs read right, pinned (tests/data/results-real/SOURCES.tsv names each source)."""

from __future__ import annotations

import pytest

from helpers import ROOT, no_ref_said, run_cli, show_json

REAL = ROOT / "tests" / "data" / "results-real"
# EvolvingLMMs-Lab/lmms-eval jetson/results-thor/Qwen2.5-VL-3B-Instruct/{gqa,mme}/...: lmms-eval's results
# in lm-eval's layout, each score's _stderr beside two more standard errors, _stderr_clt and _stderr_clustered
GQA = REAL / "lm_eval" / "lmms-eval0.6dev_gqa_qwen2.5-vl-3b_vllm-bf16_jetson-thor_stderr_clt_clustered.json"
MME = REAL / "lm_eval" / "lmms-eval0.6dev_mme_qwen2.5-vl-3b_hf-bf16_jetson-thor_stderr_na_clt_numeric.json"
MODEL = "/opt/hf-cache/hub/models--Qwen--Qwen2.5-VL-3B-Instruct/snapshots/66285546d2b821cf421d4f5eb2576359d3770cd3"


def _evals(capsys, tmp_path, path) -> tuple[dict, dict]:
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(path))
    assert (rc, no_ref_said(err)) == (0, ""), err
    assert "ingested 1 results (1 new)" in out
    (rec,) = show_json(capsys, db)
    return rec, {(e["task"], e["metric"], e["filter"]): (e["value"], e["stderr"], e["samples"], e["higher_is_better"])
                 for e in rec["evals"]}


def test_lmms_eval_gqa_keeps_its_score_and_stderr_and_no_other_standard_error_as_a_score(capsys, tmp_path):
    """exact_match_stderr_clustered "N/A" was read as a score and refused the file ("expected a finite
    number"); exact_match_stderr_clt, a number, would have been stored as a score of its own."""
    rec, evals = _evals(capsys, tmp_path, GQA)
    assert evals == {("gqa", "exact_match", "none"): (0.5996183813006837, 0.004369039829632883, 12578, True)}
    assert (rec["model"], rec["client"], rec["status"], rec["metrics"]) == (MODEL, "lm-eval", "success", {})


def test_lmms_eval_mme_scores_keep_their_own_na_stderr_not_the_per_sample_clt_one(capsys, tmp_path):
    """MME's scores are points (1548.29 of 2000): their _stderr is "N/A", and the _stderr_clt beside it
    (0.0082) is of the per-sample answers, no standard error of the score: not judged, not 0.0082."""
    rec, evals = _evals(capsys, tmp_path, MME)
    assert evals == {("mme", "mme_cognition_score", "none"): (623.9285714285714, None, 2374, True),
                     ("mme", "mme_perception_score", "none"): (1548.2875150060024, None, 2374, True)}
    assert rec["model"] == MODEL


@pytest.mark.parametrize("path", [GQA, MME])
def test_lmms_eval_standard_errors_are_in_the_file_as_the_tests_above_say(path):
    """The files hold what the tests read past: a numeric _stderr_clt and an "N/A" _stderr_clustered per score."""
    import json

    scores = next(iter(json.loads(path.read_text(encoding="utf-8"))["results"].values()))
    clt = {k: v for k, v in scores.items() if "_stderr_clt," in k}
    clustered = {k: v for k, v in scores.items() if "_stderr_clustered," in k}
    assert clt and all(isinstance(v, float) for v in clt.values())
    assert clustered and set(clustered.values()) == {"N/A"}
