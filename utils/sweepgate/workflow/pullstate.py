"""Read a pull request's state from the GitHub REST API (PyGithub) for ``authorize``.

Endpoints: GET /repos/{o}/{r}/pulls/{n}; GET /repos/{o}/{r}/issues/{n}/events (who applied
each label); GET /repos/{o}/{r}/issues/{n}/comments; GET /repos/{o}/{r}/commits/{sha} (head
message); GET /repos/{o}/{r}/collaborators/{user}/permission (memoized per login).
"""

from __future__ import annotations

from sweepgate.workflow.authorize import SHA, PullState
from sweepgate.workflow.decide import label_key

ROLE_FALLBACK = "none"  # a login GitHub does not know (404) has no permission


def pull_state(repo, number: int) -> PullState:
    """Fetch ``number`` through a PyGithub Repository. An answer of another shape than GitHub's (no
    head, another PR's number, a label without a name, a commit without its ``commit``) or a head or
    base SHA that is not 40 hex digits is an answer not to be trusted (``NotGitHubJSON``): the head
    SHA is what is checked out and run."""
    from sweepgate.core.github import NotGitHubJSON

    pull = repo.get_pull(number)
    if pull.head is None or pull.base is None:
        raise NotGitHubJSON("a pull request without its head or base")
    if pull.number != number:
        raise NotGitHubJSON(f"pull request #{str(pull.number)[:20]} when #{number} was asked for")
    for side, sha in (("head", pull.head.sha), ("base", pull.base.sha)):
        if not (isinstance(sha, str) and SHA.fullmatch(sha)):  # head: it becomes head_ref, the SHA run
            raise NotGitHubJSON(f"a {side}.sha {str(sha)[:60]!r} that is not 40 hex digits")
    if not isinstance(pull.base.ref, str):  # the branch the PR is into: a fork's sweep runs only into main
        raise NotGitHubJSON("a pull request base without its ref")
    labels = [label.name for label in pull.labels]
    if not all(isinstance(name, str) for name in labels):
        raise NotGitHubJSON("a label without a name")
    issue = repo.get_issue(number)
    labelers: dict[str, str] = {}  # by label_key: an event keeps the label's name as spelt then (a rename changes case)
    labeled_at: dict = {}  # by label_key, as labelers: the time of the label's last "labeled" event
    for event in issue.get_events():  # oldest first: the last application of a label, in any spelling, stays
        if event.event == "labeled" and event.label is not None and isinstance(event.label.name, str):
            labelers[label_key(event.label.name)] = event.actor.login if event.actor else ""
            labeled_at[label_key(event.label.name)] = event.created_at
    read = list(issue.get_comments())
    comments = tuple((c.user.login if c.user else "", c.body or "") for c in read)
    head_repo = pull.head.repo.full_name if pull.head.repo is not None else ""
    commit = repo.get_commit(pull.head.sha).commit
    if commit is None:
        from sweepgate.core.fields import short_sha

        raise NotGitHubJSON(f"commit {short_sha(pull.head.sha)} without its 'commit' object")
    return PullState(number=pull.number, state=pull.state, draft=bool(pull.draft), head_sha=pull.head.sha,
                     base_sha=pull.base.sha, head_repo=head_repo, base_repo=repo.full_name,
                     labels=frozenset(labels), labelers=labelers, comments=comments,
                     head_message=commit.message or "", labeled_at=labeled_at,
                     comment_times=tuple(c.created_at for c in read), base_branch=pull.base.ref)


def permission_lookup(repo):
    """login -> permission, asked once per login (GitHub's answer, never the event's)."""
    from github import GithubException

    seen: dict[str, str] = {}

    def permission(login: str) -> str:
        if login not in seen:
            try:
                seen[login] = repo.get_collaborator_permission(login)
            except GithubException as exc:
                if exc.status != 404:
                    raise
                seen[login] = ROLE_FALLBACK
        return seen[login]

    return permission
