"""formats26 hunt: real outputs read right, pinned (tests/data/results-real/SOURCES.tsv names each source)."""

from __future__ import annotations

import json

from helpers import ROOT, ROW, run_cli, show_json

REAL = ROOT / "tests" / "data" / "results-real"
CPU_REGRESSION = REAL / "lm_eval" / "lmeval0.4_cpu_regression_expected_3tasks_perplexity_lower_na_stderr_no_config.json"


def test_lm_eval_results_without_config_keep_each_metric_s_direction_and_no_stderr(capsys, tmp_path):
    """EleutherAI/lm-evaluation-harness tests/testdata/cpu_regression_expected.json: three tasks at
    --limit 10, every stderr "N/A", perplexities lower-is-better; no config, so the model is the row's."""
    row = tmp_path / "row.json"
    row.write_text(json.dumps({**ROW, "model": "EleutherAI/pythia-14m", "run-eval": True}), encoding="utf-8")
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, "--row", str(row), "--run-id", "1",
                           "--ref", "refs/heads/main", str(CPU_REGRESSION))
    assert rc == 0, err
    (rec,) = show_json(capsys, db)
    assert rec["model"] == "EleutherAI/pythia-14m" and rec["metrics"] == {}
    got = {(e["task"], e["metric"]): (e["value"], e["higher_is_better"], e["stderr"], e["samples"])
           for e in rec["evals"]}
    assert got == {  # the file's "results", its "higher_is_better" and its n-samples' effective 10
        ("arc_easy", "acc"): (0.3, True, None, 10), ("arc_easy", "acc_norm"): (0.1, True, None, 10),
        ("lambada_openai", "acc"): (0.1, True, None, 10),
        ("lambada_openai", "perplexity"): (605.5452047779999, False, None, 10),
        ("wikitext", "bits_per_byte"): (1.3393660745008342, False, None, 10),
        ("wikitext", "byte_perplexity"): (2.530401076099876, False, None, 10),
        ("wikitext", "word_perplexity"): (130.4813590639406, False, None, 10)}
