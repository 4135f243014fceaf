"""s41c: GPU samples beside outputs that count no output tokens say why there is no energy per output token.

Energy per output token is the joules the job's GPUs drew in the run's window over the output tokens it
produced: its total, else its output throughput times its duration (``derive.output_tokens``). GenAI-Perf's 2024
export states neither (an output throughput and per-request sequence lengths only), so beside samples that
covered its job the joules were integrated and then dropped without a word, where samples that do not cover a
job say so (s40q). One warning at the samples file now says it, once for all the outputs beside the file,
naming them, as the samples file's other warnings are said.
"""

from __future__ import annotations

import json

from helpers import ROW, SAMPLES, job, run_cli, show_json, vllm_output, write_job
from sweepgate.results import record as R
from test_energy_uncovered_s40q import DAY, _nvidia_smi
from test_several_models_s40d import _first_model

GENAI_PERF = SAMPLES / "aiperf" / "genaiperf_nim-llama3-8b_trtllm_isl200_osl50_conc1.json"  # no duration, no totals
SAMPLED = _nvidia_smi(DAY.replace(hour=11, minute=57), DAY.replace(hour=12, minute=1))  # covers 11:58-12:00


def _ingest(tmp_path, capsys, outputs: dict) -> tuple[int, str, dict]:
    for name, (output, side) in outputs.items():
        write_job(tmp_path, name, output, side)
    (tmp_path / "gpu_metrics.csv").write_text(SAMPLED)
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path))
    return rc, err, {r[R.RESULT_FILENAME]: r for r in show_json(capsys, db)}


def _genai_perf(conc: int = 1) -> tuple[dict, dict]:
    """The real export (its run at conc 1), or the same figures said of another concurrency."""
    doc = json.loads(GENAI_PERF.read_text(encoding="utf-8"))
    doc["input_config"]["concurrency"] = conc
    return doc, job(row={**ROW, "model": _first_model(doc), "conc": conc, "isl": 200, "osl": 50})


def test_outputs_without_an_output_token_count_beside_samples_say_so_once_naming_them(tmp_path, capsys):
    rc, err, recs = _ingest(tmp_path, capsys, {"a": _genai_perf(), "b": _genai_perf(2),
                                               "c": (vllm_output(4), job(row={**ROW, "conc": 4}))})
    assert rc == 0 and R.ENERGY_PER_OUTPUT_TOKEN_J in recs["c"][R.METRICS], err
    assert all(R.ENERGY_PER_OUTPUT_TOKEN_J not in recs[n][R.METRICS] for n in ("a", "b")), recs
    assert err.splitlines() == [
        f"{tmp_path / 'gpu_metrics.csv'}:1: warning: no energy per output token: a.json, b.json state no count of "
        "their output tokens (no total, nor a duration to multiply their output throughput by); ingest a client "
        "output that states them (AIPerf's profile_export_aiperf.json: total_output_tokens, benchmark_duration; "
        "vLLM's total_output_tokens)"], err


def test_an_output_that_counts_its_tokens_beside_samples_says_nothing(tmp_path, capsys):
    rc, err, recs = _ingest(tmp_path, capsys, {"c": (vllm_output(4), job(row={**ROW, "conc": 4}))})
    assert (rc, err) == (0, "") and R.ENERGY_PER_OUTPUT_TOKEN_J in recs["c"][R.METRICS]
