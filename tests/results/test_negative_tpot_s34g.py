"""s34g: a TPOT or ITL a hair below 0 is what a TTFT a hair above E2E makes, and is warned of alike.

SGLang's bench_serving reads a response's clock before it parses the chunk that holds its first token, so a
response that came in one piece has its TTFT a hair past its end (warned of, stored: s34b) and its TPOT, that
difference over its tokens, a hair below 0: a 2024 dLoRA fork's console prints ``Median TTFT (ms): 576.10``
against ``Median E2E Latency (ms): 576.03`` and ``Median TPOT (ms): -0.00``. Such a line was refused
(``median_tpot_ms: negative``) while its TTFT above E2E was only warned of. A TPOT or ITL statistic below 0 by
at most ``plausible.TIMER_SLACK_MS`` is stored as written with one warning line (no interactivity is derived
from it); further below, or a negative spread, count or throughput, it is refused as before.

Hand-made variants of real files (tests/data/results-real, results-samples), ingested through the CLI.
"""

from __future__ import annotations

import json

from helpers import ROOT, SAMPLES, no_ref_said, refused_alone, run_cli, show_json

from sweepgate.results import plausible
from sweepgate.results import record as R

# bench_serving of the dLoRA fork, Nov 2024 (medians only, no TPOT written yet): the console's shape is added
DLORA = ROOT / "tests" / "data" / "results-real" / "sglang" / "sglang_2024-11_dlora_nodataset_rr0_100prompts.jsonl"
VLLM = SAMPLES / "vllm" / "vllmbench0.1x_qwen3-32b_h200x8_tp8_isl1024_osl128_c100.json"
AIPERF = ROOT / "tests" / "data" / "results-real" / "aiperf" / "aiperf0.11_qwen3-4b_g7_conc16_trimmed.json"


def _dlora_line(**tpot) -> tuple[str, dict]:
    """The fork's first line with its median TTFT 0.07 ms past its median E2E, as its console shows, and ``tpot``."""
    lines = DLORA.read_text(encoding="utf-8").splitlines()
    doc = json.loads(lines[0])
    doc["median_ttft_ms"] = doc["median_e2e_latency_ms"] + 0.07
    doc.update(tpot)
    return "\n".join([json.dumps(doc), *lines[1:]]) + "\n", doc


def _ingested(capsys, tmp_path, name: str, text: str) -> tuple[list[dict], list[str]]:
    made = tmp_path / "made" / name
    made.parent.mkdir()
    made.write_text(text, encoding="utf-8")
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(made))
    assert rc == 0, err
    return show_json(capsys, db), [line.replace(str(made), "OUT") for line in no_ref_said(err).splitlines()]


def test_a_median_tpot_a_hair_below_zero_is_stored_with_a_warning(tmp_path, capsys):
    text, doc = _dlora_line(mean_tpot_ms=1.77, median_tpot_ms=-0.00055, p99_tpot_ms=27.26)
    records, err = _ingested(capsys, tmp_path, "sglang_rate2.jsonl", text)
    line1 = next(r for r in records if r[R.SOURCE_LINE] == 1)
    assert line1[R.METRICS]["tpot_p50_ms"] == -0.00055 and R.INTERACTIVITY not in line1[R.METRICS]
    col = text.index('"median_tpot_ms"') + 1
    below = [line for line in err if "below 0" in line]
    assert below == [
        f"OUT:1:{col}: warning: median_tpot_ms: tpot below 0 (median_tpot_ms -0.00055 ms) (sweepgate's tpot_p50_ms); "
        f"stored as written; a time per token cannot be negative, but a client's timers can put a response's end "
        f"before its first token (SGLang reads the clock before it parses a chunk), by at most "
        f"{plausible.TIMER_SLACK_MS:g} ms: check how the client times them"], err
    assert len(err) == 2 and "warning: median_ttft_ms: ttft is above the end-to-end latency" in err[0], err


def test_a_vllm_itl_a_hair_below_zero_is_stored_with_a_warning(tmp_path, capsys):
    """The rule is the format's, not SGLang's: any client's TPOT or ITL statistic."""
    doc = json.loads(VLLM.read_text(encoding="utf-8"))
    doc["median_itl_ms"] = -0.0004
    records, err = _ingested(capsys, tmp_path, "out.json", json.dumps(doc, indent=1))
    assert records[0][R.METRICS]["itl_p50_ms"] == -0.0004
    assert len(err) == 1 and ": warning: median_itl_ms: itl below 0 (median_itl_ms -0.0004 ms)" in err[0], err


def test_an_aiperf_tpot_minimum_a_hair_below_zero_is_kept_as_its_percentiles_are(tmp_path, capsys):
    """A further statistic (min, p1, ...) of a TPOT is held to the same least as its median, not left out."""
    doc = json.loads(AIPERF.read_text(encoding="utf-8"))
    doc["inter_token_latency"].update(unit="ns", min=-200)  # -0.0002 ms, in the export's own unit
    records, err = _ingested(capsys, tmp_path, "profile_export_aiperf.json", json.dumps(doc, indent=1))
    assert abs(records[0][R.METRICS]["tpot_min_ms"] + 0.0002) < 1e-12
    (said,) = [line for line in err if "below 0" in line or "no latency" in line]
    assert ": warning: inter_token_latency.min: tpot below 0 (inter_token_latency.min -0.0002 ms) (sweepgate's " \
        "tpot_min_ms); stored as written;" in said, err


def test_a_clearly_negative_tpot_is_still_refused_saying_how_far_timers_go(tmp_path, capsys):
    text, _ = _dlora_line(median_tpot_ms=-5.0)
    made = tmp_path / "sglang_rate2.jsonl"
    made.write_text(text, encoding="utf-8")
    src, lines = refused_alone(capsys, tmp_path, made)
    col = text.index('"median_tpot_ms"') + 1
    assert [line.replace(str(src), "OUT") for line in lines] == [
        f"OUT:1:{col}: median_tpot_ms: negative (-5.0), below {-plausible.TIMER_SLACK_MS:g}, the least a client's "
        f"timers can write; a latency, count or throughput cannot be negative; the output is corrupt, rerun it"]


def test_one_slack_for_every_statistic_that_may_dip_below_zero():
    assert plausible.least("tpot_p50_ms") == plausible.least("itl_mean_ms") == -plausible.TIMER_SLACK_MS
    assert [plausible.least(n) for n in ("tpot_std_ms", "ttft_p50_ms", "e2el_mean_ms", R.OUTPUT_THROUGHPUT)] == [0] * 4
