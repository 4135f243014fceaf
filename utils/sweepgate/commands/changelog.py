"""`sweepgate changelog add|rebase|canonicalize`: write and merge perf-changelog entries.

The flags are declared here; the edits themselves (history bytes untouched, atomic
writes) live in ``sweepgate.core.changelog_edit``.
"""

from __future__ import annotations

import argparse
import sys

from sweepgate.commands import argtypes
from sweepgate.core import fields as F
from sweepgate.core.github import owner_name


def _git():
    from sweepgate.core.load import open_repo
    return open_repo()


def _written(edit) -> int:
    """Run ``edit(committing)``, which ends in renaming the file into place, and print its report.
    A Ctrl-C or SIGTERM before the rename stops it (the file as it was); one after it is too late
    to undo anything: the report still says what was written, and the command exits 0 (read as
    'interrupted', the entry was added again by the rerun)."""
    from sweepgate.core.signals import SignalsHeld

    with SignalsHeld() as held:
        result = edit(held.defer)
        for line in result.report:
            print(line)
        if held.forgive() is not None:
            print("sweepgate: interrupted after the file was written: the change above is made; do not "
                  "run the command again", file=sys.stderr)
    return 0


def cmd_add(args) -> int:
    from sweepgate.core.changelog_edit import add_entry

    return _written(lambda committing: add_entry(
        _git(), args.changelog_file, args.key, args.description, scenario_types=args.scenario_type,
        evals_only=args.evals_only, all_evals=args.all_evals, pr_number=args.pr_number,
        repository=args.repository, warn=lambda message: print(message, file=sys.stderr), committing=committing))


def cmd_rebase(args) -> int:
    from sweepgate.core.changelog_edit import rebase

    return _written(lambda committing: rebase(_git(), args.changelog_file, args.onto, args.branch, committing))


def cmd_canonicalize(args) -> int:
    from sweepgate.core.changelog_edit import canonicalize

    return _written(lambda committing: canonicalize(_git(), args.changelog_file, args.pr_number, args.base,
                                                    args.repository, committing))


# --------------------------------------------------------------------------- command line

def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION")
    sub.required = True

    add = sub.add_parser("add", help="append a well-formed entry (pr-link .../pull/XXX)")
    add.add_argument("--key", type=argtypes.not_empty, action="append", required=True,
                     help="config key or '*' wildcard (repeatable)")
    add.add_argument("--description", action="append", required=True, type=argtypes.description,
                     help="one description line (repeatable)")
    add.add_argument("--scenario-type", action="append", choices=list(F.SCENARIO_TYPES),
                     help="restrict the entry to these scenarios (repeatable)")
    add.add_argument("--evals-only", action="store_true",
                     help="the entry runs only the eval rows of its configs, no throughput rows")
    add.add_argument("--all-evals", action="store_true",
                     help="the entry runs evals on every selected row, not only the default eval points")
    add.add_argument("--pr-number", metavar="N", type=argtypes.pull_request, default=None, help="use this PR's link instead of XXX")
    add.add_argument("--repository", type=owner_name, default=None,
                     help="OWNER/NAME (default: $GITHUB_REPOSITORY, else the repository most pr-links point to, "
                          "else the GitHub repository of origin, else of upstream, else of the only remote)")
    argtypes.add_changelog_file_argument(add, "changelog to append to")
    add.set_defaults(_action=cmd_add)

    rebase = sub.add_parser("rebase", help="rebuild the changelog as ONTO's bytes plus this branch's entries")
    rebase.add_argument("--onto", type=argtypes.not_empty, default=None,
                        help="target branch (default: origin/main; during a conflicted git rebase or merge in a "
                             "clone without it, the commit the rebase replays the branch onto or the merge takes "
                             "in); during a git rebase, the commit it replays the branch onto")
    rebase.add_argument("--branch", type=argtypes.not_empty, default=None,
                        help="take the branch's entries from this commit's changelog instead of the working "
                             "tree (REBASE_HEAD during a conflicted rebase, ORIG_HEAD during a conflicted merge, "
                             "CHERRY_PICK_HEAD during a conflicted cherry-pick)")
    argtypes.add_changelog_file_argument(rebase, "changelog to rebuild")
    rebase.set_defaults(_action=cmd_rebase)

    canon = sub.add_parser("canonicalize", help="replace pull/XXX in this branch's entries with the PR's link")
    canon.add_argument("--pr-number", metavar="N", type=argtypes.pull_request, required=True,
                       help="the pull request whose link replaces pull/XXX")
    canon.add_argument("--base", type=argtypes.not_empty, default=None,
                       help="branch this one will merge into (default: origin/main, "
                                                    "else main)")
    canon.add_argument("--repository", type=owner_name,
                       help="OWNER/NAME (default: $GITHUB_REPOSITORY, else the repository most pr-links point to, "
                            "else the GitHub repository of origin, else of upstream, else of the only remote)")
    argtypes.add_changelog_file_argument(canon, "changelog to rewrite")
    canon.set_defaults(_action=cmd_canonicalize)


def run(args) -> int:
    return args._action(args)
