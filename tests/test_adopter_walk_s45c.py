"""A new maintainer's first day (s45c): an installed sweepgate on a repository built from the corpus main tip, every
README step followed from the top and from a subfolder. Each test here is something that surprised that user."""

from __future__ import annotations

from conftest import CHANGELOG

from sweepgate import cli

ENTRY = ('- config-keys:\n    - dsr1-fp4-b300-vllm\n  description:\n    - "Bump the vLLM image"\n'
         '  pr-link: https://github.com/acme/bench/pull/5\n')


def _crlf_fixes(repo, capsys, folder: str, *flags: str) -> list[str]:
    """The fixes the gate names for a changelog entry appended with CRLF line endings, run from ``folder``."""
    import os

    name = next((flags[i + 1] for i, flag in enumerate(flags) if flag == "--changelog-file"), "perf-changelog.yaml")
    text = (CHANGELOG + "\n" + ENTRY.replace("\n", "\r\n")).encode()
    head = repo.commit({name: text}, "crlf entry")
    os.chdir(repo.path / folder)
    rc = cli.main(["validate", "--base-ref", repo.base, "--head-ref", head, *flags])
    err = capsys.readouterr().err
    assert rc == 1 and "Traceback" not in err, err
    return [line.rpartition("; ")[2] for line in err.splitlines() if "carriage return" in line]


def test_the_crlf_fix_names_the_changelog_from_the_folder_it_is_run_in(repo_outside_actions, capsys):
    """Run from a subfolder (benchmarks/, configs/), the fix said `dos2unix perf-changelog.yaml`, which there names no
    file: a fix's command is written from the current folder (CONTRACTS, Conventions); the line's place stays from
    the top."""
    fixes = _crlf_fixes(repo_outside_actions, capsys, "configs")
    assert fixes and set(fixes) == {"use LF line endings (dos2unix ../perf-changelog.yaml)"}, fixes


def test_the_crlf_fix_names_the_changelog_the_gate_read(make_repo, monkeypatch, capsys):
    """`--changelog-file history.yaml`: the fix named perf-changelog.yaml, a file the gate never read."""
    for name in ("GITHUB_ACTIONS", "GITHUB_REPOSITORY", "GITHUB_OUTPUT"):
        monkeypatch.delenv(name, raising=False)
    repo = make_repo(files={"history.yaml": CHANGELOG})
    monkeypatch.chdir(repo.path)
    repo.base = repo.head()
    fixes = _crlf_fixes(repo, capsys, ".", "--changelog-file", "history.yaml")
    assert fixes and set(fixes) == {"use LF line endings (dos2unix history.yaml)"}, fixes
