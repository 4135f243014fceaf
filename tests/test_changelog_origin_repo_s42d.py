"""`changelog add` in a repository whose changelog has no pr-link yet takes the repository from `origin` (s42d).

A new adopter's first entry: the changelog is empty (or not there), so no pr-link tells which repository links
point to, and `sweepgate changelog add` refused, "--repository: cannot tell which repository pr-links point to;
pass --repository OWNER/NAME", though `origin` was the GitHub repository the PR would be opened in. A GitHub
`origin` (https, scp-like ssh, ssh://) now names it; the links the changelog has still come first (a fork's
origin is the fork, its links the upstream's), and an origin elsewhere is refused as before.
"""

from __future__ import annotations

import shutil

import pytest

from tests.test_new_user import git, sg
from sweepgate.commands import example


@pytest.fixture()
def first_entry(tmp_path):
    """The example fleet's configs, committed, with no changelog."""
    repo = tmp_path / "repo"
    repo.mkdir()
    example.build_repo(str(repo))
    shutil.rmtree(repo / ".git")
    (repo / "perf-changelog.yaml").unlink()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "configs")
    return repo


def _add(repo):
    return sg(repo / "configs", "changelog", "add", "--key", example.SEED_KEY, "--description", "First entry")


@pytest.mark.parametrize("url", ["https://github.com/acme/bench.git", "git@github.com:acme/bench.git",
                                 "ssh://git@github.com/acme/bench", "https://github.com/acme/bench"])
def test_the_first_entry_links_to_the_github_repository_origin_names(first_entry, url):
    git(first_entry, "remote", "add", "origin", url)
    proc = _add(first_entry)
    assert proc.returncode == 0, proc.stderr
    assert (first_entry / "perf-changelog.yaml").read_text().endswith(
        "  pr-link: https://github.com/acme/bench/pull/XXX\n")


def test_an_origin_elsewhere_than_github_is_refused_as_before(first_entry):
    git(first_entry, "remote", "add", "origin", "git@gitlab.com:acme/bench.git")
    proc = _add(first_entry)
    assert proc.returncode == 1 and proc.stderr.strip() == (
        "--repository: cannot tell which repository pr-links point to: no pr-link names one, and origin's URL "
        "names no github.com repository; pass --repository OWNER/NAME (or set $GITHUB_REPOSITORY)"), proc.stderr  # the reason: s47k


def test_the_changelog_s_own_links_come_before_origin(first_entry):
    git(first_entry, "remote", "add", "origin", "https://github.com/me/bench-fork.git")
    (first_entry / "perf-changelog.yaml").write_text(
        f"- config-keys:\n    - {example.SEED_KEY}\n  description:\n    - \"Old\"\n"
        "  pr-link: https://github.com/acme/bench/pull/1\n")
    git(first_entry, "add", "-A")
    git(first_entry, "commit", "-q", "-m", "one entry")
    assert _add(first_entry).returncode == 0
    assert (first_entry / "perf-changelog.yaml").read_text().endswith(
        "  pr-link: https://github.com/acme/bench/pull/XXX\n")
