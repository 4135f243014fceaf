"""s48b: an lm-eval group with no aggregate score of its own was left out without a word.

lm-eval aggregates a group's subtasks only where the group's config names an ``aggregate_metric_list``; one that
names none (the Open LLM Leaderboard's ``leaderboard_musr``, a fork's ``TREC_CDS_0-shot``) is written in
``results`` with no score, as ``{" ": " ", "alias": …}`` (0.4.x) or ``{"alias": …, "name": …}`` (2025 on), its
subtasks listed under ``group_subtasks``. Its subtasks' scores were stored, but nothing said that the group the
eval was run as has none, and a maintainer looking for ``leaderboard_musr`` in the comment found nothing. Ingest
now says so in one warning line per file, at the group's key; lm-eval chose no aggregate for it, so none is
made up. Inputs: the real files named below (tests/data/results-real/SOURCES.tsv), two modified in a tmp dir.
"""

from __future__ import annotations

import json

from helpers import ROOT, no_ref_said, run_cli, show_json

from sweepgate.results import record as R

REAL = ROOT / "tests" / "data" / "results-real" / "lm_eval"
MUSR = REAL / "lmeval0.4.5_leaderboard_musr_gpt4o_group_space_placeholder.json"  # 0.4.5: {" ": " "}, as written
MMLU = REAL / "lmeval0.4.7_qwen2.5-1.5b_11tasks_mmlu_groups_trimmed.json"  # 0.4.7: groups with their aggregates
ARC = REAL / "lmeval2026_cpu_group_regression_expected_arc_limit10_name_sample_len.json"  # 2025+: name, sample_len


def _ingest(capsys, tmp_path, doc: dict):
    path = tmp_path / "results_2026-01-01T00-00-00.json"
    text = json.dumps(doc, indent=2)
    path.write_text(text, encoding="utf-8")
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(path))
    return path, text, db, rc, out, no_ref_said(err)


def _at(text: str, key: str) -> str:
    """``LINE:COL`` of ``key`` in ``text``'s results."""
    at = text.index(f'"{key}":', text.index('"results":'))
    return f"{text.count(chr(10), 0, at) + 1}:{at - (text.rfind(chr(10), 0, at) + 1) + 1}"


def test_a_group_with_no_score_of_its_own_is_said_in_one_warning_and_its_subtasks_stored(tmp_path, capsys):
    """The real leaderboard_musr file, as lm-eval 0.4.5 wrote it."""
    doc = json.loads(MUSR.read_text(encoding="utf-8"))
    path, text, db, rc, out, err = _ingest(capsys, tmp_path, doc)
    assert rc == 0 and out.startswith("ingested 1 results (1 new)"), (out, err)
    (line,) = err.splitlines()
    assert line == (f"{path}:{_at(text, 'leaderboard_musr')}: warning: results.leaderboard_musr: a group of 3 "
                    "subtasks with no score of its own (lm-eval aggregates a group only where its config names an "
                    "aggregate_metric_list); its subtasks' scores are stored, each compared alone; "
                    "to compare the group as one score, name an aggregate_metric_list in its group config and run "
                    "the eval again"), line
    (rec,) = show_json(capsys, db)
    assert sorted({e[R.EVAL_TASK] for e in rec[R.EVALS]}) == [
        "leaderboard_musr_murder_mysteries", "leaderboard_musr_object_placements", "leaderboard_musr_team_allocation"]


def test_several_groups_with_no_score_are_one_line_naming_each(tmp_path, capsys):
    """The real 0.4.7 mmlu file with its two subgroups' aggregates taken out, as lm-eval writes a group it
    aggregates nothing of; mmlu keeps its own and is not named."""
    doc = json.loads(MMLU.read_text(encoding="utf-8"))
    for group in ("mmlu_humanities", "mmlu_stem"):
        doc["results"][group] = {" ": " ", "alias": doc["results"][group]["alias"]}
        del doc["groups"][group]
    path, text, db, rc, out, err = _ingest(capsys, tmp_path, doc)
    assert rc == 0, err
    (line,) = err.splitlines()
    assert line.startswith(f"{path}:{_at(text, 'mmlu_humanities')}: warning: results.mmlu_humanities: a group of "
                           "2 subtasks with no score of its own (as is mmlu_stem; lm-eval aggregates "), line
    assert "; their subtasks' scores are stored, each compared alone; " in line, line
    tasks = {e[R.EVAL_TASK] for e in show_json(capsys, db)[0][R.EVALS]}
    assert "mmlu" in tasks and not tasks & {"mmlu_humanities", "mmlu_stem"}, tasks


def test_a_2025_group_written_by_its_name_alone_is_said_too(tmp_path, capsys):
    """The real 2025+ file (a group with name and sample_len beside its scores) with the group's aggregate taken
    out, as lm-eval writes a group with no aggregate_metric_list since 2025: its alias and name alone."""
    doc = json.loads(ARC.read_text(encoding="utf-8"))
    group = doc["results"]["regression_arc"]
    doc["results"]["regression_arc"] = {"alias": group["alias"], "name": "regression_arc"}
    path, text, db, rc, out, err = _ingest(capsys, tmp_path, doc)
    assert rc == 0, err
    (line,) = err.splitlines()
    assert line.startswith(f"{path}:{_at(text, 'regression_arc')}: warning: results.regression_arc: a group of 2 "
                           "subtasks with no score of its own"), line


def test_groups_with_their_aggregates_say_nothing(tmp_path, capsys):
    """The real 0.4.7 mmlu file as written: each group has its aggregate, stored as a score."""
    path, text, db, rc, out, err = _ingest(capsys, tmp_path, json.loads(MMLU.read_text(encoding="utf-8")))
    assert (rc, err) == (0, ""), err
    assert {"mmlu", "mmlu_humanities", "mmlu_stem"} <= {e[R.EVAL_TASK] for e in show_json(capsys, db)[0][R.EVALS]}


def test_the_files_are_as_the_tests_say():
    musr = json.loads(MUSR.read_text(encoding="utf-8"))
    assert musr["results"]["leaderboard_musr"] == {" ": " ", "alias": "leaderboard_musr"}
    assert len(musr["group_subtasks"]["leaderboard_musr"]) == 3
    mmlu = json.loads(MMLU.read_text(encoding="utf-8"))
    assert [len(mmlu["group_subtasks"][g]) for g in ("mmlu_humanities", "mmlu_stem")] == [2, 1]
    arc = json.loads(ARC.read_text(encoding="utf-8"))
    assert "acc,none" in arc["results"]["regression_arc"] and len(arc["group_subtasks"]["regression_arc"]) == 2
