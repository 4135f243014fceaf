"""What a new user, installed from a wheel, meets in the README's first hour, tried as written (s48d).

- *Changelog rules*: the command the README gives for the changelog's conflict in a `git rebase origin/main`
  or `git merge origin/main` is taken from README.md and run, on a real git repository, in each of the two
  operations stopped at that conflict. It was `changelog rebase --onto origin/main`, which both refuse (the
  working tree holds the conflict markers, so the branch's entries must be read from the operation's own ref).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import CHANGELOG
from test_changelog_tools import _conflicted, _two_branches, entry, repo, sg  # noqa: F401

ROOT = Path(__file__).resolve().parents[1]


def _changelog_rules() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    return readme.split("\n## Changelog rules\n", 1)[1].split("\n## ", 1)[0]


def _conflict_command(operation: str) -> list[str]:
    """The `sweepgate changelog rebase ...` the README's *Changelog rules* gives for a conflict in a
    `git OPERATION origin/main`, as argv after `sweepgate`, with `origin/main` as this remote-less repository
    names it (`main`)."""
    text = " ".join(_changelog_rules().split())
    said = re.findall(rf"`git {operation} origin/main`[^`]*`sweepgate (changelog rebase[^`]*)`", text)
    assert said, f"README's Changelog rules gives no `sweepgate changelog rebase` for a `git {operation} origin/main`"
    return said[0].replace("origin/main", "main").split()


@pytest.mark.parametrize("operation", ["rebase", "merge"])
def test_the_readme_s_command_at_a_changelog_conflict_works_as_written(repo, capsys, operation):  # noqa: F811
    _two_branches(repo)
    _conflicted(repo, operation, "-q", "main")
    rc, out, err = sg(capsys, *_conflict_command(operation))
    assert rc == 0, out + err
    assert repo.read().decode() == CHANGELOG + entry("dsr1-fp4-b300-vllm", "3") + entry("dsr1-fp4-b300-sglang", "XXX")
