"""s36e hunt: more real outputs (tests/data/results-real/SOURCES.tsv, "s36e hunt"), each read right or
refused by what it is; figures checked by hand against the files.

A run whose concurrency cap is above the requests it sent never filled it: SGLang's bench_serving swept
--max-concurrency 2 to 256 over 20 prompts of a VLM (coco-alen/vlm_quant_eval), and its caps of 32 and 256
stored as two points of their own, without a word, though both sent every request at once (the server's
own average concurrency, 19.0 and 19.3). Such a run is stored as written, with a warning at its cap."""

from __future__ import annotations

import pytest

from helpers import ROOT, file_records, no_ref_said, run_cli
from sweepgate.results import record as R

REAL = ROOT / "tests" / "data" / "results-real"
VLM_SWEEP = "sglang/sglang2025-05_qwen2.5-vl-3b_in512_out32_20prompts_c2_c32_c256_trimmed.jsonl"
RANDOM_IDS = "sglang/sglang_random-ids_c185_80prompts_jsonl_named_json_first3_trimmed.json"


def _ingest(capsys, tmp_path, rel: str) -> tuple[int, str, str]:
    return run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(REAL / rel))


def test_a_concurrency_cap_above_the_requests_sent_is_warned_of_at_its_cap(capsys, tmp_path):
    rc, out, err = _ingest(capsys, tmp_path, VLM_SWEEP)
    assert rc == 0 and "ingested 3 results (3 new)" in out, (out, err)
    path = REAL / VLM_SWEEP
    hint = ("send at least as many requests as the cap (--num-prompts; InferenceX sends ten per unit of "
            "concurrency) and rerun the point")
    assert no_ref_said(err).splitlines() == [
        f"{path}:{line}:{col}: warning: max_concurrency: a cap of {conc} requests in flight, but the run sent 20 "
        "(20 completed, none said to have failed): it never held more than 20 at once, so its figures are a "
        f"lower concurrency's than its point's; stored as written; {hint}"
        for line, col, conc in ((2, 75, 32), (3, 75, 256))], err


def test_a_cap_the_requests_fill_is_not_warned_of(capsys, tmp_path):
    """The sweep's first line (cap 2, 20 requests), and the last lines of other real runs at their caps."""
    lines = (REAL / VLM_SWEEP).read_text().splitlines()
    one = tmp_path / "c2.jsonl"
    one.write_text(lines[0] + "\n")
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(one))
    assert (rc, no_ref_said(err)) == (0, "")
    # 200 prompts at a cap of 200 (TonyLi15/sglang-benchmark); 4 prompts at 4, 2 of them failed (vllm bench serve)
    for rel in ("sglang/sglang0.5.5_qwen2.5-3b_tp1_c200_agg_trimmed.jsonl",
                "vllm/vllmbench2026_glm5.2_dcp4_isl399744_c4_2of4_failed_specdecode_arrays_trimmed.json"):
        rc, _, err = _ingest(capsys, tmp_path, rel)
        assert rc == 0 and "max_concurrency" not in err, (rel, err)


def test_the_vlm_sweep_s_lines_are_read_as_written():
    recs = file_records(REAL, VLM_SWEEP)
    assert [(r[R.CONC], r[R.ISL], r[R.OSL], r[R.REQUEST_RATE]) for r in recs] == [
        (2, 512, 32, "inf"), (32, 512, 32, "inf"), (256, 512, 32, "inf")]
    m = recs[2][R.METRICS]
    assert (m[R.COMPLETED], m[R.TOTAL_OUTPUT_TOKENS], m["ttft_p50_ms"], m["itl_p95_ms"]) == (
        20, 640, 253.31538391765207, 9.661935339681866)


def test_sglang_lines_in_a_file_named_json_are_read_by_their_format():
    """bench_serving's JSONL appended to a file named benchmark_results.json (thmyl/vllm's script), dataset
    random-ids (random token ids at the requested lengths): three runs, each its own lengths."""
    recs = file_records(REAL, RANDOM_IDS)
    assert [(r[R.CONC], r[R.ISL], r[R.OSL], r[R.SOURCE_FORMAT]) for r in recs] == [
        (185, 200, 200, "sglang-bench-serving"), (185, 200, 3000, "sglang-bench-serving"),
        (185, 1000, 3000, "sglang-bench-serving")]
    m = recs[1][R.METRICS]
    assert (m[R.COMPLETED], m[R.TOTAL_OUTPUT_TOKENS], m["ttft_p90_ms"], m["e2el_p50_ms"]) == (
        80, 227184, 895.1958440244204, 95264.50728718191)
    assert m[R.OUTPUT_THROUGHPUT] == pytest.approx(1272.3776393727833)


