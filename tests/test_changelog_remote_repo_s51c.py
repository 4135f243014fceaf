"""`changelog add`'s first entry takes its repository from the remote the branch merges into, not only `origin` (s51c).

A clone whose one remote is not called `origin` (`git remote add fork ...`, a clone made with `-o upstream`) was
refused, "there is no origin remote; pass --repository OWNER/NAME", though that remote names the only GitHub
repository there is. The remote is now chosen as `sweepgate` chooses the one a branch merges into (origin, else
upstream, else the only remote); several others, none of them origin or upstream, are refused in one line naming
the GitHub repositories they name, which is the fix to copy. Each a real process in a real git repository.
"""

from __future__ import annotations

from tests.test_changelog_origin_repo_s42d import _add, first_entry  # noqa: F401  (the fixture)
from tests.test_new_user import git

LINK = "  pr-link: https://github.com/{}/pull/XXX\n"


def test_the_only_remote_names_the_repository_whatever_its_name(first_entry):  # noqa: F811
    git(first_entry, "remote", "add", "fork", "git@github.com:acme/bench.git")
    proc = _add(first_entry)
    assert proc.returncode == 0, proc.stderr
    assert (first_entry / "perf-changelog.yaml").read_text().endswith(LINK.format("acme/bench"))


def test_upstream_is_taken_before_another_remote(first_entry):  # noqa: F811
    git(first_entry, "remote", "add", "mine", "https://github.com/me/bench.git")
    git(first_entry, "remote", "add", "upstream", "https://github.com/acme/bench.git")
    proc = _add(first_entry)
    assert proc.returncode == 0, proc.stderr
    assert (first_entry / "perf-changelog.yaml").read_text().endswith(LINK.format("acme/bench"))


def test_several_other_remotes_are_refused_in_one_line_naming_their_repositories(first_entry):  # noqa: F811
    git(first_entry, "remote", "add", "mine", "https://x-token:s3cr3t@github.com/me/bench.git")
    git(first_entry, "remote", "add", "theirs", "git@github.com:acme/bench.git")
    proc = _add(first_entry)
    assert proc.returncode == 1 and proc.stderr.splitlines() == [
        "--repository: cannot tell which repository pr-links point to: no pr-link names one, and 2 remotes (mine, "
        "theirs), none of them origin or upstream; pass --repository acme/bench or me/bench (or set "
        "$GITHUB_REPOSITORY)"], proc.stderr
    assert "s3cr3t" not in proc.stderr and not (first_entry / "perf-changelog.yaml").exists()
