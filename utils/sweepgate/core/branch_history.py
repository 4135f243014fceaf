"""Whether a workflow run's commit is in a branch's history, asked of GitHub's REST API (PyGithub).

A run that a push of a *tag* started carries the tag's name as its ``head_branch``, and its ``path``
may end in the same ``@NAME``: no field of the run tells a tag named ``main`` from the branch. Only
its commit does: a run of main's is of a commit main holds.
"""

from __future__ import annotations

from sweepgate.core.fields import short_sha

# GitHub's "Compare two commits" status of BASE...HEAD when HEAD is BASE or an ancestor of it: nothing is
# on HEAD's side that BASE does not hold ("behind": commits were added on BASE only).
IN_HISTORY = frozenset({"identical", "behind"})
FIELD = "head_sha"  # how a passed-over run's commit is named, first (``mismatch``)


class BranchHistory:
    """The commits asked about so far, each with whether ``branch``'s head holds it: one compare
    (``GET /repos/O/R/compare/HEAD_SHA...SHA``) per distinct commit, and one read of the branch
    (``GET /repos/O/R/branches/NAME``, a branch by name, never a tag) for its head. The head is
    compared by its SHA: git reads a name both a tag and a branch have as the tag, and so may a compare.
    A commit after the head read (``ahead``: the branch may have moved since) has the head read again, once."""

    def __init__(self, branch: str):
        self.branch = branch
        self.head: str | None = None
        self.known: dict[str, bool] = {}
        self.reread = False

    def holds(self, repo, sha) -> bool:
        """Whether ``sha`` is ``branch``'s head or one of its ancestors, in ``repo`` (PyGithub's
        Repository). A commit GitHub does not know (404) is not."""
        if not isinstance(sha, str) or not sha:
            return False
        if sha not in self.known:
            self.known[sha] = self._ask(repo, sha)
        return self.known[sha]

    def _ask(self, repo, sha: str) -> bool:
        if self.head is None:
            self.head = self._head(repo)
        status = self._status(repo, sha)
        if status == "ahead" and not self.reread:  # a commit after the head read: the branch may have moved
            self.reread, before = True, self.head
            self.head = self._head(repo)
            if self.head != before:
                status = self._status(repo, sha)
        return status in IN_HISTORY

    def _head(self, repo) -> str:
        """The branch's head commit; "" when there is no such branch (deleted: it holds no commit)."""
        from github import GithubException

        try:
            return repo.get_branch(self.branch).commit.sha
        except GithubException as exc:
            if exc.status == 404:
                return ""
            raise

    def _status(self, repo, sha: str) -> str | None:
        from github import GithubException

        if not self.head:
            return None
        if sha == self.head:
            return "identical"
        try:
            return repo.compare(self.head, sha, comparison_commits_per_page=1).status
        except GithubException as exc:
            if exc.status == 404:  # no such commit in the repository
                return None
            raise

    def mismatch(self, repo, sha) -> str:
        """Nothing ("") when ``holds``, else how the run's commit is said (``github.run_mismatch``'s form)."""
        if self.holds(repo, sha):
            return ""
        return (f"{FIELD} {short_sha(sha) if isinstance(sha, str) else 'none'} not in {self.branch}'s "
                f"history: a tag named {self.branch}, or a commit {self.branch} no longer holds")


def passed_over_hint(passed_over: dict, branch: str, filters_hint: str) -> str:
    """What a line of runs passed over (run id -> ``github.run_mismatch`` or ``mismatch``) says to do:
    ``filters_hint`` for runs the API listed past the filters sent, and for runs not of ``branch``'s
    commits, which GitHub lists under the branch's name when a tag has it, how to remove such a tag."""
    ours = [what.startswith(f"{FIELD} ") for what in passed_over.values()]
    hints = [filters_hint] if not all(ours) else []
    if any(ours):
        hints.append(f"a run of a tag is listed under the tag's name: delete a tag named {branch} (git push origin "
                     f":refs/tags/{branch}); a run of a commit {branch} no longer holds is not {branch}'s either")
    return "; ".join(hints)
