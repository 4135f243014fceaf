"""What an InferenceX eval job leaves beside its scores (``stage_eval_artifacts`` in InferenceX's
benchmarks/benchmark_lib.sh copies ``meta_env.json``, ``results*.json``, ``*_report.json``,
``*_results.jsonl``, ``predictions.jsonl``, ``agent_preds.json``, ``swebench_report_*.json``): in a
folder without job sidecars each side file was "unknown JSON output" and exit 1. They are passed
over by their content, one line on stdout; the scores (lm-eval's results, the eval adapters'
``inferencex-eval-v1`` projections) are stored. The shapes are those InferenceX's utils/evals/*_eval.py,
swebench_score.py and benchmark_lib.sh's ``_write_lm_eval_meta_json`` write (and read)."""

from __future__ import annotations

import json

from helpers import no_ref_said, run_cli

NOTE = ("an eval left beside its scores (InferenceX's meta_env.json, eval adapters' native reports and per-case "
        "logs, SWE-bench predictions; the scores are in its results JSON)")

META_ENV = {"is_multinode": False, "framework": "vllm", "precision": "fp4", "spec_decoding": "none",
            "eval_suite": "kimi_vendor", "recipe_fingerprint": "ab" * 32, "tp": 8, "pp": 1, "dcp_size": 1,
            "pcp_size": 1, "conc": 16, "ep": 1, "dp_attention": False, "prefill_tp": 8, "prefill_pp": 1,
            "prefill_dcp_size": 1, "prefill_pcp_size": 1, "prefill_ep": 1, "prefill_dp_attention": False,
            "prefill_num_workers": 1, "decode_tp": 8, "decode_pp": 1, "decode_dcp_size": 1, "decode_pcp_size": 1,
            "decode_ep": 1, "decode_dp_attention": False, "decode_num_workers": 1, "model": "moonshotai/Kimi-K2.6",
            "infmax_model_prefix": "kimik2.6", "hw": "b300", "isl": "1024", "osl": "1024"}


def adapter_result(adapter: str, task: str, score: float, n: int, metric: str = "exact_match,strict-match") -> dict:
    name, flt = metric.split(",")
    return {"result_format": "inferencex-eval-v1", "eval_adapter": adapter, "model_name": "moonshotai/Kimi-K2.6",
            "results": {task: {metric: score, f"{name}_stderr,{flt}": 0.0}},
            "configs": {task: {"metric_list": [{"metric": name}], "filter_list": [{"name": flt}]}},
            "n-samples": {task: {"original": n, "effective": n}}}


PREDICTION = {"instance_id": "astropy__astropy-12907", "model_name_or_path": "moonshotai/Kimi-K2.6",
              "model_patch": "diff --git a/x.py b/x.py\n"}
