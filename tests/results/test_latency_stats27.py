"""stats27: every latency statistic an output states is kept, not only core.metrics.STATS: AIPerf's and
GenAI-Perf's min and max, AIPerf's p1, p5 and p10, and any percentile `--metric-percentiles` asks of
vLLM (``p99.99_ttft_ms``, ``p0.1_ttft_ms``), each named by core.metrics.stat_name (``ttft_min_ms``,
``ttft_p99_99_ms``), returned by `results show --json`, with no direction and never judged.

Figures are copied by hand from the real files named (tests/data/results-samples/SOURCES.tsv). No real
vLLM sample asks for a percentile beyond STATS, so the vLLM fixture is the InferenceX fork's real output
with keys added as `vllm bench serve --metric-percentiles 0.1,5,99.99` spells them (``p{N}_{metric}_ms``,
N written as ``str(int(p)) if int(p) == p else str(p)``)."""

from __future__ import annotations

import json
import math
import re

import pytest
from helpers import ROW, SAMPLES, compare_main_and_pr, job, run_cli, show_json, stored, write_job
from sweepgate.core.schemas import schema_bytes
from sweepgate.results import derive
from sweepgate.results import record as R

IFX_VLLM = SAMPLES / "vllm" / "ifx_benchserving_kimik2.5_int4_mi355x_tp8_mtp_1k1k_conc4.json"
AIPERF = SAMPLES / "aiperf" / "aiperf_kimik2.7_fp4_mi355x_tp4_conc1.json"  # AIPerf 0.8.0, unit ms
GENAI_PERF = SAMPLES / "aiperf" / "genaiperf_nim-llama3-8b_trtllm_isl200_osl50_conc1.json"
KIMI = {**ROW, "model": "moonshotai/Kimi-K2.5"}


def further(metrics: dict) -> dict:
    """The latency statistics beyond STATS among ``metrics``."""
    return {k: v for k, v in metrics.items() if (s := R.latency_stat(k)) and s[1] not in R.STATS}


def test_aiperf_s_min_max_p1_p5_p10_are_stored_as_written(capsys, tmp_path):
    """AIPerf 0.8.0's metric objects: time_to_first_token (TTFT), inter_token_latency (TPOT),
    inter_chunk_latency (ITL), request_latency (E2EL); its sum and count are no latency statistic."""
    assert further(stored(capsys, tmp_path, AIPERF)) == {
        "ttft_min_ms": 106.84492999999999, "ttft_max_ms": 169384.64886, "ttft_p1_ms": 155.59405987999997,
        "ttft_p5_ms": 507.2029536, "ttft_p10_ms": 589.6761578,
        "tpot_min_ms": 9.759024, "tpot_max_ms": 22.041824, "tpot_p1_ms": 9.8465321541806,
        "tpot_p5_ms": 12.100228605471512, "tpot_p10_ms": 12.167008403333334,
        "itl_min_ms": 0.15831, "itl_max_ms": 281.953219, "itl_p1_ms": 10.90664839, "itl_p5_ms": 12.2532315,
        "itl_p10_ms": 12.6099718,
        "e2el_min_ms": 283.276707, "e2el_max_ms": 280391.15710899996, "e2el_p1_ms": 333.18985943999996,
        "e2el_p5_ms": 1897.4546329, "e2el_p10_ms": 2120.1539724}


def test_aiperf_s_csv_export_stores_them_as_its_csv_rounds_them(capsys, tmp_path):
    """The same run's CSV export: ``Metric,avg,min,max,sum,p1,p5,p10,p25,...`` rows, 2 decimals."""
    assert further(stored(capsys, tmp_path, AIPERF.with_suffix(".csv"))) == {
        "ttft_min_ms": 106.84, "ttft_max_ms": 169384.65, "ttft_p1_ms": 155.59, "ttft_p5_ms": 507.20,
        "ttft_p10_ms": 589.68,
        "tpot_min_ms": 9.76, "tpot_max_ms": 22.04, "tpot_p1_ms": 9.85, "tpot_p5_ms": 12.10, "tpot_p10_ms": 12.17,
        "itl_min_ms": 0.16, "itl_max_ms": 281.95, "itl_p1_ms": 10.91, "itl_p5_ms": 12.25, "itl_p10_ms": 12.61,
        "e2el_min_ms": 283.28, "e2el_max_ms": 280391.16, "e2el_p1_ms": 333.19, "e2el_p5_ms": 1897.45,
        "e2el_p10_ms": 2120.15}


