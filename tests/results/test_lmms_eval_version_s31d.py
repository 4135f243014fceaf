"""s31d: lmms-eval's version is stored as the eval client's version.

lmms-eval (lm-eval's multimodal fork, in lm-eval's results layout) writes no ``lm_eval_version`` but its own
``lmms_eval_version``, "<branch>@<commit>" of its git checkout (lmms_eval/utils.py,
get_lmms_eval_version_string: ``git describe --always`` cut to 8 characters), "unknown@unknown" without one
(a pip install). Only ``lm_eval_version`` was read, so a real lmms-eval file's record had no client version.
The record's client stays ``lm-eval`` (the eval client); its version names the fork."""

from __future__ import annotations

import json

from helpers import ROOT, no_ref_said, run_cli, show_json

REAL = ROOT / "tests" / "data" / "results-real" / "lm_eval"
# EvolvingLMMs-Lab/lmms-eval jetson/results-thor/... (tests/data/results-real/SOURCES.tsv)
GQA = REAL / "lmms-eval0.6dev_gqa_qwen2.5-vl-3b_vllm-bf16_jetson-thor_stderr_clt_clustered.json"
MME = REAL / "lmms-eval0.6dev_mme_qwen2.5-vl-3b_hf-bf16_jetson-thor_stderr_na_clt_numeric.json"


def _record(capsys, tmp_path, path) -> dict:
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(path))
    assert (rc, no_ref_said(err)) == (0, ""), err
    (rec,) = show_json(capsys, db)
    return rec


def test_real_lmms_eval_files_store_their_lmms_eval_version(capsys, tmp_path):
    for path, version in ((GQA, "jetson-benchmark@v0.6-249"), (MME, "jetson-benchmark@v0.6-248")):
        assert json.loads(path.read_text(encoding="utf-8"))["lmms_eval_version"] == version
        (tmp_path / path.stem).mkdir()
        rec = _record(capsys, tmp_path / path.stem, path)
        assert (rec["client"], rec["client-version"]) == ("lm-eval", f"lmms-eval {version}")


def test_an_lmms_eval_run_without_a_git_checkout_stores_no_version(capsys, tmp_path):
    doc = json.loads(GQA.read_text(encoding="utf-8"))
    doc.update(lmms_eval_version="unknown@unknown", git_hash=None, git_branch=None)  # as a pip install writes it
    path = tmp_path / "results.json"
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    assert _record(capsys, tmp_path, path)["client-version"] is None


def test_lm_eval_s_own_version_is_stored_as_it_was(capsys, tmp_path):
    path = ROOT / "tests" / "data" / "results-samples" / "lm_eval" / "lmeval0.4.8_gsm8k_granite_limit1_smoketest.json"
    assert _record(capsys, tmp_path, path)["client-version"] == "0.4.8"
