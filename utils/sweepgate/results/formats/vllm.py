"""vLLM `bench serve --save-result` / `benchmark_serving.py` JSON (and appended JSONL).

Versions differ: ``"request_goodput:"`` (a typo with a colon) before 0.10,
``"request_inthroughput"`` (a typo) for the request throughput in the spring of 2024,
``"inf"`` request rates, ``max_concurrency`` null for rate-driven runs, dotted
keys (``p99.9_ttft_ms``), per-request arrays (``ttfts``, ``itls``) in SECONDS
while summaries are ms, a latency-only vllm-ascend variant, and only the latencies
``--percentile-metrics`` named (``e2el`` alone: no TTFT, TPOT or ITL; ``RUN_KEYS``).
"""

from __future__ import annotations

import bisect
import itertools
import math
import operator
import statistics
from datetime import datetime

from sweepgate.core.errors import fail
from sweepgate.core.metrics import UNDIRECTED_STATS
from sweepgate.core.report import count
from sweepgate.results import derive, plausible
from sweepgate.results import record as R
from sweepgate.results.formats.foreign import SweepWarmup
from sweepgate.results.measurement import (UNSTREAMED_RULE, Measurement, clock_zoned, drop_streamed,
                                           edited_or_unsupported, further_stat, number, refuse_tokenless, run_window,
                                           unix_time)
from sweepgate.results.units import to_ms

# The client's latency name -> the record's.
LATENCIES = {"ttft": R.TTFT, "tpot": R.TPOT, "itl": R.ITL, "e2el": R.E2EL}
# Forks of 2024 (before vLLM named it e2el) wrote the end-to-end request latency as *_latency_ms.
E2EL_BEFORE_0_6 = {**LATENCIES, "latency": R.E2EL}
# The client's stat prefix -> the record's (R.STATS). `--metric-percentiles 25,75,99.9` adds p25, p75 and
# p99.9 (InferenceX's fork writes p90, p99 and p99.9 by default); std_ is the standard deviation. A value
# here that is no measurement refuses the output, as it always has.
STATS = {"mean": "mean", "std": "std", "median": "p50", "p50": "p50", "p25": "p25", "p75": "p75", "p90": "p90",
         "p95": "p95", "p99": "p99", "p99.9": "p99_9"}
# Any other percentile `--metric-percentiles` asks for (``p99.99_ttft_ms``, ``p0.1_ttft_ms``, ``p5_``) and a
# ``min_``/``max_`` are named by R.stat_name (``ttft_p99_99_ms``) and kept too (measurement.further_stat).
# The run's busiest second (core.metrics): vllm bench serve 0.10+ and SGLang's bench_serving 0.5.8+ write both under
# these names; an older client neither, and its record has none.
PEAKS = {"max_output_tokens_per_s": R.MAX_OUTPUT_TOKENS_PER_S, "max_concurrent_requests": R.MAX_CONCURRENT_REQUESTS}
THROUGHPUTS = {
    "request_throughput": R.REQUEST_THROUGHPUT,
    "request_goodput": R.REQUEST_GOODPUT,  # null without --goodput
    "output_throughput": R.OUTPUT_THROUGHPUT,
    "input_throughput": R.INPUT_THROUGHPUT,
    "total_token_throughput": R.TOTAL_TOKEN_THROUGHPUT,
    "total_input_tokens": R.TOTAL_INPUT_TOKENS,
    "total_output_tokens": R.TOTAL_OUTPUT_TOKENS,
    "completed": R.COMPLETED,
    "failed": R.FAILED,
    "duration": R.DURATION_S,
    "spec_decode_acceptance_length": R.ACCEPT_LENGTH,  # with speculative decoding (vllm bench serve ~0.10+)
    **PEAKS,
}
# Not the accept length: TensorRT-LLM's fork (tensorrt_llm/serve/scripts/benchmark_serving.py) writes
# avg_decoded_tokens_per_iter (a dict of mean, median, ... and mean_/median_/pNN_ keys beside it): each
# request's generated tokens over its decoding iterations, the context step's among them, averaged over
# requests with equal weight. vLLM's is 1 + accepted / drafts over every draft of the run, from the server's
# counters: over the same run the two differ (short requests weigh more, the prefill step counts), so the
# fork's figure is left unread rather than compared with vLLM's as if it were one.


