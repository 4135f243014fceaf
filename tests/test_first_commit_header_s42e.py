"""s42e: comment lines above a new changelog's first entry (its header) are YAML's own, not text of an entry.

The repository `sweepgate example --keep --no-rehearse` keeps is a template, and its changelog opens with a
header of comment lines (`# yaml-language-server: $schema=...`, what the file is) right above the first entry.
Made a new repository's first commit, the gate reads every entry as new against the empty history, and it
refused that header: `the changelog must be a list of entries` at line 1, and `no empty line between this entry
and line 5` at the first entry. The reference's loader ignores comments; the header now passes, the first entry
right under it or after one empty line. Once committed, the header is history as any line is: a later change
that edits it is refused, byte for byte.
"""

from __future__ import annotations

import shutil

import pytest
from conftest import CHANGELOG, appended_entry
from test_first_commit_hint_s41s import staged_first_commit

from sweepgate import cli
from sweepgate.commands.example import build_repo

HEADER = "# yaml-language-server: $schema=configs/schema/perf-changelog.schema.json\n#\n# What changed, and why.\n"


def _first_commit(make_repo, monkeypatch, changelog: str):
    """A repository with no commit yet, ``changelog`` staged as its first commit's, run from its top."""
    repo = staged_first_commit(make_repo, monkeypatch, changelog)
    monkeypatch.chdir(repo.path)
    return repo


def test_the_example_template_passes_as_a_new_repository_s_first_commit(tmp_path, monkeypatch, capsys):
    for name in ("GITHUB_ACTIONS", "GITHUB_REPOSITORY"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "kept").mkdir()
    build_repo(str(tmp_path / "kept"))  # what `sweepgate example --keep --no-rehearse` keeps
    shutil.copytree(tmp_path / "kept", tmp_path / "mine", ignore=shutil.ignore_patterns(".git"))
    assert (tmp_path / "mine" / "perf-changelog.yaml").read_text().startswith("# ")  # a header to read
    from conftest import GitRepo

    repo = GitRepo(tmp_path / "mine")
    repo.git("init", "-q", "-b", "main")
    repo.git("add", "-A")
    monkeypatch.chdir(repo.path)
    assert cli.main(["validate", "--staged"]) == 0, capsys.readouterr()
    capsys.readouterr()
    # committed, the header is history: editing it is refused, at its line
    repo.git("commit", "-q", "-m", "first")
    text = repo.read().decode()
    repo.write("perf-changelog.yaml", text.replace("#\n", "# edited\n", 1) + appended_entry())
    assert cli.main(["validate", "--staged"]) == 1
    err = capsys.readouterr().err
    assert "perf-changelog.yaml:2:" in err and "history" in err, err


@pytest.mark.parametrize("gap", ["", "\n"])
def test_a_header_above_the_first_entry_passes_in_a_first_commit(make_repo, monkeypatch, capsys, gap):
    _first_commit(make_repo, monkeypatch, HEADER + gap + CHANGELOG)
    assert cli.main(["validate", "--staged"]) == 0, capsys.readouterr()


def test_a_header_s_layout_is_still_checked(make_repo, monkeypatch, capsys):
    """Empty lines before the header, or two between it and the first entry, are refused as they are
    without a header; text that is no comment above the first entry is still no entry."""
    _first_commit(make_repo, monkeypatch, "\n" + HEADER + "\n\n" + CHANGELOG)
    assert cli.main(["validate", "--staged"]) == 1
    err = capsys.readouterr().err
    assert "perf-changelog.yaml:1: file starts with empty lines" in err, err
    assert "perf-changelog.yaml:6: 2 empty lines between the header and the first entry" in err, err
    _first_commit(make_repo, monkeypatch, HEADER + "title: x\n" + CHANGELOG)
    assert cli.main(["validate", "--staged"]) == 1
    err = capsys.readouterr().err
    assert "perf-changelog.yaml:4: the changelog must be a list of entries" in err, err


def test_a_later_commit_editing_the_header_is_a_history_edit(make_repo, monkeypatch, capsys):
    repo = make_repo(HEADER + CHANGELOG)
    base = repo.head()
    repo.commit_changelog(HEADER.replace("why", "why it changed") + CHANGELOG + appended_entry())
    monkeypatch.chdir(repo.path)
    assert cli.main(["validate", "--base-ref", base, "--head-ref", "HEAD", "--pr-number", "5"]) == 1
    err = capsys.readouterr().err
    assert "perf-changelog.yaml:3:" in err and "history" in err, err
