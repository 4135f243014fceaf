"""`results compare` on eval scores: real lm-eval outputs, ingested with their jobs' sidecars through
`results ingest` into SQLite, main's run against a PR run whose score moved beyond or within noise."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import pytest
from scipy.stats import norm

from helpers import ROOT, job, run_cli, vllm_output, write_job
from sweepgate.results import compare as C
from sweepgate.results import evals as E

LM_EVAL = ROOT / "tests" / "data" / "results-samples" / "lm_eval"
REAL = ROOT / "tests" / "data" / "results-real" / "lm_eval"
GSM8K = LM_EVAL / "lmeval0.4.x_gsm8k5shot_llama3-70b-gptq_vllm_a6000x4.json"  # stderr 0.0085 / 0.0109, n 1319
SMOKE = LM_EVAL / "lmeval0.4.8_gsm8k_granite_limit1_smoketest.json"        # one sample, stderr "N/A"
LAMBADA = LM_EVAL / "lmeval0.3_lambada_bloom-560m_0shot.json"              # lm-eval 0.3: ppl (lower is better)
ASDIV = REAL / "lmeval0.4.3_asdiv_llama3-8b_limit50_trimmed.json"          # --limit 50 of 2305
STRICT, FLEX = "strict-match", "flexible-extract"
PR_REF = "refs/pull/7/head"


def doc(path: Path, task: str | None = None, **scores) -> dict:
    """The real file, with ``scores`` (its keys -> values) set under ``task``."""
    out = json.loads(path.read_text(encoding="utf-8"))
    if task:
        out["results"][task].update(scores)
    return out


def gsm8k(delta: float = 0.0) -> dict:
    """The llama3-70b gsm8k results, strict-match moved by ``delta``."""
    out = doc(GSM8K)
    out["results"]["gsm8k"][f"exact_match,{STRICT}"] += delta
    return out


def ingest_job(root: Path, db: str, capsys, run: str, eval_doc: dict | None, *, ref: str = "refs/heads/main",
               day: int = 1, throughput: bool = True) -> None:
    """One job of ``run``: its vLLM output (unless not ``throughput``), its lm-eval output as
    ``res-eval.json`` and its sidecar, ingested by `sweepgate results ingest`."""
    folder = root / run
    side = job(run_id=run, ref=ref, finished=f"2026-01-{day:02d}T12:00:00+00:00")
    own = sum(map(ord, run)) % 3600  # each job's own output, as a real one is (its date to the second)
    write_job(folder, "res", vllm_output(date=f"202601{day:02d}-12{own // 60:02d}{own % 60:02d}") if throughput else None,
              side)
    if eval_doc is not None:
        (folder / "res-eval.json").write_text(json.dumps(eval_doc), encoding="utf-8")
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(folder))
    assert rc == 0, err


def compare(capsys, db: str, *extra) -> tuple[int, dict]:
    rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "2002", "--json", *extra)
    assert rc in (0, 3), err
    return rc, json.loads(out)


def by_score(doc_: dict) -> dict[tuple, dict]:
    return {(e["task"], e["metric"], e["filter"]): e for e in doc_["evals"]}


def pr_against_main(tmp_path, db, capsys, pr_doc: dict, main_doc: dict | None = None) -> None:
    ingest_job(tmp_path, db, capsys, "1001", gsm8k() if main_doc is None else main_doc)
    ingest_job(tmp_path, db, capsys, "2002", pr_doc, ref=PR_REF, day=2)


def test_a_score_dropped_beyond_noise_regresses_and_fails_the_run(tmp_path, db, capsys):
    """A quantization change costs gsm8k 5 points (the noise margin is 2.7): `regressed`, exit 3."""
    pr_against_main(tmp_path, db, capsys, gsm8k(-0.05))
    rc, out = compare(capsys, db, "--fail-on-regression")
    assert rc == 3
    assert {p["verdict"] for p in out["points"]} == {C.INSUFFICIENT}  # one main run: throughput not judged
    scores = by_score(out)
    strict, flex = scores[("gsm8k", "exact_match", STRICT)], scores[("gsm8k", "exact_match", FLEX)]
    assert (strict["verdict"], flex["verdict"]) == (C.REGRESSED, C.UNCHANGED)
    assert strict["difference"] == pytest.approx(-0.05)
    se = 0.008457575884041776
    # z at compare.CONFIDENCE, the run's two scores adjusted together (s43g): the strict score alone of the
    # point's two beyond noise, Benjamini-Hochberg's cut is 0.05 * 1 / 2 (z 2.24, not 1.96)
    assert strict["margin"] == pytest.approx(norm.isf(0.05 / 2 / 2) * math.sqrt(2) * se)
    assert strict["baseline"] == {"value": pytest.approx(0.8946171341925702), "stderr": se, "samples": 1319,
                                  "run-id": "1001"}
    assert strict["head"]["value"] == pytest.approx(0.8446171341925702)
    assert strict["config-key"] == "dsr1-fp4-b300-vllm" and strict["conc"] == 4
    assert [e["verdict"] for e in out["evals"]][0] == C.REGRESSED  # regressions first


def test_a_drop_within_noise_is_unchanged_and_passes(tmp_path, db, capsys):
    pr_against_main(tmp_path, db, capsys, gsm8k(-0.02))  # margin 1.96 * sqrt(2) * 0.0085 = 0.0234
    rc, out = compare(capsys, db, "--fail-on-regression")
    assert rc == 0
    assert {k: e["verdict"] for k, e in by_score(out).items()} == {
        ("gsm8k", "exact_match", STRICT): C.UNCHANGED, ("gsm8k", "exact_match", FLEX): C.UNCHANGED}


def test_a_rise_beyond_noise_improves(tmp_path, db, capsys):
    pr_against_main(tmp_path, db, capsys, gsm8k(+0.05))
    rc, out = compare(capsys, db, "--fail-on-regression")
    assert rc == 0 and by_score(out)[("gsm8k", "exact_match", STRICT)]["verdict"] == C.IMPROVED


def test_perplexity_is_better_lower(tmp_path, db, capsys):
    """lm-eval 0.3's lambada: ppl 28.7 ± 1.08 (margin 3.0); up 5 regressed, accuracy alike unchanged."""
    main = doc(LAMBADA)
    worse = doc(LAMBADA, "lambada_openai", ppl=main["results"]["lambada_openai"]["ppl"] + 5)
    pr_against_main(tmp_path, db, capsys, worse, main)
    rc, out = compare(capsys, db, "--fail-on-regression")
    scores = by_score(out)
    assert rc == 3 and scores[("lambada_openai", "ppl", "none")]["verdict"] == C.REGRESSED
    assert scores[("lambada_openai", "acc", "none")]["verdict"] == C.UNCHANGED
    assert E.score_label("lambada_openai", "ppl", "none") == "lambada_openai ppl"


