"""s47l: the collect job's run-cancelled marker must come from a job-level `if`, where cancelled() is the run's.

0ee2dcf1 wrote the marker (sweepgate-results/run-cancelled, then `results ingest --run-cancelled`) in a first step
of the collect job guarded by a step-level `if: cancelled()`. In a step's `if` the runner reads cancelled() as the
job's own status (actions/runner, Expressions/CancelledFunction: ``JobContext.Status == Cancelled``), and the collect
job is never cancelled: it starts after its needs ended, and GitHub does not cancel a job whose own `if` still holds
(`always() && …`; docs "Workflow cancellation reference", step 1). So the step never ran, and a cancelled push to
main was stored unmarked: its part of a sweep joined main's baseline, the very thing the marker exists to prevent.

Only a job's `if` is evaluated by the server with the run's cancellation. A job of its own, `if: cancelled()`,
after the same jobs collect waits for, runs exactly when the run was cancelled; collect reads its result. Anything
but `skipped` (it ran, or failed to start) marks the records: a doubt keeps a part of a run out of baselines.
"""

from __future__ import annotations

import re

from test_workflow_compare_step import JOBS, condition

MARKER_FILE = "sweepgate-results/run-cancelled"


def _marker_step() -> dict:
    (step,) = [s for s in JOBS["collect"]["steps"] if f"touch {MARKER_FILE}" in s.get("run", "")]
    return step


def _job_cancelled_at_job_level() -> str:
    """The job whose own `if` asks the run's cancelled() and whose result the marker step reads."""
    found = re.findall(r"needs\.([\w-]+)\.result", str(_marker_step().get("if", "")))
    assert len(found) == 1, f"the marker step must read one job's result, not step-level cancelled(): {found}"
    return found[0]


def test_the_marker_step_does_not_take_the_job_s_cancelled_for_the_run_s():
    """Run as the runner runs the collect job of a cancelled run: the job itself is not cancelled, so a step-level
    cancelled() is false (``condition`` evaluates it so). The marker is written all the same, from the job whose
    own `if: cancelled()` the server evaluated (it ran: `success`); in a run not cancelled that job is skipped and
    nothing is marked."""
    step = _marker_step()
    name = _job_cancelled_at_job_level()  # was: none; the step's if was cancelled(), false in this job
    assert condition(step.get("if"), {f"needs.{name}.result": "success"}), step.get("if")
    assert condition(step.get("if"), {f"needs.{name}.result": "failure"}), step.get("if")  # a doubt marks
    assert not condition(step.get("if"), {f"needs.{name}.result": "skipped"}), step.get("if")


def test_the_job_that_sees_the_run_cancelled_waits_for_what_collect_waits_for():
    name = _job_cancelled_at_job_level()
    job, collect = JOBS[name], JOBS["collect"]
    cond = " ".join(str(job["if"]).split())
    assert re.search(r"(?<!!)\bcancelled\(\)", cond) and "always()" not in cond, cond
    assert name in collect["needs"]
    # evaluated once every benchmark job has ended, so a cancel while any ran is seen
    assert set(collect["needs"]) - {name} <= set(job["needs"]), job["needs"]
    assert job["permissions"] == {} and job["runs-on"] == "ubuntu-latest" and job.get("timeout-minutes")
    assert "secrets" not in str(job) and "uses:" not in str(job.get("steps"))
