"""Digits that are not ASCII ones: `²` is str.isdigit() but no int() (it raised ValueError, an
"internal error", wherever a name or value was checked with isdigit() and then read with int());
the markdown-properties review found it in compare and left it in show, and these are its twins."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from sweepgate.core import report
from sweepgate.core.errors import SweepgateError
from sweepgate.results import show
from sweepgate.workflow import fanout

ROOT = Path(__file__).resolve().parents[1]


def test_a_result_name_with_a_superscript_digit_sorts_as_text():
    names = ["k1²", "k10", "k2", "k٣"]  # ٣: an Arabic-Indic 3, a decimal int() reads
    assert sorted(names, key=show._natural) == ["k1²", "k2", "k٣", "k10"]


@pytest.mark.parametrize("columns", ["²", "٣", "80²"])
def test_columns_of_other_digits_is_no_width(monkeypatch, columns):
    monkeypatch.setenv("COLUMNS", columns)
    assert report._columns() is None


def test_a_split_row_id_of_other_digits_is_no_row():
    matrix = {"single_node": {"1k1k": [{"runner": "b300", "exp-name": "x", "conc": 4}]}}
    with pytest.raises(SweepgateError) as exc:
        fanout.row_for_id(matrix, "fixed/²")
    assert "no row 'fixed/²'" in exc.value.diagnostics[0].message


def test_ci_watch_run_id_of_other_digits_is_not_a_number(tmp_path):
    """--run-id ² is argument syntax already (its type); $GITHUB_RUN_ID=² passed isdigit()."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "utils"), "GITHUB_TOKEN": "t", "GITHUB_REPOSITORY": "o/r",
           "GITHUB_RUN_ID": "²", "GITHUB_API_URL": "http://127.0.0.1:9"}
    proc = subprocess.run([sys.executable, "-m", "sweepgate", "ci", "watch", "--until", "collect"], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and "run id '²'" in proc.stderr and "is not a number" in proc.stderr, proc.stderr