# The keys a vLLM client (or a fork read here) names the run's setup under: what it measured beyond its
# point (request rate, concurrency). The request API (backend, `vllm bench serve`'s endpoint_type), the user's
# --label, the model and tokenizer (as named: a runless output's model is no part of its point), the dataset,
# vllm-bench's mode and workload, and the old clients' best_of and use_beam_search. Two runs of one output at
# one point that differ in one are two setups (``normalize.check_one_setup``); its date, num_prompts and
# figures are the measurement's.
SETUP = ("model_id", "backend", "endpoint_type", "label", "tokenizer_id", "served_model_name", "dataset_name", "mode",
         "workload", "best_of", "use_beam_search")
# The arrival process at a request rate (1: Poisson, below it burstier, above it more even): at an unlimited
# rate every request is sent at once and it shapes nothing, so there it is no part of the setup.
BURSTINESS = "burstiness"
# The keys a vLLM client (or a fork read here) writes text under itself. `--metadata KEY=VALUE ...`
# (benchmark_serving.py, `vllm bench serve`) adds each pair as a top-level key, its value text (both
# stripped; older clients cut a value at a second ``=``). The pairs are written after the
# run's setup (date, backend, label, model_id, ...), over which one can go unnoticed, and before the
# traffic settings and the figures, which are written over any pair of their names (request_rate,
# burstiness, max_concurrency, completed, ...): every other top-level text is such a pair.
OWN_TEXT = frozenset({"date", "request_rate", "ramp_up_strategy", *SETUP})
# The pair that names the serving framework (``--metadata framework=vllm``): the record's framework where
# no job row names one, as written (``sgl`` stays ``sgl``: no vocabulary maps it).
FRAMEWORK_TAG = "framework"


def run_setup(doc: dict, rate) -> dict:
    """The run's ``SETUP`` values as written (a null one left out), with its burstiness at a rate of its
    own (``rate``, as ``rate_value`` reads it)."""
    keys = SETUP + ((BURSTINESS,) if rate is not None and not R.is_unlimited_rate(rate) else ())
    return {key: doc[key] for key in keys if doc.get(key) is not None}


def metadata(doc: dict) -> dict:
    """The output's ``--metadata`` pairs: its top-level texts under keys the client does not write itself."""
    return {key: value for key, value in doc.items() if isinstance(value, str) and key not in OWN_TEXT}


# A key some versions misspelt -> its name.
TYPOS = {"request_inthroughput": "request_throughput"}


def clean_keys(doc: dict, written: dict | None = None) -> dict:
    """Keys without the stray trailing colon some versions wrote (``request_goodput:``), and
    with their names where a version misspelt them (``TYPOS``); ``written`` gets each key so corrected ->
    the key as the output wrote it, which a refusal of its value names and stands at."""
    out, spelt = {}, {}
    for key, value in doc.items():
        out[clean := key.rstrip(":").strip()] = value
        spelt[clean] = key
    for typo, name in TYPOS.items():
        if typo in out and name not in out:
            out[name], spelt[name] = out.pop(typo), spelt.pop(typo)
    if written is not None:
        written.update({clean: key for clean, key in spelt.items() if clean != key})
    return out


# `vllm bench serve` against a pooling endpoint (--backend openai-embeddings, vllm-pooling, vllm-rerank, ...)
# saves EmbedBenchmarkMetrics: requests completed, input tokens, and the end-to-end latency (pooling's default
# --percentile-metrics; the client's queue time beside it); no output tokens, no TTFT, TPOT or ITL.
POOLING_KEYS = {"completed", "total_input_tokens", "request_throughput"}
GENERATION_KEYS = {"total_output_tokens", "output_throughput"}
# What a generation run's output holds whatever it measured (benchmark_serving.py from 0.6 on, `vllm bench
# serve`): its counts, duration and rates. Its latency statistics are only those --percentile-metrics names
# (ttft,tpot,itl by default): `--percentile-metrics e2el` writes *_e2el_ms alone, and `vllm bench serve`
# without a tokenizer (--skip-tokenizer-init) no TTFT, TPOT or ITL whatever it names. Older outputs (no
# --percentile-metrics) always hold TTFT and TPOT, and vllm-ascend 0.7's latency-only layout nothing else.
RUN_KEYS = frozenset(POOLING_KEYS | GENERATION_KEYS | {"duration"})


