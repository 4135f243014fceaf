"""s50a: a job's sidecar alone, its job.ref (and commit) written in after the job's output was stored on no ref,
gives the stored rows of that job the ref and commit.

The no-ref warning says to write job.ref in the .job.json and ingest again. Ingesting the job's output with it
again filled the ref in (s48a, ``store_immutable.Provided``); ingesting the fixed sidecar alone (its output left
where it was, or the artifact copied without it) was taken for a partial copy of a job whose output was stored:
`skipped 1 file …`, exit 0, and the results stayed on no ref, which no baseline reads. The placeholder a sidecar
alone makes is kept out behind its job's stored output as before, but the ref and commit it names are now written
into each stored row of that job it agrees with (its output's, its eval scores' ``X-eval``), in the file's one
transaction: the same as ingesting the output again with the sidecar. A ref or commit stored is never changed, a
sidecar that differs from its job's stored rows in anything else is refused as before, and a refused sidecar fills
in nothing. Real outputs (vLLM, lm-eval), real SQLite and PostgreSQL, the command in-process.
"""

from __future__ import annotations

import json
import shutil

import pytest

from helpers import ROW, SAMPLES, job, run_cli
from sweepgate.results import record as R
from sweepgate.results import store as S

MAIN, PR = "refs/heads/main", "refs/pull/7/head"
SHA = "c0ffee" * 6 + "abcd"
VLLM = SAMPLES / "vllm" / "vllmbench0.1x_qwen3-32b_b200x8_tp8_isl1024_osl128_c100.json"
LM_EVAL = SAMPLES / "lm_eval" / "lmeval0.4.x_gsm8k5shot_llama3-70b-gptq_vllm_a6000x4.json"
QWEN = dict(ROW, model="Qwen/Qwen3-32B", conc=100, isl=1024, osl=128)


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in ("GITHUB_ACTIONS", "SWEEPGATE_DB", "NO_COLOR"):
        monkeypatch.delenv(name, raising=False)
    if request.param == "postgresql":
        return request.getfixturevalue("pg_url")
    return f"sqlite:///{tmp_path / 'r.db'}"


def _job(folder, name: str = "res", row: dict = QWEN, run_id: str = "8", outputs=(VLLM,), **over):
    """A job's folder: its sidecar (``over``: more of its job) and, beside it, ``outputs`` (``X.json``; the lm-eval
    sample as ``X-eval.json``)."""
    folder.mkdir(parents=True, exist_ok=True)
    for output in outputs:
        shutil.copy(output, folder / (f"{name}-eval.json" if output == LM_EVAL else f"{name}.json"))
    (folder / f"{name}.job.json").write_text(json.dumps(job(run_id=run_id, row=row, **over)), encoding="utf-8")
    return folder


def _ingest(capsys, db, *paths, ok: bool = True):
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, *map(str, paths))
    if ok:
        assert rc == 0, out + err
    return rc, out, err


def _stored(db: str, run: str = "8") -> list[dict]:
    with S.open_store(db, must_exist=True) as st:
        return st.run_results(run)


def _refs(db: str, run: str = "8") -> list[tuple]:
    return sorted((r[R.RESULT_FILENAME], r.get(R.REF), r.get(R.COMMIT)) for r in _stored(db, run))


def test_a_sidecar_alone_gives_its_stored_output_the_ref_and_commit(tmp_path, capsys, db):
    _ingest(capsys, db, _job(tmp_path / "first", ref=None, commit=None))
    before = _stored(db)
    side = _job(tmp_path / "side", outputs=(), ref=MAIN, commit=SHA)
    rc, out, err = _ingest(capsys, db, side)
    assert _refs(db) == [("res", MAIN, SHA)], out + err  # was ("res", None, None): skipped as a partial copy
    (after,) = _stored(db)
    assert {k: v for k, v in after.items() if k not in (R.REF, R.COMMIT)} == \
        {k: v for k, v in before[0].items() if k not in (R.REF, R.COMMIT)}  # nothing else of it changed
    assert out.splitlines()[-2:] == [
        f"filled in the ref and commit of 1 result stored before without them ({MAIN}, commit {SHA[:12]}), as its "
        ".job.json or --row gives them now; nothing else of a stored result changes",
        f"ingested 0 results (0 new) into {S.display_url(db)}"], out  # written: not "nothing stored"
    assert err == ""
    rc, out, err = _ingest(capsys, db, side)  # again: nothing more to fill in
    assert "filled in" not in out and out.splitlines()[-1].endswith("; nothing stored"), out
    assert _refs(db) == [("res", MAIN, SHA)]


