"""The normalized result record: every field name, unit and direction, in one place.

A record is one job's outcome as a flat JSON object (``result.schema.json``):
identity (which point of which recipe), provenance (which run produced it) and
metrics (what it measured). Units are part of the metric names: ``_ms`` for
milliseconds, ``_s`` for seconds, ``_per_gpu`` for tok/s/GPU.
"""

from __future__ import annotations

import math
import re
from datetime import datetime, timedelta, timezone

from sweepgate.core.jobfile import (  # noqa: F401 - the job sidecar's keys are provenance fields
    ATTEMPT, COMMIT, CONFIG_KEY, FINISHED, JOB_KEYS, REF, REHEARSAL, RUN_ID, RUN_IDENTITY, RUNNER_NAME, STARTED,
    STATUS, STATUSES, SUCCESS, FAILURE, CANCELLED,
)
from sweepgate.core.jobfile import EVAL_SUFFIX
from sweepgate.core.metrics import (  # noqa: F401 - the metric names belong to every result
    REQUEST_THROUGHPUT, REQUEST_GOODPUT, OUTPUT_THROUGHPUT, INPUT_THROUGHPUT, TOTAL_TOKEN_THROUGHPUT, OUTPUT_TPUT_PER_GPU,
    INPUT_TPUT_PER_GPU, TPUT_PER_GPU, INTERACTIVITY, COMPLETED, FAILED, SUCCESS_RATE, DURATION_S,
    ENERGY_PER_OUTPUT_TOKEN_J, ACCEPT_LENGTH, LATENCIES, STATS, EXTREMES, stat_name, latency_name, latency_stat,
    LATENCY_METRICS, HIGHER_IS_BETTER, MAX_OUTPUT_TOKENS_PER_S, MAX_CONCURRENT_REQUESTS,
    LOWER_IS_BETTER, DIRECTION, METRIC_THRESHOLDS, fraction_example, COMPARED_METRICS, TTFT, TPOT, ITL, E2EL,
)

SCHEMA_VERSION = 1

# --- identity ---------------------------------------------------------------------
RECIPE_FINGERPRINT = "recipe-fingerprint"
# CONFIG_KEY ("config-key"): the master-config key (named in core.jobfile)
EXP_NAME = "exp-name"
RESULT_FILENAME = "result-filename"
MODEL = "model"
# An eval of a model with an adapter loaded (lm-eval's peft= / lora_local_path=) names both:
# "<model> with adapter <path>"; its scores are not the model's own.
WITH_ADAPTER = " with adapter "
MODEL_PREFIX = "model-prefix"
PRECISION = "precision"
FRAMEWORK = "framework"
RUNNER = "runner"            # the runner label (pool), e.g. cluster:b300-nv
# RUNNER_NAME ("runner-name"): the machine that ran it
HARDWARE = "hardware"        # GPU family: b300, mi355x
TP = "tp"
EP = "ep"
DP_ATTN = "dp-attn"
PP = "pp"
DCP_SIZE = "dcp-size"
PCP_SIZE = "pcp-size"
GPUS = "gpus"
CONC = "conc"
SCENARIO = "scenario"        # fixed-seq-len | agentic-coding
ISL = "isl"
OSL = "osl"
SPEC_DECODING = "spec-decoding"
DISAGG = "disagg"
KV_OFFLOADING = "kv-offloading"
KV_OFFLOAD_BACKEND = "kv-offload-backend"
KV_OFFLOAD_BACKEND_VERSION = "kv-offload-backend-version"
IMAGE = "image"
TOPOLOGY = "topology"        # parallelism as one string: tp8-pp1-dcp1-pcp1-ep1-dpafalse, or p2x(...)_d1x(...)
REQUEST_RATE = "request-rate"  # the client's request rate: a number, "inf", or null

