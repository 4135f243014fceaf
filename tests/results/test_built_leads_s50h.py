"""Three result-reading leads (s50h), each on a fixture built in the exact format the tool's own source writes
(tests/data/results-built/SOURCES.tsv names the source file and commit): no committed real output shows them.

1. lm-eval's RULER writes -1 for a context length no sample had (``"8192,none": -1``): stored, it read as a
   score of -1; it is now left out with one warning, and a real negative score (an MCC) stays stored.
"""

from __future__ import annotations

import json

import pytest

from helpers import ROOT, file_records, run_cli
from sweepgate.core.errors import SweepgateError
from sweepgate.results import record as R

BUILT = ROOT / "tests" / "data" / "results-built"
RULER = "lm_eval/lmeval_built_ruler_niah_vt_4096_only_lengths_not_run_cola_mcc_negative.json"


def _scores(recs: list[dict]) -> dict:
    return {(e[R.EVAL_TASK], e[R.EVAL_METRIC]): e[R.EVAL_VALUE] for rec in recs for e in rec[R.EVALS]}


def test_a_ruler_length_not_run_is_no_score_and_a_negative_mcc_is_one():
    assert _scores(file_records(BUILT, RULER)) == {
        ("cola", "mcc"): -0.0213, ("niah_single_1", "4096"): 1.0, ("ruler_vt", "4096"): 0.964}


def test_the_lengths_not_run_are_said_in_one_warning(tmp_path, capsys):
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(BUILT / RULER))
    said = [line for line in err.splitlines() if "context length" in line]
    assert rc == 0 and len(said) == 1, err
    assert ("results.niah_single_1.8192,none: -1, lm-eval's mark of a context length no sample had (lengths 8192, "
            "16384 in niah_single_1, ruler_vt): no score; left out, the file's other scores are stored") in said[0]


def test_a_file_of_lengths_not_run_alone_is_refused(tmp_path):
    doc = json.loads((BUILT / RULER).read_text(encoding="utf-8"))
    doc["results"] = {task: {k: v for k, v in scores.items() if not k.startswith("4096")}
                      for task, scores in doc["results"].items() if task != "cola"}
    (tmp_path / "lm_eval").mkdir()
    (tmp_path / "lm_eval" / "r.json").write_text(json.dumps(doc, indent=2), encoding="utf-8")
    with pytest.raises(SweepgateError) as info:
        file_records(tmp_path, "lm_eval/r.json")
    (diag,) = info.value.diagnostics
    assert diag.message.startswith("results: only lm-eval's -1 for context lengths no sample had "
                                   "(niah_single_1.8192,none, niah_single_1.16384,none, ruler_vt.8192,none, ...)")
