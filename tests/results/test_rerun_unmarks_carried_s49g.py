"""s49g: "Re-run failed jobs" after a cancelled run left the first attempt's good records out of every baseline.

A run cancelled before it finished has its records (and the copies `ci reuse` stored against it) marked
``run-cancelled``: no baseline reads them. GitHub's *Re-run failed jobs* (one run id, GITHUB_RUN_ATTEMPT 2) runs
again only the jobs that failed or were cancelled, with the jobs that depend on them (the run-cancelled job, which
is skipped when the attempt is not cancelled, and collect); a job that succeeded in attempt 1 is not run again, its
result carried into attempt 2. The later attempt's collect stored its own outputs unmarked, and re-ingesting the
first attempt's outputs (its artifacts are the run's) is a no-op that keeps their marker: the jobs attempt 2 stands
behind stayed out of main's baseline.

Now the collect job passes `results ingest --run-finished --run-id ID --attempt N` when the run was not cancelled,
and the records of the run's earlier attempts that are each row's newest and whose job wholly succeeded (every
record a success: never one of a job that failed or was cancelled, nor one a later attempt ran again) are un-marked
in one transaction, the copies too, on SQLite and PostgreSQL.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sqlalchemy as sa

from helpers import ROW, job, run_cli, vllm_output, write_job
from test_marker_after_checkout_s48e import _checkout
from test_workflow_compare_step import JOBS, condition, env_of, run_step

from sweepgate.results import record as R
from sweepgate.results import reuse, store

MAIN = "refs/heads/main"
RUN = "104"


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request, db) -> str:
    return request.getfixturevalue("pg_url") if request.param == "postgresql" else db


def _job(folder: Path, name: str, conc: int, attempt: int, status: str = "success", run: str = RUN,
         day: int = 4) -> None:
    write_job(folder, name, {**vllm_output(conc, output_throughput=400.0 + conc + attempt),
                             "date": f"2026010{day}-12000{attempt}"},
              job(run_id=run, attempt=attempt, status=status, ref=MAIN, row={**ROW, "conc": conc},
                  finished=f"2026-01-0{day}T12:00:0{attempt}+00:00"))


def _copy_of_main_run(url: str) -> None:
    """Run 103 measured conc 64; run 104's setup (attempt 1) recorded it again, a copy, against run 104."""
    import synth

    (rec,) = [dict(r) for r in synth.pr_run()[:1]]
    rec.update({R.REF: MAIN, R.RUN_ID: "103", R.STATUS: "success", R.RUN_IDENTITY: "a" * 64,
                R.RESULT_FILENAME: "copied"})
    with store.open_store(url) as st:
        st.add([rec])
        hit = reuse.Found([("fixed", {}, "a" * 64)], st.reusable(["a" * 64]))
        st.add(reuse.reused_records(hit, run_id=RUN, attempt=1, ref=MAIN, commit="c" * 40), keep_stored=True)


def _attempt_1(tmp_path: Path) -> Path:
    """Attempt 1, cancelled: ``done`` succeeded; ``cut`` was cancelled; ``again`` wrote a success but its job did
    not finish well (it was run again in attempt 2); ``broken`` failed."""
    folder = tmp_path / "attempt1"
    _job(folder, "done", 4, 1)
    _job(folder, "cut", 8, 1, status="cancelled")
    _job(folder, "again", 16, 1)
    _job(folder, "broken", 32, 1, status="failure")
    return folder


def _attempt_2(tmp_path: Path) -> Path:
    """Attempt 2 (Re-run failed jobs): the jobs of ``cut``, ``again`` and ``broken`` ran again; the run's
    artifacts still hold ``done``'s attempt-1 output, which collect downloads and ingests again."""
    folder = tmp_path / "attempt2"
    _job(folder, "done", 4, 1)
    _job(folder, "cut", 8, 2)
    _job(folder, "again", 16, 2)
    _job(folder, "broken", 32, 2)
    return folder


