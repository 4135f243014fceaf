"""The PR comment (`results compare --markdown`, `--comment-file`) lists failed jobs, regressions, then improvements
(README): a regressed or failed eval score is a regression, so the `#### Evals` table comes before `#### Improved`
when it holds one (new user s40f: a comment read `#### Improved` first, and a gsm8k score 5 points down only
under it). Evals all unchanged stay after the improvements. Real-shaped outputs: a vLLM output and the real
lm-eval gsm8k output of one job, with its sidecar, ingested by `results ingest`."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import ROOT, job, run_cli, vllm_output, write_job

GSM8K = ROOT / "tests" / "data" / "results-samples" / "lm_eval" / "lmeval0.4.x_gsm8k5shot_llama3-70b-gptq_vllm_a6000x4.json"
NOISE = (1.0, 1.01, 0.99, 1.005, 0.995)  # main's output rates, 409.6 tok/s times these


def _job(capsys, root: Path, db: str, run: str, ref: str, day: int, factor: float, strict_delta: float) -> None:
    """One job of ``run``: its vLLM output at ``factor`` times 409.6 tok/s and the gsm8k output, strict-match
    moved by ``strict_delta``, beside its sidecar, ingested into ``db``."""
    folder = root / run
    write_job(folder, "res", vllm_output(4, date=f"202601{day:02d}-120000", output_throughput=409.6 * factor),
              job(run_id=run, ref=ref, finished=f"2026-01-{day:02d}T12:00:00+00:00"))
    scores = json.loads(GSM8K.read_text(encoding="utf-8"))
    scores["results"]["gsm8k"]["exact_match,strict-match"] += strict_delta
    (folder / "res-eval.json").write_text(json.dumps(scores), encoding="utf-8")
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(folder))
    assert rc == 0, err


def _comment(capsys, tmp_path: Path, strict_delta: float) -> str:
    """The --comment-file body of a PR run 15 % faster than main's 5 runs, its gsm8k strict-match moved by
    ``strict_delta``; it is what --markdown prints too."""
    db = f"sqlite:///{tmp_path / 'r.db'}"
    for n, factor in enumerate(NOISE):
        _job(capsys, tmp_path, db, str(1001 + n), "refs/heads/main", n + 1, factor, 0.0)
    _job(capsys, tmp_path, db, "2002", "refs/pull/7/head", 10, 1.15, strict_delta)
    body = tmp_path / "comment.md"
    rc, _, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "2002", "--comment-file", str(body))
    assert rc == 0, err
    rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "2002", "--markdown")
    assert rc == 0, err
    text = body.read_text(encoding="utf-8")
    assert text.split("#### ", 1)[1].rstrip() == out.split("#### ", 1)[1].rstrip()  # the sections --markdown prints
    return text


def _headings(body: str) -> list[str]:
    return [line.split(" (")[0].removeprefix("#### ") for line in body.splitlines() if line.startswith("#### ")]


def test_a_regressed_eval_score_comes_before_the_improvements(capsys, tmp_path):
    body = _comment(capsys, tmp_path, -0.05)
    assert _headings(body)[:2] == ["Evals", "Improved"], body
    assert "#### Evals (2 eval scores: 1 regressed, 1 unchanged)" in body


def test_evals_all_unchanged_follow_the_improvements(capsys, tmp_path):
    body = _comment(capsys, tmp_path, 0.0)
    assert _headings(body)[:2] == ["Improved", "Evals"], body
