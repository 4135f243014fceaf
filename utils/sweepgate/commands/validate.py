"""`sweepgate validate` / utils/validate_perf_changelog.py: the perf-changelog gate.

Parses the flags and calls ``core.gate.validate``; the rules live in
``core.gate`` (file, separator and entry rules), ``core.history`` (byte-exact
history) and ``core.prlinks``. Prints every problem as
``perf-changelog.yaml:LINE: what; how to fix`` and exits 1, or one ok line.
"""

from __future__ import annotations

import argparse
import sys

from sweepgate.commands import argtypes
from sweepgate.core import fields as F
from sweepgate.core.errors import emit, shown_path
from sweepgate.core.gate import (COPIED_ENTRY_RULE, FINAL_NEWLINE_RULE, REPEATED_KEY_RULE, SEPARATOR_RULE,
                                 WHITESPACE_LINE_RULE, GateOptions, validate)
from sweepgate.core.report import count
from sweepgate.core.github import owner_name
from sweepgate.core.history import corrects
from sweepgate.core.prlinks import PR_LINK


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--base-ref", type=argtypes.not_empty,
                        help="revision the change starts from (with --staged: default is the merge-base of HEAD "
                             "with origin/main, main, origin/master, master or the branch a remote's HEAD names, "
                             "else HEAD where there is no remote (before a first commit, the empty history); "
                             "refused in a shallow or single-branch clone with none of them)")
    parser.add_argument("--head-ref", type=argtypes.not_empty,
                        help="revision with the appended entries (required unless --staged)")
    argtypes.add_changelog_file_argument(parser)
    parser.add_argument("--pr-number", metavar="N", type=argtypes.pull_request_or_none, default=None,
                        help="the pull request: its pr-link (or .../pull/XXX) is required; "
                             "without it (push to main) links must be canonical")
    parser.add_argument("--repository", type=owner_name, default=None,
                        help="OWNER/NAME for pr-links (default: $GITHUB_REPOSITORY, else the repository "
                             "most existing pr-links point to)")
    parser.add_argument("--all-evals", action="store_true", help="as process_changelog.py --all-evals")
    parser.add_argument("--evals-only", action="store_true", help="as process_changelog.py --evals-only")
    parser.add_argument("--staged", "--worktree", dest="staged", action="store_true",
                        help="validate the working-tree changelog (what pre-commit is about to commit); "
                             "pr-links may keep the XXX placeholder")
    parser.add_argument("--github-output", action="store_true",
                        help="on success, append 'entries=N' and 'matrix=true|false' (whether the matrix "
                             "step has entries to expand) to $GITHUB_OUTPUT (else stdout), so a workflow "
                             "runs the matrix only when the changelog gained entries")


# The refusals an existing changelog imported by a first commit earns against the empty history before it: its
# own layout (empty lines, whitespace lines, its last newline), entries repeated or mixed, links since refused
IMPORT_RULES = frozenset({SEPARATOR_RULE, WHITESPACE_LINE_RULE, FINAL_NEWLINE_RULE, COPIED_ENTRY_RULE,
                          REPEATED_KEY_RULE, F.APPEND_ONLY_MIXED_RULE, PR_LINK})


def _write_outputs(outcome) -> None:
    import os

    from sweepgate.core.atomic import append_text
    from sweepgate.workflow.kv import format_kv

    text = format_kv({"entries": str(outcome.appended_entries),
                      "matrix": "true" if outcome.appended_entries else "false"})
    path = os.environ.get("GITHUB_OUTPUT")
    if path:
        append_text(path, text)
    else:
        sys.stdout.write(text)


def _staged_base(git) -> str:
    """Where --staged's history ends (``upstream.staged_base``, which `changelog add` asks too); refused at
    --base-ref where there is none to fetch, the flag named as the other way out."""
    from sweepgate.core.upstream import staged_base

    return staged_base(git, "--base-ref", "pass --base-ref (args: [--base-ref, {ref}] in "
                       ".pre-commit-config.yaml)")


def _after_upstream(git, args, base: str) -> str:
    """Where --staged's history ended when nothing is appended after it (its upstream's merge-base): a branch whose
    entry that upstream already holds reads "no entry appended", and says against what; nothing where the user named
    the base (--base-ref) or there is no upstream (HEAD, the empty history)."""
    from sweepgate.core.upstream import upstream_named

    named = upstream_named(git) if args.staged and not args.base_ref else None
    return f" after the merge-base with {named[0]}, {named[1][:12]}" if named and named[1] == base else ""


def _imported(problems: list) -> bool:
    """Whether refusals before a first commit are those an imported changelog causes, checked against the empty
    history (``IMPORT_RULES``: its layout, copied or mixed entries, old pr-links), and none an entry's own mistake
    (schema, YAML, a file's bytes: every other rule). A key naming no config is either (an old entry's config
    since removed, or a typo): it neither brings the way out nor keeps it away; nor does a warning."""
    from sweepgate.core.keypatterns import UNKNOWN_CONFIG_KEY

    errors = [d.rule for d in problems if d.severity != "warning" and d.rule != UNKNOWN_CONFIG_KEY]
    return bool(errors) and all(rule in IMPORT_RULES for rule in errors)


