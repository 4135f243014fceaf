"""`sweepgate ci audit` against a local REST stand-in answering GitHub's documented shapes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "utils"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from github_stub import TOKEN, GitHubStub, paged  # noqa: E402
from sweepgate.workflow import audit  # noqa: E402

REPO = "acme/bench"
BASE = f"/repos/{REPO}"
WF = f"{REPO}/.github/workflows"


def gpu_labels() -> dict:
    """configs/runners.yaml's labels: the audit checks the groups holding these runners."""
    return yaml.safe_load((ROOT / "configs/runners.yaml").read_text())["labels"]


def runner(rid: int, name: str, label: str) -> dict:
    return {"id": rid, "name": name, "os": "linux", "status": "online", "busy": False,
            "labels": [{"id": 1, "name": "self-hosted", "type": "read-only"},
                       {"id": 2, "name": label, "type": "custom"}]}


def good_setup(stub) -> None:
    """A repository configured as docs/security.md says."""
    stub.route("GET", BASE, {"id": 1, "name": "bench", "full_name": REPO, "url": f"{stub.url}{BASE}",
                             "private": True, "owner": {"login": "acme", "id": 2, "type": "Organization"}})
    stub.route("GET", "/orgs/acme/actions/runner-groups", {"total_count": 2, "runner_groups": [
        {"id": 1, "name": "Default", "visibility": "all", "default": True, "allows_public_repositories": False,
         "restricted_to_workflows": False, "selected_workflows": [], "workflow_restrictions_read_only": False},
        {"id": 5, "name": "gpu", "visibility": "selected", "default": False, "allows_public_repositories": False,
         "restricted_to_workflows": True, "workflow_restrictions_read_only": False,
         "selected_workflows": [f"{WF}/{n}@refs/heads/main" for n in audit.GPU_WORKFLOWS]}]})
    stub.route("GET", "/orgs/acme/actions/runner-groups/1/runners", {"total_count": 0, "runners": []})
    gpu = [runner(20 + i, names[0], label) for i, (label, names) in enumerate(gpu_labels().items())]
    stub.route("GET", "/orgs/acme/actions/runner-groups/5/runners", {"total_count": len(gpu), "runners": gpu})
    stub.route("GET", "/orgs/acme/actions/runner-groups/5/repositories", {"total_count": 1, "repositories": [
        {"id": 1, "name": "bench", "full_name": REPO, "private": True, "owner": {"login": "acme", "id": 2}}]})
    stub.route("GET", f"{BASE}/actions/runners", {"total_count": 0, "runners": []})
    stub.route("GET", f"{BASE}/actions/permissions/fork-pr-contributor-approval",
               {"approval_policy": "all_external_contributors"})
    stub.route("GET", f"{BASE}/actions/permissions/workflow",
               {"default_workflow_permissions": "read", "can_approve_pull_request_reviews": False})
    stub.route("GET", f"{BASE}/rules/branches/main", [
        {"type": "required_status_checks", "ruleset_source_type": "Repository", "ruleset_source": REPO,
         "ruleset_id": 9, "parameters": {"strict_required_status_checks_policy": False,
                                         "required_status_checks": [{"context": audit.GATE_CHECK}]}}])
    stub.route("GET", f"{BASE}/actions/secrets", {"total_count": 0, "secrets": []})
    stub.route("GET", f"{BASE}/actions/organization-secrets", {"total_count": 0, "secrets": []})
    env_url = f"{stub.url}{BASE}/environments/gpu-sweep"
    stub.route("GET", f"{BASE}/environments", {"total_count": 1, "environments": [
        {"id": 3, "name": "gpu-sweep", "url": env_url, "protection_rules": [],
         "deployment_branch_policy": {"protected_branches": False, "custom_branch_policies": True}}]})
    stub.route("GET", f"{BASE}/environments/gpu-sweep/secrets", {"total_count": 1, "secrets": [
        {"name": "HF_TOKEN", "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z"}]})
    stub.route("GET", f"{BASE}/environments/gpu-sweep/deployment-branch-policies",
               {"total_count": 1, "branch_policies": [{"id": 1, "name": "main", "type": "branch"}]})


def secret(name):
    return {"name": name, "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z"}


def unrestricted_group(stub):
    groups = stub.routes[("GET", "/orgs/acme/actions/runner-groups")][1]
    groups["runner_groups"][1].update(restricted_to_workflows=False)


