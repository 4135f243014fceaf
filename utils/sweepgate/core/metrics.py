"""The names of a result's metrics, their units and which way each is better.

``results.record`` re-exports them for the results wing; the master-config check uses them
for a config's ``results`` thresholds (``core.check``), so a threshold on a metric that
does not exist, or one no throughput drop could reach, is refused by the gate, not by the
first comparison after the merge.
"""

from __future__ import annotations

import re

REQUEST_THROUGHPUT = "request_throughput"        # req/s
REQUEST_GOODPUT = "request_goodput"              # req/s meeting the client's --goodput SLOs
OUTPUT_THROUGHPUT = "output_throughput"          # tok/s
INPUT_THROUGHPUT = "input_throughput"            # tok/s
TOTAL_TOKEN_THROUGHPUT = "total_token_throughput"  # tok/s
OUTPUT_TPUT_PER_GPU = "output_tput_per_gpu"      # tok/s/GPU
INPUT_TPUT_PER_GPU = "input_tput_per_gpu"        # tok/s/GPU
TPUT_PER_GPU = "tput_per_gpu"                    # tok/s/GPU (input + output)
INTERACTIVITY = "interactivity"                  # tok/s/user = 1000 / median (p50) TPOT in ms
COMPLETED = "completed"
FAILED = "failed"
SUCCESS_RATE = "success_rate"                    # completed / (completed + failed)
DURATION_S = "duration_s"
ENERGY_PER_OUTPUT_TOKEN_J = "energy_per_output_token_j"
# Speculative decoding: tokens a decoding step yields on average (accepted draft tokens + 1),
# SGLang's accept_length, vLLM's spec_decode_acceptance_length. A drop is a draft that stopped
# guessing well, which TPOT shows only mixed with everything else.
ACCEPT_LENGTH = "accept_length"                  # tokens/step
# The run's busiest second, as vLLM's bench serve (0.10+) and SGLang's bench_serving (0.5.8+) count it over
# one-second buckets of the run: the most output tokens received in one (each streamed chunk counted as one
# token, so a speculative run's reads below its output throughput), and the most requests in flight in one (a
# request counted in every second it spans, so it can exceed --max-concurrency: a real vLLM run at 2 states 8).
# Older clients write neither: the record then has none, never 0.
MAX_OUTPUT_TOKENS_PER_S = "max_output_tokens_per_s"  # tok/s, peak
MAX_CONCURRENT_REQUESTS = "max_concurrent_requests"  # requests, peak (the load the client put on, not a figure
# of the server's: shown, never judged, so it has no DIRECTION)
TTFT, TPOT, ITL, E2EL = LATENCIES = ("ttft", "tpot", "itl", "e2el")
# Every statistic of a latency a record keeps, each as its clients write it (vLLM's ``std_ttft_ms``,
# ``p25_ttft_ms``, ``p99.9_ttft_ms``; an AIPerf metric object's ``std``, ``p25``, ``p75``). The 99.9th
# percentile is spelt ``p99_9``: a metric name is a JSON key, a store column's name and a dotted path
# in a diagnostic (``metrics.ttft_p99_9_ms``), and a dot in it would split that path, need quoting in
# SQL and in jq (``.metrics."ttft_p99.9_ms"``).
STATS = ("mean", "std", "p25", "p50", "p75", "p90", "p95", "p99", "p99_9")
# A spread, not a level: a larger standard deviation is neither better nor worse (a run that got
# faster for most requests can spread more), so it has no DIRECTION and is never judged.
UNDIRECTED_STATS = ("std",)


# A latency's extremes, as AIPerf and GenAI-Perf write them (a metric object's ``min`` and ``max``).
EXTREMES = ("min", "max")
# A percentile as a client spells it: vLLM's ``--metric-percentiles 99.99`` writes ``p99.99_ttft_ms``,
# an AIPerf metric object has ``p1``; the record's own ``p99_9`` reads back as itself.
_PERCENTILE = re.compile(r"p(\d{1,3})(?:[._](\d+))?")


