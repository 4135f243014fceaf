"""A newcomer's `results compare` and `results show` at COLUMNS=60 (new-user28, second pass): the headline
broke inside its items ("1 point" at one line's end, "improved (3 metrics)" on the next) and the units line
between a metric and its unit ("interactivity" over "tok/s/user"), though the README says the headline breaks
between items. Real processes on a real SQLite store."""

from __future__ import annotations

import re

import pytest

import synth
from helpers import sweepgate_at
from sweepgate.results import record as R
from sweepgate.results import store

UNITS = ("Units: output_tput_per_gpu tok/s/GPU, interactivity tok/s/user; _ms metrics in milliseconds.")
SHOW_COLUMNS = "Columns: tok/s/GPU is output throughput per GPU; tok/s/user is interactivity (1000 / TPOT p50 ms)."


sweepgate = sweepgate_at  # helpers: a real process of the source tree


@pytest.fixture
def db(tmp_path):
    """5 main runs of two configs and a PR run with one point 20 % down and one 20 % up: a headline of six items."""
    url = f"sqlite:///{tmp_path / 'r.db'}"
    keys = synth.KEYS[:2]
    scale = {(keys[0], 16): {R.OUTPUT_TPUT_PER_GPU: 0.8}, (keys[1], 32): {R.OUTPUT_TPUT_PER_GPU: 1.2}}
    with store.open_store(url) as st:
        st.add(synth.history(runs=5, noise=0.02, keys=keys) + synth.pr_run(scale, keys=keys))
    return url


def items(line: str) -> list[str]:
    """The items of a one-line headline or units line: what its commas and semicolons separate (a
    parenthesis' own semicolon, "(last 5 runs; 5 found)", keeps its item whole)."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(line):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch in ",;:" and depth == 0 and line[i + 1:i + 2] == " ":
            out.append(line[start:i + 1])
            start = i + 2
    return out + [line[start:]]


@pytest.mark.parametrize("columns", ["60", "72"])
def test_compare_on_a_narrow_terminal_breaks_its_headline_and_units_line_between_items(tmp_path, db, columns):
    wide = sweepgate(tmp_path, "results", "compare", "--db", db, "--run", "pr-7")
    narrow = sweepgate(tmp_path, "results", "compare", "--db", db, "--run", "pr-7", columns=columns)
    assert wide.returncode == narrow.returncode == 0, wide.stderr + narrow.stderr
    (headline,) = [line for line in wide.stdout.splitlines() if line.startswith("run pr-7 against")]
    assert "1 point regressed" in headline and "1 point improved" in headline, headline
    lines = narrow.stdout.splitlines()
    assert all(len(line) <= int(columns) for line in lines), lines
    assert all(line == line.rstrip() for line in lines), "no line ends in a blank"
    for item in items(headline) + items(UNITS):
        assert len(item) > int(columns) or any(item in line for line in lines), (item, lines)
    tail = lines[next(i for i, line in enumerate(lines) if line.startswith("run pr-7 against")):]
    assert " ".join(line.strip() for line in tail) == headline, "nothing lost, the headline still the last line"
    assert all(line.startswith("  ") for line in tail[1:]), tail  # one sentence wrapped, not new lines (s45k)


def test_show_on_a_narrow_terminal_keeps_each_column_beside_what_it_is(tmp_path, db):
    """`results show` says what its unit-headed columns hold (s40o: the units line, UNITS, before)."""
    proc = sweepgate(tmp_path, "results", "show", "--db", db, "--run", "pr-7", columns="60")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("Columns:"))
    assert " ".join(line.strip() for line in lines[at:]) == SHOW_COLUMNS, lines[at:]  # continuations indented
    assert all(line.startswith("  ") for line in lines[at + 1:]), lines[at:]
    for item in re.findall(r"tok/s/\w+ is [^;(]+", SHOW_COLUMNS):
        assert any(item.strip() in line for line in lines[at:]), (item, lines[at:])
    assert all(len(line) <= 60 and line == line.rstrip() for line in lines[at:]), lines[at:]


def test_a_line_never_ends_on_a_label_whose_counts_follow():
    """review28: at 200 columns compare's headline ended '…; eval scores:' with '0 regressed, 2 new' on
    the next line. A line ends after a ';' first, then a ',', a ':' last."""
    from sweepgate.core.report import packed

    headline = ("run pr-7 against main (last 5 runs; 5 found): 1 point improved (3 metrics), "
                "4 points unchanged; eval scores: 0 regressed, 2 new")
    for width in range(60, len(headline)):
        lines = packed(headline.split(), width)
        assert " ".join(lines) == headline
        assert not any(line.endswith("scores:") for line in lines), (width, lines)
