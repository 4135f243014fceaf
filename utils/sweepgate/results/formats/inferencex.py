"""Files InferenceX's own tooling writes: recognised and refused, with the reason.

They are aggregates built from a client's output, not the output itself:
``process_result.py`` rows (latencies converted to seconds, the per-GPU values
copied in, request counts dropped), AgentX aggregates, eval-row tables, the
InferenceX-app database's benchmark rows and its dashboard's CSV download, the nightly
summary table, and one-off wrappers. Ingest the raw client output they
were built from instead; that is what a job leaves (CONTRACTS section 8).
"""

from __future__ import annotations

from sweepgate.core.errors import fail
from sweepgate.results import jsonio

# An agentic job writes this aggregate as its $RESULT_FILENAME.json; its client's output is the AIPerf
# export under aiperf_artifacts/ beside it.
AGENTIC = ("an InferenceX agentic aggregate (built from an AIPerf run: latencies in seconds, statistics "
           "summarized again)")
AGENTIC_HINT = ("ingest the AIPerf export it was built from (the job's aiperf_artifacts/profile_export_aiperf.json; "
                "an agentic job names this aggregate $RESULT_FILENAME.json)")

EVAL_ROWS = "a table of InferenceX eval rows, not one job's eval output"
EVAL_ROWS_HINT = ("ingest the lm-eval results each eval job wrote, its $RESULT_FILENAME-eval.json, beside the "
                  "job's sidecar")

def _rows_with_hw(rows) -> bool:
    """Whether ``rows`` is a list of InferenceX aggregate rows, each naming its hardware (``hw``)."""
    return isinstance(rows, list) and bool(rows) and all(isinstance(x, dict) and "hw" in x for x in rows)


REASONS = (
    (lambda d: isinstance(d, dict) and "hw" in d and isinstance(d.get("metrics"), dict),
     "a benchmark wrapper ({hw, metrics, gpu}) whose metrics omit completed/failed requests and duration"),
    (lambda d: isinstance(d, dict) and "hw" in d and ("request_metrics" in d or "users" in d
                                                      or str(d.get("scenario_type", "")).startswith("agentic")),
     AGENTIC),
    (lambda d: isinstance(d, dict) and "hw" in d and "tput_per_gpu" in d,
     "an InferenceX process_result.py aggregate (latencies converted to seconds, derived values copied, "
     "request counts dropped)"),
    (lambda d: isinstance(d, list) and d and isinstance(d[0], dict) and ("em_strict" in d[0] or "score" in d[0]),
     EVAL_ROWS),
    (lambda d: isinstance(d, list) and d and all(isinstance(x, dict) and "hw" in x and isinstance(
        x.get("metrics"), dict) for x in d),
     "InferenceX-app's benchmark rows (the dashboard database's records: metrics nested, latencies in "
     "seconds, request counts dropped), not one job's output"),
    (lambda d: isinstance(d, list) and d and all(isinstance(x, dict) and "hw" in x for x in d),
     "InferenceX collect_results.py's agg_bmk.json (a list of process_result.py aggregates, latencies in "
     "seconds, request counts dropped), not one job's output"),
    # s35e: a run's aggregates kept together, as InferenceX-app keeps a TPU sweep's artifacts (it read "unknown JSON
    # output"): {benchmarks: [process_result.py rows], evaluations: [eval rows]}
    (lambda d: isinstance(d, dict) and _rows_with_hw(d.get("benchmarks")) and set(d) <= {"benchmarks", "evaluations"},
     "an InferenceX run's aggregates ({benchmarks: [...], evaluations: [...]}: process_result.py rows, latencies in "
     "seconds, request counts dropped, and eval rows), not one job's output"),
    (lambda d: isinstance(d, list) and d and isinstance(d[0], dict) and "Test name" in d[0],
     "a summary table built from several serving results (display-name columns), not one job's output"),
    (lambda d: isinstance(d, dict) and "model_id" in d and any(
        k.startswith(("median_", "p99_")) and k.endswith(("_ttft", "_tpot", "_e2el")) for k in d),
     "latency keys without a unit suffix (median_ttft, ...): their unit is not stated"),
)


# The InferenceX dashboard's CSV download (InferenceX-app): licence lines ("# ..."), then one row a
# point under display names ("Model,ISL,OSL,Hardware,...,Mean TTFT (ms),...") whose "(ms)" latencies
# hold process_result.py's seconds (a gpt-oss TTFT of 40 ms reads 0.040).
APP_CSV_HEAD = ["model", "isl", "osl", "hardware"]


def refuse_csv(text: str, path: str) -> None:
    """Refuse the dashboard's CSV export with what it is; return for any other text."""
    for number, line in enumerate(jsonio.head(text.lstrip("\ufeff"), 20).splitlines()[:20], 1):
        if not line.strip() or line.startswith("#"):
            continue
        if [cell.strip().lower() for cell in line.split(",")[:4]] == APP_CSV_HEAD:
            raise fail(path, number, "format: the InferenceX dashboard's CSV export (one row a point, from "
                       "process_result.py aggregates: its (ms) latencies are seconds, request counts dropped), "
                       "not one job's output", "ingest the client's raw output the points were built from "
                       "(each job's $RESULT_FILENAME.json)")
        return


def reason(doc) -> str | None:
    for test, why in REASONS:
        if test(doc):
            return why
    return None


def refuse(doc, path: str, line: int):
    why = reason(doc)
    hint = {AGENTIC: AGENTIC_HINT, EVAL_ROWS: EVAL_ROWS_HINT}.get(
        why, "ingest the client's raw output it was built from (the job's $RESULT_FILENAME.json)")
    raise fail(path, line, f"format: {why}", hint)
