"""s40x: `results compare --baseline-artifacts` counted main's failed runs of a point towards its baseline window.

The artifacts are read, newest run first, until each point the run measured appears in the window's number of
runs (``source._Tally``). A run whose job at the point failed counted as one of them, though the baseline leaves a
failed job out (``compare.baseline_window``) and the store's look-up skips it (``succeeded=True``): with main's two
newest runs of the point failed and five successful before them, the artifact reading stopped after five runs,
and the baseline held three (the store's: five), so the two ways of giving the baseline could judge the run
differently. A failed run now takes no place among them, as in the store.
"""

from __future__ import annotations

import io
import json
import zipfile

from test_compare_artifacts import blobs_read, compare_pr, created, gh, main_run, synth  # noqa: F401 (gh: fixture)
from sweepgate import cli
from sweepgate.results import store

FAILED = (5005, 5006)  # main's two newest runs before the PR run: their job at the point failed


def _main_runs(gh) -> None:
    """Main's runs 5000 .. 5006 of the first key at conc 16 in the stand-in, the two newest failed there."""
    for i, rec in enumerate(synth.history(runs=7, keys=synth.KEYS[:1], concs=(16,))):
        main_run(gh, 5000 + i, created(i), [dict(rec, status="failure") if 5000 + i in FAILED else rec])


def _artifact_records(gh) -> list[dict]:
    """The records main's runs' results artifacts hold in the stand-in."""
    out = []
    for run in gh.runs:
        for art in run["artifacts"]:
            with zipfile.ZipFile(io.BytesIO(art["zip"])) as z:
                out += [json.loads(line) for line in z.read("results.jsonl").decode().splitlines() if line.strip()]
    return out


def _tput(out: dict) -> dict:
    (tput,) = [p for p in out["points"] if p["metric"] == "output_tput_per_gpu"]
    return tput


def _both_ways(gh, tmp_path, monkeypatch, capsys, pr: list[dict]) -> tuple[dict, dict]:
    """The PR run's throughput point judged from main's artifacts, then from a store holding the same records."""
    _, out = compare_pr(gh, tmp_path, monkeypatch, capsys, pr)
    from_artifacts = _tput(out)
    db = f"sqlite:///{tmp_path / 'store.db'}"
    with store.open_store(db) as st:
        st.add(pr + _artifact_records(gh))
    cli.main(["results", "compare", "--db", db, "--run", "pr-7", "--json"])
    return from_artifacts, _tput(json.loads(capsys.readouterr().out))


def test_failed_main_runs_take_no_place_in_the_artifacts_baseline_as_in_the_store_s(gh, tmp_path, monkeypatch,
                                                                                       capsys):
    _main_runs(gh)
    pr = [dict(r, finished="2026-11-09T18:00:00.25Z") for r in synth.pr_run(keys=synth.KEYS[:1], concs=(16,))]
    from_artifacts, from_store = _both_ways(gh, tmp_path, monkeypatch, capsys, pr)
    assert from_artifacts["baseline"]["n"] == 5, from_artifacts
    assert blobs_read(gh) == [5006, 5005, 5004, 5003, 5002, 5001, 5000]
    assert (from_store["baseline"], from_store["verdict"]) == (from_artifacts["baseline"], from_artifacts["verdict"])
