"""s40y: `results compare --baseline-artifacts` and the store gave main's copies and rehearsals different places.

The artifacts are read, newest run first, until each point the run measured appears in the window's number of
runs (``source._Tally``). Two kinds of main run held a place there that the store's look-up
(``store_adapter._baseline_runs``) gives none, so the artifact reading stopped early and the baseline held fewer
runs than the store's (n 3, not 5), and the two could judge the run differently:

- a ``ci reuse`` copy of an older run's result (``reused-from``), and one output stored under several run ids:
  the baseline counts each measurement once (``compare.baseline_window``, ``R.measurement_of``), and the store
  reads as many runs more as there are copies; the tally counted each copy as a run;
- a rehearsal's records: the baseline of a run that is no rehearsal leaves them out (``baseline_of_files``; the
  store's look-up, unless rehearsals are asked for); the tally counted them.

Each test gives main's seven runs 5000 .. 5006 of one point, the two newest of them such runs, and judges the PR
run from the artifacts and from a store holding the same records: the same baseline and verdict.
"""

from __future__ import annotations

import pytest

from test_compare_artifacts import blobs_read, created, gh, main_run, synth  # noqa: F401 (gh: fixture)
from test_compare_artifacts_failed_runs_s40x import _both_ways
from sweepgate.results import record as R

NEWEST = (5005, 5006)  # main's two newest runs before the PR run
ALL_READ = [5006, 5005, 5004, 5003, 5002, 5001, 5000]
DIGEST = "ab" * 32


def _reused(hist: list[dict], number: int) -> dict:
    """Run ``number``'s record at the point: `ci reuse`'s copy of run 5004's."""
    return dict(hist[4], **{R.REUSED_FROM: {R.RUN_ID: "5004", R.ATTEMPT: 1,
                                            R.RESULT_FILENAME: hist[4][R.RESULT_FILENAME]}})


def _same_output(hist: list[dict], number: int) -> dict:
    """Run ``number``'s record at the point: run 5004's output file ingested again under this run's id."""
    return dict(hist[4], **{R.OUTPUT_SHA256: DIGEST, R.SOURCE_LINE: 1})


def _rehearsal(hist: list[dict], number: int) -> dict:
    """Run ``number``'s record at the point: a rehearsal's."""
    return dict(hist[number - 5000], **{R.REHEARSAL: True})


def _main_runs(gh, newest) -> None:
    hist = synth.history(runs=7, keys=synth.KEYS[:1], concs=(16,))
    for i, rec in enumerate(hist):
        number = 5000 + i
        if newest is _same_output and number == 5004:
            rec = dict(rec, **{R.OUTPUT_SHA256: DIGEST, R.SOURCE_LINE: 1})
        main_run(gh, number, created(i), [newest(hist, number) if number in NEWEST else rec])


@pytest.mark.parametrize("newest", [_reused, _same_output, _rehearsal], ids=["reused", "same-output", "rehearsal"])
def test_copies_and_rehearsals_take_no_place_in_the_artifacts_baseline_as_in_the_store_s(gh, tmp_path, monkeypatch,
                                                                                         capsys, newest):
    _main_runs(gh, newest)
    pr = [dict(r, finished="2026-11-09T18:00:00.25Z") for r in synth.pr_run(keys=synth.KEYS[:1], concs=(16,))]
    from_artifacts, from_store = _both_ways(gh, tmp_path, monkeypatch, capsys, pr)
    assert (from_artifacts["baseline"], from_artifacts["verdict"]) == (from_store["baseline"], from_store["verdict"])
    assert from_artifacts["baseline"]["n"] == 5, from_artifacts
    assert blobs_read(gh) == ALL_READ


def test_a_rehearsals_baseline_artifacts_count_rehearsals_as_the_store_does(gh, tmp_path, monkeypatch, capsys):
    """A rehearsal is judged against rehearsals too: main's rehearsals take their places, and reading stops there."""
    _main_runs(gh, _rehearsal)
    pr = [dict(r, finished="2026-11-09T18:00:00.25Z", **{R.REHEARSAL: True})
          for r in synth.pr_run(keys=synth.KEYS[:1], concs=(16,))]
    from_artifacts, from_store = _both_ways(gh, tmp_path, monkeypatch, capsys, pr)
    assert (from_artifacts["baseline"], from_artifacts["verdict"]) == (from_store["baseline"], from_store["verdict"])
    assert from_artifacts["baseline"]["n"] == 5, from_artifacts
    assert blobs_read(gh) == ALL_READ[:5]
