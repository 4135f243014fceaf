"""`results ingest dir/X.json`: the job's lm-eval scores `dir/X-eval.json` beside it come too.

README says an lm-eval `X-eval.json` beside the job's output is picked up, and a folder ingest pairs it with
its job; but naming the output (as README's by-hand example does, one ingest per point) left the scores
beside it out without a word (s40f), and `results compare` judged no eval. Now a named output, or its
sidecar, brings its job's `X-eval.json` the same as a folder ingest would: under the output's `--row` run,
or its sidecar's job. An eval-only job's `X-eval.json` (its own `X-eval.job.json`) is another job's.
"""

from __future__ import annotations

import json
import shutil

from helpers import ROW, SAMPLES, job, run_cli, show_json, vllm_output

LM_EVAL = SAMPLES / "lm_eval" / "lmeval0.4.x_gsm8k5shot_llama3-70b-gptq_vllm_a6000x4.json"


def _point(folder, sidecar: bool = False):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "c4.json").write_text(json.dumps(vllm_output()), encoding="utf-8")
    shutil.copy(LM_EVAL, folder / "c4-eval.json")
    if sidecar:
        (folder / "c4.job.json").write_text(json.dumps(job(row={**ROW, "run-eval": True})), encoding="utf-8")
    return folder


def _stored(capsys, db) -> list[tuple]:
    return sorted((r["run-id"], r["result-filename"]) for r in show_json(capsys, db))


def test_a_named_output_brings_its_eval_scores_under_its_row(tmp_path, db, capsys):
    folder = _point(tmp_path / "pr")
    (tmp_path / "row.json").write_text(json.dumps({**ROW, "run-eval": True}), encoding="utf-8")
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, "--row", str(tmp_path / "row.json"),
                           "--run-id", "200", "--ref", "refs/pull/7/head", str(folder / "c4.json"))
    assert rc == 0, err
    assert out.splitlines()[-1].startswith("ingested 2 results (2 new)"), out
    assert _stored(capsys, db) == [("200", "c4-eval.json"), ("200", "c4.json")]
    # named too, or again: the same two, nothing new
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, "--row", str(tmp_path / "row.json"),
                           "--run-id", "200", "--ref", "refs/pull/7/head", str(folder / "c4.json"),
                           str(folder / "c4-eval.json"))
    assert rc == 0 and out.splitlines()[-1].startswith("ingested 2 results (0 new)"), out + err


def test_a_named_output_or_sidecar_of_a_job_brings_its_eval_scores(tmp_path, db, capsys):
    folder = _point(tmp_path / "main", sidecar=True)
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(folder / "c4.job.json"))
    assert rc == 0, err
    assert out.splitlines()[-1].startswith("ingested 2 results (2 new)"), out
    assert _stored(capsys, db) == [("1001", "c4"), ("1001", "c4-eval")]


def test_an_eval_only_jobs_scores_are_not_another_outputs(tmp_path, db, capsys):
    folder = _point(tmp_path / "main", sidecar=True)
    (folder / "c4-eval.job.json").write_text(json.dumps(job(run_id="1002", row={**ROW, "eval-only": True,
                                                                                   "run-eval": True})),
                                             encoding="utf-8")
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(folder / "c4.json"))
    assert rc == 0, err
    assert _stored(capsys, db) == [("1001", "c4")]


def test_a_refused_output_holds_back_its_eval_scores_under_the_same_row(tmp_path, db, capsys):
    """s44d (a maintainer's first week): `--row row-c64.json` given with `c32.json` by mistake refused the
    output (its concurrency is not the row's) but stored `c32-eval.json` under the conc-64 row; immutable,
    so the same ingest with the right row then refused the scores as "already stored for another point".
    The scores are the job's as the output is: with the output refused, they are not stored either."""
    folder = _point(tmp_path / "pr")  # c4.json (conc 4) and c4-eval.json
    wrong = tmp_path / "row-c64.json"
    wrong.write_text(json.dumps({**ROW, "conc": 64, "run-eval": True}), encoding="utf-8")
    given = ("--run-id", "200", "--ref", "refs/pull/7/head")
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, "--row", str(wrong), *given, str(folder / "c4.json"))
    assert rc == 1
    assert out.splitlines()[-1].startswith("ingested 0 results (0 new)") and out.endswith("; nothing stored\n"), out
    held = [line for line in err.splitlines() if line.startswith(f"{folder / 'c4-eval.json'}:")]
    assert len(held) == 1 and "c4.json" in held[0] and "refused" in held[0] and "Traceback" not in err, err
    # the right row then stores both, as if the mistake had not been made
    right = tmp_path / "row-c4.json"
    right.write_text(json.dumps({**ROW, "run-eval": True}), encoding="utf-8")
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, "--row", str(right), *given, str(folder / "c4.json"))
    assert rc == 0, err
    assert _stored(capsys, db) == [("200", "c4-eval.json"), ("200", "c4.json")]


def test_a_folder_ingested_under_one_row_holds_back_the_eval_of_each_output_refused(tmp_path, db, capsys):
    """The same with a folder of two points under one `--row`: the other point's output is refused, and its
    scores with it, not stored as the row's point (where they would take that point's scores' place)."""
    folder = _point(tmp_path / "pr")
    (folder / "c8.json").write_text(json.dumps(vllm_output(conc=8)), encoding="utf-8")
    scores = json.loads(LM_EVAL.read_text(encoding="utf-8"))
    scores["results"]["gsm8k"]["exact_match,strict-match"] = 0.85  # another job's: not a copy of c4's
    (folder / "c8-eval.json").write_text(json.dumps(scores), encoding="utf-8")
    row = tmp_path / "row-c4.json"
    row.write_text(json.dumps({**ROW, "run-eval": True}), encoding="utf-8")
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, "--row", str(row), "--run-id", "200",
                           "--ref", "refs/pull/7/head", str(folder))
    assert rc == 1
    assert _stored(capsys, db) == [("200", "c4-eval.json"), ("200", "c4.json")], err
    assert any(line.startswith(f"{folder / 'c8-eval.json'}:") and "c8.json" in line for line in err.splitlines()), err
