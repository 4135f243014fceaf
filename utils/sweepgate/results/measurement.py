"""What a format parser returns: one measured run, before it meets its job."""

from __future__ import annotations

import dataclasses
import math
from datetime import datetime, timedelta, timezone

from sweepgate.core.errors import fail
from sweepgate.core.jsontext import said_key
from sweepgate.results import record as R


@dataclasses.dataclass
class Measurement:
    """One run in one client output (a JSONL file holds several).

    ``fields`` holds what the output itself states, under record names (model,
    conc, isl, osl, request-rate, started, finished); ``metrics`` the measured
    values under record metric names, latencies already in ms; ``evals`` eval
    scores. Derived values (per GPU, interactivity, success rate) are not here:
    ``derive`` computes them once the job's row is known.
    """

    source_format: str
    client: str
    line: int = 0
    client_version: str | None = None
    fields: dict = dataclasses.field(default_factory=dict)
    metrics: dict = dataclasses.field(default_factory=dict)
    evals: list = dataclasses.field(default_factory=list)
    cancelled: bool = False
    notes: list = dataclasses.field(default_factory=list)  # (rule, message, hint): stored with a warning
    dataset: str | None = None  # the prompts' dataset where the output names it (SGLang's dataset_name)
    # the output states that its client ran without a concurrency cap (vLLM's and SGLang's max_concurrency
    # null: no semaphore, every request sent at its rate): no conc a row names holds its figures
    uncapped: bool = False
    # record field or metric -> the output's own key it was read from (a dotted path, as ``jsontext.key_place``
    # takes it; a CSV export's ``Display Name (unit).column``): a refusal of the value names that key and
    # stands at it
    keys: dict = dataclasses.field(default_factory=dict)
    # record metric -> (line, column) of the file its value stands at, where its key alone cannot place it (a CSV
    # export's cell: ``jsonio.place`` finds a JSON key, not a table's cell); else the measurement's line
    places: dict = dataclasses.field(default_factory=dict)
    # the client's own run, (start, end) in epoch seconds, where the output states both beyond doubt
    # (Unix times, or times with a zone): the window energy per token is integrated over, rather than
    # the job's, which holds the server's start and model loading. Not stored.
    run_window: tuple[float, float] | None = None
    # what the user tagged the run with (vLLM's ``--metadata KEY=VALUE`` pairs, top-level strings of its
    # output), by key. Not stored: the lines of one output at one point must agree on them
    # (``normalize.check_one_setup``), or they would be stored as repeats of one measurement.
    tags: dict = dataclasses.field(default_factory=dict)
    # what the run measured beyond its point, as the client's own keys name it (vLLM's model_id, backend,
    # --label, ...; SGLang's backend, dataset_name, server model ...; AIPerf's model, endpoint type,
    # streaming): the output's key (a dotted path, as ``keys``) -> its value as written, a null or absent
    # one left out. Not stored: checked as ``tags`` are, runs of one setup at one point being its repeats.
    setup: dict = dataclasses.field(default_factory=dict)
    # metrics sweepgate computed from the output's per-request arrays (vLLM's p90 TTFT and ITL), not the
    # client's own figures: left out where its figures are checked against one another (``plausible``)
    computed: set = dataclasses.field(default_factory=set)
    # what the run measured of its point where it states no setting of it: its requests' mean input tokens
    # (INPUT_MEAN: AIPerf/GenAI-Perf's input_sequence_length avg), the requests it held in flight on average
    # (IN_FLIGHT: its request throughput times its mean request latency, Little's law), by name (``keys`` and
    # ``places`` name their figure's key and cell). Not stored: held to the job's row
    # (``normalize.inputs_unlike_row``, ``normalize.in_flight_unlike_row``).
    averaged: dict = dataclasses.field(default_factory=dict)

    def key(self, name: str) -> str:
        """The output's own key of the record field or metric ``name``, else ``name``."""
        return self.keys.get(name) or name

    def said(self, name: str) -> str:
        """``key(name)`` as a message names it (``jsontext.said_key``: ``"request_goodput:"`` quoted)."""
        return said_key(self.key(name))

    def place_of(self, name: str) -> tuple[int, int]:
        """(line, column) a refusal or warning of the metric ``name`` stands at: its cell in a CSV export, else the
        measurement's line and no column (``jsonio.place`` then finds its key there)."""
        return self.places.get(name) or (self.line, 0)


