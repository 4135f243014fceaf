"""A verdict never hangs on the order of a point's records: which job of one attempt finished last."""

from __future__ import annotations

import copy

import synth
from sweepgate.results import compare as C
from sweepgate.results import record as R


def _pr(failed_last: bool, good_jobs: int) -> list[dict]:
    """The PR run: conc 8 measured by ``good_jobs`` successful jobs and one failed job of one attempt."""
    recs = synth.pr_run(keys=("k",), concs=(4, 8))
    good = next(r for r in recs if r[R.CONC] == 8)
    failed = {**copy.deepcopy(good), R.STATUS: "failure", R.RESULT_FILENAME: good[R.RESULT_FILENAME] + "_b",
              R.METRICS: {R.COMPLETED: 0, R.FAILED: 40}}
    good[R.FINISHED], failed[R.FINISHED] = (("2026-11-28T11:00:00Z", "2026-11-28T12:00:00Z") if failed_last
                                            else ("2026-11-28T12:00:00Z", "2026-11-28T11:00:00Z"))
    more = [{**copy.deepcopy(good), R.RESULT_FILENAME: f"{good[R.RESULT_FILENAME]}_{i}"} for i in range(good_jobs - 1)]
    return recs + [failed] + more


def test_a_failed_job_beside_a_measurement_is_left_out_whichever_finished_last():
    base = synth.history(runs=5, seed=3, keys=("k",), concs=(4, 8))
    for good_jobs in (1, 2):
        verdicts = {failed_last: sorted({v.verdict for v in C.compare_records(_pr(failed_last, good_jobs), base).verdicts
                                         if v.point[5] == 8})
                    for failed_last in (True, False)}
        assert verdicts[True] == verdicts[False] == [C.UNCHANGED], (good_jobs, verdicts)


def test_a_failed_job_is_not_counted_as_a_repeat():
    """Review: the "measured more than once (2x)" note counted a failed job beside the one measurement,
    which alone is judged; with two measurements and a failed job it said 3."""
    base = synth.history(runs=5, seed=3, keys=("k",), concs=(4, 8))
    for good_jobs, repeated in ((1, {}), (2, {8: 2})):
        comparison = C.compare_records(_pr(True, good_jobs), base)
        assert {pt[5]: n for pt, n in comparison.repeated.items()} == repeated, good_jobs
