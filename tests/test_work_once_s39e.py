"""s39e: work that was done twice is done once, with the same answers. Each test counts the work (calls of a
real function, wrapped to count and still run) on real files, processes and stores.

1. What a script left running was placed by `left_by_line`, and each group's line found again for its
   diagnostic (``runner._place``): found once now.
2. `ci reuse` (``reuse.find``) restated ``identity.identities`` and ran ``identity.blind_spots`` twice a row (once
   in ``run_identity``, once for its lines): ``identity.identities_and_blind`` finds both, each row's causes once.
"""

from __future__ import annotations

from pathlib import Path

from conftest import CHANGELOG
from test_matrix import entry
from test_reuse import SCRIPTS, matrix, repo, rows  # noqa: F401 (repo: the fixture)

from sweepgate.core import identity
from sweepgate.core.load import Git
from sweepgate.rehearsal import linetrap, runner
from sweepgate.results import reuse
from sweepgate.results.store import open_store


def _counting(monkeypatch, module, name: str) -> list:
    """Wrap ``module.name`` so that each call is counted (its arguments kept), and still made."""
    calls, real = [], getattr(module, name)

    def wrapper(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, wrapper)
    return calls


def test_a_left_running_group_is_placed_once(tmp_path, monkeypatch):
    root = tmp_path / "repo"
    script = root / "benchmarks" / "x.sh"
    script.parent.mkdir(parents=True)
    script.write_text("echo go\nwatch() {\n  sleep 300\n}\nwatch &\n", encoding="utf-8")
    work = tmp_path / "w"
    (work / "results").mkdir(parents=True)
    paths = {"log": work / "calls.jsonl", "results": work / "results", "result": work / "results" / "r.json",
             "eval": work / "results" / "r-eval.json"}
    left = ["sleep 300 (PID 71)", f"bash {script} (PID 72)"]  # as the run named them: nothing here signals a PID
    run = runner.ScriptRun(1, False, left, [], {71: [(str(script), 5)], 72: [(str(script), 5)]})
    places = _counting(monkeypatch, linetrap, "place")
    problems = runner.verdict({}, {}, paths, run, 10, root, script)
    found = runner._problem_diagnostics(root, script, problems, "")
    at = [(d.file, d.line) for d in found if "left running" in d.message]
    assert at == [("benchmarks/x.sh", 5)], found
    assert len(places) == len(left), places  # each leftover once; none again for its diagnostic


def test_reuse_finds_each_rows_blind_spots_once(repo, tmp_path, monkeypatch):
    main = repo.head()
    head = repo.commit_changelog(CHANGELOG + "\n" + entry(*SCRIPTS), "tune both dsr1 keys")
    m = matrix(repo, main, head)
    spots = _counting(monkeypatch, identity, "blind_spots")
    monkeypatch.setattr(reuse, "blind_spots", identity.blind_spots, raising=False)  # a name it imported counts too
    with open_store(f"sqlite:///{tmp_path / 'results.db'}") as store:
        found = reuse.find(m, Git(repo.path), head, store)
    assert len(found.rows) == len(rows(m)) == 5 and all(ident for _, _, ident in found.rows), found.rows
    assert len(spots) == len(found.rows), len(spots)
    git = Git(repo.path)
    assert [ident for _, _, ident in found.rows] == identity.identities(
        rows(m), found.runners, lambda paths: git.read_blobs(head, paths)), "the same identities as identity.identities"
    assert found.blind == {}
