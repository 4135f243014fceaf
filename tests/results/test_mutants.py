"""Real outputs with one value made wrong (a type-mutation fuzz of ingest found each): refused in
one line, or stored with what the file can stand for, never an internal error or a figure it
cannot be (a fractional count, a 1970 start, a percentile of `true`)."""

from __future__ import annotations

import json
import math

import pytest

from helpers import ROOT, run_cli, show_json

DATA = ROOT / "tests" / "data"
AIPERF = DATA / "results-real/aiperf/aiperf0.11_qwen3-4b_g7_conc16_trimmed.json"
GENAI = DATA / "results-real/aiperf/genaiperf_nim-llama3-8b_trtllm_isl200_osl50_conc50.json"
IFX = DATA / "results-samples/vllm/ifx_benchserving_kimik2.5_int4_mi355x_tp8_mtp_1k1k_conc4.json"
VLLM_ARRAYS = DATA / "results-real/vllm/vllm0.5-fork_lambdalabs_llama3.1-8b_latency_ms.json"
SGLANG = DATA / "results-real/sglang/sglang0.5.6_qwen2.5-3b_pd_1p2d_c64_trimmed.jsonl"
SGLANG_INF = DATA / "results-real/sglang/sglang_2024-12_deepseek_dp_mla_rateinf.jsonl"
LM_EVAL = DATA / "results-real/lm_eval/lmeval0.4.13_gsm8k_platinum_gemma4-26b_trimmed.json"


def _set(doc: dict, path: tuple, value) -> None:
    for key in path[:-1]:
        doc = doc[key]
    doc[path[-1]] = value


def mutant(tmp_path, source, path: tuple, value):
    """``source`` with ``path`` set to ``value`` (JSONL: in its first line), written under tmp_path."""
    lines = source.read_text(encoding="utf-8").splitlines()
    docs = [json.loads(line) for line in lines if line.strip()] if source.suffix == ".jsonl" else [json.loads("\n".join(lines))]
    _set(docs[0], path, value)
    out = tmp_path / source.name
    text = "\n".join(json.dumps(d) for d in docs) if source.suffix == ".jsonl" else json.dumps(docs[0])
    out.write_text(text + "\n", encoding="utf-8")
    return out


def ingest(capsys, tmp_path, path):
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(path))
    assert "internal error" not in err and "Traceback" not in err, err
    return rc, err, db


REFUSED = [  # (file, path, value, what the one line says)
    # New-user check: 500 completed of 100 sent was stored, a success rate of 1.
    (IFX, ("completed",), 10_000, "completed: 10000 requests completed of the"),
    (AIPERF, ("request_latency", "unit"), 7, "request_latency.unit: 7 is not a time unit"),
    (AIPERF, ("request_count",), -1, "request_count: expected a metric object ({unit, avg, ...}), got -1"),
    (AIPERF, ("request_latency",), "x", "request_latency: expected a metric object"),
    (AIPERF, ("benchmark_duration", "unit"), "x", "benchmark_duration.unit: 'x' is not a time unit"),
    (IFX, ("completed",), 1.5, "completed: 1.5 is not a whole number"),
    (SGLANG_INF, ("total_input_tokens",), 1.5, "total_input_tokens: 1.5 is not a whole number"),
    (IFX, ("total_token_throughput",), 7, "total_token_throughput: 7 is below output_throughput"),
    (VLLM_ARRAYS, ("ttfts", 0), True, "ttfts[0]: expected seconds (a number >= 0), got True"),
    (VLLM_ARRAYS, ("ttfts", 0), -1, "ttfts[0]: expected seconds (a number >= 0), got -1"),
    (SGLANG, ("max_concurrency",), "x", "max_concurrency: expected an integer or null, got 'x'"),
    (SGLANG, ("random_input_len",), 1.5, "random_input_len: expected a whole number of tokens (1 or more)"),
    (SGLANG, ("random_output_len",), 0, "random_output_len: expected a whole number of tokens (1 or more), got 0"),
]


@pytest.mark.parametrize("source, path, value, said", REFUSED, ids=lambda x: str(x)[-40:])
def test_a_wrong_value_is_refused_in_one_line(tmp_path, capsys, source, path, value, said):
    rc, err, _ = ingest(capsys, tmp_path, mutant(tmp_path, source, path, value))
    (line,) = err.splitlines()
    assert rc == 1 and said in line, line


def test_a_value_quoted_in_a_refusal_is_cut_to_a_readable_line(tmp_path, capsys, monkeypatch):
    rc, err, _ = ingest(capsys, tmp_path, mutant(tmp_path, IFX, ("request_rate",), "L" * 20_000))
    (line,) = err.splitlines()
    assert rc == 1 and len(line) < 1_000 and "characters left out" in line, len(line)
    # Its annotation too (changelog review: a 2,689,002-character ::error line beside a 657-character one).
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    rc, err, _ = ingest(capsys, tmp_path, mutant(tmp_path, IFX, ("request_rate",), "L" * 20_000))
    (line, annotation) = err.splitlines()
    # at no file=: the file is outside the repository the tests run in (errors.workspace_path)
    assert annotation.startswith("::error") and len(annotation) < 1_000, len(annotation)
    assert "characters left out" in annotation


