"""A new repository adopting the pre-commit hook (s41e's adoption review): its first commit imported
InferenceX's changelog and the hook, which checks a first commit's entries as new (the empty history
before it), refused it with 530 problems and not a word of the way out docs/changelog-rules.md gives
(such a commit is no change to gate: `git commit --no-verify`). The count line says it now, once, on
stdout (stderr keeps one line per problem), and only before a first commit."""

from __future__ import annotations

from conftest import CHANGELOG
from test_first_commit_hint_s41s import HINT, staged_first_commit

from sweepgate import cli

# an import: two empty lines between entries, as InferenceX's history has (s41s: the way out follows the
# refusals an import causes, not an entry's own mistake alone)
BAD = CHANGELOG + "\n\n- config-keys:\n    - dsr1-fp4-b300-vlm\n  description:\n    - \"x\"\n" \
                  "  pr-link: https://github.com/acme/bench/pull/5\n"


def test_a_refused_first_commit_is_told_how_to_import_an_existing_changelog(make_repo, capsys, monkeypatch):
    repo = staged_first_commit(make_repo, monkeypatch, BAD)
    monkeypatch.chdir(repo.path / "configs")  # as the hook runs it from any folder
    assert cli.main(["validate", "--staged"]) == 1
    out, err = capsys.readouterr()
    assert "dsr1-fp4-b300-vlm" in err and HINT not in err, err  # stderr: the problems only
    assert out.count(HINT) == 1 and "first commit" in out, out
    # Once a commit exists (made with --no-verify, as told), a refusal is a change's own: no such line.
    repo.git("commit", "-q", "--no-verify", "-m", "import")
    repo.write("perf-changelog.yaml", BAD + "\n" + BAD[len(CHANGELOG) + 1:])
    assert cli.main(["validate", "--staged"]) == 1
    out, err = capsys.readouterr()
    assert err and HINT not in out + err, out
