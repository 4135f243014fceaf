"""`sweepgate ci audit`: the repository settings that keep PR code off the GPU runners.

Pure checks over a ``Snapshot`` of what the GitHub REST API reports (fetched by
``sweepgate.commands.ci_audit``). Each finding is one line: severity, what is wrong, how to
fix it. docs/security.md explains every setting.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sweepgate.workflow.dispatch import GPU_WORKFLOW

HIGH, MEDIUM = "high", "medium"
MAIN = "main"
# Jobs on self-hosted runners are defined in these files; GitHub matches a runner group's
# selected workflows against the file that defines the job (the template, for a reusable call).
GPU_WORKFLOWS = (GPU_WORKFLOW, "benchmark-tmpl.yml", "benchmark-multinode-tmpl.yml")
# The check the PR side's gate job reports (pr-sweep.yml, job `gate`, its `name:`).
GATE_CHECK = "validate perf-changelog.yaml"
FORK_POLICY = "all_external_contributors"
SECRETS_ENVIRONMENT = "gpu-sweep"  # HF_TOKEN lives here, deployable from main only


@dataclass(frozen=True)
class Finding:
    severity: str
    what: str
    fix: str

    def line(self, repository: str) -> str:
        return f"{repository}: {self.severity}: {self.what}; {self.fix}"


@dataclass
class Environment:
    name: str
    secrets: list[str]
    branches: list[str] | None  # None: any branch may deploy (no deployment branch policy)


@dataclass
class Snapshot:
    repository: str
    groups: list[dict] = field(default_factory=list)  # org runner groups, each with "runner_count"
    repo_runners: list[str] = field(default_factory=list)  # self-hosted runners registered on the repo
    fork_policy: str | None = None
    workflow_permissions: dict = field(default_factory=dict)
    required_checks: set[str] = field(default_factory=set)  # branch protection and rulesets of main
    repo_secrets: list[str] = field(default_factory=list)
    org_secrets: list[str] = field(default_factory=list)
    environments: list[Environment] = field(default_factory=list)
    pr_workflows: list[str] = field(default_factory=list)  # workflows triggered by pull_request*


def allowed_workflows(repository: str) -> set[str]:
    refs = ("refs/heads/main", MAIN)
    return {f"{repository}/.github/workflows/{name}@{ref}" for name in GPU_WORKFLOWS for ref in refs}


def runner_findings(s: Snapshot) -> list[Finding]:
    out = []
    if s.repo_runners:
        out.append(Finding(HIGH, f"self-hosted runners registered on the repository ({', '.join(s.repo_runners)}) "
                           "cannot be restricted to workflows",
                           "register them in an organization runner group restricted to the GPU workflows"))
    allowed = allowed_workflows(s.repository)
    for g in s.groups:
        if not g.get("runner_count"):
            continue
        name = g.get("name", g.get("id"))
        if not g.get("restricted_to_workflows"):
            out.append(Finding(HIGH, f"runner group '{name}' is not restricted to workflows",
                               f"set Workflow access to Selected workflows: {', '.join(sorted(allowed)[::2])}"))
            continue
        extra = sorted(set(g.get("selected_workflows") or []) - allowed)
        if extra:
            out.append(Finding(HIGH, f"runner group '{name}' admits {', '.join(extra)}",
                               f"select only {', '.join(GPU_WORKFLOWS)} at @refs/heads/main"))
        if g.get("allows_public_repositories"):
            out.append(Finding(MEDIUM, f"runner group '{name}' allows public repositories",
                               "turn off 'Allow public repositories'"))
    return out


def settings_findings(s: Snapshot) -> list[Finding]:
    out = []
    if s.fork_policy != FORK_POLICY:
        out.append(Finding(HIGH, f"fork PR workflows need approval only for '{s.fork_policy or 'unknown'}'",
                           f"Settings > Actions > General: require approval for all external contributors "
                           f"(approval_policy {FORK_POLICY})"))
    perms = s.workflow_permissions
    if perms.get("default_workflow_permissions") != "read":
        out.append(Finding(HIGH, f"default GITHUB_TOKEN permissions are "
                           f"'{perms.get('default_workflow_permissions', 'unknown')}'",
                           "Settings > Actions > General > Workflow permissions: Read repository contents"))
    if perms.get("can_approve_pull_request_reviews"):
        out.append(Finding(MEDIUM, "GITHUB_TOKEN may approve pull requests",
                           "untick 'Allow GitHub Actions to create and approve pull requests'"))
    if GATE_CHECK not in s.required_checks:
        out.append(Finding(HIGH, f"no rule on {MAIN} requires the '{GATE_CHECK}' check",
                           f"add a branch ruleset (or protection) on {MAIN} requiring status check '{GATE_CHECK}'"))
    return out


def secret_findings(s: Snapshot) -> list[Finding]:
    if not s.pr_workflows:
        return []
    readers = f"{', '.join(s.pr_workflows)} (pull_request) run PR code"
    out = [Finding(HIGH, f"repository secret {name} is available to every workflow; {readers}",
                   f"move it to the '{SECRETS_ENVIRONMENT}' environment, deployable from {MAIN} only")
           for name in s.repo_secrets]
    out += [Finding(HIGH, f"organization secret {name} is available to this repository; {readers}",
                    f"move it to the '{SECRETS_ENVIRONMENT}' environment, deployable from {MAIN} only")
            for name in s.org_secrets]
    for env in s.environments:
        if env.secrets and (env.branches is None or set(env.branches) - {MAIN}):
            where = "any branch" if env.branches is None else ", ".join(env.branches)
            out.append(Finding(HIGH, f"environment '{env.name}' holds {', '.join(env.secrets)} and deploys from "
                               f"{where}", f"set its deployment branches to {MAIN} only"))
    return out


def audit(s: Snapshot) -> list[Finding]:
    return runner_findings(s) + settings_findings(s) + secret_findings(s)