def test_lower_perplexity_improves(tmp_path, db, capsys):
    main = doc(LAMBADA)
    better = doc(LAMBADA, "lambada_openai", ppl=main["results"]["lambada_openai"]["ppl"] - 5)
    pr_against_main(tmp_path, db, capsys, better, main)
    rc, out = compare(capsys, db, "--fail-on-regression")
    assert rc == 0 and by_score(out)[("lambada_openai", "ppl", "none")]["verdict"] == C.IMPROVED


@pytest.mark.parametrize("stated, verdict", [(False, C.IMPROVED), (True, C.REGRESSED)])
def test_the_file_s_higher_is_better_decides_the_direction(tmp_path, db, capsys, stated, verdict):
    """Real-file hunt: lm-eval 0.4 states each metric's direction (``higher_is_better``); a metric
    sweepgate does not know by name (an error rate, say) was always judged better higher."""
    def errors(delta: float) -> dict:
        out = gsm8k()
        out["results"]["gsm8k"][f"exact_match,{STRICT}"] -= delta
        out["higher_is_better"]["gsm8k"]["exact_match"] = stated
        return out

    pr_against_main(tmp_path, db, capsys, errors(0.05), errors(0.0))
    rc, out = compare(capsys, db, "--fail-on-regression")
    assert by_score(out)[("gsm8k", "exact_match", STRICT)]["verdict"] == verdict
    assert rc == (3 if verdict == C.REGRESSED else 0)


def test_an_eval_stored_before_directions_were_read_ingests_again_as_a_no_op(tmp_path, db, capsys):
    import sqlalchemy as sa

    ingest_job(tmp_path, db, capsys, "1001", gsm8k())
    engine = sa.create_engine(db)
    with engine.begin() as conn:  # the record as a version that did not read higher_is_better stored it
        for rid, text in conn.execute(sa.text("SELECT id, record FROM results")).all():
            rec = json.loads(text)
            for entry in rec.get("evals") or []:
                entry.pop("higher_is_better", None)
            conn.execute(sa.text("UPDATE results SET record = :r WHERE id = :i"), {"r": json.dumps(rec), "i": rid})
    engine.dispose()
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path / "1001"))
    assert rc == 0 and "(0 new)" in out, err


