"""`sweepgate ci decide` for workflow_dispatch, and `sweepgate ci dispatch` (the poller).

Both read the pull request from the GitHub API at the moment they run
(``sweepgate.workflow.pullstate``) and decide with ``sweepgate.workflow.authorize``.
"""

from __future__ import annotations

import sys

from sweepgate.commands import argtypes
from sweepgate.core.github import api_error, add_repository_options
from sweepgate.core.fields import SWEEP_WORKFLOW, short_sha
from sweepgate.workflow.decide import MAIN_REF, Decision, _skip

HINT = "the token needs 'pull-requests: read' and 'issues: read'; check --repository"


def _connect(command: str, explicit: str | None, api_url: str | None, *, resend_posts: bool = True):
    from sweepgate.core.github import connect, credentials

    token, repository = credentials(command, explicit)
    client = connect(token, api_url, resend_posts=resend_posts)
    return client, client.get_repo(repository), repository


def dispatch_decision(event: dict, explicit: str | None, api_url: str | None = None) -> Decision:
    """A workflow_dispatch of run-sweep.yml: inputs pr-number and sha are a request only;
    the PR's current state and who labeled or approved it decide. ``explicit``: --repository."""
    from sweepgate.workflow.authorize import authorize
    from sweepgate.workflow.pullstate import permission_lookup, pull_state

    inputs = event.get("inputs") or {}
    number, sha = str(inputs.get("pr-number") or "").strip(), str(inputs.get("sha") or "").strip()
    mode = str(inputs.get("mode") or "").strip()  # it names the run (run-name), as the poll looks for it
    if event.get("ref") != MAIN_REF:
        return _skip(f"dispatched on {event.get('ref') or 'an unknown ref'}: sweeps start from {MAIN_REF} only")
    if not number or not sha:
        return _skip("workflow_dispatch without pr-number and sha: nothing to sweep")
    if not (number.isascii() and number.isdigit()):
        return _skip(f"workflow_dispatch with pr-number {number!r}, not a PR number: nothing to sweep")
    client, repo, repository = _connect("sweepgate ci decide", explicit, api_url)
    try:
        return authorize(pull_state(repo, int(number)), permission_lookup(repo), requested_sha=sha,
                         requested_mode=mode)
    except Exception as exc:  # noqa: BLE001 - the API's errors become one line, others are raised again
        raise api_error(exc, f"reading PR #{number} of {repository}", HINT, api_url) from None
    finally:
        client.close()


NEWEST_RUNS = 300  # read at least: a closed PR's sweep still running is among them, to be cancelled
DISPATCH_EVENT = "workflow_dispatch"  # the event of the runs the poller makes, and lists


def _runs(repo, workflow, since, repository: str, ref: str, passed_over: dict, wanted: set):
    """The dispatch runs of ``workflow`` (run-sweep.yml) on ``ref`` (--ref), newest first: every one made
    since ``since`` (when the oldest open PR that may run was opened: none has an older sweep, and one
    missed would be dispatched again) and at least the newest NEWEST_RUNS.
    Each run listed is checked to be such a run by its own fields (``github.run_mismatch``: event,
    workflow path, branch, repository and head repository), the filters sent not trusted to have been
    applied, and one titled as a sweep the poll would dispatch (``wanted``) or one it may cancel (a PR's
    sweep not yet ended: ``dispatch.cancellable``, ``dispatch.ACTIVE``) by its commit too, which a branch's own run
    has in the branch's history and a run of a tag of the branch's name may not (``BranchHistory``: one
    compare per commit, only for these few runs, not the hundreds listed): one
    that is not (a ``pull_request`` run, another branch's or workflow's, a fork's, a tag's) is passed
    over, its title never taken for a PR's sweep (which would hold that PR's dispatch back) nor the run
    cancelled, and put in ``passed_over`` (run id -> what of it differs) for the caller to say."""
    from sweepgate.core.branch_history import BranchHistory
    from sweepgate.core.github import COMPLETED, run_mismatch
    from sweepgate.results.source import branch_of
    from sweepgate.workflow.dispatch import GPU_WORKFLOW, Run, cancellable

    branch = branch_of(ref)
    history, out = BranchHistory(branch), []
    for run in workflow.get_runs(event=DISPATCH_EVENT, branch=branch):
        if len(out) >= NEWEST_RUNS and (since is None or run.created_at is None or run.created_at < since):
            break
        listed = Run(run.id, run.display_title or "", run.status or "")
        if listed.title in wanted and listed.status == COMPLETED:  # may a maintainer have asked for it again
            listed = Run(listed.id, listed.title, listed.status, run.conclusion or "", run.updated_at)
        if mismatch := (run_mismatch(run, repository, GPU_WORKFLOW, event=DISPATCH_EVENT, branch=branch,
                                     succeeded=False)
                        or (history.mismatch(repo, run.head_sha)
                            if listed.title in wanted or cancellable(listed) else "")):
            passed_over.setdefault(run.id, mismatch)
            continue
        out.append(listed)
    return out