def test_an_lm_eval_fork_s_retrieval_metrics_are_scores_of_their_own_names():
    """lm-eval 0.4.9 in a fork with its own tasks (araag2/lm-evaluation-harness): P@10, R-Prec, MAP and nDCG,
    names with '@', '-' and capitals, their stderrs "N/A" beside acc's number, under a group with no score."""
    (rec,) = file_records(REAL, "lm_eval/lmeval0.4.9_fork_trec_cds_qwen3-8b_vllm_p10_rprec_map_ndcg_na_stderr_group_trimmed.json")
    assert (rec[R.MODEL], rec[R.CLIENT_VERSION], len(rec[R.EVALS])) == ("unsloth/Qwen3-8B", "0.4.9", 15)
    got = {(e[R.EVAL_TASK], e[R.EVAL_METRIC]): (e[R.EVAL_VALUE], e[R.EVAL_STDERR], e[R.EVAL_SAMPLES], e[R.EVAL_HIGHER])
           for e in rec[R.EVALS]}
    assert got["TREC_CDS_2015_0-shot", "P@10"] == (0.7955555555555557, None, 9976, True)
    assert got["TREC_CDS_2016_0-shot", "R-Prec"] == (0.691926339771816, None, 6684, True)
    assert got["TREC_CDS_2014_0-shot", "acc"] == (0.5687034277198212, 0.0060464717802740185, 6710, True)
    assert not any(task == "TREC_CDS_0-shot" for task, _ in got)
    # start_time/end_time are a monotonic clock; the date (Unix) and the evaluation's length place it
    assert (rec[R.STARTED], rec[R.FINISHED]) == ("2025-10-17T21:28:09+00:00", "2025-10-17T22:58:26+00:00")


GPQA_LORA = "lm_eval/lmeval2024-09_gpqa_main_peft_lora_on_hub_cache_gptq_base_chat_template_trimmed.json"
LORA = "/data/user_data/wenkail/llm_personality/align/70b_gptq_lora_dpo_1e-5/llama3_70b_gptq/checkpoint-2025"


def test_an_adapter_on_a_hub_cache_base_is_shown_with_its_adapter(capsys, tmp_path, monkeypatch):
    """lm-eval of a LoRA (peft=...) on a base model loaded from a Hugging Face cache folder (wenkai-li/
    llm_personality): stored as "<cache folder> with adapter <LoRA>", but `results show` (and a report's
    point label) shortened the whole of it to the base's ORG/NAME, so the adapter's scores read as the base
    model's, what hunt 8 fixed in the store. The cache folder is shortened, the adapter kept."""
    (rec,) = file_records(REAL, GPQA_LORA)
    assert rec[R.MODEL] == ("/compute/babel-8-11/jiaruil5/.cache/models--TechxGenus--Meta-Llama-3-70B-Instruct-GPTQ/"
                            f"snapshots/e147aa8799dd05d5077f60c79be0d972b002b3ac/ with adapter {LORA}")
    monkeypatch.setenv("COLUMNS", "400")
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, out, err = _ingest(capsys, tmp_path, GPQA_LORA)
    assert rc == 0 and no_ref_said(err) == "", err
    rc, out, _ = run_cli(capsys, "results", "show", "--db", db)
    assert rc == 0 and f"│ TechxGenus/Meta-Llama-3-70B-Instruct-GPTQ with adapter {LORA} │" in out, out


def test_a_base_model_from_a_hub_cache_is_still_shown_as_its_repository():
    from sweepgate.results import show

    assert show.model_cell("/models/models--openai--gpt-oss-120b/snapshots/b5c9/") == "openai/gpt-oss-120b"
    assert show.model_cell("meta-llama/Meta-Llama-3-8B-Instruct with adapter ../lora/epoch_5") == (
        "meta-llama/Meta-Llama-3-8B-Instruct with adapter ../lora/epoch_5")


def test_a_digest_in_vllm_key_names_without_duration_or_token_totals_is_refused(capsys, tmp_path):
    """An InferenceX fork kept a PD-disaggregated run as a digest in vllm bench serve's key names (whn09/
    InferenceX): completed, output_throughput and three means, no duration, token totals or request rate.
    It was stored as a vLLM run; every vllm bench serve output holds duration and its token totals (every
    real one here does), so it is another script's summary, refused as SGLang's are."""
    from helpers import refused_alone

    src, lines = refused_alone(capsys, tmp_path,
                               REAL / "other/vllm-keys_digest_kimik2.5_h200_pd_disagg_c8_means_only_no_duration.json")
    assert lines == [
        f"{src}:1:1: format: a serving summary in vLLM bench serve's key names without duration, total_input_tokens "
        "or total_output_tokens (every bench serve output holds duration, total_input_tokens and "
        "total_output_tokens): another script's output, its figures no bench serve run's; ingest the "
        "vllm bench serve --save-result JSON of the run (the job's $RESULT_FILENAME.json)"]
