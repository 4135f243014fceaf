"""`sweepgate ci audit` against a local REST stand-in answering GitHub's documented shapes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "utils"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from github_stub import TOKEN, GitHubStub  # noqa: E402
from sweepgate.workflow import audit  # noqa: E402

REPO = "acme/bench"
BASE = f"/repos/{REPO}"
WF = f"{REPO}/.github/workflows"


def good_setup(stub) -> None:
    """A repository configured as docs/security.md says."""
    stub.route("GET", BASE, {"id": 1, "name": "bench", "full_name": REPO, "url": f"{stub.url}{BASE}",
                             "owner": {"login": "acme", "id": 2, "type": "Organization"}})
    stub.route("GET", "/orgs/acme/actions/runner-groups", {"total_count": 2, "runner_groups": [
        {"id": 1, "name": "Default", "visibility": "all", "default": True, "allows_public_repositories": False,
         "restricted_to_workflows": False, "selected_workflows": [], "workflow_restrictions_read_only": False},
        {"id": 5, "name": "gpu", "visibility": "selected", "default": False, "allows_public_repositories": False,
         "restricted_to_workflows": True, "workflow_restrictions_read_only": False,
         "selected_workflows": [f"{WF}/{n}@refs/heads/main" for n in audit.GPU_WORKFLOWS]}]})
    stub.route("GET", "/orgs/acme/actions/runner-groups/1/runners", {"total_count": 0, "runners": []})
    stub.route("GET", "/orgs/acme/actions/runner-groups/5/runners", {"total_count": 1, "runners": [
        {"id": 21, "name": "b300-nv_00", "os": "linux", "status": "online", "busy": False,
         "labels": [{"id": 1, "name": "self-hosted", "type": "read-only"},
                    {"id": 2, "name": "cluster:b300-nv", "type": "custom"}]}]})
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


def repo_runner(stub):
    stub.route("GET", f"{BASE}/actions/runners", {"total_count": 1, "runners": [
        {"id": 9, "name": "gpu-box", "os": "linux", "status": "online", "busy": False, "labels": []}]})


MISCONFIGURATIONS = [
    ("unrestricted-group", unrestricted_group, "runner group 'gpu' is not restricted to workflows"),
    ("group-admits-pr-workflow", extra_workflow, "admits acme/bench/.github/workflows/pr-sweep.yml"),
    ("group-admits-branch", branch_workflow, "run-sweep.yml@refs/heads/feature"),
    ("repo-level-runner", repo_runner, "registered on the repository (gpu-box)"),
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


def test_split_refuses_runners_main_does_not_know(tmp_path):
    """The GPU side checks every row's runner against main's configs/runners.yaml."""
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs/runners.yaml").write_text("labels:\n  cluster:b300-nv: [b300-nv_00]\n")
    row = {"runner": "cluster:evil", "exp-name": "x"}
    matrix = {"single_node": {"agentic": [row]}, "multi_node": {}, "evals": [], "agentic_evals": [],
              "multinode_evals": [], "multinode_agentic_evals": []}
    path = tmp_path / "matrix.json"
    path.write_text(json.dumps(matrix))
    env = {**os.environ, "PYTHONPATH": str(ROOT / "utils")}
    env.pop("GITHUB_ACTIONS", None)
    cmd = [sys.executable, "-m", "sweepgate", "ci", "split", "--matrix", str(path), "--runners", str(tmp_path),
           "--output", str(tmp_path / "out")]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    assert proc.returncode == 1 and "cluster:evil" in proc.stderr and "main" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and not (tmp_path / "out").exists()
    path.write_text(json.dumps({**matrix, "single_node": {"agentic": [{**row, "runner": "cluster:b300-nv"}]}}))
    assert subprocess.run(cmd, env=env, capture_output=True, text=True).returncode == 0
