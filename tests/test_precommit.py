"""sweepgate's hook as another repository gets it: through the real pre-commit tool.

pre-commit clones this repository (as a local git repository holding this checkout:
HEAD, plus any uncommitted change, so the test checks what is being edited), builds the
hook's own virtualenv with `pip install .` (sweepgate's dependencies come from the package
index; pip's cache is kept), and runs `.pre-commit-hooks.yaml`'s `entry` in a scratch
repository laid out like InferenceX. The environment is built once for the module
(one PRE_COMMIT_HOME); every test reuses it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import CHANGELOG, GitRepo, appended_entry

REPO = Path(__file__).resolve().parents[1]
HOOK_ID = "sweepgate-validate-changelog"
DIAGNOSTIC = re.compile(r"^perf-changelog\.yaml:\d+(:\d+)?: \S.*$", re.MULTILINE)
# A variable a caller's shell or git hook may set that would change what pre-commit or git do here.
_INHERITED_NOT_WANTED = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "SKIP", "PRE_COMMIT",
                         "PRE_COMMIT_HOME", "GITHUB_ACTIONS", "GITHUB_OUTPUT", "GITHUB_REPOSITORY")


def _git(cwd: Path, *args: str) -> str:
    return GitRepo(cwd).git(*args)


def _overlay_work_tree(clone: Path) -> None:
    """Make the clone's files this checkout's (tracked and untracked, not ignored), deletions included."""
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=REPO,
                            capture_output=True, text=True, check=True).stdout.split("\0")
    wanted = {rel for rel in listed if rel and (REPO / rel).exists()}
    for rel in filter(None, _git(clone, "ls-files", "-z").split("\0")):
        if rel not in wanted:
            (clone / rel).unlink()
    for rel in wanted:
        target = clone / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.is_symlink() or target.exists():
            target.unlink()
        shutil.copy2(REPO / rel, target, follow_symlinks=False)
    _git(clone, "add", "-A")
    if _git(clone, "status", "--porcelain"):
        _git(clone, "commit", "-q", "-m", "uncommitted changes of the checkout under test")


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory) -> tuple[Path, str]:
    """(a git repository pre-commit can clone, the full SHA of the commit to pin as `rev:`)."""
    clone = tmp_path_factory.mktemp("sweepgate-clone")
    _git(clone, "init", "-q")
    _git(clone, "fetch", "-q", str(REPO), "HEAD")
    _git(clone, "checkout", "-q", "-b", "hooks", "FETCH_HEAD")
    _overlay_work_tree(clone)
    return clone, _git(clone, "rev-parse", "HEAD").strip()


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _INHERITED_NOT_WANTED}
    return {**env, "PRE_COMMIT_HOME": str(home), "NO_COLOR": "1",
            "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
            "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}


def _write_config(user: Path, hook_repo: tuple[Path, str]) -> None:
    clone, sha = hook_repo
    (user / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {clone}\n    rev: {sha}\n    hooks:\n      - id: {HOOK_ID}\n")


@pytest.fixture(scope="module")
def precommit(hook_repo, tmp_path_factory):
    """precommit(cwd, *args) -> CompletedProcess of `python -m pre_commit ARGS` with the module's
    PRE_COMMIT_HOME, whose hook environment this fixture builds once (`pre-commit install-hooks`)."""
    home = tmp_path_factory.mktemp("pre-commit-home")

    def run(cwd: Path, *args: str, timeout: int = 300) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "pre_commit", *args], cwd=cwd, env=_env(home),
                              capture_output=True, text=True, timeout=timeout)

    builder = tmp_path_factory.mktemp("builder")
    _git(builder, "init", "-q")
    _write_config(builder, hook_repo)
    built = run(builder, "install-hooks", "--color=never", timeout=1800)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    run.env = _env(home)
    return run


@pytest.fixture
def user_repo(make_repo, hook_repo) -> GitRepo:
    """The example fleet on main (no remote), its .pre-commit-config.yaml pinned to the hook repository."""
    repo = make_repo()
    _write_config(repo.path, hook_repo)
    repo.commit(message="use sweepgate's hook")
    return repo


def _ran(proc: subprocess.CompletedProcess, outcome: str) -> str:
    """The run's output, after checking that the hook ran (not skipped) and ended with ``outcome``."""
    out = proc.stdout + proc.stderr
    assert re.search(rf"^sweepgate validate perf-changelog\.yaml\.+{outcome}$", out, re.MULTILINE), out
    return out


