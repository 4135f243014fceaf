"""`sweepgate ci audit`: the repository settings that keep PR code off the GPU runners.

Pure checks over a ``Snapshot`` of what the GitHub REST API reports (fetched by
``sweepgate.commands.ci_audit``). Each finding is one line: severity, what is wrong, how to
fix it. docs/security.md explains every setting.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sweepgate.core.fields import BENCHMARK_TEMPLATE, MAIN_REF, MULTINODE_TEMPLATE, WORKFLOWS_FOLDER
from sweepgate.core.fields import MAIN_BRANCH as MAIN
from sweepgate.workflow.dispatch import GPU_WORKFLOW

HIGH, MEDIUM = "high", "medium"
# MAIN_REF (core.fields) is how a runner group names the GPU workflows' ref: the branch, never a tag.
# Jobs on self-hosted runners are defined in these files; GitHub matches a runner group's
# selected workflows against the file that defines the job (the template, for a reusable call).
GPU_WORKFLOWS = (GPU_WORKFLOW, BENCHMARK_TEMPLATE, MULTINODE_TEMPLATE)
# The check the PR side's gate job reports (pr-sweep.yml, job `gate`, its `name:`).
GATE_CHECK = "validate perf-changelog.yaml"
FORK_POLICY = "all_external_contributors"
SECRETS_ENVIRONMENT = "gpu-sweep"  # HF_TOKEN lives here, deployable from main only
GPU_SECRET = "HF_TOKEN"  # the one secret the benchmark step gets (benchmark-tmpl.yml's `secrets:`)


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
    # Org runner groups as GitHub lists them, each with "runner_count", "runner_labels" (the
    # labels its runners carry) and, for visibility "selected", "repositories" (full names).
    groups: list[dict] = field(default_factory=list)
    owner_type: str = "Organization"  # "User": a user account has no runner groups
    repository_id: int | None = None
    private: bool | None = None  # None: unknown, checked as private
    gpu_labels: list[str] = field(default_factory=list)  # configs/runners.yaml `labels`
    repo_runners: list[str] = field(default_factory=list)  # self-hosted runners registered on the repo
    fork_policy: str | None = None
    workflow_permissions: dict = field(default_factory=dict)
    required_checks: set[str] = field(default_factory=set)  # branch protection and rulesets of main
    repo_secrets: list[str] = field(default_factory=list)
    org_secrets: list[str] = field(default_factory=list)
    environments: list[Environment] = field(default_factory=list)
    pr_workflows: list[str] = field(default_factory=list)  # workflows triggered by pull_request*
    main_tag: bool = False  # the repository holds a tag named main (GET .../git/ref/tags/main answered it)
    default_branch: str | None = None  # None: not reported, not checked


def allowed_workflows(repository: str, ref: str = MAIN_REF) -> set[str]:
    return {f"{repository}/{WORKFLOWS_FOLDER}/{name}@{ref}" for name in GPU_WORKFLOWS}


def is_org(s: Snapshot) -> bool:
    return s.owner_type != "User"


def notes(s: Snapshot) -> list[str]:
    """What the audit skipped, and why (stderr, not findings)."""
    if is_org(s):
        return []
    owner = s.repository.split("/")[0]
    return [f"{owner} is a user account, which has no runner groups: runner group checks skipped"]


def gpu_groups(s: Snapshot) -> list[dict]:
    """The runner groups holding a runner with a label configs/runners.yaml uses (every group
    holding runners when there are no such labels)."""
    if not s.gpu_labels:
        return [g for g in s.groups if g.get("runner_count")]
    return [g for g in s.groups if set(g.get("runner_labels") or ()) & set(s.gpu_labels)]


def _group(s: Snapshot, g: dict) -> tuple[str, str, str]:
    """(name, UI path, API path) of runner group ``g``."""
    owner = s.repository.split("/")[0]
    name = g.get("name", g.get("id"))
    ui = f"organization {owner} Settings > Actions > Runner groups > {name}"
    return name, ui, f"/orgs/{owner}/actions/runner-groups/{g.get('id')}"


def _repo_id(s: Snapshot) -> str:
    return str(s.repository_id) if s.repository_id is not None else f"<id of {s.repository}>"


def visibility_findings(s: Snapshot, g: dict) -> list[Finding]:
    name, ui, api = _group(s, g)
    owner = s.repository.split("/")[0]
    visibility = g.get("visibility")
    if visibility == "selected":
        if s.repository in (g.get("repositories") or []):
            return []
        return [Finding(MEDIUM, f"runner group '{name}' is not visible to {s.repository}, so its GPU jobs "
                        "cannot start", f"{ui} > Repository access: add {s.repository} "
                        f"(or PUT {api}/repositories/{_repo_id(s)})")]
    who = {"all": f"every repository of {owner}", "private": f"every private repository of {owner}"}
    return [Finding(HIGH, f"runner group '{name}' is visible to {who.get(visibility, f'visibility {visibility!r}')}",
                    f"{ui} > Repository access: Selected repositories, {s.repository} only (or PATCH {api} "
                    f'{{"visibility": "selected"}} then PUT {api}/repositories '
                    f'{{"selected_repository_ids": [{_repo_id(s)}]}})')]


def public_findings(s: Snapshot, g: dict) -> list[Finding]:
    """A private repository needs no public one on its runners; a public one needs the switch."""
    name, ui, api = _group(s, g)
    allows = g.get("allows_public_repositories")
    if allows and s.private is not False:
        return [Finding(HIGH, f"runner group '{name}' allows public repositories",
                        f"{ui}: untick 'Allow public repositories' "
                        f'(or PATCH {api} {{"allows_public_repositories": false}})')]
    if not allows and s.private is False:
        return [Finding(MEDIUM, f"runner group '{name}' does not allow public repositories, so public "
                        f"{s.repository} cannot use it", f"{ui}: tick 'Allow public repositories' "
                        "(Repository access keeps other public repositories out)")]
    return []


def workflow_findings(s: Snapshot, g: dict) -> list[Finding]:
    name, ui, api = _group(s, g)
    allowed = allowed_workflows(s.repository)
    if "restricted_to_workflows" not in g:
        return [Finding(MEDIUM, f"GitHub reports no workflow access for runner group '{name}' "
                        "(restricted_to_workflows missing)", f"check {ui} > Workflow access by hand: "
                        f"Selected workflows, {', '.join(GPU_WORKFLOWS)} at @{MAIN_REF}")]
    if not g["restricted_to_workflows"]:
        return [Finding(HIGH, f"runner group '{name}' is not restricted to workflows",
                        f"{ui} > Workflow access: Selected workflows, {', '.join(sorted(allowed))} (or PATCH {api} "
                        f'{{"restricted_to_workflows": true, "selected_workflows": [...]}})')]
    selected = set(g.get("selected_workflows") or [])
    short = sorted(selected & allowed_workflows(s.repository, MAIN))
    extra = sorted(selected - allowed - set(short))
    if extra:
        return [Finding(HIGH, f"runner group '{name}' admits {', '.join(extra)}",
                        f"{ui} > Workflow access: select only {', '.join(GPU_WORKFLOWS)} at @{MAIN_REF}")]
    return short_ref_findings(s, g, short)


def short_ref_findings(s: Snapshot, g: dict, short: list[str]) -> list[Finding]:
    """A GPU workflow admitted at the short ``@main``: GitHub's runner group documentation calls such a
    ref ambiguous (it advises ``refs/heads/main``): a tag named main matches it too, and a tag is pushed
    past main's branch rules. High while the repository holds such a tag, else medium."""
    if not short:
        return []
    name, ui, _ = _group(s, g)
    tag = ("and the repository has a tag named main, which a short ref also matches: a workflow at that tag "
           "runs on the GPU runners" if s.main_tag else
           f"a short ref, which a tag named main (pushed past {MAIN}'s branch rules) would match too")
    return [Finding(HIGH if s.main_tag else MEDIUM, f"runner group '{name}' admits {', '.join(short)}, {tag}",
                    f"{ui} > Workflow access: name them at @{MAIN_REF}, as GitHub's documentation advises")]