# The largest whole number a record may carry: the store keeps isl, osl, conc, gpus and attempt
# in integer columns (64-bit in SQLite, 32-bit INTEGER in PostgreSQL).
MAX_INTEGER = 2**31 - 1
# The largest figure a record holds, in any metric's unit (ms, tok/s, s, tokens, requests): a thousand
# million million, beyond any run (31,000 years in ms, a run of a million requests of a billion tokens each).
# Ingest refuses a figure above it (``plausible``); compare reads one an older sweepgate stored as none, so
# the arithmetic on figures (sums, medians, the noise test's logarithms and back) stays within floats.
MAX_FIGURE = 1e15
# The most requests one run sends, completed and failed together: a thousand million, more than a day of
# one point at 10,000 requests a second (InferenceX sends ten per unit of concurrency). Ingest refuses a run
# said to have sent more (``plausible``); its counts in a record an older sweepgate stored are none
# (``derive.request_counts``), and so is the success rate derived from them.
MAX_RUN_REQUESTS = 10**9

# --- provenance ---------------------------------------------------------------------
# The job's own keys (run-id, attempt, commit, ref, runner-name, started, finished,
# status, rehearsal, config-key) are the job sidecar's, named once in core.jobfile
# and imported at the top of this module.
CLIENT = "client"            # vllm-bench | sglang-bench | aiperf | genai-perf | lm-eval | ...
EVAL_CLIENT = "lm-eval"      # the client of eval records (scores under EVALS, no metrics)
# Each benchmark client as a person names it, where a report says what its output states (``derive.why_none``).
CLIENT_NAMES = {"vllm-bench": "vLLM's bench serve", "sglang-bench": "SGLang's bench_serving", "aiperf": "AIPerf",
                "genai-perf": "GenAI-Perf"}
CLIENT_VERSION = "client-version"
# The clients whose CLIENT_VERSION is the server's they measured, not their own: SGLang's bench_serving writes its
# server's ``server_info.version``. The recipe's image tells that version, and a PR that bumps it is judged on the
# bump (``compare.client_change`` leaves it out).
SERVER_VERSIONED_CLIENTS = frozenset({"sglang-bench"})
_RELEASE = re.compile(r"v?(\d+)(?:\.(\d+))?")


def client_major(version) -> tuple[int, ...] | None:
    """The release line of a client version as it is written (``0.8.0``, ``v1.2``): its major number, and before 1.0,
    where each minor release may change what the client counts (AIPerf 0.3 to 0.8), its minor one too; None for a
    version that does not begin with a number (lmms-eval's ``<branch>@<commit>``) or none."""
    found = _RELEASE.match(version.strip()) if isinstance(version, str) else None
    if found is None:
        return None
    major = int(found.group(1))
    return (major,) if major or found.group(2) is None else (major, int(found.group(2)))
SOURCE_FORMAT = "source-format"
SIDECAR_ONLY = "job-sidecar"  # the SOURCE_FORMAT of a job's record made from its sidecar alone (no output read)
SCHEMA = "schema-version"
SOURCE_LINE = "source-line"  # line of a JSONL output the record came from (0: the whole file)
# Which window the energy per output token was integrated over: the client's own run where its output
# states it beyond doubt (``Measurement.run_window``: AIPerf's first request to last response, the
# InferenceX vLLM client's Unix start and end), else the job's, which also holds the server's start
# and model loading. Null without an energy figure; absent from a record an older sweepgate stored.
ENERGY_WINDOW = "energy-window"
CLIENT_RUN_WINDOW = "client-run"
JOB_WINDOW = "job"
ENERGY_WINDOWS = (CLIENT_RUN_WINDOW, JOB_WINDOW)
# The GPU samples' column the energy was integrated from, its header as the monitor wrote it
# (``power.draw.average [W]``, ``socket_power``; ``gpu_metrics.draw_rank`` chose it). Null without an energy
# figure; absent from a record an older sweepgate stored.
ENERGY_POWER_COLUMN = "energy-power-column"
# `ci reuse`: a result recorded against a later run it was reused for names the job that
# measured it ({"run-id", "attempt", "result-filename"}); null for a job's own result.
REUSED_FROM = "reused-from"
# True: the record was stored from a workflow run cancelled before it finished (`results ingest --run-cancelled`, which
# the collect job passes when `ci collect --note` wrote its note). Its finished jobs' results are kept and reusable
# (``ci reuse``), but no baseline reads them: the run is part of a sweep. Absent (not cancelled) from a record an older
# sweepgate stored, and from a copy `ci reuse` records against a later run (that run's own).
RUN_CANCELLED = "run-cancelled"
# The SHA-256 (hex) of the bytes of the output file a record was read from: one output stored under two runs
# (ingested with --row, then without, or as two --run-ids) is told by it whatever its run. Null for a record
# made from a job's sidecar alone, and absent from one an older sweepgate stored.
OUTPUT_SHA256 = "output-sha256"
# [first request sent, last response received] of the client's run, Unix seconds, where its output states both
# to the nanosecond (AIPerf's min_request_timestamp/max_response_timestamp; its CSV export writes the same two):
# no two runs share both, and one run's JSON and CSV exports, which differ in bytes and round apart, state the same
# (``measurement_of``). Null where the output states none; absent from a record an older sweepgate stored.
REQUEST_SPAN = "request-span"


