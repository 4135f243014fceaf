"""`sweepgate ci audit --repository OWNER/NAME`: fetch the settings, print one line per finding.

PyGithub where it has the call (secrets, environments, self-hosted runners); the
requester's ``requestJsonAndCheck`` for the rest (runner groups, Actions permissions,
rulesets). Exit 1 when any finding is high.
"""

from __future__ import annotations

import sys
from pathlib import Path
from urllib.parse import quote

from sweepgate.core import fields as F
from sweepgate.core.github import PER_PAGE, UNEXPECTED_SHAPE, NotGitHubJSON, add_repository_options, json_object
from sweepgate.core.placement import runners_at
from sweepgate.workflow.audit import HIGH, MAIN, Environment, Snapshot, allowed_workflows, audit, notes

HINT = ("the token needs read access to Administration and Actions of the repository, and "
        "'admin:org' (read) for runner groups; also Contents (read) of the repository, to tell whether a tag "
        "named main exists (without it a runner group admitting the short @main stays a medium finding)")
ORG_HINT = ("runner groups need organization admin rights: a classic token with 'admin:org' (read:org is "
            "not enough), or a fine-grained token with the organization permission 'Self-hosted runners' "
            "(read); or run the audit as an organization owner")


def _get(requester, url: str, *, missing=None, parameters: dict | None = None):
    """GET ``url`` (relative to the API base); ``missing`` is returned on 404."""
    from github import GithubException

    try:
        return requester.requestJsonAndCheck("GET", url, parameters=parameters)[1]
    except GithubException as exc:
        if exc.status == 404 and missing is not None:
            return missing
        raise


def _pages(requester, url: str, key: str | None, *, missing_is_empty: bool = True) -> list[dict]:
    """Every item of a paginated list endpoint, page by page (``per_page``, ``page``): its answer is
    ``{"total_count": N, key: [...]}``, or with ``key`` None the list itself (rules for a branch). A 404
    is an empty list unless ``missing_is_empty`` is False."""
    items, page = [], 1
    while True:
        answer = _get(requester, url, missing=({} if key else []) if missing_is_empty else None,
                      parameters={"per_page": PER_PAGE, "page": page})
        if key is None:
            if not isinstance(answer, list):
                raise NotGitHubJSON(UNEXPECTED_SHAPE)
            batch, total = answer, None
        else:
            data = json_object(answer)
            batch, total = data.get(key) or [], data.get("total_count", 0)
        items += batch
        if len(batch) < PER_PAGE or (total is not None and len(items) >= total):
            return items
        page += 1


def _runner_groups(requester, owner: str, repository: str) -> list[dict]:
    """The org's runner groups with their runners' labels and, for visibility "selected",
    the repositories they admit. A 403 (no org admin rights) is one diagnostic line."""
    from github import GithubException

    from sweepgate.core.github import api_error

    base = f"/orgs/{owner}/actions/runner-groups"
    try:
        groups = []
        for g in _pages(requester, base, "runner_groups"):
            runners = _pages(requester, f"{base}/{g['id']}/runners", "runners")
            labels = sorted({label["name"] for r in runners for label in r.get("labels") or []})
            groups.append({**g, "runner_count": len(runners), "runner_labels": labels})
            if runners and g.get("visibility") == "selected":
                repos = _pages(requester, f"{base}/{g['id']}/repositories", "repositories")
                groups[-1]["repositories"] = [r["full_name"] for r in repos]
        return groups
    except GithubException as exc:
        if exc.status != 403:
            raise
        raise api_error(exc, f"listing the runner groups of organization {owner} (auditing {repository})",
                        ORG_HINT) from None


def _required_checks(requester, base: str) -> set[str]:
    checks = set()
    protection = _get(requester, f"{base}/branches/{MAIN}/protection", missing={})
    status = protection.get("required_status_checks") or {}
    checks |= set(status.get("contexts") or []) | {c["context"] for c in status.get("checks") or []}
    for rule in _pages(requester, f"{base}/rules/branches/{MAIN}", None):
        if rule.get("type") == "required_status_checks":
            checks |= {c["context"] for c in (rule.get("parameters") or {}).get("required_status_checks") or []}
    return checks


def _main_tag(requester, repository: str, groups: list[dict]) -> bool:
    """Whether the repository holds a tag named main, asked only when a runner group admits a GPU workflow
    at the short ``@main``, which admits that tag too. A token that may not read the repository's refs (a
    403: no Contents permission) leaves it unknown, read as no tag: the short ref is a finding either way."""
    from github import GithubException

    short = allowed_workflows(repository, MAIN)
    if not any(short & set(g.get("selected_workflows") or []) for g in groups):
        return False
    try:
        ref = _get(requester, f"/repos/{repository}/git/ref/tags/{MAIN}", missing={})
    except GithubException as exc:
        if exc.status != 403:
            raise
        return False
    return isinstance(ref, dict) and ref.get("ref") == f"refs/tags/{MAIN}"


