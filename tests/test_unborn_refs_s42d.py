"""A new repository, no commit yet: its refs are named as such (s42d, a new user's walk).

`sweepgate validate --base-ref main --head-ref HEAD` (README's PR steps) in a repository made with
`git init` whose first commit is not made yet said `git: 'main' is not a commit in ROOT; pass --base-ref
with a branch, tag or commit that exists here (fetch it first in CI)`: nothing to fetch, and no
branch would do. It now says the repository has no commit yet, and that a first commit is the way.
"""

from __future__ import annotations

import shutil

import pytest

from tests.test_new_user import git, one_clear_line, sg
from sweepgate.commands import example


@pytest.fixture(scope="module")
def unborn(tmp_path_factory):
    """The example fleet's files, staged in a repository with no commit."""
    repo = tmp_path_factory.mktemp("unborn")
    example.build_repo(str(repo))
    shutil.rmtree(repo / ".git")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    return repo


def test_a_ref_of_a_repository_with_no_commit_says_so(unborn):
    """Each command that reads refs, the unborn branch's name and HEAD alike."""
    for command, base, head in (("validate", "main", "HEAD"), ("matrix", "HEAD", "HEAD"), ("plan", "main", "main")):
        proc = sg(unborn / "configs", command, "--base-ref", base, "--head-ref", head)
        line = one_clear_line(proc, f"git: '{base}' is not a commit in ", "(this repository has no commit yet)")
        assert "fetch it first" not in line and line.endswith(
            "; make the first commit (git commit), then pass its branch; sweepgate validate --staged checks "
            "the changelog staged for it"), line


def test_a_mistyped_branch_in_a_repository_with_commits_is_not_told_so(unborn, tmp_path):
    repo = tmp_path / "born"
    shutil.copytree(unborn, repo)
    git(repo, "commit", "-q", "-m", "first")
    line = one_clear_line(sg(repo, "validate", "--base-ref", "trunk", "--head-ref", "HEAD"),
                          "git: 'trunk' is not a commit in ")
    assert "no commit yet" not in line and line.endswith("(fetch it first in CI)"), line
