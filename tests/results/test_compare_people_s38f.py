"""s38f: `results compare` output for people.

- The headline counted every verdict, zeros among them: "0 points failed, 0 points regressed, 0 points improved,
  8 points unchanged, 0 points insufficient-data, 0 points new; eval scores: 0 regressed, 2 new" hid its two counts
  among six zeros. It names only the verdicts some point or score has, and says "nothing failed, regressed or
  improved" first when none did.

Synthetic records (tests/results/synth.py) compared as `results compare` compares them.
"""

from __future__ import annotations

import re

import synth
from sweepgate.results import compare as C
from sweepgate.results import record as R
from sweepgate.results import render


def _headline(pr: list[dict], history: list[dict]) -> str:
    return render.summary_line(C.compare_records(pr, history), C.DEFAULT_BASELINE_REF, C.DEFAULT_WINDOW)


def test_the_headline_of_a_run_where_nothing_changed_says_so_without_zeros():
    line = _headline(synth.pr_run(), synth.history())
    assert line == ("run pr-7 against main (last 5 runs): nothing failed, regressed or improved; "
                    "10 points unchanged"), line


def test_the_headline_counts_only_the_verdicts_some_point_has():
    pr = synth.pr_run({(synth.KEYS[0], 16): {R.OUTPUT_TPUT_PER_GPU: 0.8}},
                      keys=(*synth.KEYS, "dsr1-fp8-b300-vllm-new"))
    line = _headline(pr, synth.history())
    assert not re.search(r"\b0 ", line), line
    assert "nothing" not in line, line
    assert line.endswith("(last 5 runs): 1 point regressed (1 metric), 9 points unchanged, 5 points new (30 metrics)")


def test_a_run_without_a_point_or_a_score_says_there_was_nothing_to_compare():
    line = _headline([], synth.history())
    assert line.endswith(": nothing to compare"), line


# Under 60 columns the table is one block a point, each row `header value` pairs. At 50 columns a baseline's
# interval was broken over two lines ("461.6 [441.8," over "485.3] (n=5)"), rich cutting a pair at its last
# blank; a score's label at a hyphen ("flexible-" over "extract"), a config key inside a word ("...-lmca" over
# "che"). A pair now breaks between its units only (an interval one, a score with its stderr another), and a
# name wider than the terminal after a "-", "_" or "/".
import os  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402

import pytest  # noqa: E402

from helpers import ROOT, drained  # noqa: E402
from sweepgate.results import store  # noqa: E402

LONG_KEY = "kimik3-fp4-b300-vllm-agentic-dspark-lmcache"  # 43 characters: wider than a 40-column terminal


def _terminal(url: str, run: str, width: int) -> list[str]:
    """`results compare` on a real pseudo-terminal ``width`` columns wide (COLUMNS unset), its lines."""
    import fcntl
    import pty
    import struct
    import termios

    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "NO_COLOR", "GITHUB_ACTIONS")}
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, width, 0, 0))
    proc = subprocess.Popen([sys.executable, "-m", "sweepgate", "results", "compare", "--db", url, "--run", run],
                            env={**env, "PYTHONPATH": str(ROOT / "utils"), "TERM": "xterm-256color"},
                            stdin=follower, stdout=follower, stderr=follower, close_fds=True)
    os.close(follower)
    data = drained(leader)
    assert proc.wait(timeout=120) == 0, data[-2000:]
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", data.decode()).replace("\r", "").splitlines()


@pytest.fixture(scope="module")
def crowded_store(tmp_path_factory) -> tuple[str, C.Comparison]:
    keys = (synth.KEYS[0], LONG_KEY)
    history = synth.history(keys=keys) + synth.history(runs=2, keys=("dsr1-fp8-b300-vllm-short",), concs=(8,))
    pr = synth.pr_run({(keys[0], 16): {R.OUTPUT_TPUT_PER_GPU: 0.8}}, keys=(*keys, "dsr1-fp8-b300-vllm-short"))
    url = f"sqlite:///{tmp_path_factory.mktemp('narrow') / 'r.db'}"
    with store.open_store(url) as st:
        st.add(history + pr)
    return url, C.compare_records(pr, history)


@pytest.mark.parametrize("width", [40, 50, 58])
def test_a_narrow_terminal_breaks_no_figure_interval_or_name(crowded_store, width):
    url, comp = crowded_store
    lines = _terminal(url, "pr-7", width)
    text = "\n".join(lines)
    assert all(len(line) <= width for line in lines), text
    assert not any(re.search(r"\[[^\]]*$", line) for line in lines), text  # no interval left open
    for v in comp.verdicts:  # every figure whole on a line: the run's, the baseline's interval, the change
        cells = render.cells(v)
        interval = re.search(r"\[[^\]]*\]", cells[3])
        assert any(cells[2] in line for line in lines), (cells[2], text)
        assert interval is None or any(interval.group(0) in line for line in lines), (interval, text)
        assert any(cells[4].split()[0] in line.split() for line in lines), (cells[4], text)
    assert not any(line.endswith(("-", ",")) and re.search(r"\d[-,]$", line) for line in lines), text
    assert f"{LONG_KEY[:36]}" in text and not any(line.strip() in ("che", "ache", "cache") for line in lines), text


def test_the_evals_table_never_folds_a_score_s_name_to_align_its_columns(tmp_path, capsys, monkeypatch):
    """At 60 columns the evals table stayed one aligned grid by folding its score column inside a word,
    "flexible-extrac" over "t": a column narrower than its widest word now takes the block layout. Real lm-eval
    output (llama3-70b gsm8k, two filters), the PR's run beside main's."""
    from helpers import run_cli
    from test_compare_evals import PR_REF, gsm8k, ingest_job

    url = f"sqlite:///{tmp_path / 'r.db'}"
    ingest_job(tmp_path, url, capsys, "1001", gsm8k())
    ingest_job(tmp_path, url, capsys, "2002", gsm8k(), ref=PR_REF, day=2)
    monkeypatch.setenv("NO_COLOR", "1")
    for width in (60, 50, 40):
        monkeypatch.setenv("COLUMNS", str(width))
        rc, out, err = run_cli(capsys, "results", "compare", "--db", url, "--run", "2002")
        assert rc == 0, err
        evals = out[out.index("\nevals\n"):].splitlines()
        assert all(len(line) <= width for line in evals), out
        assert any(line.split()[-1:] == ["flexible-extract"] for line in evals), "\n".join(evals)