SIDE_FILES = {
    "meta_env.json": META_ENV,
    # the Kimi Vendor Verifier's --tool-json-report, as kimi_vendor_eval.py reads it
    "kimi_vendor_report.json": {"summary": {"total": 2, "by_status": {"passed": 2}},
                                "results": [{"mode": "non-stream", "status": "passed"},
                                            {"mode": "stream", "status": "passed"}]},
    # minimax_provider_eval.py's own native report (trimmed of its per-case results)
    "minimax_vendor_report.json": {"verifier": "minimax-provider-verifier", "task": "minimax_m3_smoke",
                                   "model": "MiniMaxAI/MiniMax-M3", "endpoint": "http://127.0.0.1:8000/v1/chat/completions",
                                   "completed": True, "threshold": 1.0, "summary": {"total": 3, "passed_count": 3},
                                   "metrics": {"Query-Success-Rate": 1.0}, "results": []},
    "bfcl_report.json": {"verifier": "bfcl-v4-openai-completions", "task": "bfcl_smoke", "model": "moonshotai/Kimi-K2.6",
                         "endpoint": "http://127.0.0.1:8000/v1", "completed": True, "passed": True, "threshold": 0.75,
                         "summary": {"accuracy": 1.0, "correct_count": 4, "total_count": 4, "expected_count": 4}},
    # the MiniMax verifier's own summary and per-case log (minimax_m3_full_eval.py)
    "full/minimax_vendor_report.json": {"model": "MiniMaxAI/MiniMax-M3", "success_count": 102, "failure_count": 0,
                                        "tool_calls_match_rate": 0.97},
    "full/minimax_vendor_results.jsonl": "".join(json.dumps({"data_index": n, "status": "success"}) + "\n"
                                                 for n in (1, 2)),
    "failed/minimax_vendor_results.jsonl": json.dumps({"status": "integration_error", "model": "MiniMaxAI/MiniMax-M3",
                                                       "error": {"type": "FullSuiteError", "message": "x"}}) + "\n",
    "swebench/predictions.jsonl": json.dumps(PREDICTION) + "\n",
    "swebench/agent_preds.json": {PREDICTION["instance_id"]: PREDICTION},
    "swebench/swebench_report_eval.json": {"total_instances": 300, "submitted_instances": 300,
                                           "completed_instances": 290, "resolved_instances": 120,
                                           "resolved_ids": ["astropy__astropy-12907"], "schema_version": 2},
}
RESULTS = {
    "results_kimi_vendor_2026-08-01T10-00-00.000000.json": adapter_result("kimi-vendor-verifier",
                                                                          "kimi_tool_call_schema", 1.0, 2),
    "results_minimax_vendor_2026-08-01T10-00-00.000000.json": adapter_result("minimax-provider-verifier",
                                                                             "minimax_m3_smoke", 1.0, 3),
    "results_bfcl.json": adapter_result("bfcl-v4-openai-completions", "bfcl_smoke", 1.0, 4, "acc,none"),
    "full/results_minimax_vendor_full_2026-08-01T10-00-00.000000.json": adapter_result(
        "minimax-provider-verifier", "minimax_m3_full", 0.97, 102),
}


def write(folder, files: dict) -> None:
    for rel, content in files.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content if isinstance(content, str) else json.dumps(content, indent=2) + "\n",
                        encoding="utf-8")


def test_an_eval_folder_stores_the_scores_and_passes_over_the_side_files(tmp_path, capsys):
    folder = tmp_path / "eval_results"
    write(folder, {**SIDE_FILES, **RESULTS})
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(folder))
    assert (rc, no_ref_said(err)) == (0, ""), err
    lines = out.splitlines()
    assert lines == [f"skipped {len(SIDE_FILES)} files {NOTE}", f"ingested {len(RESULTS)} results "
                     f"({len(RESULTS)} new) into {db}"], out


def test_each_side_file_named_alone_is_passed_over(tmp_path, capsys):
    write(tmp_path, SIDE_FILES)
    db = f"sqlite:///{tmp_path / 'r.db'}"
    for rel in SIDE_FILES:
        rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path / rel))
        assert (rc, err) == (0, ""), (rel, err)
        assert out.splitlines()[0] == f"skipped 1 file {NOTE}", (rel, out)


def test_unknown_json_and_aggregates_like_them_still_fail(tmp_path, capsys):
    cases = {
        "verifier_only.json": ({"verifier": "x", "task": "y"}, "format: unknown JSON output"),
        # meta_env's keys with a throughput: a process_result.py aggregate, refused as such
        "agg.json": (dict(META_ENV, tput_per_gpu=1000.0), "process_result.py aggregate"),
        "mixed.jsonl": (json.dumps(PREDICTION) + "\n" + json.dumps({"unknown": 1}) + "\n", "unknown JSON output"),
    }
    write(tmp_path, {name: doc for name, (doc, _) in cases.items()})
    for name, (_, why) in cases.items():
        rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}",
                               str(tmp_path / name))
        assert rc == 1 and err.count("\n") == 1 and why in err, (name, err)