def test_a_valid_entry_passes_through_pre_commit(user_repo, precommit):
    user_repo.write("perf-changelog.yaml", CHANGELOG + appended_entry("XXX"))
    user_repo.git("add", "perf-changelog.yaml")
    proc = precommit(user_repo.path, "run", "--color=never")
    _ran(proc, "Passed")
    assert proc.returncode == 0


def test_an_edited_history_line_fails_with_its_line(user_repo, precommit):
    user_repo.write("perf-changelog.yaml", CHANGELOG.replace("Initial DeepSeek", "First DeepSeek")
                    + appended_entry("XXX"))
    user_repo.git("add", "perf-changelog.yaml")
    proc = precommit(user_repo.path, "run", "--color=never")
    out = _ran(proc, "Failed")
    assert proc.returncode == 1
    assert f"- hook id: {HOOK_ID}" in out
    assert re.search(r"^perf-changelog\.yaml:4(:\d+)?: .*history", out, re.MULTILINE), out
    assert "Traceback" not in out


def test_a_misspelt_config_key_fails_with_its_line(user_repo, precommit):
    entry = appended_entry("XXX").replace("dsr1-fp4-b300-vllm", "dsr1-fp4-b300-vlm")
    user_repo.write("perf-changelog.yaml", CHANGELOG + entry)
    user_repo.git("add", "perf-changelog.yaml")
    proc = precommit(user_repo.path, "run", "--color=never")
    out = _ran(proc, "Failed")
    assert proc.returncode == 1
    line = next(m.group(0) for m in DIAGNOSTIC.finditer(out))
    assert "dsr1-fp4-b300-vlm" in line, out
    assert "Traceback" not in out


def test_a_commit_from_a_subfolder_of_a_feature_branch(user_repo, precommit, tmp_path):
    """As a user works: a clone (origin/main), a branch, `pre-commit install`, `git commit` in configs/."""
    GitRepo(tmp_path).git("clone", "-q", str(user_repo.path), "user-clone")
    user = GitRepo(tmp_path / "user-clone")
    user.git("checkout", "-q", "-b", "bump")
    configs = user.path / "configs"
    assert precommit(user.path, "install").returncode == 0
    user.write("perf-changelog.yaml", CHANGELOG + appended_entry("XXX").replace("description", "descripton"))
    user.git("add", "perf-changelog.yaml")
    run = precommit(configs, "run", "--color=never")
    assert run.returncode == 1 and DIAGNOSTIC.search(_ran(run, "Failed")), run.stdout
    head = user.head()
    refused = subprocess.run(["git", "commit", "-q", "-m", "bad entry"], cwd=configs, env=precommit.env,
                             capture_output=True, text=True, timeout=300)
    assert refused.returncode != 0 and user.head() == head, refused.stdout + refused.stderr
    assert DIAGNOSTIC.search(_ran(refused, "Failed")), refused.stdout
    user.write("perf-changelog.yaml", CHANGELOG + appended_entry("XXX"))
    user.git("add", "perf-changelog.yaml")
    assert precommit(configs, "run", "--color=never").returncode == 0
    made = subprocess.run(["git", "commit", "-q", "-m", "bump"], cwd=configs, env=precommit.env,
                          capture_output=True, text=True, timeout=300)
    _ran(made, "Passed")
    assert made.returncode == 0 and user.head() != head, made.stdout + made.stderr


def test_a_config_change_alone_runs_the_gate(user_repo, precommit, tmp_path):
    """`files:` covers configs/: renaming a key the branch's own entry names is refused at commit time."""
    GitRepo(tmp_path).git("clone", "-q", str(user_repo.path), "user-clone")
    user = GitRepo(tmp_path / "user-clone")
    user.git("checkout", "-q", "-b", "bump")
    user.commit_changelog(CHANGELOG + appended_entry("XXX"), "entry")
    fleet = user.read("configs/nvidia-master.yaml").decode()
    user.write("configs/nvidia-master.yaml", fleet.replace("dsr1-fp4-b300-vllm:", "dsr1-fp4-b300-vllm-v2:"))
    user.git("add", "configs/nvidia-master.yaml")
    proc = precommit(user.path, "run", "--color=never")
    out = _ran(proc, "Failed")
    assert proc.returncode == 1 and "dsr1-fp4-b300-vllm" in DIAGNOSTIC.search(out).group(0), out