def _unit_less(keys) -> bool:
    """Whether ``keys`` hold a latency statistic that states no unit (``median_ttft``): vLLM writes each in
    ms (``median_ttft_ms``); a fork that writes seconds so (InferenceX's token-position variant) is no vLLM output."""
    return any(key.partition("_")[2] in E2EL_BEFORE_0_6 for key in keys)


def detect(doc) -> bool:
    if not isinstance(doc, dict):
        return False
    keys = set(clean_keys(doc))
    has_ms = any(k.endswith("_ttft_ms") or k.endswith("_tpot_ms") for k in keys)
    return ((has_ms or (RUN_KEYS <= keys and not _unit_less(keys))) and ("model_id" in keys or "date" in keys)
            and "total_output_tokens_retokenized" not in keys)


# `vllm bench sweep serve` adds each run's number to its output (run=N.json) and writes the list of a
# point's runs, key for key, as the summary.json beside them; its warm-up (--warmup-num-prompts, warmup.json)
# is numbered -1 and left out of that list.
SWEEP_RUN = "run_number"


def _run_number(doc: dict):
    n = doc.get(SWEEP_RUN)
    return n if isinstance(n, int) and not isinstance(n, bool) else None


def is_sweep_summary(doc) -> bool:
    """Whether ``doc`` is a `vllm bench sweep serve` summary.json: a list of outputs of numbered runs."""
    return isinstance(doc, list) and bool(doc) and all(detect(run) and _run_number(run) is not None for run in doc)


def is_sweep_warmup(doc: dict) -> bool:
    """Whether ``doc`` (an output ``detect`` took) is a `vllm bench sweep serve` point's warm-up run."""
    n = _run_number(doc)
    return n is not None and n < 0


def is_sweep_table(first_line: str) -> bool:
    """Whether a CSV file's header is that of `vllm bench sweep serve`'s summary.csv: pandas' table of the
    sweep's runs (``DataFrame.from_records(runs).to_csv``), its unnamed index column first, then the runs'
    keys: a `vllm bench serve` output's (latencies in ms, model_id, date) and run_number."""
    import csv

    try:
        header = next(csv.reader([first_line.lstrip("\ufeff").rstrip("\r\n")]), [])
    except csv.Error:
        return False
    return (len(header) > 2 and header[0] == "" and SWEEP_RUN in header and bool({"model_id", "date"} & set(header))
            and any(cell.endswith("_ms") for cell in header))


def is_pooling(doc) -> bool:
    """Whether ``doc`` is a `vllm bench serve` output of a run against a pooling endpoint."""
    if not isinstance(doc, dict) or not POOLING_KEYS <= doc.keys() or GENERATION_KEYS & doc.keys():
        return False
    keys = set(doc)
    return (("model_id" in keys or "date" in keys) and any(k.endswith("_e2el_ms") for k in keys)
            and not any(k.endswith(("_ttft_ms", "_tpot_ms", "_itl_ms")) for k in keys))


GENERATING = "backend (openai, openai-chat, vllm)"


def refuse_pooling(doc, path: str, line: int) -> None:
    """Refuse a pooling run's output (or a sweep's summary.json of them) as what it is (``refuse_tokenless``);
    return otherwise."""
    listed = isinstance(doc, list) and bool(doc) and all(is_pooling(d) for d in doc)
    if not listed and not is_pooling(doc):
        return
    runs = doc if listed else [doc]
    backend = runs[0].get("backend") or runs[0].get("endpoint_type") or "a pooling backend"
    run = f"a list of {len(runs)} vllm bench serve runs" if listed else "a vllm bench serve run"
    refuse_tokenless(path, line, run, backend, GENERATING)


# A rate some clients write for a run that kept no one rate: SGLang's bench_serving writes "trace"
# when --use-trace-timestamps replays a trace's own arrival times (a mooncake dataset).
NO_ONE_RATE = ("trace",)


def rate_value(value):
    """A request rate as stored: a number, "inf" (unlimited), or None (also for 0 or below: no
    rate a client sent requests at; a concurrency-driven export may write 0 for "not set"; and a
    trace replay's ``NO_ONE_RATE``: its requests came at the trace's times, at no one rate)."""
    if value is None or (isinstance(value, (int, float)) and not isinstance(value, bool) and value <= 0):
        return None
    if isinstance(value, str):
        word = value.strip().lower()
        return "inf" if word in ("inf", "infinity") else None if word in NO_ONE_RATE else value
    return "inf" if isinstance(value, float) and math.isinf(value) else value