def extra_workflow(stub):
    groups = stub.routes[("GET", "/orgs/acme/actions/runner-groups")][1]
    groups["runner_groups"][1]["selected_workflows"].append(f"{WF}/pr-sweep.yml@refs/heads/main")


def branch_workflow(stub):
    groups = stub.routes[("GET", "/orgs/acme/actions/runner-groups")][1]
    groups["runner_groups"][1]["selected_workflows"][0] = f"{WF}/run-sweep.yml@refs/heads/feature"


def gpu_group(stub, **settings):
    stub.routes[("GET", "/orgs/acme/actions/runner-groups")][1]["runner_groups"][1].update(settings)


def repo_runner(stub):
    stub.route("GET", f"{BASE}/actions/runners", {"total_count": 1, "runners": [
        {"id": 9, "name": "gpu-box", "os": "linux", "status": "online", "busy": False, "labels": []}]})


MISCONFIGURATIONS = [
    ("unrestricted-group", unrestricted_group, "runner group 'gpu' is not restricted to workflows"),
    ("group-admits-pr-workflow", extra_workflow, "admits acme/bench/.github/workflows/pr-sweep.yml"),
    ("group-admits-branch", branch_workflow, "run-sweep.yml@refs/heads/feature"),
    ("repo-level-runner", repo_runner, "registered on the repository (gpu-box)"),
    ("group-visible-to-all", lambda s: gpu_group(s, visibility="all"),
     "runner group 'gpu' is visible to every repository of acme; organization acme Settings > Actions > "
     "Runner groups > gpu > Repository access: Selected repositories, acme/bench only"),
    ("group-visible-to-private", lambda s: gpu_group(s, visibility="private"),
     "runner group 'gpu' is visible to every private repository of acme"),
    ("group-allows-public", lambda s: gpu_group(s, allows_public_repositories=True),
     "runner group 'gpu' allows public repositories; organization acme Settings > Actions > Runner groups > "
     'gpu: untick \'Allow public repositories\' (or PATCH /orgs/acme/actions/runner-groups/5 '
     '{"allows_public_repositories": false})'),
    ("fork-approval", lambda s: s.route("GET", f"{BASE}/actions/permissions/fork-pr-contributor-approval",
                                        {"approval_policy": "first_time_contributors"}),
     "approval only for 'first_time_contributors'"),
    ("token-write", lambda s: s.route("GET", f"{BASE}/actions/permissions/workflow",
                                      {"default_workflow_permissions": "write",
                                       "can_approve_pull_request_reviews": False}),
     "default GITHUB_TOKEN permissions are 'write'"),
    ("no-gate-rule", lambda s: s.route("GET", f"{BASE}/rules/branches/main", []),
     f"no rule on main requires the '{audit.GATE_CHECK}' check"),
    ("repo-secret", lambda s: s.route("GET", f"{BASE}/actions/secrets",
                                      {"total_count": 1, "secrets": [secret("HF_TOKEN")]}),
     "repository secret HF_TOKEN is available to every workflow; ci.yml, pr-sweep.yml (pull_request)"),
    ("org-secret", lambda s: s.route("GET", f"{BASE}/actions/organization-secrets",
                                     {"total_count": 1, "secrets": [{**secret("NPM"), "visibility": "all"}]}),
     "organization secret NPM"),
    ("environment-any-branch", lambda s: s.routes[("GET", f"{BASE}/environments")][1]["environments"][0]
     .update(deployment_branch_policy=None), "environment 'gpu-sweep' holds HF_TOKEN and deploys from any branch"),
    # security audit: a deployment policy of type tag named main (tag `main`, which any writer can
    # push, deploys; branch main does not) read as "main only"
    ("environment-tag-main", lambda s: s.route("GET", f"{BASE}/environments/gpu-sweep/deployment-branch-policies",
                                               {"total_count": 1, "branch_policies": [
                                                   {"id": 1, "name": "main", "type": "tag"}]}),
     "environment 'gpu-sweep' holds HF_TOKEN and deploys from tag main; set its deployment branches to main only"),
]


@pytest.fixture
def stub():
    server = GitHubStub()
    good_setup(server)
    yield server
    server.close()


