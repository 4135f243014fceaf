"""Which commit a branch's changelog history ends at: the merge-base with its upstream.

`sweepgate validate --staged` compares the working tree against it, and `changelog add`
leaves its bytes alone; both ask here, so they agree on what is history.
"""

from __future__ import annotations

UPSTREAMS = ("origin/main", "main", "origin/master", "master")
# What gives a clone without any of them its default branch: a shallow one (a depth-1 CI checkout) the history
# it cut off as well, so that HEAD and the branch meet (a bare `git fetch origin main` writes FETCH_HEAD alone
# in a --depth or --single-branch clone, whose refspec names its own branch only)
MAIN_FETCH = "git fetch origin main:refs/remotes/origin/main"
UNSHALLOW_FETCH = "git fetch --unshallow origin main:refs/remotes/origin/main"


def _upstreams(git):
    """The UPSTREAMS that exist here, in order, then the branches remotes' HEADs point at (a full clone of a
    repository whose default branch is trunk has origin/HEAD -> origin/trunk)."""
    for ref in UPSTREAMS:
        if git.commit_of(ref):
            yield ref
    yield from git.run("for-each-ref", "--format=%(symref:short)", "refs/remotes/*/HEAD", check=False).decode().split()


def existing_upstream(git) -> str | None:
    """The first of UPSTREAMS that exists here, else the branch a remote's HEAD points at (None: neither)."""
    return next(_upstreams(git), None)


def upstream_base(git) -> str | None:
    """The merge-base of HEAD with the first upstream that exists and shares history with HEAD;
    None when there is none (no such branch, or a shallow clone that ends before the fork). During a
    git merge, of the upstream with the merge being made (HEAD and MERGE_HEAD): what it merges in is
    history to the commit it makes, not the branch's own entries."""
    merging = git.commit_of("MERGE_HEAD")
    for upstream in _upstreams(git):
        mb = git.run("merge-base", upstream, "HEAD", *([merging] if merging else []), check=False).decode().strip()
        if mb:
            return mb
    return None


def no_upstream(git) -> tuple[str, str] | None:
    """Why no upstream gives HEAD a base here, and how to fetch one, where taking HEAD instead would read the
    branch's own committed entries as history and pass them unchecked: a shallow clone (its history cut),
    or one with a remote whose default branch it never fetched (`git clone --single-branch -b BRANCH`).
    None for a repository with no remote: its only history is its own, and the hook gates each commit."""
    if git.shallow:
        return ("this clone is shallow", "fetch the default branch and the history this clone cut off "
                f"({UNSHALLOW_FETCH}; fetch-depth: 0 in actions/checkout)")
    remotes = git.run("remote", check=False).decode().split()
    if not remotes:
        return None
    if "origin" not in remotes:
        return f"this repository has remote {remotes[0]} but none of those branches", "fetch the branch it merges into"
    return ("this clone has remote origin but not its default branch: a --single-branch clone fetches one branch",
            f"fetch the default branch ({MAIN_FETCH})")


def unborn_base(git) -> str | None:
    """None when HEAD is a commit. On a branch with no commit yet (a new repository's first
    commit), the history before it: a root commit of the empty tree, so every entry is new.
    Its bytes are fixed (no identity, no clock), so it is written once and unreachable (gc drops it)."""
    if git.commit_of("HEAD"):
        return None
    tree = git.run("hash-object", "-t", "tree", "-w", "--stdin", input=b"").decode().strip()
    stamp = b"sweepgate <sweepgate@invalid> 0 +0000"
    body = b"tree %s\nauthor %s\ncommitter %s\n\nthe empty history before a first commit\n" % (
        tree.encode(), stamp, stamp)
    return git.run("hash-object", "-t", "commit", "-w", "--stdin", input=body).decode().strip()


def staged_base(git) -> str:
    """``upstream_base``, else the empty history of an unborn branch, else HEAD."""
    return upstream_base(git) or unborn_base(git) or "HEAD"
