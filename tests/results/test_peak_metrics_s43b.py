"""s43b: the run's busiest second, as vLLM's bench serve (0.10+) and SGLang's bench_serving (0.5.8+) write it
(``max_output_tokens_per_s``, ``max_concurrent_requests``), was read and dropped. It is stored as the file states
it (none where an older client wrote neither, never 0), shown by `results show`, and the peak output throughput is
compared; the peak concurrency is the load the client put on, shown and never judged.

And an SGLang line without ``total_throughput`` (bench_serving before it wrote one) had no total token throughput,
where AIPerf's export without one got its input plus output: both now take it from ``derive.total_token_throughput``,
only where both parts are there."""

from __future__ import annotations

import json
import sqlite3

import pytest

import synth
from helpers import ROOT, file_records, run_cli, show_json
from sweepgate.results import compare as C
from sweepgate.results import record as R
from sweepgate.results import store

REAL = ROOT / "tests" / "data" / "results-real"
VLLM_PEAKS = "vllm/vllmbench_gptoss120b_h100x8_tp4dp2_isl15000_c100.json"
SGLANG_PEAKS = "sglang/sglang0.5.9_kimik2.5_eagle3_tp16_2nodes_c8_trimmed.jsonl"
VLLM_OLD = "vllm/vllm0.8_openai_backend_rate10_and_conc2_arrays_trimmed.json"  # vLLM 0.8: neither key
SGLANG_OLD = "sglang/sglang0.5.5_qwen2.5-3b_tp1_c200_agg_trimmed.jsonl"  # 0.5.5: neither key
# bench_serving of May 2025: input and output throughput on each line, no total_throughput
SGLANG_NO_TOTAL = "sglang/sglang2025-05_qwen2.5-vl-3b_in512_out32_20prompts_c2_c32_c256_trimmed.jsonl"
PEAKS = {"max_output_tokens_per_s": R.MAX_OUTPUT_TOKENS_PER_S, "max_concurrent_requests": R.MAX_CONCURRENT_REQUESTS}


def file_runs(rel: str) -> list[dict]:
    """The runs of a real output as the client wrote them (a JSONL one a line)."""
    text = (REAL / rel).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()] if rel.endswith(".jsonl") \
        else [json.loads(text)]


def ingested(capsys, tmp_path, rel: str) -> list[dict]:
    """The records `results ingest` stored of ``rel`` in a new SQLite store, read from its rows by SQL, in
    the file's line order."""
    path = tmp_path / "r.db"
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{path}", str(REAL / rel))
    assert rc == 0, err
    with sqlite3.connect(path) as conn:
        records = [json.loads(text) for (text,) in conn.execute("SELECT record FROM results")]
    return sorted(records, key=lambda rec: rec[R.SOURCE_LINE])


@pytest.mark.parametrize("rel", [VLLM_PEAKS, SGLANG_PEAKS])
def test_a_real_run_s_busiest_second_is_stored_as_its_file_states_it(rel, capsys, tmp_path):
    (run,), (rec,) = file_runs(rel), ingested(capsys, tmp_path, rel)
    stored = {key: rec[R.METRICS].get(name) for key, name in PEAKS.items()}
    assert stored == {key: run[key] for key in PEAKS} and all(stored.values()), stored


@pytest.mark.parametrize("rel", [VLLM_OLD, SGLANG_OLD])
def test_an_older_client_s_run_stores_no_peak_not_zero(rel, capsys, tmp_path):
    assert not any(key in run for run in file_runs(rel) for key in PEAKS)  # the file has neither
    records = ingested(capsys, tmp_path, rel)
    assert records and not [rec for rec in records if set(PEAKS.values()) & rec[R.METRICS].keys()]


def shown(out: str) -> list[dict]:
    """`results show`'s table (a pipe gets it whole): each row as its header -> cell."""
    header = next([c.strip() for c in line.split("┃")[1:-1]] for line in out.splitlines() if line.startswith("┃"))
    return [dict(zip(header, (c.strip() for c in line.split("│")[1:-1]))) for line in out.splitlines()
            if line.startswith("│")]


