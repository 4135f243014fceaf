"""s34b: measurements that cannot be true, and those that are odd but possible (``results/plausible.py``).

- A latency's statistics out of order (a p99 below its median, a mean outside its min..max) and a request
  throughput more than the run's requests over its duration were stored without a word; they are refused,
  one line at the output, exit 1, nothing stored: no client's own arithmetic writes them.
- TTFT, TPOT or ITL above the end-to-end latency at one statistic was stored without a word; it is stored
  as written with one warning line: clients time and count those apart (SGLang's 2024 fork printed a median
  TTFT 0.02 ms above its median E2E; vLLM's TPOT leaves out one-token answers).
- A p90 sweepgate reads from a trimmed file's per-request arrays is not held against the client's own p99.

Hand-made variants of real files (tests/data/results-samples, results-real), a real SQLite store.
"""

from __future__ import annotations

import json

from helpers import ROOT, ROW, SAMPLES, SGLANG_RUNS, no_ref_said, refused_alone, run_cli, show_json

from sweepgate.results import derive, plausible, sniff
from sweepgate.results import record as R

REAL = ROOT / "tests" / "data" / "results-real"
VLLM = SAMPLES / "vllm" / "vllmbench0.1x_qwen3-32b_h200x8_tp8_isl1024_osl128_c100.json"
AIPERF = REAL / "aiperf" / "aiperf0.11_qwen3-4b_g7_conc16_trimmed.json"
# itls lists shortened by hand: the p90 read from them (70.87 ms) is above the client's p99 (70.85 ms)
TRIMMED_ARRAYS = SAMPLES / "vllm" / "vllm0.5-0.6_mistral7b_h100_tp1_len2048_lambda.json"
CORRUPT = plausible.CORRUPT


def _variant(tmp_path, source, name: str, change) -> object:
    """A copy of the real ``source`` (a JSON document) with ``change`` applied, under ``tmp_path/made``."""
    doc = json.loads(source.read_text(encoding="utf-8"))
    change(doc)
    made = tmp_path / "made" / name
    made.parent.mkdir(exist_ok=True)
    made.write_text(json.dumps(doc, indent=1), encoding="utf-8")
    return made


def _refused(capsys, tmp_path, made) -> list[str]:
    src, lines = refused_alone(capsys, tmp_path, made)
    assert len(lines) == 1, lines
    return [line.replace(str(src), "OUT") for line in lines]


def _stored_warned(capsys, tmp_path, made) -> tuple[list[dict], list[str]]:
    """(the records stored, the lines on stderr but the one saying they are on no ref) of ``made`` ingested alone."""
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(made))
    assert rc == 0, err
    return show_json(capsys, db), [line.replace(str(made), "OUT") for line in no_ref_said(err, out).splitlines()]


def test_a_p99_below_its_median_is_refused(tmp_path, capsys):
    made = _variant(tmp_path, VLLM, "out.json", lambda d: d.update(p99_ttft_ms=1000.0))
    (line,) = _refused(capsys, tmp_path, made)
    assert line.endswith(f": median_ttft_ms: 1230.81 ms is above p99_ttft_ms (1000 ms), a higher percentile of "
                         f"the same requests, which cannot be lower (sweepgate's ttft_p50_ms, ttft_p99_ms); {CORRUPT}")


def test_an_aiperf_percentile_out_of_order_is_refused(tmp_path, capsys):
    made = _variant(tmp_path, AIPERF, "profile_export_aiperf.json",
                    lambda d: d["inter_token_latency"].update(p95=d["inter_token_latency"]["p99"] * 2))
    (line,) = _refused(capsys, tmp_path, made)
    # AIPerf's inter_token_latency is each request's time per output token: the record's TPOT
    assert line.endswith(f": inter_token_latency.p95: 19.6774 ms is above inter_token_latency.p99 (9.83872 ms), a "
                         f"higher percentile of the same requests, which cannot be lower (sweepgate's tpot_p95_ms, "
                         f"tpot_p99_ms); {CORRUPT}")