def _percentile_ms(values_s: list, q: int) -> float | None:
    """The q-th percentile (numpy's linear method) of per-request values in seconds, in ms."""
    if len(values_s) < 2:
        return None
    return to_ms(statistics.quantiles(values_s, n=100, method="inclusive")[q - 1], "s")


def _not_seconds(v) -> bool:
    """Whether ``v`` is no per-request time: a finite number of seconds >= 0."""
    return isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0


def _check_seconds(v, where: str, path: str, line: int) -> None:
    """A per-request time is a finite number of seconds >= 0, else the file is refused."""
    if _not_seconds(v):
        raise fail(path, line, f"{where}: expected seconds (a number >= 0), got {v!r}",
                   edited_or_unsupported())


def _first_not_seconds(values: list) -> int | None:
    """The place in ``values`` of the first that is no per-request time, else None: numbers are checked as
    one array (a run's per-token gaps are millions), anything else one by one."""
    if not values:
        return None
    if set(map(type, values)) <= {int, float}:  # bool is neither: it is refused below
        import numpy

        times = numpy.asarray(values, dtype=float)  # the JSON reader keeps no integer past float's range
        bad = ~numpy.isfinite(times) | (times < 0)
        return int(bad.argmax()) if bad.any() else None
    return next((j for j, v in enumerate(values) if _not_seconds(v)), None)


def _from_arrays(doc: dict, metrics: dict, path: str, line: int, written: dict | None = None) -> set[str]:
    """Fill p90 TTFT/ITL the summary lacks from the per-request arrays (seconds), of the requests
    that succeeded: a failed one keeps its 0 s (its ``errors`` entry says why), as the client's own
    percentiles leave it out. Every time is checked, and the first that is none is said where the file
    has it (``itls[i][j]``, its key as ``written`` has it). Returns the names it filled (``Measurement.computed``)."""
    errors, filled = doc.get("errors"), set()
    for latency, key in ((R.TTFT, "ttfts"), (R.ITL, "itls")):
        values, name, said = doc.get(key), R.latency_name(latency, "p90"), (written or {}).get(key, key)
        if metrics.get(name) is not None or not isinstance(values, list):
            continue
        failed = errors if isinstance(errors, list) and len(errors) == len(values) else [None] * len(values)
        succeeded = list(map(operator.not_, failed))
        if latency == R.TTFT:  # a time a request
            if (at := _first_not_seconds(values)) is not None:
                _check_seconds(values[at], f"{said}[{at}]", path, line)
            kept = list(itertools.compress(values, succeeded))
        else:  # a list of gaps a request (none for one that is no list)
            rows = [v if isinstance(v, list) else [] for v in values]
            flat = list(itertools.chain.from_iterable(rows))
            if (at := _first_not_seconds(flat)) is not None:
                i = bisect.bisect_right(list(itertools.accumulate(map(len, rows))), at)
                _check_seconds(flat[at], f"{said}[{i}][{at - sum(map(len, rows[:i]))}]", path, line)
            kept = list(itertools.chain.from_iterable(itertools.compress(rows, succeeded)))
        metrics[name] = _percentile_ms(kept, 90)
        filled.add(name)
    return filled


def read_throughputs(doc: dict, names: dict, m: Measurement, path: str, written: dict | None = None) -> None:
    """``m``'s counts, rates and duration, each of the output's key ``names`` gives its record metric,
    and that key (``Measurement.keys``) as the output wrote it (``written``: ``clean_keys``'s)."""
    for key, name in names.items():
        spelt = (written or {}).get(key, key)
        m.metrics[name] = number(doc, key, path, m.line, where=spelt)
        if key in doc:
            m.keys[name] = spelt


def rates_from_counts(metrics: dict) -> None:
    """The input and request rates a client left out, from its counts over its duration, and the total
    token rate from the input and output ones (``derive.total_token_throughput``, as AIPerf's): every
    client's record then has them (vLLM writes no input throughput, SGLang's older layouts no request
    throughput, and its lines before ``total_throughput`` no total)."""
    if metrics.get(R.DURATION_S):
        for rate, total in ((R.INPUT_THROUGHPUT, R.TOTAL_INPUT_TOKENS), (R.REQUEST_THROUGHPUT, R.COMPLETED)):
            if metrics.get(rate) is None and metrics.get(total) is not None:
                metrics[rate] = metrics[total] / metrics[R.DURATION_S]
    metrics[R.TOTAL_TOKEN_THROUGHPUT] = derive.total_token_throughput(metrics)