def _base_label(git, args, base: str) -> str:
    """BASE as the author knows it: the --base-ref given, else (--staged) the upstream whose merge-base it is, else
    its commit, short."""
    from sweepgate.core.upstream import upstream_named

    if args.base_ref:
        return F.short_sha(args.base_ref)
    named = upstream_named(git)
    return named[0] if named and named[1] == base else F.short_sha(base)


def _also_on(d, label: str):
    """``d`` with `` (also on LABEL)`` at the end of its line (its fix's, else its message's): the problem is
    BASE's too, so not this change's doing; still reported, and still refused."""
    from sweepgate.core.errors import Diagnostic

    suffix = f" (also on {label})"
    message, hint = (d.message, d.hint + suffix) if d.hint else (d.message + suffix, d.hint)
    return Diagnostic(d.file, d.line, d.col, d.rule, message, hint, d.severity, in_file=d.in_file)


def _refused(git, args, changelog: str, problems: list, on_base: list | None = None, base: str = "") -> int:
    """Print every problem (stderr) and each file's total (stdout); exit 1. ``on_base``: those BASE has too, each
    marked on its line, and one stdout line counts them (None: BASE's were not asked). Before a first commit,
    checked against the empty history, one more stdout line gives the way out for importing an existing
    changelog."""
    from collections import Counter

    from sweepgate.core.collector import problems_in

    label = _base_label(git, args, base) if on_base is not None else ""
    old = set(map(id, on_base or ()))
    emit([_also_on(d, label) if id(d) in old else d for d in problems])
    # Each file's total under its own name, on stdout: stderr holds one line per problem and
    # nothing else (CONTRACTS §2), for the tools that count or match them.
    for file in Counter(d.file for d in problems):
        n = problems_in(d for d in problems if d.file == file)  # a capped rule's "N more" line counts N
        print(f"{shown_path(file)}: {n} problem{'s' if n != 1 else ''}; "
              f"fix {'them' if n != 1 else 'it'} and rerun")
    if on_base is not None:
        total, known = problems_in(problems), len(on_base)
        print(f"{known} of {count(total, 'problem')} {'was' if known == 1 else 'were'} already on "
              f"{label}; {total - known} {'is' if total - known == 1 else 'are'} new")
    if args.staged and not args.base_ref and _imported(problems) and not git.commit_of("HEAD"):
        # docs/changelog-rules.md, *pre-commit*
        print(f"{shown_path(changelog)}: checked as this repository's first commit, against the empty history before it, "
              "so every entry is new; a first commit that imports an existing changelog is no change to gate: "
              "make it with git commit --no-verify")
    return 1


def argument_problems(args) -> list[str]:
    """The flags' problems, said together before the repository is looked for (cli.argument_problems)."""
    if args.staged and args.head_ref:
        return [argtypes.combination("--head-ref", "not allowed with argument --staged (which validates the "
                                     "working tree)", "drop --head-ref, or drop --staged")]
    given = (args.base_ref, args.head_ref)
    if not args.staged and None in given:  # an empty one is refused as matrix and plan refuse it
        # The same exit (2, argparse's usage line) as matrix and plan, whose flags are required.
        # Only the flags not given, as argparse names them (s47h: --base-ref given was named missing too).
        missing = ", ".join(flag for flag, value in zip(("--base-ref", "--head-ref"), given) if value is None)
        return [f"the following arguments are required: {missing} (or --staged to check the working tree)"]
    return []


def run(args) -> int:
    from sweepgate.core.load import open_repo

    given = (args.base_ref, args.head_ref)
    git = open_repo(refs=() if args.staged or None in given else given)
    base = (args.base_ref or _staged_base(git)) if args.staged else args.base_ref
    argtypes.resolve_refs(git, args)
    opts = GateOptions(changelog=args.changelog_file, pr_number=args.pr_number, repository=args.repository,
                       all_evals=args.all_evals, evals_only=args.evals_only, worktree=args.staged)
    outcome = validate(git, base, args.head_ref, opts)
    problems = outcome.all()
    if problems:
        return _refused(git, args, opts.changelog, problems, outcome.on_base, base)
    if outcome.appended_entries:
        what = f"{outcome.appended_entries} appended entr{'ies' if outcome.appended_entries != 1 else 'y'}"
    elif outcome.corrections:
        what = f"{corrects(base for base, _ in outcome.corrections)}, nothing to run"
    else:
        # The one outcome where validate and matrix differ on purpose: matrix refuses a change
        # that appends nothing (CONTRACTS section 1), the gate accepts it (a code-only PR).
        what = f"no entry appended{_after_upstream(git, args, base)}, nothing to run"
    if outcome.inputs:
        what += f"; {count(len(outcome.inputs), 'changed config file')} checked"
    if args.github_output:
        _write_outputs(outcome)
    emit(outcome.notes)  # warnings that pass: a PR's pull/XXX link, which the push to main refuses
    print(f"{shown_path(opts.changelog)}: ok ({what})")
    return 0
