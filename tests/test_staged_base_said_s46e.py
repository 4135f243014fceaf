"""s46e's first week from a wheel: in a clone of the real corpus, on a branch whose changelog entry origin/main had
already merged, `validate --staged` said `ok (no entry appended, nothing to run)` of a branch that plainly appended
one: nothing said it had compared against origin/main, whose history holds that entry. The ok line of --staged
names its base when nothing is appended after it; with --base-ref given, the user named it, and it stays as it was."""

from __future__ import annotations

import subprocess

from tests.test_new_user import git, sg


def test_staged_with_nothing_appended_names_the_upstream_it_compared_against(make_repo, tmp_path):
    origin = make_repo()
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", f"file://{origin.path}", str(clone)], check=True)
    git(clone, "switch", "-q", "-c", "feature")
    base = git(clone, "rev-parse", "origin/main").strip()
    proc = sg(clone / "configs", "validate", "--staged")
    assert proc.returncode == 0 and proc.stdout.strip() == (
        f"perf-changelog.yaml: ok (no entry appended after the merge-base with origin/main, {base[:12]}, "
        "nothing to run)"), (proc.stdout, proc.stderr)
    proc = sg(clone, "validate", "--staged", "--base-ref", base)
    assert proc.returncode == 0 and proc.stdout.strip() == "perf-changelog.yaml: ok (no entry appended, nothing to run)"
