"""Two messages a new user met (s40ee).

- In a shallow clone (`git clone --depth 1`, actions/checkout's default) `--base-ref HEAD~1` and
  `--base-ref origin/main` were refused with "is not a commit ... (fetch it first in CI)", never saying the
  clone was shallow, while `validate --staged` did. Every ref that is no commit in a shallow clone now says
  the clone is shallow and how to fetch what it cut off.
- `sweepgate preflight --base-ref B --head-ref H` on a change that edits a benchmark script and appends no
  changelog entry said only "append an entry"; it now also says `preflight --config-keys KEY` checks the
  script anyway, naming the keys whose scripts changed.
"""

from __future__ import annotations

import subprocess

import pytest

from tests.test_new_user import git, one_clear_line, sg
from sweepgate.commands import example

SHALLOW_FIX = ("(fetch it first: git fetch --deepen N for history past the cut, git fetch origin "
               "BRANCH:refs/remotes/origin/BRANCH for a branch left out; fetch-depth: 0 in actions/checkout)")


@pytest.fixture(scope="module")
def shallow(tmp_path_factory):
    """A depth-1 clone of branch 'feature' (file://, so --depth is honoured): no HEAD~1, no origin/main."""
    origin = tmp_path_factory.mktemp("origin")
    example.build_repo(str(origin))
    git(origin, "branch", "feature", "HEAD")
    clone = tmp_path_factory.mktemp("shallow") / "clone"
    subprocess.run(["git", "clone", "-q", "--depth", "1", "--branch", "feature", f"file://{origin}", str(clone)],
                   check=True)
    assert git(clone, "rev-parse", "--is-shallow-repository").strip() == "true"
    return clone


@pytest.mark.parametrize("argv, typed", [
    (["validate", "--base-ref", "HEAD~1", "--head-ref", "HEAD"], "HEAD~1"),
    (["matrix", "--base-ref", "origin/main", "--head-ref", "HEAD"], "origin/main"),
    (["plan", "--base-ref", "main", "--head-ref", "HEAD"], "main"),
])
def test_a_ref_missing_from_a_shallow_clone_says_the_clone_is_shallow(shallow, argv, typed):
    line = one_clear_line(sg(shallow / "configs", *argv), f"git: '{typed}' is not a commit in ")
    assert f" (this clone is shallow); pass --base-ref with a branch, tag or commit that exists here {SHALLOW_FIX}" \
        in line and line.endswith(SHALLOW_FIX), line


def test_a_mistyped_ref_in_a_shallow_clone_says_both(shallow):
    line = one_clear_line(sg(shallow / "configs", "validate", "--base-ref", "orgin/feature~1", "--head-ref", "HEAD"),
                          "git: 'orgin/feature~1' is not a commit in ")
    assert "(this clone is shallow; did you mean origin/feature~1?); pass --base-ref origin/feature~1" in line, line
    assert line.endswith(SHALLOW_FIX), line


@pytest.fixture(scope="module")
def script_edit(tmp_path_factory):
    """The example fleet with one more commit: a benchmark script two config keys run edited, no entry."""
    repo = tmp_path_factory.mktemp("script_edit")
    example.build_repo(str(repo))
    script = repo / "benchmarks/single_node/agentic/kimik3_fp4_b300_vllm_mtp.sh"
    script.write_text(script.read_text() + "\n# tuned\n")
    git(repo, "commit", "-q", "-am", "tune a script, no entry")
    return repo


def test_preflight_of_a_script_edit_without_an_entry_names_config_keys(script_edit):
    line = one_clear_line(sg(script_edit / "configs", "preflight", "--base-ref", "HEAD~1", "--head-ref", "HEAD"),
                          "HEAD~1..HEAD appends no entry to perf-changelog.yaml")
    assert line.endswith("; append an entry naming the config keys this change affects; or check the scripts "
                         "without one: sweepgate preflight --config-keys kimik3-fp4-b300-vllm-agentic-dspark "
                         "kimik3-fp4-b300-vllm-agentic-dspark-lmcache"), line


def test_a_change_without_an_entry_that_edits_no_script_says_KEY(script_edit):
    line = one_clear_line(sg(script_edit / "configs", "preflight", "--base-ref", "HEAD", "--head-ref", "HEAD"),
                          "HEAD..HEAD appends no entry")
    assert line.endswith("sweepgate preflight --config-keys KEY"), line


def test_matrix_keeps_its_plain_fix(script_edit):
    """Only preflight has --config-keys to offer: the matrix's refusal is as it was."""
    line = one_clear_line(sg(script_edit / "configs", "matrix", "--base-ref", "HEAD~1", "--head-ref", "HEAD"),
                          "appends no entry")
    assert line.endswith("; append an entry naming the config keys this change affects"), line
