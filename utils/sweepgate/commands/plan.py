"""`sweepgate plan`: what a PR will run, what it costs, and what it forgot.

Parses the flags, calls ``core.plan.make_plan`` and writes the plan: JSON
(``--json``, CONTRACTS section 4), markdown (``--markdown`` and the step summary)
or a short text summary; optionally one PR comment, updated in place.
"""

from __future__ import annotations

import argparse
import json
import sys

from sweepgate.commands import argtypes
from sweepgate.core.errors import Diagnostic
from sweepgate.core import fields as F
from sweepgate.core import github
from sweepgate.core.github import STEP_SUMMARY_VARIABLE, add_repository_options
from sweepgate.core.plan import make_plan



def add_arguments(parser: argparse.ArgumentParser) -> None:
    from sweepgate.commands import matrix

    matrix.add_arguments(parser)  # the same flags as the matrix step it plans
    fmt = parser.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print the plan as JSON (CONTRACTS §4)")
    fmt.add_argument("--markdown", action="store_true", help="print the plan as markdown")
    parser.add_argument("--step-summary", type=argtypes.output_file, metavar="PATH", default=None,
                        action=argtypes.Passed,  # left out: $GITHUB_STEP_SUMMARY, read by run
                        help="append the markdown plan to this file (default: $GITHUB_STEP_SUMMARY)")
    parser.add_argument("--comment", action="store_true",
                        help="create or update the plan comment on the PR (needs a token and --pr-number)")
    parser.add_argument("--pr-number", metavar="N", type=argtypes.pull_request, default=None, help="pull request to comment on")
    add_repository_options(parser)
    parser.add_argument("--db", default=None, metavar="URL", type=argtypes.not_empty,
                        help="results database: name the rows whose run identity it already measured (on a "
                             "push, the rows `ci reuse` will skip; on a PR, what main already has) and the "
                             "GPU-hours they save")
    parser.add_argument("--fail-on-warning", action="store_true",
                        help="exit 3 when the plan has warning-severity findings (after printing the plan)")


def run(args) -> int:
    from sweepgate.commands.matrix import options
    from sweepgate.core.load import open_repo
    from sweepgate.core.outpaths import writable_file

    given = argtypes.environment_default(args, "step_summary", STEP_SUMMARY_VARIABLE)
    if args.step_summary:  # before any work, as compare's: a bad one is one line, no plan printed
        writable_file(args.step_summary, "--step-summary", given)
    git = open_repo()
    argtypes.resolve_refs(git, args)
    plan = make_plan(git, args.base_ref, args.head_ref, options(args))
    add_warnings(plan, fanout_limit(plan["matrix"], args.changelog_file))
    if args.db:
        plan["reuse"] = reuse_preview(git, plan, args.db)
        print(f"sweepgate plan: {plan['reuse']['summary']}", file=sys.stderr)
        for line in plan["reuse"]["no_identity"] + plan["reuse"]["moving_image"]:
            print(f"sweepgate plan: {line}", file=sys.stderr)

    from sweepgate.core import report

    diagnostics = [Diagnostic(w["file"], w["line"], w.get("col", 0), w["rule"], w["message"],
                              w.get("hint", ""), w.get("severity", "warning")) for w in plan["warnings"]]
    # a reader who leaves (`| head -1`) ends the printing, not the warnings, summary, comment or exit 3
    # (cli.ReaderMayLeave)
    _print(plan, args)
    sys.stdout.flush()  # the plan before the warnings, and before a comment is posted
    report.emit(diagnostics)  # stderr, annotations included: stdout stays the plan
    from sweepgate.core.errors import EXIT_FAIL_ON, written_past_the_gate

    tripped = bool(args.fail_on_warning and [d for d in diagnostics if d.severity in ("warning", "error")])
    if args.step_summary:
        written_past_the_gate(tripped, lambda: write_step_summary(args.step_summary, plan))
    if args.comment:
        written_past_the_gate(tripped, lambda: post_comment(plan, args))
    return EXIT_FAIL_ON if tripped else 0


