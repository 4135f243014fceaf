"""`sweepgate ci audit` in a benchmark repository with the copied workflows (s41q): one of them,
pr-sweep.yml, runs on pull_request (sweepgate's own ci.yml is not copied), and the secret finding
names it in a sentence that reads."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))

from github_stub import TOKEN, GitHubStub  # noqa: E402
from test_ci_audit import BASE, REPO, good_setup, secret  # noqa: E402


def test_a_repository_secret_names_the_one_pull_request_workflow_that_runs_pr_code(tmp_path):
    """Walk of README's *The workflows in another repository* (s41q): with pr-sweep.yml the only
    pull_request workflow the finding said `pr-sweep.yml (pull_request) run PR code`."""
    (tmp_path / "configs").mkdir()
    shutil.copy(ROOT / "configs" / "runners.yaml", tmp_path / "configs" / "runners.yaml")
    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    for name in ("pr-sweep.yml", "run-sweep.yml"):
        shutil.copy(ROOT / ".github" / "workflows" / name, tmp_path / ".github" / "workflows" / name)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@localhost", "-C", str(tmp_path)]
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "bench"]):
        subprocess.run([*git, *args], check=True)
    stub = GitHubStub()
    try:
        good_setup(stub)
        stub.route("GET", f"{BASE}/actions/secrets", {"total_count": 1, "secrets": [secret("HF_TOKEN")]})
        env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
        env.update(PYTHONPATH=str(ROOT / "utils"), GITHUB_TOKEN=TOKEN)
        proc = subprocess.run([sys.executable, "-m", "sweepgate", "ci", "audit", "--repository", REPO,
                               "--api-url", stub.url], env=env, capture_output=True, text=True, cwd=tmp_path)
    finally:
        stub.close()
    assert proc.returncode == 1, proc.stdout + proc.stderr
    # the settings' findings (the copies' own, the files this walk left out, are tests/test_adoption_s51f.py's)
    (line,) = [line for line in proc.stdout.splitlines() if line.startswith(f"{REPO}: ")]
    assert "repository secret HF_TOKEN is available to every workflow; pr-sweep.yml (pull_request) runs PR code;" \
        in line, line
