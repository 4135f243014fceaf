"""Derived values, one documented function each, computed from raw measurements.

Never copied from a client's own derived fields: those drift between versions
(InferenceX's ``std_intvty`` is 1000/std, for one). Each returns None when an
input it needs is missing, so a record never carries a made-up number.
"""

from __future__ import annotations

import math

from sweepgate.core import fields as F
from sweepgate.results import record as R


def hardware(runner: str | None) -> str | None:
    """GPU family of a runner label or runner name: ``cluster:mi355x-amds`` -> ``mi355x``."""
    if not runner:
        return None
    name = runner[len(F.CLUSTER_PREFIX):] if runner.startswith(F.CLUSTER_PREFIX) else runner
    return name.replace("_", "-").split("-", 1)[0].lower() or None


def _workers(row: dict) -> bool:
    """Whether ``row`` is a multi-node row with both its workers."""
    return isinstance(row.get(F.PREFILL), dict) and isinstance(row.get(F.DECODE), dict)


def gpus(row: dict | None) -> int | None:
    """GPUs a row's job uses (``fields.row_gpus``, as the plan costs it): tp x pp x pcp, or for a multi-node
    row the sum over its prefill and decode workers of num-worker x tp x pp x pcp. None for a row that does
    not state them (no tp; a multi-node row without both workers)."""
    if not row or not (_workers(row) or (F.TP in row and row.get(F.PREFILL) is None)):
        return None
    return F.row_gpus(row)


def _worker_tag(worker: dict) -> str:
    return F.parallel_tag(worker, worker.get(F.TP), F.env_value(bool(worker.get(F.DP_ATTN, False))))


def topology(row: dict | None) -> str | None:
    """Parallelism as one string: ``tp8-pp1-dcp1-pcp1-ep1-dpafalse``; multi-node
    ``p2x(tp4-...)_d1x(tp8-...)`` (num-worker x worker)."""
    if not row:
        return None
    if _workers(row):
        p, d = row[F.PREFILL], row[F.DECODE]
        return (f"p{p.get(F.NUM_WORKER, 1)}x({_worker_tag(p)})_d{d.get(F.NUM_WORKER, 1)}x({_worker_tag(d)})")
    return _worker_tag(row) if F.TP in row else None


def per_gpu(throughput: float | None, n_gpus: int | None) -> float | None:
    """A tok/s throughput divided by the job's GPUs (tok/s/GPU)."""
    if throughput is None or not n_gpus:
        return None
    return throughput / n_gpus


def output_tput_per_gpu(metrics: dict, n_gpus: int | None) -> float | None:
    """Output tokens per second per GPU."""
    return per_gpu(metrics.get(R.OUTPUT_THROUGHPUT), n_gpus)


def input_tput_per_gpu(metrics: dict, n_gpus: int | None) -> float | None:
    """Input (prompt) tokens per second per GPU; input throughput is total minus output
    when the client reports only those two."""
    value = metrics.get(R.INPUT_THROUGHPUT)
    if value is None and metrics.get(R.TOTAL_TOKEN_THROUGHPUT) is not None and metrics.get(R.OUTPUT_THROUGHPUT) is not None:
        value = metrics[R.TOTAL_TOKEN_THROUGHPUT] - metrics[R.OUTPUT_THROUGHPUT]
    return per_gpu(value, n_gpus)


def total_token_throughput(metrics: dict) -> float | None:
    """Input plus output tokens per second: the client's own total where it states one, else the sum of its
    input and output throughputs where it has both (AIPerf's older exports and SGLang's bench_serving lines
    before ``total_throughput`` write none); None where either is missing, or their sum is no number (two parts
    of 1e308 overflow: each is refused at its own key as no run's figure, ``plausible``). The parsers fill a
    record's total with it, and the per-GPU total reads it."""
    total = metrics.get(R.TOTAL_TOKEN_THROUGHPUT)
    if total is None and metrics.get(R.INPUT_THROUGHPUT) is not None and metrics.get(R.OUTPUT_THROUGHPUT) is not None:
        total = metrics[R.INPUT_THROUGHPUT] + metrics[R.OUTPUT_THROUGHPUT]
        return total if math.isfinite(total) else None
    return total


