"""s41c: a main run whose job says success but holds no figure takes a place in a point's window alike, from the
store and from the artifacts.

What a baseline counts as a run of a point is one rule (``compare.measured``): its job there succeeded. Ingest
never stores a success without a measurement (a job whose output is missing is stored failed, ``orphan_record``;
one that completed no request or served no throughput too, ``derive.is_failed_run``), so a success record with
an empty ``metrics`` is one made otherwise (a hand-made JSONL, an older tool's). The store's look-up
(``succeeded=True``) and the artifacts' tally (``source._Tally``) read that rule alike: the two ways of giving the
baseline hold the same runs and judge the run alike (before s41c the tally spelt it apart, ``job_failed`` beside
``compare._usable``)."""

from __future__ import annotations

from test_compare_artifacts import blobs_read, created, gh, main_run, synth  # noqa: F401 (gh: fixture)
from test_compare_artifacts_failed_runs_s40x import _both_ways
from sweepgate.results import record as R

EMPTY = (5005, 5006)  # main's two newest runs before the PR run: success, no figure


def test_success_runs_without_figures_hold_places_alike_in_the_store_and_the_artifacts_s(gh, tmp_path, monkeypatch,
                                                                                            capsys):
    for i, rec in enumerate(synth.history(runs=7, keys=synth.KEYS[:1], concs=(16,))):
        main_run(gh, 5000 + i, created(i), [dict(rec, **{R.METRICS: {}}) if 5000 + i in EMPTY else rec])
    pr = [dict(r, finished="2026-11-09T18:00:00.25Z") for r in synth.pr_run(keys=synth.KEYS[:1], concs=(16,))]
    from_artifacts, from_store = _both_ways(gh, tmp_path, monkeypatch, capsys, pr)
    assert from_artifacts["baseline"]["n"] == 3, from_artifacts  # 5004..5002: the empty runs hold two places
    assert blobs_read(gh) == [5006, 5005, 5004, 5003, 5002]
    assert (from_store["baseline"], from_store["verdict"]) == (from_artifacts["baseline"], from_artifacts["verdict"])
