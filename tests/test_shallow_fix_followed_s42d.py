"""A shallow clone's fix, followed as written, works (s42d, a new user's walk).

`git clone --depth 1` implies `--single-branch`: its remote's fetch refspec names the cloned branch
alone, so `git fetch origin main`, as both shallow-clone messages said, wrote FETCH_HEAD only and
no `origin/main`; and where `origin/main` does come (actions/checkout's depth-1 checkout keeps the
default refspec), the checked-out commit's history stays cut, so `validate --staged` still found no
merge-base. The same refusal came back, word for word, after its own fix. Each test here runs the
command the message names, as printed, and the command it refused then passes.
"""

from __future__ import annotations

import re
import shlex
import subprocess

import pytest

from tests.test_new_user import git, one_clear_line, sg
from sweepgate.commands import example


@pytest.fixture(scope="module")
def origin(tmp_path_factory):
    """main at the seed base, 'feature' one commit on: the seed change, appending its entry."""
    repo = tmp_path_factory.mktemp("origin")
    example.build_repo(str(repo))
    git(repo, "branch", "feature", "HEAD")
    git(repo, "reset", "-q", "--hard", "HEAD~1")
    return repo


def single_branch(origin, tmp_path):
    """`git clone --depth 1 --branch feature`: no origin/main, HEAD's parent cut off."""
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--depth", "1", "--branch", "feature", f"file://{origin}", str(clone)],
                   check=True)
    return clone


def checkout_like(origin, tmp_path):
    """actions/checkout's default: git init, the default refspec, one commit fetched at depth 1, detached."""
    clone = tmp_path / "checkout"
    clone.mkdir()
    head = git(origin, "rev-parse", "feature").strip()
    for cmd in (["init", "-q"], ["remote", "add", "origin", f"file://{origin}"],
                ["fetch", "-q", "--depth=1", "origin", f"+{head}:refs/remotes/pull/7/merge"],
                ["checkout", "-q", "--detach", "refs/remotes/pull/7/merge"]):
        git(clone, *cmd)
    return clone


def run_the_fix(clone, command: str, **names: str) -> None:
    """Run the git command a message names, its placeholders (BRANCH) filled in."""
    for name, value in names.items():
        command = command.replace(name, value)
    argv = shlex.split(command)
    assert argv[:2] == ["git", "fetch"], command
    git(clone, *argv[1:])


@pytest.mark.parametrize("make", [single_branch, checkout_like])
def test_the_staged_fix_of_a_shallow_clone_works_when_followed(origin, tmp_path, make):
    clone = make(origin, tmp_path)
    line = one_clear_line(sg(clone / "configs", "validate", "--staged"), "(this clone is shallow)")
    command = re.search(r"\((git fetch [^;)]*)[;)]", line)
    assert command, line
    run_the_fix(clone, command.group(1))
    proc = sg(clone / "configs", "validate", "--staged")
    assert proc.returncode == 0, (line, proc.stderr)
    assert "appended entr" in proc.stdout and "no entry appended" not in proc.stdout, proc.stdout


def test_a_branch_left_out_of_a_single_branch_clone_is_fetched_as_the_fix_says(origin, tmp_path):
    clone = single_branch(origin, tmp_path)
    line = one_clear_line(sg(clone, "validate", "--base-ref", "origin/main", "--head-ref", "HEAD"),
                          "git: 'origin/main' is not a commit in ", "(this clone is shallow)")
    command = re.search(r", (git fetch origin \S+) for a branch left out", line)
    assert command, line
    run_the_fix(clone, command.group(1), BRANCH="main")
    proc = sg(clone, "validate", "--base-ref", "origin/main", "--head-ref", "HEAD")
    assert proc.returncode == 0, (line, proc.stderr)
    assert "appended entr" in proc.stdout, proc.stdout
