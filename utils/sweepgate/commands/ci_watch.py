"""`sweepgate ci watch`: the fail-fast watchdog of run-sweep.yml.

Polls the jobs of this run attempt through the GitHub REST API and cancels the run at the first
failed job (``sweepgate.workflow.watch.judge`` decides), so one broken row stops every chunk, not
only the jobs of its own matrix. It runs in a GitHub-hosted job that holds the run's only
``actions: write`` token; the benchmark jobs on the GPU hosts keep read-only tokens.
"""

from __future__ import annotations

import os
import sys
import time

from sweepgate.commands import argtypes
from sweepgate.core.errors import fail
from sweepgate.core.github import PER_PAGE, NotGitHubJSON, add_repository_options, json_object
from sweepgate.workflow.watch import CANCEL, DONE, judge

HINT = "the token needs 'actions: write' (cancel) and 'actions: read' (jobs); check --repository"


def _jobs(requester, repository: str, run_id: str, attempt: str) -> list[dict]:
    """Every job of the attempt, all pages (GitHub answers at most 100 a page)."""
    url = f"/repos/{repository}/actions/runs/{run_id}/attempts/{attempt}/jobs"
    jobs: list[dict] = []
    page = 1
    while True:
        _, data = requester.requestJsonAndCheck("GET", url, parameters={"per_page": PER_PAGE, "page": page})
        data = json_object(data)
        batch, total = data.get("jobs"), data.get("total_count")
        if not (isinstance(batch, list) and all(isinstance(j, dict) for j in batch)):
            raise NotGitHubJSON("a 'jobs' that is not a list of job objects")
        if not (isinstance(total, int) and not isinstance(total, bool)):
            raise NotGitHubJSON(f"a 'total_count' {str(total)[:20]!r} that is not a count")
        jobs += batch
        if len(batch) < PER_PAGE or len(jobs) >= total:
            return jobs
        page += 1


def _watch(requester, args, run_id: str, attempt: str) -> int:
    deadline = time.monotonic() + args.max_minutes * 60
    while True:
        jobs = _for_now(args, run_id, lambda: _jobs(requester, args.repository, run_id, attempt))
        verdict = judge(jobs, args.until) if jobs is not None else None
        if verdict is not None:
            print(f"sweepgate ci watch: run {run_id} attempt {attempt}: {verdict.action}: {verdict.reason}",
                  file=sys.stderr)
        if verdict is not None and verdict.action == CANCEL:
            cancel = f"/repos/{args.repository}/actions/runs/{run_id}/cancel"
            if _for_now(args, run_id, lambda: requester.requestJsonAndCheck("POST", cancel)) is not None:
                _summary(f"**fail-fast:** cancelled the sweep: {verdict.reason}\n")
                return 0
        if verdict is not None and verdict.action == DONE:
            return 0
        if time.monotonic() + args.interval > deadline:
            print(f"sweepgate ci watch: stopped watching after {args.max_minutes:g} minutes; "
                  "later failures no longer cancel the run", file=sys.stderr)
            return 0
        time.sleep(args.interval)


def _for_now(args, run_id: str, call):
    """``call()``'s answer, or None when the API cannot answer it for now (a rate limit, a 5xx, no
    answer in time): said in one line, and asked again at the next poll, for the watchdog that gave
    up on one passing failure let every later failed job run on. A refusal (401, 403, 404) is raised."""
    from sweepgate.core.github import api_error, transient

    try:
        return call()
    except Exception as exc:  # noqa: BLE001 - api_error raises again what is no API answer
        if not transient(exc):
            raise
        problem = api_error(exc, f"watching run {run_id} of {args.repository}", HINT, args.github_api_url)
        print(f"{problem.diagnostics[0].render()}; asking again at the next poll", file=sys.stderr)
        return None


def _summary(text: str) -> None:
    from sweepgate.core.github import step_summary_path

    path = step_summary_path()  # checked when the watch began (run_watch)
    if path:
        from sweepgate.core.atomic import append_text

        append_text(path, text)


def run_watch(args) -> int:
    from sweepgate.core.github import RUN_ID_VARIABLE, api_error, connect, credentials, step_summary_path

    step_summary_path()  # a '-' is refused now, not at the first line the watch would append
    run_id = argtypes.flag_or_variable(args, "--run-id", args.run_id, RUN_ID_VARIABLE, _RUN_ID_FIX)
    attempt = args.attempt or os.environ.get("GITHUB_RUN_ATTEMPT", "") or "1"
    if not (run_id + attempt).isascii() or not run_id.isdigit() or not attempt.isdigit():  # `²` is isdigit()
        raise fail("sweepgate ci watch", 0, f"run id '{run_id}' / attempt '{attempt}' is not a number",
                   "run under GitHub Actions or pass --run-id and --attempt")
    token, args.repository = credentials("sweepgate ci watch", args.repository)
    client = connect(token, args.github_api_url)
    try:
        return _watch(client.requester, args, run_id, attempt)
    except Exception as exc:  # noqa: BLE001 - the API's errors become one line, others are raised again
        raise api_error(exc, f"watching run {run_id} of {args.repository}", HINT, args.github_api_url) from None
    finally:
        client.close()


_RUN_ID_FIX = "pass --run-id ID, the run to watch"


def _watch_problems(args) -> list[str]:
    """The run to watch, missing, said with --until missing (cli.argument_problems)."""
    from sweepgate.core.github import RUN_ID_VARIABLE

    problem = argtypes.variable_missing("--run-id", args.run_id, RUN_ID_VARIABLE, _RUN_ID_FIX)
    return [problem] if problem else []


def add_watch_parser(sub) -> None:
    p = sub.add_parser("watch", help="fail-fast: cancel this run at the first failed job")
    p.add_argument("--until", required=True, type=argtypes.not_empty, metavar="JOB", help="stop watching once the job of this name "
                   "exists (the collect job, which starts after every benchmark job ended)")
    add_repository_options(p)
    p.add_argument("--run-id", type=argtypes.digits, help="the run to watch (default: $GITHUB_RUN_ID)")
    p.add_argument("--attempt", type=argtypes.digits, help="its attempt (default: $GITHUB_RUN_ATTEMPT)")
    p.add_argument("--interval", type=argtypes.number_above(0), default=60.0,
                   help="seconds between polls (default 60)")
    p.add_argument("--max-minutes", type=argtypes.number_above(0), default=340.0, help="stop watching after this long "
                   "(default 340: a GitHub-hosted job ends at 360)")
    p.set_defaults(_ci=run_watch, _argument_problems=_watch_problems)
