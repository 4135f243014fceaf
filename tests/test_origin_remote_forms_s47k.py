"""`changelog add` without --repository reads it from `origin` in the forms git and GitHub write (s47k).

A first entry (no pr-link yet) takes its repository from a github.com `origin`, but only a few spellings were
read: a host in capitals (`https://GitHub.com/...`), a port (`ssh://git@github.com:22/...`, and
`ssh.github.com:443`, GitHub's SSH over the HTTPS port), an scp-like address with another user than `git`
(`org-123@github.com:`, GitHub's SSH certificate form) or none, and `http://` were all refused with "pass
--repository". That refusal gave no reason: it now says whether there is no `origin` or its URL names no
github.com repository (the URL is not shown: it can carry a token). `--help` did not name origin at all.
"""

from __future__ import annotations

import pytest

from tests.test_changelog_origin_repo_s42d import _add, first_entry  # noqa: F401  (the fixture)
from tests.test_new_user import git, sg


@pytest.mark.parametrize("url", [
    "https://GitHub.com/acme/bench.git", "http://github.com/acme/bench.git", "https://github.com:443/acme/bench",
    "ssh://git@github.com:22/acme/bench.git", "ssh://git@ssh.github.com:443/acme/bench.git",
    "ssh://github.com/acme/bench.git", "org-123@github.com:acme/bench.git", "github.com:acme/bench.git",
    "git@github.com:/acme/bench.git"])
def test_every_github_spelling_of_origin_names_the_repository(first_entry, url):  # noqa: F811
    git(first_entry, "remote", "add", "origin", url)
    proc = _add(first_entry)
    assert proc.returncode == 0, proc.stderr
    assert (first_entry / "perf-changelog.yaml").read_text().endswith(
        "  pr-link: https://github.com/acme/bench/pull/XXX\n")


@pytest.mark.parametrize("url, why", [
    (None, "there is no remote"),
    ("https://x-token:s3cr3t@gitlab.com/acme/bench.git", "origin's URL names no github.com repository"),
    ("https://github.com/acme", "origin's URL names no github.com repository")])
def test_without_a_usable_origin_one_line_says_why_and_to_pass_the_flag(first_entry, url, why):  # noqa: F811
    if url:
        git(first_entry, "remote", "add", "origin", url)
    proc = _add(first_entry)
    assert proc.returncode == 1
    assert proc.stderr.strip() == (f"--repository: cannot tell which repository pr-links point to: no pr-link "
                                   f"names one, and {why}; pass --repository OWNER/NAME (or set "
                                   "$GITHUB_REPOSITORY)"), proc.stderr
    assert "s3cr3t" not in proc.stderr


@pytest.mark.parametrize("action", ["add", "canonicalize"])
def test_help_says_the_repository_defaults_to_origin(first_entry, action):  # noqa: F811
    proc = sg(first_entry, "changelog", action, "--help", env={"COLUMNS": "300"})
    assert proc.returncode == 0
    assert "the GitHub repository of origin, else of upstream, else of the only remote" in proc.stdout, proc.stdout
