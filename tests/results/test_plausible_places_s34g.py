"""s34g: where a refusal of figures that cannot all be true stands, and what it names (``results/plausible.py``).

Such a refusal stood at the file's first character (``:1:1``) and named sweepgate's metrics (``ttft_p50_ms``),
which no client writes: a maintainer could not find the figure. It names the client's own key
(``median_ttft_ms``, AIPerf's ``time_to_first_token.avg``, an AIPerf CSV's ``Inter Token Latency (ms).p95``),
sweepgate's in brackets, and stands at that key's line and column (a CSV's row), as every other refusal of a
value does (``jsonio.place``).

Hand-made variants of real files (tests/data/results-samples, results-real), ingested through the CLI.
"""

from __future__ import annotations

import json

from helpers import ROOT, SAMPLES, refused_alone, run_cli

from sweepgate.results import plausible

REAL = ROOT / "tests" / "data" / "results-real"
VLLM = SAMPLES / "vllm" / "vllmbench0.1x_qwen3-32b_h200x8_tp8_isl1024_osl128_c100.json"
AIPERF = REAL / "aiperf" / "aiperf0.11_qwen3-4b_g7_conc16_trimmed.json"
AIPERF_CSV = REAL / "aiperf" / "aiperf0.11_qwen3-4b_g7_conc16.csv"
SGLANG = SAMPLES / "sglang" / "sglang0.5.5_qwen2.5-3b_1gpu_in128_out128_c8.jsonl"
CORRUPT = plausible.CORRUPT


def _made(tmp_path, name: str, text: str):
    made = tmp_path / "made" / name
    made.parent.mkdir(exist_ok=True)
    made.write_text(text, encoding="utf-8")
    return made


def _refused(capsys, tmp_path, made) -> str:
    src, lines = refused_alone(capsys, tmp_path, made)
    (line,) = lines
    return line.replace(str(src), "OUT")


def _place(text: str, needle: str, start: int = 0) -> str:
    """``line:col`` of ``needle`` in ``text`` (after ``start``), 1-based."""
    at = text.index(needle, start)
    return f"{text.count(chr(10), 0, at) + 1}:{at - text.rfind(chr(10), 0, at)}"


def test_a_vllm_p99_below_its_median_stands_at_the_clients_key(tmp_path, capsys):
    doc = json.loads(VLLM.read_text(encoding="utf-8"))
    doc["p99_ttft_ms"] = 1000.0
    text = json.dumps(doc, indent=1)
    line = _refused(capsys, tmp_path, _made(tmp_path, "out.json", text))
    at = _place(text, '"median_ttft_ms"')
    assert line == (f"OUT:{at}: median_ttft_ms: 1230.81 ms is above p99_ttft_ms "
                    f"(1000 ms), a higher percentile of the same requests, which cannot be lower (sweepgate's "
                    f"ttft_p50_ms, ttft_p99_ms); {CORRUPT}")
    assert not line.startswith("OUT:1:1:")


def test_an_aiperf_mean_above_its_max_stands_at_its_avg(tmp_path, capsys):
    doc = json.loads(AIPERF.read_text(encoding="utf-8"))
    doc["time_to_first_token"]["avg"] = 90.0
    text = json.dumps(doc, indent=1)
    line = _refused(capsys, tmp_path, _made(tmp_path, "profile_export_aiperf.json", text))
    at = _place(text, '"avg"', text.index('"time_to_first_token"'))
    assert line == (f"OUT:{at}: time_to_first_token.avg: 90 ms is outside time_to_first_token.min.."
                    f"time_to_first_token.max (22.0868..85.4143 ms); a mean lies between its extremes (sweepgate's "
                    f"ttft_mean_ms, ttft_min_ms, ttft_max_ms); {CORRUPT}")


def test_an_aiperf_rate_beyond_its_requests_names_the_exports_keys(tmp_path, capsys):
    doc = json.loads(AIPERF.read_text(encoding="utf-8"))
    doc["request_throughput"]["avg"] *= 10
    text = json.dumps(doc, indent=1)
    line = _refused(capsys, tmp_path, _made(tmp_path, "profile_export_aiperf.json", text))
    at = _place(text, '"avg"', text.index('"request_throughput"'))
    assert line.startswith(f"OUT:{at}: request_throughput.avg: ") and " s (benchmark_duration.avg) is " in line, line


def test_an_aiperf_csv_percentile_out_of_order_stands_at_its_row(tmp_path, capsys):
    rows = AIPERF_CSV.read_text(encoding="utf-8").splitlines()
    n = next(i for i, row in enumerate(rows) if row.startswith("Inter Token Latency (ms),"))
    cells = rows[n].split(",")
    cells[12] = "19.68"  # p95, above the p99 (9.84)
    rows[n] = ",".join(cells)
    line = _refused(capsys, tmp_path, _made(tmp_path, "profile_export_aiperf.csv", "\n".join(rows) + "\n"))
    assert line == (f"OUT:{n + 1}:{len(','.join(cells[:12])) + 2}: Inter Token Latency (ms).p95: 19.68 ms is above Inter Token Latency (ms).p99 "
                    f"(9.84 ms), a higher percentile of the same requests, which cannot be lower (sweepgate's "
                    f"tpot_p95_ms, tpot_p99_ms); {CORRUPT}")


def test_an_sglang_lines_refusal_stands_at_its_key_on_its_line(tmp_path, capsys):
    first = SGLANG.read_text(encoding="utf-8").splitlines()[0]
    second = json.loads(first)
    second["p99_tpot_ms"] = 4.0  # below its median, 5.10 ms
    text = first + "\n" + json.dumps(second) + "\n"
    line = _refused(capsys, tmp_path, _made(tmp_path, "c8.jsonl", text))
    at = _place(text, '"median_tpot_ms"', len(first))
    assert line == (f"OUT:{at}: median_tpot_ms: 5.0977 ms is above "
                    f"p99_tpot_ms (4 ms), a higher percentile of the same requests, which cannot be lower "
                    f"(sweepgate's tpot_p50_ms, tpot_p99_ms); {CORRUPT}")
    assert line.startswith("OUT:2:")


def test_an_aiperf_csv_latency_above_e2e_is_warned_of_at_its_row(tmp_path, capsys):
    """A warning of figures stands where a refusal of them would: a CSV export's at its row, not its first line."""
    rows = AIPERF_CSV.read_text(encoding="utf-8").splitlines()
    n = next(i for i, row in enumerate(rows) if row.startswith("Inter Token Latency (ms),"))
    cells = rows[n].split(",")
    cells = cells[:1] + [f"{float(c) * 1000:.2f}" for c in cells[1:]]  # every figure in us, as if ms
    rows[n] = ",".join(cells)
    col = len(",".join(cells[:rows[0].split(",").index("max")])) + 2  # s35a: at its cell, not its row alone
    made = _made(tmp_path, "profile_export_aiperf.csv", "\n".join(rows) + "\n")
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(made))
    assert rc == 0, err
    above = [line.replace(str(made), "OUT") for line in err.splitlines() if "end-to-end" in line]
    assert len(above) == 1 and above[0].startswith(f"OUT:{n + 1}:{col}: warning: Inter Token Latency (ms).max: tpot is "
                                                   "above the end-to-end latency (e2el) at max 11860 > 10145.2 ms, "
                                                   "mean 8780 > 2334.77 ms"), err
