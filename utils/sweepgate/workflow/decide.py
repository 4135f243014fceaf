"""Which workflow event runs which sweep (skip / trimmed / full), and why.

Every decision of .github/workflows/run-sweep.yml is the plain function
``decide``, testable without GitHub; the YAML only wires outputs to jobs. Label
names live only in this module.
"""

from __future__ import annotations

from dataclasses import dataclass

from sweepgate.core.errors import fail
from sweepgate.core.fields import BASE_REF, HEAD_REF, MAIN_REF, null_sha

# --- labels and markers (the only place they are spelled) -------------------------
SWEEP_LABEL = "sweep-enabled"  # trimmed sweep (--trim-conc)
FULL_SWEEP_LABEL = "full-sweep-enabled"  # every row
ALL_EVALS_LABEL = "sweep-all-evals"  # modifier: --all-evals
EVALS_ONLY_LABEL = "sweep-evals-only"  # modifier: --evals-only
NO_CANARY_LABEL = "no-canary"  # modifier: no canary stage, every row starts at once
FAIL_FAST_LABEL = "fail-fast"  # modifier: the first failed job stops the whole sweep
PRIMARY_LABELS = {SWEEP_LABEL: "trimmed", FULL_SWEEP_LABEL: "full"}
MODIFIER_LABELS = {ALL_EVALS_LABEL: "all_evals", EVALS_ONLY_LABEL: "evals_only",
                   NO_CANARY_LABEL: "no_canary", FAIL_FAST_LABEL: "fail_fast"}
LABELS = (*PRIMARY_LABELS, *MODIFIER_LABELS)
# decide() ignores a label event whose label neither is one of LABELS nor contains
# this marker (an unrelated label never changes what a PR runs). Labels compare
# case-insensitively, as GitHub's contains() does.
LABEL_MARKER = "sweep"
SKIP_MARKER = "[skip-sweep]"
APPROVE_COMMAND = "/sweep"  # a maintainer's PR comment: /sweep <full 40-hex head SHA>
PR_ACTIONS = ("ready_for_review", "synchronize", "labeled", "unlabeled")
# Why a pull request runs nothing, said alike by `ci decide` (its event) and `ci dispatch` (its state via the API).
DRAFT_SKIP = "draft PR: mark it ready for review to run a sweep"
MARKER_SKIP = f"head commit message contains {SKIP_MARKER}"


def fork_pr(head_repo: str | None) -> str:
    """A fork's pull request as a skip reason names it: ``fork PR (OWNER/NAME)``."""
    return f"fork PR ({head_repo or 'deleted repository'})"

SKIP, TRIMMED, FULL = "skip", "trimmed", "full"


@dataclass(frozen=True)
class Decision:
    """What one workflow event runs. ``run`` is what every self-hosted job checks."""

    mode: str  # skip | trimmed | full
    reason: str
    all_evals: bool = False
    evals_only: bool = False
    no_canary: bool = False
    fail_fast: bool = False
    pr_number: str = ""
    base_ref: str = ""
    head_ref: str = ""

    @property
    def run(self) -> bool:
        return self.mode != SKIP

    @property
    def trim_conc(self) -> bool:
        return self.mode == TRIMMED

    @property
    def eval_flags(self) -> str:
        """Flags shared by validate_perf_changelog.py and process_changelog.py."""
        return " ".join(flag for flag, on in (("--all-evals", self.all_evals),
                                               ("--evals-only", self.evals_only)) if on)

    def outputs(self) -> dict[str, str]:
        def b(v: bool) -> str:
            return "true" if v else "false"

        return {
            "run": b(self.run),
            "mode": self.mode,
            "trim_conc": b(self.trim_conc),
            "all_evals": b(self.all_evals),
            "evals_only": b(self.evals_only),
            "eval_flags": self.eval_flags,
            "canary": b(self.run and not self.no_canary),
            "fail_fast": b(self.fail_fast),
            "pr_number": self.pr_number,
            BASE_REF: self.base_ref,
            HEAD_REF: self.head_ref,
            "reason": self.reason,
        }


def label_key(name: str) -> str:
    """A label as decide compares it: GitHub's contains() and label lookups ignore case, so do we."""
    return name.lower()


def label_is_relevant(name: str) -> bool:
    """The same test a workflow's contains(label, 'sweep') applies to a label event (case-insensitive)."""
    return LABEL_MARKER in label_key(name) or label_key(name) in LABELS


# Where a pull_request payload holds each ref a sweep runs with (Decision field)
PR_REFS = (("pull_request.number", "pr_number"), ("pull_request.base.sha", "base_ref"),
           ("pull_request.head.sha", "head_ref"))


PAYLOAD_FIX = "pass the webhook payload GitHub wrote ($GITHUB_EVENT_PATH)"
PAYLOAD_RULE = "event-payload"  # the title of a webhook payload that is not one decide can read


def _skip(reason: str, **kw) -> Decision:
    return Decision(SKIP, reason, **kw)


def _null(sha) -> bool:
    """Whether a push payload's ``before`` or ``after`` is git's null object id (a branch made, or deleted)."""
    return isinstance(sha, str) and null_sha(sha)