def test_an_aiperf_mean_above_its_max_is_refused(tmp_path, capsys):
    made = _variant(tmp_path, AIPERF, "profile_export_aiperf.json",
                    lambda d: d["time_to_first_token"].update(avg=90.0))
    (line,) = _refused(capsys, tmp_path, made)
    assert line.startswith("OUT:") and line.endswith(
        f": time_to_first_token.avg: 90 ms is outside time_to_first_token.min..time_to_first_token.max (22.0868.."
        f"85.4143 ms); a mean lies between its extremes (sweepgate's ttft_mean_ms, ttft_min_ms, ttft_max_ms); "
        f"{CORRUPT}"), line


def test_a_request_throughput_beyond_its_requests_is_refused(tmp_path, capsys):
    made = _variant(tmp_path, VLLM, "out.json", lambda d: d.update(request_throughput=306.1421874406796))
    (line,) = _refused(capsys, tmp_path, made)
    assert line == (f"OUT:17:2: request_throughput: 306.142 req/s for 3.26646 s (duration) is 1000 requests, "
                    f"but only 100 completed or failed; {CORRUPT}")


def test_the_real_rate_and_an_aiperf_rate_below_its_count_are_stored(tmp_path, capsys):
    """A client's rate is its completed requests over its duration (AIPerf's, over its own span, to within
    rounding; other real AIPerf exports are below it): not refused."""
    records, err = _stored_warned(capsys, tmp_path, VLLM)
    assert err == [] and records[0][R.METRICS][R.REQUEST_THROUGHPUT] == 30.61421874406796
    (tmp_path / "a").mkdir()
    records, err = _stored_warned(capsys, tmp_path / "a", AIPERF)
    metrics = records[0][R.METRICS]
    assert abs(metrics[R.REQUEST_THROUGHPUT] * metrics[R.DURATION_S] - metrics[R.COMPLETED]) < 1e-6, metrics


def test_a_median_ttft_a_hair_above_median_e2e_is_stored_with_a_warning(tmp_path, capsys):
    """As SGLang's 2024 dLoRA fork printed (606.88 ms against 606.86 ms): warned of, stored as written."""
    lines = SGLANG_RUNS.read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    first["median_ttft_ms"] = first["median_e2e_latency_ms"] + 0.02
    made = tmp_path / "made" / "online.jsonl"
    made.parent.mkdir()
    made.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n", encoding="utf-8")
    records, err = _stored_warned(capsys, tmp_path, made)
    assert len(records) == len(lines)
    assert [line for line in err if "warning" in line] == [
        "OUT:1:285: warning: median_ttft_ms: ttft is above the end-to-end latency (e2el) at p50 7819.07 > 7819.05 ms "
        "(sweepgate's ttft_p50_ms); stored as written; a part of a request cannot take longer than the request: check how the client times "
        "and counts them (one-token answers, responses in one piece)"], err
    line1 = next(r for r in records if r[R.SOURCE_LINE] == 1)
    assert line1[R.METRICS]["ttft_p50_ms"] == first["median_ttft_ms"]


def test_a_mean_itl_above_mean_e2e_is_stored_with_a_warning(tmp_path, capsys):
    made = _variant(tmp_path, VLLM, "out.json", lambda d: d.update(mean_itl_ms=4000.0, p99_itl_ms=4000.0))
    records, err = _stored_warned(capsys, tmp_path, made)
    assert records[0][R.METRICS]["itl_mean_ms"] == 4000.0
    assert len(err) == 1 and err[0].startswith("OUT:") and ": warning: mean_itl_ms: itl is above the end-to-end " \
        "latency (e2el) at mean 4000 > 3216.36 ms, p99 4000 > 3251.96 ms (sweepgate's itl_mean_ms); stored as " \
        "written;" in err[0], err


def test_a_p90_read_from_trimmed_arrays_is_not_held_against_the_clients_p99(tmp_path, capsys):
    records, err = _stored_warned(capsys, tmp_path, TRIMMED_ARRAYS)
    metrics = records[0][R.METRICS]
    assert metrics["itl_p90_ms"] > metrics["itl_p99_ms"] and err == []


