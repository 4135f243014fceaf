"""s47c: a cancelled run's finished jobs keep their GPU-hours, marked as such.

Two gaps. Records stored from a cancelled run carried no marker of their own: a PR's ref kept them out of main's
baseline, but nothing in the store said "this came from a cancelled run", so `results show` could not tell a
maintainer. And a cancelled push to main was not collected at all (run-sweep.yml's collect job ran for a
cancelled run only when it was a PR's), so its finished jobs' GPU-hours were lost and main's next sweep spent
them again.

Now every record has ``run-cancelled`` (a column since revision 0007; rows stored before read false), set by
`results ingest --run-cancelled`, which the collect job passes when `ci collect --note` wrote its note; collect
runs for a cancelled push to main too. No baseline reads a marked record (from the store or from files);
`ci reuse` takes its whole-job successes (they measured main's code at that SHA), and its copy is the later
run's own, unmarked. `results show` says which lines are of a cancelled run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
import sqlalchemy as sa

from helpers import ROOT, job, run_cli, show_json, vllm_output, write_job
from test_alike_index_s31 import stored_by_an_older_sweepgate
from test_store_edges19 import _head

from sweepgate.results import record as R
from sweepgate.results import store

RUN_SWEEP = ROOT / ".github" / "workflows" / "run-sweep.yml"
MAIN = "refs/heads/main"
PR_REF = "refs/pull/7/head"


def _output(day: int, tput: float) -> dict:
    """One job's vLLM output of its own day (one output per run: compare would count copies once)."""
    return {**vllm_output(4, output_throughput=tput), "date": f"2026010{day}-120000"}


def _job_folder(folder: Path, run: str, day: int, tput: float, ref: str = MAIN, **over) -> Path:
    return write_job(folder / run, "res", _output(day, tput),
                     job(run_id=run, ref=ref, finished=f"2026-01-0{day}T12:00:00+00:00", **over)).parent


def _ingest(capsys, db: str, path: Path, *flags: str) -> None:
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, *flags, str(path))
    assert rc == 0, out + err


def _main_with_a_cancelled_run(capsys, tmp_path, db: str, *jsonl: str) -> None:
    """Main runs 101-103 (51.2 tok/s/GPU), main run 104 cancelled after its one job finished (75 tok/s/GPU: a
    baseline holding it moves), and PR run 200 (75 tok/s/GPU) on ``PR_REF``."""
    for run, day in (("101", 1), ("102", 2), ("103", 3)):
        _ingest(capsys, db, _job_folder(tmp_path, run, day, 409.6), *jsonl)
    _ingest(capsys, db, _job_folder(tmp_path, "104", 4, 600.0), "--run-cancelled", *jsonl)
    _ingest(capsys, db, _job_folder(tmp_path, "200", 5, 600.0, ref=PR_REF))


def _throughput(doc: dict) -> dict:
    (point,) = [p for p in doc["points"] if p["metric"] == R.OUTPUT_TPUT_PER_GPU]
    return point


# --- the store: the marker, shown ---------------------------------------------------------------------

def test_ingest_run_cancelled_marks_every_record_and_show_says_so(tmp_path, capsys, db):
    _main_with_a_cancelled_run(capsys, tmp_path, db)
    marks = {r[R.RUN_ID]: r.get(R.RUN_CANCELLED) for r in show_json(capsys, db)}
    assert marks == {"104": True, "200": None}, marks  # was no marker anywhere: 104 read as a whole main run
    rc, out, err = run_cli(capsys, "results", "show", "--db", db, "--run", "104")
    assert rc == 0, err
    assert "104 (run cancelled)" in out and "stored from a workflow run cancelled before it finished" in out, out
    rc, out, _ = run_cli(capsys, "results", "show", "--db", db, "--run", "103")
    assert "run cancelled" not in out, out
    engine = sa.create_engine(db)
    with engine.connect() as conn:
        column = dict(conn.execute(sa.text("SELECT run_id, run_cancelled FROM results")).all())
    engine.dispose()
    assert column == {"101": False, "102": False, "103": False, "104": True, "200": False}