def run_audit(stub, *extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    env.update(PYTHONPATH=str(ROOT / "utils"), GITHUB_TOKEN=TOKEN)
    return subprocess.run([sys.executable, "-m", "sweepgate", "ci", "audit", "--repository", REPO,
                           "--api-url", stub.url, *extra], env=env, capture_output=True, text=True, cwd=ROOT)


def test_correct_setup_passes(stub):
    proc = run_audit(stub)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout == "" and "0 findings" in proc.stderr


@pytest.mark.parametrize("break_it,fragment", [m[1:] for m in MISCONFIGURATIONS], ids=[m[0] for m in MISCONFIGURATIONS])
def test_each_misconfiguration_is_one_high_line(stub, break_it, fragment):
    break_it(stub)
    proc = run_audit(stub)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    (line,) = proc.stdout.splitlines()
    assert line.startswith(f"{REPO}: high: ") and fragment in line and "; " in line, line
    assert "Traceback" not in proc.stderr


def test_github_api_url_env_and_medium_findings(stub):
    stub.route("GET", f"{BASE}/actions/permissions/workflow",
               {"default_workflow_permissions": "read", "can_approve_pull_request_reviews": True})
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    env.update(PYTHONPATH=str(ROOT / "utils"), GITHUB_TOKEN=TOKEN, GITHUB_API_URL=stub.url)
    proc = subprocess.run([sys.executable, "-m", "sweepgate", "ci", "audit", "--repository", REPO], env=env,
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0 and "medium: GITHUB_TOKEN may approve pull requests" in proc.stdout


def test_api_error_is_one_line(stub):
    stub.routes[("GET", f"{BASE}/actions/permissions/workflow")] = (403, {"message": "Must have admin rights"})
    proc = run_audit(stub)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "403" in proc.stderr and "Must have admin" in proc.stderr


def test_the_permission_hint_names_the_contents_read_that_tells_a_tag_named_main(stub):
    """s36h: the hint named Administration, Actions and 'admin:org' but not Contents, whose refs tell whether
    a tag named main exists: without it a group admitting the short @main stays a medium finding, unsaid why."""
    stub.routes[("GET", f"{BASE}/actions/permissions/workflow")] = (403, {"message": "Must have admin rights"})
    proc = run_audit(stub)
    assert proc.returncode == 1 and "Contents (read) of the repository, to tell whether a tag named main exists" \
        in proc.stderr and "stays a medium finding" in proc.stderr, proc.stderr


def test_gpu_runners_in_the_default_group_are_checked_other_groups_are_not(stub):
    """Only the groups holding runners with a configs/runners.yaml label matter: a CPU runner in
    the org-wide Default group is no finding; the GPU runners moved there are."""
    groups = "/orgs/acme/actions/runner-groups"
    stub.route("GET", f"{groups}/1/runners", {"total_count": 1, "runners": [runner(30, "cpu-0", "ubuntu-cpu")]})
    assert run_audit(stub).returncode == 0
    gpu = stub.routes[("GET", f"{groups}/5/runners")][1]
    stub.route("GET", f"{groups}/1/runners", {"total_count": 1 + len(gpu["runners"]),
                                              "runners": [runner(30, "cpu-0", "ubuntu-cpu"), *gpu["runners"]]})
    stub.route("GET", f"{groups}/5/runners", {"total_count": 0, "runners": []})
    proc = run_audit(stub)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert sorted(line.split(": ", 2)[2].split(";")[0] for line in proc.stdout.splitlines()) == [
        "runner group 'Default' is not restricted to workflows",
        "runner group 'Default' is visible to every repository of acme"], proc.stdout


def test_runners_on_a_later_page_are_seen(stub):
    """GitHub pages runner lists (at most 100 a page): a GPU runner on page 2 still counts."""
    groups = "/orgs/acme/actions/runner-groups"
    gpu = stub.routes[("GET", f"{groups}/5/runners")][1]["runners"]
    cpu = [runner(100 + i, f"cpu-{i}", "ubuntu-cpu") for i in range(100)]
    stub.route("GET", f"{groups}/1/runners", paged("runners", [*cpu, gpu[0]], f"{stub.url}{groups}/1/runners"))
    proc = run_audit(stub)
    assert "runner group 'Default' is visible to every repository of acme" in proc.stdout, proc.stdout
    assert any("/runner-groups/1/runners?" in t and "page=2" in t for t in stub.targets), stub.targets


def test_organization_secrets_on_a_later_page_are_seen(stub):
    """s40h: the audit read one page of the repository's organization secrets (GitHub's default, 30): an
    organization secret PR workflows can read, listed on a later page, was no finding. Every page is read."""
    url = f"{BASE}/actions/organization-secrets"
    names = [f"ORG_SECRET_{i:03}" for i in range(101)]
    stub.route("GET", url, paged("secrets", [{**secret(n), "visibility": "all"} for n in names], f"{stub.url}{url}"))
    proc = run_audit(stub)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    said = [line.split("organization secret ", 1)[1].split(" ", 1)[0] for line in proc.stdout.splitlines()
            if "organization secret " in line]
    assert said == names, said


def test_deployment_branch_policies_on_a_later_page_are_seen(stub):
    """s40h: the audit read one page of an environment's deployment branch policies (GitHub's default, 30):
    a policy on a later page (any branch, `*`) was not said among the branches the secrets' environment
    deploys from. Every page is read."""
    url = f"{BASE}/environments/gpu-sweep/deployment-branch-policies"
    names = ["main", *(f"release/{i}" for i in range(99)), "*"]
    policies = [{"id": i, "name": n, "type": "branch"} for i, n in enumerate(names)]
    stub.route("GET", url, paged("branch_policies", policies, f"{stub.url}{url}"))
    proc = run_audit(stub)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    (line,) = proc.stdout.splitlines()
    listed = line.split(" deploys from ", 1)[1].split("; ", 1)[0].split(", ")
    assert listed == names, listed


def test_a_gate_rule_on_a_later_page_of_main_s_rules_is_seen(stub):
    """s40h: the rules for main (GitHub's "Get rules for a branch", a bare list paged 30 by default) were
    read one page only: with many rules in force (an organization's rulesets), the one requiring the gate
    check, on a later page, was not seen, and the audit said main requires no gate check (high)."""
    url = f"{BASE}/rules/branches/main"
    gate = stub.routes[("GET", url)][1]
    rules = [{"type": "deletion", "ruleset_source_type": "Organization", "ruleset_source": "acme",
              "ruleset_id": 100 + i} for i in range(100)] + gate

    def answer(_payload, query):
        per_page = min(int((query.get("per_page") or ["30"])[0]), 100)
        page = int((query.get("page") or ["1"])[0])
        more = page * per_page < len(rules)
        headers = {"Link": f'<{stub.url}{url}?per_page={per_page}&page={page + 1}>; rel="next"'} if more else {}
        return 200, rules[(page - 1) * per_page:page * per_page], headers

    stub.route("GET", url, answer)
    proc = run_audit(stub)
    assert proc.returncode == 0 and proc.stdout == "", proc.stdout + proc.stderr


def test_selected_group_must_include_this_repository(stub):
    stub.route("GET", "/orgs/acme/actions/runner-groups/5/repositories", paged("repositories", [
        {"id": 7, "name": "other", "full_name": "acme/other", "owner": {"login": "acme", "id": 2}}]))
    proc = run_audit(stub)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (line,) = proc.stdout.splitlines()
    assert line == (f"{REPO}: medium: runner group 'gpu' is not visible to {REPO}, so its GPU jobs cannot start; "
                    "organization acme Settings > Actions > Runner groups > gpu > Repository access: add "
                    f"{REPO} (or PUT /orgs/acme/actions/runner-groups/5/repositories/1)")


def test_public_repository_needs_public_access_and_nothing_else(stub):
    stub.routes[("GET", BASE)][1]["private"] = False
    proc = run_audit(stub)
    assert "medium: runner group 'gpu' does not allow public repositories, so public acme/bench" in proc.stdout
    gpu_group(stub, allows_public_repositories=True)
    proc = run_audit(stub)
    assert proc.returncode == 0 and proc.stdout == "", proc.stdout + proc.stderr


def test_a_repository_whose_visibility_the_api_leaves_out_is_checked_as_private(stub):
    """Security audit (s39h): an answer without `private` (null) is audited as a private repository's, so a
    GPU group that admits public repositories is still a high finding; reading it as public passed every test."""
    stub.routes[("GET", BASE)][1]["private"] = None
    gpu_group(stub, allows_public_repositories=True)
    proc = run_audit(stub)
    assert proc.returncode == 1 and "high: runner group 'gpu' allows public repositories" in proc.stdout, \
        proc.stdout + proc.stderr

def test_unknown_workflow_access_and_unplaced_labels_are_medium(stub):
    groups = stub.routes[("GET", "/orgs/acme/actions/runner-groups")][1]["runner_groups"]
    del groups[1]["restricted_to_workflows"]
    gpu = stub.routes[("GET", "/orgs/acme/actions/runner-groups/5/runners")][1]
    dropped = gpu["runners"].pop()["labels"][1]["name"]
    proc = run_audit(stub)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == 2 and all(line.startswith(f"{REPO}: medium: ") for line in lines), lines
    assert "no workflow access for runner group 'gpu' (restricted_to_workflows missing)" in lines[0]
    assert f"no organization runner group holds a runner labelled {dropped} (configs/runners.yaml)" in lines[1]


def test_user_owned_repository_skips_runner_groups(stub):
    stub.routes[("GET", BASE)][1]["owner"] = {"login": "acme", "id": 2, "type": "User"}
    stub.route("GET", "/orgs/acme/actions/runner-groups", {"message": "Not Found"}, 404)
    proc = run_audit(stub)
    assert proc.returncode == 0 and proc.stdout == "", proc.stdout + proc.stderr
    assert "acme is a user account, which has no runner groups: runner group checks skipped" in proc.stderr
    assert not any(path.startswith("/orgs/") for _, path, _ in stub.requests)


def test_no_org_admin_rights_is_one_line(stub):
    stub.route("GET", "/orgs/acme/actions/runner-groups",
               {"message": "You must be an org admin", "documentation_url": "https://docs.github.com/rest"}, 403)
    proc = run_audit(stub)
    assert proc.returncode == 1 and proc.stdout == "" and "Traceback" not in proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert "403 listing the runner groups of organization acme" in line and "'admin:org'" in line, line


def split_with_runners(tmp_path, matrix: dict):
    """(matrix path, `ci split --runners tmp_path` command, its environment) for ``matrix``."""
    path = tmp_path / "matrix.json"
    path.write_text(json.dumps(matrix))
    env = {**os.environ, "PYTHONPATH": str(ROOT / "utils")}
    env.pop("GITHUB_ACTIONS", None)
    cmd = [sys.executable, "-m", "sweepgate", "ci", "split", "--matrix", str(path), "--runners", str(tmp_path),
           "--output", str(tmp_path / "out")]
    return path, cmd, env


def test_split_refuses_runners_main_does_not_know(tmp_path):
    """The GPU side checks every row's runner against main's configs/runners.yaml."""
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs/runners.yaml").write_text("labels:\n  cluster:b300-nv: [b300-nv_00]\n")
    row = {"image": "vllm/vllm-openai:v0.11.0", "model": "deepseek-ai/DeepSeek-R1-0528", "model-prefix": "dsr1",
           "precision": "fp4", "framework": "vllm", "runner": "cluster:evil", "spec-decoding": "none",
           "exp-name": "x", "conc": 4, "tp": 8, "isl": 1024, "osl": 1024, "max-model-len": 2304}
    matrix = {"single_node": {"agentic": [row]}, "multi_node": {}, "evals": [], "agentic_evals": [],
              "multinode_evals": [], "multinode_agentic_evals": []}
    path, cmd, env = split_with_runners(tmp_path, matrix)
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    assert proc.returncode == 1 and "cluster:evil" in proc.stderr and "main" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and not (tmp_path / "out").exists()
    path.write_text(json.dumps({**matrix, "single_node": {"agentic": [{**row, "runner": "cluster:b300-nv"}]}}))
    assert subprocess.run(cmd, env=env, capture_output=True, text=True).returncode == 0


def test_split_checks_every_row_and_writes_nothing_when_it_cannot_finish(tmp_path):
    """Bad-input review: rows with conc Infinity or "abc" were split into jobs (each then failed at
    row-env), and a --job-context that could not be written came after the outputs were appended."""
    row = {"image": "vllm/vllm-openai:v0.11.0", "model": "deepseek-ai/DeepSeek-R1-0528", "model-prefix": "dsr1",
           "precision": "fp4", "framework": "vllm", "runner": "cluster:b300-nv", "spec-decoding": "none",
           "exp-name": "x", "conc": 4, "tp": 8, "isl": 1024, "osl": 1024, "max-model-len": 2304}
    matrix = {"single_node": {"1k1k": [row, {**row, "conc": float("inf")}, {**row, "conc": "abc"}]},
              "multi_node": {}, "evals": [], "agentic_evals": [], "multinode_evals": [], "multinode_agentic_evals": []}
    path = tmp_path / "matrix.json"
    path.write_text(json.dumps(matrix))
    env = {**os.environ, "PYTHONPATH": str(ROOT / "utils")}
    env.pop("GITHUB_ACTIONS", None)
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "sweepgate", "ci", "split", "--matrix", str(path), "--output", str(out)]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    assert proc.returncode == 1 and not out.exists(), proc.stderr
    assert proc.stderr.splitlines() == [
        f"{path}:1: fixed/1: row's conc holds NaN or Infinity; pass the JSON `sweepgate matrix` printed",
        f"{path}:1: fixed/2: row's conc \"abc\" is not a positive whole number (or a list of them) of at most "
        "1000000; pass the JSON `sweepgate matrix` printed"], proc.stderr
    path.write_text(json.dumps({**matrix, "single_node": {"1k1k": [row]}}))
    proc = subprocess.run([*cmd, "--job-context", str(tmp_path / "missing" / "ctx.json")], env=env,
                          capture_output=True, text=True, cwd=ROOT)
    # refused before any work, as every output file is (polish29; it said "cannot write here: No such file ...")
    assert proc.returncode == 1 and not out.exists(), proc.stderr
    assert proc.stderr.strip() == (f"{tmp_path / 'missing' / 'ctx.json'}: --job-context: its folder {tmp_path / 'missing'} "
                                   "does not exist; create the folder first or pass --job-context in an existing one")


def test_split_refuses_multinode_rows_on_a_runner_main_gives_no_node_shape(tmp_path):
    """New-maintainer review: InferenceX's runners.yaml has no `hardware:`; multi-node rows passed
    `ci split --runners`, row-env gave them no SWEEPGATE_NODES, and every launcher refused them on the
    GPU host, after the sweep had started (the README says such a row stops the split)."""
    from sweepgate.core.recipes import runs_multinode
    from sweepgate.core.sweep import worktree_rows

    row = next(r for r in worktree_rows(ROOT, None) if runs_multinode(r))
    (tmp_path / "configs").mkdir()
    labels = f"labels:\n  {row['runner']}: [{row['runner'].split(':')[-1]}_00]\n"
    (tmp_path / "configs/runners.yaml").write_text(labels)
    matrix = {"single_node": {}, "multi_node": {"1k1k": [row]}, "evals": [], "agentic_evals": [],
              "multinode_evals": [], "multinode_agentic_evals": []}
    _, cmd, env = split_with_runners(tmp_path, matrix)
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    (line,) = proc.stderr.strip().splitlines()
    assert proc.returncode == 1 and f"multi-node rows run on {row['runner']}, which has no gpus-per-node" in line
    assert not (tmp_path / "out").exists()
    (tmp_path / "configs/runners.yaml").write_text(
        labels + f"hardware:\n  {row['runner']}:\n    gpus-per-node: 8\n    available-cpu-dram-mib: 2000000\n")
    assert subprocess.run(cmd, env=env, capture_output=True, text=True).returncode == 0


def test_a_single_node_row_with_a_conc_list_is_refused_before_any_job(tmp_path):
    """Bad-input review: `ci split` and `ci row-env` passed a single-node row with conc [1, 2], and
    the job got CONC="[1, 2]" as its --max-concurrency."""
    row = {"image": "vllm/vllm-openai:v0.11.0", "model": "deepseek-ai/DeepSeek-R1-0528", "model-prefix": "dsr1",
           "precision": "fp4", "framework": "vllm", "runner": "cluster:b300-nv", "spec-decoding": "none",
           "exp-name": "x", "conc": [1, 2], "tp": 8, "isl": 1024, "osl": 1024, "max-model-len": 2304}
    matrix = {"single_node": {"1k1k": [row]}, "multi_node": {}, "evals": [], "agentic_evals": [],
              "multinode_evals": [], "multinode_agentic_evals": []}
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs/runners.yaml").write_text("labels:\n  cluster:b300-nv: [b300-nv_00]\n")
    _, cmd, env = split_with_runners(tmp_path, matrix)
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    (line,) = proc.stderr.strip().splitlines()
    assert proc.returncode == 1 and "row's conc [1, 2] is a list, which only a multi-node row carries" in line, line
    env_cmd = [sys.executable, "-m", "sweepgate", "ci", "row-env", "--row", json.dumps(row), "--runner-name",
               "b300-nv_00", "--output", str(tmp_path / "env")]
    proc = subprocess.run(env_cmd, env=env, capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 1 and "is a list, which only a multi-node row carries" in proc.stderr
    assert not (tmp_path / "env").exists()


@pytest.mark.parametrize("hardware, said", [
    ("hardware:\n  cluster:b300-nv: {gpus-per-node: 0}\n", "configs/runners.yaml:"),
    ('hardware:\n  cluster:b300-nv: {gpus-per-node: "8"}\n', "configs/runners.yaml:"),
    ("hardware:\n  cluster:b300-nv: {gpus-per-node: true}\n", "configs/runners.yaml:"),
    ("hardware:\n  - cluster:b300-nv\n", "configs/runners.yaml:"),
])
def test_a_runners_file_its_schema_refuses_stops_split_and_row_env_at_its_line(tmp_path, hardware, said):
    """Bad-input review: gpus-per-node 0, "8", -8 or true (or hardware as a list) passed `ci split
    --runners`; `ci row-env` then died with ZeroDivisionError/TypeError or exported nonsense."""
    from sweepgate.core.recipes import runs_multinode
    from sweepgate.core.sweep import worktree_rows

    row = next(r for r in worktree_rows(ROOT, None) if runs_multinode(r) and r["runner"] == "cluster:b300-nv")
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs/runners.yaml").write_text("labels:\n  cluster:b300-nv: [b300-nv_00]\n" + hardware)
    matrix = {"single_node": {}, "multi_node": {"1k1k": [row]}, "evals": [], "agentic_evals": [],
              "multinode_evals": [], "multinode_agentic_evals": []}
    _, cmd, env = split_with_runners(tmp_path, matrix)
    env_cmd = [sys.executable, "-m", "sweepgate", "ci", "row-env", "--row", json.dumps(row), "--runner-name",
               "b300-nv_00", "--output", str(tmp_path / "env")]
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    for argv in (cmd, env_cmd):
        proc = subprocess.run(argv, env=env, capture_output=True, text=True, cwd=tmp_path)
        assert proc.returncode == 1 and "internal error" not in proc.stderr, proc.stderr
        assert proc.stderr.startswith(said), proc.stderr
    assert not (tmp_path / "env").exists() and not (tmp_path / "out").exists()


def test_row_env_refuses_a_runner_outside_the_row_s_pool(tmp_path):
    """Known leftover: a runner with the GitHub label but not listed under it in runners.yaml (a machine
    of other hardware labelled by mistake) got the pool's hardware facts, and its results were stored
    as the pool's, its launcher never hashed into the run identity. Now row-env refuses the job."""
    row = {"image": "vllm/vllm-openai:v0.11.0", "model": "deepseek-ai/DeepSeek-R1-0528", "model-prefix": "dsr1",
           "precision": "fp4", "framework": "vllm", "runner": "cluster:b300-nv", "spec-decoding": "none",
           "exp-name": "x", "conc": 4, "tp": 8, "isl": 1024, "osl": 1024, "max-model-len": 2304}
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs/runners.yaml").write_text("labels:\n  cluster:b300-nv: [b300-nv_00, b300-nv_01]\n")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "utils")}

    def row_env(runner):
        out = tmp_path / f"env-{runner}"
        argv = [sys.executable, "-m", "sweepgate", "ci", "row-env", "--row", json.dumps(row), "--runner-name",
                runner, "--output", str(out)]
        return subprocess.run(argv, env=env, capture_output=True, text=True, cwd=tmp_path), out

    proc, out = row_env("h100-lab_03")
    (line,) = proc.stderr.strip().splitlines()
    # at --runner-name, which passed the name (s31i: it was said at RUNNER_NAME, which was not used)
    assert proc.returncode == 1 and line.startswith("--runner-name: runner 'h100-lab_03' took a row for "
                                                    "'cluster:b300-nv', whose pool"), line
    assert "add h100-lab_03 under labels.cluster:b300-nv in configs/runners.yaml" in line and not out.exists()
    proc, out = row_env("b300-nv_01")
    assert proc.returncode == 0 and "RESULT_FILENAME=" in out.read_text(), proc.stderr


@pytest.mark.parametrize("runner", ["../x_00", "b300/nv_00", "b300-nv..00", "b300-nv_00\x1b[2J", "b300 nv_00", "..",
                                    "b300-nv:00"])
def test_row_env_refuses_a_runner_name_that_is_no_file_name_when_no_pool_is_listed(tmp_path, runner):
    """Security review: with no runner names under the row's label, RUNNER_NAME (set by an admin) went
    unchecked into the job's file names and the launcher's path (launch_${RUNNER_NAME%%_*}.sh)."""
    row = {"image": "vllm/vllm-openai:v0.11.0", "model": "deepseek-ai/DeepSeek-R1-0528", "model-prefix": "dsr1",
           "precision": "fp4", "framework": "vllm", "runner": "cluster:b300-nv", "spec-decoding": "none",
           "exp-name": "x", "conc": 4, "tp": 8, "isl": 1024, "osl": 1024, "max-model-len": 2304}
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "utils")}
    out = tmp_path / "env"
    argv = [sys.executable, "-m", "sweepgate", "ci", "row-env", "--row", json.dumps(row), "--output", str(out)]
    proc = subprocess.run(argv, env={**env, "RUNNER_NAME": runner}, capture_output=True, text=True, cwd=tmp_path)
    (line,) = proc.stderr.strip().splitlines()
    assert proc.returncode == 1 and line.startswith(f"RUNNER_NAME: runner name {runner!r} is not one file name"), line
    assert not out.exists()
    proc = subprocess.run(argv, env={**env, "RUNNER_NAME": "b300-nv_00"}, capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0 and "RESULT_FILENAME=" in out.read_text(), proc.stderr


def main_tag(stub) -> None:
    """GitHub's "Get a reference" answer for a tag named main."""
    stub.route("GET", f"{BASE}/git/ref/tags/main", {
        "ref": "refs/tags/main", "node_id": "REF_1", "url": f"{stub.url}{BASE}/git/refs/tags/main",
        "object": {"type": "commit", "sha": "a" * 40, "url": f"{stub.url}{BASE}/git/commits/{'a' * 40}"}})


def test_a_short_main_ref_is_medium_and_high_while_a_tag_named_main_exists(stub):
    """GitHub's runner group documentation calls a short ref ambiguous and advises refs/heads/main: a group
    admitting the GPU workflows at `@main` also admits them at a tag named main, which a writer can push past
    main's branch rules. The audit passed such a group silently (allowed_workflows held both forms), and
    its fix for a group restricted to no workflow named the short form."""
    proc = run_audit(stub)  # the full ref: the repository's tags are not asked for
    assert proc.returncode == 0 and not any("/git/" in path for _, path, _ in stub.requests), stub.requests
    short = [f"{WF}/{n}@main" for n in audit.GPU_WORKFLOWS]
    gpu_group(stub, selected_workflows=short)
    stub.route("GET", f"{BASE}/git/ref/tags/main", {"message": "Resource not accessible by personal access token"},
               403)  # a token that may not read the refs: the short ref is still said, and the audit ends
    assert run_audit(stub).stdout.startswith(f"{REPO}: medium: runner group 'gpu' admits {WF}/")
    stub.route("GET", f"{BASE}/git/ref/tags/main", {"message": "Not Found"}, 404)
    proc = run_audit(stub)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (line,) = proc.stdout.splitlines()
    assert line == (f"{REPO}: medium: runner group 'gpu' admits {', '.join(sorted(short))}, a short ref, which a tag "
                    "named main (pushed past main's branch rules) would match too; organization acme Settings > "
                    "Actions > Runner groups > gpu > Workflow access: name them at @refs/heads/main, as GitHub's "
                    "documentation advises"), line
    main_tag(stub)
    proc = run_audit(stub)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    (line,) = proc.stdout.splitlines()
    assert line.startswith(f"{REPO}: high: runner group 'gpu' admits {sorted(short)[0]}") and \
        "and the repository has a tag named main" in line, line
    gpu_group(stub, selected_workflows=[f"{WF}/{n}@refs/heads/main" for n in audit.GPU_WORKFLOWS])
    proc = run_audit(stub)  # the full ref names the branch alone: the tag is no finding
    assert proc.returncode == 0 and proc.stdout == "", proc.stdout + proc.stderr
    gpu_group(stub, restricted_to_workflows=False)
    (line,) = run_audit(stub).stdout.splitlines()
    assert "@main" not in line and line.count("@refs/heads/main") == len(audit.GPU_WORKFLOWS), line
