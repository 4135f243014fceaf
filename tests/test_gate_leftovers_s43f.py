"""s43f: the gate's leftovers, each in a real clone, each fix run as printed.

- `changelog add` in a clone with a remote and no main-like branch took HEAD as the history, where
  `validate --staged` refuses: the entry HEAD's branch had appended was history to add and a gate to
  validate. Both now ask one function (``upstream.staged_base``): refused with the fetch that brings the
  branch; a repository with no remote at all keeps HEAD in both.
- `validate --base-ref origin/main` in a full clone made with `--single-branch -b feature` said "fetch it
  first in CI"; it now gives the fetch that works in that clone, whose refspec names feature alone.
- A remote not named origin was told "fetch the branch it merges into": the remote and the branch are named
  now (the remote's HEAD when this clone knows it, else main), and once fetched that branch is the base.
- A header of comment lines committed alone: the first entry appended under it needs one empty line above
  it, as every appended entry does; the refusal says which line to insert it above, and `changelog add`
  writes it.
"""

from __future__ import annotations

import re
import subprocess

from tests.test_new_user import git, one_clear_line, sg
from tests.test_shallow_fix_followed_s42d import origin, run_the_fix  # noqa: F401 (a fixture)

ADD = ("changelog", "add", "--key", "dsr1-fp8-b300-vllm", "--description", "Rerun after the driver update")


def clone(origin, tmp_path, *flags: str):
    path = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", *flags, f"file://{origin}", str(path)], check=True)
    return path


def fetch_in(line: str) -> str:
    return re.search(r"(git fetch [^)]*)\)", line).group(1)


def added_and_passed(repo, *flags: str) -> None:
    """`changelog add` appends an entry, and `validate --staged` passes the file it wrote."""
    proc = sg(repo, *ADD, *flags)
    assert proc.returncode == 0 and "appended entry" in proc.stdout, (proc.stdout, proc.stderr)
    proc = sg(repo, "validate", "--staged")
    assert proc.returncode == 0 and "appended entr" in proc.stdout, (proc.stdout, proc.stderr)


def test_changelog_add_refuses_where_validate_staged_does_and_its_fetch_works(origin, tmp_path):
    repo = clone(origin, tmp_path, "--single-branch", "-b", "feature")
    before = (repo / "perf-changelog.yaml").read_bytes()
    staged = one_clear_line(sg(repo, "validate", "--staged"), "--base-ref: no branch here")
    line = one_clear_line(sg(repo, *ADD), "git: no branch here", "--single-branch",
                          "(git fetch origin main:refs/remotes/origin/main), then rerun")
    assert line.split(": ", 1)[1].split("; ")[0] == staged.split(": ", 1)[1].split("; ")[0], (line, staged)
    assert (repo / "perf-changelog.yaml").read_bytes() == before  # nothing written
    run_the_fix(repo, fetch_in(line))
    added_and_passed(repo)


def test_with_no_remote_both_take_head_as_the_history(origin, tmp_path):
    repo = clone(origin, tmp_path, "--single-branch", "-b", "feature")
    git(repo, "remote", "remove", "origin")
    added_and_passed(repo)


def test_a_missing_origin_main_is_fetched_as_the_refusal_says(origin, tmp_path):
    repo = clone(origin, tmp_path, "--single-branch", "-b", "feature")
    refs = ("validate", "--base-ref", "origin/main", "--head-ref", "HEAD")
    line = one_clear_line(sg(repo, *refs), "git: 'origin/main' is not a commit in ")
    assert line.endswith("(fetch it first: git fetch origin main:refs/remotes/origin/main)"), line
    run_the_fix(repo, line.rsplit("fetch it first: ", 1)[1][:-1])
    proc = sg(repo, *refs)
    assert proc.returncode == 0 and "appended entr" in proc.stdout, (proc.stdout, proc.stderr)