def stat_name(stat: str) -> str | None:
    """The record's name of a latency statistic a client writes, else None (``sum``, ``count``: no
    statistic of one request's latency). STATS and EXTREMES are their own names; any percentile from
    0 to 100 is ``p`` and its number, ``_`` for its point and no trailing zeros, so every client's
    spelling of one percentile is one name: ``p99.99`` -> ``p99_99``, ``p0.1`` -> ``p0_1``, ``p99.90``
    -> ``p99_9``. Only STATS have a DIRECTION; the others are kept, never judged."""
    if stat in STATS or stat in EXTREMES:
        return stat
    match = _PERCENTILE.fullmatch(stat)
    if match is None:
        return None
    whole, point = int(match[1]), (match[2] or "").rstrip("0")
    if whole > 100 or (whole == 100 and point):
        return None
    return f"p{whole}_{point}" if point else f"p{whole}"


def percentile_of(stat: str) -> float | None:
    """Where a statistic of one latency (a ``stat_name``) stands among its requests, as a percentile:
    ``min`` 0, ``p99_9`` 99.9, ``max`` 100; None for the mean and standard deviation, which stand nowhere."""
    if stat in EXTREMES:
        return 0.0 if stat == "min" else 100.0
    match = _PERCENTILE.fullmatch(stat)
    return float(f"{match[1]}.{match[2] or 0}") if match else None


def latency_name(latency: str, stat: str) -> str:
    """``ttft`` + ``p50`` -> ``ttft_p50_ms``; ``ttft`` + ``p99_9`` -> ``ttft_p99_9_ms``."""
    return f"{latency}_{stat}_ms"


def latency_stat(name: str) -> tuple[str, str] | None:
    """``ttft_p99_99_ms`` -> ``("ttft", "p99_99")``: the latency and statistic a record's metric name
    holds (a ``latency_name`` of one of LATENCIES and a ``stat_name``), else None."""
    if not name.endswith("_ms"):
        return None
    latency, _, stat = name[:-3].partition("_")
    return (latency, stat) if latency in LATENCIES and stat_name(stat) == stat else None


LATENCY_METRICS = tuple(latency_name(lat, st) for lat in LATENCIES for st in STATS)

# The metrics `results compare` judges (CONTRACTS section 8); a config's `results.thresholds` may
# name these only (``core.check``): a threshold on a figure never judged would be a silent no-op.
COMPARED_METRICS = (
    OUTPUT_TPUT_PER_GPU,
    INTERACTIVITY,
    latency_name(TTFT, "p50"),
    latency_name(TPOT, "p50"),
    latency_name(E2EL, "p50"),
    ACCEPT_LENGTH,  # a speculative-decoding point's only: a draft that guesses worse, before TPOT shows it
    MAX_OUTPUT_TOKENS_PER_S,  # where the client writes it (vLLM 0.10+, SGLang 0.5.8+): the run's busiest second
    SUCCESS_RATE,
)

# Which way is better, for comparison and charts.
HIGHER_IS_BETTER = "higher"
LOWER_IS_BETTER = "lower"
DIRECTION = {
    OUTPUT_TPUT_PER_GPU: HIGHER_IS_BETTER,
    TPUT_PER_GPU: HIGHER_IS_BETTER,
    INPUT_TPUT_PER_GPU: HIGHER_IS_BETTER,
    REQUEST_THROUGHPUT: HIGHER_IS_BETTER,
    REQUEST_GOODPUT: HIGHER_IS_BETTER,
    OUTPUT_THROUGHPUT: HIGHER_IS_BETTER,
    TOTAL_TOKEN_THROUGHPUT: HIGHER_IS_BETTER,
    INTERACTIVITY: HIGHER_IS_BETTER,
    SUCCESS_RATE: HIGHER_IS_BETTER,
    ACCEPT_LENGTH: HIGHER_IS_BETTER,
    MAX_OUTPUT_TOKENS_PER_S: HIGHER_IS_BETTER,
    **{latency_name(lat, st): LOWER_IS_BETTER for lat in LATENCIES for st in STATS if st not in UNDIRECTED_STATS},
    ENERGY_PER_OUTPUT_TOKEN_J: LOWER_IS_BETTER,
}

# A metric's own threshold, in place of --threshold and a config's `threshold` (a config's
# per-metric `thresholds` still win): a request that newly fails is a finding however small
# a share of the run it is, so a success rate below its baseline's interval is a regression.
METRIC_THRESHOLDS = {SUCCESS_RATE: 0.0}


def fraction_example(value: float) -> str:
    """How a threshold is written, for one typed as a percentage: 5 -> "0.05 for 5 %" (a relative
    change is a fraction; 1 or more on a throughput figure could never be reached)."""
    return f"{value / 100:g} for {value:g} %" if 1 <= value <= 100 else "0.05 for 5 %"