def test_show_has_both_columns_only_where_a_run_has_them(capsys, tmp_path):
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(REAL / SGLANG_OLD))
    assert rc == 0, err
    rc, out, _ = run_cli(capsys, "results", "show", "--db", db)
    assert rc == 0 and "peak" not in out, out
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(REAL / SGLANG_PEAKS))
    assert rc == 0, err
    rc, out, _ = run_cli(capsys, "results", "show", "--db", db)
    assert rc == 0, out
    rows = {row["model"]: row for row in shown(out)}
    # the peak concurrency a count (12), not a figure (12.0); the older run's cells blank, not 0
    new, old = rows["/data2/data_shared/Kimi-K2.5_int4_2"], rows["Qwen/Qwen2.5-3B-Instruct"]
    assert (new["peak output tok/s"], new["peak conc"]) == ("685.0", "12"), new
    assert (old["peak output tok/s"], old["peak conc"]) == ("", ""), old


def test_peak_output_throughput_is_compared_and_peak_concurrency_never(capsys, tmp_path):
    """Main's busiest seconds held 680 to 690 tokens, the PR's 500: regressed, as a throughput that drops. Its peak
    concurrency halved and doubled beside it: no verdict, it is the load the client put on the server."""
    key = synth.KEYS[0]

    def run(name: str, peak: float, conc: int, **kw) -> dict:
        metrics = dict(synth.curve(8), **{R.MAX_OUTPUT_TOKENS_PER_S: peak, R.MAX_CONCURRENT_REQUESTS: conc})
        return synth.make(name, key, 8, metrics, **kw)

    main = [run(f"main-{i}", peak, 8 + i, day=i + 1) for i, peak in enumerate((685, 690, 680, 688, 683))]
    db = f"sqlite:///{tmp_path / 'r.db'}"
    with store.open_store(db) as st:
        st.add([*main, run("pr-1", 500, 16, ref="refs/pull/1/merge", day=28)])
    rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "pr-1", "--json", "--fail-on-regression")
    assert rc == 3, err
    rows = {p["metric"]: p for p in json.loads(out)["points"]}
    assert R.MAX_CONCURRENT_REQUESTS not in rows and set(rows) == {*synth.PLAIN_METRICS, R.MAX_OUTPUT_TOKENS_PER_S}
    peak = rows[R.MAX_OUTPUT_TOKENS_PER_S]
    assert (peak["verdict"], peak["head"], peak["baseline"]["n"], peak["baseline"]["median"]) == (
        C.REGRESSED, 500, 5, 685), peak
    assert {m: p["verdict"] for m, p in rows.items() if m != R.MAX_OUTPUT_TOKENS_PER_S} == dict.fromkeys(
        synth.PLAIN_METRICS, C.UNCHANGED)


@pytest.mark.parametrize("rel, newer", [(VLLM_PEAKS, tuple(PEAKS.values())), (SGLANG_PEAKS, tuple(PEAKS.values())),
                                        (SGLANG_NO_TOTAL, (R.TOTAL_TOKEN_THROUGHPUT,))])
def test_a_result_stored_before_is_unchanged_by_a_second_ingest(rel, newer, capsys, tmp_path):
    """Rows an older sweepgate stored (their records without the peaks, or an SGLang line's without the total it
    now gets; no column holds them, so the store's schema and revision are as they were) take the same output
    again as a no-op, not a changed immutable result."""
    path = tmp_path / "r.db"
    db = f"sqlite:///{path}"
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(REAL / rel))
    assert rc == 0, err
    with sqlite3.connect(path) as conn:  # as the sweepgate before this one stored them
        rows = conn.execute("SELECT id, record FROM results").fetchall()
        for row_id, text in rows:
            rec = json.loads(text)
            assert set(newer) <= rec[R.METRICS].keys()
            rec[R.METRICS] = {k: v for k, v in rec[R.METRICS].items() if k not in newer}
            conn.execute("UPDATE results SET record = ? WHERE id = ?", (json.dumps(rec), row_id))
        before = conn.execute("SELECT * FROM results").fetchall()
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(REAL / rel))
    assert rc == 0 and out.splitlines()[-1] == f"ingested {len(rows)} results (0 new) into {db}", (out, err)
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT * FROM results").fetchall() == before