def _decide_push(event: dict, source: str) -> Decision:
    """A push to main sweeps everything its changelog appends; other pushes skip."""
    ref = event.get("ref", "")
    if not ref:  # GitHub always names the pushed ref: a file without one is another kind of JSON
        raise fail(source, 0, "push payload without its 'ref'", PAYLOAD_FIX, rule=PAYLOAD_RULE)
    if ref != MAIN_REF:
        return _skip(f"push to {ref}: only pushes to {MAIN_REF} run a sweep")
    if event.get("deleted") or _null(event.get("after")):
        return _skip("push deleted the branch")
    head = event.get("after") or ""
    if not head:  # GitHub always sends it: sweeping "" would sweep whatever the checkout holds
        raise fail(source, 0, "push payload without its 'after' commit",
                   PAYLOAD_FIX, rule=PAYLOAD_RULE)
    base = event.get("before") or ""
    if not base or _null(base):
        base = f"{head}^"
    return Decision(FULL, "push to main: full sweep of the appended changelog entries",
                    base_ref=base, head_ref=head)


def decide(event_name: str, event: dict, head_message: str = "", *, source: str = "event") -> Decision:
    """Decide what one GitHub event runs. Pure: no I/O, no environment.

    ``event`` is the webhook payload ($GITHUB_EVENT_PATH); ``head_message`` the
    head commit's message (a pull_request payload does not carry it).
    Raises SweepgateError when the PR asks for two sweeps at once.
    """
    if event_name == "push":
        return _decide_push(event, source)
    if event_name != "pull_request":
        return _skip(f"event '{event_name}' does not run sweeps")

    action = event.get("action", "")
    if not action:  # GitHub always says what happened to the PR: a file without it is another kind of JSON
        raise fail(source, 0, "pull_request payload without its 'action'", PAYLOAD_FIX, rule=PAYLOAD_RULE)
    pr = event.get("pull_request") or {}
    number = str(pr.get("number") or event.get("number") or "")
    base = pr.get("base") or {}
    head = pr.get("head") or {}
    refs = dict(pr_number=number, base_ref=str(base.get("sha") or ""), head_ref=str(head.get("sha") or ""))

    if action not in PR_ACTIONS:
        return _skip(f"pull_request action '{action}' does not run sweeps", **refs)
    head_repo = (head.get("repo") or {}).get("full_name")
    base_repo = (base.get("repo") or {}).get("full_name")
    if not head_repo or head_repo != base_repo:
        return _skip(f"{fork_pr(head_repo)}: a maintainer approves its head with "
                     f"'{APPROVE_COMMAND} <full head SHA>'", **refs)
    if pr.get("draft"):
        return _skip(DRAFT_SKIP, **refs)
    if action in ("labeled", "unlabeled"):
        changed = (event.get("label") or {}).get("name", "")
        if not changed:  # GitHub names the label it added or removed: a payload without one is not its
            raise fail(source, 0, f"pull_request '{action}' payload without its label's name",
                       PAYLOAD_FIX, rule=PAYLOAD_RULE)
        if not label_is_relevant(changed):
            return _skip(f"label '{changed}' was {action}: it does not affect the sweep", **refs)
    if SKIP_MARKER in head_message:
        return _skip(MARKER_SKIP, **refs)

    labels = {str(lab.get("name", "")) for lab in pr.get("labels") or [] if isinstance(lab, dict)}
    decision = labels_decision(labels, refs, source)
    missing = [name for name, key in PR_REFS if not refs[key]]
    if decision.run and missing:  # GitHub always sends them: sweeping "" would sweep whatever the checkout holds
        raise fail(source, 0, f"pull_request payload without its {', '.join(missing)}",
                   PAYLOAD_FIX, rule=PAYLOAD_RULE)
    return decision


def labels_decision(labels: set[str], refs: dict, source: str = "event", *, default: str = "") -> Decision:
    """The sweep the PR's (counted) labels ask for. ``default`` is the mode when no primary
    label counts (a maintainer's /sweep approval runs a trimmed sweep); "" skips."""
    number = refs.get("pr_number", "")
    labels = {label_key(name) for name in labels}
    primary = [name for name in PRIMARY_LABELS if name in labels]
    if len(primary) > 1:
        raise fail(source, 0, f"PR #{number} has labels {' and '.join(repr(p) for p in primary)}",
                   f"keep exactly one: {SWEEP_LABEL} (trimmed) or {FULL_SWEEP_LABEL} (everything)",
                   rule="ci-labels")
    modifiers = {flag: name in labels for name, flag in MODIFIER_LABELS.items()}
    extras = "".join(f" +{name}" for name in MODIFIER_LABELS if name in labels)
    if not primary:
        if default:
            return Decision(default, f"approved: {default} sweep{extras}", **modifiers, **refs)
        return _skip(f"no sweep label: add '{SWEEP_LABEL}' (trimmed) or '{FULL_SWEEP_LABEL}' (full)", **refs)
    mode = PRIMARY_LABELS[primary[0]]
    return Decision(mode, f"label '{primary[0]}': {mode} sweep{extras}", **modifiers, **refs)