def is_placeholder(rec: dict) -> bool:
    """Whether ``rec`` is the record a job's sidecar alone made (SIDECAR_ONLY), which its output,
    read later, takes the place of (``store_immutable._fills``, ``results_ingest._append``)."""
    return rec.get(SOURCE_FORMAT) == SIDECAR_ONLY


def measurement_name(name: str, line: int) -> str:
    """The result name of the measurement on line ``line`` of job ``name``'s output of several (a JSONL of several
    lines, a sweep's summary): ``X#N``."""
    return f"{name}#{line}"


def job_of_measurement(name) -> str | None:
    """``X`` of ``X#N`` (``measurement_name``): the job a measurement of an output of several is of; else None."""
    base, sep, line = str(name).rpartition("#")
    return base if sep and base and line.isdigit() else None


def eval_partners(rec: dict) -> tuple[str, ...]:
    """The other result names an eval record's job may have it under (eval28, evalb30): an eval-only
    job's sidecar alone is stored under the job's result name ``X``, its scores (``X-eval.json``) under
    ``X-eval``, and a cut-short ``X-eval.json`` as a placeholder under ``X-eval``. For eval scores
    ``X-eval``, ``X``; for a placeholder ``X``, ``X-eval``, and also, when ``X`` itself ends in
    ``-eval``, what it would be the cut-short scores of (a record does not say which file made it:
    a job may be named ``gsm-eval``; the job fields the store and --jsonl compare tell them apart).
    Only eval records have any: a throughput job's placeholder is its ``X.json``'s."""
    name = rec.get(RESULT_FILENAME)
    if rec.get(CLIENT) != EVAL_CLIENT or not isinstance(name, str):
        return ()
    cut = (name[: -len(EVAL_SUFFIX)],) if name.endswith(EVAL_SUFFIX) and name != EVAL_SUFFIX else ()
    return (name + EVAL_SUFFIX, *cut) if is_placeholder(rec) else cut


def measured_by(rec: dict) -> tuple:
    """The job whose measurement ``rec`` is: its own, or the one ``ci reuse`` copied it from."""
    origin = rec.get(REUSED_FROM)
    if isinstance(origin, dict):
        return origin.get(RUN_ID), origin.get(ATTEMPT), origin.get(RESULT_FILENAME)
    return rec.get(RUN_ID), rec.get(ATTEMPT), rec.get(RESULT_FILENAME)


def output_measured(rec: dict) -> tuple | None:
    """Which measurement of which output file ``rec`` is (the file's bytes' SHA-256, its line), whatever run it is
    stored under; None when the record does not say (made from a sidecar alone, or stored by an older sweepgate)."""
    digest = rec.get(OUTPUT_SHA256)
    return (digest, rec.get(SOURCE_LINE) or 0) if isinstance(digest, str) else None


def measurement_of(rec: dict) -> tuple:
    """The one measurement ``rec`` is, whichever run it is stored under: the client's run its output states to the
    nanosecond (``REQUEST_SPAN``: one run's JSON and CSV exports), else its output file's (``output_measured``), else
    the job that measured it (``measured_by``): one output stored as two runs, both exports of one run, and
    ``ci reuse``'s copies of a job's result, are each one measurement."""
    return request_span(rec) or output_measured(rec) or measured_by(rec)


def request_span(rec: dict) -> tuple | None:
    """(REQUEST_SPAN, first, last) of ``rec`` where it states its client's run to the nanosecond, else None."""
    span = rec.get(REQUEST_SPAN)
    return (REQUEST_SPAN, *span) if isinstance(span, list) and len(span) == 2 else None


