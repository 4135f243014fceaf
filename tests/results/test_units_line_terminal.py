"""Every table of figures says the units of the metrics whose names state none, in one line with one
wording: `results compare --markdown` did (`_md_units`), while `results show` and compare's terminal
table (the one `sweepgate example` prints too) said nothing of what `interactivity 449,516` or the
`tok/s/GPU` column is. Real processes on a real SQLite store."""

from __future__ import annotations

import pytest

import synth
from helpers import sweepgate_at
from sweepgate.results import record as R
from sweepgate.results import store

TERMINAL = ("Units: output_tput_per_gpu tok/s/GPU, interactivity tok/s/user; _ms metrics in milliseconds.")
# `results show`'s, whose columns are headed by those units (s40o: it said TERMINAL, naming metrics it never shows)
SHOW = "Columns: tok/s/GPU is output throughput per GPU; tok/s/user is interactivity (1000 / TPOT p50 ms)."
SAID = {"show": SHOW, "compare": TERMINAL}


sweepgate = sweepgate_at  # helpers: a real process of the source tree


@pytest.fixture
def db(tmp_path):
    url = f"sqlite:///{tmp_path / 'r.db'}"
    key = synth.KEYS[0]
    with store.open_store(url) as st:
        st.add(synth.history(keys=(key,), concs=(8, 16))
               + synth.pr_run({(key, 16): {R.OUTPUT_TPUT_PER_GPU: 0.8}}, keys=(key,), concs=(8, 16)))
    return url


def lines(text: str) -> list[str]:
    """``text``'s lines, a line a narrow terminal folded joined again (its words are what is said)."""
    return [" ".join(line.split()) for line in text.splitlines()]


@pytest.mark.parametrize("columns", [None, "80"], ids=["piped: the whole table", "80 columns: a block a point"])
def test_results_show_says_what_its_unit_headed_columns_are(tmp_path, db, columns):
    proc = sweepgate(tmp_path, "results", "show", "--db", db, "--run", "pr-7", columns=columns)
    assert proc.returncode == 0, proc.stderr
    said = " ".join(proc.stdout.split())  # at 80 columns the line folds between words
    assert SHOW in said and "Units:" not in said, proc.stdout
    assert said.index("tok/s/GPU") < said.index(SHOW), "the line follows the table it is about"


def test_compare_s_terminal_table_says_the_units_its_markdown_says(tmp_path, db):
    term = sweepgate(tmp_path, "results", "compare", "--db", db, "--run", "pr-7")
    md = sweepgate(tmp_path, "results", "compare", "--db", db, "--run", "pr-7", "--markdown")
    assert term.returncode == md.returncode == 0, term.stderr + md.stderr
    (md_line,) = [line for line in md.stdout.splitlines() if line.startswith("Units: ")]
    assert md_line.replace("`", "") == TERMINAL, md_line  # one wording, the names in backticks in Markdown
    said = lines(term.stdout)
    # msgs28: broken between words at 80 columns when piped too (it was one line of 88)
    assert " ".join(line.strip() for line in units_lines(term.stdout.splitlines())) == TERMINAL, term.stdout
    at = next(i for i, line in enumerate(said) if line.startswith("Units: "))
    assert any("output_tput_per_gpu" in line for line in said[:at]), "under the table it is about"
    assert said[-1].startswith("run pr-7 against main"), "the headline stays the last line"


def test_no_unit_line_where_no_column_lacks_a_unit(tmp_path):
    """A result ingested without its row has no per-GPU figure: its `output tok/s` column names its unit,
    and without interactivity there is nothing to say."""
    url = f"sqlite:///{tmp_path / 'r.db'}"
    rec = synth.make("local-1", synth.KEYS[0], 4, {R.OUTPUT_THROUGHPUT: 3918.6, "ttft_p50_ms": 80.0})
    with store.open_store(url) as st:
        st.add([rec])
    proc = sweepgate(tmp_path, "results", "show", "--db", url)
    assert proc.returncode == 0, proc.stderr
    assert "output tok/s" in proc.stdout and "Units:" not in proc.stdout and "Columns:" not in proc.stdout, proc.stdout


def units_lines(lines: list[str], head: str = "Units: ") -> list[str]:
    """The units line as printed (`results show`'s: ``head`` "Columns: "): its first line and the indented ones
    that continue it."""
    at = next(i for i, line in enumerate(lines) if line.startswith(head))
    end = next((j for j in range(at + 1, len(lines)) if not lines[j].startswith("  ")), len(lines))
    return lines[at:end]


@pytest.mark.parametrize("command", ["show", "compare"])
@pytest.mark.parametrize("columns", [None, "80"], ids=["piped", "80 columns"])
def test_the_units_line_is_wrapped_between_words_at_80_columns_its_continuation_indented(tmp_path, db, command,
                                                                                         columns):
    """msgs28: the line is 88 characters. Piped it was one line of 88 (an 80-column window or pager
    folded it anywhere), and at an 80-column terminal rich broke it as "...in " over "milliseconds." at
    column 0, as if a new line of its own began. It is broken between words at the terminal's width (80
    when piped, where a table is as wide as it needs but a line of prose is read in a window), each
    continuation indented; at 80 columns no line of the whole output is wider."""
    proc = sweepgate(tmp_path, "results", command, "--db", db, "--run", "pr-7", columns=columns)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    said = units_lines(lines, SAID[command][:SAID[command].index(" ") + 1])
    assert len(said) == 2 and all(len(line) <= 80 and line == line.rstrip() for line in said), said
    assert said[1].startswith("  ") and not said[1].startswith("   "), said  # a continuation, indented by 2
    assert " ".join(line.strip() for line in said) == SAID[command], said  # whole, broken between words only
    if columns:
        assert all(len(line) <= 80 for line in lines), "\n".join(line for line in lines if len(line) > 80)


def test_on_a_real_terminal_the_units_line_takes_the_terminal_s_width(tmp_path, db):
    """The width is the terminal's own (rich asks it; no COLUMNS): 60 columns, lines of 60 at most."""
    import re

    from test_terminal import on_a_terminal

    out = on_a_terminal(tmp_path, "results", "show", "--db", db, "--run", "pr-7", columns=60, NO_COLOR="1")
    lines = [re.sub(r"\x1b\[[0-9;?]*[a-zA-Z]", "", line).rstrip("\r") for line in out.split("\n")]
    said = units_lines(lines, "Columns: ")
    assert len(said) == 2 and all(len(line) <= 60 for line in said) and said[1].startswith("  "), said
    assert " ".join(line.strip() for line in said) == SHOW, said
