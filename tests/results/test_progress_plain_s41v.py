"""s41v: the progress of `results ingest` and `results compare --plots` (``core.report.progress``) is drawn as a
bar only where a status line may be drawn (``core.report.live``: a terminal, not NO_COLOR, not TERM=dumb). Under
NO_COLOR or TERM=dumb on a terminal it is a few plain lines, never cursor-control codes; piped, plain lines too,
but only for work of more than ``report.PIPED_EVERY`` seconds (s42c; counted in test_progress_piped_s42c.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import synth
from helpers import drained
from sweepgate.results import store

ROOT = Path(__file__).resolve().parents[2]
KEYS = tuple(f"dsr1-fp8-b300-vllm-v{i:02d}" for i in range(20))  # 20 recipes: four charts


@pytest.fixture
def url(env):
    url = f"sqlite:///{env / 'r.db'}"
    with store.open_store(url) as st:
        st.add(synth.history(keys=KEYS) + synth.pr_run(keys=KEYS))
    return url


def _env(**extra) -> dict:
    base = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "TERM", "FORCE_COLOR", "GITHUB_ACTIONS")}
    return {**base, "PYTHONPATH": str(ROOT / "utils"), "COLUMNS": "100", **extra}


@pytest.mark.parametrize("extra", [{"NO_COLOR": "1", "TERM": "xterm-256color"}, {"TERM": "dumb"}],
                         ids=["no_color", "term_dumb"])
def test_charts_progress_on_a_terminal_not_drawn_on_is_plain_lines(env, url, extra):
    """rich's bar hid the cursor, redrew its line and erased it many times a second under NO_COLOR and TERM=dumb."""
    import pty

    leader, follower = pty.openpty()
    cmd = [sys.executable, "-m", "sweepgate", "results", "compare", "--db", url, "--run", "pr-7", "--json",
           "--plots", str(env / "charts")]
    proc = subprocess.Popen(cmd, env=_env(**extra), stdout=subprocess.DEVNULL, stderr=follower)
    os.close(follower)
    data = drained(leader)
    assert proc.wait(timeout=120) == 0, data[-2000:]
    assert b"\x1b" not in data, data[-2000:]  # no escape code at all: no colour, no cursor moved
    lines = data.decode().splitlines()
    assert [line for line in lines if line.startswith("drawing charts")] == [
        f"drawing charts: {n}/4 charts" for n in range(1, 5)], lines
    assert lines[-1] == f"sweepgate results compare: wrote 4 charts (PNG and SVG) into {env / 'charts'}", lines


def test_charts_progress_piped_is_no_bar(env, url):
    """Piped, no bar and no escape code: at most a plain line of progress (drawing 4 charts may take more than
    report.PIPED_EVERY seconds on a busy machine; whether it says one is counted with a stepped clock elsewhere)."""
    cmd = [sys.executable, "-m", "sweepgate", "results", "compare", "--db", url, "--run", "pr-7", "--json",
           "--plots", str(env / "charts")]
    piped = subprocess.run(cmd, env=_env(NO_COLOR="1"), capture_output=True, text=True)
    *progress, last = piped.stderr.splitlines()
    assert piped.returncode == 0 and last == f"sweepgate results compare: wrote 4 charts (PNG and SVG) into {env / 'charts'}"
    assert "\x1b" not in piped.stderr and set(progress) <= {f"drawing charts: {n}/4 charts" for n in range(1, 5)}, progress


@pytest.mark.parametrize("total, shown", [(600, list(range(60, 601, 60))), (25, [3, 6, 9, 12, 15, 18, 21, 24, 25]),
                                          (4, [1, 2, 3, 4])])
def test_plain_progress_says_at_most_about_ten_lines_the_last_at_the_end(monkeypatch, total, shown):
    """On a real pseudo-terminal under NO_COLOR: a line each tenth of the work (counted, not timed), and the end."""
    import pty

    from sweepgate.core import report

    leader, follower = pty.openpty()
    monkeypatch.setenv("NO_COLOR", "1")
    with os.fdopen(follower, "w", closefd=True) as stream:
        monkeypatch.setattr(sys, "stderr", stream)
        bar = report.progress(total, "ingesting", 3, of="files")
        assert bar is not None
        assert list(bar(list(range(total)))) == list(range(total))
    data = drained(leader).decode()
    assert b"\x1b" not in data.encode()
    assert data.splitlines() == [f"ingesting: {n}/{total} files" for n in shown], data
