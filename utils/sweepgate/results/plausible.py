"""Figures of one run that cannot all be true, and figures that can but rarely are: the one place of
the rules and their slack.

Refused (``impossible``): what no client's own arithmetic can write. The statistics of one latency are
of one set of values (a client computes them from one list), so its percentiles rise with their rank
(p25 <= p50 <= ... <= p99.9, min first, max last) and its mean lies between its min and max; a run's
requests per second times its duration cannot be more requests than it sent. NaN, Infinity and a
figure below its ``least`` (0; a hair below it for a TPOT or ITL) are refused as they are read
(``measurement.measured``).

Warned of, stored as written (``oddities``): a latency of a part of a request above the whole request's
end-to-end latency at the same statistic (TTFT, TPOT or ITL above E2E). Per request, the first token comes
before the last, but clients time and count them apart: vLLM's TPOT leaves out one-token requests and its
ITL pools the gaps of all requests, so their mean can exceed the mean E2E of a run of short answers;
AIPerf and GenAI-Perf take TTFT over the requests that streamed a token; and SGLang's timers put a
response that arrived in one piece a hair past its end (a 2024 fork's console shows median TTFT 606.88 ms
against median E2E 606.86 ms); and a TPOT or ITL statistic below 0 by at most TIMER_SLACK_MS, what those
timers make of such a response's time per token.
"""

from __future__ import annotations

from sweepgate.core.errors import fail
from sweepgate.core.metrics import UNDIRECTED_STATS, percentile_of
from sweepgate.results import record as R
from sweepgate.results.measurement import Measurement

# Relative slack between two figures of one output that must be in order: float rounding in the client's
# arithmetic and in the unit conversion, never a measurement.
ROUNDING = 1e-9
# Request throughput over what the run's completed and failed requests in its duration give: a client's
# own rate is that (vLLM, SGLang) or below it (AIPerf counts over its first request to last response); the
# slack is for figures written rounded (AIPerf's CSV: two decimals, RATE_DIGITS req/s off at most).
RATE_SLACK = 0.05
RATE_DIGITS = 0.005
# The latencies that are a part of a request, each warned of when above the whole request's (E2E).
PARTS = (R.TTFT, R.TPOT, R.ITL)
WHOLE = R.E2EL
# How far a client's timers can put a part of a request past the whole of it: SGLang's bench_serving reads a
# response's clock before it parses the chunk that holds its first token, so a response that came in one
# piece has its TTFT a hair past its end (0.02 to 0.07 ms at the median in a 2024 fork's consoles) and its
# TPOT, that difference over its tokens, a hair below 0 (the same console: "Median TPOT (ms): -0.00"). A TPOT
# or ITL statistic below 0 by at most this is stored with a warning (``oddities``); further below, refused.
TIMER_SLACK_MS = 1.0
# The latencies that are a difference of two of a request's times (its end's and its first token's, two
# tokens'), which those timers can put below 0.
DIFFERENCES = (R.TPOT, R.ITL)
NEGATIVE_RULE = "latency-below-zero"

# The figures a client's rates are computed from where it writes none (``vllm.rates_from_counts``): one beyond
# ``R.MAX_FIGURE`` is refused at its own key before a rate sweepgate computed from it, which the output has not.
SOURCES = (R.TOTAL_INPUT_TOKENS, R.COMPLETED, R.DURATION_S)

CORRUPT = "the output is corrupt or was edited; rerun the point (or ingest the client's output as written)"


def least(name: str) -> float:
    """The least value of the record metric ``name``: -TIMER_SLACK_MS (ms) for a TPOT or ITL statistic but its
    spread (a standard deviation is never below 0), else 0. ``measurement.measured`` refuses a value below it
    (``further_stat`` leaves it out)."""
    parts = R.latency_stat(name)
    return -TIMER_SLACK_MS if parts and parts[0] in DIFFERENCES and parts[1] not in UNDIRECTED_STATS else 0.0


def _by_latency(metrics: dict, skip: set) -> dict[str, dict[str, float]]:
    """latency -> stat -> value, of the client's own figures (``skip``: those sweepgate computed)."""
    out: dict[str, dict[str, float]] = {}
    for name, value in metrics.items():
        parts = R.latency_stat(name)
        if parts and value is not None and name not in skip:
            out.setdefault(parts[0], {})[parts[1]] = value
    return out


def _ours(m: Measurement, *names: str) -> str:
    """`` (sweepgate's ttft_p50_ms, ttft_p99_ms)`` after a message naming the output's own keys of ``names``,
    where one of them is not sweepgate's own name; else nothing."""
    return f" (sweepgate's {', '.join(names)})" if any(m.key(n) != n for n in names) else ""


def _order(latency: str, stats: dict[str, float], m: Measurement) -> tuple[str, str] | None:
    """(the metric it stands at, what) of one latency's statistics that is out of order, else None."""
    ranked = sorted((rank, stat, stats[stat]) for stat in stats if (rank := percentile_of(stat)) is not None)
    for (_, low, a), (_, high, b) in zip(ranked, ranked[1:]):
        if a > b * (1 + ROUNDING):
            low, high = R.latency_name(latency, low), R.latency_name(latency, high)
            return low, (f"{m.said(low)}: {a:g} ms is above {m.said(high)} ({b:g} ms), a higher percentile of the same "
                         f"requests, which cannot be lower{_ours(m, low, high)}")
    mean, least, most = stats.get("mean"), stats.get("min"), stats.get("max")
    if mean is not None and ((least is not None and mean < least * (1 - ROUNDING))
                             or (most is not None and mean > most * (1 + ROUNDING))):
        names = [R.latency_name(latency, stat) for stat in ("mean", "min", "max")]
        return names[0], (f"{m.said(names[0])}: {mean:g} ms is outside {m.said(names[1])}..{m.said(names[2])} "
                          f"({least:g}..{most:g} ms); a mean lies between its extremes{_ours(m, *names)}")
    return None