def test_a_record_stored_again_keeps_the_marker_it_was_stored_with(tmp_path, capsys, db):
    """A marker is no measurement: ingesting the same output again without the flag (by hand) is a no-op, as any
    re-ingest is, not a refusal; the stored row keeps its marker."""
    folder = _job_folder(tmp_path, "104", 4, 600.0)
    _ingest(capsys, db, folder, "--run-cancelled")
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(folder))
    assert rc == 0 and "(0 new)" in out, out + err
    (rec,) = show_json(capsys, db)
    assert rec[R.RUN_CANCELLED] is True


# --- compare: no baseline reads a cancelled run ----------------------------------------------------

def test_compare_leaves_a_cancelled_main_run_out_of_the_baseline(tmp_path, capsys, db):
    _main_with_a_cancelled_run(capsys, tmp_path, db)
    rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "200", "--json")
    assert rc == 0, err
    point = _throughput(json.loads(out))
    # was n=4, median 63.1: the cancelled run's figure in main's baseline
    assert point["baseline"]["n"] == 3 and point["baseline"]["median"] == 51.2, point


def test_a_baseline_read_from_files_leaves_it_out_too(tmp_path, capsys, db):
    """`--baseline-jsonl` (and the artifacts, read by the same rule: ``store_adapter.may_judge``) holds the
    marker in each record, and picks the runs the store would."""
    main_db = f"sqlite:///{tmp_path / 'main.db'}"
    jsonl = tmp_path / "main.jsonl"
    for run, day in (("101", 1), ("102", 2), ("103", 3)):
        _ingest(capsys, main_db, _job_folder(tmp_path, run, day, 409.6), "--jsonl", str(jsonl))
    _ingest(capsys, main_db, _job_folder(tmp_path, "104", 4, 600.0), "--run-cancelled", "--jsonl", str(jsonl))
    assert [json.loads(line).get(R.RUN_CANCELLED) for line in jsonl.read_text().splitlines()] == [None] * 3 + [True]
    _ingest(capsys, db, _job_folder(tmp_path, "200", 5, 600.0, ref=PR_REF))
    rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "200", "--json",
                           "--baseline-jsonl", str(jsonl))
    assert rc == 0, err
    assert _throughput(json.loads(out))["baseline"]["n"] == 3


def test_a_cancelled_run_compared_itself_is_judged_as_any_run(tmp_path, capsys, db):
    """The marker keeps a run out of baselines, not its own report: a PR's cancelled sweep is still compared."""
    for run, day in (("101", 1), ("102", 2), ("103", 3)):
        _ingest(capsys, db, _job_folder(tmp_path, run, day, 409.6))
    _ingest(capsys, db, _job_folder(tmp_path, "200", 5, 600.0, ref=PR_REF), "--run-cancelled")
    rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "200", "--json")
    assert rc == 0, err
    doc = json.loads(out)
    point = _throughput(doc)
    assert point["head"] == 75.0 and point["verdict"] == "improved", point
    assert doc[R.RUN_CANCELLED] is True  # its report says what it is
    rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "103", "--json")
    assert rc == 0 and R.RUN_CANCELLED not in json.loads(out), err


# --- ci reuse: a cancelled main run's finished jobs are reused ---------------------------------------

def test_reuse_takes_a_cancelled_main_run_s_finished_jobs_and_the_copy_is_the_later_run_s(tmp_path):
    """Reuse is by identity: a whole job of a cancelled push to main measured main's code at that SHA, so the next
    sweep of main takes it (that is the GPU-hours kept); its cut-short jobs never. The copy ``ci reuse`` records is
    the later run's, without the marker: that run vouches for it, and main's baseline counts it there once."""
    import synth

    from sweepgate.results import reuse

    finished, cut = [dict(r) for r in synth.pr_run()[:2]]
    for rec, status, ident in ((finished, "success", "a" * 64), (cut, "cancelled", "b" * 64)):
        rec.update({R.REF: MAIN, R.RUN_ID: "104", R.STATUS: status, R.RUN_IDENTITY: ident, R.RUN_CANCELLED: True})
    with store.open_store(f"sqlite:///{tmp_path / 'r.db'}") as st:
        st.add([finished, cut])
        found = st.reusable(["a" * 64, "b" * 64])
    assert set(found) == {"a" * 64}
    assert found["a" * 64][0][R.RUN_CANCELLED] is True
    hit = reuse.Found([("fixed", {}, "a" * 64)], found)
    (copied,) = reuse.reused_records(hit, run_id="105", attempt=1, ref=MAIN, commit="c" * 40)
    assert R.RUN_CANCELLED not in copied and copied[R.REUSED_FROM][R.RUN_ID] == "104"


