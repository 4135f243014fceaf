"""The sweep poller's plan: which GPU sweeps to dispatch and which to cancel.

sweep-dispatch.yml runs on a schedule from the default branch. For every open PR it asks
``authorize``; a PR that may run gets one workflow_dispatch of run-sweep.yml per (head SHA,
mode), named by ``run_title``; a queued or running sweep of a PR that may no longer run that
SHA (draft, new push, label removed) is cancelled. run-sweep.yml authorizes again itself.

A (SHA, mode) is dispatched once: a run of that title that ended, in any way, is not started again
by itself. One that ended cancelled or timed out (a maintainer's cancel, the fail-fast watchdog, a
timeout, the poll's own cancel when the label was removed) is dispatched again only when the PR was
asked for again after it ended: a counted sweep label applied, or a fork's ``/sweep <head SHA>``
posted, later than the run's end (``authorize.requested_at``). The new run's setup reuses what the
PR's earlier runs kept (``ci reuse --pr-number``), so the jobs that had finished are not run twice.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from sweepgate.core.github import CANCELLED, COMPLETED, TIMED_OUT
from sweepgate.core.fields import SWEEP_WORKFLOW as GPU_WORKFLOW  # noqa: F401 - the one name, in core
from sweepgate.workflow.decide import Decision

# run-sweep.yml's `run-name:` spells the same format with format('sweep PR #{0} at {1} ({2})', ...).
TITLE = "sweep PR #{pr} at {sha} ({mode})"
TITLE_RE = re.compile(r"sweep PR #(\d+) at ([0-9a-f]{40}) \((\w+)\)")
ACTIVE = frozenset({"queued", "in_progress", "waiting", "pending", "requested"})
# How a run ends that a maintainer may ask for again (``plan``): cut short, not judged by its jobs.
ASKABLE_AGAIN = frozenset({CANCELLED, TIMED_OUT})


def run_title(pr: str, sha: str, mode: str) -> str:
    return TITLE.format(pr=pr, sha=sha, mode=mode)


@dataclass(frozen=True)
class Run:
    id: int
    title: str
    status: str
    conclusion: str = ""  # how a completed run ended (GitHub's `conclusion`); "" while it has not
    ended_at: dt.datetime | None = None  # a completed run's last update (GitHub's `updated_at`)


def cancellable(run: Run) -> re.Match | None:
    """The match of the title of a run ``plan`` may cancel (queued or running, titled as a PR's sweep):
    (PR, SHA, mode); None for any other run."""
    return TITLE_RE.fullmatch(run.title) if run.status in ACTIVE else None


@dataclass(frozen=True)
class Action:
    kind: str  # dispatch | cancel
    pr: str
    sha: str = ""
    mode: str = ""
    run_id: int = 0
    reason: str = ""


def asked_again(runs: list[Run], requested: dt.datetime | None) -> Run | None:
    """The run ``runs`` (one title's, newest first) ended cancelled or timed out, when the PR was asked for
    again (``requested``) after it ended; None when any of them is still active or none was asked again."""
    if requested is None or any(r.status != COMPLETED for r in runs):
        return None
    last = max(runs, key=lambda r: (r.ended_at is not None, r.ended_at or dt.datetime.min, r.id))
    if last.conclusion in ASKABLE_AGAIN and last.ended_at is not None and requested > last.ended_at:
        return last
    return None


def plan(decisions: dict[str, Decision], runs: list[Run], unknown: frozenset[str] | set[str] = frozenset(),
         requested: dict[str, dt.datetime] | None = None) -> list[Action]:
    """Dispatch each runnable PR's (SHA, mode) not yet started, or whose last run ended cancelled or timed out
    before the PR was asked for again (``requested``, keyed by PR number: ``authorize.requested_at``); cancel
    active runs that no longer match what their PR may run. ``decisions`` is keyed by PR number; the PRs in
    ``unknown`` (open, but not read this time) are left alone: their runs are not cancelled."""
    actions = []
    by_title: dict[str, list[Run]] = {}
    for r in runs:
        by_title.setdefault(r.title, []).append(r)
    for pr, d in sorted(decisions.items(), key=lambda item: int(item[0])):
        if not d.run:
            continue
        earlier = by_title.get(run_title(pr, d.head_ref, d.mode))
        if not earlier:
            actions.append(Action("dispatch", pr, d.head_ref, d.mode, reason=d.reason))
        elif again := asked_again(earlier, (requested or {}).get(pr)):
            actions.append(Action("dispatch", pr, d.head_ref, d.mode, reason=f"{d.reason}; asked again after "
                                  f"run {again.id} ended {again.conclusion}"))
    for r in runs:
        m = cancellable(r)
        if not m:
            continue
        pr, sha, mode = m.groups()
        if pr in unknown:
            continue
        d = decisions.get(pr)
        if d is None:
            actions.append(Action("cancel", pr, sha, mode, r.id, "PR is closed"))
        elif not d.run or (d.head_ref, d.mode) != (sha, mode):
            actions.append(Action("cancel", pr, sha, mode, r.id, d.reason if not d.run else
                                  f"PR now runs {d.mode} at {d.head_ref}"))
    return actions
