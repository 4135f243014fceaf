"""A clone without its default branch is no base to gate against (s42j, a new user's walk).

- A full clone made with `git clone --single-branch -b feature` has no origin/main and no main.
  `validate --staged` took HEAD as its base and said "ok (no entry appended)" of a branch that appended
  an entry to main's changelog: a gate that passed without comparing against main. With a remote and none
  of its default branches here, it now refuses, with the fetch that gives it one; a repository with no
  remote keeps HEAD (test_gate's trunk case), and before a first commit the empty history.
- A full clone of a repository whose default branch is trunk has origin/HEAD -> origin/trunk, which
  canonicalize already took as its base and validate --staged did not (HEAD again): both take it now.
- `changelog canonicalize` in a shallow actions/checkout-style clone said "none of origin/main, ... exists;
  pass --base BRANCH" without saying the clone was shallow nor how to fetch: it says both now, in the
  words validate --staged uses, and the fetch it names, followed, lets it run.
"""

from __future__ import annotations

import re
import subprocess

from tests.test_new_user import git, one_clear_line, sg
from tests.test_shallow_fix_followed_s42d import checkout_like, origin, run_the_fix  # noqa: F401 (a fixture)

MAIN_FETCH = "git fetch origin main:refs/remotes/origin/main"


def clone(origin, tmp_path, *flags: str):
    path = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", *flags, f"file://{origin}", str(path)], check=True)
    return path


def test_a_single_branch_clone_is_refused_until_it_fetches_main(origin, tmp_path):
    repo = clone(origin, tmp_path, "--single-branch", "-b", "feature")
    line = one_clear_line(sg(repo / "configs", "validate", "--staged"), "--base-ref: ", "--single-branch",
                          f"({MAIN_FETCH}) or pass --base-ref")
    run_the_fix(repo, re.search(r"\((git fetch [^)]*)\)", line).group(1))
    proc = sg(repo / "configs", "validate", "--staged")
    assert proc.returncode == 0 and "appended entries" in proc.stdout, (proc.stdout, proc.stderr)


def test_canonicalize_in_a_single_branch_clone_names_the_fetch(origin, tmp_path):
    repo = clone(origin, tmp_path, "--single-branch", "-b", "feature")
    line = one_clear_line(sg(repo, "changelog", "canonicalize", "--pr-number", "7"), "git: none of origin/main")
    assert line.endswith(f"({MAIN_FETCH}) or pass the branch this one will merge into (--base BRANCH)"), line


def test_a_default_branch_named_trunk_is_the_base(origin, tmp_path):
    trunk = tmp_path / "trunk"
    subprocess.run(["git", "clone", "-q", "--bare", str(origin), str(trunk)], check=True)
    git(trunk, "branch", "-m", "main", "trunk")
    git(trunk, "symbolic-ref", "HEAD", "refs/heads/trunk")
    repo = clone(trunk, tmp_path, "-b", "feature")
    assert git(repo, "symbolic-ref", "--short", "refs/remotes/origin/HEAD").strip() == "origin/trunk"
    proc = sg(repo, "validate", "--staged")
    assert proc.returncode == 0 and "appended entries" in proc.stdout, (proc.stdout, proc.stderr)


def test_canonicalize_in_a_shallow_checkout_says_so_and_its_fetch_works(origin, tmp_path):
    repo = checkout_like(origin, tmp_path)
    line = one_clear_line(sg(repo / "configs", "changelog", "canonicalize", "--pr-number", "7"),
                          "git: none of origin/main", "(this clone is shallow)")
    staged = one_clear_line(sg(repo / "configs", "validate", "--staged"), "(this clone is shallow)")
    fetch = re.search(r"; (fetch the default branch and the history this clone cut off \([^)]*\))", staged).group(1)
    assert f"; {fetch} or pass the branch this one will merge into (--base BRANCH)" in line, line
    run_the_fix(repo, re.search(r"\((git fetch [^;)]*)[;)]", line).group(1))
    proc = sg(repo / "configs", "changelog", "canonicalize", "--pr-number", "7")
    assert proc.returncode == 0 and "nothing to do" in proc.stdout, (proc.stdout, proc.stderr)
