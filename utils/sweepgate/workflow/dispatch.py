"""The sweep poller's plan: which GPU sweeps to dispatch and which to cancel.

sweep-dispatch.yml runs on a schedule from the default branch. For every open PR it asks
``authorize``; a PR that may run gets one workflow_dispatch of run-sweep.yml per (head SHA,
mode), named by ``run_title``; a queued or running sweep of a PR that may no longer run that
SHA (draft, new push, label removed) is cancelled. run-sweep.yml authorizes again itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sweepgate.core.fields import SWEEP_WORKFLOW as GPU_WORKFLOW  # noqa: F401 - the one name, in core
from sweepgate.workflow.decide import Decision

# run-sweep.yml's `run-name:` spells the same format with format('sweep PR #{0} at {1} ({2})', ...).
TITLE = "sweep PR #{pr} at {sha} ({mode})"
TITLE_RE = re.compile(r"sweep PR #(\d+) at ([0-9a-f]{40}) \((\w+)\)")
ACTIVE = frozenset({"queued", "in_progress", "waiting", "pending", "requested"})


def run_title(pr: str, sha: str, mode: str) -> str:
    return TITLE.format(pr=pr, sha=sha, mode=mode)


@dataclass(frozen=True)
class Run:
    id: int
    title: str
    status: str


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


def plan(decisions: dict[str, Decision], runs: list[Run], unknown: frozenset[str] | set[str] = frozenset()) -> list[Action]:
    """Dispatch each runnable PR's (SHA, mode) not yet started; cancel active runs that no
    longer match what their PR may run. ``decisions`` is keyed by PR number; the PRs in
    ``unknown`` (open, but not read this time) are left alone: their runs are not cancelled."""
    actions = []
    titles = {r.title for r in runs}
    for pr, d in sorted(decisions.items(), key=lambda item: int(item[0])):
        if d.run and run_title(pr, d.head_ref, d.mode) not in titles:
            actions.append(Action("dispatch", pr, d.head_ref, d.mode, reason=d.reason))
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
