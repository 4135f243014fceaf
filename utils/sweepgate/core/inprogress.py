"""The git operation a conflict stops in a work tree (a rebase, a merge, a cherry-pick, a revert or a `git am`),
and the one command that rebuilds the changelog there. `changelog rebase` and the gate (the pre-commit hook's
`validate --staged`) both tell the operation, and say its fix, from here."""

from __future__ import annotations

from pathlib import Path

from sweepgate.core import fields as F
from sweepgate.core.history import conflict_fix_text
from sweepgate.core.upstream import existing_upstream

# What `rebase --branch` reads in each operation a conflict stops: the commit being applied (ORIG_HEAD, the
# branch's tip before a rebase, would fold every commit's entries into this one), the branch before the merge,
# the commit being picked. None: no commit holds the changelog to read (a revert takes entries away, which the
# changelog never does; `git am` applies a patch).
IN_PROGRESS_BRANCH = {"rebase": ("REBASE_HEAD", "the commit being applied"),
                      "merge": ("ORIG_HEAD", "your branch before the merge"),
                      "cherry-pick": ("CHERRY_PICK_HEAD", "the commit being picked"),
                      "revert": (None, "HEAD"),
                      "am": (None, "HEAD")}
# The refs git writes for an operation: passed as --branch during another, each reads the wrong changelog.
OPERATION_REFS = frozenset({"REBASE_HEAD", "ORIG_HEAD", "MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD"})
_ON_HEAD = ("cherry-pick", "revert", "am")  # operations that build the file on HEAD's changelog


def in_progress(git) -> tuple[str, str | None] | None:
    """The operation a conflict stops in this work tree: ('rebase', the commit it replays the branch onto),
    ('merge', the commit merged in), ('cherry-pick' | 'revert' | 'am', HEAD, which the file is built on),
    each None where git did not write it down; or None. Git leaves REBASE_HEAD behind after a rebase, so it
    tells nothing: the rebase's folder does (``git am``'s is the same folder, with an ``applying`` file)."""
    for folder in ("rebase-merge", "rebase-apply"):
        path = Path(git.root) / git.run("rev-parse", "--git-path", folder).decode().strip()
        if path.is_dir() and (path / "applying").exists():
            return "am", git.commit_of("HEAD") or None
        if path.is_dir():
            try:
                onto = (path / "onto").read_text().strip()
            except OSError:
                onto = ""
            return "rebase", onto if F.COMMIT_SHA.fullmatch(onto) else None
    merged = git.commit_of("MERGE_HEAD")
    if merged:
        return "merge", merged if F.COMMIT_SHA.fullmatch(merged) else None
    for operation, ref in (("cherry-pick", "CHERRY_PICK_HEAD"), ("revert", "REVERT_HEAD")):
        if git.commit_of(ref):
            return operation, git.commit_of("HEAD") or None
    return None


def ref_named(git, commit: str) -> str:
    """A branch or remote branch at ``commit`` (the first by name), else its short id."""
    names = git.run("for-each-ref", "--points-at", commit, "--format=%(refname:short)",
                    "refs/heads", "refs/remotes", check=False).decode().split()
    return next((n for n in names if not n.endswith("/HEAD")), F.short_sha(commit))


def rebase_command(onto_ref: str, branch: str | None) -> str:
    return f"`sweepgate changelog rebase --onto {onto_ref}{f' --branch {branch}' if branch else ''}`"


def onto_of(git, state: tuple[str, str | None]) -> str:
    """What to pass as --onto in the operation ``state``: HEAD where the file is built on HEAD's changelog,
    else the operation's commit by name, else a branch that exists here (else BRANCH)."""
    operation, target = state
    if operation in _ON_HEAD:
        return "HEAD"
    return ref_named(git, target) if target else (existing_upstream(git) or "BRANCH")


def operation_fix(git, state: tuple[str, str | None], onto_ref: str | None = None,
                  path: str = F.CHANGELOG_FILE) -> str:
    """The fix of a conflicted changelog during the operation ``state`` (``in_progress``): the command that
    rebuilds it from the changelog the operation's own ref holds, onto ``onto_ref`` (else the operation's
    commit, by name); in a revert or a `git am`, HEAD's file kept and what to do after."""
    operation = state[0]
    ref, which = IN_PROGRESS_BRANCH[operation]
    keep = f"`git checkout HEAD -- {path}`"
    if operation == "revert":
        return (f"a revert is in progress: the changelog only grows, so keep HEAD's file: {keep} (an entry of "
                "this branch's own, not merged yet, may then be deleted by hand)")
    if operation == "am":
        return (f"a `git am` is in progress (a patch, no commit to rebuild from): keep HEAD's file ({keep}), "
                f"append the patch's own entries after it (`git am --show-current-patch=diff` shows them), then "
                f"`git add {path}`")
    return (f"a {operation} is in progress: {rebase_command(onto_ref or onto_of(git, state), ref)} rebuilds the "
            f"file from the changelog of {which}")


def conflict_fix(git, path: str = F.CHANGELOG_FILE, onto: str | None = None) -> str:
    """The fix of conflict markers in the changelog: the operation in progress's own command, else (none in
    progress here, as in a CI checkout of committed markers) what to pass after a merge or during a rebase,
    its --onto ``onto`` (the gate's base, by name), else a branch that exists here."""
    state = in_progress(git)
    return operation_fix(git, state, path=path) if state else conflict_fix_text(onto or existing_upstream(git))
