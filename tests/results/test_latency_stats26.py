"""stats26: the latency statistics a client writes beyond mean/p50/p90/p95/p99 are kept, not dropped:
the standard deviation (vLLM's and SGLang's ``std_*_ms``, an AIPerf/GenAI-Perf metric object's ``std``),
p25 and p75 (AIPerf/GenAI-Perf; vLLM with ``--metric-percentiles 25,75``) and p99.9 (InferenceX's vLLM
fork, ``p99.9_*_ms``), stored as ``<latency>_{std,p25,p75,p99_9}_ms`` and returned by `results show
--json`. They are stored, never judged: `results compare` reads the same with or without them.

Each figure below is copied by hand from the real file named (tests/data/results-samples/SOURCES.tsv)."""

from __future__ import annotations

import json

import pytest
from helpers import ROW, SAMPLES, compare_main_and_pr, job, run_cli, show_json, stored, vllm_output, write_job
from sweepgate.results import record as R

# InferenceX's vLLM fork (bench_serving), Kimi-K2.5 INT4 on MI355X, conc 4: std, p90, p99 and p99.9.
IFX_VLLM = SAMPLES / "vllm" / "ifx_benchserving_kimik2.5_int4_mi355x_tp8_mtp_1k1k_conc4.json"
SGLANG = SAMPLES / "sglang" / "sglang0.5.5_qwen2.5-3b_1gpu_in128_out128_c8.jsonl"  # std_*_ms, one line
AIPERF = SAMPLES / "aiperf" / "aiperf_kimik2.7_fp4_mi355x_tp4_conc1.json"  # AIPerf 0.8.0, unit ms
GENAI_PERF = SAMPLES / "aiperf" / "genaiperf_nim-llama3-8b_trtllm_isl200_osl50_conc1.json"
GENAI_PERF_CSV = SAMPLES / "aiperf" / "genaiperf_nim-llama3-8b_trtllm_isl200_osl50_conc1.csv"  # no std column
NEW_STATS = ("std", "p25", "p75", "p99_9")


def new_figures(metrics: dict) -> dict:
    return {k: v for k, v in metrics.items() if any(k.endswith(f"_{s}_ms") for s in NEW_STATS)}


def test_the_inferencex_vllm_fork_s_std_and_p99_9_are_stored_as_written(capsys, tmp_path):
    assert new_figures(stored(capsys, tmp_path, IFX_VLLM)) == {
        "ttft_std_ms": 72.5235775538713, "ttft_p99_9_ms": 659.1278487213433,
        "tpot_std_ms": 0.7068954562863091, "tpot_p99_9_ms": 18.499183218996773,
        "itl_std_ms": 19.56802874721226, "itl_p99_9_ms": 251.6422391461674,
        "e2el_std_ms": 1311.820483148969, "e2el_p99_9_ms": 18445.460162415406}


def test_vllm_metric_percentiles_25_75_99_9_are_stored(capsys, tmp_path):
    """`vllm bench serve --metric-percentiles 25,75,99.9` names them p25_, p75_ and p99.9_ (its p50 beside
    median_): the keys added to the output of helpers.vllm_output, as that flag writes them."""
    extra = {f"{stat}_{lat}_ms": value for lat, base in (("ttft", 100.0), ("tpot", 8.0), ("itl", 8.5),
                                                         ("e2el", 8800.0))
             for stat, value in (("p25", base * 0.9), ("p75", base * 1.1), ("p99.9", base * 3), ("std", base / 4))}
    out = write_job(tmp_path / "out", "res", vllm_output(**extra), job())
    metrics = stored(capsys, tmp_path, out)
    assert new_figures(metrics) == {
        f"{lat}_{stat}_ms": value for lat, base in (("ttft", 100.0), ("tpot", 8.0), ("itl", 8.5), ("e2el", 8800.0))
        for stat, value in (("p25", base * 0.9), ("p75", base * 1.1), ("p99_9", base * 3), ("std", base / 4))}
    assert metrics["ttft_p50_ms"] == 100.0  # median_, as before