def test_a_remote_not_named_origin_is_named_with_its_missing_branch(origin, tmp_path):
    repo = clone(origin, tmp_path, "--single-branch", "-b", "feature")
    git(repo, "remote", "rename", "origin", "upstream")
    line = one_clear_line(sg(repo, "validate", "--staged"), "(this repository has remote upstream but not its "
                          "branch main)", "; fetch the branch it merges into (git fetch upstream "
                          "main:refs/remotes/upstream/main) or pass --base-ref")
    run_the_fix(repo, fetch_in(line))
    added_and_passed(repo)


def test_the_branch_a_remote_s_head_names_is_the_one_fetched(origin, tmp_path):
    trunk = tmp_path / "trunk"
    subprocess.run(["git", "clone", "-q", "--bare", str(origin), str(trunk)], check=True)
    git(trunk, "branch", "-m", "main", "trunk")
    repo = clone(trunk, tmp_path, "--single-branch", "-b", "feature")
    git(repo, "remote", "rename", "origin", "upstream")
    git(repo, "symbolic-ref", "refs/remotes/upstream/HEAD", "refs/remotes/upstream/trunk")  # known, not fetched
    line = one_clear_line(sg(repo, *ADD), "(this repository has remote upstream but not its branch trunk)",
                          "(git fetch upstream trunk:refs/remotes/upstream/trunk), then rerun")
    run_the_fix(repo, fetch_in(line))
    proc = sg(repo, "validate", "--staged")
    assert proc.returncode == 0 and "appended entr" in proc.stdout, (proc.stdout, proc.stderr)


def test_a_committed_header_s_first_entry_is_told_where_its_empty_line_goes(tmp_path):
    from sweepgate.commands.example import build_repo

    (tmp_path / "kept").mkdir()
    build_repo(str(tmp_path / "kept"))  # what `sweepgate example --keep --no-rehearse` keeps
    repo = tmp_path / "mine"
    subprocess.run(["git", "clone", "-q", str(tmp_path / "kept"), str(repo)], check=True)
    git(repo, "remote", "remove", "origin")
    full = (repo / "perf-changelog.yaml").read_text()
    header = "".join(line for line in full.splitlines(keepends=True) if line.startswith("#"))
    first = full[len(header):full.index("\n\n") + 1]  # the template's first entry, right under its header
    assert header and first.startswith("- config-keys:")
    (repo / "perf-changelog.yaml").write_text(header)
    git(repo, "commit", "-q", "-am", "the header alone")
    at = header.count("\n") + 1
    (repo / "perf-changelog.yaml").write_text(header + first)
    line = one_clear_line(sg(repo, "validate", "--staged"), f"perf-changelog.yaml:{at}: no empty line between "
                          f"this entry and the header's last line ({at - 1}); insert one empty line above line {at}: ")
    (repo / "perf-changelog.yaml").write_text(header + "\n" + first)
    proc = sg(repo, "validate", "--staged")
    assert proc.returncode == 0, proc.stderr
    (repo / "perf-changelog.yaml").write_text(header)
    added_and_passed(repo, "--repository", "acme/bench")  # no pr-link yet to take it from
    assert (repo / "perf-changelog.yaml").read_text().startswith(header + "\n- config-keys:\n")


def test_a_non_ascii_repository_name_is_no_owner_name_anywhere(tmp_path, monkeypatch):
    """GitHub owner and repository names are ASCII letters, digits, '-', '_' and '.': repository_url matched
    \\w, and linked a report's commits to https://github.com/acmé/bench, a name every command refuses."""
    from sweepgate.core import github

    env = {"GITHUB_TOKEN": "t", "GITHUB_REPOSITORY": "acmé/bench", "GITHUB_SERVER_URL": "https://github.com"}
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert github.repository_url() is None
    body = tmp_path / "body.md"
    body.write_text("<!-- sweepgate-results -->\nhi\n")
    line = one_clear_line(sg(tmp_path, "results", "comment", "--pr-number", "5", "--body", str(body), env=env))
    assert line == ("sweepgate results comment: needs --repository: repository 'acmé/bench' is not OWNER/NAME; "
                    "set GITHUB_REPOSITORY (or pass --repository OWNER/NAME)"), line
    monkeypatch.setenv("GITHUB_REPOSITORY", "acme-2/bench.x_y")
    assert github.repository_url() == "https://github.com/acme-2/bench.x_y"