INPUT_MEAN, IN_FLIGHT = "input-mean", "in-flight"  # ``Measurement.averaged``'s names


def random_lengths(dataset: str | None) -> bool:
    """Whether a client's dataset draws prompts at the requested lengths (SGLang's ``random``,
    ``random-ids``, ...), rather than one of its own lengths (ShareGPT): the one rule for both."""
    return dataset is not None and dataset.startswith("random")


# Of the output length a run states it asked for: a run whose responses averaged under this share of it
# was cut short (a server over its context limit, a broken EOS); a spread of requested lengths or an early
# EOS does not reach it. The one threshold for every client's check of its outputs' length.
SHORT_OUTPUTS = 0.25


def outputs_short(tokens, asked) -> bool:
    """Whether ``tokens`` output tokens fall under SHORT_OUTPUTS of the ``asked`` for (both totals over a
    run's completed requests; False where either is unknown)."""
    return (isinstance(tokens, (int, float)) and isinstance(asked, (int, float)) and asked > 0
            and tokens < SHORT_OUTPUTS * asked)


def edited_or_unsupported(what: str = "output") -> str:
    """The hint of a value no client version read here writes so: the file (``what``: output, export) was edited."""
    return f"the {what} was edited or comes from an unsupported client version"


NOT_A_MEASUREMENT = "the client wrote NaN or Infinity for a metric; the run is broken, rerun it"
NEGATIVE = "a latency, count or throughput cannot be negative; the output is corrupt, rerun it"


def number(doc: dict, key: str, path: str, line: int, *, where: str | None = None,
           least: float = 0.0, what: str = "output") -> float | int | None:
    """A numeric value of ``doc[key]`` or None when absent/null; anything else is refused, NaN,
    Infinity and a value below ``least`` by the output's own key (``where``: as the file names it; every value
    read here is stored as a metric); ``what``: the file, as ``edited_or_unsupported`` names it."""
    value = doc.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise fail(path, line, f"{said_key(where or key)}: expected a number, got {value!r}",
                   edited_or_unsupported(what))
    return measured(value, where or key, path, line, least)


def measured(value: float | int, name: str, path: str, line: int, least: float = 0.0) -> float | int:
    """``value``, refused unless it is a measurement: finite and not below ``least`` (0; for a TPOT or ITL a
    hair below it, ``plausible.least``, in the value's unit), named ``name`` (the output's own key where a
    parser reads it, the record's metric where a record is checked)."""
    if not math.isfinite(value):
        raise fail(path, line, f"{said_key(name)}: {value} is not a measurement", NOT_A_MEASUREMENT)
    if value < least:
        beyond = f", below {least:g}, the least a client's timers can write" if least else ""
        raise fail(path, line, f"{said_key(name)}: negative ({value}){beyond}", NEGATIVE)
    return value


def further_stat(value, where: str, notes: list, least: float = 0.0) -> float | int | None:
    """A latency statistic beyond ``record.STATS`` (min, max, any other percentile: ``stat_name``), newer
    in sweepgate than the rest, at the output's ``where``: a measurement (not below ``least``, as ``measured``
    takes it) is kept; anything else (NaN, a negative, a string) is left out with a warning in ``notes``, never a
    refusal, so an output sweepgate accepted while it skipped these statistics is still accepted."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value >= least:
        return value
    if value is not None:
        notes.append(("latency-stat", f"warning: {said_key(where)}: {value!r} is no latency; stored without it",
                      "the client wrote a broken statistic; the run's other figures are kept"))
    return None


# One rule for every serving client (vLLM, SGLang, AIPerf/GenAI-Perf): a run against an endpoint that generates no
# tokens (embeddings, pooling, scoring, reranking) measured an end-to-end latency and a request rate alone, no output
# throughput, TTFT or TPOT; stored, it would be a "success" beside generation runs with nothing they are compared by,
# or its request rate and latency judged against a generation baseline's. It is refused, one message for all; each
# client's parser tells it from what its output states (``refuse_tokenless``'s callers).
TOKENLESS = ("against an endpoint that generates no tokens ({endpoint}: embeddings, pooling, scores or reranking; "
             "end-to-end latency only), not a generation run")


def refuse_tokenless(path: str, line: int, run: str, endpoint: str, generating: str) -> None:
    """Refuse the output at ``path`` of ``run`` (``a vllm bench serve run``) against ``endpoint`` (as the output names
    it), naming the client's ``generating`` choices (``backend (openai, openai-chat, vllm)``) in the fix."""
    raise fail(path, line, f"format: {run} {TOKENLESS.format(endpoint=endpoint)}",
               f"benchmark the point with a generation {generating} and ingest that output, or remove the file")