def _marks(url: str) -> dict:
    engine = sa.create_engine(url)
    with engine.connect() as conn:
        rows = conn.execute(sa.text("SELECT run_id, attempt, result_filename, run_cancelled FROM results")).all()
    engine.dispose()
    return {(run, attempt, name): bool(marked) for run, attempt, name, marked in rows}


def _ingest(capsys, db: str, folder: Path, *flags: str) -> str:
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, *flags, str(folder))
    assert rc == 0, out + err
    return out


EXPECTED = {
    ("103", 1, "copied"): False,
    (RUN, 1, "copied"): False,  # the copy attempt 1's setup stored: the finished run stands behind it
    (RUN, 1, "done"): False,  # succeeded in attempt 1, not run again: carried into attempt 2
    (RUN, 1, "cut"): True,  # cancelled: never a baseline's
    (RUN, 1, "again"): True,  # run again in attempt 2: that attempt's record is the row's
    (RUN, 1, "broken"): True,  # failed
    (RUN, 2, "cut"): False, (RUN, 2, "again"): False, (RUN, 2, "broken"): False,
}


def test_the_later_attempt_unmarks_what_it_carries_and_nothing_else(tmp_path, capsys, backend):
    db = backend
    _copy_of_main_run(db)
    _ingest(capsys, db, _attempt_1(tmp_path), "--run-cancelled", "--run-id", RUN, "--attempt", "1")
    assert all(marked for (run, _, _), marked in _marks(db).items() if run == RUN)
    out = _ingest(capsys, db, _attempt_2(tmp_path), "--run-finished", "--run-id", RUN, "--attempt", "2")
    assert _marks(db) == EXPECTED  # was: attempt 1's done and copied kept their marker
    assert f"un-marked 2 results of run {RUN}'s earlier attempts" in out, out
    assert out.splitlines()[-1].startswith("ingested 4 results (3 new)"), out  # still stdout's last line
    with store.open_store(db, must_exist=True) as st:
        done = [r for r in st.run_results(RUN, 1) if r[R.RESULT_FILENAME] == "done"]
    assert [R.RUN_CANCELLED in r for r in done] == [False]  # the record says it too, not the column alone
    out = _ingest(capsys, db, _attempt_2(tmp_path), "--run-finished", "--run-id", RUN, "--attempt", "2")
    assert "un-marked" not in out and _marks(db) == EXPECTED  # the collect job run again: nothing more


def test_a_third_attempt_takes_the_newest_of_each_row(tmp_path, capsys, db):
    """Attempts 1 and 2 both cancelled, attempt 3 finished: each row's newest success is un-marked, whichever
    attempt ran it; an older one stays marked."""
    _ingest(capsys, db, _attempt_1(tmp_path), "--run-cancelled", "--run-id", RUN, "--attempt", "1")
    second = tmp_path / "second"
    _job(second, "cut", 8, 2)
    _job(second, "again", 16, 2, status="cancelled")
    _ingest(capsys, db, second, "--run-cancelled", "--run-id", RUN, "--attempt", "2")
    third = tmp_path / "third"
    _job(third, "again", 16, 3)
    _job(third, "broken", 32, 3)
    _ingest(capsys, db, third, "--run-finished", "--run-id", RUN, "--attempt", "3")
    assert _marks(db) == {(RUN, 1, "done"): False, (RUN, 1, "cut"): True, (RUN, 1, "again"): True,
                          (RUN, 1, "broken"): True, (RUN, 2, "cut"): False, (RUN, 2, "again"): True,
                          (RUN, 3, "again"): False, (RUN, 3, "broken"): False}


def test_an_ingest_that_refused_a_file_unmarks_nothing(tmp_path, capsys, db):
    """A file refused is a job of this attempt whose row the store does not know it ran again: nothing is
    un-marked, and the line says why and what to do."""
    _ingest(capsys, db, _attempt_1(tmp_path), "--run-cancelled", "--run-id", RUN, "--attempt", "1")
    folder = _attempt_2(tmp_path)
    (folder / "cut.job.json").write_text("{not json", encoding="utf-8")
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, "--run-finished", "--run-id", RUN,
                           "--attempt", "2", str(folder))
    assert rc == 1, out + err
    assert all(marked for (run, attempt, _), marked in _marks(db).items() if attempt == 1)
    assert "un-marked nothing" in err and "ingest them again" in err, err


