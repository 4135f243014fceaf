"""A repository data file in the work tree but not in the commit read is told to be committed (s42d).

A new user adopting sweepgate adds `configs/runners.yaml` (README, *Adopting*) and runs the PR steps before
committing it: `validate/matrix/plan --base-ref B --head-ref HEAD` said `configs/runners.yaml: does not exist;
... create the file or pass that path`, while the file stood right there; creating it again or passing its path
changes nothing, since the refs are read from git. It now says the work tree has it and the commit does not.
"""

from __future__ import annotations

import re

import pytest

from tests.test_new_user import git, one_clear_line, sg
from sweepgate.commands import example

REFS = ["--base-ref", "HEAD~2", "--head-ref", "HEAD"]  # the seed change and the commit without the file


@pytest.fixture(scope="module")
def untracked(tmp_path_factory):
    """The example fleet, its runners file left out of the newest commit (still in the work tree)."""
    repo = tmp_path_factory.mktemp("untracked")
    example.build_repo(str(repo))
    git(repo, "rm", "-q", "--cached", "configs/runners.yaml")
    git(repo, "commit", "-q", "-m", "runners file not committed")
    assert (repo / "configs/runners.yaml").is_file()
    return repo


@pytest.mark.parametrize("where", [".", "configs"])
@pytest.mark.parametrize("command", ["validate", "matrix", "plan"])
def test_a_data_file_the_commit_lacks_and_the_work_tree_has_is_told_to_be_committed(untracked, where, command):
    line = one_clear_line(sg(untracked / where, command, *REFS), "configs/runners.yaml: ")
    assert line.startswith("configs/runners.yaml: not in the commit read; the work tree has it, uncommitted;"), line
    assert line.endswith("commit it (git add configs/runners.yaml, then git commit) and rerun"), line


def test_a_data_file_missing_from_both_is_still_said_not_to_exist(untracked, tmp_path):
    (untracked / "configs/runners.yaml").rename(tmp_path / "runners.yaml")
    try:
        line = one_clear_line(sg(untracked, "matrix", *REFS), "configs/runners.yaml: ")
    finally:
        (tmp_path / "runners.yaml").rename(untracked / "configs/runners.yaml")
    assert line.startswith("configs/runners.yaml: does not exist;"), line


@pytest.fixture(scope="module")
def new_key(tmp_path_factory):
    """A change appending an entry for a key whose config is in a new master file, not added to the commit
    (`git commit -a` leaves a new file out)."""
    repo = tmp_path_factory.mktemp("new_key")
    example.build_repo(str(repo))
    text = (repo / "configs/nvidia-master.yaml").read_text()
    key = re.search(r"^([a-z0-9][^:\s]*):$", text, re.M)  # the first config's block, under a new key
    block = text[key.start():].split("\n\n", 1)[0]
    (repo / "configs/extra-master.yaml").write_text(block.replace(key[0], "brand-new-b300-vllm:", 1) + "\n")
    log = (repo / "perf-changelog.yaml").read_text()
    (repo / "perf-changelog.yaml").write_text(log + "\n- config-keys:\n    - brand-new-b300-vllm\n  description:\n"
                                              "    - \"A new recipe\"\n  pr-link: https://github.com/acme/bench/pull/XXX\n")
    git(repo, "commit", "-q", "-am", "new key, its file left out")
    return repo


@pytest.mark.parametrize("command", ["validate", "matrix"])
def test_a_key_whose_config_is_in_an_uncommitted_file_is_told_to_commit_it(new_key, command):
    proc = sg(new_key / "configs", command, "--base-ref", "HEAD~1", "--head-ref", "HEAD")
    lines = [x for x in proc.stderr.splitlines() if "brand-new-b300-vllm" in x]
    assert proc.returncode == 1 and len(lines) == 1, proc.stderr
    assert lines[0].endswith("config key 'brand-new-b300-vllm' is not in any master config; it is defined at "
                             "configs/extra-master.yaml:1 in the work tree, not in the commit read: commit it (git add "
                             "configs/extra-master.yaml, then git commit) and rerun"), lines[0]
