"""s51g: a job's sidecar alone and its output, ingested in either order, give one stored result of the job, on the
ref and commit either of them named.

- Sidecar first (the artifact copied in two goes): its placeholder, on the ref its sidecar names, was taken by the
  job's output whole, so an output ingested with a sidecar naming no ref (the job's folder as it was before job.ref
  was written in, or ``results sidecar`` run without one) put the stored result back on no ref: the ref and commit
  the store held were dropped, said as "1 result stored on no ref". A ref or commit stored is never taken away.
- An output of several measurements (a JSONL of several lines: ``X#1``, ``X#2``, ...): its sidecar alone, ingested
  after it, was stored as a new failure ``X`` beside the job's results (its point then read "failure" in `results
  show`, the ref the sidecar names given to none of them), and ingested before it, its failure stayed beside them.
  The placeholder is kept out behind the stored measurements (giving them the ref it names, as for an output of
  one), and the output's first measurement takes the placeholder's place.

Real vLLM outputs (the Qwen3-32B run, the llm-d rate sweep's three lines), real SQLite and PostgreSQL, the command
run as a process.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from helpers import ROOT, ROW, SAMPLES, job
from sweepgate.results import record as R
from sweepgate.results import store as S

MAIN = "refs/heads/main"
SHA = "c0ffee" * 6 + "abcd"
VLLM = SAMPLES / "vllm" / "vllmbench0.1x_qwen3-32b_b200x8_tp8_isl1024_osl128_c100.json"
QWEN = dict(ROW, model="Qwen/Qwen3-32B", conc=100, isl=1024, osl=128)
LLMD = SAMPLES / "vllm" / "vllm0.9_llama3.2-3b_l40sx4_llmd_qps10-30-inf.jsonl"  # 3 deployments x 3 rates
LLAMA = {**{k: v for k, v in ROW.items() if k != "conc"}, "model": "meta-llama/Llama-3.2-3B-Instruct", "tp": 1}


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request, tmp_path):
    if request.param == "postgresql":
        return request.getfixturevalue("pg_url")
    return f"sqlite:///{tmp_path / 'r.db'}"


def sweepgate(cwd, *argv: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items()
           if k not in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "COLUMNS", "SWEEPGATE_DB")}
    return subprocess.run([sys.executable, "-m", "sweepgate", *argv], capture_output=True, text=True, cwd=cwd,
                          env={**env, "PYTHONPATH": str(ROOT / "utils"), "NO_COLOR": "1"}, timeout=180)


def ingest(tmp_path, db: str, folder) -> subprocess.CompletedProcess:
    done = sweepgate(tmp_path, "results", "ingest", "--db", db, str(folder))
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def folder_of(path, output: str | None, row: dict, name: str = "res", suffix: str = ".json", **over):
    """A job's folder: its sidecar (``over``: more of its job) and ``output``'s text as ``name + suffix``."""
    path.mkdir(parents=True)
    if output is not None:
        (path / f"{name}{suffix}").write_text(output, encoding="utf-8")
    (path / f"{name}.job.json").write_text(json.dumps(job(run_id="8", row=row, **over)), encoding="utf-8")
    return path


def stored(db: str) -> list[tuple]:
    with S.open_store(db, must_exist=True) as st:
        return sorted((r[R.RESULT_FILENAME], r[R.STATUS], r.get(R.REF), r.get(R.COMMIT)) for r in st.run_results("8"))


def base_lines() -> str:
    """The llm-d sweep's `base` deployment: three lines, rates 10, 30 and unlimited, of one job's output."""
    lines = LLMD.read_text(encoding="utf-8").splitlines()
    return "\n".join(line for line in lines if json.loads(line)["deployment"] == "base") + "\n"


def test_an_output_that_fills_its_sidecar_s_placeholder_keeps_the_ref_and_commit_the_store_holds(tmp_path, db):
    ingest(tmp_path, db, folder_of(tmp_path / "side", None, QWEN, ref=MAIN))
    assert stored(db) == [("res", R.FAILURE, MAIN, SHA)]
    done = ingest(tmp_path, db, folder_of(tmp_path / "out", VLLM.read_text(encoding="utf-8"), QWEN, ref=None,
                                          commit=None))
    assert stored(db) == [("res", R.SUCCESS, MAIN, SHA)], done.stdout + done.stderr  # was ('res', success, None, None)
    assert "stored on no ref" not in done.stderr, done.stderr


def test_a_sidecar_alone_after_an_output_of_several_measurements_gives_them_its_ref(tmp_path, db):
    ingest(tmp_path, db, folder_of(tmp_path / "out", base_lines(), LLAMA, suffix=".jsonl", ref=None, commit=None))
    assert stored(db) == [(f"res#{n}", R.SUCCESS, None, None) for n in (1, 2, 3)]
    done = ingest(tmp_path, db, folder_of(tmp_path / "side", None, LLAMA, ref=MAIN))
    # was a fourth row, ('res', 'failure', MAIN, SHA), the three left on no ref
    assert stored(db) == [(f"res#{n}", R.SUCCESS, MAIN, SHA) for n in (1, 2, 3)], done.stdout + done.stderr
    assert "filled in the ref and commit of 3 results" in done.stdout, done.stdout
    assert done.stdout.splitlines()[-1] == f"ingested 0 results (0 new) into {S.display_url(db)}", done.stdout
    shown = sweepgate(tmp_path, "results", "show", "--db", db, "--json")
    assert sorted(r[R.STATUS] for r in json.loads(shown.stdout)) == [R.SUCCESS] * 3, shown.stdout


def test_an_output_of_several_measurements_after_its_sidecar_alone_takes_the_placeholder_s_place(tmp_path, db):
    ingest(tmp_path, db, folder_of(tmp_path / "side", None, LLAMA, ref=MAIN))
    assert stored(db) == [("res", R.FAILURE, MAIN, SHA)]
    done = ingest(tmp_path, db, folder_of(tmp_path / "out", base_lines(), LLAMA, suffix=".jsonl", ref=None,
                                          commit=None))
    # was ('res', 'failure', ...) kept beside the three, which were stored on no ref
    assert stored(db) == [(f"res#{n}", R.SUCCESS, MAIN, SHA) for n in (1, 2, 3)], done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == f"ingested 3 results (3 new) into {S.display_url(db)}", done.stdout
    again = ingest(tmp_path, db, tmp_path / "side")  # the sidecar alone again: nothing more
    assert stored(db) == [(f"res#{n}", R.SUCCESS, MAIN, SHA) for n in (1, 2, 3)], again.stdout + again.stderr


def test_a_sidecar_alone_of_another_job_of_the_run_is_stored_beside_a_stored_sweep(tmp_path, db):
    """Guard: a placeholder is kept out only behind its own job's measurements; another runner's is its own job."""
    ingest(tmp_path, db, folder_of(tmp_path / "out", base_lines(), LLAMA, suffix=".jsonl", ref=None, commit=None))
    shutil.rmtree(tmp_path / "out")
    done = sweepgate(tmp_path, "results", "ingest", "--db", db,
                     str(folder_of(tmp_path / "side", None, LLAMA, ref=MAIN, **{"runner-name": "b300-nv_07"})))
    assert ("res", R.FAILURE, MAIN, SHA) in stored(db) or done.returncode == 1, done.stdout + done.stderr
    assert [r for r in stored(db) if r[0] != "res"] == [(f"res#{n}", R.SUCCESS, None, None) for n in (1, 2, 3)]


@pytest.mark.parametrize("order", [("side", "out"), ("out", "side")])
def test_a_sidecar_alone_and_its_output_of_several_measurements_in_one_ingest_are_the_output_s(tmp_path, db, order):
    """Both in one ingest (the artifact and its partial copy side by side): the output's three results, counted
    once, and neither the placeholder's warning (the job 'left no result file') nor 'skipped ... an earlier
    ingest stored' said of a placeholder whose output this ingest read."""
    folders = {"side": folder_of(tmp_path / "side", None, LLAMA, ref=MAIN),
               "out": folder_of(tmp_path / "out", base_lines(), LLAMA, suffix=".jsonl", ref=None, commit=None)}
    done = sweepgate(tmp_path, "results", "ingest", "--db", db, *(str(folders[name]) for name in order))
    assert done.returncode == 0, done.stdout + done.stderr
    assert stored(db) == [(f"res#{n}", R.SUCCESS, MAIN, SHA) for n in (1, 2, 3)], done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == f"ingested 3 results (3 new) into {S.display_url(db)}", done.stdout
    assert "left no result file" not in done.stderr and "skipped" not in done.stdout, done.stdout + done.stderr


