"""`changelog rebase` and the gate's conflict fixes in each git operation a conflict stops (s39q), on real
git repositories: a hand-resolved merge, cherry-pick, revert, `git am -3`, a repository with no `origin`."""

from __future__ import annotations

import subprocess

import pytest
from conftest import CHANGELOG
from test_changelog_tools import _conflicted, _fix_command, _two_branches, entry, repo, repo_env, sg  # noqa: F401

MAIN_ENTRY = entry("dsr1-fp4-b300-vllm", "3")
BRANCH_ENTRY = entry("dsr1-fp4-b300-sglang", "XXX")


def _git(repo, *args: str) -> subprocess.CompletedProcess:  # noqa: F811
    return subprocess.run(["git", *args], capture_output=True, env=repo_env(), cwd=repo.path)


def _resolved_merge(repo) -> None:  # noqa: F811
    """feature merges main, whose changelog conflicts; the user takes main's file and appends the branch's
    entry by hand, then stages it: no markers left."""
    _two_branches(repo)
    _conflicted(repo, "merge", "-q", "main")
    repo.write("perf-changelog.yaml", CHANGELOG + MAIN_ENTRY + BRANCH_ENTRY)
    repo.git("add", "perf-changelog.yaml")


def test_rebase_in_a_hand_resolved_merge_does_not_copy_the_merged_entries_again(repo, capsys):  # noqa: F811
    """Review (s39q): with no --branch, the merge-base was taken from HEAD (the branch before the merge), so
    main's entry, already in the resolved file, counted as the branch's own and was appended a second time."""
    _resolved_merge(repo)
    rc, out, err = sg(capsys, "changelog", "rebase", "--onto", "main")
    assert rc == 0 and err == "", out + err
    assert repo.read().decode() == CHANGELOG + MAIN_ENTRY + BRANCH_ENTRY


def test_the_gate_judges_a_merge_in_progress_against_what_it_merges(repo, capsys):  # noqa: F811
    """The staged file of a merge of main is judged against main (the merge-base of the merge being made):
    the branch appends one entry, not main's too."""
    _resolved_merge(repo)
    rc, out, err = sg(capsys, "validate", "--staged")
    assert rc == 0 and "(1 appended entry)" in out + err, out + err


def test_the_gate_refuses_an_appended_copy_of_a_history_entry(repo, capsys):  # noqa: F811
    """Review (s39q): the duplicated file (main's entry twice, then the branch's) passed the pre-commit gate;
    the reference's matrix would sweep the copied entry again."""
    _resolved_merge(repo)
    repo.write("perf-changelog.yaml", CHANGELOG + MAIN_ENTRY + MAIN_ENTRY + BRANCH_ENTRY)
    rc, _, err = sg(capsys, "validate", "--staged")
    first = CHANGELOG.count("\n") + MAIN_ENTRY.count("\n") + 2
    (line,) = [x for x in err.splitlines() if "copy of" in x]
    assert rc == 1 and line.startswith(f"perf-changelog.yaml:{first}: "), err
    assert "copy of the history's entry at line" in line, line


def test_the_gate_refuses_an_entry_appended_twice(repo, capsys):  # noqa: F811
    repo.git("checkout", "-q", "-b", "feature")
    repo.write("perf-changelog.yaml", CHANGELOG + BRANCH_ENTRY + BRANCH_ENTRY)
    rc, _, err = sg(capsys, "validate", "--staged")
    (line,) = [x for x in err.splitlines() if "copy of" in x]
    assert rc == 1 and line.startswith(f"perf-changelog.yaml:{CHANGELOG.count(chr(10)) + BRANCH_ENTRY.count(chr(10)) + 2}: "), err


def _picked(repo, operation: str) -> None:  # noqa: F811
    """A cherry-pick of feature's tip onto main (or a revert on feature of its own entry's commit after main
    was merged in) stopped at a conflict in the changelog."""
    _two_branches(repo)
    repo.commit_changelog(CHANGELOG + BRANCH_ENTRY + entry("kimik3-*", "XXX"))
    if operation == "cherry-pick":
        repo.git("checkout", "-q", "main")
        proc = _git(repo, "cherry-pick", "feature")
    else:
        proc = _git(repo, "revert", "--no-edit", "feature~1")
    assert proc.returncode == 1 and b"<<<<<<<" in repo.read(), proc.stdout + proc.stderr