def test_a_missing_stderr_is_not_judged(tmp_path, db, capsys):
    """The one-sample smoke test: lm-eval wrote "N/A" for the stderr; even 1.0 -> 0.0 is not judged."""
    pr = doc(SMOKE)
    pr["results"]["gsm8k"][f"exact_match,{STRICT}"] = 0.0
    pr_against_main(tmp_path, db, capsys, pr, doc(SMOKE))
    rc, out = compare(capsys, db, "--fail-on-regression")
    strict = by_score(out)[("gsm8k", "exact_match", STRICT)]
    assert rc == 0 and strict["verdict"] == E.NOT_JUDGED and "stderr" in strict["why"]
    assert strict["head"] == {"value": 0.0, "stderr": None, "samples": 1}


def test_a_limit_run_against_a_full_run_is_not_judged(tmp_path, db, capsys):
    """asdiv with --limit 50 (acc 0.92) against a full run of 2305 questions (acc 0.70)."""
    full = doc(ASDIV)
    full["n-samples"]["asdiv"]["effective"] = 2305
    full["results"]["asdiv"]["acc,none"] = 0.70
    pr_against_main(tmp_path, db, capsys, doc(ASDIV), full)
    rc, out = compare(capsys, db, "--fail-on-regression")
    (acc,) = out["evals"]
    assert rc == 0 and acc["verdict"] == E.NOT_JUDGED
    assert acc["why"].startswith("samples differ (50 in this run, 2305 in baseline run 1001): ")
    assert acc["why"].endswith("; no baseline run of the window has the score as this run ran it")
    rc, text, _ = run_cli(capsys, "results", "compare", "--db", db, "--run", "2002", "--markdown")
    (row,) = [line for line in text.splitlines() if "| asdiv acc |" in line]
    assert "(n=50) | 0.7000" in row and "(n=2305) |" in row  # the counts shown where they differ


def test_without_a_baseline_score_the_score_is_new(tmp_path, db, capsys):
    ingest_job(tmp_path, db, capsys, "1001", None)  # main ran no eval
    ingest_job(tmp_path, db, capsys, "2002", gsm8k(), ref=PR_REF, day=2)
    rc, out = compare(capsys, db, "--fail-on-regression")
    assert rc == 0 and {e["verdict"] for e in out["evals"]} == {C.NEW}
    assert all(e["baseline"] is None for e in out["evals"])


def test_the_baseline_is_the_newest_main_run_not_the_window_mean(tmp_path, db, capsys):
    """Main's older run scored 0.80, its newest 0.8946 (a change merged on main). The PR scores
    0.8946: no change against main as it is now (against the window's mean, 0.847, it would read as
    an improvement the PR did not make)."""
    ingest_job(tmp_path, db, capsys, "1000", gsm8k(0.80 - 0.8946171341925702), day=1)
    ingest_job(tmp_path, db, capsys, "1001", gsm8k(), day=2)
    ingest_job(tmp_path, db, capsys, "1002", None, day=3)  # the newest main run ran no eval
    ingest_job(tmp_path, db, capsys, "2002", gsm8k(), ref=PR_REF, day=4)
    _, out = compare(capsys, db)
    strict = by_score(out)[("gsm8k", "exact_match", STRICT)]
    assert strict["verdict"] == C.UNCHANGED and strict["baseline"]["run-id"] == "1001"
    assert strict["difference"] == pytest.approx(0.0)


def test_an_eval_only_job_is_compared_too(tmp_path, db, capsys):
    """A job that ran only the eval (its sidecar beside X-eval.json, no throughput output)."""
    ingest_job(tmp_path, db, capsys, "1001", gsm8k(), throughput=False)
    ingest_job(tmp_path, db, capsys, "2002", gsm8k(-0.05), ref=PR_REF, day=2, throughput=False)
    rc, out = compare(capsys, db, "--fail-on-regression")
    assert rc == 3 and out["points"] == []
    assert by_score(out)[("gsm8k", "exact_match", STRICT)]["verdict"] == C.REGRESSED