def tput_per_gpu(metrics: dict, n_gpus: int | None) -> float | None:
    """Input plus output tokens per second per GPU."""
    return per_gpu(total_token_throughput(metrics), n_gpus)


def interactivity(metrics: dict) -> float | None:
    """Tokens per second one user sees: 1000 / median (p50) TPOT in ms; none from a TPOT of 0 or a hair below
    it (``plausible.TIMER_SLACK_MS``: responses that came in one piece)."""
    tpot = metrics.get(R.latency_name(R.TPOT, "p50"))
    return 1000.0 / tpot if tpot is not None and tpot > 0 else None


def request_counts(metrics: dict) -> tuple[float, float] | None:
    """(completed, failed) requests, where both are counted (finite, not below 0), some request was and no more
    than a run sends (``R.MAX_RUN_REQUESTS`` together: ingest refuses more, an older sweepgate stored 1e308 of
    each, whose sum overflows); else None."""
    counts = tuple(metrics.get(name) for name in (R.COMPLETED, R.FAILED))
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v >= 0 for v in counts):
        return None
    return counts if 0 < counts[0] + counts[1] <= R.MAX_RUN_REQUESTS else None


def _a_figure(value) -> bool:
    return (isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
            and abs(value) <= R.MAX_FIGURE)


def figure(metrics: dict, name: str) -> float | int | None:
    """The metric ``name`` of a stored record's ``metrics`` as compare, its charts and `results show` read it:
    a finite number, none where an older sweepgate stored what ingest now refuses (``plausible``): a figure
    above ``R.MAX_FIGURE``, or a success rate beside request counts that are no run's (``request_counts``;
    1e308 completed and 1e308 failed were stored with a rate of 0, their sum overflowed)."""
    value = metrics.get(name)
    if not _a_figure(value):
        return None
    if name == R.SUCCESS_RATE and _uncountable(metrics):
        return None
    return value


def float_figure(metrics: dict, name: str) -> float | None:
    """``figure`` as a float (an int stored is read as one), else None."""
    value = figure(metrics, name)
    return None if value is None else float(value)


def _uncountable(metrics: dict) -> bool:
    """Both request counts stated as numbers, but not as a run's (``request_counts``)."""
    counts = [metrics.get(n) for n in (R.COMPLETED, R.FAILED)]
    stated = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in counts)
    return stated and any(v != 0 for v in counts) and request_counts(metrics) is None


def success_rate(metrics: dict) -> float | None:
    """completed / (completed + failed); None unless both counts are known (0 where none completed)."""
    if (counts := request_counts(metrics)) is None:
        return 0.0 if metrics.get(R.COMPLETED) == 0 else None
    return counts[0] / (counts[0] + counts[1])


def output_tokens(metrics: dict) -> float | None:
    """The output tokens a run produced: its total, else its output throughput times its duration; None when
    it states neither (GenAI-Perf's 2024 export: a throughput and per-request lengths only)."""
    tokens = metrics.get(R.TOTAL_OUTPUT_TOKENS)
    if tokens is None and metrics.get(R.OUTPUT_THROUGHPUT) and metrics.get(R.DURATION_S):
        tokens = metrics[R.OUTPUT_THROUGHPUT] * metrics[R.DURATION_S]
    return tokens


def energy_per_output_token_j(energy_j: float | None, metrics: dict) -> float | None:
    """Joules the job's GPUs drew during the benchmark, per output token (``output_tokens``)."""
    tokens = output_tokens(metrics)
    if energy_j is None or not tokens:
        return None
    return energy_j / tokens


# Per-token latencies: none exist for a request that produced a single token
PER_TOKEN = (R.TPOT, R.ITL)


def _latency_of(name: str) -> str | None:
    """The latency a metric is a statistic of (``ttft_p99_99_ms`` -> ``ttft``), else None."""
    parts = R.latency_stat(name)
    return parts[0] if parts else None


