"""A point's throughput baseline and its eval scores' baseline are two baselines (``compare.baseline_of``): main's
eval scores at a point from before a PR run do not make main's throughput there covered (new user s40f: a PR run
ingested with an lm-eval output whose `date` was older than main's throughput runs called every throughput metric
of the point `new`, "(last 5 runs; none at these points)", exit 0 under --fail-on-regression, though main had
measured it 5 times and the run was 13 % slower). Real-shaped outputs: a vLLM output and an lm-eval output of one
matrix row, ingested by hand (`--row`), so each record keeps its own output's time, in a store and in
`--baseline-jsonl` files alike."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import ROOT, ROW, run_cli, vllm_output
from sweepgate.results import record as R

GSM8K = ROOT / "tests" / "data" / "results-samples" / "lm_eval" / "lmeval0.4.x_gsm8k5shot_llama3-70b-gptq_vllm_a6000x4.json"
MAIN, PR_REF, PR_RUN = "refs/heads/main", "refs/pull/7/head", "201"
NOISE = (1.0, 1.01, 0.99, 1.005, 0.995)  # main's runs' output rates, 409.6 tok/s times these
SLOWER = 0.87  # the PR's, 13 % down


def _ingest(capsys, tmp_path: Path, db: str, run: str, ref: str, day: int, factor: float, evals: bool) -> None:
    """Run ``run`` on ``ref``: a vLLM output of 2026-06-``day`` at ``factor`` times 409.6 tok/s, and with ``evals``
    the real lm-eval gsm8k output beside it (its `date`: 2024-09-25, when that eval ran), ingested with --row into
    ``db`` and --jsonl into main.jsonl (main's) or pr.jsonl."""
    folder = tmp_path / run
    folder.mkdir()
    (folder / "res.json").write_text(json.dumps(vllm_output(
        4, date=f"202606{day:02d}-120000", output_throughput=409.6 * factor)), encoding="utf-8")
    outputs = [str(folder / "res.json")]
    if evals:
        (folder / "res-eval.json").write_text(GSM8K.read_text(encoding="utf-8"), encoding="utf-8")
        outputs.append(str(folder / "res-eval.json"))
    jsonl = tmp_path / ("main.jsonl" if ref == MAIN else "pr.jsonl")
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, "--row", str(tmp_path / "row.json"),
                         "--run-id", run, "--ref", ref, "--config-key", "dsr1-fp4-b300-vllm", "--jsonl", str(jsonl),
                         *outputs)
    assert rc == 0, err


def _compared(capsys, tmp_path: Path, main_days: list[int], pr_day: int, *, main_evals: bool,
              files: bool, slowed_from: int | None = None) -> tuple[int, dict, str]:
    """(exit status, --json, stderr) of `results compare --run 201 --fail-on-regression`: main's runs 101.. of
    ``main_days`` (each with the eval too with ``main_evals``; from day ``slowed_from`` on at 87 % too), the PR's
    of ``pr_day`` at 87 %, with its eval; against the store, or (``files``) a store of the PR run alone and
    --baseline-jsonl of main's."""
    (tmp_path / "row.json").write_text(json.dumps(ROW), encoding="utf-8")
    db, pr_db = f"sqlite:///{tmp_path / 'r.db'}", f"sqlite:///{tmp_path / 'pr.db'}"
    for n, day in enumerate(main_days):
        slowed = SLOWER if slowed_from is not None and day >= slowed_from else 1.0
        _ingest(capsys, tmp_path, db, str(101 + n), MAIN, day, NOISE[n % len(NOISE)] * slowed, main_evals)
    _ingest(capsys, tmp_path, pr_db if files else db, PR_RUN, PR_REF, pr_day, SLOWER, True)
    extra = ["--baseline-jsonl", str(tmp_path / "main.jsonl")] if files else []
    rc, out, err = run_cli(capsys, "results", "compare", "--db", pr_db if files else db, "--run", PR_RUN,
                           "--json", "--fail-on-regression", *extra)
    assert rc in (0, 3), err
    return rc, json.loads(out), err


def _tput(doc: dict) -> dict:
    (point,) = [p for p in doc["points"] if p["metric"] == R.OUTPUT_TPUT_PER_GPU]
    return point


@pytest.mark.parametrize("files", [False, True], ids=["store", "baseline-jsonl"])
def test_main_evals_before_the_run_leave_its_later_throughput_runs_the_baseline(capsys, tmp_path, files):
    """The PR ran on June 1; main measured the point's throughput on June 2..6 only (a store filled after the
    run), each run with its eval, whose output says 2024: the eval scores have a baseline from before the run,
    the throughput is judged against main's first 5 runs from the run on, and the 13 % drop fails the run."""
    rc, doc, _ = _compared(capsys, tmp_path, [2, 3, 4, 5, 6], 1, main_evals=True, files=files)
    tput = _tput(doc)
    assert (tput["verdict"], tput["baseline"]["n"]) == ("regressed", 5), tput
    assert rc == 3
    assert {e["verdict"] for e in doc["evals"]} == {"unchanged"}  # main's eval scores, the same file's


@pytest.mark.parametrize("files", [False, True], ids=["store", "baseline-jsonl"])
def test_an_eval_output_older_than_main_leaves_the_throughput_judged(capsys, tmp_path, files):
    """New user s40f as found: main measured the point on June 1..5 (with its eval), the PR on June 10 with an
    eval output dated 2024: its throughput is judged against main's 5 runs, regressed, exit 3."""
    rc, doc, _ = _compared(capsys, tmp_path, [1, 2, 3, 4, 5], 10, main_evals=True, files=files)
    tput = _tput(doc)
    assert (tput["verdict"], tput["baseline"]["n"]) == ("regressed", 5), tput
    assert rc == 3


@pytest.mark.parametrize("files", [False, True], ids=["store", "baseline-jsonl"])
def test_a_run_happened_when_its_throughput_was_measured_not_when_an_older_eval_output_says(capsys, tmp_path, files):
    """Main slowed 13 % on June 6 and ran 5 more nights (June 6..10); the PR, measured on June 11 at main's figure,
    carries an lm-eval output whose `date` says 2024. A run that measured throughput happened when it measured
    it (``compare.past_of``): judged against main's 5 runs before June 11, unchanged, exit 0. Its eval's date
    made it a run of 2024, judged against main's first 5 runs from then (June 1..5, before the slowdown):
    `regressed`, and --fail-on-regression failed a PR that changed nothing."""
    rc, doc, _ = _compared(capsys, tmp_path, list(range(1, 11)), 11, main_evals=False, files=files, slowed_from=6)
    tput = _tput(doc)
    assert (tput["verdict"], tput["baseline"]["n"]) == ("unchanged", 5), tput
    assert tput["baseline"]["median"] == pytest.approx(409.6 * SLOWER / 8, rel=0.02)  # per GPU: tp 8
    assert rc == 0