# STARTED, FINISHED: ISO 8601, in UTC ("+00:00") whatever zone the sidecar or client wrote it in; a time written
# without a zone (stock vLLM's `date`, AIPerf's start_time: the benchmark machine's clock) without one, as written,
# which zone it was being unknown (stored_time)
TIMES = (STARTED, FINISHED)


def moment(text) -> datetime | None:
    """An ISO 8601 time (``T`` or a blank between date and time, ``-`` or ``/`` in the date), else None."""
    if not isinstance(text, str):
        return None
    try:
        return datetime.fromisoformat(text.strip().replace("/", "-").replace(" ", "T", 1))
    except ValueError:
        return None


def stored_time(text):
    """A record's started or finished time as it is stored: in UTC, so that stored times order as text
    whatever zone they were written in (``12:00+02:00`` came before ``11:00Z``); a time without a zone
    without one (its clock reading, ISO 8601 with a ``T``), since which zone it is in is not known: it
    orders among times in UTC by that reading, the same on any machine. Anything else stays as it is."""
    try:
        if (at := moment(text)) is None:
            return text
        return at.isoformat() if at.tzinfo is None else at.astimezone(timezone.utc).isoformat()
    except (ValueError, OverflowError):
        return text


# The UTC offsets clocks are set to: whole quarter hours, none more than 14 hours from UTC.
ZONE_STEP, ZONE_SPAN = timedelta(minutes=15), timedelta(hours=14)


def same_time(stored, new) -> bool:
    """Whether a stored start or finish and the one an output ingested again gives are one time: the same
    clock reading in one zone or another (whole quarter hours apart, ZONE_STEP, at most ZONE_SPAN; each in UTC
    where it has a zone). An older sweepgate stored a time written without a zone in UTC, taken in the zone of
    the machine that ingested it (``2026-01-01T12:00:00`` as ``06:30:00+00:00`` in India); which that was, the
    store does not say."""
    old, now = stored_time(stored), stored_time(new)
    if old == now:
        return True
    a, b = moment(old), moment(now)
    if a is None or b is None:
        return False
    try:
        apart = _reading(a) - _reading(b)
    except OverflowError:
        return False
    return abs(apart) <= ZONE_SPAN and apart % ZONE_STEP == timedelta(0)


def _reading(at: datetime) -> datetime:
    """``at``'s clock reading in UTC where it has a zone, else as written."""
    return at if at.tzinfo is None else at.astimezone(timezone.utc).replace(tzinfo=None)


# When a record happened: the one rule by which `results compare` (here, in Python) and the store (in SQL,
# ``store_query._happened`` and ``store_query._run_order``) place records in time, so that a baseline read from a
# store and one read from files holding the same records are the same runs (CONTRACTS section 8). It is the
# record's finished time, else its started, as stored (stored_time). A record with neither (an output ingested
# with --row that states no time) happened before every record that has one (NO_TIME sorts first): history filled in
# by hand, never newer than a run with a time, and never placed by when it was ingested, which files do
# not carry. Records of one time (those without any, too) are ordered by run id, then attempt.
HAPPENED = (FINISHED, STARTED)
NO_TIME = ""


def happened(rec: dict) -> str:
    """When ``rec`` happened (HAPPENED), as text that orders as time does; NO_TIME when it carries none."""
    return str(stored_time(next((rec.get(f) for f in HAPPENED if rec.get(f)), None)) or NO_TIME)


# Whose order is not known: a time written without its zone (stored as its clock reading, ``stored_time``) is any
# moment ZONE_SPAN either side of that reading, so beside a time with a zone (stored in UTC) whose reading is as
# near, which came first is not known. Such records keep their place as stored (by that reading: the one rule
# above, in SQL and in Python alike); a pick of the newest that rests on such a pair is said (``unordered_line``).
def zoned(text) -> bool | None:
    """Whether a stored start or finish was written with its zone (True) or without one (False); None when it
    is no time (NO_TIME, text that is none)."""
    at = moment(text)
    return None if at is None else at.tzinfo is not None


