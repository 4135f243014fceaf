"""`sweepgate preflight --base-ref B --head-ref H` rehearses H's rows with the scripts on disk, so
the disk must hold H's scripts."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = "benchmarks/single_node/fixed_seq_len/dsr1_fp8_b300_vllm.sh"
ENV = {**os.environ, "PYTHONPATH": str(ROOT / "utils"), "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
       "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_CONFIG_GLOBAL": os.devnull,
       "GIT_CONFIG_NOSYSTEM": "1"}
ENTRY = ('\n- config-keys:\n    - dsr1-fp8-b300-vllm\n  description:\n    - "x"\n'
         "  pr-link: https://github.com/sweepgate/example-fleet/pull/6\n")


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=ENV)


def fleet(tmp_path: Path, branch: str) -> Path:
    """A repository of this one's configs, benchmarks and changelog, committed once on ``branch``."""
    repo = tmp_path / "fleet"
    for name in ("configs", "benchmarks"):
        shutil.copytree(ROOT / name, repo / name)
    shutil.copy(ROOT / "perf-changelog.yaml", repo / "perf-changelog.yaml")
    git(repo, "init", "-q", "-b", branch)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    return repo


def preflight(repo: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sweepgate", "preflight", *args], cwd=repo, capture_output=True,
                          text=True, env={k: v for k, v in ENV.items() if k != "GITHUB_ACTIONS"}, timeout=300)


def test_a_head_whose_scripts_are_not_on_disk_is_refused_not_passed(tmp_path):
    """Plan/preflight review: with master checked out, `preflight --base-ref master --head-ref pr1`
    rehearsed master's scripts for pr1's rows and printed '5 rows, 0 problems' (exit 0), though pr1
    broke a flag the checked-out pr1 is refused for."""
    repo = fleet(tmp_path, "master")
    git(repo, "checkout", "-q", "-b", "pr1")
    script = repo / SCRIPT
    script.write_text(script.read_text().replace("--kv-cache-dtype fp8", "--kv-cache-dtype fp9"))
    with (repo / "perf-changelog.yaml").open("a") as f:
        f.write(ENTRY)
    git(repo, "commit", "-qam", "pr1")
    git(repo, "checkout", "-q", "master")
    proc = preflight(repo, "--base-ref", "master", "--head-ref", "pr1")
    assert proc.returncode == 1 and proc.stdout == "", proc.stdout + proc.stderr
    assert proc.stderr.strip() == (
        f"{SCRIPT}: differs from --head-ref pr1; preflight runs the scripts in the working tree, so it would "
        "not check the head's; check out pr1 first (git checkout pr1), or commit them and pass that commit "
        "as --head-ref"), proc.stderr
    git(repo, "checkout", "-q", "pr1")
    # New-user check: on pr1 itself, an untracked file was told to "check out pr1 first"; and (s33d) that it
    # "differs from" a head it was never in, as charts `--plots charts` drew in benchmarks/ were.
    (repo / "benchmarks" / "scratch.sh").write_text("echo hi\n")
    proc = preflight(repo, "--base-ref", "master", "--head-ref", "pr1")
    assert proc.returncode == 1 and proc.stderr.strip() == (
        "benchmarks/scratch.sh: is not in --head-ref pr1; preflight runs the scripts in the working tree, so it "
        "would not check the head's; commit, stash (git stash -u) or remove the changes first, or commit them and "
        "pass that commit as --head-ref"), proc.stderr
    (repo / "benchmarks" / "scratch.sh").unlink()
    proc = preflight(repo, "--base-ref", "master", "--head-ref", "pr1")
    assert proc.returncode == 1 and "fp9" in proc.stderr and f"{SCRIPT}:" in proc.stderr, proc.stdout + proc.stderr


def test_a_changelog_file_without_refs_is_argument_syntax(tmp_path):
    """Hunt badin18 (left open, then fixed): `preflight --changelog-file X` without refs was ignored in
    silence, every row of the working tree checked as if it had not been given."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    r = preflight(tmp_path, "--changelog-file", "other-changelog.yaml")
    assert r.returncode == 2 and "argument --changelog-file: needs --base-ref and --head-ref (it picks rows by the " \
        "entries a change appends)" in r.stderr, r.stderr
