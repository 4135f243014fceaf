"""Files an InferenceX eval job leaves beside its scores: told by their content, passed over (``EvalSideFile``).

The scores are lm-eval's results JSON, or an eval adapter's ``"result_format": "inferencex-eval-v1"``
projection of them (``lm_eval``). InferenceX's ``stage_eval_artifacts`` copies these beside them:

- ``meta_env.json``: the job's identity as ``benchmark_lib.sh`` writes it for the eval collector
  (``is_multinode``, ``infmax_model_prefix``, ``hw``, ``framework``, ``precision``, ``tp``, ``conc`` ...);
- an adapter's native report (``*_report.json``): its own ``{verifier, task, model, completed, ...}``
  (MiniMax provider smoke, BFCL), the Kimi Vendor Verifier's ``{summary: {total, by_status}, results}``,
  the MiniMax verifier's summary (``success_count``, ``failure_count``, ``tool_calls_match_rate``);
- the MiniMax verifier's per-case log (``*_results.jsonl``, one ``{data_index, status, ...}`` a line,
  or one ``{"status": "integration_error", ...}``);
- SWE-bench's ``predictions.jsonl`` (``{instance_id, model_name_or_path, model_patch}`` a line), the
  agent's ``agent_preds.json`` (the same, by instance id) and the harness report
  (``swebench_report_*.json``: ``resolved_instances`` of ``total_instances``).

None holds a score sweepgate stores: the scores are in the results file beside them.
"""

from __future__ import annotations

from sweepgate.results.formats.lm_eval import RESULT_FORMAT

# The keys benchmark_lib.sh's meta_env.json always has; a process_result.py aggregate has them too,
# with its throughputs (MEASURED), which meta_env.json never has.
META_ENV = {"is_multinode", "infmax_model_prefix", "hw", "framework", "precision"}
MEASURED = ("tput_per_gpu", "em_strict", "score", "metrics", "request_metrics", "users", "results")
ADAPTER_REPORT = {"verifier", "task", "model", "completed"}  # InferenceX's own adapters' native report
MINIMAX_SUMMARY = {"success_count", "failure_count", "tool_calls_match_rate"}  # MiniMax verify.py --summary
SWEBENCH_REPORT = {"total_instances", "resolved_instances"}  # swebench.harness.run_evaluation's report
PREDICTION = {"instance_id", "model_patch"}  # one SWE-bench prediction


def _kimi_report(doc: dict) -> bool:
    """The Kimi Vendor Verifier's ``--tool-json-report``: ``summary.by_status`` over one result a case."""
    summary, results = doc.get("summary"), doc.get("results")
    return (isinstance(summary, dict) and isinstance(summary.get("by_status"), dict) and "total" in summary
            and isinstance(results, list) and all(isinstance(r, dict) and "status" in r for r in results))


def _agent_preds(doc: dict) -> bool:
    return bool(doc) and all(isinstance(v, dict) and PREDICTION <= v.keys() for v in doc.values())


def _scores(doc: dict) -> bool:
    """A document that states a result format or holds scores keyed by task (lm-eval's ``results``):
    never a side file, whatever else it has (an adapter's next format may keep its report's keys)."""
    return RESULT_FORMAT in doc or isinstance(doc.get("results"), dict)


def _document(doc) -> bool:
    """Whether one whole JSON document is one of the side files."""
    if not isinstance(doc, dict) or _scores(doc):
        return False
    if META_ENV <= doc.keys():
        return not any(k in doc for k in MEASURED)
    return (ADAPTER_REPORT <= doc.keys() or MINIMAX_SUMMARY <= doc.keys() or SWEBENCH_REPORT <= doc.keys()
            or _kimi_report(doc) or _agent_preds(doc))


def _case_line(doc) -> bool:
    """One line of a per-case log: a SWE-bench prediction, or the MiniMax verifier's record of a case."""
    if not isinstance(doc, dict) or _scores(doc):
        return False
    return (PREDICTION <= doc.keys() or {"data_index", "status"} <= doc.keys()
            or (doc.get("status") == "integration_error" and isinstance(doc.get("error"), dict)))


def is_side_file(docs: list[tuple[int, object]]) -> bool:
    """Whether a file's documents (one JSON document, or JSONL lines) are an eval's side file."""
    if len(docs) == 1 and _document(docs[0][1]):
        return True
    return bool(docs) and all(_case_line(doc) for _, doc in docs)