def sent(metrics: dict) -> float:
    """The requests a run sent: its completed ones and its failed ones (none when it does not say)."""
    return (metrics.get(R.COMPLETED) or 0) + (metrics.get(R.FAILED) or 0)


def _rate(metrics: dict, m: Measurement) -> str | None:
    """A request throughput more than the run's requests over its duration allow, said, else None."""
    rate, duration, done = (metrics.get(n) for n in (R.REQUEST_THROUGHPUT, R.DURATION_S, R.COMPLETED))
    if not (rate and duration and done is not None):
        return None
    asked = sent(metrics)
    allowed = asked / duration * (1 + RATE_SLACK) + RATE_DIGITS
    if rate <= allowed:
        return None
    return (f"{m.said(R.REQUEST_THROUGHPUT)}: {rate:g} req/s for {duration:g} s ({m.said(R.DURATION_S)}) is "
            f"{rate * duration:.0f} requests, but only {asked:g} completed or failed")


def _beyond(metrics: dict, m: Measurement) -> tuple[str, str] | None:
    """(the metric it stands at, what) of request counts more than a run sends (``R.MAX_RUN_REQUESTS``, each or
    together) or else of a figure above ``R.MAX_FIGURE``, the first in the output's order after SOURCES; else None."""
    cap = f"at most {R.MAX_RUN_REQUESTS:,}, completed and failed together"
    counts = {n: metrics[n] for n in (R.COMPLETED, R.FAILED) if metrics.get(n) is not None}
    for name, value in counts.items():
        if value > R.MAX_RUN_REQUESTS:
            return name, f"{m.said(name)}: {value:g} requests, more than a run sends ({cap})"
    if len(counts) == 2 and (total := sent(metrics)) > R.MAX_RUN_REQUESTS:
        return R.COMPLETED, (f"{m.said(R.COMPLETED)}: {counts[R.COMPLETED]:g} and {m.said(R.FAILED)}: "
                             f"{counts[R.FAILED]:g} requests, {total:g} together, more than a run sends ({cap})")
    for name in sorted(metrics, key=lambda n: n not in SOURCES):
        if (value := metrics[name]) is not None and abs(value) > R.MAX_FIGURE:
            return name, f"{m.said(name)}: {value:g} is beyond any measurement (at most {R.MAX_FIGURE:g}, in any unit)"
    return None


def refuse_impossible(metrics: dict, m: Measurement, path: str) -> None:
    """Refuse, one line at the output's key of the first figure named, figures of ``m`` (its ``metrics`` as
    stored) that cannot all be true, or that no run has (``_beyond``: before the rest, whose arithmetic they
    would overflow)."""
    if (found := _beyond(metrics, m)) is not None:
        line, col = m.place_of(found[0])
        raise fail(path, line, found[1], CORRUPT, col=col)
    for latency, stats in _by_latency(metrics, m.computed).items():
        if (found := _order(latency, stats, m)) is not None:
            line, col = m.place_of(found[0])
            raise fail(path, line, found[1], CORRUPT, col=col)
    if (what := _rate(metrics, m)) is not None:
        line, col = m.place_of(R.REQUEST_THROUGHPUT)
        raise fail(path, line, what, CORRUPT, col=col)


def oddities(metrics: dict, m: Measurement) -> list[tuple[str, str, str, str]]:
    """Warnings (rule, message, hint, the metric it stands at) of parts of a request above the whole request,
    one per latency naming every statistic it is above at, and of a TPOT or ITL a hair below 0, one per latency."""
    return _above_whole(metrics, m) + _below_zero(metrics, m)


def _above_whole(metrics: dict, m: Measurement) -> list[tuple[str, str, str, str]]:
    stats = _by_latency(metrics, m.computed)
    whole, said = stats.get(WHOLE, {}), []
    for part in PARTS:
        above = [(s, v, whole[s]) for s, v in sorted(stats.get(part, {}).items())
                 if s not in UNDIRECTED_STATS and s in whole and v > whole[s] * (1 + ROUNDING)]
        if above:
            listed = ", ".join(f"{s} {v:g} > {w:g} ms" for s, v, w in above)
            first = R.latency_name(part, above[0][0])
            said.append(("latency-above-e2e",
                         f"warning: {m.said(first)}: {part} is above the end-to-end latency ({WHOLE}) at {listed}"
                         f"{_ours(m, first)}; stored as written",
                         "a part of a request cannot take longer than the request: check how the client "
                         "times and counts them (one-token answers, responses in one piece)", first))
    return said


def _below_zero(metrics: dict, m: Measurement) -> list[tuple[str, str, str, str]]:
    """The warning of each latency with a statistic below 0 (within TIMER_SLACK_MS: the rest is refused)."""
    below: dict[str, list[str]] = {}
    for name in sorted(metrics):
        if metrics[name] is not None and metrics[name] < 0 and least(name) < 0:
            below.setdefault(R.latency_stat(name)[0], []).append(name)
    return [(NEGATIVE_RULE, f"warning: {m.said(names[0])}: {latency} below 0 ("
             + ", ".join(f"{m.said(n)} {metrics[n]:g} ms" for n in names) + f"){_ours(m, *names)}; stored as written",
             "a time per token cannot be negative, but a client's timers can put a response's end before its first "
             f"token (SGLang reads the clock before it parses a chunk), by at most {TIMER_SLACK_MS:g} ms: check how "
             "the client times them", names[0]) for latency, names in below.items()]
