"""evalb30: an eval job's partial copies beside each other.

An eval-only job's sidecar alone is its failure placeholder under ``X``, its cut-short (empty or
truncated) ``X-eval.json`` one under ``X-eval``: both were stored, two failures of one job, an
ingest of both counting 2 results and warning that the job "left no result file" beside the file
it did leave. Now they are one placeholder, the first stored, in either order, in one ingest or two.
A throughput+eval job's cut-short X-eval.json, and --jsonl's placeholder lines, follow below."""

from __future__ import annotations

import shutil

import pytest

from sweepgate.results import record as R
from sweepgate.results import store

from .helpers import ROOT, ROW, job, run_cli, show_json, vllm_output, write_job

SCORES = ROOT / "tests" / "data" / "results-samples" / "lm_eval" / "lmeval0.4.8_gsm8k_granite_limit1_smoketest.json"
EVAL_ONLY = {**ROW, "run-eval": True, "eval-only": True}
LOST = "left no result file"
CUT = {"empty": "", "truncated": '{"results": {"gsm8k": {'}
SCORED = ("res-eval", "success", "lm-eval-results")


def _folders(tmp_path, cut: str, row: dict = EVAL_ONLY):
    """(the sidecar alone, the sidecar with its X-eval.json cut short, the whole copy)."""
    write_job(tmp_path / "side", "res", None, job(run_id="900", row=row))
    write_job(tmp_path / "cut", "res", None, job(run_id="900", row=row))
    (tmp_path / "cut" / "res-eval.json").write_text(CUT[cut], encoding="utf-8")
    write_job(tmp_path / "whole", "res", None, job(run_id="900", row=row))
    shutil.copy(SCORES, tmp_path / "whole" / "res-eval.json")
    return tmp_path / "side", tmp_path / "cut", tmp_path / "whole"


def _ingest(capsys, db: str, *args) -> tuple[str, str]:
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, *map(str, args))
    assert rc == 0, (out, err)
    return out, err


def _stored(db: str) -> list[tuple]:
    with store.open_store(db) as st:
        return sorted((r[R.RESULT_FILENAME], r[R.STATUS], r[R.SOURCE_FORMAT], r[R.CLIENT])
                      for r in st.run_results("900"))


def _one_placeholder(db: str) -> None:
    ((name, status, source, client),) = _stored(db)
    assert (status, source, client) == ("failure", R.SIDECAR_ONLY, R.EVAL_CLIENT) and name in ("res", "res-eval")


@pytest.mark.parametrize("cut", CUT)
@pytest.mark.parametrize("order", ["sidecar-first", "cut-first"])
def test_an_eval_only_job_s_sidecar_and_cut_short_scores_in_one_ingest_are_one_placeholder(tmp_path, capsys,
                                                                                         order, cut):
    db = f"sqlite:///{tmp_path / 'r.db'}"
    side, short, whole = _folders(tmp_path, cut)
    out, err = _ingest(capsys, db, *((side, short) if order == "sidecar-first" else (short, side)))
    assert out.splitlines()[-1] == f"ingested 1 results (1 new) into {db}", out
    assert LOST not in err, err  # the job did leave its file, cut short: that one warning is said
    assert err.count("res-eval.json:1") == 1 and len(err.splitlines()) == 1, err
    _one_placeholder(db)
    _ingest(capsys, db, whole)  # its whole copy fills the one placeholder
    assert [s[:3] for s in _stored(db)] == [SCORED]


@pytest.mark.parametrize("cut", CUT)
@pytest.mark.parametrize("order", ["sidecar-first", "cut-first"])
def test_across_two_ingests_the_second_is_the_job_again(tmp_path, capsys, order, cut):
    db = f"sqlite:///{tmp_path / 'r.db'}"
    side, short, whole = _folders(tmp_path, cut)
    first, second = (side, short) if order == "sidecar-first" else (short, side)
    assert _ingest(capsys, db, first)[0].splitlines()[-1] == f"ingested 1 results (1 new) into {db}"
    out, _ = _ingest(capsys, db, second)
    assert out.splitlines()[-1] == f"ingested 1 results (0 new) into {db}", out
    _one_placeholder(db)
    out, _ = _ingest(capsys, db, whole)
    assert out.splitlines()[-1] == f"ingested 1 results (1 new) into {db}", out
    assert [s[:3] for s in _stored(db)] == [SCORED]


def test_both_partial_copies_and_the_whole_one_in_one_ingest_are_one_result(tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'r.db'}"
    out, err = _ingest(capsys, db, *_folders(tmp_path, "empty"))
    assert out.splitlines()[-1] == f"ingested 1 results (1 new) into {db}", out
    assert err == "", err
    assert [s[:3] for s in _stored(db)] == [SCORED]


