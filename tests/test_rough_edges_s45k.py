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


# --- sweepgate rehearse without --work-dir: what it leaves in the temporary folder -------------------------------

def _rehearse_in(temp, argv, cwd, **env):
    import os
    import sys

    from test_rehearse import ROOT

    temp.mkdir()
    full = {**os.environ, "PYTHONPATH": str(ROOT / "utils"), "TMPDIR": str(temp), "SWEEPGATE_REHEARSE_DURATION": "2",
            **env}
    full.pop("GITHUB_ACTIONS", None)
    return subprocess.run([sys.executable, "-m", "sweepgate", "rehearse", *argv], cwd=cwd, env=full,
                          capture_output=True, text=True, timeout=300)


def test_a_rehearsal_that_passed_leaves_no_temporary_work_dir(tmp_path):
    """Review (s45k): a passing `sweepgate rehearse` left /tmp/sweepgate-rehearse-* (a stand-in's figures, the
    log of a run that passed) and said nothing of it. It is removed; the OK line says the result went with it."""
    from test_rehearse import ROOT, SEED_EXP, SEED_ROW, write_rows

    temp = tmp_path / "tmp"
    r = _rehearse_in(temp, ["--exp-name", SEED_EXP, "--row-json", str(write_rows(tmp_path, SEED_ROW))], ROOT)
    assert r.returncode == 0, r.stdout + r.stderr
    assert list(temp.iterdir()) == [], list(temp.iterdir())
    assert "removed with its temporary work dir (--work-dir DIR keeps it)" in r.stdout, r.stdout


def test_a_failed_rehearsal_keeps_its_work_dir_and_says_so_last(tmp_path):
    """A failure's log is read: the temporary work dir stays, and the last line names it and its removal."""
    import shlex

    from test_rehearse import FSL_ROWS, _bench_with_script, write_rows

    repo, _ = _bench_with_script(tmp_path, 'echo "Error: no server" >&2\nexit 1\n')
    temp = tmp_path / "tmp"
    r = _rehearse_in(temp, ["--row-json", str(write_rows(tmp_path, FSL_ROWS[0]))], repo)
    assert r.returncode == 1, r.stdout + r.stderr
    (work,) = temp.glob("sweepgate-rehearse-*")
    assert (work / "script.log").is_file(), list(work.iterdir())
    assert r.stderr.rstrip("\n").splitlines()[-1] == (
        f"rehearse: its work dir {work} is kept for its log; remove it with rm -rf {shlex.quote(str(work))}"), r.stderr