def unordered_times(one, other) -> bool:
    """Whether which of two stored times came first is not known: one written without its zone, the other with
    one, their readings (the one with a zone's in UTC) at most ZONE_SPAN apart."""
    a, b = moment(one), moment(other)
    if a is None or b is None or (a.tzinfo is None) == (b.tzinfo is None):
        return False
    try:
        return abs(_reading(a) - _reading(b)) <= ZONE_SPAN
    except OverflowError:
        return False


def unordered(rec: dict, other: dict) -> bool:
    """Whether which of two records happened first (``happened``) is not known (``unordered_times``)."""
    return unordered_times(happened(rec), happened(other))


def said_when(run, result, at: str) -> str:
    """A record (or a run's start, ``result`` None) and its time as an order-unknown line names them:
    ``run 1002's result 'a' (2026-01-01T12:00:00, written without its zone)``."""
    what = f"run {run}'s result {result!r}" if result is not None else f"run {run}"
    return f"{what} ({at}{'' if zoned(at) else ', written without its zone'})"


def said_record(rec: dict) -> str:
    return said_when(rec.get(RUN_ID), rec.get(RESULT_FILENAME), happened(rec))


def unordered_line(pairs: list[tuple[str, str, str]], what: str) -> str:
    """One line for every pick of the newest that rests on a pair of unknown order (``unordered``): each
    pair (the one taken, as ``said_when`` names it; how it was taken; the other), the first said, the
    rest counted as ``what`` (``point``: ``and 2 more points alike``)."""
    from sweepgate.core.report import count

    taken, how, other = pairs[0]
    more = f" (and {count(len(pairs) - 1, f'more {what}')} alike)" if len(pairs) > 1 else ""
    span = int(ZONE_SPAN.total_seconds() // 3600)
    return (f"warning: {taken} {how} {other}{more}, by their clock readings; a time written without its zone is "
            f"any moment up to {span} h either side of its reading, so which came first is not known")


UNORDERED_RULE = "unordered-times"  # the title of that warning, by results show and results compare
UNORDERED_HINT = ("ingest such outputs with their job's sidecar (.job.json, `sweepgate results sidecar`), whose "
                  "times carry their zone")


def run_order(run_id) -> tuple:
    """GitHub run ids grow with time: as numbers ("999" before "1000"); other ids after them, as text (a
    run id of other digits too: `²` is str.isdigit() and no int()). ``store_query._run_order`` in SQL."""
    text = str(run_id or "")
    return (0, int(text), text) if text.isascii() and text.isdigit() else (1, 0, text)


def time_order(rec: dict) -> tuple:
    """Oldest first: when it happened (``happened``), then run id (``run_order``), then attempt."""
    return happened(rec), run_order(rec.get(RUN_ID)), int(rec.get(ATTEMPT) or 0)


# When a compared run happened, as its baseline is read from before it: (its earliest time, its run id).
# A record of another run at that very time is before the run when its run id is (``time_order``): two main
# runs ingested from outputs of one time (a vLLM output's `date`) are one before the other, not each the
# other's later run, which left both without a baseline ("new" at every point main measured; polish29).
# A time alone (ISO 8601) is a moment no run is at: what happened before it.
Past = tuple[str, str] | str


class Pasts:
    """A compared run's past point by point (``compare.past_of``): at a point it measured, the earliest time of its
    own measurements there, so main's run of a point is before the run when main measured that point before the
    run did (walker s43: three main runs made of one conc 32 output of 10:35 and one conc 64 output of 11:44, the
    run placed at 10:35, had run 103 judge conc 32 against runs 101 and 102 and call conc 64 new); at any other
    point (what main measured and the run did not, main's picture of it), the run's own past, ``run``: its
    earliest time. The run id is the run's at every point."""

    def __init__(self, run: tuple[str, str], points: dict[tuple, tuple[str, str]]):
        self.run, self.points = run, points

    def at(self, point: tuple) -> tuple[str, str]:
        return self.points.get(point, self.run)

    @property
    def latest(self) -> tuple[str, str]:
        """The latest of its pasts: every record before the run at some point is before this."""
        return max([self.run, *self.points.values()])

    def __eq__(self, other) -> bool:
        return isinstance(other, Pasts) and (self.run, self.points) == (other.run, other.points)

    def __repr__(self) -> str:
        return f"Pasts({self.run!r}, {self.points!r})"


def past_at(past: "Past | Pasts | None", point: tuple) -> "Past | None":
    """``past`` at ``point`` (a ``Pasts``'s there; any other as it is)."""
    return past.at(point) if isinstance(past, Pasts) else past


def run_past(past: "Past | Pasts | None") -> "Past | None":
    """The run's own past (its earliest time) of ``past``: what main's picture of the points it did not measure is
    read before."""
    return past.run if isinstance(past, Pasts) else past


def latest_past(past: "Past | Pasts | None") -> "Past | None":
    """The latest of ``past``'s (``Pasts.latest``): what a look-up then narrowed point by point asks for."""
    return past.latest if isinstance(past, Pasts) else past


def before(rec: dict, past: "Past | Pasts") -> bool:
    """Whether ``rec`` happened before the run whose ``past`` it is (``time_order`` without the attempt), of
    ``Pasts`` at ``rec``'s point; ``store_query._before`` in SQL."""
    if isinstance(past, Pasts):
        past = past.at(point_values(rec))
    if isinstance(past, str):
        return happened(rec) < past
    return (happened(rec), run_order(rec.get(RUN_ID))) < (past[0], run_order(past[1]))


def short_ref(ref: str) -> str:
    """refs/heads/main -> main, refs/pull/42/merge -> pull/42/merge: the part a reader tells apart; a full
    commit id as every message names one (``fields.short_sha``). Every report names a baseline ref so, its
    headline and its notes alike (s42c: the headline said refs/heads/main, the note under it main)."""
    from sweepgate.core.fields import short_sha

    for prefix in ("refs/heads/", "refs/"):
        if ref.startswith(prefix):
            return ref[len(prefix):]
    return short_sha(ref)

# --- metrics (record["metrics"]) -------------------------------------------------------
METRICS = "metrics"
EVALS = "evals"  # list of {task, metric, filter, value, stderr, samples[, higher_is_better][, n-shot][, limit]}


def is_record(doc) -> bool:
    """Whether ``doc`` reads as a normalized record (what `results ingest --jsonl` writes a line of, and
    `results show --json` a list of): a run id and a ``metrics`` object; no client output has both."""
    return isinstance(doc, dict) and isinstance(doc.get(METRICS), dict) and RUN_ID in doc


# Defined in core.metrics (the config check needs them too); re-exported here.
# Computed by sweepgate (derive.add_derived), not measured by the client: a newer version may
# compute them otherwise, so they never tell two ingests of one output apart.
DERIVED_METRICS = (OUTPUT_TPUT_PER_GPU, INPUT_TPUT_PER_GPU, TPUT_PER_GPU, INTERACTIVITY, SUCCESS_RATE,
                   ENERGY_PER_OUTPUT_TOKEN_J)
TOTAL_INPUT_TOKENS = "total_input_tokens"
TOTAL_OUTPUT_TOKENS = "total_output_tokens"

# Eval entries (record["evals"] items).
EVAL_TASK, EVAL_METRIC, EVAL_FILTER = "task", "metric", "filter"
EVAL_VALUE, EVAL_STDERR, EVAL_SAMPLES = "value", "stderr", "samples"
EVAL_HIGHER = "higher_is_better"  # as the eval's file states it (lm-eval's higher_is_better), when it does
# How lm-eval ran a task, when its file says: its few-shot count (``n-shot``, lm-eval 0.3's num_fewshot) and the
# run's --limit (a count, a fraction of the task, or null for none). A score is compared only with one run alike
# (``evals.incomparable``); absent from an entry whose file did not say, and from one an older sweepgate stored.
EVAL_SHOTS, EVAL_LIMIT = "n-shot", "limit"
# The task's version as lm-eval wrote it (``versions``: 3.0, or 0.3's 0; lm-eval bumps it when it changes the task's
# prompts, answers or scoring): a score is compared only with one of the same version, where both files state one.
EVAL_TASK_VERSION = "task-version"
# How lm-eval 0.4.3+ put the prompts to the model, where its file says: whether the few-shot examples went as turns of
# a conversation (``fewshot_as_multiturn``), the chat template it applied (``--apply_chat_template``: the template's
# SHA-256, lm-eval's ``chat_template_sha``; "" where it applied one it recorded no text of, an API model's server's
# own; null: none applied), and the system instruction's SHA-256 (null: none). Compared as EVAL_SHOTS is.
EVAL_MULTITURN, EVAL_CHAT_TEMPLATE, EVAL_SYSTEM = "fewshot-as-multiturn", "chat-template", "system-instruction"

# Eval scores (EVALS items) are better higher, except these lm-eval metrics (by name; lm-eval 0.3
# wrote lambada's perplexity as "ppl"), unless the file stated the direction (EVAL_HIGHER).
# ter: lm-eval 0.3's translation error rate; crows_pairs' bias measures (0.3 "likelihood_difference",
# 0.4 "likelihood_diff", both "pct_stereotype"): lm-eval's own higher_is_better is False for each.
LOWER_IS_BETTER_EVAL_METRICS = frozenset({"perplexity", "word_perplexity", "byte_perplexity", "bits_per_byte",
                                          "ppl", "ter", "likelihood_difference", "likelihood_diff",
                                          "pct_stereotype"})


def eval_direction(metric: str, stated: bool | None = None) -> str:
    """Which way an eval score is better: as its file stated (``stated``), else by its metric name."""
    if isinstance(stated, bool):
        return HIGHER_IS_BETTER if stated else LOWER_IS_BETTER
    return LOWER_IS_BETTER if metric in LOWER_IS_BETTER_EVAL_METRICS else HIGHER_IS_BETTER



# A point: what `results compare` matches across runs (CONTRACTS section 8).
POINT = (CONFIG_KEY, HARDWARE, SCENARIO, ISL, OSL, CONC)
# What tells apart two rows of one config key at the same point (a tp4 and a tp8
# search-space entry, an offload arm): the store's point queries match POINT + these.
RECIPE_IDENTITY = (TOPOLOGY, SPEC_DECODING, KV_OFFLOADING, KV_OFFLOAD_BACKEND)
# A request-rate sweep holds conc and differs only in the rate (vLLM/SGLang --request-rate):
# each rate is a point of its own. Unlimited ("inf", or no rate given) is one value, so a
# concurrency sweep keeps matching across clients that write either.
POINT_IDENTITY = POINT + RECIPE_IDENTITY + (REQUEST_RATE,)
# What varies along one sweep of a recipe (the rest of a point is its sweep): `results compare` groups a
# sweep's rows by the rest, and a chart's PR front is broken where a point between two of its points,
# along these, has no figure.
SWEPT = (CONC, REQUEST_RATE)


def rate_key(value) -> str | None:
    """A request rate as part of a point: None when unlimited, else its number as text ("2", "0.5")."""
    if value is None or isinstance(value, bool):
        return None
    try:
        rate = float(value)
    except (TypeError, ValueError):
        return str(value)
    return None if math.isinf(rate) or math.isnan(rate) else format(rate, "g")


# An unlimited request rate ("inf") as the charts label it and `results show` prints it in a rate sweep.
UNLIMITED_RATE = "∞"


def rate_order(rate) -> tuple:
    """A request rate's place among rates (``rate_key``'s text or a record's value): unknown last, numbers by
    value before any text that is none (kept as written): 1, 2, 16/s, not 1, 16, 2/s."""
    if rate is None:
        return True, False, 0.0, ""
    try:
        return False, False, float(rate), ""
    except (TypeError, ValueError):
        return False, True, 0.0, str(rate)


def named_model(rec: dict) -> str | None:
    """The model ``rec``'s output names, None where it names none (no model, or an empty one)."""
    model = rec.get(MODEL)
    return model if isinstance(model, str) and model else None


def is_unlimited_rate(value) -> bool:
    """A stated request rate that is unlimited (vLLM's ``"inf"``), not a missing one."""
    return value is not None and not isinstance(value, bool) and rate_key(value) is None


def identity(rec: dict, name: str):
    """``rec``'s value of the POINT_IDENTITY field ``name``, as points are matched."""
    return rate_key(rec.get(name)) if name == REQUEST_RATE else rec.get(name)


def point_values(rec: dict) -> tuple:
    """``rec``'s point: its POINT_IDENTITY values in order, as matched across runs."""
    return tuple(identity(rec, name) for name in POINT_IDENTITY)
