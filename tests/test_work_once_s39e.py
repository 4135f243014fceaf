"""s39e: work that was done twice is done once, with the same answers. Each test counts the work (calls of a
real function, wrapped to count and still run) on real files, processes and stores.

1. What a script left running was placed by `left_by_line`, and each group's line found again for its
   diagnostic (``runner._place``): found once now.
2. `ci reuse` (``reuse.find``) restated ``identity.identities`` and ran ``identity.blind_spots`` twice a row (once
   in ``run_identity``, once for its lines): ``identity.identities_and_blind`` finds both, each row's causes once.
3. Where a subshell alive as the script ended was started (``linetrap.subshells``): the file its stack stands in
   was read twice (``_holds``, ``_opening``) and parsed three times (where its command starts, twice, and the
   whole text), a subshell; it is read once for all the subshells standing in it (``linetrap._Source``), its
   text parsed once, and where a line's command starts found once a line.
"""

from __future__ import annotations

import os
import pathlib
import signal
import subprocess
import time


from conftest import CHANGELOG
from test_matrix import entry
from test_reuse import SCRIPTS, matrix, repo, rows  # noqa: F401 (repo: the fixture)

from sweepgate.core import identity, shellcode
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


SUBSHELLS = "echo go\n(\n  sleep 300\n) &\necho $! >> pids\n(\n  sleep 300\n) &\necho $! >> pids\nwait\n"


def test_each_file_a_live_subshell_stands_in_is_read_and_parsed_once(tmp_path, monkeypatch):
    root, work = tmp_path / "repo", tmp_path / "w"
    script = root / "benchmarks" / "x.sh"
    script.parent.mkdir(parents=True)
    work.mkdir()
    script.write_text(SUBSHELLS, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "BASH_ENV"}
    paths = linetrap.install(work, env)
    proc = subprocess.Popen(["bash", str(script)], cwd=root, env=env, start_new_session=True)
    try:
        pids: list[int] = []
        for _ in range(500):  # until both subshells are started and written (not a timing: a wait for them)
            pids = [int(p) for p in (root / "pids").read_text().split()] if (root / "pids").exists() else []
            data = paths["subshells"].read_bytes() if paths["subshells"].exists() else b""
            if len(pids) == 2 and all(f"{pid}".encode() + b"\0" in data for pid in pids):
                break
            time.sleep(0.02)
        stats = runner._proc_stats()
        started = {pid: rest[19] for pid, rest in stats.items()}
        parents = {pid: int(rest[1]) for pid, rest in stats.items() if rest[1].isdigit()}
        opened, real_open = [], pathlib.Path.open

        def counting_open(self, *args, **kwargs):
            if self == script:
                opened.append(args)
            return real_open(self, *args, **kwargs)

        monkeypatch.setattr(pathlib.Path, "open", counting_open)
        parses = _counting(monkeypatch, shellcode, "code")
        found = linetrap.subshells(paths["subshells"], started, parents, root)
        monkeypatch.undo()
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert [found.get(pid) for pid in pids] == [[(str(script), 2)], [(str(script), 6)]], found
    assert len(opened) == 1, opened  # read once for both subshells (twice each before)
    assert len(parses) == 3, len(parses)  # its text once, and where the command of each of its lines starts (3 each)