def test_sglang_s_std_is_stored_with_its_e2e_latency_as_e2el(capsys, tmp_path):
    assert new_figures(stored(capsys, tmp_path, SGLANG)) == {
        "ttft_std_ms": 9.18424330128047, "tpot_std_ms": 1.0094447866875675, "itl_std_ms": 4.56447829311872,
        "e2el_std_ms": 178.35993320902978}


def test_aiperf_s_std_p25_p75_are_stored_as_written(capsys, tmp_path):
    """AIPerf 0.8.0's objects, unit ms: time_to_first_token (TTFT), inter_token_latency (TPOT),
    inter_chunk_latency (ITL), request_latency (E2EL)."""
    assert new_figures(stored(capsys, tmp_path, AIPERF)) == {
        "ttft_std_ms": 22313.27921126816, "ttft_p25_ms": 1058.0713765, "ttft_p75_ms": 6810.262529,
        "tpot_std_ms": 1.2056143740750327, "tpot_p25_ms": 12.463131183499288, "tpot_p75_ms": 13.768671607685972,
        "itl_std_ms": 1.7409342399420564, "itl_p25_ms": 13.1635335, "itl_p75_ms": 14.7817075,
        "e2el_std_ms": 38455.796161441234, "e2el_p25_ms": 3401.4251394999997, "e2el_p75_ms": 31101.742882}


def test_aiperf_s_csv_export_stores_the_same_figures_as_its_csv_rounds_them(capsys, tmp_path):
    """The CSV export of the same AIPerf run: its rows round to 2 decimals (``Time to First Token (ms)``
    ... ``p25,p50,p75,p90,p95,p99,std``)."""
    assert new_figures(stored(capsys, tmp_path, AIPERF.with_suffix(".csv"))) == {
        "ttft_std_ms": 22313.28, "ttft_p25_ms": 1058.07, "ttft_p75_ms": 6810.26,
        "tpot_std_ms": 1.21, "tpot_p25_ms": 12.46, "tpot_p75_ms": 13.77,
        "itl_std_ms": 1.74, "itl_p25_ms": 13.16, "itl_p75_ms": 14.78,
        "e2el_std_ms": 38455.80, "e2el_p25_ms": 3401.43, "e2el_p75_ms": 31101.74}


def test_genai_perf_json_and_csv_keep_what_each_has(capsys, tmp_path):
    """GenAI-Perf's JSON has std, p25 and p75 (no inter_chunk_latency: no ITL); its CSV has p25 and p75
    and no std column, so no std is stored from it."""
    assert new_figures(stored(capsys, tmp_path, GENAI_PERF)) == {
        "ttft_std_ms": 0.5861339008185487, "ttft_p25_ms": 24.207907, "ttft_p75_ms": 24.957317,
        "tpot_std_ms": 0.6861098204981646, "tpot_p25_ms": 10.821086, "tpot_p75_ms": 11.857353999999999,
        "e2el_std_ms": 3.745354131702409, "e2el_p25_ms": 666.162428, "e2el_p75_ms": 673.256221}
    assert new_figures(stored(capsys, tmp_path, GENAI_PERF_CSV, db_name="csv.db")) == {
        "ttft_p25_ms": 24.21, "ttft_p75_ms": 24.96, "tpot_p25_ms": 10.82, "tpot_p75_ms": 11.86,
        "e2el_p25_ms": 666.16, "e2el_p75_ms": 673.26}


@pytest.mark.parametrize("unit, scale", [("ns", 1e6), ("sec", 1e-3)])
def test_an_aiperf_std_and_quartiles_in_another_unit_are_stored_in_ms(capsys, tmp_path, unit, scale):
    """The AIPerf export above with its TTFT object written in ns or sec (as AIPerf writes other
    metrics): every statistic is converted, std included, by the same rule as the mean."""
    doc = json.loads(AIPERF.read_text(encoding="utf-8"))
    ttft = doc["time_to_first_token"]
    doc["time_to_first_token"] = {**{k: v * scale if isinstance(v, float) else v for k, v in ttft.items()},
                                  "unit": unit}
    path = tmp_path / "profile_export_aiperf.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    got = stored(capsys, tmp_path, path)
    for stat, name in (("std", "ttft_std_ms"), ("p25", "ttft_p25_ms"), ("p75", "ttft_p75_ms"), ("avg", "ttft_mean_ms")):
        assert got[name] == pytest.approx(ttft[stat], rel=1e-12)


