"""Which commit a branch's changelog history ends at: the merge-base with its upstream.

`sweepgate validate --staged` compares the working tree against it, and `changelog add`
leaves its bytes alone; both ask here, so they agree on what is history.
"""

from __future__ import annotations

UPSTREAMS = ("origin/main", "main", "origin/master", "master")
# The branch guessed for a remote whose HEAD this clone never learnt (a --single-branch or --depth clone has no
# REMOTE/HEAD): the first of UPSTREAMS' names
GUESSED_BRANCHES = ("main", "master")
# The remote a branch merges into, the first of these a repository has (else its first remote): a clone's own,
# then a fork's name for the repository it forks
PREFERRED_REMOTES = ("origin", "upstream")


def fetch_command(remote: str, branch: str, unshallow: bool = False) -> str:
    """The fetch that gives a clone REMOTE/BRANCH whatever its refspec names (a bare `git fetch origin main`
    writes FETCH_HEAD alone in a --depth or --single-branch clone, whose refspec names its own branch only);
    ``unshallow``: a shallow one the history it cut off as well, so that HEAD and the branch meet."""
    import shlex

    return (f"git fetch{' --unshallow' if unshallow else ''} {shlex.quote(remote)} "
            + shlex.quote(f"{branch}:refs/remotes/{remote}/{branch}"))


def remote_names(git) -> list[str]:
    """The repository's remotes, by name."""
    return git.run("remote", check=False).decode().split()


def _upstreams(git):
    """The UPSTREAMS that exist here, in order, then the branches remotes' HEADs point at (a full clone of a
    repository whose default branch is trunk has origin/HEAD -> origin/trunk), then another remote's main or
    master (a repository whose only remote is upstream: what ``no_upstream``'s fetch brings)."""
    for ref in UPSTREAMS:
        if git.commit_of(ref):
            yield ref
    yield from git.run("for-each-ref", "--format=%(symref:short)", "refs/remotes/*/HEAD", check=False).decode().split()
    for remote in remote_names(git):
        if remote != "origin":
            yield from (ref for ref in (f"{remote}/{b}" for b in GUESSED_BRANCHES) if git.commit_of(ref))


def existing_upstream(git) -> str | None:
    """The first of UPSTREAMS that exists here, else the branch a remote's HEAD points at (None: neither)."""
    return next(_upstreams(git), None)


def upstream_base(git) -> str | None:
    """The merge-base of HEAD with the first upstream that exists and shares history with HEAD;
    None when there is none (no such branch, or a shallow clone that ends before the fork). During a
    git merge, of the upstream with the merge being made (HEAD and MERGE_HEAD): what it merges in is
    history to the commit it makes, not the branch's own entries."""
    named = upstream_named(git)
    return named[1] if named else None


def upstream_named(git) -> tuple[str, str] | None:
    """(the upstream, its merge-base) of ``upstream_base``, for a message that says what was compared against."""
    merging = git.commit_of("MERGE_HEAD")
    for upstream in _upstreams(git):
        mb = git.run("merge-base", upstream, "HEAD", *([merging] if merging else []), check=False).decode().strip()
        if mb:
            return upstream, mb
    return None


def merged_into(git, remotes: list[str] | None = None) -> tuple[str, str]:
    """(remote, branch) this clone's branch merges into: origin, else upstream (a fork's name for the
    repository it forks), else the first remote; and the branch its HEAD names (refs/remotes/REMOTE/HEAD,
    even one pointing at a branch not fetched), else main."""
    remotes = remote_names(git) if remotes is None else remotes
    remote = next((r for r in PREFERRED_REMOTES if r in remotes), remotes[0] if remotes else PREFERRED_REMOTES[0])
    target = git.run("symbolic-ref", "--quiet", f"refs/remotes/{remote}/HEAD", check=False).decode().strip()
    prefix = f"refs/remotes/{remote}/"
    return remote, target[len(prefix):] if target.startswith(prefix) else GUESSED_BRANCHES[0]


def no_upstream(git) -> tuple[str, str] | None:
    """Why no upstream gives HEAD a base here, and how to fetch one, where taking HEAD instead would read the
    branch's own committed entries as history and pass them unchecked: a shallow clone (its history cut),
    or one with a remote whose default branch it never fetched (`git clone --single-branch -b BRANCH`).
    None for a repository with no remote: its only history is its own, and the hook gates each commit."""
    remotes = remote_names(git)
    remote, branch = merged_into(git, remotes)
    if git.shallow:
        return ("this clone is shallow", "fetch the default branch and the history this clone cut off "
                f"({fetch_command(remote, branch, unshallow=True)}; fetch-depth: 0 in actions/checkout)")
    if not remotes:
        return None
    if remote != "origin":
        return (f"this repository has remote {remote} but not its branch {branch}",
                f"fetch the branch it merges into ({fetch_command(remote, branch)})")
    return ("this clone has remote origin but not its default branch: a --single-branch clone fetches one branch",
            f"fetch the default branch ({fetch_command(remote, branch)})")


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


def staged_base(git, flag: str = "git", alternative: str = "") -> str:
    """Where the changelog's history ends for `validate --staged` and `changelog add`: ``upstream_base``;
    on an unborn branch the empty history (``unborn_base``); else HEAD (a local repository whose only branch
    is trunk or develop). Where HEAD would read the branch's own committed entries as history and pass them
    (``no_upstream``: a depth-1 CI checkout, a --single-branch clone) refused instead, at ``flag``, with how
    to fetch one (``alternative``: the other way out, e.g. the flag that names a base; its ``{ref}`` is
    REMOTE/BRANCH of the fetch, ``merged_into``: a remote this repository has)."""
    base = upstream_base(git) or unborn_base(git)
    if base:
        return base
    missing = no_upstream(git)
    if missing:
        from sweepgate.core.errors import fail

        why, fetch = missing
        other = alternative.replace("{ref}", "/".join(merged_into(git)))
        raise fail(flag, 0, f"no branch here ({', '.join(UPSTREAMS)}) shares history with HEAD, so there is no "
                   f"base to tell the changelog's history from new entries ({why})",
                   f"{fetch}{f' or {other}' if other else ', then rerun'}")
    return "HEAD"
