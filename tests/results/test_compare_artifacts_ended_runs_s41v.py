"""s41v: `results compare --baseline-artifacts` read only main's push runs that ended in success (the API's
status=success), while a run with one failed benchmark job still ingests and uploads its results artifact (`ci
collect` exits 0 on failed jobs) and the store path (SWEEPGATE_DB) counts that run's successful jobs. Now the
artifacts of push runs that completed with conclusion success or failure are read, each failed job's records left
out (``compare.measured``) as in the store; a cancelled, skipped or timed-out run (GitHub lists it among completed
runs) is not read, and not said as a run the API listed past its filters."""

from __future__ import annotations

from test_compare_artifacts import _pr_judged_on_main_runs_alone, blobs_read, created, gh, main_run, synth  # noqa: F401


def test_a_failed_run_s_successful_jobs_count_and_a_cancelled_run_is_not_read(gh, tmp_path, monkeypatch, capsys):
    recs = synth.history(runs=6, keys=synth.KEYS[:1], concs=(16,))
    for i, rec in enumerate(recs[:4]):  # main-0..3: ended in success
        main_run(gh, 5000 + i, created(i), [rec])
    # main-4: the run ended in failure (another job of it failed); its job at the point succeeded: counted
    main_run(gh, 5004, created(4), [recs[4], dict(recs[5], **{"config-key": synth.KEYS[1], "status": "failure"})])
    gh.runs[-1]["conclusion"] = "failure"
    faster = dict(recs[5], metrics={k: v * 1.3 if k == "output_tput_per_gpu" else v for k, v in recs[5]["metrics"].items()})
    for j, conclusion in enumerate(("cancelled", "skipped", "timed_out")):  # newer, 30 % faster: never read
        main_run(gh, 6000 + j, created(5 + j), [faster])
        gh.runs[-1]["conclusion"] = conclusion
    err = _pr_judged_on_main_runs_alone(gh, tmp_path, monkeypatch, capsys)
    assert blobs_read(gh) == [5004, 5003, 5002, 5001, 5000] and err == "", (blobs_read(gh), err)
