"""`results compare --plots` said "2 points are on no chart (the table lists them): ... conc 32 ...: no
interactivity figure" of points its chart draws, as a `?` at their baseline median labelled "32 no
interactivity" (new-user28, second pass, on real InferenceX outputs without median_tpot_ms). A point drawn
only at its baseline is said to be so; a point with nowhere to be drawn (no baseline either) is still "on no
chart". A real process on a real SQLite store."""

from __future__ import annotations

import os
import subprocess
import sys

import synth
from helpers import ROOT
from sweepgate.results import record as R
from sweepgate.results import store

KEY = synth.KEYS[0]


def test_a_point_drawn_at_its_baseline_is_not_said_to_be_on_no_chart(tmp_path):
    url = f"sqlite:///{tmp_path / 'r.db'}"
    pr = synth.pr_run(keys=(KEY, "dsr1-fp8-b300-vllm-brand-new"))
    for rec in pr:
        if rec[R.CONC] == 32:  # the old key's conc 32 has main's runs behind it; the new key's has none
            del rec[R.METRICS][R.INTERACTIVITY]
    with store.open_store(url) as st:
        st.add(synth.history(keys=(KEY,)) + pr)
    env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "COLUMNS")}
    proc = subprocess.run([sys.executable, "-m", "sweepgate", "results", "compare", "--db", url, "--run", "pr-7",
                           "--plots", "plots"], capture_output=True, text=True, cwd=tmp_path, timeout=300,
                          env={**env, "PYTHONPATH": str(ROOT / "utils")})
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.splitlines()
    (off,) = [line for line in lines if "on no chart" in line]
    assert off.startswith("sweepgate results compare: 1 point is on no chart (the table lists it): "), off
    assert "dsr1-fp8-b300-vllm-brand-new" in off and f"{KEY} " not in off, off
    (at_base,) = [line for line in lines if "at its baseline" in line]
    assert at_base.startswith("sweepgate results compare: 1 point is drawn only as a ? at its baseline median "), at_base
    assert f"{KEY} b300" in at_base and "conc 32" in at_base and "no interactivity figure" in at_base, at_base
    assert "brand-new" not in at_base, at_base