def _print(plan: dict, args) -> None:
    """The plan on stdout, as --json, --markdown or the terminal's table."""
    from sweepgate.core import report

    if args.json:
        sys.stdout.write(json.dumps(plan) + "\n")
    elif args.markdown:
        sys.stdout.write(report.plan_markdown(plan, limit=github.STEP_SUMMARY_LIMIT))
    else:
        report.print_plan(sys.stdout, plan)


def fanout_limit(matrix: dict, changelog: str) -> list[Diagnostic]:
    """Rule ``fanout-limit``: a sweep `ci split` will refuse, because run-sweep.yml's fan-out jobs
    (256 jobs each, GitHub's matrix limit) or GitHub's 1 MB of job outputs cannot hold it. Said in
    the plan, on the PR, before the GPU side's split refuses the whole sweep."""
    from sweepgate.core.errors import SweepgateError
    from sweepgate.workflow.fanout import split

    try:
        split(matrix)
    except SweepgateError as exc:
        return [Diagnostic(changelog, 0, 0, "fanout-limit", f"`ci split` will refuse this sweep: {d.message}",
                           d.hint, "warning") for d in exc.diagnostics if d.rule == "ci-fanout"]
    return []


def add_warnings(plan: dict, found: list[Diagnostic]) -> None:
    """Merge ``found`` into the plan's warnings, keeping them ordered by severity (errors first)."""
    from sweepgate.core.plan import severity_rank

    merged = plan["warnings"] + [d.as_dict() for d in found]
    plan["warnings"] = sorted(merged, key=lambda w: severity_rank(w.get("severity")))


def reuse_preview(git, plan: dict, db: str) -> dict:
    """The rows of the plan's matrix whose run identity the store already measured (CONTRACTS section 9)."""
    from sweepgate.core.select import iter_rows
    from sweepgate.results import reuse
    from sweepgate.results.store import missing_sqlite, open_store, resolve_url, store_named

    if missing := missing_sqlite(resolve_url(db)):
        # Nothing to reuse, and no empty store made (as `ci reuse`): a mistyped --db would read as
        # "no results" for ever.
        jobs = sum(1 for _ in iter_rows(plan["matrix"]))
        return {"jobs": 0, "of": jobs, "gpu_hours_saved": 0, F.LOWER_BOUND: False, "rows": [], "no_identity": [],
                "moving_image": [],
                "summary": f"no results store at {store_named(missing)}: nothing to reuse (0 of {jobs} jobs)"}
    with open_store(db) as store:
        found = reuse.find(plan["matrix"], git, git.resolve(plan[F.HEAD_REF]), store)
    rows = [{"bucket": bucket, F.EXP_NAME: row.get(F.EXP_NAME), F.CONC: row.get(F.CONC),
             F.RUNNER: row.get(F.RUNNER)} for bucket, row, _ in found.reused]
    return {"jobs": len(rows), "of": len(found.rows), "gpu_hours_saved": found.gpu_hours_saved,
            F.LOWER_BOUND: found.lower_bound, "rows": rows, "no_identity": found.blind_lines(),
            "moving_image": found.moving_lines(),
            "summary": f"{len(rows)} of {len(found.rows)} jobs already have results "
                       f"({found.saved()} GPU-hours saved by reusing them)"}


def write_step_summary(path: str, plan: dict) -> None:
    """Append the markdown plan; the whole step summary stays within GitHub's limit."""
    from sweepgate.core import report

    room = github.step_summary_room(path)
    if room < 512:
        print(f"sweepgate plan: {path} is full ({github.STEP_SUMMARY_LIMIT - room} bytes); not adding the plan",
              file=sys.stderr)
        return
    github.append_step_summary(path, report.plan_markdown(plan, limit=room))


def post_comment(plan: dict, args) -> None:
    from sweepgate.core import github, report

    github.comment_if_configured(
        "sweepgate plan", args.repository, args.pr_number,
        lambda: report.plan_markdown(plan, limit=github.COMMENT_LIMIT, marker=github.PLAN_MARKER, unit="chars"),
        base_url=args.github_api_url, marker=github.PLAN_MARKER)
