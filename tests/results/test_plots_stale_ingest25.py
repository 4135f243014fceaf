"""`compare --plots DIR` run twice into one folder left the first run's charts that the second did not
draw beside the second's fresh ones, and a reader took them for the second run's. Now the charts an
earlier sweepgate run wrote there (PNG and SVG whose metadata names sweepgate) that this run does not
draw are removed first, said in one line; every other file (a user's notes, another tool's PNG, a
link) stays."""

from __future__ import annotations

import os

import synth
from helpers import run_cli

from sweepgate.results import store

FIRST = "DeepSeek-R1-0528_fp8_b300_fixed-seq-len_"
BOTH = {f"{FIRST}{seq}.{fmt}" for seq in ("1024x1024", "8192x1024") for fmt in ("png", "svg")}
SECOND = {n for n in BOTH if "1024x1024" in n}


def store_of_two_runs(tmp_path) -> str:
    """pr-7 measured two sequence lengths (two charts), pr-8 one of them."""
    db = f"sqlite:///{tmp_path / 'r.db'}"
    with store.open_store(db) as st:
        st.add(synth.history() + synth.history(runs=2, isl=8192, concs=(4, 8), keys=synth.KEYS[:1])
               + synth.pr_run() + synth.pr_run(isl=8192, concs=(4, 8, 16), keys=synth.KEYS[:1])
               + synth.pr_run(run="pr-8", ref="refs/pull/8/merge"))
    return db


def test_a_second_compare_into_the_folder_removes_only_sweepgate_charts_it_does_not_draw(tmp_path, capsys,
                                                                                      monkeypatch):
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    db, plots = store_of_two_runs(tmp_path), tmp_path / "plots"
    plots.mkdir()
    mine = {"notes.txt": b"my notes", "other.png": b"\x89PNG\r\n\x1a\n not sweepgate's", "drawn.svg": b"<svg/>"}
    for name, data in mine.items():
        (plots / name).write_bytes(data)
    rc, _, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "pr-7", "--plots", str(plots))
    assert rc == 0 and {p.name for p in plots.iterdir()} == BOTH | set(mine), err
    kept = tmp_path / "kept"  # a sweepgate chart outside, linked in: the link is the user's, not a chart we wrote
    kept.mkdir()
    os.replace(plots / f"{FIRST}8192x1024.png", kept / "old.png")
    (plots / "link.png").symlink_to(kept / "old.png")
    mine["link.png"] = None

    rc, _, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "pr-8", "--plots", str(plots))
    assert rc == 0, err
    assert {p.name for p in plots.iterdir()} == SECOND | set(mine), err
    assert (kept / "old.png").is_file() and (plots / "link.png").is_symlink()
    assert all((plots / n).read_bytes() == data for n, data in mine.items() if data is not None)
    assert (f"sweepgate results compare: removed 1 chart file an earlier run wrote into {plots} that this run "
            "does not draw") in err.splitlines(), err


def test_a_compare_into_a_folder_of_its_own_fresh_charts_removes_nothing(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    db, plots = store_of_two_runs(tmp_path), tmp_path / "plots"
    for _ in range(2):
        rc, _, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "pr-7", "--plots", str(plots))
        assert rc == 0 and {p.name for p in plots.iterdir()} == BOTH and "removed" not in err, err
