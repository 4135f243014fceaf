"""The README's "compare a PR by hand" block, at the top of its Results section, runs as written (s40k): main's
runs and the PR's at two concurrencies, one row each, an lm-eval `c64-eval.json` beside `c64.json` ingested
with it, and `compare --fail-on-regression` exits 3 on the PR's slower point and lower score."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess

import pytest

from helpers import ROOT, SAMPLES, sweepgate_on_path, vllm_output

KEY = "dsr1-fp8-b300-vllm"  # the example fleet's; one 1k1k row at conc 32 and at conc 64
LM_EVAL = SAMPLES / "lm_eval" / "lmeval0.4.x_gsm8k5shot_llama3-70b-gptq_vllm_a6000x4.json"
STRICT = "exact_match,strict-match"


def _block() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    results = readme.split("\n## Results\n", 1)[1]
    found = re.match(r"\s*To compare a PR's benchmark outputs with main's by hand.*?```\n(.*?)```", results, re.S)
    assert found, "the README's compare-a-PR-by-hand block is gone from the top of its Results section"
    return found.group(1)


def _outputs(folder, day: int, slower: float, score: float, n: int) -> None:
    folder.mkdir()
    for conc, factor in ((32, 1.0 + n / 100), (64, slower + n / 100)):
        doc = vllm_output(conc, date=f"2026010{day}-120000", output_throughput=409.6 * factor,
                          total_token_throughput=819.2 * factor)
        (folder / f"c{conc}.json").write_text(json.dumps(doc), encoding="utf-8")
    scores = json.loads(LM_EVAL.read_text(encoding="utf-8"))
    scores["results"]["gsm8k"][STRICT] = score
    scores["date"] = 1767268800.0 + (day - 1) * 86400 + 1800  # 12:30 UTC that day: the job's eval after its run
    (folder / "c64-eval.json").write_text(json.dumps(scores), encoding="utf-8")


@pytest.mark.skipif(not shutil.which("jq") and not os.environ.get("SWEEPGATE_REQUIRE_JQ"),
                    reason="the block uses jq (.ci/run installs it and sets SWEEPGATE_REQUIRE_JQ)")
def test_the_readme_s_pr_by_hand_block_ingests_and_compares(tmp_path):
    from sweepgate.commands import example

    repo = tmp_path / "repo"
    repo.mkdir()
    example.build_repo(str(repo))
    for n, run in enumerate(("101", "102", "103")):
        _outputs(repo / f"main-{run}", 1, 1.0, 0.90 + n / 1000, n)
    _outputs(repo / "pr", 2, 0.5, 0.80, 0)  # conc 64 at half the throughput, 10 points off the score
    env = sweepgate_on_path(tmp_path)
    script = "set -e\n" + _block().replace("KEY", KEY)
    proc = subprocess.run(["bash", "-c", script], cwd=repo, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 3, proc.stdout[-3000:] + proc.stderr  # --fail-on-regression: regressed
    assert proc.stdout.count("ingested 1 results (1 new)") == 4, proc.stdout  # c32 of each run
    assert proc.stdout.count("ingested 2 results (2 new)") == 4, proc.stdout  # c64 and its scores
    assert "row-not-of-config-key" not in proc.stderr and "config key" not in proc.stderr, proc.stderr
    summary = next(line for line in proc.stdout.splitlines() if line.startswith("run 200 against"))
    assert "1 point regressed" in summary and "1 point unchanged" in summary, summary
    assert "eval scores: 1 regressed" in summary, summary
