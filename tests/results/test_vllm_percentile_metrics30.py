"""s30e: a vLLM output without TTFT, TPOT and ITL is vLLM's all the same.

`vllm bench serve` (and benchmark_serving.py from 0.6 on) writes a latency's statistics only when
`--percentile-metrics` names it (vllm-project/vllm vllm/benchmarks/serve.py and
benchmarks/benchmark_serving.py: their ``process_one_metric`` returns at once for a latency not selected;
serve.py also skips TTFT, TPOT and ITL without a tokenizer), while its counts, duration and throughputs
are written for every run. A run with `--percentile-metrics e2el` was
refused as "unknown JSON output": detection looked for a *_ttft_ms or *_tpot_ms key. It is stored with the
latencies it has; the others are absent (never 0), `results show` leaves their cells empty and `results
compare` says them not measured.
"""

from __future__ import annotations

import json

from helpers import ROW, SAMPLES, job, no_ref_said, run_cli, show_json, write_job

from sweepgate.results import record as R

# A real `vllm bench serve` output (~0.11-0.13, tests/data/results-samples/SOURCES.tsv), run with
# --percentile-metrics ttft,tpot,itl,e2el: every latency's mean, median, std and p99.
SAMPLE = SAMPLES / "vllm" / "vllmbench0.1x_qwen3-32b_b200x8_tp8_isl1024_osl128_c100.json"
NOT_WRITTEN = ("_ttft_ms", "_tpot_ms", "_itl_ms")  # what --percentile-metrics e2el leaves out
E2EL = {"mean_e2el_ms": "e2el_mean_ms", "median_e2el_ms": "e2el_p50_ms", "std_e2el_ms": "e2el_std_ms",
        "p99_e2el_ms": "e2el_p99_ms"}
ABSENT = {R.latency_name(lat, st) for lat in ("ttft", "tpot", "itl") for st in R.STATS} | {R.INTERACTIVITY}


def full() -> dict:
    return json.loads(SAMPLE.read_text(encoding="utf-8"))


def e2el_only() -> dict:
    """The real output as the same run saves it with --percentile-metrics e2el: its ttft, tpot and itl keys
    removed, which vLLM does not write then; every other key (counts, duration, throughputs, the four
    *_e2el_ms) it writes whatever --percentile-metrics names, so they stay as they are."""
    doc = {k: v for k, v in full().items() if not k.endswith(NOT_WRITTEN)}
    assert set(E2EL) <= doc.keys() and len(doc) == len(full()) - 12  # 4 statistics of 3 latencies gone
    return doc


def test_the_sample_has_what_the_tests_remove():
    doc = full()
    assert all(f"{st}{lat}" in doc for st in ("mean", "median", "std", "p99") for lat in NOT_WRITTEN)


def test_an_output_of_percentile_metrics_e2el_is_stored_with_its_e2el_and_no_other_latency(tmp_path, capsys):
    path = tmp_path / "e2el.json"
    path.write_text(json.dumps(e2el_only(), indent=2), encoding="utf-8")
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(path))
    assert (rc, no_ref_said(err)) == (0, ""), err
    assert out.startswith("ingested 1 results (1 new)")
    (rec,) = show_json(capsys, db)
    m, doc = rec[R.METRICS], e2el_only()
    assert (rec[R.CLIENT], rec[R.STATUS], rec[R.CONC]) == ("vllm-bench", "success", 100)
    assert {name: m[name] for name in E2EL.values()} == {name: doc[key] for key, name in E2EL.items()}
    assert (m[R.OUTPUT_THROUGHPUT], m[R.TOTAL_TOKEN_THROUGHPUT], m[R.COMPLETED], m[R.DURATION_S]) == (
        doc["output_throughput"], doc["total_token_throughput"], 100, doc["duration"])
    assert not ABSENT & m.keys(), sorted(ABSENT & m.keys())  # absent, not 0 nor null


def _cells(out: str, result: str) -> dict[str, str]:
    """The cells of the row of ``result`` in `results show`'s table, by header."""
    lines = out.splitlines()
    rows = [[c.strip() for c in line.split("│")[1:-1]] for line in lines if line.startswith("│")]
    header = [c.strip() for line in lines if line.startswith("┃") for c in line.split("┃")[1:-1]]
    (row,) = [r for r in rows if result in r]
    return dict(zip(header, row))


def test_results_show_leaves_the_figures_it_lacks_empty_beside_a_run_that_has_them(tmp_path, capsys):
    ok, short = tmp_path / "full.json", tmp_path / "e2el.json"
    ok.write_text(json.dumps(full()), encoding="utf-8")
    short.write_text(json.dumps(e2el_only()), encoding="utf-8")
    db = f"sqlite:///{tmp_path / 'r.db'}"
    assert run_cli(capsys, "results", "ingest", "--db", db, str(ok), str(short))[0] == 0
    rc, out, err = run_cli(capsys, "results", "show", "--db", db)
    assert (rc, err) == (0, "")
    have, lack = _cells(out, "full.json"), _cells(out, "e2el.json")
    assert have["TTFT p50 ms"] == "855.3" and have["TPOT p50 ms"] == "11.7", have
    assert (lack["TTFT p50 ms"], lack["TPOT p50 ms"]) == ("", ""), lack
    assert lack["E2EL p50 ms"] == have["E2EL p50 ms"] == "2,335"


def _job(folder, name, output, run, ref, hour):
    row = dict(ROW, model="Qwen/Qwen3-32B", conc=100, tp=8, isl=1024, osl=128)
    times = {R.STARTED: f"2026-01-0{hour}T10:00:00+00:00", R.FINISHED: f"2026-01-0{hour}T10:05:00+00:00"}
    write_job(folder, name, output, job(run, row=row, ref=ref, **times))


def test_results_compare_says_the_latencies_a_run_did_not_write_not_measured(env, capsys):
    """Main's three runs wrote TTFT and TPOT (so interactivity); the PR's run of the point, with
    --percentile-metrics e2el, did not: those are not measured (never judged as 0), its E2EL,
    throughput and success rate are judged."""
    for n, run in enumerate(("101", "102", "103"), 1):
        # each main run its own bytes (a `--metadata` pair, not stored): one output under three jobs is warned of
        _job(env / "main" / run, "res", {**full(), "main_run": run}, run, "refs/heads/main", n)
    _job(env / "pr", "res", e2el_only(), "200", "refs/pull/7/head", 5)
    db = f"sqlite:///{env / 'r.db'}"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(env / "main"), str(env / "pr"))
    assert (rc, err) == (0, ""), err
    rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "200", "--json")
    assert rc == 0, err
    report = json.loads(out)
    judged = {p["metric"]: p["head"] for p in report["points"]}
    # (and the busiest second's output, which the real output states whatever --percentile-metrics names)
    assert judged.keys() == {R.OUTPUT_TPUT_PER_GPU, R.MAX_OUTPUT_TOKENS_PER_S, R.latency_name("e2el", "p50"),
                             R.SUCCESS_RATE}, judged
    assert judged[R.latency_name("e2el", "p50")] == e2el_only()["median_e2el_ms"]
    assert sorted((m["not-measured"], m["baseline-run"]) for m in report["not-measured"]) == [
        (R.INTERACTIVITY, "103"), (R.latency_name("tpot", "p50"), "103"), (R.latency_name("ttft", "p50"), "103")]
    rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "200")
    assert rc == 0, err
    said = " ".join(out.split())
    assert "not measured" in said.lower() and "ttft_p50_ms" in said, out
