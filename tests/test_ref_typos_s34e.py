"""A mistyped revision (`--base-ref mian`, `--onto orgin/main`) is told the name that is here (s34e).

A maintainer adopting sweepgate typed `--base-ref mian` and read only "pass --base-ref with a branch, tag
or commit that exists here": right, but the name they meant was one letter away. The refusal now names the
branch, remote-tracking branch or tag nearest the one given (HEAD too), keeping a `~N` suffix, and says
nothing more where none is near, or where the name exists and only its `~N` is past the history.
"""

from __future__ import annotations

import pytest

from tests.test_new_user import git, one_clear_line, sg
from sweepgate.commands import example


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    path = tmp_path_factory.mktemp("typos")
    example.build_repo(str(path))
    git(path, "update-ref", "refs/remotes/origin/main", "HEAD")
    git(path, "tag", "v1.0")
    return path


@pytest.mark.parametrize("argv, flag, typed, meant", [
    (["validate", "--base-ref", "mian", "--head-ref", "HEAD"], "--base-ref", "mian", "main"),
    (["matrix", "--base-ref", "HEAD~1", "--head-ref", "HAED"], "--head-ref", "HAED", "HEAD"),
    (["plan", "--base-ref", "orgin/main~1", "--head-ref", "HEAD"], "--base-ref", "orgin/main~1", "origin/main~1"),
    (["validate", "--base-ref", "v1.O", "--head-ref", "HEAD"], "--base-ref", "v1.O", "v1.0"),
    (["matrix", "--base-ref", "Main", "--head-ref", "HEAD"], "--base-ref", "Main", "main"),
    (["changelog", "rebase", "--onto", "orgin/main"], "--onto", "orgin/main", "origin/main"),
])
def test_a_mistyped_ref_is_told_the_name_that_is_here(repo, argv, flag, typed, meant):
    line = one_clear_line(sg(repo / "configs", *argv), f"git: '{typed}' is not a commit in ")
    assert line.endswith(f" (did you mean {meant}?); pass {flag} {meant}, or another branch, tag or commit "
                         "that exists here (fetch it first in CI)"), line


@pytest.mark.parametrize("ref", ["nosuch", "main~100000", "0123456789abcdef0123456789abcdef01234567"])
def test_a_ref_near_no_name_here_keeps_the_plain_refusal(repo, ref):
    line = one_clear_line(sg(repo / "configs", "validate", "--base-ref", ref, "--head-ref", "HEAD"),
                          f"git: '{ref}' is not a commit in ")
    assert "did you mean" not in line and line.endswith(
        "; pass --base-ref with a branch, tag or commit that exists here (fetch it first in CI)"), line
