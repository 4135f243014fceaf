"""s46f: an eval score's baseline is a main run that put its prompts to the model as the compared run did.

lm-eval 0.4.3+ writes how it prompted the model: `fewshot_as_multiturn` (the few-shot examples as turns of a
conversation), `chat_template` and `chat_template_sha` (the template `--apply_chat_template` applied; null: none) and
`system_instruction`. None of it was stored or compared: a PR's gsm8k run without the chat template was judged against
main's run with it (five points down read as a regression of the PR's), and a multi-turn run against a single-text
one. Now each score keeps them, and a main run prompted otherwise is passed over for the newest one prompted alike, or,
with none, the score is not judged, saying which differed. Real lm-eval outputs through `results ingest` into SQLite.
"""

from __future__ import annotations

import json

from helpers import ROOT, run_cli
from test_compare_evals import PR_REF, STRICT, by_score, compare, gsm8k, ingest_job

from sweepgate.results import compare as C
from sweepgate.results import evals as E

IFEVAL = ROOT / "tests" / "data" / "results-samples" / "lm_eval" / "lmeval0.4.13_ifeval_gemma4-26b_l40s.json"
SHA = "b48c47f6443892716176eb200bf4ef108f64e06ca26ed0fa8ebc0a4b3992fcb2"  # the llama3-70b run's template, as written


def untemplated(delta: float = 0.0) -> dict:
    """The llama3-70b gsm8k run as lm-eval writes it without --apply_chat_template: no template, no sha."""
    out = gsm8k(delta)
    out["chat_template"] = out["chat_template_sha"] = None
    return out


def multiturn(delta: float = 0.0) -> dict:
    out = gsm8k(delta)
    out["fewshot_as_multiturn"] = True
    return out


def strict(report: dict) -> dict:
    return by_score(report)[("gsm8k", "exact_match", STRICT)]


def test_a_run_without_main_s_chat_template_is_not_judged_against_it(tmp_path, db, capsys):
    """Main's gsm8k ran with Llama-3's chat template; the PR's without, five points down: that was `regressed` (exit
    3). The prompts differ: not judged, the reason naming the template and the run."""
    ingest_job(tmp_path, db, capsys, "1001", gsm8k(), day=1)
    ingest_job(tmp_path, db, capsys, "2002", untemplated(-0.05), ref=PR_REF, day=2)
    rc, report = compare(capsys, db, "--fail-on-regression")
    score = strict(report)
    assert rc == 0 and score["verdict"] == E.NOT_JUDGED, score
    assert score["why"] == (f"chat templates differ (none in this run, {SHA[:12]} in baseline run 1001): the model "
                            f"answered other prompts; {E.NONE_ALIKE}")
    rc, text, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "2002")
    assert "chat templates differ (none in this run" in " ".join(text.split()), text[-2000:]


def test_main_s_newest_run_with_another_template_is_passed_over(tmp_path, db, capsys):
    """Main ran gsm8k without a chat template (1000), then with one (1001, five points up). A PR without one at
    1000's score is unchanged against 1000, and 1001 is named as passed over, and why."""
    ingest_job(tmp_path, db, capsys, "1000", untemplated(), day=1)
    ingest_job(tmp_path, db, capsys, "1001", gsm8k(+0.05), day=2)
    ingest_job(tmp_path, db, capsys, "2002", untemplated(), ref=PR_REF, day=3)
    rc, report = compare(capsys, db, "--fail-on-regression")
    score = strict(report)
    assert rc == 0 and score["verdict"] == C.UNCHANGED and score["baseline"]["run-id"] == "1000", score
    assert score["passed-over"] == {"run-id": "1001", "why": f"chat templates differ (none in this run, {SHA[:12]} "
                                    "in baseline run 1001): the model answered other prompts"}


def test_another_template_is_not_judged_against_main_s(tmp_path, db, capsys):
    other = gsm8k(-0.05)
    other["chat_template"] += " "
    other["chat_template_sha"] = "0" * 64
    ingest_job(tmp_path, db, capsys, "1001", gsm8k(), day=1)
    ingest_job(tmp_path, db, capsys, "2002", other, ref=PR_REF, day=2)
    score = strict(compare(capsys, db)[1])
    assert score["verdict"] == E.NOT_JUDGED and score["why"].startswith(
        f"chat templates differ (000000000000 in this run, {SHA[:12]} in baseline run 1001)"), score


