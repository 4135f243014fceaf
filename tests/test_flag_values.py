"""Bad flag values: a malformed value is argparse's usage error (exit 2) wherever the flag exists,
and a repository-data path outside the repository is one line up front (exit 1)."""

from __future__ import annotations

import argparse

import pytest

from sweepgate import cli


def _flag_paths(flag: str) -> list[list[str]]:
    """Every (sub)command path whose parser declares ``flag``."""
    found = []

    def walk(parser: argparse.ArgumentParser, path: list[str]) -> None:
        for action in parser._actions:
            if flag in action.option_strings:
                found.append(path)
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, [*path, name])

    for name in cli.COMMANDS:
        walk(cli.build_parser([name]), [])
    return sorted(found)


REPOSITORY_FLAGS = _flag_paths("--repository")


def test_the_repository_flag_is_found_where_the_docs_put_it():
    for path in (["validate"], ["plan"], ["changelog", "add"], ["changelog", "canonicalize"], ["ci", "audit"],
                 ["results", "compare"]):
        assert path in REPOSITORY_FLAGS, REPOSITORY_FLAGS


@pytest.mark.parametrize("path", REPOSITORY_FLAGS, ids=" ".join)
def test_a_repository_that_is_not_owner_name_is_a_usage_error(path, capsys, monkeypatch):
    """Review: `--repository foo` exited 1 while `--pr-number abc` exited 2."""
    monkeypatch.delenv("GITHUB_REPOSITORY", raising=False)
    with pytest.raises(SystemExit) as info:
        cli.main([*path, "--repository", "foo"])
    assert info.value.code == 2
    assert "argument --repository: 'foo' is not OWNER/NAME" in capsys.readouterr().err


def test_an_empty_repository_means_unset_and_owner_name_is_accepted(make_repo, monkeypatch, capsys):
    monkeypatch.delenv("GITHUB_REPOSITORY", raising=False)
    monkeypatch.chdir(make_repo().path)
    assert cli.main(["validate", "--staged", "--repository", ""]) == 0
    assert cli.main(["validate", "--staged", "--repository", "acme/bench"]) == 0
