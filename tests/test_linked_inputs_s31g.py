"""Wording leftovers (s31g): a master config, `configs/runners.yaml` or the changelog that is a symbolic link.

Git stores a symbolic link as a blob holding the name it points to (tree mode 120000), and the commands that
read a revision (`matrix`, `validate --head-ref`) read that blob: a link at a commit was parsed as the text
`gone.yaml` and refused as `configs/runners.yaml:1:1: runners file must be a mapping with 'labels'`. In the
work tree (`full-sweep`, `test-config`, `validate --staged`, `changelog add`) the same link was followed: one
to nothing read as no file at all (`does not exist`; `changelog add` wrote a new changelog where it pointed),
one to a file passed there what its commit is refused for. Both reads now say one line at the input: that it
is a symbolic link (to nothing, in a loop, to a file, or at a commit), that a commit holds a link as the name
it points to, and to put the file itself there; exit 1.

Real git repositories, real links and folders, `sweepgate` as a real process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TAIL = ", and a commit holds a link as the name it points to, not a file to read; put the file itself in its place"


def sweepgate(cwd: Path, *argv: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_") and k != "SWEEPGATE_DB"}
    env.update({"PYTHONPATH": str(ROOT / "utils"), "NO_COLOR": "1", "SWEEPGATE_NO_CACHE": "1"})
    return subprocess.run([sys.executable, "-m", "sweepgate", *argv], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)


def link(repo, rel: str, target: str) -> None:
    """Make ``rel`` a symbolic link to ``target`` (its file moved there first when ``target`` is to exist)."""
    path = repo.path / rel
    path.unlink(missing_ok=True)
    path.symlink_to(target)


def refused(proc: subprocess.CompletedProcess, line: str) -> None:
    assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == 1, (proc.returncode, proc.stderr)
    assert line in proc.stderr.splitlines(), proc.stderr
    assert ": does not exist" not in proc.stderr, proc.stderr  # never read as missing


READERS = [
    ("full-sweep",),
    ("test-config", "--config-keys", "dsr1-fp4-b300-vllm"),
    ("validate", "--staged"),
]


@pytest.mark.parametrize("argv", READERS, ids=lambda a: a[0])
@pytest.mark.parametrize("rel", ["configs/amd-master.yaml", "configs/runners.yaml"])
def test_a_work_tree_config_that_links_to_nothing_is_one_line_at_it(make_repo, argv, rel):
    repo = make_repo()
    link(repo, rel, "gone.yaml")
    refused(sweepgate(repo.path, *argv), f"{rel}: is a symbolic link to gone.yaml, which does not exist{TAIL}")


def test_a_work_tree_changelog_that_links_to_nothing_is_one_line_at_it(make_repo):
    repo = make_repo()
    link(repo, "perf-changelog.yaml", "gone.yaml")
    line = f"perf-changelog.yaml: is a symbolic link to gone.yaml, which does not exist{TAIL}"
    refused(sweepgate(repo.path, "validate", "--staged"), line)
    # `changelog add` read it as no changelog and wrote a new one where the link points
    refused(sweepgate(repo.path, "changelog", "add", "--key", "dsr1-fp4-b300-vllm", "--description", "x",
                      "--repository", "acme/bench"), line)
    assert not (repo.path / "gone.yaml").exists()


def test_a_config_linked_to_a_file_is_refused_in_the_work_tree_as_its_commit_is(make_repo):
    """What git commits of the link is the name it points to: the gate at that commit reads it so, and the
    work tree, read before the commit, is held to the same."""
    repo = make_repo()
    base = repo.head()
    (repo.path / "configs/runners.yaml").rename(repo.path / "configs/runners-real.yaml")
    link(repo, "configs/runners.yaml", "runners-real.yaml")
    line = f"configs/runners.yaml: is a symbolic link to runners-real.yaml{TAIL}"
    refused(sweepgate(repo.path, "validate", "--staged"), line)
    refused(sweepgate(repo.path, "full-sweep"), line)
    entry = ('\n- config-keys:\n    - dsr1-fp4-b300-vllm\n  description:\n    - "retune"\n'
             "  pr-link: https://github.com/acme/bench/pull/3\n")  # the matrix needs one to expand
    head = repo.commit({"perf-changelog.yaml": repo.read().decode() + entry}, "runners.yaml as a link, an entry")
    assert repo.git("ls-tree", head, "configs/runners.yaml").startswith("120000 blob ")
    at = (f"configs/runners.yaml: is a symbolic link at {head[:12]} (to runners-real.yaml), and a commit holds a "
          "link as the name it points to, not a file to read; put the file itself in its place")
    refused(sweepgate(repo.path, "validate", "--base-ref", base, "--head-ref", "HEAD"), at)
    refused(sweepgate(repo.path, "matrix", "--base-ref", base, "--head-ref", "HEAD"), at)


def test_a_changelog_committed_as_a_link_to_nothing_is_said_to_be_one_at_the_commit(make_repo):
    repo = make_repo()
    base = repo.head()
    link(repo, "perf-changelog.yaml", "gone.yaml")
    head = repo.commit(message="changelog as a link")
    refused(sweepgate(repo.path, "validate", "--base-ref", base, "--head-ref", "HEAD"),
            f"perf-changelog.yaml: is a symbolic link at {head[:12]} (to gone.yaml), and a commit holds a link "
            "as the name it points to, not a file to read; put the file itself in its place")


def test_a_configs_folder_that_is_a_link_is_named_as_the_folder_on_the_way(make_repo):
    repo = make_repo()
    (repo.path / "configs").rename(repo.path / "real-configs")
    (repo.path / "configs").symlink_to("real-configs")
    refused(sweepgate(repo.path, "full-sweep"),
            "configs/amd-master.yaml: configs (a folder on its way) is a symbolic link to real-configs, and a "
            "commit holds a link as the name it points to, not a file to read; put the folder itself in its place")