def test_genai_perf_json_and_csv_keep_their_min_and_max(capsys, tmp_path):
    """GenAI-Perf writes min and max (its p1/p5/p10 are null or absent): no ITL object, so no ITL."""
    assert further(stored(capsys, tmp_path, GENAI_PERF)) == {
        "ttft_min_ms": 23.593412999999998, "ttft_max_ms": 26.314778, "tpot_min_ms": 9.875505,
        "tpot_max_ms": 12.856719, "e2el_min_ms": 664.089063, "e2el_max_ms": 675.835431}
    assert further(stored(capsys, tmp_path, GENAI_PERF.with_suffix(".csv"), db_name="csv.db")) == {
        "ttft_min_ms": 23.59, "ttft_max_ms": 26.31, "tpot_min_ms": 9.88, "tpot_max_ms": 12.86,
        "e2el_min_ms": 664.09, "e2el_max_ms": 675.84}


def _vllm_with_percentiles() -> dict:
    """The fork's real output plus p0.1, p5 and p99.99 of each latency, as --metric-percentiles writes them."""
    doc = json.loads(IFX_VLLM.read_text(encoding="utf-8"))
    for lat in ("ttft", "tpot", "itl", "e2el"):
        p99 = doc[f"p99_{lat}_ms"]
        doc.update({f"p0.1_{lat}_ms": p99 / 50, f"p5_{lat}_ms": p99 / 10, f"p99.99_{lat}_ms": p99 * 2})
    return doc


def test_vllm_metric_percentiles_beyond_stats_are_stored_named_without_a_dot(capsys, tmp_path):
    doc = _vllm_with_percentiles()
    out = write_job(tmp_path / "out", "res", doc, job(row=KIMI))
    got = stored(capsys, tmp_path, out)
    assert further(got) == {f"{lat}_{name}_ms": doc[f"{key}_{lat}_ms"] for lat in ("ttft", "tpot", "itl", "e2el")
                            for key, name in (("p0.1", "p0_1"), ("p5", "p5"), ("p99.99", "p99_99"))}
    assert got["ttft_p99_9_ms"] == doc["p99.9_ttft_ms"]  # STATS as before


def test_a_broken_statistic_never_read_before_is_a_warning_not_a_refusal(capsys, tmp_path):
    """sweepgate accepted an export whose p1 was NaN while it skipped p1: it still does, stores the
    rest, and says which statistic it left out."""
    doc = json.loads(AIPERF.read_text(encoding="utf-8"))
    doc["time_to_first_token"]["p1"] = math.nan
    doc["request_latency"]["max"] = -1.0
    path = tmp_path / "profile_export_aiperf.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(path))
    assert rc == 0, err
    assert "time_to_first_token.p1: nan is no latency; stored without it" in err
    assert "request_latency.max: -1.0 is no latency; stored without it" in err
    (rec,) = show_json(capsys, db)
    assert "ttft_p1_ms" not in rec[R.METRICS] and "e2el_max_ms" not in rec[R.METRICS]
    assert rec[R.METRICS]["ttft_p5_ms"] == 507.2029536


