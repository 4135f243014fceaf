"""Which commit a branch's changelog history ends at: the merge-base with its upstream.

`sweepgate validate --staged` compares the working tree against it, and `changelog add`
leaves its bytes alone; both ask here, so they agree on what is history.
"""

from __future__ import annotations

UPSTREAMS = ("origin/main", "main", "origin/master", "master")


def existing_upstream(git) -> str | None:
    """The first of UPSTREAMS that exists here, else the branch a remote's HEAD points at (None: neither)."""
    for ref in UPSTREAMS:
        if git.commit_of(ref):
            return ref
    heads = git.run("for-each-ref", "--format=%(symref:short)", "refs/remotes/*/HEAD", check=False).decode().split()
    return heads[0] if heads else None


def upstream_base(git) -> str | None:
    """The merge-base of HEAD with the first upstream that exists and shares history with HEAD;
    None when there is none (no such branch, or a shallow clone that ends before the fork). During a
    git merge, of the upstream with the merge being made (HEAD and MERGE_HEAD): what it merges in is
    history to the commit it makes, not the branch's own entries."""
    merging = git.commit_of("MERGE_HEAD")
    for upstream in UPSTREAMS:
        if git.commit_of(upstream):
            mb = git.run("merge-base", upstream, "HEAD", *([merging] if merging else []), check=False).decode().strip()
            if mb:
                return mb
    return None


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
