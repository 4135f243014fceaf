#!/usr/bin/env python3
"""Redraw docs/img/compare-chart.png, the README's chart, from generated records.

    python docs/img/make_compare_chart.py

tests/results/synth.py makes 5 main runs (+-2 % noise) of two config keys and a PR run in
which one point is 15 % down and another 15 % up; `results compare --plots` draws them.
"""
from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "tests" / "results"), str(ROOT / "utils")]

import synth  # noqa: E402
from sweepgate import cli  # noqa: E402
from sweepgate.results import record as R  # noqa: E402
from sweepgate.results import store  # noqa: E402


def draw(out: Path) -> int:
    """Draw the chart into ``out`` (a PNG path); the exit status of `results compare`."""
    drop, rise = (synth.KEYS[0], 16), (synth.KEYS[1], 32)
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{tmp}/r.db"
        with store.open_store(url) as st:
            st.add(synth.history(runs=5, noise=0.02))
            st.add(synth.pr_run({drop: {R.OUTPUT_TPUT_PER_GPU: 0.85}, rise: {R.OUTPUT_TPUT_PER_GPU: 1.15}}))
        rc = cli.main(["results", "compare", "--db", url, "--run", "pr-7", "--plots", f"{tmp}/plots"])
        (png,) = Path(tmp, "plots").glob("*.png")
        shutil.copyfile(png, out)
    return rc


if __name__ == "__main__":
    sys.exit(draw(ROOT / "docs" / "img" / "compare-chart.png"))