def _passed_over(passed_over: dict, repository: str, ref: str, api_url: str | None) -> list:
    """The one warning line saying which runs the API listed as ``ref``'s dispatch runs of run-sweep.yml
    that are not (``_runs``), at the API's URL: none was taken for a PR's sweep or cancelled."""
    from sweepgate.core import github
    from sweepgate.core.branch_history import passed_over_hint
    from sweepgate.core.errors import Diagnostic
    from sweepgate.results.source import branch_of

    if not passed_over:
        return []
    listed_as = f"{DISPATCH_EVENT} runs of {repository}'s {SWEEP_WORKFLOW} on {branch_of(ref)}"
    one = len(passed_over) == 1
    return [Diagnostic(github.api_url(api_url), rule="dispatch-run-mismatch", severity="warning",
                       message=f"warning: {github.passed_over_runs(passed_over, listed_as)}; "
                               f"{'it was' if one else 'they were'} neither taken for a PR's sweep nor cancelled",
                       hint=passed_over_hint(passed_over, branch_of(ref), github.PASSED_OVER_HINT))]


def _decisions(repo, repository: str, api_url: str | None) -> tuple[dict[str, Decision], list, object, set, dict]:
    """Each open PR's decision, keyed by number, the problems, when the oldest PR that may run was
    opened (only such a PR is dispatched again when its sweep is missed; a long-open draft or unlabelled
    PR would have every poll page through months of runs, past the token's hourly rate limit), and the
    PRs that could not be read, and when each PR was last asked for a sweep (``authorize.requested_at``).
    A PR whose labels ask for two sweeps at once is a problem of its own and a skip; a PR the API
    answered with an error for (a 5xx, a 404 as it closes) is a problem and unknown: nothing is
    dispatched or cancelled for it this poll. Neither holds up any other PR's dispatch or cancel.
    A rate limit, no connection or no answer in time stops the poll (every other read would fail
    the same way, each after its retries)."""
    from github import GithubException

    from sweepgate.core.errors import SweepgateError
    from sweepgate.core.github import rate_limited
    from sweepgate.workflow.authorize import authorize, requested_at
    from sweepgate.workflow.pullstate import permission_lookup, pull_state

    permission = permission_lookup(repo)
    decisions, problems, oldest, unknown, requested = {}, [], None, set(), {}
    for p in repo.get_pulls(state="open"):
        try:
            state = pull_state(repo, p.number)
            decisions[str(p.number)] = authorize(state, permission, source=f"{repository}#{p.number}")
            requested[str(p.number)] = requested_at(state, permission)
        except SweepgateError as exc:
            problems += exc.diagnostics
            decisions[str(p.number)] = _skip("; ".join(d.message for d in exc.diagnostics))
        except Exception as exc:  # noqa: BLE001 (api_error raises again what is no API answer)
            if rate_limited(exc) or not isinstance(exc, GithubException):  # no answer at all: the API is down
                raise
            problems += api_error(exc, f"reading {repository}#{p.number}; it is left alone this poll",
                                  HINT, api_url).diagnostics
            unknown.add(str(p.number))
            continue
        if decisions[str(p.number)].run and p.created_at is not None:
            oldest = p.created_at if oldest is None else min(oldest, p.created_at)
    return decisions, problems, oldest, unknown, requested


