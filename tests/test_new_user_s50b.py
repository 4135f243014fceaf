"""s50b: a new user's rough edges, found installing the wheel into a clone of a real InferenceX-like repository.

1. A repository without `benchmarks/` (a clone holding only configs/ and the changelog) ran preflight over
   every row, one "not rehearsed" line each (1,290 on the corpus), then ~200 problems, each a missing script
   whose fix sent the user to a repository `sweepgate example --keep` makes. Preflight now says once that the
   folder is missing, at its path from here, and where the package's own scripts are; a missing library's fix
   names that folder too.
"""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path

from conftest import CHANGELOG
from test_changelog_tools import entry
from test_cli_leftovers_s33h import ROOT, sweepgate

SHIPPED = ROOT / "benchmarks"  # the tests run the package from the checkout: its fleet is the checkout's own


# --- 1. no benchmarks/ folder -------------------------------------------------------------------

def test_preflight_without_a_benchmarks_folder_says_so_once_and_where_the_shipped_scripts_are(make_repo):
    repo = make_repo()  # configs and changelog only, as a clone of the corpus
    r = sweepgate(["preflight"], repo.path)
    lines = r.stderr.splitlines()
    assert r.returncode == 1 and r.stdout == "" and len(lines) == 1, r.stdout[-2000:] + r.stderr[-2000:]
    assert lines[0].startswith("benchmarks: no such folder; preflight runs each row's benchmark script from it"), lines
    assert lines[0].endswith(f"cp -r {SHIPPED} benchmarks ({SHIPPED}/README.md says how to write a script)"), lines
    # from a subfolder: the place from the top, the fix from there, as every fix's
    r = sweepgate(["preflight", "--config-keys", "dsr1-fp4-b300-vllm"], repo.path / "configs")
    lines = r.stderr.splitlines()
    assert r.returncode == 1 and len(lines) == 1 and lines[0].startswith("benchmarks: no such folder"), r.stderr
    fix = lines[0].split("cp -r ", 1)[1].split(" (", 1)[0]
    assert fix == f"{SHIPPED} ../benchmarks", lines
    # the fix works as written: the folder is there and preflight goes on to rehearse the row
    subprocess.run(["cp", "-r", *shlex.split(fix)], cwd=repo.path / "configs", check=True)
    r = sweepgate(["preflight", "--config-keys", "dsr1-fp4-b300-vllm"], repo.path / "configs")
    # its key's line (s51b)
    assert "no such folder" not in r.stderr and "preflight: dsr1-fp4-b300-vllm: " in r.stdout, r.stdout + r.stderr
    assert "which the scripts source" not in r.stderr, r.stderr  # the library came with it


def test_under_actions_the_missing_folder_is_an_annotation_at_it(make_repo):
    repo = make_repo()
    r = sweepgate(["preflight"], repo.path / "configs", GITHUB_ACTIONS="true")
    assert r.returncode == 1 and "::error file=benchmarks::no such folder; preflight" in r.stderr, r.stderr


def test_a_missing_library_s_fix_names_the_folder_the_package_ships(make_repo):
    repo = make_repo(files={"benchmarks/README.md": "# our scripts\n"})  # its own folder, no library
    base = repo.head()
    head = repo.commit_changelog(CHANGELOG + entry("dsr1-fp4-b300-vllm", "5"))
    r = sweepgate(["plan", "--base-ref", base, "--head-ref", head], repo.path)
    said = f"copy benchmarks/benchmark_lib.sh and benchmarks/lib/, which the scripts source, from {SHIPPED}/, where"
    assert said in r.stderr and "sweepgate example" not in r.stderr, r.stderr
    assert (SHIPPED / "benchmark_lib.sh").is_file() and (SHIPPED / "lib" / "core.sh").is_file()


# --- 2. no perf-changelog.yaml ------------------------------------------------------------------

def no_changelog_repo(make_repo):
    """A repository that keeps no changelog: two commits, neither with perf-changelog.yaml."""
    repo = make_repo()
    repo.git("rm", "-q", "perf-changelog.yaml")
    base = repo.commit(None, "no changelog")
    head = repo.commit({"configs/runners.yaml": repo.read("configs/runners.yaml") + b"# a comment\n"}, "runners")
    return repo, base, head


def test_validate_matrix_and_plan_say_the_repository_has_no_changelog_and_how_to_make_one(make_repo):
    repo, base, head = no_changelog_repo(make_repo)
    refs = ["--base-ref", base, "--head-ref", head]
    fix = ("create it with `sweepgate changelog add --key KEY --description TEXT`, which writes {} with this "
           "change's entry, and commit it; or pass --changelog-file with the path of your changelog")
    for command in (["validate", *refs], ["matrix", *refs], ["plan", *refs], ["validate", "--staged"]):
        r = sweepgate(command, repo.path)
        where = "in the working tree" if "--staged" in command else f"at {head[:12]}"
        assert r.returncode == 1 and r.stderr.splitlines() == [
            f"perf-changelog.yaml: no such file at the base or {where}: the repository has no perf changelog; "
            + fix.format("perf-changelog.yaml")], (command, r.stderr)
        assert "check --changelog-file" not in r.stderr
        # from a subfolder: the file from there
        r = sweepgate(command, repo.path / "configs")
        assert r.returncode == 1 and r.stderr.splitlines() == [
            f"perf-changelog.yaml: no such file (../perf-changelog.yaml from here) at the base or {where}: the "
            "repository has no perf changelog; " + fix.format("../perf-changelog.yaml")], (command, r.stderr)
    # the fix works as written: the entry it appends passes the gate
    r = sweepgate(["changelog", "add", "--key", "dsr1-fp4-b300-vllm", "--description", "first",
                   "--repository", "o/r"], repo.path / "configs")
    assert r.returncode == 0 and (repo.path / "perf-changelog.yaml").is_file(), r.stderr
    r = sweepgate(["validate", "--staged"], repo.path / "configs")
    assert r.returncode == 0, r.stderr


def test_a_changelog_file_typed_and_not_there_is_still_a_path_to_check(make_repo):
    repo, base, head = no_changelog_repo(make_repo)
    r = sweepgate(["validate", "--base-ref", base, "--head-ref", head, "--changelog-file", "log.yaml"], repo.path)
    assert r.returncode == 1 and "log.yaml: not a file at the base or at " in r.stderr, r.stderr
    assert "check --changelog-file" in r.stderr and "changelog add" not in r.stderr, r.stderr