def unplaced_findings(s: Snapshot) -> list[Finding]:
    """Labels of configs/runners.yaml no runner of any org group carries: nothing above checked them."""
    held = set().union(*(set(g.get("runner_labels") or ()) for g in s.groups))
    missing = [label for label in s.gpu_labels if label not in held]
    if not missing:
        return []
    return [Finding(MEDIUM, f"no organization runner group holds a runner labelled {', '.join(missing)} "
                    "(configs/runners.yaml), so its group settings were not checked",
                    "register those runners in the GPU runner group, or check the token sees them")]


def runner_findings(s: Snapshot) -> list[Finding]:
    out = []
    if s.repo_runners:
        out.append(Finding(HIGH, f"self-hosted runners registered on the repository ({', '.join(s.repo_runners)}) "
                           "cannot be restricted to workflows",
                           "register them in an organization runner group restricted to the GPU workflows"))
    if not is_org(s):
        return out
    for g in gpu_groups(s):
        out += visibility_findings(s, g) + public_findings(s, g) + workflow_findings(s, g)
    return out + unplaced_findings(s)


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
    if s.default_branch and s.default_branch != MAIN:
        out.append(Finding(MEDIUM, f"the default branch is '{s.default_branch}', but the workflows trust {MAIN} "
                           f"only: a sweep runs from {MAIN_REF} (pushes to it, dispatches on it), and PRs into "
                           f"'{s.default_branch}' are never swept", f"rename the default branch to {MAIN} "
                           "(Settings > General > Default branch)"))
    if GATE_CHECK not in s.required_checks:
        out.append(Finding(HIGH, f"no rule on {MAIN} requires the '{GATE_CHECK}' check",
                           f"add a branch ruleset (or protection) on {MAIN} requiring status check '{GATE_CHECK}'"))
    return out


def secret_findings(s: Snapshot) -> list[Finding]:
    if not s.pr_workflows:
        return []
    readers = f"{', '.join(s.pr_workflows)} (pull_request) {'runs' if len(s.pr_workflows) == 1 else 'run'} PR code"
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


def gpu_secret_findings(s: Snapshot) -> list[Finding]:
    """The environment the benchmark jobs deploy to, holding the token they download gated models with."""
    env = next((e for e in s.environments if e.name == SECRETS_ENVIRONMENT), None)
    if env is None:
        return [Finding(MEDIUM, f"no environment '{SECRETS_ENVIRONMENT}': the first GPU job creates it with no "
                        f"deployment branch rule and no {GPU_SECRET}, so a gated model's download fails",
                        f"Settings > Environments: create '{SECRETS_ENVIRONMENT}', deployment branches {MAIN} only, "
                        f"holding the secret {GPU_SECRET}")]
    if GPU_SECRET not in env.secrets:
        return [Finding(MEDIUM, f"environment '{SECRETS_ENVIRONMENT}' holds no {GPU_SECRET}, so a gated model's "
                        "download fails in the GPU job", f"add the secret {GPU_SECRET} (a Hugging Face read token) "
                        f"to '{SECRETS_ENVIRONMENT}'")]
    return []


def audit(s: Snapshot) -> list[Finding]:
    return runner_findings(s) + settings_findings(s) + secret_findings(s) + gpu_secret_findings(s)