def test_no_real_file_breaks_a_rule():
    """Every real output sweepgate reads passes the rules, refusal and warning alike: they refuse nothing a
    client writes in a run, however odd."""
    checked = 0
    for root in (SAMPLES, REAL):
        for path in sorted(p for p in root.rglob("*") if p.suffix in (".json", ".jsonl", ".csv")):
            try:
                measurements = sniff.parse_text(path.read_text(encoding="utf-8-sig"), str(path))
            except Exception:  # noqa: BLE001 - refused or passed over as another kind of file: not a run
                continue
            for m in measurements:
                metrics = derive.measured(m.metrics)
                plausible.refuse_impossible(metrics, m, str(path))
                assert plausible.oddities(metrics, m) == [], path
                checked += 1
    assert checked > 150


# --- SGLang's model: the weights the server loaded, not the name its API answers to ------------------------

ALIASED = REAL / "sglang" / "sglang_dev2026-08_qwen3.8-nvfp4_v100_tp4_eagle_c4_served_alias_trimmed.jsonl"


def _sglang_model(capsys, tmp_path, change=None, *extra) -> tuple[str, list[str]]:
    doc = json.loads(ALIASED.read_text(encoding="utf-8"))
    if change:
        change(doc["server_info"])
    made = tmp_path / "made" / "c4_1k.jsonl"
    made.parent.mkdir(exist_ok=True)
    made.write_text(json.dumps(doc) + "\n", encoding="utf-8")
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, *extra, str(made))
    assert rc == 0, err
    (rec,) = show_json(capsys, db)
    said = err if "--row" in extra else no_ref_said(err, out)  # without --row, stored on no ref: one line more
    return rec[R.MODEL], [line.replace(str(made), "OUT") for line in said.splitlines()]


def test_an_sglang_line_stores_its_model_path_not_its_served_alias(tmp_path, capsys):
    model, err = _sglang_model(capsys, tmp_path)
    assert model == "RadixArk/Qwen3.8-Flash-Next-NVFP4" and err == []


def test_an_sglang_alias_that_names_a_hub_repository_stands_for_a_local_model_path(tmp_path, capsys):
    def local(info):
        info.update(model_path="/data/models/qwen38-nvfp4", served_model_name="RadixArk/Qwen3.8-Flash-Next-NVFP4")
    assert _sglang_model(capsys, tmp_path, local)[0] == "RadixArk/Qwen3.8-Flash-Next-NVFP4"


def test_an_sglang_alias_is_the_model_of_a_file_without_a_model_path(tmp_path, capsys):
    assert _sglang_model(capsys, tmp_path, lambda info: info.pop("model_path"))[0] == "qwen"


def test_an_sglang_model_path_is_held_against_its_row(tmp_path, capsys):
    """Under a row of another model, the loaded weights are warned of (an alias 'qwen' could not be compared)."""
    row = tmp_path / "row.json"
    row.write_text(json.dumps({**ROW, "model": "Qwen/Qwen3-8B", "conc": 4, "isl": 1024, "osl": 512, "tp": 4,
                               "framework": "sglang"}), encoding="utf-8")
    model, err = _sglang_model(capsys, tmp_path, None, "--row", str(row), "--run-id", "7",
                               "--ref", "refs/heads/main")
    assert model == "Qwen/Qwen3-8B"
    assert len(err) == 1 and ": warning: server_info.model_path: the output benchmarked RadixArk/Qwen3.8-Flash-Next-" \
        "NVFP4 but its job's row (--row) says model Qwen/Qwen3-8B; stored under Qwen/Qwen3-8B" in err[0], err


def test_a_real_mean_above_its_p99_is_stored_as_written(tmp_path, capsys):
    """SGLang at 261k input tokens, conc 2: one request's prefill stalls the other's decode, so a few huge gaps
    pull the mean ITL (94.29 ms) above its p99 (39.88 ms). A mean stands among no percentiles: not refused."""
    real = REAL / "sglang" / "sglang_dev2026-08_qwen3.8-nvfp4_v100_tp4_eagle_c2_261k_mean_itl_above_p99_trimmed.jsonl"
    records, err = _stored_warned(capsys, tmp_path, real)
    (rec,) = records
    m = rec[R.METRICS]
    assert err == [] and (rec[R.CONC], rec[R.ISL], rec[R.MODEL]) == (2, 261120, "RadixArk/Qwen3.8-Flash-Next-NVFP4")
    assert (m["itl_mean_ms"], m["itl_p50_ms"], m["itl_p99_ms"]) == (94.2906665861057, 10.368738624947582,
                                                                    39.87746583041371)