STREAMED = (R.TTFT, R.TPOT, R.ITL)  # what only a streamed response times
UNSTREAMED_RULE = "unstreamed"


def drop_streamed(m: Measurement, rule: str, message: str, hint: str) -> None:
    """Leave out ``m``'s TTFT, TPOT and ITL (``STREAMED``), every statistic and any computed from arrays, with one
    warning (``rule``, ``message``, ``hint``) where there was one to leave out: the client timed no first token apart
    from the response's end (it did not stream, or the server sent each response whole), so its TTFT is the whole
    request's and its TPOT and ITL are no decode speed. Every client's parser tells it by what its output says
    (AIPerf's streaming: false; vLLM's and SGLang's figures, ``vllm.first_token_untimed``) and calls this."""
    dropped = [name for name in m.metrics if name.startswith(tuple(f"{latency}_" for latency in STREAMED))]
    for name in dropped:
        del m.metrics[name]
        m.computed.discard(name)
    if dropped:
        m.notes.append((rule, message, hint))


def require(measurement: Measurement, path: str, *names: str, why: str) -> None:
    """Refuse an output lacking every one of ``names`` among its metrics."""
    if all(measurement.metrics.get(n) is None for n in names):
        raise fail(path, measurement.line, f"{'/'.join(names)}: missing; {why}",
                   "rerun with a client version that records it, or ingest the job's full output")


def finite_or_none(value):
    return value if value is None or (isinstance(value, (int, float)) and math.isfinite(value)) else None


# The Unix times a run can start or end at: none of these clients existed before 2020; a time past
# 9999 has no ISO 8601 form. Outside them a value is no time the run had.
EARLIEST, LATEST = 1_577_836_800, 253_402_300_799


def run_window(start, end) -> tuple[float, float] | None:
    """(start, end) of a client's run as epoch seconds, when both are times a run can have (numbers
    in EARLIEST..LATEST) and the end is after the start; else None (no window, not a guess)."""
    if any(isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v)
           or not EARLIEST <= v <= LATEST for v in (start, end)) or end <= start:
        return None
    return float(start), float(end)


def unix_time(value) -> str | None:
    """A Unix time in seconds as UTC ISO 8601, or None when it is no time a run had."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or not EARLIEST <= value <= LATEST:
        return None
    return datetime.fromtimestamp(value, timezone.utc).isoformat(timespec="seconds")


# How far a client's local clock reading of a moment may be from its Unix time of a moment beside it (vLLM's
# `date` when it saves, its run's end; AIPerf's start_time, its first request) once the zone is taken off.
CLOCK_SLACK = timedelta(minutes=5)


def clock_zoned(clock, unix) -> str | None:
    """``clock``, a client's local time written without a zone, with the zone it was in: the whole quarter hours
    (R.ZONE_STEP, at most R.ZONE_SPAN) between it and ``unix``, the client's Unix time (seconds, UTC) of a moment
    beside it, within CLOCK_SLACK. None when either is missing or no zone puts them that close: the time's zone
    is then unknown (stored without one). A ``clock`` with a zone of its own is returned as it is."""
    at = R.moment(clock)
    if at is None or at.tzinfo is not None:
        return clock if at is not None else None
    if unix_time(unix) is None:
        return None
    apart = at - datetime.fromtimestamp(unix, timezone.utc).replace(tzinfo=None)
    zone = R.ZONE_STEP * round(apart / R.ZONE_STEP)
    if abs(zone) > R.ZONE_SPAN or abs(apart - zone) > CLOCK_SLACK:
        return None
    return at.replace(tzinfo=timezone(zone)).isoformat()


def latency_key(latency: str, stat: str) -> str:
    return R.latency_name(latency, stat)
