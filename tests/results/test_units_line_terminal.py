"""Every table of figures says the units of the metrics whose names state none, in one line with one
wording: `results compare --markdown` did (`_md_units`), while `results show` and compare's terminal
table (the one `sweepgate example` prints too) said nothing of what `interactivity 449,516` or the
`tok/s/GPU` column is. Real processes on a real SQLite store."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

import synth
from helpers import ROOT
from sweepgate.results import record as R
from sweepgate.results import store

TERMINAL = ("Units: output_tput_per_gpu tok/s/GPU, interactivity tok/s/user; _ms metrics in milliseconds.")


def sweepgate(cwd, *argv: str, columns: str | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "COLUMNS")}
    env.update({"PYTHONPATH": str(ROOT / "utils"), "NO_COLOR": "1", **({"COLUMNS": columns} if columns else {})})
    return subprocess.run([sys.executable, "-m", "sweepgate", *argv], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=120)


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
    assert TERMINAL in said, proc.stdout
    assert said.index("tok/s/GPU") < said.index(TERMINAL), "the line follows the table it is about"


def test_compare_s_terminal_table_says_the_units_its_markdown_says(tmp_path, db):
    term = sweepgate(tmp_path, "results", "compare", "--db", db, "--run", "pr-7")
    md = sweepgate(tmp_path, "results", "compare", "--db", db, "--run", "pr-7", "--markdown")
    assert term.returncode == md.returncode == 0, term.stderr + md.stderr
    (md_line,) = [line for line in md.stdout.splitlines() if line.startswith("Units: ")]
    assert md_line.replace("`", "") == TERMINAL, md_line  # one wording, the names in backticks in Markdown
    said = lines(term.stdout)
    assert TERMINAL in said, term.stdout
    at = said.index(TERMINAL)
    assert any("output_tput_per_gpu" in line for line in said[:at]), "under the table it is about"
    assert said[-1].startswith("run pr-7 against refs/heads/main"), "the headline stays the last line"


def test_no_unit_line_where_no_column_lacks_a_unit(tmp_path):
    """A result ingested without its row has no per-GPU figure: its `output tok/s` column names its unit,
    and without interactivity there is nothing to say."""
    url = f"sqlite:///{tmp_path / 'r.db'}"
    rec = synth.make("local-1", synth.KEYS[0], 4, {R.OUTPUT_THROUGHPUT: 3918.6, "ttft_p50_ms": 80.0})
    with store.open_store(url) as st:
        st.add([rec])
    proc = sweepgate(tmp_path, "results", "show", "--db", url)
    assert proc.returncode == 0, proc.stderr
    assert "output tok/s" in proc.stdout and "Units:" not in proc.stdout, proc.stdout