def uncapped(doc: dict, conc) -> bool:
    """Whether the output states that its client ran without a concurrency cap: vLLM's and SGLang's
    ``max_concurrency`` null (``conc`` None) is --max-concurrency's default, no semaphore; an output
    without the key (an older client) states nothing."""
    return "max_concurrency" in doc and conc is None


def concurrency(value, path: str, line: int):
    """A run's concurrency as the output states it: a whole number, or null (a rate-driven run)."""
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
        raise fail(path, line, f"max_concurrency: expected an integer or null, got {value!r}",
                   edited_or_unsupported())
    return value


def latencies(doc: dict, path: str, line: int, names: dict = LATENCIES, notes: list | None = None,
              keys: dict | None = None, written: dict | None = None) -> dict:
    """The latency statistics, in ms; a latency whose every statistic is exactly 0 was not measured
    (vLLM and SGLang write 0, their mean of nothing, for an ITL when each response came in one chunk),
    so it is left out. A statistic beyond STATS that is no measurement is a warning in ``notes``; ``keys``
    (``Measurement.keys``) gets the key each statistic was read from, as the output wrote it (``written``)."""
    metrics, found, keys = {}, {}, {} if keys is None else keys
    for key in doc:
        if not key.endswith("_ms"):
            continue
        stat, _, rest = key[:-3].partition("_")
        latency = names.get(rest)
        further = None if not latency or stat in STATS else R.stat_name(stat)
        if latency and (stat in STATS or further):
            name, spelt = R.latency_name(latency, STATS.get(stat) or further), (written or {}).get(key, key)
            metrics[name] = number(doc, key, path, line, where=spelt, least=plausible.least(name)) \
                if stat in STATS else further_stat(doc[key], spelt, notes if notes is not None else [],
                                                   plausible.least(name))
            found.setdefault(latency, []).append(name)
            keys[name] = spelt
    for latency, stated in found.items():
        if all(metrics[name] == 0 for name in stated):
            for name in stated:
                del metrics[name]
    return metrics


def untimed_first_token(doc: dict, m: Measurement, written: dict | None = None) -> None:
    """A run whose every TTFT statistic is 0 over requests that completed: the client timed no first token
    (0.0 is the TTFT vLLM's and SGLang's clients start each request with, kept where no chunk carried a token:
    a server that sent each response whole; SGLang against a PD-disaggregated or in-flight-batching server,
    sgl-project/sglang issues #9585 and #12389). ``latencies`` leaves that TTFT out (every statistic 0), and its
    TPOT, (latency - TTFT) / (tokens - 1), is then the whole request's latency over its tokens, queue and prefill
    in it: the TPOT and ITL are left out too, with a warning, as for an AIPerf run that did not stream."""
    stated = [key for key in doc if key.endswith("_ttft_ms") and key[:-len("_ttft_ms")] in STATS]
    if not stated or not m.metrics.get(R.COMPLETED) or any(doc[key] != 0 for key in stated):
        return
    said = (written or {}).get(stated[0], stated[0])
    drop_streamed(m, "untimed-first-token", f"warning: {said}: every TTFT statistic is 0 over "
                  f"{m.metrics[R.COMPLETED]} completed requests, so the client timed no first token (each response "
                  "came whole, as from a server that streamed none); its TPOT is then the whole request's latency "
                  "over its tokens: stored without TTFT, TPOT and ITL",
                  "serve the responses streamed (a PD router's too) and rerun the point to measure them")


