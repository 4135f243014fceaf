"""The fail-fast watchdog's decision: given the jobs of one run attempt, cancel, stop or wait.

``sweepgate ci watch`` polls GitHub's jobs API (GET /repos/{o}/{r}/actions/runs/{id}/attempts/{n}/jobs)
and asks ``judge`` after each poll. Pure: no I/O. Job dicts have GitHub's documented shape
(``name``, ``status``: queued|in_progress|completed|waiting, ``conclusion``).
"""

from __future__ import annotations

from dataclasses import dataclass

from sweepgate.core import github
from sweepgate.core.report import count

CANCEL, DONE, WAIT = "cancel", "done", "wait"
# A job that ended so: the sweep's remaining GPU-hours are wasted on a broken change.
FAILED_CONCLUSIONS = (github.FAILURE, github.TIMED_OUT)


@dataclass(frozen=True)
class Verdict:
    action: str  # cancel | done | wait
    reason: str


def judge(jobs: list[dict], until: str) -> Verdict:
    """Cancel at the first failed job; stop once the job named ``until`` (the run's collect job,
    which starts only after every benchmark job ended) exists, since cancelling then saves nothing
    and would stop the results from being collected; otherwise wait."""
    if any(j.get("name") == until for j in jobs):
        return Verdict(DONE, f"'{until}' started: every benchmark job has ended")
    failed = [j for j in jobs if j.get("status") == github.COMPLETED and j.get("conclusion") in FAILED_CONCLUSIONS]
    if failed:
        first = failed[0]
        more = f" (and {len(failed) - 1} more)" if len(failed) > 1 else ""
        return Verdict(CANCEL, f"job '{first.get('name')}' ended with {first.get('conclusion')}{more}")
    running = sum(1 for j in jobs if j.get("status") != github.COMPLETED)
    return Verdict(WAIT, f"{count(len(jobs), 'job')}, {running} not yet completed, none failed")