# --- the migration: SQLite and PostgreSQL ------------------------------------------------------------

@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request, env) -> str:
    return request.getfixturevalue("pg_url") if request.param == "postgresql" else f"sqlite:///{env / 'old.db'}"


def _columns_and_rows(url: str) -> tuple[str, set[str], dict]:
    engine = sa.create_engine(url)
    with engine.connect() as conn:
        revision = conn.exec_driver_sql("SELECT version_num FROM alembic_version").scalar()
        columns = {c["name"] for c in sa.inspect(conn).get_columns("results")}
        rows = dict(conn.execute(sa.text(f"SELECT run_id, {'run_cancelled' if 'run_cancelled' in columns else 'NULL'}"
                                         " FROM results")).all())
    engine.dispose()
    return revision, columns, rows


def test_an_older_store_upgrades_in_place_its_rows_not_cancelled_and_downgrades(backend, tmp_path, capsys):
    import synth
    from alembic import command

    from sweepgate.results.store_schema import _alembic_config

    records = [dict(r) for r in synth.pr_run()[:1]]
    records[0].update({R.REF: MAIN, R.RUN_ID: "101"})
    stored_by_an_older_sweepgate(backend, records, "0006")
    assert "run_cancelled" not in _columns_and_rows(backend)[1]
    _ingest(capsys, backend, _job_folder(tmp_path, "104", 4, 600.0), "--run-cancelled")  # upgrades it, then stores
    revision, columns, rows = _columns_and_rows(backend)
    assert revision == _head() == "0007" and "run_cancelled" in columns
    assert rows == {"101": False, "104": True}, rows  # the older row: not cancelled
    assert {r[R.RUN_ID]: bool(r.get(R.RUN_CANCELLED)) for r in show_json(capsys, backend)} == {"101": False,
                                                                                                "104": True}
    cfg = _alembic_config()
    engine = sa.create_engine(backend)
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "0006")
    engine.dispose()
    revision, columns, rows = _columns_and_rows(backend)
    assert revision == "0006" and "run_cancelled" not in columns and set(rows) == {"101", "104"}
    with store.open_store(backend) as st:  # and up again: the column read back from the records that say it
        assert {r[R.RUN_ID] for r in st.records()} == {"101", "104"}
    assert _columns_and_rows(backend)[2] == {"101": False, "104": True}
    with store.open_store(backend) as st:  # so no baseline reads it
        assert [r[R.RUN_ID] for r in st.records_of_keys([records[0][R.CONFIG_KEY], "dsr1-fp4-b300-vllm"], MAIN,
                                                        since="", succeeded=True)] == ["101"]


# --- the workflow: collect runs for a cancelled push to main and stores it marked -----------------------

def _steps() -> dict:
    import yaml

    return {s.get("name", ""): s for s in yaml.safe_load(RUN_SWEEP.read_text(encoding="utf-8"))["jobs"]["collect"]
            ["steps"]}