def test_an_output_given_its_ref_by_its_sidecar_later_in_the_same_ingest_is_not_on_no_ref(tmp_path, db):
    """The job's folder as written (no job.ref) and the fixed sidecar alone, in one ingest: the output is stored on
    no ref, then given the ref; the ingest said '1 result stored on no ref' of it, and --fail-on-no-ref exited 3."""
    out = folder_of(tmp_path / "out", VLLM.read_text(encoding="utf-8"), QWEN, ref=None, commit=None)
    side = folder_of(tmp_path / "side", None, QWEN, ref=MAIN)
    done = sweepgate(tmp_path, "results", "ingest", "--db", db, "--fail-on-no-ref", str(out), str(side))
    assert stored(db) == [("res", R.SUCCESS, MAIN, SHA)], done.stdout + done.stderr
    assert done.returncode == 0 and "on no ref" not in done.stderr, (done.returncode, done.stderr)  # was 3


def test_a_jsonl_file_holding_the_placeholder_is_warned_of_when_the_measurements_come(tmp_path, db):
    """--jsonl FILE is appended to, never rewritten: the placeholder line the sidecar alone wrote stays beside the
    output's measurements appended later (the job read as failed there), said as for an eval-only job's scores."""
    mirror = tmp_path / "m.jsonl"
    for folder in (folder_of(tmp_path / "side", None, LLAMA, ref=MAIN),
                   folder_of(tmp_path / "out", base_lines(), LLAMA, suffix=".jsonl", ref=None, commit=None)):
        done = sweepgate(tmp_path, "results", "ingest", "--db", db, "--jsonl", str(mirror), str(folder))
        assert done.returncode == 0, done.stdout + done.stderr
    assert f"{mirror}:1: warning: a stale failure placeholder: job 'res' of run 8, attempt 1, whose output's " \
        "measurements ('res#1', ...) are appended now; delete line 1" in done.stderr, done.stderr