STORED = [  # (file, path, value, field of the stored record, what it holds)
    (AIPERF, ("start_time",), 7, "started", None),
    (AIPERF, ("start_time",), "x", "started", None),
    (GENAI, ("input_config", "output_tokens_mean"), math.inf, "osl", None),
    (GENAI, ("input_config", "synthetic_input_tokens_mean"), math.nan, "isl", None),
    (IFX, ("request_rate",), 0, "request-rate", None),
    (IFX, ("model_id",), "", "model", None),
    (LM_EVAL, ("date",), -1, "started", None),
    (LM_EVAL, ("total_evaluation_time_seconds",), True, "finished", None),
]


@pytest.mark.parametrize("source, path, value, field, held", STORED, ids=lambda x: str(x)[-40:])
def test_a_wrong_value_a_result_can_do_without_is_stored_as_unknown(tmp_path, capsys, source, path, value, field,
                                                                    held):
    rc, err, db = ingest(capsys, tmp_path, mutant(tmp_path, source, path, value))
    assert rc == 0, err
    (rec,) = show_json(capsys, db)
    assert rec[field] == held, rec[field]


def test_a_failed_requests_zero_ttft_is_left_out_of_the_percentile(tmp_path, capsys):
    """vLLM keeps 0 s as a failed request's TTFT in `ttfts` (its `errors` entry says why); its own
    percentiles leave failed requests out, and so does the p90 read from the arrays."""
    doc = json.loads(VLLM_ARRAYS.read_text(encoding="utf-8"))
    n = len(doc["ttfts"])
    kept = sorted(doc["ttfts"])
    assert n >= 10 and "p90_ttft_ms" not in doc
    doc["ttfts"] = [0.0] * 5 + doc["ttfts"]
    doc["itls"] = [[] for _ in range(5)] + doc["itls"]
    doc["errors"] = ["timeout"] * 5 + [""] * n
    (tmp_path / "in.json").write_text(json.dumps(doc), encoding="utf-8")
    rc, err, db = ingest(capsys, tmp_path, tmp_path / "in.json")
    assert rc == 0, err
    (rec,) = show_json(capsys, db)
    import statistics

    want = statistics.quantiles(kept, n=100, method="inclusive")[89] * 1000
    assert rec["metrics"]["ttft_p90_ms"] == pytest.approx(want)


def test_a_bad_row_value_is_blamed_on_the_sidecar_not_the_output(tmp_path, capsys):
    """Fuzz: a sidecar whose row.image is 7 was refused as the output's `image`, a field the output
    never has; the sidecar and its row were not named."""
    from helpers import ROW, job, vllm_output, write_job

    write_job(tmp_path / "run", "res", vllm_output(), job(row=dict(ROW, image=7)))
    rc, err, _ = ingest(capsys, tmp_path, tmp_path / "run")
    (line,) = err.splitlines()
    # the row check every row passes (core.jobenv.check_row) says it, at the sidecar's row.image
    side = tmp_path / "run" / "res.job.json"
    col = side.read_text(encoding="utf-8").index('"image"') + 1
    assert rc == 1 and line.startswith(f"{side}:1:{col}: row's image 7 is not text"), line


def test_a_bad_inter_token_gap_is_named_where_the_file_has_it(tmp_path, capsys):
    """Diff read: the index named was the one in the flattened list of successful requests' gaps."""
    doc = json.loads(VLLM_ARRAYS.read_text(encoding="utf-8"))
    assert isinstance(doc["itls"][3], list) and len(doc["itls"][3]) > 2 and "p90_itl_ms" not in doc
    doc["itls"][3][2] = -1
    (tmp_path / "in.json").write_text(json.dumps(doc), encoding="utf-8")
    rc, err, _ = ingest(capsys, tmp_path, tmp_path / "in.json")
    (line,) = err.splitlines()
    assert rc == 1 and "itls[3][2]: expected seconds (a number >= 0), got -1" in line, line


def test_many_per_request_times_are_checked_as_one_array_and_the_first_bad_one_named(tmp_path, capsys):
    """A run's per-token gaps are millions, checked as one array (a Python call a time, each writing its
    place, took 15 s for 8 million): the first bad one is still named at the file's place, past a request
    whose gaps are no list."""
    doc = json.loads(VLLM_ARRAYS.read_text(encoding="utf-8"))
    doc["itls"] = [[0.01] * 50 for _ in range(200)]
    doc["itls"][7] = None
    doc["itls"][150][49] = float("nan")
    doc["errors"] = [""] * len(doc["itls"])
    doc["ttfts"] = [0.1] * len(doc["itls"])
    (tmp_path / "in.json").write_text(json.dumps(doc), encoding="utf-8")
    rc, err, _ = ingest(capsys, tmp_path, tmp_path / "in.json")
    (line,) = err.splitlines()
    assert rc == 1 and "itls[150][49]: expected seconds (a number >= 0), got nan" in line, line
