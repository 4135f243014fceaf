"""eval28: an eval-only job's sidecar alone (its artifact copied in two goes) is stored as a failure
placeholder under the job's result name ``X``, its scores (``X-eval.json``) under ``X-eval``. The
scores did not take the placeholder's place: the store kept both, and `results show` read the job as
failed (whichever was stored first won its point), one ingest counting 2 results and warning that the
job "left no result file". Now the scores fill the placeholder, in either order, in one ingest or two."""

from __future__ import annotations

import shutil

import pytest

from sweepgate.results import record as R
from sweepgate.results import store

from .helpers import ROOT, ROW, job, run_cli, vllm_output, write_job

SCORES = ROOT / "tests" / "data" / "results-samples" / "lm_eval" / "lmeval0.4.8_gsm8k_granite_limit1_smoketest.json"
EVAL_ONLY = {**ROW, "run-eval": True, "eval-only": True}
LOST = "left no result file"


def _folders(tmp_path, row: dict, throughput: bool = False):
    write_job(tmp_path / "part", "res", None, job(run_id="900", row=row))
    write_job(tmp_path / "whole", "res", vllm_output(4) if throughput else None, job(run_id="900", row=row))
    shutil.copy(SCORES, tmp_path / "whole" / "res-eval.json")
    return tmp_path / "part", tmp_path / "whole"


def _ingest(capsys, db: str, *folders) -> tuple[str, str]:
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, *map(str, folders))
    assert rc == 0, (out, err)
    return out, err


def _stored(capsys, db: str) -> list[tuple]:
    """Every row the store holds of the job (`show --run` folds a point's eval records into one)."""
    with store.open_store(db) as st:
        return sorted((r[R.RESULT_FILENAME], r[R.STATUS], r[R.SOURCE_FORMAT]) for r in st.run_results("900"))


SCORED = ("res-eval", "success", "lm-eval-results")


@pytest.mark.parametrize("order", ["sidecar-first", "output-first"])
def test_an_eval_only_job_s_scores_fill_its_placeholder_across_two_ingests(tmp_path, capsys, order):
    db = f"sqlite:///{tmp_path / 'r.db'}"
    folders = _folders(tmp_path, EVAL_ONLY)
    for folder in folders if order == "sidecar-first" else folders[::-1]:
        _ingest(capsys, db, folder)
    assert _stored(capsys, db) == [SCORED]
    _ingest(capsys, db, *folders)  # again: nothing changes
    assert _stored(capsys, db) == [SCORED]


@pytest.mark.parametrize("order", ["sidecar-first", "output-first"])
def test_an_eval_only_job_s_placeholder_and_scores_in_one_ingest_are_one_result(tmp_path, capsys, order):
    db = f"sqlite:///{tmp_path / 'r.db'}"
    folders = _folders(tmp_path, EVAL_ONLY)
    out, err = _ingest(capsys, db, *(folders if order == "sidecar-first" else folders[::-1]))
    assert out.splitlines()[-1] == f"ingested 1 results (1 new) into {db}", out
    assert LOST not in err, err
    assert _stored(capsys, db) == [SCORED]


def test_show_reads_the_eval_only_job_as_succeeded(tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'r.db'}"
    part, whole = _folders(tmp_path, EVAL_ONLY)
    _ingest(capsys, db, part)
    _ingest(capsys, db, whole)
    rc, out, err = run_cli(capsys, "results", "show", "--db", db, "--run", "900")
    assert rc == 0 and "run 900: 2 eval scores" in out.splitlines()[0], (out, err)
    assert "success" in out and "failure" not in out, out


@pytest.mark.parametrize("order", ["sidecar-first", "output-first"])
def test_a_throughput_and_eval_job_s_placeholder_is_filled_by_its_throughput(tmp_path, capsys, order):
    db = f"sqlite:///{tmp_path / 'r.db'}"
    folders = _folders(tmp_path, {**ROW, "run-eval": True}, throughput=True)
    for folder in folders if order == "sidecar-first" else folders[::-1]:
        _ingest(capsys, db, folder)
    assert _stored(capsys, db) == [("res", "success", "vllm-serving"), SCORED]


def test_a_throughput_and_eval_job_s_scores_alone_leave_its_missing_throughput_failed(tmp_path, capsys):
    """Its placeholder stands for X.json: the scores are no throughput, and the job stays failed there."""
    db = f"sqlite:///{tmp_path / 'r.db'}"
    part, whole = _folders(tmp_path, {**ROW, "run-eval": True})
    _ingest(capsys, db, part)
    _ingest(capsys, db, whole)
    assert _stored(capsys, db) == [("res", "failure", R.SIDECAR_ONLY), SCORED]


def test_an_eval_cut_short_then_whole_is_filled(tmp_path, capsys):
    """An empty X-eval.json (a download cut short) is the job's placeholder under X-eval; its whole copy
    takes its place (its scores were read as a change of the placeholder's empty ones: refused)."""
    db = f"sqlite:///{tmp_path / 'r.db'}"
    write_job(tmp_path / "part", "res", None, job(run_id="900", row=EVAL_ONLY))
    (tmp_path / "part" / "res-eval.json").write_text("", encoding="utf-8")
    _ingest(capsys, db, tmp_path / "part")
    assert _stored(capsys, db) == [("res-eval", "failure", R.SIDECAR_ONLY)]
    _, whole = _folders(tmp_path, EVAL_ONLY)
    _ingest(capsys, db, whole)
    assert _stored(capsys, db) == [SCORED]