def first_token_at_end(m: Measurement) -> None:
    """A run whose TTFT is at or above its end-to-end latency at every statistic the output states of both, their
    means among them (their spread aside), over requests of more than one output token on average: the client took
    each request's first token when its response ended, so it did not stream. SGLang's bench_serving with
    --disable-stream sets a chat request's TTFT to its latency and times a completions or /generate response's one
    chunk just after its end (python/sglang/bench_serving.py); its TPOT is then 0 or a hair below and its ITL empty,
    and its output names no flag that says so. A streamed request's first token comes before its last, so its
    run's TTFT is below its E2E at every statistic, but a run of one-token answers, whose first token is its last. A
    line of medians alone (2024's bench_serving) cannot tell a run that did not stream from one whose every other
    response came in one piece: its TTFT is kept, and a median above the E2E's is warned of (``plausible.oddities``).
    Treated as AIPerf's streaming: false is (``drop_streamed``)."""
    stated = [(parts, value) for name, value in m.metrics.items() if value is not None
              and (parts := R.latency_stat(name)) and parts[1] not in UNDIRECTED_STATS]
    ttft, e2el = ({stat: value for (of, stat), value in stated if of == latency} for latency in (R.TTFT, R.E2EL))
    both = [stat for stat in ttft if stat in e2el]
    done, tokens = m.metrics.get(R.COMPLETED), m.metrics.get(R.TOTAL_OUTPUT_TOKENS)
    if "mean" not in both or not done or tokens is None or tokens <= done \
            or any(ttft[stat] < e2el[stat] * (1 - plausible.ROUNDING) for stat in both) \
            or any(value > R.MAX_FIGURE for value in (*ttft.values(), *e2el.values())):
        return  # (a figure past any measurement is the output's corruption, refused at its key: no sign of a mode)
    first, whole = R.latency_name(R.TTFT, both[0]), R.latency_name(R.E2EL, both[0])
    drop_streamed(m, UNSTREAMED_RULE, f"warning: {m.said(first)}: the time to first token is the whole request's (at "
                  f"or above {m.said(whole)}, the end-to-end latency, at every statistic both state, over {tokens:g} "
                  f"output tokens in {done:g} request{'s' * (done != 1)}), so the client did not stream (bench_serving "
                  "--disable-stream) or the server sent each response whole; stored without TTFT, TPOT and ITL",
                  "rerun the point streamed (without --disable-stream) to measure them")


def _failed(doc: dict, path: str, line: int):
    if doc.get("failed") is not None:
        return number(doc, "failed", path, line)
    errors = doc.get("errors")
    if isinstance(errors, list) and doc.get("completed") is not None:
        return sum(1 for e in errors if e)
    prompts, completed = doc.get("num_prompts"), doc.get("completed")
    if isinstance(prompts, int) and isinstance(completed, int) and prompts >= completed:
        return prompts - completed
    return None


def _more_than_sent(doc: dict, path: str, line: int) -> None:
    """Refuse more requests completed than the run sent (num_prompts); a multi-turn run counts
    turns, not its conversations, and is not held to it."""
    prompts, completed = doc.get("num_prompts"), doc.get("completed")
    if "num_conversations" in doc or "multi_turn_concurrency" in doc:
        return
    if all(isinstance(v, int) and not isinstance(v, bool) for v in (prompts, completed)) and completed > prompts:
        raise fail(path, line, f"completed: {count(completed, 'request')} completed of the {prompts} sent (num_prompts)",
                   edited_or_unsupported())


def _refuse_ramp_up(doc: dict, path: str, line: int) -> None:
    """``vllm bench serve --ramp-up-strategy`` raises the rate from ramp_up_start_rps to _end_rps during
    the run and leaves request_rate at its default, "inf": stored, it would read as every request sent
    at once, and match an unlimited-rate run's point."""
    strategy = doc.get("ramp_up_strategy")
    if strategy is not None:
        raise fail(path, line, f"ramp_up_strategy: a {strategy} ramp-up run (from {doc.get('ramp_up_start_rps')} "
                   f"to {doc.get('ramp_up_end_rps')} req/s): no one request rate holds its figures, and its "
                   f"request_rate {doc.get('request_rate')!r} is the unused default",
                   "benchmark the point at one --request-rate (or --max-concurrency) without --ramp-up-strategy")


# What every vllm bench serve / benchmark_serving output holds, in every version read here (2024's forks,
# 0.25's all-failed run among them): the run's duration and token totals. A document in its key names without
# one is another script's digest of a run (a few means copied out): its figures are no bench serve run's.
RUN_TOTALS = ("duration", "total_input_tokens", "total_output_tokens")


def _refuse_digest(doc: dict, path: str, line: int) -> None:
    missing = [key for key in RUN_TOTALS if key not in doc]
    if missing:
        raise fail(path, line, f"format: a serving summary in vLLM bench serve's key names without "
                   f"{', '.join(missing[:-1]) + ' or ' if len(missing) > 1 else ''}{missing[-1]} (every bench serve "
                   f"output holds {', '.join(RUN_TOTALS[:-1])} and {RUN_TOTALS[-1]}): another script's output, its "
                   "figures no bench serve run's",
                   "ingest the vllm bench serve --save-result JSON of the run (the job's $RESULT_FILENAME.json)")


