"""`results compare --plots NEW` interrupted before its first chart said "NEW holds only this run's (an
earlier run's of the same names removed)": there was no earlier run there, and nothing was removed. The
line says a removal only when charts were removed (new-user walk-through, nu31)."""

from __future__ import annotations

import pytest

import synth
from helpers import run_cli
from sweepgate.results import charts, store

KEY = "dsr1-fp8-b300-vllm"


@pytest.fixture
def db(tmp_path):
    return f"sqlite:///{tmp_path / 'r.db'}"


def _stop(*_args):
    raise KeyboardInterrupt


def test_an_interrupt_in_a_new_folder_claims_no_removal(db, capsys, monkeypatch, tmp_path):
    with store.open_store(db) as st:
        st.add(synth.history(keys=(KEY,)) + synth.pr_run(keys=(KEY,)))
    monkeypatch.setattr(charts, "_save", _stop)
    rc, _, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "pr-7", "--plots", str(tmp_path / "new"))
    assert rc == 130, err
    (line,) = [x for x in err.splitlines() if "interrupted after drawing" in x]
    assert "removed" not in line, line
    assert line.startswith("sweepgate results compare: interrupted after drawing 0 of 1 chart;"), line


def test_an_interrupt_over_an_earlier_run_s_charts_says_it_removed_them(db, capsys, monkeypatch, tmp_path):
    with store.open_store(db) as st:
        st.add(synth.history(keys=(KEY,)) + synth.pr_run(keys=(KEY,))
               + synth.pr_run(keys=(KEY,), run="pr-8", ref="refs/pull/8/merge", seed=5))
    folder = tmp_path / "charts"
    assert run_cli(capsys, "results", "compare", "--db", db, "--run", "pr-7", "--plots", str(folder))[0] == 0
    monkeypatch.setattr(charts, "_save", _stop)
    rc, _, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "pr-8", "--plots", str(folder))
    assert rc == 130 and list(folder.iterdir()) == [], err
    (line,) = [x for x in err.splitlines() if "interrupted after drawing" in x]
    assert "; 1 chart an earlier run drew there removed, so " in line, line
