"""One stored figure reads the same wherever a user sees it: `results show`'s table, compare's terminal
table, its Markdown report and the PR comment's body (polish26: show printed 4.36 tok/s/user as "4.4"
where compare printed "4.36", 1234.5 ms TTFT as "1,234.5" beside compare's "1,234")."""

from __future__ import annotations

import re

import pytest

import synth
from helpers import md_rows, run_cli
from sweepgate.results import record as R
from sweepgate.results import show, store

KEY = synth.KEYS[0]
FIGURES = (R.OUTPUT_TPUT_PER_GPU, R.INTERACTIVITY, R.latency_name("ttft", "p50"), R.latency_name("tpot", "p50"),
           R.latency_name("e2el", "p50"), R.SUCCESS_RATE)


def build(db: str, value: float) -> None:
    """Five main runs of one point, and PR run pr-7 whose every figure but its success rate is ``value``
    (far from main's, so compare needs no extra digit to tell the head from the baseline)."""
    pr = synth.pr_run(keys=(KEY,), concs=(16,))
    pr[0][R.METRICS].update({metric: value for metric in FIGURES if metric != R.SUCCESS_RATE})
    with store.open_store(db) as st:
        st.add(synth.history(keys=(KEY,), concs=(16,)))
        st.add(pr)


def shown(capsys, db: str) -> dict[str, str]:
    """metric -> its cell in `results show --run pr-7` (piped: the whole table)."""
    rc, out, err = run_cli(capsys, "results", "show", "--db", db, "--run", "pr-7")
    assert rc == 0, err
    header, body = [[cell.strip() for cell in re.split("[│┃]", line.strip())[1:-1]]
                    for line in out.splitlines() if line.lstrip().startswith(("│", "┃"))]
    names = {column[0]: column[1] for column in show.COLUMNS}  # header -> field
    return {names[name]: cell for name, cell in zip(header, body) if names.get(name) in FIGURES}


def compared(capsys, db: str, *extra: str) -> dict[str, str]:
    """metric -> its head cell in compare's terminal table, or in its Markdown with ``--markdown``."""
    rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "pr-7", *extra)
    assert rc == 0, err
    if extra:
        return {row[1]: row[2] for row in md_rows(out)}
    rows = [re.split(r"\s{2,}", line.strip()) for line in out.splitlines()]
    return {row[1]: row[2] for row in rows if len(row) > 2 and row[1] in FIGURES}


@pytest.mark.parametrize(("value", "text"), [(0.0123, "0.0123"), (4.36, "4.36"), (1234.5, "1,234"), (1.5e6, "1,500,000")])
def test_show_and_compare_write_a_stored_figure_alike(db, capsys, tmp_path, value, text):
    """Three significant digits under 10, one decimal to 1,000, whole from there: in all four places."""
    build(db, value)
    table = shown(capsys, db)
    assert set(table) == set(FIGURES), table
    assert table[R.INTERACTIVITY] == text and table[R.SUCCESS_RATE] == "100.0%"
    comment = tmp_path / "comment.md"
    run_cli(capsys, "results", "compare", "--db", db, "--run", "pr-7", "--comment-file", str(comment))
    for other in (compared(capsys, db), compared(capsys, db, "--markdown"),
                  {row[1]: row[2] for row in md_rows(comment.read_text(encoding="utf-8"))}):
        assert {metric: other[metric] for metric in FIGURES} == table



@pytest.mark.parametrize(("rate", "text"), [(5119 / 5120, "99.98%"), (1 / 5120, "0.02%"), (0.5, "50.0%"),
                                            (1.0, "100.0%"), (0.0, "0.0%")])
def test_show_never_rounds_a_failed_request_away(db, capsys, rate, text):
    """review26: `results show` wrote a run in which 1 of 5,120 requests failed as "100.0%", the same as
    a run with none failed (compare's row added digits only beside a baseline that differed). A rate
    below 1 never reads 100 %, one above 0 never 0 %, alone in a cell too."""
    pr = synth.pr_run(keys=(KEY,), concs=(16,))
    pr[0][R.METRICS][R.SUCCESS_RATE] = rate
    with store.open_store(db) as st:
        st.add(pr)
    assert shown(capsys, db)[R.SUCCESS_RATE] == text
