"""s45i: an eval score's baseline is the newest main run that ran it as the compared run did.

The baseline of a score was main's newest run that had it, comparable or not: a `--limit 1` smoke run on main made
a full PR eval "not-judged" (samples differ) though the full main run before it had the score, and a main run of
another few-shot count (or, in lm-eval 0.3 files, which state no sample count, another --limit) was judged against
as if it were alike. Real lm-eval outputs, ingested with their jobs' sidecars through `results ingest` into SQLite.
"""

from __future__ import annotations

import json

from helpers import run_cli
from test_compare_evals import GSM8K, LAMBADA, PR_REF, SMOKE, STRICT, by_score, compare, doc, gsm8k, ingest_job

from sweepgate.results import compare as C
from sweepgate.results import evals as E

SMOKE_WHY = "samples differ (1319 in this run, 1 in baseline run {run}): " + E.LIMITED


def shots(n: int, delta: float = 0.0) -> dict:
    """The llama3-70b gsm8k results as an n-shot run writes them (n-shot and the task's config), strict moved."""
    out = gsm8k(delta)
    out["n-shot"]["gsm8k"] = out["configs"]["gsm8k"]["num_fewshot"] = n
    return out


def test_a_smoke_run_on_main_is_passed_over_for_the_full_run_before_it(tmp_path, db, capsys):
    """Main's full run (1000), then its `--limit 1` smoke run (1001, the real granite file: one sample, stderr N/A).
    A PR's full run 5 points down regresses against 1000, and the JSON says 1001 was passed over and why."""
    assert json.loads(SMOKE.read_text())["n-samples"]["gsm8k"]["effective"] == 1
    ingest_job(tmp_path, db, capsys, "1000", gsm8k(), day=1)
    ingest_job(tmp_path, db, capsys, "1001", doc(SMOKE), day=2)
    ingest_job(tmp_path, db, capsys, "2002", gsm8k(-0.05), ref=PR_REF, day=3)
    rc, out = compare(capsys, db, "--fail-on-regression")
    strict = by_score(out)[("gsm8k", "exact_match", STRICT)]
    assert rc == 3 and strict["verdict"] == C.REGRESSED, strict
    assert strict["baseline"]["run-id"] == "1000" and strict["baseline"]["samples"] == 1319
    assert strict["passed-over"] == {"run-id": "1001", "why": SMOKE_WHY.format(run="1001")}
    rc, md, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "2002", "--markdown")
    (row,) = [line for line in md.splitlines() if f"| gsm8k exact_match {STRICT} |" in line]
    assert "| 0.8946 ±0.0085 | 1000 | -0.0500 (" in row, row  # the main run column names the run used


def test_with_only_smoke_runs_on_main_the_newest_is_named_and_why(tmp_path, db, capsys):
    """No main run of the window ran the full eval: not judged, the newest smoke run shown and named in the reason."""
    ingest_job(tmp_path, db, capsys, "1001", doc(SMOKE), day=1)
    ingest_job(tmp_path, db, capsys, "1002", doc(SMOKE), day=2)
    ingest_job(tmp_path, db, capsys, "2002", gsm8k(), ref=PR_REF, day=3)
    rc, out = compare(capsys, db, "--fail-on-regression")
    strict = by_score(out)[("gsm8k", "exact_match", STRICT)]
    assert rc == 0 and strict["verdict"] == E.NOT_JUDGED and strict["baseline"]["run-id"] == "1002"
    assert strict["why"] == SMOKE_WHY.format(run="1002") + "; " + E.NONE_ALIKE
    assert "passed-over" not in strict
    rc, text, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "2002")
    assert "in baseline run 1002): a --limit run" in " ".join(text.split()), text[-1500:]


def test_a_main_run_of_another_few_shot_count_is_passed_over(tmp_path, db, capsys):
    """Main ran gsm8k 5-shot (1000), then 8-shot (1001, 5 points up). A 5-shot PR run at main's 5-shot score is
    unchanged against 1000; against 1001 it read as a regression main's own eval change made."""
    ingest_job(tmp_path, db, capsys, "1000", shots(5), day=1)
    ingest_job(tmp_path, db, capsys, "1001", shots(8, +0.05), day=2)
    ingest_job(tmp_path, db, capsys, "2002", shots(5), ref=PR_REF, day=3)
    rc, out = compare(capsys, db, "--fail-on-regression")
    strict = by_score(out)[("gsm8k", "exact_match", STRICT)]
    assert rc == 0 and strict["verdict"] == C.UNCHANGED and strict["baseline"]["run-id"] == "1000", strict
    assert strict["passed-over"]["run-id"] == "1001"
    assert strict["passed-over"]["why"].startswith("few-shot counts differ (5-shot in this run, 8-shot in baseline "
                                                   "run 1001): ")


def test_a_pr_run_of_another_few_shot_count_is_not_judged(tmp_path, db, capsys):
    ingest_job(tmp_path, db, capsys, "1001", shots(5), day=1)
    ingest_job(tmp_path, db, capsys, "2002", shots(8, -0.05), ref=PR_REF, day=2)
    rc, out = compare(capsys, db, "--fail-on-regression")
    strict = by_score(out)[("gsm8k", "exact_match", STRICT)]
    assert rc == 0 and strict["verdict"] == E.NOT_JUDGED, strict
    assert strict["why"].startswith("few-shot counts differ (8-shot in this run, 5-shot in baseline run 1001): ")


def test_an_lm_eval_0_3_limit_run_on_main_is_passed_over(tmp_path, db, capsys):
    """lm-eval 0.3 writes no sample counts, only its config's limit: main's newest run (1001) ran lambada with
    --limit 10 (its perplexity 40 there), the full run before it 28.7. The PR's full run is judged against 1000."""
    main = doc(LAMBADA)
    assert "n-samples" not in main and main["config"]["limit"] is None
    limited = doc(LAMBADA, "lambada_openai", ppl=40.0)
    limited["config"]["limit"] = 10
    ingest_job(tmp_path, db, capsys, "1000", main, day=1)
    ingest_job(tmp_path, db, capsys, "1001", limited, day=2)
    ingest_job(tmp_path, db, capsys, "2002", doc(LAMBADA), ref=PR_REF, day=3)
    rc, out = compare(capsys, db, "--fail-on-regression")
    ppl = by_score(out)[("lambada_openai", "ppl", "none")]
    assert rc == 0 and ppl["verdict"] == C.UNCHANGED and ppl["baseline"]["run-id"] == "1000", ppl
    assert ppl["passed-over"] == {"run-id": "1001", "why": "limits differ (no --limit in this run, --limit 10 in "
                                  f"baseline run 1001): {E.LIMITED}"}


def test_the_eval_entries_keep_the_run_s_few_shot_count_and_limit(tmp_path, db, capsys):
    ingest_job(tmp_path, db, capsys, "1001", doc(SMOKE), day=1)
    rc, out, err = run_cli(capsys, "results", "show", "--db", db, "--run", "1001", "--json")
    (rec,) = [r for r in json.loads(out) if r.get("evals")]
    assert {(e["n-shot"], e["limit"], e["samples"]) for e in rec["evals"]} == {(5, 1.0, 1)}
    ingest_job(tmp_path, db, capsys, "1002", json.loads(GSM8K.read_text()), day=2)
    rc, out, err = run_cli(capsys, "results", "show", "--db", db, "--run", "1002", "--json")
    (rec,) = [r for r in json.loads(out) if r.get("evals")]
    assert {(e["n-shot"], e["limit"], e["samples"]) for e in rec["evals"]} == {(5, None, 1319)}