def parse(doc: dict, path: str, line: int) -> Measurement:
    if is_sweep_warmup(doc):  # a cold server's figures, no measurement of the point: passed over
        raise SweepWarmup(path)
    written: dict[str, str] = {}  # a corrected key -> as written: a refusal of its value names and stands at it
    doc = clean_keys(doc, written)
    _refuse_ramp_up(doc, path, line)
    m = Measurement("vllm-serving", "vllm-bench", line, tags=metadata(doc))
    if framework := m.tags.get(FRAMEWORK_TAG, "").strip():
        m.fields[R.FRAMEWORK], m.keys[R.FRAMEWORK] = framework, FRAMEWORK_TAG
    e2el_named = any(key.endswith("_e2el_ms") for key in doc)
    m.metrics.update(latencies(doc, path, line, LATENCIES if e2el_named else E2EL_BEFORE_0_6, m.notes, m.keys,
                               written))
    read_throughputs(doc, THROUGHPUTS, m, path, written)
    untimed_first_token(doc, m, written)
    m.metrics[R.FAILED] = _failed(doc, path, line)
    rates_from_counts(m.metrics)  # vLLM writes no input throughput, SGLang does
    _more_than_sent(doc, path, line)
    m.computed |= _from_arrays(doc, m.metrics, path, line)
    first_token_at_end(m)
    if m.metrics.get(R.COMPLETED) is None and m.metrics.get(R.OUTPUT_THROUGHPUT) is None:
        raise fail(path, line, "completed/output_throughput: missing (a latency-only output, "
                   "like vllm-ascend 0.7's)",
                   "rerun with a benchmark_serving that saves completed, duration and throughputs")
    _refuse_digest(doc, path, line)
    # vllm-bench (the Rust client) states a multi-turn run's concurrency as conversations at once
    conc = concurrency(doc.get("max_concurrency", doc.get("multi_turn_concurrency")), path, line)
    m.uncapped = uncapped(doc, conc)
    model = doc.get("model_id")
    m.keys.update({R.CONC: "max_concurrency" if "max_concurrency" in doc else "multi_turn_concurrency",
                   R.MODEL: "model_id"})
    m.fields.update({R.MODEL: None if isinstance(model, str) and not model.strip() else model, R.CONC: conc,
                     R.REQUEST_RATE: rate_value(doc.get("request_rate")), **_window(doc)})
    m.setup = run_setup(doc, m.fields[R.REQUEST_RATE])
    # the energy's window: the InferenceX client's Unix times, never ``date`` (local time, no zone)
    m.run_window = run_window(*(doc.get(f"benchmark_{edge}_time_unix") for edge in ("start", "end")))
    return m


def _window(doc: dict) -> dict:
    """When the run started and finished: InferenceX's client states both as Unix times
    (``benchmark_start_time_unix``/``_end_``, UTC). The end stays ``date`` (the client's local time
    on saving) where the output has one, as sweepgate has always stored it: a result stored before
    is then the same on a second ingest (results are immutable), and gains only its start. ``date``
    has no zone: it is given the one that puts it beside the end's Unix time (``clock_zoned``), else
    none (stock vLLM's client writes no Unix time: which zone it was in is not known)."""
    start, end = (unix_time(doc.get(f"benchmark_{edge}_time_unix")) for edge in ("start", "end"))
    date = _date(doc.get("date"))
    return {R.STARTED: start, R.FINISHED: clock_zoned(date, doc.get("benchmark_end_time_unix")) or date or end}


def _date(value) -> str | None:
    """``20250414-165148`` (the client's local time) as ISO 8601 without a zone; an ISO 8601 date
    (vllm-bench's ``2026-09-04T20:34:56Z``) as it is, its zone kept."""
    if isinstance(value, str) and "T" in value:
        try:
            return datetime.fromisoformat(value).isoformat()
        except ValueError:
            return None
    if not isinstance(value, str) or len(value) != 15 or value[8] != "-":
        return None
    d, t = value[:8], value[9:]
    return f"{d[:4]}-{d[4:6]}-{d[6:]}T{t[:2]}:{t[2:4]}:{t[4:]}"
