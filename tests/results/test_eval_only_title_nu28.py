"""`results show --run` of an eval-only job (an lm-eval output ingested with its row, as an evals-only sweep's
job leaves) said "run e1: 1 point, 2 eval scores" while `results compare` of the same run counted "0 points
..., eval scores: 2 new" (new-user28, second pass): an eval line was counted as a point when no throughput
line stood at it. The title counts the points compare counts. Real processes, a real lm-eval output."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from helpers import ROOT, SAMPLES, job

GSM8K = SAMPLES / "lm_eval" / "lmeval0.4.x_gsm8k5shot_llama3-70b-gptq_vllm_a6000x4.json"


def sweepgate(cwd, *argv: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "COLUMNS")}
    return subprocess.run([sys.executable, "-m", "sweepgate", *argv], capture_output=True, text=True, cwd=cwd,
                          env={**env, "PYTHONPATH": str(ROOT / "utils"), "NO_COLOR": "1"}, timeout=120)


def test_an_eval_only_run_s_title_counts_no_point(tmp_path):
    db = f"sqlite:///{tmp_path / 'r.db'}"
    (tmp_path / "row.json").write_text(json.dumps(job()["row"]))
    ingest = sweepgate(tmp_path, "results", "ingest", "--db", db, "--row", "row.json", "--run-id", "e1", "--ref",
                       "refs/pull/3/head", str(GSM8K))
    assert ingest.returncode == 0, ingest.stderr
    show = sweepgate(tmp_path, "results", "show", "--db", db, "--run", "e1")
    assert show.returncode == 0, show.stderr
    assert show.stdout.splitlines()[0] == "run e1: 2 eval scores", show.stdout
    compare = sweepgate(tmp_path, "results", "compare", "--db", db, "--run", "e1")
    assert "): nothing failed, regressed or improved; eval scores: 2 new" in compare.stdout, compare.stdout
