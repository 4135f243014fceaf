"""s42c: `results ingest` of many files and `results compare --plots` of many charts drew a progress bar on a
terminal but said nothing into a pipe (a CI log) until the end: a job of minutes showed no sign of life. Into a
pipe they now say a plain line ``ingesting: 120/400 files`` each ``report.PIPED_EVERY`` seconds of work, and one
at the end once they said any; work done sooner says none. Timed by ``report.CLOCK``, which these tests replace
by a clock that moves a fixed step each time it is read: lines are counted, never waited for."""

from __future__ import annotations

import os
import sys

import pytest

import helpers
from helpers import drained
from sweepgate import cli
from sweepgate.core import report


class Steps:
    """A clock that moves ``step`` seconds each time it is read (progress reads it once, then once per item)."""

    def __init__(self, step: float):
        self.now, self.step = 0.0, step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def _piped(monkeypatch, run) -> str:
    """What ``run()`` writes to stderr when stderr is a real pipe (no terminal)."""
    reader, writer = os.pipe()
    with os.fdopen(writer, "w", closefd=True) as stream:
        monkeypatch.setattr(sys, "stderr", stream)
        assert not stream.isatty()
        run()
    return drained(reader).decode()


@pytest.mark.parametrize(("total", "step", "said"), [
    (40, 1.0, list(range(5, 41, 5))),  # a line each 5 s of work, the last at the end
    (12, 1.0, [5, 10, 12]),  # the end said too, once a line was
    (12, 2.5, [2, 4, 6, 8, 10, 12]),
    (400, 0.01, []),  # 4 s in all: done before a line was due, nothing said
    (3, 10.0, []),  # fewer than the minimum: no progress at all
])
def test_piped_progress_is_a_line_each_few_seconds_and_none_for_quick_work(monkeypatch, total, step, said):
    monkeypatch.setattr(report, "CLOCK", Steps(step))

    def run():
        bar = report.progress(total, "ingesting", 5, of="files")
        assert bar is not None or total < 5
        assert list(bar(range(total)) if bar else range(total)) == list(range(total))

    text = _piped(monkeypatch, run)
    assert "\x1b" not in text and "\r" not in text
    assert text.splitlines() == [f"ingesting: {n}/{total} files" for n in said], text


def _outputs(folder, n: int) -> list[str]:
    for conc in range(1, n + 1):
        row = dict(helpers.ROW, conc=conc)
        helpers.write_job(folder, f"r{conc}", helpers.vllm_output(conc), helpers.job(row=row))
    return [str(folder)]


def test_results_ingest_into_a_pipe_says_how_far_it_got(env, monkeypatch, tmp_path):
    """Through the command: 25 files, each read as 2 s of work, into a pipe: a line each 5 s, and the end."""
    paths = _outputs(tmp_path / "out", 25)
    monkeypatch.setattr(report, "CLOCK", Steps(2.0))
    code = []
    text = _piped(monkeypatch, lambda: code.append(cli.main(["results", "ingest", "--db", f"sqlite:///{env / 'r.db'}",
                                                             *paths])))
    assert code == [0], text
    lines = [line for line in text.splitlines() if line.startswith("ingesting: ")]
    assert lines == [f"ingesting: {n}/25 files" for n in (3, 6, 9, 12, 15, 18, 21, 24, 25)], text


def test_results_ingest_into_a_pipe_says_nothing_of_quick_work(env, monkeypatch, tmp_path):
    paths = _outputs(tmp_path / "out", 25)
    monkeypatch.setattr(report, "CLOCK", Steps(0.001))
    code = []
    text = _piped(monkeypatch, lambda: code.append(cli.main(["results", "ingest", "--db", f"sqlite:///{env / 'r.db'}",
                                                             *paths])))
    assert code == [0] and not [line for line in text.splitlines() if line.startswith("ingesting")], text


def test_results_compare_into_a_pipe_says_how_far_its_charts_got(env, monkeypatch):
    """Through the command: 4 charts, each drawn as 3 s of work, into a pipe: a line at 6 s, and the end."""
    import synth
    from sweepgate.results import store

    keys = tuple(f"dsr1-fp8-b300-vllm-v{i:02d}" for i in range(20))  # 20 recipes: four charts
    url = f"sqlite:///{env / 'r.db'}"
    with store.open_store(url) as st:
        st.add(synth.history(keys=keys, concs=(4, 8)) + synth.pr_run(keys=keys, concs=(4, 8)))
    monkeypatch.setattr(report, "CLOCK", Steps(3.0))
    code = []
    argv = ["results", "compare", "--db", url, "--run", "pr-7", "--json", "--plots", str(env / "charts")]
    text = _piped(monkeypatch, lambda: code.append(cli.main(argv)))
    assert code == [0] and [line for line in text.splitlines() if line.startswith("drawing charts")] == [
        "drawing charts: 2/4 charts", "drawing charts: 4/4 charts"], text