def test_few_shot_as_multi_turn_against_one_text_is_not_judged(tmp_path, db, capsys):
    ingest_job(tmp_path, db, capsys, "1001", gsm8k(), day=1)
    ingest_job(tmp_path, db, capsys, "2002", multiturn(-0.05), ref=PR_REF, day=2)
    rc, report = compare(capsys, db, "--fail-on-regression")
    score = strict(report)
    assert rc == 0 and score["verdict"] == E.NOT_JUDGED, score
    assert score["why"].startswith("few-shot as multi-turn differs (on in this run, off in baseline run 1001): ")


def test_a_run_prompted_alike_is_judged(tmp_path, db, capsys):
    ingest_job(tmp_path, db, capsys, "1001", multiturn(), day=1)
    ingest_job(tmp_path, db, capsys, "2002", multiturn(-0.05), ref=PR_REF, day=2)
    rc, report = compare(capsys, db, "--fail-on-regression")
    assert rc == 3 and strict(report)["verdict"] == C.REGRESSED


def test_a_0_shot_run_has_no_few_shot_turns_to_differ_in(tmp_path, db, capsys):
    """The real ifeval run (0-shot, multi-turn on, an API model's chat template lm-eval recorded no text of) against
    the same run with multi-turn off: no few-shot examples, the same prompts, judged (unchanged; its instruction-level
    scores have no stderr, "N/A", and are not judged for that)."""
    real = json.loads(IFEVAL.read_text(encoding="utf-8"))
    assert real["n-shot"] == {"ifeval": 0} and real["fewshot_as_multiturn"] is True and real["chat_template"] == ""
    off = {**real, "fewshot_as_multiturn": False}
    ingest_job(tmp_path, db, capsys, "1001", real, day=1)
    ingest_job(tmp_path, db, capsys, "2002", off, ref=PR_REF, day=2)
    rc, report = compare(capsys, db)
    verdicts = {e["metric"]: (e["verdict"], e.get("why", "")) for e in report["evals"]}
    assert {m: v for m, (v, _) in verdicts.items() if m.startswith("prompt_level")} == {
        "prompt_level_strict_acc": C.UNCHANGED, "prompt_level_loose_acc": C.UNCHANGED}, verdicts
    assert all(why.startswith("no stderr") for v, why in verdicts.values() if v != C.UNCHANGED), verdicts
    # and without the template it is prompted otherwise
    ingest_job(tmp_path, db, capsys, "2003", {**real, "chat_template": None}, ref=PR_REF, day=3)
    rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "2003", "--json")
    untemplated_run = [e for e in json.loads(out)["evals"] if e["metric"].startswith("prompt_level")]
    assert untemplated_run and {e["verdict"] for e in untemplated_run} == {E.NOT_JUDGED}
    assert all(e["why"].startswith("chat templates differ (none in this run, one lm-eval recorded no text of in "
                                   "baseline run 1001)") for e in untemplated_run), untemplated_run


def test_the_entries_keep_how_the_run_prompted(tmp_path, db, capsys):
    ingest_job(tmp_path, db, capsys, "1001", gsm8k(), day=1)
    rc, out, err = run_cli(capsys, "results", "show", "--db", db, "--run", "1001", "--json")
    (rec,) = [r for r in json.loads(out) if r.get("evals")]
    assert {(e["fewshot-as-multiturn"], e["chat-template"], e["system-instruction"]) for e in rec["evals"]} == {
        (False, SHA, None)}


def test_an_old_file_that_states_none_of_it_differs_from_nothing(tmp_path, db, capsys):
    """A file of before lm-eval 0.4.3 states neither: judged against a run that states them, as before."""
    old = gsm8k(-0.05)
    for key in ("fewshot_as_multiturn", "chat_template", "chat_template_sha", "system_instruction",
                "system_instruction_sha"):
        del old[key]
    ingest_job(tmp_path, db, capsys, "1001", gsm8k(), day=1)
    ingest_job(tmp_path, db, capsys, "2002", old, ref=PR_REF, day=2)
    assert strict(compare(capsys, db)[1])["verdict"] == C.REGRESSED


def test_a_run_given_a_system_instruction_main_s_was_not_is_not_judged(tmp_path, db, capsys):
    """`--system_instruction` prefixes every prompt: lm-eval writes it and its SHA-256 (computed here where a file
    writes the text alone, as lm-eval does)."""
    told = gsm8k(-0.05)
    told["system_instruction"] = "Answer with the number alone."
    told["system_instruction_sha"] = None
    ingest_job(tmp_path, db, capsys, "1001", gsm8k(), day=1)
    ingest_job(tmp_path, db, capsys, "2002", told, ref=PR_REF, day=2)
    score = strict(compare(capsys, db)[1])
    assert score["verdict"] == E.NOT_JUDGED, score
    assert score["why"].startswith("system instructions differ (9d852619a7d1 in this run, none in baseline run 1001)")