def test_markdown_has_an_evals_section_regressions_first(tmp_path, db, capsys):
    pr_against_main(tmp_path, db, capsys, gsm8k(-0.05))
    summary = tmp_path / "summary.md"
    rc, md, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "2002", "--markdown",
                          "--step-summary", str(summary))
    assert rc == 0, err
    assert "#### Evals (2 eval scores: 1 regressed, 1 unchanged)" in md
    rows = [line for line in md.splitlines() if "| gsm8k exact_match" in line]
    assert len(rows) == 2 and "strict-match" in rows[0] and rows[0].endswith("| regressed |")
    # the margin of 2 scores judged together; the baseline main run 1001
    assert "| 0.8446 ±0.0085 | 0.8946 ±0.0085 | 1001 | -0.0500 (0.0268) |" in rows[0]
    assert "#### Evals" in summary.read_text(encoding="utf-8")


def test_terminal_output_has_a_second_table_of_evals(tmp_path, db, capsys):
    pr_against_main(tmp_path, db, capsys, gsm8k(-0.05))
    rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "2002")
    assert rc == 0, err
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip() == "evals")
    assert "score" in lines[start + 1] and "verdict" in lines[start + 1]
    assert "gsm8k exact_match strict-match" in lines[start + 2] and "regressed" in lines[start + 2]
    assert "2 eval scores: 1 regressed, 1 unchanged" in lines[start:]  # under the table, above the headline (s47g)


def test_a_throughput_only_run_shows_no_evals_section(tmp_path, db, capsys):
    ingest_job(tmp_path, db, capsys, "1001", None)
    ingest_job(tmp_path, db, capsys, "2002", None, ref=PR_REF, day=2)
    rc, md, _ = run_cli(capsys, "results", "compare", "--db", db, "--run", "2002", "--markdown")
    assert rc == 0 and "Evals" not in md
    rc, out = compare(capsys, db)
    assert out["evals"] == [] and out["points"]


def test_judge_is_symmetric_and_uses_both_stderrs():
    head = {"value": 0.5, "stderr": 0.03, "samples": 100}
    base = {"value": 0.6, "stderr": 0.04, "samples": 100}
    verdict, diff, margin, why = E.judge(head, base, "acc")
    assert (verdict, why) == (C.REGRESSED, None) and margin == pytest.approx(1.959964 * 0.05, rel=1e-6)
    assert E.judge(base, head, "acc")[0] == C.IMPROVED
    assert E.judge(base, head, "perplexity")[0] == C.REGRESSED
    near = copy.deepcopy(head) | {"value": 0.6 - 0.097}
    assert E.judge(near, base, "acc")[0] == C.UNCHANGED  # 0.097 < 0.098


def test_a_comment_with_thousands_of_eval_rows_stays_within_its_limit():
    """--comment-file caps the body at GitHub's size: eval rows beyond the cut are counted, not lost silently."""
    from sweepgate.results import render

    point = ("dsr1-fp4-b300-vllm", "b300", "fixed-seq-len", 1024, 1024, 4, None, None, None, None, None)
    figures = {"value": 0.5, "stderr": 0.01, "samples": 1319}
    rows = [E.EvalVerdict(point, f"task{i}", "acc", "none", figures, {**figures, "run-id": "1001"}, 0.0, 0.03,
                          C.UNCHANGED) for i in range(3000)]
    body = render.markdown(C.Comparison("2002", [], {}, {}, evals=rows), limit=65_000)
    assert len(body.encode()) <= 65_000 and "#### Evals (3000 eval scores: 3000 unchanged)" in body
    assert "more eval rows: see `--json`." in body


def test_the_comment_shows_an_eval_regression_before_the_folded_sections(tmp_path, db, capsys):
    """Review: a 10-point gsm8k drop came last in the PR comment, after the folded "Not judged" and
    "Unchanged" sections, and a -40 % throughput with too few baseline runs hid inside "Not judged"."""
    ingest_job(tmp_path, db, capsys, "1001", gsm8k())
    folder = tmp_path / "2002"
    write_job(folder, "res", vllm_output(output_throughput=245.8),  # -40 %, one baseline run
              job(run_id="2002", ref=PR_REF, finished="2026-01-02T12:00:00+00:00"))
    (folder / "res-eval.json").write_text(json.dumps(gsm8k(-0.10)), encoding="utf-8")
    assert run_cli(capsys, "results", "ingest", "--db", db, str(folder))[0] == 0
    rc, md, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "2002", "--markdown")
    assert rc == 0, err
    assert md.index("#### Evals") < md.index("<summary>Not judged")
    assert "<summary>Not judged: 1 point insufficient-data (6 metrics); 1 metric changed beyond its threshold, listed above</summary>" in md, md
    # results review: the changed row sat unmarked among the folded ones; it is listed open first
    opened = md.index("#### Not judged, changed beyond the threshold (1 point, 1 metric)")
    assert md.index("#### Evals") < opened < md.index("<summary>Not judged")
    (row,) = [line for line in md[opened:md.index("<summary>Not judged")].splitlines() if "insufficient-data" in line]
    assert "-40." in row or "-39." in row or "-41." in row, row


