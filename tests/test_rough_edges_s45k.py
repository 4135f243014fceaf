"""Small rough edges a reviewer found in session 45 (s45k), each on the real thing: `changelog rebase` with no
flags in a conflicted rebase of a clone without origin, ..."""

from __future__ import annotations

import subprocess

from conftest import CHANGELOG
from test_changelog_tools import _conflicted, _fix_command, _two_branches, entry, repo, repo_env, sg  # noqa: F401

# --- changelog rebase, no flags, a conflicted rebase in a clone without origin ----------------------------------


def test_rebase_with_no_flags_in_a_clone_without_origin_names_the_conflict_and_the_whole_fix(repo, capsys):  # noqa: F811
    """Review (s45k): the first message was `git: 'origin/main' is not a commit ...; ... e.g. --onto main`, and
    only a second run said the whole command (--branch REBASE_HEAD). Now the default --onto is the commit the
    rebase replays onto when origin/main is not here, and the one message names the conflict and the command
    that, run as written, rebuilds the file."""
    _two_branches(repo)
    _conflicted(repo, "rebase", "-q", "main")
    rc, _, err = sg(capsys, "changelog", "rebase")
    assert rc == 1 and not err.startswith("git:"), err
    assert err.startswith("perf-changelog.yaml:") and "merge conflict" in err, err
    assert "`sweepgate changelog rebase --onto main --branch REBASE_HEAD`" in err, err
    rc, _, err = sg(capsys, *_fix_command(err))
    assert rc == 0, err
    assert repo.read().decode() == (CHANGELOG + entry("dsr1-fp4-b300-vllm", "3")
                                    + entry("dsr1-fp4-b300-sglang", "XXX")), repo.read()


def test_rebase_with_no_flags_onto_an_upstream_remote_names_that_remote_s_branch(repo, capsys):  # noqa: F811
    """A fork's clone whose one remote is `upstream`: the rebase onto upstream/main is what the fix names."""
    _two_branches(repo)
    repo.git("remote", "add", "upstream", str(repo.path))
    repo.git("fetch", "-q", "upstream", "main:refs/remotes/upstream/main")
    repo.git("branch", "-q", "-f", "main", "main~1")  # the local main is behind; upstream/main has the entry
    _conflicted(repo, "rebase", "-q", "upstream/main")
    rc, _, err = sg(capsys, "changelog", "rebase")
    assert rc == 1 and "`sweepgate changelog rebase --onto upstream/main --branch REBASE_HEAD`" in err, err


def test_rebase_with_no_flags_and_no_operation_still_names_the_missing_default(repo, capsys):  # noqa: F811
    """No operation in progress: the default origin/main, absent, is refused as before, with a branch that is
    here."""
    repo.git("checkout", "-q", "-b", "feature")
    rc, _, err = sg(capsys, "changelog", "rebase")
    assert rc == 1 and "'origin/main' is not a commit" in err and "--onto main" in err, err
