"""s30e: an lmms-eval submission-only task's null score is no score, and costs the file's others nothing.

lmms-eval's submission-only tasks (EvolvingLMMs-Lab/lmms-eval lmms_eval/tasks/egoschema/egoschema.yaml:
``metric: submission`` aggregated by ``utils.egoschema_aggregate_submissions``, which writes the answers to
a submission file for the benchmark's server and returns nothing) leave ``"submission,none": null`` in
``results``, and ``"submission_stderr,none": "N/A"`` (lmms_eval/evaluator_utils.py: no stderr function for
a task's own aggregation), the CLT and clustered ones "N/A" too (no numeric per-sample scores). The whole
file was refused ("expected a finite number, got None"), losing the real scores of the run's other tasks.
The null score is now passed over with one warning naming the task; a file with no other score is refused.
"""

from __future__ import annotations

import json

from helpers import ROOT, no_ref_said, run_cli, show_json

from sweepgate.results import record as R

# A real lmms-eval results file (tests/data/results-real/SOURCES.tsv): one task, gqa, with a real score.
GQA = ROOT / "tests" / "data" / "results-real" / "lm_eval" / \
    "lmms-eval0.6dev_gqa_qwen2.5-vl-3b_vllm-bf16_jetson-thor_stderr_clt_clustered.json"
# What lmms-eval writes for EgoSchema's submission-only task in the same run (`--tasks gqa,egoschema`).
EGOSCHEMA = {"alias": "egoschema", "submission,none": None, "submission_stderr,none": "N/A",
             "submission_stderr_clt,none": "N/A", "submission_stderr_clustered,none": "N/A"}


def gqa() -> dict:
    return json.loads(GQA.read_text(encoding="utf-8"))


def with_egoschema() -> dict:
    """The real gqa run with egoschema beside gqa in every per-task table, as lmms-eval writes a run of both."""
    doc = gqa()
    doc["results"]["egoschema"] = dict(EGOSCHEMA)
    for table, entry in (("group_subtasks", []), ("versions", "Yaml"), ("n-shot", 0),
                         ("higher_is_better", {"submission": None}),
                         ("n-samples", {"original": 5031, "effective": 5031})):
        doc[table]["egoschema"] = entry
    return doc


def _ingest(capsys, tmp_path, doc: dict):
    path = tmp_path / "res-eval.json"
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    db = f"sqlite:///{tmp_path / 'r.db'}"
    return path, db, run_cli(capsys, "results", "ingest", "--db", db, str(path))


def test_the_other_task_s_score_is_stored_and_the_null_one_said_in_one_warning(tmp_path, capsys):
    path, db, (rc, out, err) = _ingest(capsys, tmp_path, with_egoschema())
    assert rc == 0, err
    assert out.startswith("ingested 1 results (1 new)")
    (line,) = no_ref_said(err).splitlines()  # one warning, at the null score's key (and its no-ref line)
    place = json.dumps(with_egoschema(), indent=2).splitlines().index('      "submission,none": null,') + 1
    assert line.startswith(f"{path}:{place}:7: warning: results.egoschema.submission,none: null, no score "), line
    assert "submission-only task" in line and "the file's other scores are stored" in line
    (rec,) = show_json(capsys, db)
    assert [(e["task"], e["metric"], e["filter"], e["value"], e["stderr"], e["samples"]) for e in rec[R.EVALS]] == [
        ("gqa", "exact_match", "none", 0.5996183813006837, 0.004369039829632883, 12578)]
    assert rec[R.STATUS] == "success"


def test_a_file_whose_only_task_has_a_null_score_is_refused_in_one_line(tmp_path, capsys):
    """The real gqa file with gqa's score null, as lmms-eval writes a submission-only task's: nothing to store."""
    doc = gqa()
    doc["results"]["gqa"].update({"exact_match,none": None, "exact_match_stderr,none": "N/A",
                                  "exact_match_stderr_clt,none": "N/A"})
    path, db, (rc, out, err) = _ingest(capsys, tmp_path, doc)
    assert rc == 1
    (line,) = err.splitlines()
    assert line.startswith(f"{path}:2:3: results: no scores, only null ones (task gqa, as lmms-eval writes a "
                           "submission-only task's"), line
    assert "nothing stored" in out


def test_the_file_is_as_the_tests_say():
    """The gqa file has one task, with a real score: egoschema is the test's, written as lmms-eval writes it."""
    assert list(gqa()["results"]) == ["gqa"] and gqa()["results"]["gqa"]["exact_match,none"] == 0.5996183813006837
