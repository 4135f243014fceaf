"""Which commit a branch's changelog history ends at: the merge-base with its upstream.

`sweepgate validate --staged` compares the working tree against it, and `changelog add`
leaves its bytes alone; both ask here, so they agree on what is history.
"""

from __future__ import annotations

UPSTREAMS = ("origin/main", "main", "origin/master", "master")


def upstream_base(git) -> str | None:
    """The merge-base of HEAD with the first upstream that exists and shares history with HEAD;
    None when there is none (no such branch, or a shallow clone that ends before the fork)."""
    for upstream in UPSTREAMS:
        if git.run("rev-parse", "--verify", "--quiet", f"{upstream}^{{commit}}", check=False).strip():
            mb = git.run("merge-base", "HEAD", upstream, check=False).decode().strip()
            if mb:
                return mb
    return None


def staged_base(git) -> str:
    """``upstream_base``, else HEAD."""
    return upstream_base(git) or "HEAD"