def test_a_group_stored_without_a_sample_count_is_still_judged_against_one_with_it(tmp_path, db, capsys):
    """Diff review: main's mmlu group stored by an older version (no sample count) against a PR run whose
    group counts its subtasks' (397): every group score read "samples differ (397 ..., None ...)",
    not judged, and a 0.2 drop passed --fail-on-regression."""
    import sqlalchemy as sa

    groups = REAL / "lmeval0.4.7_qwen2.5-1.5b_11tasks_mmlu_groups_trimmed.json"
    ingest_job(tmp_path, db, capsys, "1001", doc(groups))
    engine = sa.create_engine(db)
    with engine.begin() as conn:  # main's record as the older version stored it: groups without a count
        for rid, text in conn.execute(sa.text("SELECT id, record FROM results")).all():
            rec = json.loads(text)
            for entry in rec.get("evals") or []:
                if entry["task"] in ("mmlu", "mmlu_stem", "mmlu_humanities"):
                    entry["samples"] = None
            conn.execute(sa.text("UPDATE results SET record = :r WHERE id = :i"), {"r": json.dumps(rec), "i": rid})
    engine.dispose()
    ingest_job(tmp_path, db, capsys, "2002", doc(groups, "mmlu", **{"acc,none": 0.3961401509756445}), ref=PR_REF, day=2)
    rc, out = compare(capsys, db, "--fail-on-regression")
    mmlu = by_score(out)[("mmlu", "acc", "none")]
    assert rc == 3 and mmlu["verdict"] == "regressed", mmlu
    assert (mmlu["head"]["samples"], mmlu["baseline"]["samples"]) == (397, None)


def test_a_score_the_run_lost_is_reported_not_gone(tmp_path, capsys):
    """Diff review: lm-eval wrote a score as Infinity (every answer unscorable); ingest leaves it out
    with a warning, and compare then said nothing of it: not among the evals, not among the points
    not measured. Main's score with none in the run is one not-judged verdict now, in every output."""
    materials = REAL / "lmeval0.4.8_gpt4o-mini_materials_12tasks_mae_infinity_nan_trimmed.json"
    task = "polymer_tg_prediction"
    assert math.isinf(json.loads(materials.read_text())["results"][task]["mae,none"])
    db = f"sqlite:///{tmp_path / 'r.db'}"
    for day in range(1, 6):
        ingest_job(tmp_path, db, capsys, f"10{day}", doc(materials, task, **{"mae,none": 30.0,
                                                                             "mae_stderr,none": 2.0}), day=day)
    ingest_job(tmp_path, db, capsys, "2002", doc(materials), ref=PR_REF, day=9)
    rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "2002", "--json")
    assert rc == 0, err
    (lost,) = [e for e in json.loads(out)["evals"] if e["task"] == task and e["metric"] == "mae"]
    assert lost["verdict"] == "not-judged" and lost["head"]["value"] is None and lost["baseline"]["value"] == 30.0
    assert "no score in this run" in lost["why"]
    rc, table, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "2002")
    assert rc == 0 and "no score in this run" in table, table[-3000:]


def test_a_score_main_no_longer_reports_is_not_one_the_run_lost(tmp_path, db, capsys):
    """Diff review of bec5ab3: a score counted as lost when any of the window's main runs had it, so a
    score main itself stopped reporting (its newest run has none) was a not-judged verdict on every PR,
    blamed on "lm-eval wrote none it could store" and judged against a score weeks old. As the
    not-measured list does, only the newest baseline run's scores count."""
    strict_only = gsm8k()
    for key in (f"exact_match,{FLEX}", f"exact_match_stderr,{FLEX}"):
        del strict_only["results"]["gsm8k"][key]
    ingest_job(tmp_path, db, capsys, "1001", gsm8k(), day=1)
    ingest_job(tmp_path, db, capsys, "1002", strict_only, day=2)
    ingest_job(tmp_path, db, capsys, "2002", strict_only, ref=PR_REF, day=3)
    rc, out = compare(capsys, db)
    assert rc == 0 and set(by_score(out)) == {("gsm8k", "exact_match", STRICT)}, out["evals"]
