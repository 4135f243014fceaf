"""s49b review: the collect job of a later attempt marked the copies of its own attempt, not the cancelled one's.

s48f has the collect job of a cancelled run pass `--run-cancelled --run-id "$GITHUB_RUN_ID" --attempt
"$GITHUB_RUN_ATTEMPT"`, marking the copies `ci reuse` recorded in the run's setup job (against the setup's attempt).
When the collect job of a cancelled attempt 1 failed (the team database out of reach) and a maintainer re-ran it
(GitHub's *Re-run job*, or *Re-run failed jobs*), attempt 2 ran the collect job alone: the run-cancelled job kept its
attempt-1 result, so the marker was written and the outputs were stored marked, but `--attempt 2` named copies no
setup had recorded, and attempt 1's copies, a cancelled run's records, stayed in main's baseline. The run-cancelled
job now says which attempt it saw cancelled (its output, which a job not re-run keeps, as GitHub documents), and the
ingest names that attempt. A later attempt cancelled itself (its setup not re-run) still marks its own attempt's
copies only, as s48f's command test pins: the earlier attempt was not cancelled.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import sqlalchemy as sa

from helpers import ROOT, job, vllm_output, write_job
from test_workflow_compare_step import JOBS, condition, env_of, run_step

from sweepgate.results import record as R
from sweepgate.results import reuse, store

MAIN = "refs/heads/main"


def _setup_s_copy(url: str) -> None:
    """Main's run 103 measured a job; run 104's setup (attempt 1) recorded it again, a copy, against 104."""
    import synth

    (rec,) = [dict(r) for r in synth.pr_run()[:1]]
    rec.update({R.REF: MAIN, R.RUN_ID: "103", R.STATUS: "success", R.RUN_IDENTITY: "a" * 64})
    with store.open_store(url) as st:
        st.add([rec])
        hit = reuse.Found([("fixed", {}, "a" * 64)], st.reusable(["a" * 64]))
        st.add(reuse.reused_records(hit, run_id="104", attempt=1, ref=MAIN, commit="c" * 40), keep_stored=True)


def _collect(workspace: Path, url: str, attempt: str, cancelled_attempt: str) -> None:
    """The collect job's steps up to Ingest results, in attempt ``attempt`` of run 104, the run-cancelled job's
    result `success` and its output ``cancelled_attempt``; the team database at ``url``."""
    values = {"toJSON(needs.*.result)": json.dumps(["success", "cancelled"]), "secrets.SWEEPGATE_DB": url,
              "github.token": "", "needs.decide.outputs.pr_number": "",
              "needs.run-cancelled.outputs.attempt": cancelled_attempt}
    ctx = {"needs.decide.outputs.pr_number": "", "needs.run-cancelled.result": "success"}
    for found in JOBS["collect"]["steps"]:
        name = found.get("name") or found["uses"].split("@", 1)[0]
        if not condition(found.get("if"), ctx, False, workspace):
            continue
        uses = found.get("uses", "")
        if uses.startswith("actions/checkout@"):
            for entry in workspace.iterdir():
                shutil.rmtree(entry) if entry.is_dir() and not entry.is_symlink() else entry.unlink()
            (workspace / "utils").symlink_to(ROOT / "utils")
        elif uses.startswith("actions/download-artifact@"):  # a job of attempt 1 that finished before the cancel
            write_job(workspace / "results", "kimi_conc4", vllm_output(4, output_throughput=600.0),
                      job(run_id="104", ref=MAIN, finished="2026-01-04T12:00:00+00:00"))
        elif "run" in found and found["run"].strip() != "python -m pip install --quiet -r .github/sweepgate-requirements.txt":
            proc, _ = run_step(found, workspace, **env_of(found, values),
                               GITHUB_STEP_SUMMARY=str(workspace.parent / "summary.md"), GITHUB_RUN_ID="104",
                               GITHUB_RUN_ATTEMPT=attempt)
            assert proc.returncode == 0, (name, proc.stderr)
        if name == "Ingest results":
            return
    raise AssertionError("no Ingest results step ran")


def _marks(url: str) -> list[tuple]:
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            return sorted(conn.execute(sa.text("SELECT run_id, attempt, result_filename, run_cancelled FROM results")))
    finally:
        engine.dispose()


def _copy_name(url: str) -> str:
    return next(name for run, _, name, _ in _marks(url) if run == "104" and name != "kimi_conc4")


def test_a_collect_job_re_run_alone_marks_the_cancelled_attempt_s_copies(tmp_path):
    url = f"sqlite:///{tmp_path / 'team.db'}"
    _setup_s_copy(url)
    workspace = tmp_path / "ws"
    workspace.mkdir()
    _collect(workspace, url, attempt="2", cancelled_attempt="1")
    copy = _copy_name(url)
    assert ("104", 1, copy, True) in _marks(url), _marks(url)  # was False: --attempt 2 named no copy
    assert ("104", 1, "kimi_conc4", True) in _marks(url)
    assert ("103", 1, copy, False) in _marks(url)  # main's own run, never touched


def test_a_later_attempt_cancelled_marks_its_own_attempt_s_copies_only(tmp_path):
    """Attempt 1 finished (its collect stored it unmarked); *Re-run failed jobs* made attempt 2, which was cancelled:
    attempt 1's copies are not that cancel's."""
    url = f"sqlite:///{tmp_path / 'team.db'}"
    _setup_s_copy(url)
    workspace = tmp_path / "ws"
    workspace.mkdir()
    _collect(workspace, url, attempt="2", cancelled_attempt="2")
    assert ("104", 1, _copy_name(url), False) in _marks(url), _marks(url)


def test_the_run_cancelled_job_says_the_attempt_it_saw_cancelled():
    """Its output is GitHub's own value, evaluated when the job runs (a job output reads the github context), and
    kept by a later attempt that does not run the job again."""
    assert JOBS["run-cancelled"]["outputs"] == {"attempt": "${{ github.run_attempt }}"}