@pytest.mark.parametrize("operation, ref", [("cherry-pick", "CHERRY_PICK_HEAD"), ("revert", "REVERT_HEAD")])
def test_a_cherry_pick_or_revert_conflict_names_its_own_ref(repo, capsys, operation, ref):  # noqa: F811
    """Review (s39q): no operation was told during a cherry-pick or revert, so the fix named REBASE_HEAD and
    ORIG_HEAD, both wrong there."""
    _picked(repo, operation)
    rc, _, err = sg(capsys, "validate", "--staged")
    (line,) = [x for x in err.splitlines() if "merge conflict in the changelog" in x]
    assert rc == 1 and f"a {operation} is in progress" in line, line
    assert "REBASE_HEAD" not in line and "ORIG_HEAD" not in line, line
    if operation == "cherry-pick":
        command = line.split("`")[1].split()[1:]
        assert command == ["changelog", "rebase", "--onto", "HEAD", "--branch", ref], line
        assert sg(capsys, *command)[0] == 0
        # main's file plus the picked commit's own entry; not the entry of the commit before it
        assert repo.read().decode() == CHANGELOG + MAIN_ENTRY + entry("kimik3-*", "XXX")
    else:
        assert "git checkout HEAD -- perf-changelog.yaml" in line, line


def test_a_git_am_conflict_is_told_and_names_no_ref(repo, capsys, tmp_path):  # noqa: F811
    _two_branches(repo)
    patch = _git(repo, "format-patch", "-1", "--stdout", "feature").stdout
    (tmp_path / "p.patch").write_bytes(patch)
    repo.git("checkout", "-q", "main")
    proc = _git(repo, "am", "-3", str(tmp_path / "p.patch"))
    assert proc.returncode != 0 and b"<<<<<<<" in repo.read(), proc.stdout + proc.stderr
    rc, _, err = sg(capsys, "validate", "--staged")
    (line,) = [x for x in err.splitlines() if "merge conflict in the changelog" in x]
    assert rc == 1 and "a `git am` is in progress" in line, line
    assert "REBASE_HEAD" not in line and "ORIG_HEAD" not in line and "git am --show-current-patch" in line, line


def test_with_no_operation_and_no_origin_the_fix_names_a_branch_that_exists(repo, capsys):  # noqa: F811
    """Review (s39q): the fix said `--onto origin/main`, which fails as written with no `origin` remote."""
    repo.git("checkout", "-q", "-b", "feature")
    repo.commit_changelog(CHANGELOG + "<<<<<<< HEAD\n")
    rc, _, err = sg(capsys, "validate", "--base-ref", "main", "--head-ref", "HEAD")
    (line,) = [x for x in err.splitlines() if "merge conflict" in x or "merge-conflict marker" in x]
    assert rc == 1 and "origin/main" not in line and "--onto main --branch ORIG_HEAD" in line, line


def test_orig_head_during_a_rebase_is_refused(repo, capsys):  # noqa: F811
    """Review (s39q): the gate's own text warns that ORIG_HEAD during a rebase folds every commit's entries
    into this one, yet `--branch ORIG_HEAD` was accepted silently."""
    _two_branches(repo)
    _conflicted(repo, "rebase", "-q", "main")
    before = repo.read()
    rc, out, err = sg(capsys, "changelog", "rebase", "--onto", "main", "--branch", "ORIG_HEAD")
    assert rc == 1 and out == "" and repo.read() == before, out + err
    (line,) = err.strip().splitlines()
    assert line.startswith("--branch: a rebase is in progress") and "--branch REBASE_HEAD" in line, line


def test_with_no_operation_the_gate_s_fix_names_its_own_base_branch(repo, capsys):  # noqa: F811
    """The gate run against a branch by name (a PR into `release`) names that branch as --onto."""
    repo.git("branch", "release")
    repo.git("checkout", "-q", "-b", "feature")
    repo.commit_changelog(CHANGELOG + "<<<<<<< HEAD\n")
    rc, _, err = sg(capsys, "validate", "--base-ref", "release", "--head-ref", "HEAD")
    (line,) = [x for x in err.splitlines() if "merge-conflict marker" in x]
    assert rc == 1 and "--onto release --branch ORIG_HEAD" in line, line