def test_std_has_no_direction_and_the_new_percentiles_are_lower_is_better():
    """A spread is neither better nor worse: never judged, never noised as a figure that improves."""
    for lat in R.LATENCIES:
        assert R.latency_name(lat, "std") not in R.DIRECTION
        for stat in ("p25", "p75", "p99_9"):
            assert R.DIRECTION[R.latency_name(lat, stat)] == R.LOWER_IS_BETTER
    assert not set(R.COMPARED_METRICS) & {R.latency_name(lat, s) for lat in R.LATENCIES for s in NEW_STATS}


def test_a_result_stored_without_them_is_kept_and_its_output_ingests_again_as_a_no_op(capsys, tmp_path):
    """A store an older sweepgate filled (its record without the new figures, which that version
    dropped): ingesting the same output again is a no-op (results are immutable; figures only the newer
    version reads are no change), while a fresh store gets them."""
    out = write_job(tmp_path / "out", "res", json.loads(IFX_VLLM.read_text(encoding="utf-8")),
                    job(row={**ROW, "model": "moonshotai/Kimi-K2.5"}))
    db = f"sqlite:///{tmp_path / 'old.db'}"
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(out))
    assert rc == 0, err
    from sweepgate.results import store

    with store.open_store(db) as st, st.engine.begin() as conn:  # as the older version stored it
        (row_id, rec), = conn.execute(store.sa.select(store.results.c.id, store.results.c.record)).all()
        rec = {**rec, R.METRICS: {k: v for k, v in rec[R.METRICS].items() if k not in new_figures(rec[R.METRICS])}}
        conn.execute(store.results.update().where(store.results.c.id == row_id).values(record=rec))
    rc, out_text, err = run_cli(capsys, "results", "ingest", "--db", db, str(out))
    assert rc == 0 and "(0 new)" in out_text, err
    (kept,) = show_json(capsys, db)
    assert kept[R.METRICS] == rec[R.METRICS]
    assert new_figures(stored(capsys, tmp_path, out, db_name="new.db"))["ttft_p99_9_ms"] == 659.1278487213433


def _compare(capsys, tmp_path, name: str, strip: bool) -> tuple[str, str]:
    """`results compare` (JSON, then Markdown) of three main runs and a PR run of the fork's output; the
    PR's p99.9 and std ten times main's, its compared figures the same. ``strip``: the outputs without
    the new figures, as sweepgate read them before."""
    base = json.loads(IFX_VLLM.read_text(encoding="utf-8"))
    newer = ("p99.9_", "std_")

    def doc_of(tail: int) -> dict:
        return {k: (v * tail if k.startswith(newer) else v) for k, v in base.items()
                if not (strip and k.startswith(newer))}

    pr, as_json, as_markdown = compare_main_and_pr(capsys, tmp_path / name, f"sqlite:///{tmp_path / f'{name}.db'}",
                                                   doc_of, {**ROW, "model": "moonshotai/Kimi-K2.5"})
    assert (pr[R.METRICS].get("ttft_p99_9_ms") is None) == strip  # the store holds them, or not
    return as_json, as_markdown


def test_compare_reads_the_same_with_or_without_the_new_figures(capsys, tmp_path, monkeypatch):
    """Stored, a tenfold p99.9 and std in the PR's run changes nothing `results compare` says."""
    monkeypatch.chdir(tmp_path)
    with_them, without = _compare(capsys, tmp_path, "with", False), _compare(capsys, tmp_path, "without", True)
    assert with_them == without
    doc = json.loads(with_them[0])
    assert {e["metric"] for e in doc["points"]} <= set(R.COMPARED_METRICS)
    assert "p99_9" not in with_them[1] and "std" not in with_them[1]