def test_the_ref_reaches_the_job_s_eval_scores_too_and_no_other_job(tmp_path, capsys, db):
    """A throughput job with its lm-eval scores beside (``X-eval``), and another job of the run, all stored on no
    ref; the first job's sidecar alone, its ref written in: both of its rows take the ref, the other job's none."""
    row = dict(QWEN, **{"run-eval": True})
    _ingest(capsys, db, _job(tmp_path / "first", row=row, outputs=(VLLM, LM_EVAL), ref=None),
            _job(tmp_path / "other", name="res2", row=dict(row, tp=4), ref=None, **{"runner-name": "b300-nv_01"}))
    rc, out, err = _ingest(capsys, db, _job(tmp_path / "side", row=row, outputs=(), ref=MAIN))
    assert _refs(db) == [("res", MAIN, SHA), ("res-eval", MAIN, SHA), ("res2", None, SHA)], out + err
    assert "filled in the ref of 2 results" in out, out


def test_an_eval_only_job_s_sidecar_alone_gives_its_scores_the_ref(tmp_path, capsys, db):
    row = dict(QWEN, **{"run-eval": True, "eval-only": True})
    _ingest(capsys, db, _job(tmp_path / "first", row=row, outputs=(LM_EVAL,), ref=None))
    assert _refs(db) == [("res-eval", None, SHA)]
    rc, out, err = _ingest(capsys, db, _job(tmp_path / "side", row=row, outputs=(), ref=MAIN))
    assert _refs(db) == [("res-eval", MAIN, SHA)], out + err


def test_a_sidecar_alone_that_differs_from_its_stored_job_fills_in_nothing(tmp_path, capsys, db):
    """Guards (refused before as now): another runner, a ref other than the stored one, a ref another of the run's
    jobs is not on. Each is refused in one line, exit 1, and no row of the job is given anything."""
    row = dict(QWEN, **{"run-eval": True})
    _ingest(capsys, db, _job(tmp_path / "first", row=row, outputs=(VLLM, LM_EVAL), ref=None, commit=None),
            _job(tmp_path / "pr", name="res2", row=dict(row, tp=4), ref=PR))
    for case, over in (("runner", {"ref": MAIN, "runner-name": "b300-nv_07"}), ("other-ref", {"ref": MAIN})):
        folder = tmp_path / case
        _job(folder, row=row, outputs=())
        side = json.loads((folder / "res.job.json").read_text(encoding="utf-8"))
        side["job"].update(over)
        (folder / "res.job.json").write_text(json.dumps(side), encoding="utf-8")
        rc, out, err = _ingest(capsys, db, folder, ok=False)
        assert rc == 1 and len(err.splitlines()) == 1 and "filled in" not in out, (case, out, err)
        assert _refs(db) == [("res", None, None), ("res-eval", None, None), ("res2", PR, SHA)], (case, out, err)


def test_a_job_named_like_another_s_eval_scores_gives_that_job_nothing(tmp_path, capsys, db):
    """Job `gsm-eval` (a throughput job of its own, started later) and job `gsm` of one run, both on no ref: the
    sidecar alone of `gsm-eval` could be of `gsm`'s scores cut short by its name, but `gsm`'s job differs."""
    _ingest(capsys, db, _job(tmp_path / "a", name="gsm", ref=None),
            _job(tmp_path / "b", name="gsm-eval", ref=None, started="2026-01-01T11:59:00+00:00"))
    rc, out, err = _ingest(capsys, db, _job(tmp_path / "side", name="gsm-eval", outputs=(), ref=MAIN,
                                            started="2026-01-01T11:59:00+00:00"))
    assert _refs(db) == [("gsm", None, SHA), ("gsm-eval", MAIN, SHA)], out + err
