"""s39e: work that was done twice is done once, with the same answers. Each test counts the work (calls of a
real function, wrapped to count and still run) on real files, processes and stores.

1. What a script left running was placed by `left_by_line`, and each group's line found again for its
   diagnostic (``runner._place``): found once now.
"""

from __future__ import annotations

from pathlib import Path

from sweepgate.rehearsal import linetrap, runner


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