def test_the_gate_runs_at_commit_time_not_at_push_time(user_repo, precommit, tmp_path):
    """gate27: with no `stages:`, a repository that also installed pre-push hooks ran `validate --staged`
    at `git push`, on the index (pre-commit stashes only unstaged edits), which is not what is pushed:
    good commits were refused for a staged edit not yet committed (and bad ones would pass on a good
    index). The gate still runs on request (`--hook-stage manual`)."""
    GitRepo(tmp_path).git("clone", "-q", str(user_repo.path), "user-clone")
    user = GitRepo(tmp_path / "user-clone")
    user.git("checkout", "-q", "-b", "bump")
    user.commit_changelog(CHANGELOG + appended_entry("XXX"), "entry")  # pushed: a valid entry
    assert precommit(user.path, "install", "--hook-type", "pre-commit", "--hook-type", "pre-push").returncode == 0
    user.write("perf-changelog.yaml", CHANGELOG.replace("Initial DeepSeek", "First DeepSeek") + appended_entry("XXX"))
    user.git("add", "perf-changelog.yaml")  # staged, not committed: pre-commit stashes only unstaged edits
    manual = precommit(user.path, "run", "--color=never", "--hook-stage", "manual", "--all-files")
    assert manual.returncode == 1 and DIAGNOSTIC.search(_ran(manual, "Failed")), manual.stdout
    pushed = subprocess.run(["git", "push", "-q", "origin", "bump"], cwd=user.path, env=precommit.env,
                            capture_output=True, text=True, timeout=300)
    assert pushed.returncode == 0, pushed.stdout + pushed.stderr
    assert "sweepgate validate" not in pushed.stdout + pushed.stderr, pushed.stdout + pushed.stderr
    assert GitRepo(user_repo.path).git("rev-parse", "bump").strip() == user.head()


def _readme_config(hook_repo: tuple[Path, str]) -> str:
    """README's `.pre-commit-config.yaml`, its placeholders filled with the hook repository and commit."""
    text = (REPO / "README.md").read_text()
    section = text[text.index("## Pre-commit hook"):]
    block = section[section.index("```yaml\n") + len("```yaml\n"):]
    block = block[:block.index("```")]
    clone, sha = hook_repo
    return (block.replace("https://github.com/<owner>/sweepgate", str(clone))
            .replace("<full commit SHA or tag>", sha))


def test_readme_s_setup_also_checks_a_merge_git_commits_by_itself(user_repo, precommit, hook_repo, tmp_path):
    """New-user walk (s39c): README said "run `pre-commit install`", which installs the commit hook only, so
    the hook's pre-merge-commit stage never ran: `git merge side` without a conflict committed a changelog
    entry naming a key no config has. With README's config, `pre-commit install` sets up both."""
    GitRepo(tmp_path).git("clone", "-q", str(user_repo.path), "user-clone")
    user = GitRepo(tmp_path / "user-clone")
    user.commit({".pre-commit-config.yaml": _readme_config(hook_repo)}, "README's pre-commit config")
    user.git("checkout", "-q", "-b", "side")
    user.commit_changelog(CHANGELOG + appended_entry("XXX").replace("dsr1-fp4-b300-vllm", "dsr1-fp4-b300-vlm"))
    user.git("checkout", "-q", "-b", "bump", "main")
    user.commit({"notes.txt": "x"}, "notes")
    assert precommit(user.path, "install").returncode == 0
    head = user.head()
    merged = subprocess.run(["git", "merge", "--no-edit", "side"], cwd=user.path, env=precommit.env,
                            capture_output=True, text=True, timeout=300)
    out = merged.stdout + merged.stderr
    assert merged.returncode != 0 and user.head() == head, out
    assert "dsr1-fp4-b300-vlm" in DIAGNOSTIC.search(_ran(merged, "Failed")).group(0), out


def test_readme_s_command_runs_the_hook_on_request_with_nothing_staged(user_repo, precommit):
    """New-user walk (s41i): README's `pre-commit run --hook-stage manual` "runs it on request", but with
    nothing staged it said `(no files to check)Skipped`: the hook's `files:` keep it to commits that change
    the changelog or configs, as they should. README's command (`--all-files`) runs it, on a clean tree."""
    from test_loose_ends_s39l import readme_on_request

    command = readme_on_request().split()
    assert command[:2] == ["pre-commit", "run"] and not user_repo.git("status", "--porcelain").strip()
    proc = precommit(user_repo.path, *command[1:], "--color=never")
    _ran(proc, "Passed")
    assert proc.returncode == 0 and "Skipped" not in proc.stdout, proc.stdout
