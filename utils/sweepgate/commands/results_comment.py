"""`sweepgate results comment`: post a `results compare --comment-file` report as the PR's results comment.

Kept apart from `compare` so the one workflow job that may write to pull requests
does nothing else: it reads one markdown file and calls ``core.github.upsert_comment``,
which edits only the comment the token's own account wrote (one per PR) or creates it.
"""

from __future__ import annotations

from sweepgate.commands import argtypes
from sweepgate.core.errors import fail, os_failure
from sweepgate.core.github import add_repository_options
from sweepgate.core.report import say

# How to mend a --body that is not the report (cannot be read, or holds something else)
WRITTEN_BY_COMPARE = "pass the file `results compare --comment-file` wrote"
COMMENT_RULE = "results-comment"  # the title of a comment body that is not one compare wrote for this PR


def add_arguments(parser) -> None:
    parser.add_argument("--body", required=True, metavar="PATH", type=argtypes.not_empty,
                        help="the report `sweepgate results compare --comment-file PATH` wrote")
    parser.add_argument("--pr-number", metavar="N", type=argtypes.pull_request, required=True, help="pull request to comment on")
    parser.add_argument("--note", metavar="PATH", type=argtypes.not_empty, default=None,
                        help="a paragraph to post at the top of the report, under its first two lines (`ci collect "
                        "--note`: a cancelled sweep and the jobs whose results were kept)")
    add_repository_options(parser)


def run(args) -> int:
    from sweepgate.core import github
    from sweepgate.results.render import MARKER

    try:
        with open(args.body, encoding="utf-8") as fh:
            body = fh.read()
    except OSError as exc:  # a link to nothing or in a loop: the link's fix, as every flag's read says it
        raise os_failure(args.body, "cannot read the report", exc, WRITTEN_BY_COMPARE) from None
    except UnicodeDecodeError as exc:
        raise fail(args.body, 0, f"cannot read the report: {exc}", WRITTEN_BY_COMPARE) from None
    if not body.startswith(MARKER):
        raise fail(args.body, 1, "not a sweepgate results report (no results marker on the first line)",
                   WRITTEN_BY_COMPARE)
    unchecked = _check_the_pr(args.body, body, args.pr_number)
    if args.note:
        body = _with_note(body, _read(args.note, "cannot read the note", "pass the file `ci collect --note` wrote"))
    # The report is checked first: what it says is bad wants no token to be told (a typo in
    # --pr-number on a machine without one read "set GITHUB_TOKEN", then the mismatch after it).
    token, repository = github.credentials("sweepgate results comment", args.repository)
    action, cid = github.upsert_comment(repository, args.pr_number, body, token,
                                        base_url=args.github_api_url, marker=MARKER)
    if unchecked:  # names the report's run: its text, written so (``say``)
        say(unchecked)
    say(f"sweepgate results comment: {action} comment {cid} on {repository}#{args.pr_number}")
    return 0


def _read(path: str, what: str, fix: str) -> str:
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except OSError as exc:
        raise os_failure(path, what, exc, fix) from None
    except UnicodeDecodeError as exc:
        raise fail(path, 0, f"{what}: {exc}", fix) from None


def _with_note(body: str, note: str) -> str:
    """The report with ``note`` under its marker and the line naming its PR and run (which must stay lines 1
    and 2, where the comment is found and checked), a blank line either side."""
    lines = body.splitlines(keepends=True)
    head, rest = "".join(lines[:2]), "".join(lines[2:])
    if head and not head.endswith("\n"):
        head += "\n"
    return f"{head}\n{note.strip()}\n\n{rest.lstrip(chr(10))}"


def _check_the_pr(path: str, body: str, asked: int) -> str | None:
    """A report names the PR it is about (``render.about_line``; compare writes it): posting it on another
    PR (a typo in --pr-number, another run's artifact) is refused. One that names none (hand-written,
    an older sweepgate's, a run on no PR) is posted: the note saying it could not be checked is returned."""
    from sweepgate.results.render import about_of

    try:
        about = about_of(body)
    except ValueError:
        raise fail(path, 2, "the line naming the report's pull request and run is not as `results compare` "
                   "writes it, so it cannot be checked", "write the report again with `results compare "
                   "--comment-file`, or delete line 2 to post it unchecked", rule=COMMENT_RULE) from None
    named, run = about if about else (None, None)
    if named is None:
        what = f"run {run}" if run is not None else "no run"
        return f"{path}: note: the report names no pull request ({what}); posted on PR {asked} unchecked"
    if named != asked:
        raise fail(path, 2, f"the report is about PR {named} (run {run}), not PR {asked} (--pr-number {asked})",
                   f"post it with --pr-number {named}, or pass the report `results compare --run RUN-ID "
                   f"--comment-file PATH` wrote for PR {asked}", rule=COMMENT_RULE)
    return None