def test_main_runs_stored_before_the_peaks_leave_the_pr_s_peak_insufficient_data_not_new():
    """Main measured the point 5 times before its records held a peak: the PR's peak has no baseline value, so
    it is insufficient-data with n 0 (as accept_length on runs older than it), the point's other metrics judged."""
    key = synth.KEYS[0]
    main = [synth.make(f"main-{i}", key, 8, synth.curve(8), day=i + 1) for i in range(5)]
    pr = synth.make("pr-1", key, 8, dict(synth.curve(8), **{R.MAX_OUTPUT_TOKENS_PER_S: 685,
                                                            R.MAX_CONCURRENT_REQUESTS: 12}),
                    ref="refs/pull/1/merge", day=28)
    got = {v.metric: v for v in C.compare_records([pr], main, run="pr-1").verdicts}
    peak = got[R.MAX_OUTPUT_TOKENS_PER_S]
    assert (peak.verdict, peak.n, peak.median, peak.head) == (C.INSUFFICIENT, 0, None, 685), peak
    assert set(got) == {*synth.PLAIN_METRICS, R.MAX_OUTPUT_TOKENS_PER_S}


def test_an_sglang_line_without_total_throughput_gets_its_input_plus_output(capsys, tmp_path):
    runs, records = file_runs(SGLANG_NO_TOTAL), ingested(capsys, tmp_path, SGLANG_NO_TOTAL)
    assert len(runs) == len(records) == 3 and not any("total_throughput" in run for run in runs)
    for run, rec in zip(runs, records):
        assert rec[R.METRICS][R.TOTAL_TOKEN_THROUGHPUT] == run["input_throughput"] + run["output_throughput"]


def test_an_sglang_line_with_its_own_total_keeps_it(capsys, tmp_path):
    ((run,), (rec,)) = file_runs(SGLANG_PEAKS), ingested(capsys, tmp_path, SGLANG_PEAKS)
    assert rec[R.METRICS][R.TOTAL_TOKEN_THROUGHPUT] == run["total_throughput"]


def test_no_total_is_made_up_where_the_input_throughput_is_unknown(tmp_path):
    """A copy of the real line without its input throughput nor the duration it could be had from: no total."""
    (run, *_) = file_runs(SGLANG_NO_TOTAL)
    doc = {k: v for k, v in run.items() if k not in ("input_throughput", "duration")}
    (tmp_path / "line.jsonl").write_text(json.dumps(doc) + "\n", encoding="utf-8")
    (rec,) = file_records(tmp_path, "line.jsonl")
    assert R.INPUT_THROUGHPUT not in rec[R.METRICS] and R.TOTAL_TOKEN_THROUGHPUT not in rec[R.METRICS]
    assert rec[R.METRICS][R.OUTPUT_THROUGHPUT] == run["output_throughput"]


def test_show_json_gives_the_records_as_stored(capsys, tmp_path):
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(REAL / VLLM_PEAKS))
    assert rc == 0, err
    ((rec,), (run,)) = show_json(capsys, db), file_runs(VLLM_PEAKS)
    assert rec[R.METRICS][R.MAX_OUTPUT_TOKENS_PER_S] == run["max_output_tokens_per_s"] == 5201.0
    assert rec[R.METRICS][R.MAX_CONCURRENT_REQUESTS] == run["max_concurrent_requests"] == 100


def test_a_peak_concurrency_that_is_no_whole_number_of_requests_is_refused(capsys, tmp_path):
    """A copy of the real line with its peak concurrency edited to 12.5: requests are counted whole, so the output is
    corrupt; refused in one line, nothing stored."""
    (run,) = file_runs(SGLANG_PEAKS)
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({**run, "max_concurrent_requests": 12.5}) + "\n", encoding="utf-8")
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(bad))
    (line,) = err.splitlines()
    assert rc == 1 and "nothing stored" in out, out
    assert line.startswith(f"{bad}:1:") and "max_concurrent_requests: 12.5 is not a whole number" in line, line