def measured(metrics: dict) -> dict:
    """``metrics`` without the latencies of a run in which no request completed (its count is 0, or
    it states none and every throughput is zero or absent), and without TPOT and ITL where the
    completed requests produced one token each (no more output tokens than requests): there the
    client writes a placeholder (vLLM's and SGLang's mean of nothing is 0, others write NaN), not
    a measurement."""
    if metrics.get(R.COMPLETED) == 0 or (metrics.get(R.COMPLETED) is None and not _served(metrics)):
        return {name: value for name, value in metrics.items() if _latency_of(name) is None}
    done, tokens = metrics.get(R.COMPLETED), metrics.get(R.TOTAL_OUTPUT_TOKENS)
    if isinstance(done, (int, float)) and isinstance(tokens, (int, float)) and 0 < tokens <= done:
        return {name: value for name, value in metrics.items() if _latency_of(name) not in PER_TOKEN}
    return metrics


def _served(metrics: dict) -> bool:
    """Whether any of the run's throughputs is above zero."""
    rates = [metrics.get(n) for n in (R.REQUEST_THROUGHPUT, R.OUTPUT_THROUGHPUT, R.TOTAL_TOKEN_THROUGHPUT)]
    return any(isinstance(v, (int, float)) and v > 0 and math.isfinite(v) for v in rates)


def is_failed_run(metrics: dict, evals: list) -> bool:
    """No request completed, or every throughput is zero or absent (and no eval scored)."""
    if evals:
        return False
    return metrics.get(R.COMPLETED) == 0 or not _served(metrics)


# derived value -> the measurements it is computed from (named when it comes out NaN or infinite)
SOURCES = {R.OUTPUT_TPUT_PER_GPU: (R.OUTPUT_THROUGHPUT,),
           R.INPUT_TPUT_PER_GPU: (R.INPUT_THROUGHPUT, R.TOTAL_TOKEN_THROUGHPUT, R.OUTPUT_THROUGHPUT),
           R.TPUT_PER_GPU: (R.TOTAL_TOKEN_THROUGHPUT, R.INPUT_THROUGHPUT, R.OUTPUT_THROUGHPUT),
           R.INTERACTIVITY: (R.latency_name(R.TPOT, "p50"),),
           R.SUCCESS_RATE: (R.COMPLETED, R.FAILED),
           R.ENERGY_PER_OUTPUT_TOKEN_J: (R.TOTAL_OUTPUT_TOKENS, R.OUTPUT_THROUGHPUT, R.DURATION_S)}


# A measurement a derived value is computed from, in words: what a report says an output lacks (``why_none``).
SOURCE_WORDS = {R.COMPLETED: "completed-request count", R.FAILED: "failed-request count",
                R.OUTPUT_THROUGHPUT: "output throughput"}


def why_none(rec: dict, name: str) -> str | None:
    """Why the stored record ``rec`` has no figure of the derived value ``name``, where its output stated no
    measurement it is computed from (SOURCES, in SOURCE_WORDS): "GenAI-Perf's output states no failed-request
    count" (its exports count errors nowhere, so no success rate); else None (it has one, or the cause is
    another). What `results compare` says of a metric it could not compare at a point and `results show` of a
    blank cell (new user s41l: GenAI-Perf's points were judged on one metric fewer, nothing saying which or why)."""
    metrics = rec.get(R.METRICS) or {}
    if not metrics or figure(metrics, name) is not None:
        return None
    absent = [SOURCE_WORDS[s] for s in SOURCES.get(name, ()) if s in SOURCE_WORDS and metrics.get(s) is None]
    if not absent or (name == R.SUCCESS_RATE and metrics.get(R.COMPLETED) == 0):
        return None
    client = rec.get(R.CLIENT)
    who = f"{R.CLIENT_NAMES[client]}'s output" if client in R.CLIENT_NAMES else "its output"
    return f"{who} states no {' or '.join(absent)}"


def add_derived(metrics: dict, n_gpus: int | None, energy_j: float | None = None) -> dict:
    """``metrics`` plus every derived value above."""
    out = dict(metrics)
    out[R.OUTPUT_TPUT_PER_GPU] = output_tput_per_gpu(metrics, n_gpus)
    out[R.INPUT_TPUT_PER_GPU] = input_tput_per_gpu(metrics, n_gpus)
    out[R.TPUT_PER_GPU] = tput_per_gpu(metrics, n_gpus)
    out[R.INTERACTIVITY] = interactivity(metrics)
    out[R.SUCCESS_RATE] = success_rate(metrics)
    out[R.ENERGY_PER_OUTPUT_TOKEN_J] = energy_per_output_token_j(energy_j, metrics)
    return out
