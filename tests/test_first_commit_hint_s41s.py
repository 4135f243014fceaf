"""s41s: the first-commit `git commit --no-verify` line is said only of refusals an import causes.

s41e added, after a refusal before a repository's first commit, a line saying that a first commit importing an
existing changelog is made with `git commit --no-verify`. It followed any refusal, so a new repository's own
first entry with a mistake in it (a config key typo, a field the schema does not know, broken YAML) was pointed
at skipping the gate. It is now said only where the refusals include those that checking an imported history
against the empty history causes (its layout: empty lines, whitespace lines; entries copied or mixed; its old
pr-links) and none that is an entry's own mistake (schema, YAML); a key naming no config (an old entry's config
since removed, or a typo) neither brings the line nor keeps it away.
"""

from __future__ import annotations

import shutil

import pytest
from conftest import CHANGELOG

from sweepgate import cli

HINT = "git commit --no-verify"
ENTRY = "- config-keys:\n    - {key}\n  description:\n    - \"x\"\n  pr-link: https://github.com/acme/bench/pull/{pr}\n"
TYPO = CHANGELOG + "\n" + ENTRY.format(key="dsr1-fp4-b300-vlm", pr=5)
UNKNOWN_FIELD = CHANGELOG + "\n" + ENTRY.format(key="dsr1-fp4-b300-vllm", pr=5).replace("  pr-link", "  evals-olny: true\n  pr-link")
BAD_YAML = CHANGELOG + "\n- config-keys:\n    - [dsr1-fp4-b300-vllm\n  description: x\n"
# an imported history: two empty lines between entries and an old non-canonical link, as InferenceX's has
IMPORTED = CHANGELOG + "\n\n" + ENTRY.format(key="dsr1-fp4-b300-vllm", pr="5/changes")
# the same with an old entry naming a config since removed
IMPORTED_GONE = IMPORTED + "\n" + ENTRY.format(key="gptoss-fp4-b200-vllm", pr=6)


def staged_first_commit(make_repo, monkeypatch, changelog: str):
    """A repository with no commit yet, ``changelog`` staged as its first commit's (off CI, as a hook runs)."""
    for name in ("GITHUB_ACTIONS", "GITHUB_REPOSITORY"):
        monkeypatch.delenv(name, raising=False)
    repo = make_repo()
    shutil.rmtree(repo.path / ".git")
    repo.git("init", "-q", "-b", "main")
    repo.write("perf-changelog.yaml", changelog)
    repo.git("add", "-A")
    return repo


def _first_commit(make_repo, monkeypatch, capsys, changelog: str) -> tuple[str, str]:
    monkeypatch.chdir(staged_first_commit(make_repo, monkeypatch, changelog).path)
    assert cli.main(["validate", "--staged"]) == 1
    return capsys.readouterr()


@pytest.mark.parametrize("changelog, wrong", [(TYPO, "dsr1-fp4-b300-vlm"), (UNKNOWN_FIELD, "evals-olny"),
                                              (BAD_YAML, "YAML")])
def test_an_entry_s_own_mistake_in_a_first_commit_is_not_pointed_at_no_verify(make_repo, monkeypatch, capsys,
                                                                             changelog, wrong):
    out, err = _first_commit(make_repo, monkeypatch, capsys, changelog)
    assert wrong in err and HINT not in out + err, (out, err)


@pytest.mark.parametrize("changelog", [IMPORTED, IMPORTED_GONE])
def test_an_imported_history_refused_against_the_empty_one_is_told_of_no_verify(make_repo, monkeypatch, capsys,
                                                                               changelog):
    out, err = _first_commit(make_repo, monkeypatch, capsys, changelog)
    assert out.count(HINT) == 1 and "first commit" in out and HINT not in err, (out, err)


def test_an_import_with_an_entry_s_own_mistake_is_not_told_of_no_verify(make_repo, monkeypatch, capsys):
    out, err = _first_commit(make_repo, monkeypatch, capsys, IMPORTED + BAD_YAML[len(CHANGELOG):])
    assert err and HINT not in out + err, (out, err)