@pytest.mark.parametrize("order", ["sidecar-first", "cut-first"])
def test_a_throughput_job_s_sidecar_and_cut_short_output_in_one_ingest_are_one_result(tmp_path, capsys, order):
    """Under one name (X.json cut short) the store kept one row already; the ingest counted two."""
    db = f"sqlite:///{tmp_path / 'r.db'}"
    write_job(tmp_path / "side", "res", None, job(run_id="900"))
    write_job(tmp_path / "cut", "res", "", job(run_id="900"))
    folders = [tmp_path / "side", tmp_path / "cut"]
    out, err = _ingest(capsys, db, *(folders if order == "sidecar-first" else folders[::-1]))
    assert out.splitlines()[-1] == f"ingested 1 results (1 new) into {db}", out
    assert LOST not in err and len(err.splitlines()) == 1, err
    assert _stored(db) == [("res", "failure", R.SIDECAR_ONLY, "none")]


# A throughput+eval job (X.json and X-eval.json): its cut-short X-eval.json beside a good X.json was
# stored as a failure of client 'none', the job's throughput's: `results show` read the point as
# failed beside its throughput. It is the job's eval failure (client lm-eval), filled by its whole copy.

THROUGHPUT_EVAL = {**ROW, "run-eval": True}


@pytest.mark.parametrize("cut", CUT)
def test_a_throughput_job_s_cut_short_eval_is_an_eval_failure_filled_by_its_whole_copy(tmp_path, capsys, cut):
    db = f"sqlite:///{tmp_path / 'r.db'}"
    write_job(tmp_path / "cut", "res", vllm_output(4), job(run_id="900", row=THROUGHPUT_EVAL))
    (tmp_path / "cut" / "res-eval.json").write_text(CUT[cut], encoding="utf-8")
    out, err = _ingest(capsys, db, tmp_path / "cut")
    assert out.splitlines()[-1] == f"ingested 2 results (2 new) into {db}", out
    assert "res-eval.json:1" in err and len(err.splitlines()) == 1, err
    assert _stored(db) == [("res", "success", "vllm-serving", "vllm-bench"),
                           ("res-eval", "failure", R.SIDECAR_ONLY, R.EVAL_CLIENT)]
    shown = show_json(capsys, db, "--run", "900")  # its throughput's row, and its eval's
    assert sorted((r[R.RESULT_FILENAME], r[R.STATUS]) for r in shown) == [("res", "success"), ("res-eval", "failure")]
    write_job(tmp_path / "whole", "res", vllm_output(4), job(run_id="900", row=THROUGHPUT_EVAL))
    shutil.copy(SCORES, tmp_path / "whole" / "res-eval.json")
    out, _ = _ingest(capsys, db, tmp_path / "whole")
    assert out.splitlines()[-1] == f"ingested 2 results (1 new) into {db}", out
    assert [s[:3] for s in _stored(db)] == [("res", "success", "vllm-serving"), SCORED]


def test_a_throughput_job_s_cut_short_eval_and_its_whole_copy_in_one_ingest(tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'r.db'}"
    for folder, output, scores in (("cut", vllm_output(4), ""), ("whole", None, SCORES.read_text(encoding="utf-8"))):
        write_job(tmp_path / folder, "res", output, job(run_id="900", row=THROUGHPUT_EVAL))
        (tmp_path / folder / "res-eval.json").write_text(scores, encoding="utf-8")  # whole: the scores' copy alone
    out, err = _ingest(capsys, db, tmp_path / "cut", tmp_path / "whole")
    assert out.splitlines()[-1] == f"ingested 2 results (2 new) into {db}", out
    assert err == "", err
    assert [s[:3] for s in _stored(db)] == [("res", "success", "vllm-serving"), SCORED]


# --jsonl: FILE is append-only. An eval-only job whose placeholder FILE holds (under X, or its scores
# under X-eval) got another placeholder line of another name from a later ingest; and a placeholder
# line X left beside the scores X-eval appended later (the store fills X's row; FILE cannot) went
# without a word.


def _lines(jsonl) -> list[tuple]:
    import json

    records = map(json.loads, filter(str.strip, jsonl.read_text().splitlines()))
    return [(r[R.RESULT_FILENAME], r[R.SOURCE_FORMAT]) for r in records]


@pytest.mark.parametrize("db", ["same", "fresh"])
def test_a_placeholder_of_a_job_file_holds_is_not_appended_under_its_other_name(tmp_path, capsys, db):
    jsonl = tmp_path / "main.jsonl"
    side, short, _ = _folders(tmp_path, "empty")
    _ingest(capsys, f"sqlite:///{tmp_path / 'r.db'}", "--jsonl", jsonl, side)
    assert _lines(jsonl) == [("res", R.SIDECAR_ONLY)]
    out, err = _ingest(capsys, f"sqlite:///{tmp_path / ('r.db' if db == 'same' else 'fresh.db')}", "--jsonl", jsonl,
                       short)
    assert f"appended 0 records to {jsonl} (1 already there)" in out.splitlines(), out
    assert _lines(jsonl) == [("res", R.SIDECAR_ONLY)]


