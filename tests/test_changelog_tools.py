"""`sweepgate changelog add|rebase|canonicalize`: new text is well formed, history bytes never move."""

from __future__ import annotations

import os
import re
import subprocess

import pytest

from conftest import CHANGELOG
from sweepgate import cli


@pytest.fixture
def repo(repo_outside_actions):
    return repo_outside_actions


def repo_env() -> dict:
    return {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


def sg(capsys, *argv) -> tuple[int, str, str]:
    capsys.readouterr()
    rc = cli.main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err and "internal error" not in err, err
    return rc, out, err


ADDED = """\

- config-keys:
    - dsr1-fp4-b300-vllm
    - kimik3-*
  scenario-type:
    - fixed-seq-len
  description:
    - "Bump \\"image\\" to v0.12 (ünïcode)"
    - "# not a comment: really"
  pr-link: https://github.com/acme/bench/pull/XXX
"""


def entry(key: str, n: str) -> str:
    return f'\n- config-keys:\n    - {key}\n  description:\n    - "{key}"\n  pr-link: https://github.com/acme/bench/pull/{n}\n'


# --------------------------------------------------------------------------- add

def test_add_appends_one_well_formed_entry(repo, capsys):
    rc, out, _ = sg(capsys, "changelog", "add", "--key", "dsr1-fp4-b300-vllm", "--key", "kimik3-*",
                    "--description", 'Bump "image" to v0.12 (ünïcode)', "--description", "# not a comment: really",
                    "--scenario-type", "fixed-seq-len")
    assert rc == 0
    assert repo.read().decode() == CHANGELOG + ADDED
    assert out.startswith(f"perf-changelog.yaml:{CHANGELOG.count(chr(10)) + 2}: appended entry")
    # the gate accepts it in a PR, and the pre-commit mode accepts the placeholder
    assert sg(capsys, "validate", "--staged")[0] == 0
    head = repo.commit()
    assert sg(capsys, "validate", "--base-ref", "HEAD~1", "--head-ref", head, "--pr-number", "9")[0] == 0


def test_add_s_placeholder_note_stands_at_the_pr_link_as_the_gate_s_warning(repo, capsys):
    """New-user walk (s39c): `changelog add` said "perf-changelog.yaml:6388: note: pr-link ends in XXX" at
    the entry's first line; the gate's warning of the same placeholder stands at the pr-link, `6392:3`."""
    rc, out, _ = sg(capsys, "changelog", "add", "--key", "dsr1-fp4-b300-vllm", "--description", "x")
    assert rc == 0
    repo.commit()
    _, _, err = sg(capsys, "validate", "--base-ref", "HEAD~1", "--head-ref", "HEAD", "--pr-number", "5")
    (warning,) = [x for x in err.splitlines() if "XXX placeholder" in x]
    (note,) = [x for x in out.splitlines() if "note: pr-link ends in XXX" in x]
    # at the link itself, after 'pr-link: ' (s47k: both stood at the key, column 3)
    assert note.split(" ")[0] == warning.split(" ")[0] == f"perf-changelog.yaml:{CHANGELOG.count(chr(10)) + 6}:12:", (
        note, warning)


def test_add_with_a_broken_config_warns_at_the_config_s_line(repo, capsys):
    """New-user review: the warning read "perf-changelog.yaml: warning: the configs have 2
    problem(s)", naming the wrong file and a count the gate then did not report."""
    master = repo.path / "configs" / "nvidia-master.yaml"
    text = master.read_text()
    master.write_text(text.replace("{ tp: 8, conc-start: 4", "{ tp: eight, conc-start: 4", 1))
    rc, out, err = sg(capsys, "changelog", "add", "--key", "dsr1-fp4-b300-vllm", "--description", "x")
    assert rc == 0 and "appended entry" in out
    (line,) = err.strip().splitlines()
    assert line.startswith("configs/nvidia-master.yaml:") and ": warning: " in line, line
    assert "eight" in line and "`sweepgate validate` lists every problem" in line, line


@pytest.mark.parametrize("path, old, new", [
    ("configs/nvidia-master.yaml", "{ tp: 8, conc-start: 4", "{ tp: eight, conc-start: 4"),
    ("configs/runners.yaml", "    - b300-nv_01\n", "    - 7\n"),
])
def test_add_s_config_warning_stands_where_the_gate_puts_the_problem(repo, capsys, path, old, new):
    """New-user walk (s39c): `changelog add` warned at `configs/runners.yaml:5: warning: ...` where the gate
    says `configs/runners.yaml:5:7: ...`: the column was dropped. The warning is the gate's place, column too."""
    file = repo.path / path
    file.write_text(file.read_text().replace(old, new, 1))
    rc, out, err = sg(capsys, "changelog", "add", "--key", "dsr1-fp4-b300-vllm", "--description", "x")
    assert rc == 0 and "appended entry" in out
    (warning,) = err.strip().splitlines()
    rc, _, gate_err = sg(capsys, "validate", "--staged")
    (problem,) = [x for x in gate_err.splitlines() if x.startswith(path + ":")]
    place = re.match(r"[^:]+:\d+:\d+: ", problem)
    assert rc == 1 and place, gate_err
    assert warning.startswith(place.group() + "warning: "), (warning, problem)


def test_add_writes_a_key_given_twice_once(repo, capsys):
    """Review: `add --key X --key X` wrote X twice (the matrix reads it once; the gate refuses it)."""
    rc, out, err = sg(capsys, "changelog", "add", "--key", "dsr1-fp4-b300-vllm", "--key", "kimik3-*",
                      "--key", "dsr1-fp4-b300-vllm", "--description", "x")
    assert rc == 0 and "appended entry for dsr1-fp4-b300-vllm, kimik3-* (" in out, out
    assert err == "--key: warning: 'dsr1-fp4-b300-vllm' is given twice; the entry lists it once\n", err
    assert repo.read().decode() == CHANGELOG + ("\n- config-keys:\n    - dsr1-fp4-b300-vllm\n    - kimik3-*\n"
                                                '  description:\n    - "x"\n  pr-link: https://github.com/acme/bench/pull/XXX\n')
    assert sg(capsys, "validate", "--staged")[0] == 0


ONE_ENTRY = '\n- config-keys:\n    - dsr1-fp4-b300-vllm\n  description:\n    - "x"\n  pr-link: https://github.com/acme/bench/pull/XXX\n'


def test_a_ctrl_c_right_after_the_rename_still_reports_the_entry_written(repo, capsys, monkeypatch):
    """Review: a SIGINT landing right after add's atomic rename (a 44 MB changelog, at 0.64 s) said
    'sweepgate: interrupted' and exited 130 though the entry was written; rerunning add doubled it."""
    import signal

    real = os.replace

    def replace_then_ctrl_c(src, dst):
        real(src, dst)
        if str(dst).endswith("perf-changelog.yaml"):  # not a cache file
            signal.raise_signal(signal.SIGINT)

    monkeypatch.setattr(os, "replace", replace_then_ctrl_c)
    rc, out, err = sg(capsys, "changelog", "add", "--key", "dsr1-fp4-b300-vllm", "--description", "x")
    assert rc == 0 and out.startswith(f"perf-changelog.yaml:{CHANGELOG.count(chr(10)) + 2}: appended entry"), out + err
    assert err == ("sweepgate: interrupted after the file was written: the change above is made; do not run the "
                   "command again\n"), err
    assert repo.read().decode() == CHANGELOG + ONE_ENTRY
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # put back as it was


def test_a_ctrl_c_before_the_rename_leaves_the_changelog_as_it_was(repo, capsys, monkeypatch):
    import signal

    real = os.fsync

    def ctrl_c_then_fsync(fd):
        signal.raise_signal(signal.SIGINT)
        real(fd)

    monkeypatch.setattr(os, "fsync", ctrl_c_then_fsync)
    rc, out, err = sg(capsys, "changelog", "add", "--key", "dsr1-fp4-b300-vllm", "--description", "x")
    assert (rc, out, err) == (130, "", "sweepgate: interrupted\n")
    assert repo.read().decode() == CHANGELOG and not list(repo.path.glob(".perf-changelog.yaml.*"))


def test_a_read_cut_short_does_not_hang_the_exit(repo):
    """Found with a SIGINT sent to `add` on a 40 MB changelog: Ctrl-C while git cat-file --batch was
    sending the changelog left git blocked writing the rest, and closing the reader waited for it
    forever (the command hung after 'interrupted')."""
    import threading

    from sweepgate.core.load import Git

    repo.commit({"big.bin": b"x" * 4_000_000})
    git = Git(str(repo.path))
    git.objects(["HEAD:perf-changelog.yaml"])
    git._batch.stdin.write(b"HEAD:big.bin\n")  # what a read cut short leaves: git in the middle of a blob
    git._batch.stdin.flush()
    closing = threading.Thread(target=git.close, daemon=True)
    closing.start()
    closing.join(30)
    assert not closing.is_alive(), "Git.close() waits for a git process blocked on a full pipe"


def test_add_twice_keeps_one_empty_line_between_entries(repo, capsys):
    for key in ("dsr1-fp4-b300-vllm", "dsr1-fp4-b300-sglang"):
        assert sg(capsys, "changelog", "add", "--key", key, "--description", "x", "--pr-number", "4")[0] == 0
    text = repo.read().decode()
    assert text.startswith(CHANGELOG + "\n- config-keys:")
    assert "pull/4\n\n- config-keys:\n    - dsr1-fp4-b300-sglang" in text
    assert text.endswith("pull/4\n") and "\n\n\n" not in text
    head = repo.commit()
    assert sg(capsys, "validate", "--base-ref", "HEAD~1", "--head-ref", head, "--pr-number", "4")[0] == 0


def test_add_to_file_without_final_newline_keeps_its_bytes(repo, capsys):
    repo.write("perf-changelog.yaml", CHANGELOG.rstrip("\n"))
    assert sg(capsys, "changelog", "add", "--key", "kimik3-*", "--description", "x")[0] == 0
    assert repo.read().startswith(CHANGELOG.rstrip("\n").encode() + b"\n\n- config-keys:\n")


def test_add_unknown_key_suggests_and_writes_nothing(repo, capsys):
    rc, _, err = sg(capsys, "changelog", "add", "--key", "dsr1-fp4-b300-vlm", "--key", "nothing*",
                    "--description", "x")
    assert rc == 1
    assert "config key 'dsr1-fp4-b300-vlm' is not in any master config; did you mean dsr1-fp4-b300-vllm" in err
    assert "wildcard 'nothing*' matches no config key" in err
    assert repo.read().decode() == CHANGELOG


def test_add_uses_repository_flag(repo, capsys):
    assert sg(capsys, "changelog", "add", "--key", "kimik3-*", "--description", "x",
              "--repository", "other/place")[0] == 0
    assert repo.read().decode().endswith("  pr-link: https://github.com/other/place/pull/XXX\n")


@pytest.mark.parametrize("blank", ["", "  ", "\t"])
def test_add_refuses_empty_description(repo, capsys, blank):
    """A blank --description is argument syntax (exit 2 with the usage line), not bad input (it was exit 1)."""
    with pytest.raises(SystemExit) as info:
        cli.main(["changelog", "add", "--key", "kimik3-*", "--description", "x", "--description", blank])
    err = capsys.readouterr().err
    assert info.value.code == 2 and err.startswith("usage: sweepgate changelog add "), err
    said = "empty" if not blank else "blank"
    assert err.strip().splitlines()[-1] == (f"sweepgate changelog add: error: argument --description: {said} value; "
                                            'say what changed, e.g. --description "Rerun after the driver update"')
    assert repo.read().decode() == CHANGELOG


def test_add_lists_a_wildcard_once_not_a_key_it_names_beside_it(repo, capsys):
    """Review: `--key 'dsr1-fp4-*' --key dsr1-fp4-b300-vllm` wrote an entry the gate refuses (a key its
    wildcard names is listed twice in other words) and exited 0; the key goes, with a warning, as a
    key given twice does."""
    import yaml

    rc, _, err = sg(capsys, "changelog", "add", "--key", "dsr1-fp4-*", "--key", "dsr1-fp4-b300-vllm",
                    "--description", "x")
    assert rc == 0, err
    assert "--key: warning: 'dsr1-fp4-b300-vllm' is also named by the wildcard 'dsr1-fp4-*'; the entry lists " \
        "the wildcard only" in err, err
    assert yaml.safe_load(repo.read())[-1]["config-keys"] == ["dsr1-fp4-*"]
    repo.commit_changelog(repo.read().decode())
    assert sg(capsys, "validate", "--staged")[0] == 0


def test_add_refuses_a_changelog_this_branch_broke_and_writes_nothing(repo, capsys):
    """`changelog add` appended to a working-tree changelog that was no YAML and exited 0: the broken
    text and the new entry were both there, and only the gate said so later."""
    broken = CHANGELOG + "- config-keys: [oops\n"
    repo.write("perf-changelog.yaml", broken)
    rc, _, err = sg(capsys, "changelog", "add", "--key", "kimik3-*", "--description", "x")
    line = broken.count("\n")
    assert rc == 1 and err.startswith(f"perf-changelog.yaml:{line}:16: invalid YAML: a flow sequence"), err
    assert "then add the entry again (nothing was written)" in err
    assert repo.read().decode() == broken


def test_add_to_a_history_that_does_not_parse_warns_and_appends(repo, capsys):
    """The branch cannot mend the history (its bytes are fixed), so a history that is already no YAML
    is warned of, not a reason to refuse the entry."""
    broken = CHANGELOG + "- config-keys: [oops\n"
    repo.commit_changelog(broken)
    rc, _, err = sg(capsys, "changelog", "add", "--key", "kimik3-*", "--description", "x")
    assert rc == 0 and "the history already does not parse (invalid YAML" in err, err
    # a warning beside exit 0 says it is one, as add's other warnings do (review)
    assert re.search(r"^perf-changelog\.yaml:\d+:\d+: warning: the history already does not parse", err, re.M), err
    assert repo.read().decode().startswith(broken) and "kimik3-*" in repo.read().decode()[len(broken):]


# --------------------------------------------------------------------------- rebase

def _conflicted(repo, *command: str) -> None:
    """Run a real `git rebase`/`git merge` that stops at a conflict in the changelog."""
    proc = subprocess.run(["git", *command], capture_output=True, env=repo_env())
    assert proc.returncode == 1 and b"<<<<<<<" in repo.read(), proc.stdout + proc.stderr


def _fix_command(err: str) -> list[str]:
    """The `sweepgate ...` command a refusal's fix names, as argv."""
    (line,) = err.strip().splitlines()
    return line.split("`")[1].split()[1:]


def _two_branches(repo) -> None:
    """feature appends one entry; main, meanwhile, another."""
    repo.git("checkout", "-q", "-b", "feature")
    repo.commit_changelog(CHANGELOG + entry("dsr1-fp4-b300-sglang", "XXX"))
    repo.git("checkout", "-q", "main")
    repo.commit_changelog(CHANGELOG + entry("dsr1-fp4-b300-vllm", "3"))
    repo.git("checkout", "-q", "feature")


def test_rebase_onto_main_keeps_main_bytes_and_adds_branch_entries(repo, capsys):
    repo.git("checkout", "-q", "-b", "feature")
    repo.commit_changelog(CHANGELOG + entry("dsr1-fp4-b300-sglang", "XXX"))
    repo.git("checkout", "-q", "main")
    main_text = CHANGELOG + entry("dsr1-fp4-b300-vllm", "3") + "\n"  # main's own formatting is kept as is
    repo.commit_changelog(main_text)
    repo.git("checkout", "-q", "feature")
    _conflicted(repo, "rebase", "-q", "main")
    rc, out, err = sg(capsys, "changelog", "rebase", "--onto", "main", "--branch", "REBASE_HEAD")
    assert rc == 0 and err == "", out + err
    assert repo.read().decode() == main_text + entry("dsr1-fp4-b300-sglang", "XXX").lstrip("\n")
    assert "plus this branch's entries" in out


def test_rebase_outside_a_git_rebase_or_merge_of_a_branch_behind_is_refused(repo, capsys):
    """New-user walk (s39c): run on a branch main had moved on from, with no git rebase or merge (README:
    "rebuild after main moves"), it wrote main's new entries into the branch's file; committed there they
    were the branch's own against the merge-base, which is what a pull request's sweep is judged against,
    so it would have run main's merged entries again (the pre-commit hook passed it). It is refused, nothing
    written, and the fix it names works as written."""
    _two_branches(repo)
    before = repo.read()
    rc, out, err = sg(capsys, "changelog", "rebase", "--onto", "main")
    assert rc == 1 and out == "" and repo.read() == before, out + err
    (line,) = err.strip().splitlines()
    assert line.startswith("perf-changelog.yaml: this branch is not based on main ("), line
    assert "the entry main gained since the merge-base as this branch's own, and its pull request would sweep it;" \
        in line, line
    assert "bring the branch up to date first (git rebase main, or git merge main)" in line, line
    _conflicted(repo, "rebase", "-q", "main")
    assert sg(capsys, *_fix_command(line))[0] == 0
    assert repo.read().decode() == CHANGELOG + entry("dsr1-fp4-b300-vllm", "3") + entry("dsr1-fp4-b300-sglang", "XXX")


def test_rebase_of_a_branch_behind_a_main_whose_changelog_did_not_move_is_done(repo, capsys):
    """Main gained commits, none of them to the changelog: the branch's file is already main's plus its own."""
    repo.git("checkout", "-q", "-b", "feature")
    repo.commit_changelog(CHANGELOG + entry("dsr1-fp4-b300-sglang", "XXX"))
    repo.git("checkout", "-q", "main")
    repo.commit({"notes.txt": "x"})
    repo.git("checkout", "-q", "feature")
    rc, out, err = sg(capsys, "changelog", "rebase", "--onto", "main")
    assert rc == 0 and err == "" and "plus this branch's entries" in out, out + err
    assert repo.read().decode() == CHANGELOG + entry("dsr1-fp4-b300-sglang", "XXX")


def test_rebase_from_committed_branch_during_conflict(repo, capsys):
    repo.git("checkout", "-q", "-b", "feature")
    repo.commit_changelog(CHANGELOG + entry("dsr1-fp4-b300-sglang", "XXX"))
    repo.git("checkout", "-q", "main")
    repo.commit_changelog(CHANGELOG + entry("dsr1-fp4-b300-vllm", "3"))
    repo.git("checkout", "-q", "feature")
    _conflicted(repo, "merge", "-q", "main")
    rc, _, err = sg(capsys, "changelog", "rebase", "--onto", "main")
    assert rc == 1 and "merge conflict in" in err and "(3 markers, lines " in err and "--branch" in err
    assert sg(capsys, "changelog", "rebase", "--onto", "main", "--branch", "feature")[0] == 0
    expected = CHANGELOG + entry("dsr1-fp4-b300-vllm", "3") + entry("dsr1-fp4-b300-sglang", "XXX")
    assert repo.read().decode() == expected
    head = repo.commit()
    assert sg(capsys, "validate", "--base-ref", "main", "--head-ref", head, "--pr-number", "8")[0] == 0


def test_a_real_merge_conflict_is_refused_by_add_and_the_gate_s_fix_works_as_written(repo, capsys):
    """Changelog review: `changelog add` appended after `>>>>>>> main` (exit 0), and the gate's fix
    (`changelog rebase --onto origin/main`) was itself refused, asking for --branch."""
    repo.git("checkout", "-q", "-b", "side")
    repo.commit_changelog(CHANGELOG + entry("dsr1-fp4-b300-sglang", "XXX"))
    repo.git("checkout", "-q", "main")
    repo.commit_changelog(CHANGELOG + entry("dsr1-fp4-b300-vllm", "3"))
    repo.git("checkout", "-q", "side")
    merge = subprocess.run(["git", "merge", "-q", "main"], capture_output=True, env=repo_env())
    assert merge.returncode == 1 and b"<<<<<<<" in repo.read()  # a real conflict
    before = repo.read()
    rc, _, err = sg(capsys, "changelog", "add", "--key", "kimik3-*", "--description", "more")
    assert rc == 1 and repo.read() == before, err
    marker = before.split(b"\n").index(next(ln for ln in before.split(b"\n") if ln.startswith(b"<<<<<<<"))) + 1
    closing = before.split(b"\n").index(b">>>>>>> main") + 1
    assert err.startswith(f"perf-changelog.yaml:{marker}: merge conflict in the working-tree changelog "
                          f"(3 markers, lines {marker}-{closing}); a merge is in progress: "
                          "`sweepgate changelog rebase --onto main --branch ORIG_HEAD`"), err  # s39l: not both refs
    rc, _, err = sg(capsys, "validate", "--staged", "--base-ref", "main")
    # New-user check: each marker was said twice, the second time as "does not start a new entry"; then once
    # each; now the conflict is one line, as `changelog add` says it.
    markers = [line for line in err.splitlines() if "merge conflict" in line or "merge-conflict" in line]
    assert rc == 1 and len(markers) == 1 and "does not start a new entry" not in err, err
    assert markers[0].startswith(f"perf-changelog.yaml:{marker}: merge conflict in the changelog "
                                 f"(3 markers, lines {marker}-{closing}); a merge is in progress"), err
    fix = markers[0].split("; ", 1)[1]
    command = fix.split("`")[1].split()[1:]
    # s39l: the merge's own commit as --onto (it was origin/main, which this repository, with no remote, lacks)
    assert command == ["changelog", "rebase", "--onto", "main", "--branch", "ORIG_HEAD"], fix
    assert sg(capsys, *command)[0] == 0
    assert repo.read().decode() == CHANGELOG + entry("dsr1-fp4-b300-vllm", "3") + entry("dsr1-fp4-b300-sglang", "XXX")


@pytest.mark.parametrize("operation, ref", [("rebase", "REBASE_HEAD"), ("merge", "ORIG_HEAD")])
def test_a_conflict_refusal_names_the_ref_of_the_operation_in_progress(repo, capsys, operation, ref):
    """New-user walk (s39c): mid-conflict, `changelog rebase` said "pass --branch REF (e.g. ORIG_HEAD or
    REBASE_HEAD)", not which: REBASE_HEAD is left behind by an earlier rebase, so in a merge it rebuilt the
    file from an old commit's entries. The fix now names the operation's own ref, as a command that works."""
    _two_branches(repo)
    _conflicted(repo, operation, "-q", "main")
    before = repo.read()
    rc, _, err = sg(capsys, "changelog", "rebase", "--onto", "main")
    assert rc == 1 and repo.read() == before, err
    assert f"a {operation} is in progress" in err and f"--branch {ref}`" in err, err
    other = {"REBASE_HEAD": "ORIG_HEAD", "ORIG_HEAD": "REBASE_HEAD"}[ref]
    assert other not in err, err
    assert sg(capsys, *_fix_command(err))[0] == 0
    assert repo.read().decode() == CHANGELOG + entry("dsr1-fp4-b300-vllm", "3") + entry("dsr1-fp4-b300-sglang", "XXX")


@pytest.mark.parametrize("operation", ["rebase", "merge"])
def test_the_gate_says_a_real_conflict_once(repo, capsys, operation):
    """New-user walk (s39c): stopped at a `git rebase` conflict (main's entry above the `=======`, the
    branch's below it, sharing the `- config-keys:` line before the `<<<<<<<`), the pre-commit gate also
    said "line 16 inserted inside the history" (the `<<<<<<<` itself) and "appended text does not start a
    new entry" (the branch's key, after the `=======`): three lines for one conflict. A merge's was one."""
    _two_branches(repo)
    _conflicted(repo, operation, "-q", "main")
    rc, _, err = sg(capsys, "validate", "--staged")  # as the pre-commit hook runs it: against main here
    problems = [x for x in err.splitlines() if not x.startswith("perf-changelog.yaml: ")]
    assert rc == 1 and len(problems) == 1 and "merge conflict in the changelog" in problems[0], err


def test_a_rebase_in_progress_onto_another_commit_than_onto_is_refused(repo, capsys):
    """New-user walk (s39c): during `git rebase upstream` with --onto left at its default (origin/main, here
    main, which upstream is ahead of), the file was rebuilt as main's plus the branch's entries: upstream's
    own entry was deleted, silently, and the pre-commit hook passed it (it reads against main too)."""
    _two_branches(repo)
    repo.git("checkout", "-q", "-b", "upstream", "main")
    repo.commit_changelog(CHANGELOG + entry("dsr1-fp4-b300-vllm", "3") + entry("kimik3-*", "4"))
    repo.git("checkout", "-q", "feature")
    _conflicted(repo, "rebase", "-q", "upstream")
    before = repo.read()
    rc, _, err = sg(capsys, "changelog", "rebase", "--onto", "main", "--branch", "REBASE_HEAD")
    assert rc == 1 and repo.read() == before, err
    assert err.startswith("--onto: a rebase onto upstream ("), err
    assert _fix_command(err) == ["changelog", "rebase", "--onto", "upstream", "--branch", "REBASE_HEAD"], err
    assert sg(capsys, *_fix_command(err))[0] == 0
    assert repo.read().decode() == (CHANGELOG + entry("dsr1-fp4-b300-vllm", "3") + entry("kimik3-*", "4")
                                    + entry("dsr1-fp4-b300-sglang", "XXX"))


def test_a_merge_in_progress_of_another_branch_than_onto_is_refused(repo, capsys):
    """New-user walk (s39c): during `git merge upstream` with --onto left at main (which upstream is ahead of),
    the merged file was built as main's plus the branch's entries: the merge deleted upstream's entry."""
    _two_branches(repo)
    repo.git("checkout", "-q", "-b", "upstream", "main")
    repo.commit_changelog(CHANGELOG + entry("dsr1-fp4-b300-vllm", "3") + entry("kimik3-*", "4"))
    repo.git("checkout", "-q", "feature")
    _conflicted(repo, "merge", "-q", "upstream")
    before = repo.read()
    rc, _, err = sg(capsys, "changelog", "rebase", "--onto", "main", "--branch", "ORIG_HEAD")
    assert rc == 1 and repo.read() == before, err
    assert err.startswith("--onto: a merge of upstream ("), err
    assert _fix_command(err) == ["changelog", "rebase", "--onto", "upstream", "--branch", "ORIG_HEAD"], err
    assert sg(capsys, *_fix_command(err))[0] == 0
    assert repo.read().decode() == (CHANGELOG + entry("dsr1-fp4-b300-vllm", "3") + entry("kimik3-*", "4")
                                    + entry("dsr1-fp4-b300-sglang", "XXX"))


def test_rebase_refuses_edited_history(repo, capsys):
    repo.git("checkout", "-q", "-b", "feature")
    edited = CHANGELOG.replace('"Initial Kimi-K3 agentic recipe"', '"Rewritten"')
    repo.commit_changelog(edited + entry("dsr1-fp4-b300-sglang", "XXX"))
    repo.git("checkout", "-q", "main")
    repo.commit_changelog(CHANGELOG + entry("dsr1-fp4-b300-vllm", "3"))
    repo.git("checkout", "-q", "feature")
    before = repo.read()
    rc, _, err = sg(capsys, "changelog", "rebase", "--onto", "main")
    assert rc == 1
    assert err.startswith("perf-changelog.yaml:12: history line 12 edited")
    # The gate's fix, not "move history edits to their own PR" (a PR of only that edit is refused too).
    assert "; restore it byte for byte; the changelog is append-only" in err and "own PR" not in err, err
    assert repo.read() == before


def test_rebase_moves_an_entry_inserted_inside_the_history_to_the_end(repo, capsys):
    """New-user review (msgs27): a PR whose entry sat in the middle of the file (as InferenceX's
    #2187 did) was refused by `rebase` with the gate's own "inserted inside the history" line,
    though moving the branch's entries to the end is what `rebase` is run for."""
    first, second = CHANGELOG.split("\n\n")
    repo.git("checkout", "-q", "-b", "feature")
    inserted = entry("dsr1-fp4-b300-sglang", "XXX").lstrip("\n") + "\n"
    repo.commit_changelog(first + "\n\n" + inserted + second + entry("kimik3-*", "XXX"))
    repo.git("checkout", "-q", "main")
    main_text = CHANGELOG + entry("dsr1-fp4-b300-vllm", "3")
    repo.commit_changelog(main_text)
    repo.git("checkout", "-q", "feature")
    _conflicted(repo, "merge", "-q", "main")
    rc, out, err = sg(capsys, "changelog", "rebase", "--onto", "main", "--branch", "ORIG_HEAD")
    assert rc == 0 and err == "", err
    assert repo.read().decode() == main_text + entry("dsr1-fp4-b300-sglang", "XXX") + entry("kimik3-*", "XXX")
    assert out.splitlines()[0] == ("perf-changelog.yaml: moved this branch's entry at lines 7-11 inside "
                                   "the history to the end"), out
    head = repo.commit()
    assert sg(capsys, "validate", "--base-ref", "main", "--head-ref", head, "--pr-number", "8")[0] == 0


def test_rebase_refuses_lines_inserted_into_a_history_entry(repo, capsys):
    """Lines added inside one of history's entries are an edit of it, not an entry of the branch's:
    moving them to the end would change what that entry says. Still refused, and the file kept."""
    repo.git("checkout", "-q", "-b", "feature")
    repo.commit_changelog(CHANGELOG.replace("    - dsr1-fp4-b300-vllm\n", "    - dsr1-fp4-b300-vllm\n"
                                            "    - dsr1-fp4-b300-sglang\n", 1))
    repo.git("checkout", "-q", "main")
    repo.commit_changelog(CHANGELOG + entry("dsr1-fp4-b300-vllm", "3"))
    repo.git("checkout", "-q", "feature")
    before = repo.read()
    rc, out, err = sg(capsys, "changelog", "rebase", "--onto", "main")
    assert rc == 1 and out == "" and repo.read() == before
    assert err.startswith("perf-changelog.yaml:3: line 3 inserted inside the history"), err


def test_rebase_when_main_already_has_the_entries(repo, capsys):
    repo.git("checkout", "-q", "-b", "feature")
    repo.commit_changelog(CHANGELOG + entry("dsr1-fp4-b300-sglang", "7"))
    repo.git("checkout", "-q", "main")
    repo.commit({"perf-changelog.yaml": CHANGELOG + entry("dsr1-fp4-b300-sglang", "7"), "x.txt": "x"}, "squashed")
    repo.git("checkout", "-q", "feature")
    rc, out, _ = sg(capsys, "changelog", "rebase", "--onto", "main")
    assert rc == 0 and "already holds" in out
    assert repo.read().decode() == CHANGELOG + entry("dsr1-fp4-b300-sglang", "7")


def test_rebase_with_no_entry_of_the_branch_says_so_in_words(repo, capsys):
    """New-user walk (s39c): it said "perf-changelog.yaml: rebuilt as no entries appended since the merge-base;
    perf-changelog.yaml is now main's"."""
    repo.commit({"x.txt": "x"})
    rc, out, _ = sg(capsys, "changelog", "rebase", "--onto", "main")
    assert rc == 0 and out == "perf-changelog.yaml: no entries appended since the merge-base; it is now main's\n", out


def test_rebase_without_origin_names_the_flag_that_picks_the_target(repo, capsys):
    """New-user review (msgs27): in a repository without an `origin` remote, `changelog rebase`
    said "'origin/main' is not a commit ...; pass a branch, tag or commit", never naming --onto:
    the user had typed no ref at all. The hint names the flag, and the branch that exists here."""
    repo.git("checkout", "-q", "-b", "feature")
    repo.commit_changelog(CHANGELOG + entry("dsr1-fp4-b300-sglang", "XXX"))
    before = repo.read()
    rc, out, err = sg(capsys, "changelog", "rebase")
    (line,) = err.strip().splitlines()
    assert rc == 1 and out == "" and repo.read() == before
    assert line.startswith("git: 'origin/main' is not a commit in "), line
    assert line.endswith("; pass --onto with a branch, tag or commit that exists here, e.g. --onto main "
                         "(fetch it first in CI)"), line
    rc, _, err = sg(capsys, "changelog", "rebase", "--onto", "main", "--branch", "nope")
    assert rc == 1 and "; pass --branch with a branch, tag or commit that exists here" in err, err
    assert "e.g." not in err, err  # no guess for the branch's own commit
    rc, _, err = sg(capsys, "changelog", "canonicalize", "--pr-number", "3", "--base", "nope")
    assert rc == 1 and "git: 'nope' is not a commit" in err and "; pass --base with a branch" in err, err


@pytest.mark.parametrize("argv", [["rebase", "--onto", "main"], ["rebase", "--onto", "main", "--branch", "feature"],
                                  ["canonicalize", "--pr-number", "3", "--base", "main", "--repository", "acme/bench"]])
def test_a_changelog_file_that_is_nowhere_is_refused_not_made_empty(repo, capsys, argv):
    """msgs27: `changelog rebase --changelog-file nope.yaml` (a typo) wrote an empty nope.yaml and said
    "rebuilt as ... nope.yaml is now main's", exit 0; canonicalize said "nothing to do". The file is at
    neither side nor the merge-base: refused in one line, as the gate refuses it, nothing written."""
    repo.git("checkout", "-q", "-b", "feature")
    repo.commit_changelog(CHANGELOG + entry("dsr1-fp4-b300-sglang", "XXX"))
    rc, out, err = sg(capsys, "changelog", *argv, "--changelog-file", "nope.yaml")
    (line,) = err.strip().splitlines()
    assert rc == 1 and out == "" and not (repo.path / "nope.yaml").exists(), (out, err)
    assert line.startswith("nope.yaml: not a file at ") and line.count("nope.yaml") == 1, line
    assert line.endswith("; check --changelog-file: a path from the current folder or the repository's top, "
                         "such as perf-changelog.yaml"), line


# --------------------------------------------------------------------------- canonicalize

def test_canonicalize_replaces_placeholders_in_branch_entries_only(repo, capsys):
    history = CHANGELOG.replace("pull/2\n", "pull/XXX\n")  # an old placeholder in history stays as it is
    repo.commit_changelog(history)
    repo.git("checkout", "-q", "-b", "feature")
    repo.write("perf-changelog.yaml", history + entry("kimik3-*", "XXX") + entry("dsr1-fp4-b300-vllm", "XXX"))
    rc, out, _ = sg(capsys, "changelog", "canonicalize", "--pr-number", "42", "--base", "main")
    assert rc == 0
    text = repo.read().decode()
    assert text == history + entry("kimik3-*", "42") + entry("dsr1-fp4-b300-vllm", "42")
    lines = [int(x.split(":")[1]) for x in out.splitlines()]
    assert [text.splitlines()[n - 1] for n in lines] == ["  pr-link: https://github.com/acme/bench/pull/42"] * 2
    rc, out, _ = sg(capsys, "changelog", "canonicalize", "--pr-number", "42", "--base", "main")
    assert rc == 0 and "nothing to do" in out


def test_canonicalize_fixes_the_placeholder_spellings_the_gate_refuses(repo, capsys):
    """Bad-input review: `pull/XXX/` and `pull/xxx` were "nothing to do" here, refused by validate."""
    repo.git("checkout", "-q", "-b", "feature")
    repo.write("perf-changelog.yaml", CHANGELOG + entry("kimik3-*", "XXX/") + entry("dsr1-fp4-b300-vllm", "xxx"))
    rc, out, _ = sg(capsys, "changelog", "canonicalize", "--pr-number", "42", "--base", "main")
    assert rc == 0 and repo.read().decode() == CHANGELOG + entry("kimik3-*", "42") + entry("dsr1-fp4-b300-vllm", "42")
    head = repo.commit()
    assert sg(capsys, "validate", "--base-ref", "main", "--head-ref", head, "--pr-number", "42")[0] == 0


@pytest.mark.parametrize("pr", [["--pr-number", "42"], []])
def test_a_lower_case_placeholder_is_told_as_one_and_canonicalize_named(repo, capsys, pr):
    """s34e: a real PR's `pull/xxx` read "pr-link number 'xxx' is not a pull-request number; use
    .../pull/42": nothing said it was the placeholder misspelt, nor that canonicalize fills it in."""
    repo.git("checkout", "-q", "-b", "feature")
    repo.write("perf-changelog.yaml", CHANGELOG + entry("dsr1-fp4-b300-vllm", "xxx"))
    head = repo.commit()
    rc, _, err = sg(capsys, "validate", "--base-ref", "main", "--head-ref", head, *pr)
    line = err.strip().splitlines()[0]
    assert rc == 1 and re.fullmatch(r"perf-changelog\.yaml:\d+:12: .*", line), err
    if pr:  # a PR's check: XXX is allowed, xxx is its misspelling
        assert line.endswith(": pr-link placeholder 'xxx' is not XXX (upper case); write .../pull/XXX, or fill in "
                             "the PR's link now: sweepgate changelog canonicalize --pr-number 42"), line
    else:  # the push to main: no placeholder is allowed
        assert line.endswith(": pr-link still has a placeholder, 'xxx'; replace it with the merged PR's number "
                             "(sweepgate changelog canonicalize --pr-number N)"), line


def test_canonicalize_defaults_to_main_and_refuses_history_edits(repo, capsys):
    repo.git("checkout", "-q", "-b", "feature")
    repo.write("perf-changelog.yaml", CHANGELOG.replace("pull/1\n", "pull/11\n") + entry("kimik3-*", "XXX"))
    before = repo.read()
    rc, _, err = sg(capsys, "changelog", "canonicalize", "--pr-number", "42")
    assert rc == 1 and err.startswith("perf-changelog.yaml:5: ")
    assert repo.read() == before


@pytest.mark.parametrize("inserted", ["a whole entry", "a line into an entry"])
def test_canonicalize_sends_an_inserted_whole_entry_to_rebase(repo, capsys, inserted):
    """hints27: canonicalize refused an entry inserted inside the history with the gate's plain hint
    (new entries go at the end), though `changelog rebase` moves such an entry there. It names rebase
    where rebase would move it, and keeps the plain hint where rebase refuses too (lines inserted
    into one of history's entries)."""
    first, second = CHANGELOG.split("\n\n")
    if inserted == "a whole entry":
        text = first + "\n\n" + entry("dsr1-fp4-b300-sglang", "XXX").lstrip("\n") + "\n" + second
    else:
        text = CHANGELOG.replace("    - dsr1-fp4-b300-vllm\n", "    - dsr1-fp4-b300-vllm\n    - dsr1-fp4-b300-sglang\n", 1)
    repo.write("perf-changelog.yaml", text)
    rc, out, err = sg(capsys, "changelog", "canonicalize", "--pr-number", "8")
    (line,) = err.strip().splitlines()
    assert rc == 1 and out == "" and repo.read().decode() == text, err
    assert "inserted inside the history" in line, line
    if inserted == "a whole entry":
        assert line.endswith("; new entries go at the end of the file, after one empty line: `sweepgate changelog "
                             "rebase` moves these lines there, then rerun"), line
        assert sg(capsys, "changelog", "rebase", "--onto", "main")[0] == 0  # and so it does
        assert sg(capsys, "changelog", "canonicalize", "--pr-number", "8")[0] == 0
    else:
        assert line.endswith("; new entries go at the end of the file, after one empty line, then rerun"), line
        assert sg(capsys, "changelog", "rebase", "--onto", "main")[0] == 1


def test_canonicalize_finds_a_master_branch_like_the_pre_commit_mode(repo, capsys):
    repo.git("branch", "-m", "main", "master")
    repo.git("checkout", "-q", "-b", "feature")
    repo.write("perf-changelog.yaml", CHANGELOG + entry("kimik3-*", "XXX"))
    assert sg(capsys, "validate", "--staged")[0] == 0  # the pre-commit mode's history ends at master
    rc, out, err = sg(capsys, "changelog", "canonicalize", "--pr-number", "42")
    assert rc == 0, err
    assert repo.read().decode() == CHANGELOG + entry("kimik3-*", "42")
    repo.git("branch", "-m", "master", "trunk")
    rc, _, err = sg(capsys, "changelog", "canonicalize", "--pr-number", "43")
    assert rc == 1 and "origin/main, main, origin/master, master" in err and "--base" in err


def test_a_folder_read_as_the_changelog_is_named_once(repo):
    """msgs27: "configs: configs is a directory, not the changelog" named the path twice (the command
    line refuses a folder before this, in `repopaths`; the edits' own reader says it once too)."""
    from sweepgate.core.changelog_edit import rebase
    from sweepgate.core.errors import SweepgateError
    from sweepgate.core.load import open_repo

    with pytest.raises(SweepgateError) as caught:
        rebase(open_repo(), "configs", "main")
    (problem,) = caught.value.diagnostics
    assert (problem.file, problem.message) == ("configs", "is a folder, not the changelog"), problem


def test_add_with_a_broken_runners_file_warns_at_its_line_and_column(repo, capsys):
    """A broken configs/runners.yaml was warned of at `path:line:` with no column, where every other
    warning of the configs says `path:line:col:`."""
    runners = repo.path / "configs" / "runners.yaml"
    runners.write_text(runners.read_text().replace("gpus-per-node: 8", "gpus-per-node: eight", 1))
    rc, out, err = sg(capsys, "changelog", "add", "--key", "dsr1-fp4-b300-vllm", "--description", "x")
    assert rc == 0 and "appended entry" in out
    (line,) = err.strip().splitlines()
    place = next(n for n, text in enumerate(runners.read_text().splitlines(), 1) if "eight" in text)
    assert re.match(rf"configs/runners\.yaml:{place}:[1-9][0-9]*: warning: ", line), line