@pytest.mark.parametrize("flags, said", [
    (("--run-finished",), "argument --run-finished: needs --run-id"),
    (("--run-finished", "--run-cancelled", "--run-id", RUN), "not allowed with argument"),
])
def test_run_finished_names_its_run_and_is_no_cancelled_run(tmp_path, capsys, db, flags, said):
    empty = tmp_path / "results"
    empty.mkdir()
    with pytest.raises(SystemExit) as stop:
        run_cli(capsys, "results", "ingest", "--db", db, "--allow-empty", *flags, str(empty))
    assert stop.value.code == 2 and said in capsys.readouterr().err


def test_a_new_sqlite_file_is_not_made_to_unmark_nothing(tmp_path, capsys, db):
    empty = tmp_path / "results"
    empty.mkdir()
    out = _ingest(capsys, db, empty, "--allow-empty", "--run-finished", "--run-id", RUN, "--attempt", "2")
    assert "un-marked" not in out and not Path(db.removeprefix("sqlite:///")).exists()


# --- the workflow: the collect job of a later attempt -------------------------------------------------------

def _collect(workspace: Path, db: str, attempt: int, run_cancelled: str, outputs: Path) -> None:
    """The collect job's steps up to and with Ingest results, with the team database ``db`` (SWEEPGATE_DB)."""
    values = {"toJSON(needs.*.result)": json.dumps(["success", "success"]), "secrets.SWEEPGATE_DB": db,
              "github.token": "", "needs.decide.outputs.pr_number": "",
              # the attempt the run-cancelled job saw cancelled (s49b), none when it was skipped
              "needs.run-cancelled.outputs.attempt": str(attempt) if run_cancelled == "success" else ""}
    ctx = {"needs.decide.outputs.pr_number": "", "needs.run-cancelled.result": run_cancelled}
    for found in JOBS["collect"]["steps"]:
        name = found.get("name") or found["uses"].split("@", 1)[0]
        if not condition(found.get("if"), ctx, False, workspace):
            continue
        uses = found.get("uses", "")
        if uses.startswith("actions/checkout@"):
            _checkout(workspace)
        elif uses.startswith("actions/download-artifact@"):
            # every job's artifact of the run, an earlier attempt's too (not only this attempt's): run-id and a
            # token read the run's artifacts through the REST API, which the internal one, scoped to the
            # attempt, does not
            assert {"run-id", "github-token"} <= set(found.get("with") or {}), found
            for path in outputs.iterdir():
                (workspace / "results").mkdir(exist_ok=True)
                (workspace / "results" / path.name).write_bytes(path.read_bytes())
        elif "run" in found and found["run"].strip() != "python -m pip install --quiet -r .github/sweepgate-requirements.txt":
            proc, _ = run_step(found, workspace, **env_of(found, values),
                               GITHUB_STEP_SUMMARY=str(workspace.parent / "summary.md"), GITHUB_RUN_ID=RUN,
                               GITHUB_RUN_ATTEMPT=str(attempt))
            assert proc.returncode == 0, (name, proc.stderr)
        if name == "Ingest results":
            return
    raise AssertionError("no Ingest results step ran")


def test_the_collect_job_of_a_re_run_that_finished_unmarks_what_it_carries(tmp_path):
    team = f"sqlite:///{tmp_path / 'team.db'}"
    first, second = tmp_path / "ws1", tmp_path / "ws2"
    first.mkdir()
    second.mkdir()
    _copy_of_main_run(team)
    _collect(first, team, 1, "success", _attempt_1(tmp_path))  # the run-cancelled job ran: attempt 1 was cancelled
    assert _marks(team)[(RUN, 1, "done")] is True
    _collect(second, team, 2, "skipped", _attempt_2(tmp_path))  # re-run, and not cancelled
    assert _marks(team) == EXPECTED  # was: done and copied marked still
