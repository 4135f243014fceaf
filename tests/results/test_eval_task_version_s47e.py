"""s47e: an eval score is compared only with a baseline run of the same version of its task.

lm-eval writes each task's version (``versions``: gsm8k 3.0) and bumps it when it changes the task's prompts, answers
or scoring; sweepgate kept the few-shot count, the --limit and the prompting of each score but not the version, so a
main run of gsm8k 2.0 was the baseline of a PR run of gsm8k 3.0 and their difference read as the PR's. Now each eval
entry keeps ``task-version`` where the file states one, and a baseline run of another version is passed over (or,
with none alike, the score is not judged), as one of another few-shot count is. The real llama3-70b gsm8k file."""

from __future__ import annotations

import json

from helpers import run_cli, show_json
from test_compare_evals import GSM8K, PR_REF, STRICT, by_score, compare, gsm8k, ingest_job

from sweepgate.results import compare as C
from sweepgate.results import evals as E
from sweepgate.results import record as R


def version(v, delta: float = 0.0) -> dict:
    """The llama3-70b gsm8k results as a run of task version ``v`` writes them, strict-match moved by ``delta``."""
    out = gsm8k(delta)
    out["versions"]["gsm8k"] = v
    return out


def test_each_eval_entry_keeps_its_task_version(tmp_path, capsys):
    assert json.loads(GSM8K.read_text())["versions"]["gsm8k"] == 3.0
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(GSM8K))
    assert rc == 0, err
    (rec,) = show_json(capsys, db)
    assert {e[R.EVAL_TASK_VERSION] for e in rec[R.EVALS]} == {3.0}


def test_a_main_run_of_another_task_version_is_passed_over(tmp_path, db, capsys):
    """Main ran gsm8k 3.0 (1000), then 2.0 (1001, 5 points up). A 3.0 PR run at 1000's score is unchanged against
    1000; against 1001 it read as a 5-point regression that the task's own change made."""
    ingest_job(tmp_path, db, capsys, "1000", version(3.0), day=1)
    ingest_job(tmp_path, db, capsys, "1001", version(2.0, +0.05), day=2)
    ingest_job(tmp_path, db, capsys, "2002", version(3.0), ref=PR_REF, day=3)
    rc, out = compare(capsys, db, "--fail-on-regression")
    strict = by_score(out)[("gsm8k", "exact_match", STRICT)]
    assert rc == 0 and strict["verdict"] == C.UNCHANGED and strict["baseline"]["run-id"] == "1000", strict
    assert strict["passed-over"] == {"run-id": "1001", "why": "task versions differ (3.0 in this run, 2.0 in baseline "
                                     f"run 1001): {E.OTHER_TASK}"}


def test_a_pr_run_of_another_task_version_is_not_judged(tmp_path, db, capsys):
    ingest_job(tmp_path, db, capsys, "1001", version(2.0), day=1)
    ingest_job(tmp_path, db, capsys, "2002", version(3.0, -0.05), ref=PR_REF, day=2)
    rc, out = compare(capsys, db, "--fail-on-regression")
    strict = by_score(out)[("gsm8k", "exact_match", STRICT)]
    assert rc == 0 and strict["verdict"] == E.NOT_JUDGED, strict
    assert strict["why"] == f"task versions differ (3.0 in this run, 2.0 in baseline run 1001): {E.OTHER_TASK}; " \
                            f"{E.NONE_ALIKE}"


def test_one_version_written_as_3_and_as_3_0_is_one_and_an_unstated_one_differs_from_nothing(tmp_path, db, capsys):
    """lm-eval has written a version as an int and as a float; a file of before versions (or "N/A") states none."""
    unstated = gsm8k()
    unstated["versions"]["gsm8k"] = "N/A"
    ingest_job(tmp_path, db, capsys, "1000", version(3), day=1)
    ingest_job(tmp_path, db, capsys, "1001", unstated, day=2)
    ingest_job(tmp_path, db, capsys, "2002", version(3.0, -0.05), ref=PR_REF, day=3)
    rc, out = compare(capsys, db, "--fail-on-regression")
    strict = by_score(out)[("gsm8k", "exact_match", STRICT)]
    assert rc == 3 and strict["verdict"] == C.REGRESSED and strict["baseline"]["run-id"] == "1001", strict
    assert "passed-over" not in strict