def run_dispatch(args) -> int:
    """Poll open PRs; dispatch and cancel GPU sweeps (see sweepgate.workflow.dispatch)."""
    from sweepgate.core.errors import emit
    from sweepgate.workflow.dispatch import GPU_WORKFLOW, plan, run_title

    # A dispatch answered 5xx (or not at all) may have started the sweep: sent again, it would start a
    # second one on the same GPUs. It is not; the next poll sees the run it made, or dispatches it then.
    client, repo, repository = _connect("sweepgate ci dispatch", args.repository, args.github_api_url,
                                        resend_posts=False)
    try:
        decisions, problems, oldest, unknown, requested = _decisions(repo, repository, args.github_api_url)
        emit(problems)
        workflow = repo.get_workflow(GPU_WORKFLOW)
        passed_over: dict = {}
        wanted = {run_title(pr, d.head_ref, d.mode) for pr, d in decisions.items() if d.run}
        runs = _runs(repo, workflow, oldest, repository, args.ref, passed_over, wanted)
        emit(_passed_over(passed_over, repository, args.ref, args.github_api_url))
        actions = plan(decisions, runs, unknown, {pr: at for pr, at in requested.items() if at is not None})
        failed = _carry_out(actions, args, client, repo, workflow, repository)
        emit(failed)
        unread = f" ({len(unknown)} not read)" if unknown else ""
        print(f"sweepgate ci dispatch: {len(decisions) + len(unknown)} open PRs{unread}, {len(actions)} actions",
              file=sys.stderr)
        return 1 if problems or failed else 0
    except Exception as exc:  # noqa: BLE001
        raise api_error(exc, f"polling {repository}", DISPATCH_TOKEN_HINT, args.github_api_url) from None
    finally:
        client.close()


DISPATCH_TOKEN_HINT = ("the token needs 'actions: write', 'pull-requests: read', 'issues: read' and 'contents: read' "
                       "(a sweep's run is checked to be of a commit in main's history)")


def _carry_out(actions, args, client, repo, workflow, repository: str) -> list:
    """Dispatch and cancel, each action on its own: one refused (a 422, a 5xx, a run gone) is one
    line, and the other PRs' actions are still carried out; a rate limit stops the rest (each would
    be refused the same way), for the next poll to do."""
    from sweepgate.core.github import rate_limited
    from sweepgate.results.source import branch_ref

    failed = []
    for a in actions:
        print(f"sweepgate ci dispatch: {a.kind} PR #{a.pr} {short_sha(a.sha)} {a.mode}: {a.reason}", file=sys.stderr)
        if args.dry_run:
            continue
        try:
            if a.kind == "dispatch":
                # the full ref: a tag of the branch's name would make the short one ambiguous, and a
                # dispatch GitHub took for the tag runs the tag's run-sweep.yml (its decide skips it)
                workflow.create_dispatch(branch_ref(args.ref), {"pr-number": a.pr, "sha": a.sha, "mode": a.mode}, throw=True)
            else:  # POST /repos/{o}/{r}/actions/runs/{id}/cancel
                client.requester.requestJsonAndCheck("POST", f"{repo.url}/actions/runs/{a.run_id}/cancel")
        except Exception as exc:  # noqa: BLE001 (api_error raises again what is no API answer)
            failed += api_error(exc, f"on {repository}#{a.pr} ({a.kind})", DISPATCH_TOKEN_HINT,
                                args.github_api_url).diagnostics
            if rate_limited(exc):
                break
    return failed


def dispatch_branch(text: str) -> str:
    """The argparse type of ``ci dispatch --ref``: a branch, ``main`` or ``refs/heads/main``, as its name
    (what GitHub's workflow-runs ``branch`` filter takes and a run's ``head_branch`` says; the dispatch
    itself names the full ``refs/heads/NAME``, ``_carry_out``). A
    tag or any other ref is refused: its runs would be listed under no branch, and run-sweep.yml's decide
    skips a sweep dispatched anywhere but MAIN_REF."""
    import argparse

    from sweepgate.results.source import branch_of, not_a_branch

    text = argtypes.not_empty(text).strip()
    if what := not_a_branch(text):
        raise argparse.ArgumentTypeError(f"'{text}' {what}; pass a branch name, {branch_of(MAIN_REF)} "
                                         f"({SWEEP_WORKFLOW} runs a sweep dispatched on {MAIN_REF} only)")
    return branch_of(text)


def add_dispatch_parser(sub) -> None:
    p = sub.add_parser("dispatch", help="poll open PRs: dispatch authorized GPU sweeps, cancel stale ones")
    add_repository_options(p)
    p.add_argument("--ref", type=dispatch_branch, default=MAIN_REF, metavar="BRANCH",  # argparse types it too: main
                   help=f"branch whose {SWEEP_WORKFLOW} is dispatched, NAME or refs/heads/NAME; a tag or another "
                   f"ref is refused (default {MAIN_REF})")
    p.add_argument("--dry-run", action="store_true", help="print the plan, change nothing")
    p.set_defaults(_ci=run_dispatch)
