"""Who may start a GPU sweep of a pull request, decided at dispatch time.

Pure functions over a ``PullState`` (what the GitHub API says about the PR now) and a
``permission`` lookup (login -> GitHub's permission level). Nothing here trusts the
triggering event: labels count only when the account that applied them has write
permission or more; a fork PR runs only the exact head SHA a maintainer named in a
``/sweep <sha>`` comment; drafts never run. ``sweepgate.workflow.pullstate`` fetches the
state; run-sweep.yml's decide job and sweep-dispatch.yml's poller both call ``authorize``.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field, replace
from typing import Callable

from sweepgate.core.fields import MAIN_BRANCH
from sweepgate.workflow.decide import (
    APPROVE_COMMAND,
    DRAFT_SKIP,
    LABELS,
    MARKER_SKIP,
    PRIMARY_LABELS,
    SKIP_MARKER,
    TRIMMED,
    Decision,
    _skip,
    fork_pr,
    label_key,
    labels_decision,
)

# GitHub's `permission` field of GET /repos/{o}/{r}/collaborators/{user}/permission:
# admin, write (maintain maps here), read (triage maps here) or none.
TRUSTED_PERMISSIONS = frozenset({"admin", "maintain", "write"})
SHA = re.compile(r"[0-9a-f]{40}")
APPROVAL = re.compile(re.escape(APPROVE_COMMAND) + r"[ \t]+([0-9a-fA-F]+)[ \t]*")

Permission = Callable[[str], str]


@dataclass(frozen=True)
class PullState:
    """One pull request as the API reports it at decision time."""

    number: int
    state: str  # open | closed
    draft: bool
    head_sha: str
    base_sha: str
    head_repo: str  # "" when the fork was deleted
    base_repo: str
    labels: frozenset[str] = frozenset()
    labelers: dict[str, str] = field(default_factory=dict)  # label -> login of its last "labeled" event (pull_state: keyed by label_key, any spelling)
    comments: tuple[tuple[str, str], ...] = ()  # (login, body), oldest first
    head_message: str = ""
    labeled_at: dict[str, dt.datetime] = field(default_factory=dict)  # label -> time of its last "labeled" event
    comment_times: tuple[dt.datetime | None, ...] = ()  # each comment's creation, as ``comments``
    base_branch: str = MAIN_BRANCH  # the branch the PR is into (base.ref), which its author may change at any time

    @property
    def is_fork(self) -> bool:
        return not self.head_repo or self.head_repo != self.base_repo


def trusted(login: str, permission: Permission) -> bool:
    return bool(login) and permission(login) in TRUSTED_PERMISSIONS


def approval_sha(body: str) -> str | None:
    """The SHA a `/sweep <sha>` comment names (the whole comment, one line), else None."""
    m = APPROVAL.fullmatch(body.strip())
    return m.group(1).lower() if m else None


def counted_labels(pull: PullState, permission: Permission) -> set[str]:
    """Sweep labels (any case, as GitHub compares them) whose last applier has write permission or more."""
    appliers = {label_key(name): login for name, login in pull.labelers.items()}
    return {label_key(name) for name in pull.labels
            if label_key(name) in LABELS and trusted(appliers.get(label_key(name), ""), permission)}


def requested_at(pull: PullState, permission: Permission) -> dt.datetime | None:
    """When the PR was last asked for a sweep: the newest time a counted primary sweep label (sweep-enabled,
    full-sweep-enabled; a modifier such as no-canary asks for no sweep) was applied by a write+ account, or a
    write+ account's ``/sweep`` named the head SHA; None when no time is known. The poll dispatches a
    cancelled sweep again only when this is later than the run's end (``dispatch.plan``)."""
    counted = counted_labels(pull, permission) & set(PRIMARY_LABELS)
    times = [at for name, at in pull.labeled_at.items() if label_key(name) in counted and at is not None]
    times += [at for (login, body), at in zip(pull.comments, pull.comment_times)
              if at is not None and approval_sha(body) == pull.head_sha and trusted(login, permission)]
    return max(times, default=None)


def _approval(pull: PullState, permission: Permission) -> tuple[bool, str]:
    """(approved, why not) for the current head SHA, from `/sweep <sha>` comments."""
    named = [(login, approval_sha(body)) for login, body in pull.comments]
    named = [(login, sha) for login, sha in named if sha is not None]
    if not named:
        return False, f"no approval: a maintainer comments '{APPROVE_COMMAND} {pull.head_sha}'"
    for login, sha in named:
        if sha == pull.head_sha and trusted(login, permission):
            return True, f"approved by {login}"
    current = [login for login, sha in named if sha == pull.head_sha]
    if current:
        return False, (f"'{APPROVE_COMMAND}' by {', '.join(sorted(set(current)))} does not count: "
                       "write permission or more is needed")
    if any(not SHA.fullmatch(sha) for _, sha in named):
        return False, f"an approval must name the full 40-hex head SHA {pull.head_sha}"
    return False, f"approval names another commit, head is now {pull.head_sha}: a later push needs a new approval"


def authorize(pull: PullState, permission: Permission, *, requested_sha: str = "",
              requested_mode: str | None = None, source: str = "pull request") -> Decision:
    """What may run for ``pull`` now. ``requested_sha`` is the SHA the dispatch asked for;
    the decision's head_ref is always the approved, current head SHA. ``requested_mode`` (a dispatch's
    ``mode``, which names its run): a sweep the labels now ask for in another mode is skipped, so a run is
    never a sweep other than its title says, which the poll would dispatch again and cancel it for."""
    refs = dict(pr_number=str(pull.number), base_ref=pull.base_sha, head_ref=pull.head_sha)
    if pull.state != "open":
        return _skip(f"PR #{pull.number} is {pull.state}", **refs)
    if pull.draft:
        return _skip(DRAFT_SKIP, **refs)
    if requested_sha and requested_sha.lower() != pull.head_sha:
        return _skip(f"requested {requested_sha[:40]} is not the head {pull.head_sha}: stale", **refs)
    if SKIP_MARKER in pull.head_message:
        return _skip(MARKER_SKIP, **refs)
    approved, why = _approval(pull, permission)
    labels = counted_labels(pull, permission)
    if pull.is_fork and not approved:
        return _skip(f"{fork_pr(pull.head_repo)}: {why}", **refs)
    if pull.is_fork and pull.base_branch != MAIN_BRANCH:
        # the approval names a commit, not the base: retargeted after it, the gate would take every entry main
        # gained since that branch left it for the PR's own, and run the approved scripts on each of their keys
        return _skip(f"{fork_pr(pull.head_repo)} is into {pull.base_branch[:60]!r}: a fork's approved commit is "
                     f"swept only in a pull request into {MAIN_BRANCH}; retarget it to {MAIN_BRANCH}", **refs)
    decision = labels_decision(labels, refs, source, default=TRIMMED if approved else "")
    if approved and not labels & set(PRIMARY_LABELS):
        decision = replace(decision, reason=f"{why}: {decision.reason}")
    present = {label_key(name) for name in pull.labels} & set(LABELS)
    if not decision.run and present - labels:
        uncounted = ", ".join(sorted(present - labels))
        return _skip(f"label {uncounted} was applied by an account without write permission", **refs)
    if decision.run and requested_mode is not None and requested_mode != decision.mode:
        return _skip(f"requested mode {requested_mode[:20]!r}, but the PR's labels now ask for {decision.mode}: "
                     "the next poll dispatches that sweep", **refs)
    return decision
