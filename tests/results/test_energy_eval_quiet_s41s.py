"""s41s: an lm-eval output beside GPU samples says nothing of energy per output token.

An eval measurement's record holds scores, never an energy figure: there are no output tokens to divide joules
by and none are expected. The s41c warning that an output "states no count of its output tokens" (and the
advice to ingest a client output that does) fired for every eval beside its job's benchmark output: noise, and
wrong advice. Eval measurements are now left out of that check; a benchmark output that counts no tokens still
says so.
"""

from __future__ import annotations

import shutil

from helpers import ROW, SAMPLES, job, vllm_output
from sweepgate.results import record as R
from test_energy_tokenless_s41c import _genai_perf, _ingest

LM_EVAL = SAMPLES / "lm_eval" / "lmeval0.4.8_gsm8k_granite_limit1_smoketest.json"


def test_an_eval_output_beside_samples_says_nothing_of_output_tokens(tmp_path, capsys):
    shutil.copy(LM_EVAL, tmp_path / "a-eval.json")
    rc, err, recs = _ingest(tmp_path, capsys, {"a": (vllm_output(4), job(row={**ROW, "conc": 4, "run-eval": True}))})
    assert rc == 0 and err == "", err
    assert R.ENERGY_PER_OUTPUT_TOKEN_J in recs["a"][R.METRICS]
    assert len(recs) == 2 and all(R.ENERGY_PER_OUTPUT_TOKEN_J not in r[R.METRICS] for n, r in recs.items() if n != "a")


def test_a_tokenless_benchmark_beside_an_eval_is_still_named_alone(tmp_path, capsys):
    shutil.copy(LM_EVAL, tmp_path / "a-eval.json")
    doc, side = _genai_perf()
    side["row"]["run-eval"] = True
    rc, err, _ = _ingest(tmp_path, capsys, {"a": (doc, side)})
    assert rc == 0 and len(err.splitlines()) == 1 and "a.json states no count of its output tokens" in err, err