@pytest.mark.parametrize(("written", "name"), [
    ("p99.99", "p99_99"), ("p0.1", "p0_1"), ("p99.90", "p99_9"), ("p99.9", "p99_9"), ("p99_9", "p99_9"),
    ("p1", "p1"), ("p100", "p100"), ("min", "min"), ("max", "max"), ("std", "std"), ("mean", "mean"),
    ("sum", None), ("count", None), ("p101", None), ("p100.5", None), ("avg", None),
])
def test_one_function_names_every_spelling_of_a_statistic(written, name):
    assert R.stat_name(written) == name


def test_the_result_schema_takes_every_name_stat_name_gives_and_no_other():
    metrics = json.loads(schema_bytes("result"))["properties"][R.METRICS]
    patterns = list(metrics["patternProperties"])
    for stat in ("p0_1", "p99_99", "p99_999", "p5", "p100", "min", "max", "p99_9", "std",
                 "sum", "p101", "p99_90", "p050", "avg", "p100_5"):
        for lat in (*R.LATENCIES, "ttst"):
            name = f"{lat}_{stat}_ms"
            assert (name in metrics["properties"] or any(re.search(p, name) for p in patterns)) == \
                (R.latency_stat(name) is not None), name


def test_further_statistics_have_no_direction_and_are_never_judged():
    for lat in R.LATENCIES:
        for stat in ("min", "max", "p1", "p99_99"):
            assert R.latency_name(lat, stat) not in R.DIRECTION
    assert not [m for m in R.COMPARED_METRICS if (s := R.latency_stat(m)) and s[1] not in R.STATS]


def test_a_run_that_completed_nothing_or_one_token_each_keeps_none_of_them():
    """A failed run's latencies are its client's placeholders, every statistic of them; where each
    request produced one token, TPOT and ITL do not exist, whatever statistic the client wrote."""
    failed = {R.COMPLETED: 0, "ttft_min_ms": 0.0, "ttft_p99_99_ms": 0.0, "ttft_p50_ms": 0.0, R.FAILED: 4}
    assert derive.measured(failed) == {R.COMPLETED: 0, R.FAILED: 4}
    one = {R.COMPLETED: 10, R.TOTAL_OUTPUT_TOKENS: 10, "tpot_max_ms": 0.01, "itl_p1_ms": 0.0, "ttft_max_ms": 9.0}
    assert derive.measured(one) == {R.COMPLETED: 10, R.TOTAL_OUTPUT_TOKENS: 10, "ttft_max_ms": 9.0}


def _compare(capsys, tmp_path, name: str, strip: bool) -> tuple[str, str]:
    """`results compare` (JSON, then Markdown) of three main runs and a PR run of AIPerf's real export;
    the PR's max ten times main's and its min, p1, p5 and p10 a tenth (in order still: s34b refuses a
    percentile above a higher one), its compared figures the same. ``strip``: the exports without them,
    as a store an older sweepgate filled holds them."""
    base = json.loads(AIPERF.read_text(encoding="utf-8"))
    extra = ("min", "max", "p1", "p5", "p10")

    def scaled(s: str, v, tail: int):
        return v if s not in extra else v * tail if s == "max" else v / tail

    def doc_of(tail: int) -> dict:
        return {k: ({s: scaled(s, v, tail) for s, v in o.items() if not (strip and s in extra)}
                    if isinstance(o, dict) and "unit" in o else o) for k, o in base.items()}

    row = {**ROW, "model": "amd/Kimi-K2.7-Code-MXFP4", "tp": 4, "conc": 1}
    pr, as_json, as_markdown = compare_main_and_pr(capsys, tmp_path / name, f"sqlite:///{tmp_path / f'{name}.db'}",
                                                   doc_of, row)
    assert (pr[R.METRICS].get("ttft_max_ms") is None) == strip  # the store holds them, or not
    return as_json, as_markdown


def test_compare_reads_the_same_with_or_without_them(capsys, tmp_path, monkeypatch):
    """Stored, a tenfold max and a tenth of p1 in the PR's run change nothing `results compare` says."""
    monkeypatch.chdir(tmp_path)
    assert _compare(capsys, tmp_path, "with", False) == _compare(capsys, tmp_path, "without", True)