def _run_step(step: dict, workspace: Path, **env) -> subprocess.CompletedProcess:
    """A collect step's script in bash as the runner runs it (bash -e -o pipefail), its ``env`` as the workflow
    would set it from ``env``, with this sweepgate: the checkout's (PYTHONPATH utils) and the one installed."""
    base = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "SWEEPGATE_"))}
    base["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{base['PATH']}"
    base["PYTHONPATH"] = str(ROOT / "utils")
    return subprocess.run(["bash", "-e", "-o", "pipefail", "-c", step["run"]], cwd=workspace, capture_output=True,
                          text=True, env={**base, **env}, timeout=300)


@pytest.mark.parametrize("results, run_cancelled", [(["success", "success", "cancelled"], True),
                                                    (["success", "success", "cancelled"], False),
                                                    (["success", "success", "success"], False)])
def test_the_collect_job_stores_a_cancelled_push_to_main_marked(tmp_path, capsys, results, run_cancelled):
    """The collect job's steps of run-sweep.yml, run in bash on a push to main's downloaded results (PR_NUMBER
    empty): a cancelled run's note names main's next sweep, not a PR's, and its finished job is stored marked; a
    whole run's is not. The marker follows the run's cancelled() (the job's first step), not a needed job's
    `cancelled` result: a job ended by its own timeout-minutes is `cancelled` too, and marking on that (as first
    written) kept the whole of a main run with one timed-out job out of every baseline."""
    workspace = tmp_path / "ws"
    downloaded = workspace / "results"
    write_job(downloaded, "kimi_conc4", _output(4, 600.0), job(run_id="104", finished="2026-01-04T12:00:00+00:00"))
    write_job(downloaded, "kimi_conc8", None, job(run_id="104", status="cancelled", row={**job()["row"], "conc": 8}))
    summary = tmp_path / "summary.md"
    steps = _steps()
    # s47l: the run's cancelled(), as only a job's `if` reads it (the run-cancelled job), not the step's own (s48e:
    # the step after the checkout, which empties a fresh runner's workspace: test_marker_after_checkout_s48e.py)
    first = steps["Note that the run was cancelled"]
    assert first["if"] == "${{ !failure() && needs.run-cancelled.result != 'skipped' }}", first
    for name, step in steps.items():  # run after a cancel too, unless a step before failed
        if name not in (first["name"], "Compare with main") and "always()" not in str(step.get("if")):
            assert step.get("if") == "${{ !failure() }}", (name, step.get("if"))
    if run_cancelled:
        assert _run_step(first, workspace).returncode == 0
    env = {"RESULTS": json.dumps(results), "PR_NUMBER": "", "GITHUB_STEP_SUMMARY": str(summary)}
    proc = _run_step(steps["Summarize"], workspace, **env)
    assert proc.returncode == 0, proc.stderr
    note = workspace / "sweepgate-results" / "cancelled.md"
    assert note.exists() == ("cancelled" in results)
    if note.exists():
        said = note.read_text()
        assert said in summary.read_text() and "the next sweep of this branch reuses them" in said, said
        assert "PR" not in said, said
    # the runner sets GITHUB_RUN_ID and GITHUB_RUN_ATTEMPT in every step (s48f: the ingest names the run with them)
    proc = _run_step(steps["Ingest results"], workspace, GITHUB_RUN_ID="104", GITHUB_RUN_ATTEMPT="1")
    assert proc.returncode == 0, proc.stderr
    db = f"sqlite:///{workspace / 'sweepgate-results' / 'results.db'}"
    mark = True if run_cancelled else None
    marks = {r[R.RESULT_FILENAME]: r.get(R.RUN_CANCELLED) for r in show_json(capsys, db, "--run", "104")}
    assert marks == {"kimi_conc4": mark, "kimi_conc8": mark}, marks
    lines = (workspace / "sweepgate-results" / "results.jsonl").read_text().splitlines()
    assert {json.loads(line).get(R.RUN_CANCELLED) for line in lines} == {mark}


def test_a_pr_s_cancelled_sweep_note_still_names_the_pr_s_next_sweep(tmp_path):
    steps = _steps()
    workspace = tmp_path / "ws"
    write_job(workspace / "results", "a", _output(4, 600.0), job(run_id="9", ref=PR_REF))
    proc = _run_step(steps["Summarize"], workspace, RESULTS='["success", "cancelled"]', PR_NUMBER="7",
                     GITHUB_STEP_SUMMARY=str(tmp_path / "summary.md"))
    assert proc.returncode == 0, proc.stderr
    said = (workspace / "sweepgate-results" / "cancelled.md").read_text()
    assert "a later sweep of this PR reuses them" in said and "a newer sweep of the PR" in said, said
