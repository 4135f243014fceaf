"""The git operation a conflict stops in a work tree (a rebase or a merge), and the one command that rebuilds
the changelog there. `changelog rebase` and the gate (the pre-commit hook's `validate --staged`) both tell the
operation, and say its fix, from here."""

from __future__ import annotations

from pathlib import Path

from sweepgate.core import fields as F
from sweepgate.core.history import CONFLICT_FIX

# What `rebase --branch` reads in each operation a conflict stops: the commit being applied (ORIG_HEAD, the
# branch's tip before a rebase, would fold every commit's entries into this one), the branch before the merge.
IN_PROGRESS_BRANCH = {"rebase": ("REBASE_HEAD", "the commit being applied"),
                      "merge": ("ORIG_HEAD", "your branch before the merge")}
DEFAULT_ONTO = "origin/main"  # --onto where git did not write the operation's commit down (CONFLICT_FIX's)


def in_progress(git) -> tuple[str, str | None] | None:
    """The operation a conflict stops in this work tree: ('rebase', the commit it replays the branch onto),
    ('merge', the commit merged in), each None where git did not write it down; or None. Git leaves
    REBASE_HEAD behind after a rebase, so it tells nothing: the rebase's folder does (``git am``'s, which
    has an ``applying`` file, is no rebase)."""
    for folder in ("rebase-merge", "rebase-apply"):
        path = Path(git.root) / git.run("rev-parse", "--git-path", folder).decode().strip()
        if path.is_dir() and not (path / "applying").exists():
            try:
                onto = (path / "onto").read_text().strip()
            except OSError:
                onto = ""
            return "rebase", onto if F.COMMIT_SHA.fullmatch(onto) else None
    merged = git.run("rev-parse", "--verify", "--quiet", "MERGE_HEAD^{commit}", check=False).decode().strip()
    return ("merge", merged if F.COMMIT_SHA.fullmatch(merged) else None) if merged else None


def ref_named(git, commit: str) -> str:
    """A branch or remote branch at ``commit`` (the first by name), else its short id."""
    names = git.run("for-each-ref", "--points-at", commit, "--format=%(refname:short)",
                    "refs/heads", "refs/remotes", check=False).decode().split()
    return next((n for n in names if not n.endswith("/HEAD")), F.short_sha(commit))


def rebase_command(onto_ref: str, branch: str | None) -> str:
    return f"`sweepgate changelog rebase --onto {onto_ref}{f' --branch {branch}' if branch else ''}`"


def operation_fix(git, state: tuple[str, str | None], onto_ref: str | None = None) -> str:
    """The fix of a conflicted changelog during the operation ``state`` (``in_progress``): the command that
    rebuilds it from the changelog the operation's own ref holds, onto ``onto_ref`` (else the operation's
    commit, by name)."""
    operation, target = state
    ref, which = IN_PROGRESS_BRANCH[operation]
    onto = onto_ref or (ref_named(git, target) if target else DEFAULT_ONTO)
    return f"a {operation} is in progress: {rebase_command(onto, ref)} rebuilds the file from the changelog of {which}"


def conflict_fix(git) -> str:
    """The fix of conflict markers in the changelog: the operation in progress's own command, else (no merge or
    rebase here, as in a CI checkout of committed markers) CONFLICT_FIX, which says what to pass after either."""
    state = in_progress(git)
    return operation_fix(git, state) if state else CONFLICT_FIX