def test_a_placeholder_of_a_job_whose_scores_file_holds_is_not_appended(tmp_path, capsys):
    """A fresh store (a collect job's) knows nothing of the scores FILE holds."""
    jsonl = tmp_path / "main.jsonl"
    side, _, whole = _folders(tmp_path, "empty")
    _ingest(capsys, f"sqlite:///{tmp_path / 'r.db'}", "--jsonl", jsonl, whole)
    out, err = _ingest(capsys, f"sqlite:///{tmp_path / 'fresh.db'}", "--jsonl", jsonl, side)
    assert f"appended 0 records to {jsonl} (1 already there)" in out.splitlines(), out
    assert _lines(jsonl) == [SCORED[::2]]


def test_scores_appended_beside_a_placeholder_line_of_their_job_warn_of_that_line(tmp_path, capsys):
    jsonl = tmp_path / "main.jsonl"
    jsonl.write_text("\n", encoding="utf-8")  # a blank first line: the placeholder's is line 2
    db = f"sqlite:///{tmp_path / 'r.db'}"
    side, short, whole = _folders(tmp_path, "empty")
    _ingest(capsys, db, "--jsonl", jsonl, side)
    out, err = _ingest(capsys, db, "--jsonl", jsonl, short, whole)
    assert f"appended 1 record to {jsonl}" in out.splitlines(), out
    assert _lines(jsonl) == [("res", R.SIDECAR_ONLY), SCORED[::2]]
    (line,) = err.splitlines()
    assert line.startswith(f"{jsonl}:2: warning: ") and "'res'" in line and "'res-eval'" in line, err
    assert "; delete line 2" in line, err
    out, err = _ingest(capsys, db, "--jsonl", jsonl, whole)  # nothing appended: nothing said again
    assert (err, f"appended 0 records to {jsonl} (1 already there)" in out.splitlines()) == ("", True), (out, err)


# A job whose own result name ends in '-eval' (a hand-written sidecar's, or --row's): its sidecar alone
# is 'gsm-eval', its scores 'gsm-eval-eval'; a record does not say which file made it, so both readings
# are tried (review: the name was read only as the cut-short scores of a job 'gsm').


@pytest.mark.parametrize("order", ["scores first", "sidecar first"])
def test_an_eval_only_job_named_like_scores_keeps_one_row(tmp_path, capsys, order):
    name, db = "gsm-eval", f"sqlite:///{tmp_path / 'r.db'}"
    write_job(tmp_path / "whole", name, None, job(run_id="900", row=EVAL_ONLY))
    shutil.copy(SCORES, tmp_path / "whole" / f"{name}-eval.json")
    write_job(tmp_path / "side", name, None, job(run_id="900", row=EVAL_ONLY))
    for folder in (("whole", "side") if order == "scores first" else ("side", "whole")):
        _ingest(capsys, db, tmp_path / folder)
    assert _stored(db) == [(f"{name}-eval", "success", "lm-eval-results", "lm-eval")]


def test_an_eval_only_job_named_like_scores_gets_no_placeholder_line_beside_its_scores(tmp_path, capsys):
    name, jsonl = "gsm-eval", tmp_path / "main.jsonl"
    write_job(tmp_path / "whole", name, None, job(run_id="900", row=EVAL_ONLY))
    shutil.copy(SCORES, tmp_path / "whole" / f"{name}-eval.json")
    write_job(tmp_path / "side", name, None, job(run_id="900", row=EVAL_ONLY))
    _ingest(capsys, f"sqlite:///{tmp_path / 'r.db'}", "--jsonl", jsonl, tmp_path / "whole")
    _ingest(capsys, f"sqlite:///{tmp_path / 'fresh.db'}", "--jsonl", jsonl, tmp_path / "side")
    assert _lines(jsonl) == [(f"{name}-eval", "lm-eval-results")]


def test_a_throughput_job_named_like_scores_cut_short_is_its_throughput_failure(tmp_path, capsys):
    """Its own 'bench-eval.json' beside 'bench-eval.job.json' is no job 'bench''s scores."""
    db = f"sqlite:///{tmp_path / 'r.db'}"
    write_job(tmp_path / "cut", "bench-eval", "", job(run_id="900"))
    _ingest(capsys, db, tmp_path / "cut")
    assert _stored(db) == [("bench-eval", "failure", R.SIDECAR_ONLY, "none")]