def _environments(repo, requester, base: str) -> list[Environment]:
    out = []
    for env in repo.get_environments():
        policy = env.deployment_branch_policy
        branches = None
        if policy is not None and policy.custom_branch_policies:
            listed = _pages(requester, f"{base}/environments/{quote(env.name, safe='')}/deployment-branch-policies",
                            "branch_policies", missing_is_empty=False)
            # a policy of type tag admits the tag of that name, never the branch: named so, it is not main
            branches = [b["name"] if b.get("type", "branch") == "branch" else f"tag {b['name']}" for b in listed]
        elif policy is not None and policy.protected_branches:
            branches = ["(any protected branch)"]
        out.append(Environment(env.name, [s.name for s in env.get_secrets()], branches))
    return out


def pr_workflows(root: Path) -> list[str]:
    """Workflow files of the checkout that pull_request or pull_request_target triggers."""
    import yaml

    names = []
    for path in sorted((root / ".github" / "workflows").glob("*.y*ml")):
        doc = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        on = doc.get(True, doc.get("on")) or {}
        triggers = {on} if isinstance(on, str) else set(on)
        if triggers & {"pull_request", "pull_request_target"}:
            names.append(path.name)
    return names


def snapshot(client, repository: str, root: Path) -> Snapshot:
    repo = client.get_repo(repository)
    requester = client.requester
    base = f"/repos/{repository}"
    org_secrets = _pages(requester, f"{base}/actions/organization-secrets", "secrets")
    if repo.owner is None:  # GitHub's repository always names its owner
        raise NotGitHubJSON(UNEXPECTED_SHAPE)
    owner_type = repo.owner.type or "Organization"
    labels = (runners_at(str(root)).get(F.LABELS) or {})
    groups = _runner_groups(requester, repo.owner.login, repository) if owner_type != "User" else []
    return Snapshot(
        repository=repository,
        groups=groups,
        owner_type=owner_type,
        repository_id=repo.id,
        private=repo.private,
        gpu_labels=sorted(labels) if isinstance(labels, dict) else [],
        repo_runners=[r.name for r in repo.get_self_hosted_runners()],
        fork_policy=_get(requester, f"{base}/actions/permissions/fork-pr-contributor-approval",
                         missing={}).get("approval_policy"),
        workflow_permissions=_get(requester, f"{base}/actions/permissions/workflow"),
        required_checks=_required_checks(requester, base),
        repo_secrets=[s.name for s in repo.get_secrets()],
        org_secrets=[s["name"] for s in org_secrets],
        environments=_environments(repo, requester, base),
        pr_workflows=pr_workflows(root),
        main_tag=_main_tag(requester, repository, groups),
        default_branch=repo.default_branch,
    )


def copied_workflow_findings(root: Path, always: bool) -> list:
    """The checkout's copied workflows and the files they read (workflow.adoption), printed one line each:
    with --workflows always, else when the checkout holds any of them."""
    from sweepgate.core.errors import emit
    from sweepgate.workflow import adoption

    if not always and not adoption.adopted(str(root)):
        return []
    found = adoption.findings(str(root), runners_at(str(root)))
    emit(found, sys.stdout)
    return found


def run_audit(args) -> int:
    from sweepgate.core.github import api_error, connect, credentials
    from sweepgate.core.load import repo_root

    if args.workflows:
        found = copied_workflow_findings(Path(repo_root()), True)
        print(f"sweepgate ci audit: {len(found)} edits left undone in the copied workflows", file=sys.stderr)
        return 1 if found else 0
    token, args.repository = credentials("sweepgate ci audit", args.repository)
    client = connect(token, args.github_api_url)
    try:
        snap = snapshot(client, args.repository, Path(repo_root()))
    except Exception as exc:  # noqa: BLE001 - the API's errors become one line, others are raised again
        raise api_error(exc, f"auditing {args.repository}", HINT, args.github_api_url) from None
    finally:
        client.close()
    findings = audit(snap)
    for note in notes(snap):
        print(f"sweepgate ci audit: {note}", file=sys.stderr)
    local = copied_workflow_findings(Path(repo_root()), False)
    for f in findings:
        print(f.line(args.repository))
    high = sum(f.severity == HIGH for f in findings)
    undone = f", {len(local)} edits left undone in the copied workflows" if local else ""
    print(f"sweepgate ci audit: {len(findings)} findings, {high} high{undone}", file=sys.stderr)
    return 1 if high or local else 0


def add_audit_parser(sub) -> None:
    p = sub.add_parser("audit", help="check the repository settings that keep PR code off the GPU runners")
    add_repository_options(p)
    p.add_argument("--workflows", action="store_true",
                   help="check only the checkout's copied workflows and the files they read (the sweepgate "
                   "requirement, a launcher per runner): no GitHub API, no token")
    p.set_defaults(_ci=run_audit)
