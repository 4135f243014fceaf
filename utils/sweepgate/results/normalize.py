"""One measurement + its job -> one normalized record (``result.schema.json``).

The row is the authority on identity; the output is checked against it (a
sidecar whose row ran another concurrency is refused, not merged). Metrics,
the values derived from them and the request rate must be finite, metrics
non-negative. A run that completed nothing is stored with status ``failure``,
never as a zero-throughput success.
"""

from __future__ import annotations

import functools
import json
import math
import re

from sweepgate.core import fields as F
from sweepgate.core.errors import Diagnostic, fail
from sweepgate.results import derive, plausible
from sweepgate.results import record as R
from sweepgate.results.measurement import (IN_FLIGHT, INPUT_MEAN, Measurement, measured, outputs_short,
                                          random_lengths)
from sweepgate.results.sidecar import Job

# row field -> record field, copied as they are
ROW_FIELDS = {F.RECIPE_FINGERPRINT: R.RECIPE_FINGERPRINT, F.EXP_NAME: R.EXP_NAME, F.MODEL_PREFIX: R.MODEL_PREFIX,
              F.PRECISION: R.PRECISION, F.FRAMEWORK: R.FRAMEWORK, F.RUNNER: R.RUNNER, F.TP: R.TP, F.EP: R.EP,
              F.DP_ATTN: R.DP_ATTN, F.PP: R.PP, F.DCP_SIZE: R.DCP_SIZE, F.PCP_SIZE: R.PCP_SIZE,
              F.SPEC_DECODING: R.SPEC_DECODING, F.DISAGG: R.DISAGG, F.KV_OFFLOADING: R.KV_OFFLOADING,
              F.IMAGE: R.IMAGE}


def _row_conc(row: dict):
    conc = row.get(F.CONC)
    return conc if isinstance(conc, (int, list)) and not isinstance(conc, bool) else None


# A model named as a Hugging Face repository id (org/name), not a local path or a served alias.
_HUB_ID = re.compile(r"[A-Za-z0-9][\w.-]*/[\w.-]+")


# A path into a Hugging Face hub cache (``.../models--openai--gpt-oss-120b/snapshots/<hash>``) names its
# repository: the hub spells org/name as models--org--name there, and refuses "--" inside either.
_HUB_CACHE = re.compile(r"(?:^|/)models--([A-Za-z0-9][\w.-]*?)--([\w.-]+?)(?:/|$)")


def hub_id(model) -> str | None:
    """The Hugging Face repository ``model`` names (org/name, lower-cased), as an id or a hub cache folder;
    else None (a local folder, a served alias)."""
    if not isinstance(model, str):
        return None
    if _HUB_ID.fullmatch(model):
        return model.lower()
    cached = hub_cache_repo(model)
    return cached.lower() if cached else None


def hub_cache_repo(model: str) -> str | None:
    """The repository (``ORG/NAME``, as spelt) a path into a Hugging Face hub cache holds; else None."""
    cached = _HUB_CACHE.search(model)
    return f"{cached[1]}/{cached[2]}" if cached else None


def model_mismatch(m: Measurement, row: dict, path: str, sidecar: str) -> Diagnostic | None:
    """A warning when the output names another model than its job's row, both as hub ids (org/name,
    either case). Not a refusal: a server may serve one repository's weights under another's name
    (--served-model-name), and a local path (but one into a hub cache, ``models--org--name``) or an alias
    says nothing either way; the record keeps
    the row's model, so the warning says which one the numbers are filed under."""
    named = m.fields.get(R.MODEL)
    if row.get(F.MODEL) is None:  # a row without a model: the output's own name is what is stored
        return None
    base, adapter = (named.split(R.WITH_ADAPTER, 1) if isinstance(named, str) and R.WITH_ADAPTER in named
                     else (named, None))
    stated, want = hub_id(base), hub_id(row.get(F.MODEL))
    if adapter is None and (not (stated and want) or stated == want):
        return None
    return Diagnostic(path, m.line, 0, "model-mismatch",
                      f"warning: {m.said(R.MODEL)}: the output benchmarked {m.fields[R.MODEL]} but its job's row "
                      f"({sidecar}) says model {row[F.MODEL]}; stored under {row[F.MODEL]}",
                      "if the row is not the one this output was run with, pass that one as --row"
                      if sidecar == "--row" else "if the output is another job's, pair it with its own "
                      ".job.json (or --row)", severity="warning")


def inputs_unlike_row(m: Measurement, row: dict, path: str, sidecar: str) -> Diagnostic | None:
    """A warning when an output that states no input length it asked for (vLLM's, a GenAI-Perf CSV) sent its
    completed requests under ``measurement.SHORT_OUTPUTS`` of its job's row's isl in input tokens on average
    (its token totals over its completed requests, else the mean it measured: ``Measurement.averaged``): no
    --random-range-ratio spread reaches that, so the row is another point's (README's ``test-config ... |
    jq '.[0]'`` picked an 8k1k row for a 1k1k output). Stored all the same, under the row's isl, as
    ``check_agreement`` leaves it (s38o; the measured mean s38w)."""
    isl, tokens, done = row.get(F.ISL), m.metrics.get(R.TOTAL_INPUT_TOKENS), m.metrics.get(R.COMPLETED)
    if m.fields.get(R.ISL) is not None or not (isinstance(isl, int) and isl > 0):
        return None
    if isinstance(tokens, (int, float)) and isinstance(done, (int, float)) and done > 0:
        mean, name, counted = tokens / done, R.TOTAL_INPUT_TOKENS, f"{done:g} "
    elif (mean := m.averaged.get(INPUT_MEAN)) is not None:
        name, counted = INPUT_MEAN, ""
    else:
        return None
    if not outputs_short(mean, isl):
        return None
    return _unlike_row(m, name, path, sidecar, f"the run's {counted}completed requests averaged {mean:.0f} input "
                       "tokens", R.ISL, isl)


def in_flight_unlike_row(m: Measurement, row: dict, path: str, sidecar: str) -> Diagnostic | None:
    """A warning when an output that states no concurrency (a GenAI-Perf or AIPerf CSV) held its requests in
    flight on average (``Measurement.averaged``: its request throughput times its mean request latency) under
    ``measurement.SHORT_OUTPUTS`` of its job's row's conc (of the requests it sent, where fewer), or the row's
    under that share of it: the rule ``inputs_unlike_row`` holds input lengths to, either way, no ramp-up or
    tail reaching it. Both figures are the completed requests' alone, the least the run held in flight: of a run
    whose requests failed (a timeout holds its slot for a time no figure states), only a row's conc under that
    share of it is warned of (s39b). Stored all the same, under the row's conc (s38w)."""
    conc, held = _row_conc(row), m.averaged.get(IN_FLIGHT)
    if m.fields.get(R.CONC) is not None or m.uncapped or m.fields.get(R.REQUEST_RATE) is not None \
            or not isinstance(conc, int) or conc <= 0 or held is None:
        return None
    sent = plausible.sent(m.metrics)
    cap = min(conc, sent) if sent else conc
    if not ((outputs_short(held, cap) and not m.metrics.get(R.FAILED)) or outputs_short(cap, held)):
        return None
    return _unlike_row(m, IN_FLIGHT, path, sidecar, f"the run's requests averaged {held:.0f} in flight (its request "
                       "throughput times its mean request latency)", R.CONC, conc)


def _unlike_row(m: Measurement, name: str, path: str, sidecar: str, averaged: str, field: str,
                value) -> Diagnostic:
    """The one warning of what a run measured (``averaged``, in words) that its job's row's ``field`` ``value``
    cannot be, at the figure's key (``name``) or cell."""
    article = "an" if field[0] in "aeiou" else "a"
    return Diagnostic(path, *m.place_of(name), "row-lengths" if field != R.CONC else "row-concurrency",
                      f"warning: {m.said(name)}: {averaged}, but its job's row ({sidecar}) says {field} {value}; "
                      f"stored under {field} {value}, though its figures are not {article} {field}-{value} run's",
                      "if the row is not the one this output was run with, pass that one as --row (`sweepgate "
                      f"test-config {NARROWS[field]}` narrows it to the output's {NARROWS_TO[field]})"
                      if sidecar == "--row" else
                      "if the output is another job's, pair it with its own .job.json (or --row)",
                      severity="warning")


# test-config's option that narrows its rows to an output's isl or conc, and what it narrows them to
NARROWS, NARROWS_TO = {R.ISL: "--seq-lens", R.CONC: "--conc"}, {R.ISL: "lengths", R.CONC: "concurrency"}


def short_outputs(m: Measurement, path: str) -> Diagnostic | None:
    """A warning when a run's completed requests averaged under ``measurement.SHORT_OUTPUTS`` of the output
    length the output states it asked for (a server that stops early: over its context limit, a broken
    EOS): its figures are not that length's, though every request "completed". Stored all the same."""
    osl, tokens, done = m.fields.get(R.OSL), m.metrics.get(R.TOTAL_OUTPUT_TOKENS), m.metrics.get(R.COMPLETED)
    if not (isinstance(osl, int) and osl > 0 and isinstance(done, (int, float))) or not outputs_short(tokens,
                                                                                                       osl * done):
        return None
    return Diagnostic(path, m.line, 0, "short-outputs",  # at the output's own key of the length, as check_agreement's
                      f"warning: {m.said(R.OSL)}: the output asked for {osl} output tokens per request but its {done:g} "
                      f"completed requests averaged {tokens / done:.1f}; its figures are not an osl-{osl} run's",
                      "check the server's log (context limit, EOS) and rerun the point", severity="warning")


def unfilled_cap(m: Measurement, path: str) -> Diagnostic | None:
    """A warning when a run's concurrency cap (the output's own) is above the requests it sent, its completed
    and failed ones: it never held more in flight than it sent, so its figures are a lower concurrency's than
    the point it is stored at (a sweep of caps over a fixed number of prompts). Stored all the same; not a run none
    of whose requests completed (it measured nothing at any concurrency)."""
    conc, done, failed = m.fields.get(R.CONC), m.metrics.get(R.COMPLETED), m.metrics.get(R.FAILED)
    sent = plausible.sent(m.metrics)
    if not isinstance(conc, int) or not done or not sent < conc:
        return None
    counted = f"{done:g} completed, " + ("none said to have failed" if failed is None else f"{failed:g} failed")
    return Diagnostic(path, *m.place_of(R.CONC), "concurrency-unfilled",
                      f"warning: {m.said(R.CONC)}: a cap of {conc} requests in flight, but the run sent {sent:g} "
                      f"({counted}): it never held more than {sent:g} at once, so its figures are a lower "
                      "concurrency's than its point's; stored as written",
                      "send at least as many requests as the cap (--num-prompts; InferenceX sends ten per unit of "
                      "concurrency) and rerun the point", severity="warning")


def check_agreement(m: Measurement, row: dict, path: str, sidecar: str, key: str | None = None) -> None:
    """Refuse an output whose own conc/isl/osl contradict its job's row: what the output states
    (its format's parser sets it). vLLM states its concurrency, not its lengths: its token totals
    over requests are no isl/osl (--random-range-ratio spreads them, EOS shortens outputs, a
    prefix adds to inputs), so a vLLM point's isl/osl are its row's, unchecked here (inputs far
    under the row's isl are warned of: ``inputs_unlike_row``). ``key``: the config key the row is of,
    where known (``--config-key``), for the `test-config` line that writes the row the output ran."""
    conc, ran = _row_conc(row), m.fields.get(R.CONC)
    if m.uncapped and conc is not None:
        cap = conc if isinstance(conc, int) else "set to the row's conc"
        raise fail(path, m.line, f"{m.said(R.CONC)}: the output ran without a concurrency cap (null) but its job's "
                   f"row ({sidecar}) says conc {conc}",
                   f"rerun the point with --max-concurrency {cap}, or {_pair_hint(sidecar)}")
    if ran is not None and conc is not None and ran not in (conc if isinstance(conc, list) else [conc]):
        raise fail(path, m.line, f"{m.said(R.CONC)}: the output ran at concurrency {ran} but its job's row "
                   f"({sidecar}) says conc {conc}", _pair_hint(sidecar, _ran_row(m, row, key)))
    for field, name, what in ((F.ISL, R.ISL, "input"), (F.OSL, R.OSL, "output")):
        stated, want = m.fields.get(name), row.get(field)
        if stated is not None and want is not None and stated != want:
            raise fail(path, m.line, f"{m.said(name)}: the output used {stated} {what} tokens but its job's row "
                       f"({sidecar}) says {name} {want}", _pair_hint(sidecar, _ran_row(m, row, key)))
    _check_dataset(m, row, path, sidecar)


def _check_dataset(m: Measurement, row: dict, path: str, sidecar: str) -> None:
    """Refuse a run on a dataset of its own lengths (ShareGPT, ...) for a fixed-length row: it is
    another workload, which would otherwise be filed under the row's isl/osl beside the row's own
    random-length lines of one file, and judged as a repeat of them."""
    fixed = row.get(F.SCENARIO_TYPE, F.FIXED_SEQ_LEN) == F.FIXED_SEQ_LEN and row.get(F.ISL) and row.get(F.OSL)
    if fixed and m.dataset is not None and not random_lengths(m.dataset):
        raise fail(path, m.line, f"dataset_name: the output ran the {m.dataset} dataset but its job's row "
                   f"({sidecar}) is a {row[F.ISL]}/{row[F.OSL]} random-length run", _pair_hint(sidecar))


def check_one_setup(measurements: list[Measurement], records: list[dict], path: str, text: str = "") -> None:
    """Refuse an output two of whose runs at one point name other setups: another model, request API,
    label, dataset or endpoint in the client's own keys (``Measurement.setup``), or other tags (vLLM's
    ``--metadata framework=vllm`` and ``framework=sgl``, appended to one JSONL): each is another server or
    setup's, which stored together would be averaged and judged as repeats of one measurement. ``records``
    are the measurements' own, in order; the first run at each point is the one the others must match,
    named by its line in the file ``text`` (``jsonio.record_where``: in a JSON list, not its place in it)."""
    from sweepgate.results.jsonio import record_where

    first: dict[tuple, Measurement] = {}
    for m, rec in zip(measurements, records):
        seen = first.setdefault(R.point_values(rec), m)
        if (key := _apart(seen.setup, m.setup)) is not None:
            here, there = _value(m.setup, key), _value(seen.setup, key)
        elif (key := _apart(seen.tags, m.tags)) is not None:
            here, there = f"--metadata {_tag(m.tags, key)}", _tag(seen.tags, key)
        else:
            continue
        point = f" ({where})" if (where := _point_words(rec)) else ""
        line = record_where(text, seen.line, key if key in seen.setup or key in seen.tags else None)
        raise fail(path, m.line, f"{key}: {here} here but {there} on {line}, at the same point{point}: "
                   "stored together, the two runs would be averaged and judged as repeats of one measurement",
                   f"split the lines into one file per {key} and ingest the files, each a run of its own (with "
                   "--row, under its own --run-id)")


def _apart(first: dict, then: dict) -> str | None:
    """The first key whose value ``then`` states otherwise than ``first`` (or states where it does not)."""
    return next((k for k in {**first, **then} if first.get(k) != then.get(k)), None)


def _value(setup: dict, key: str) -> str:
    return json.dumps(setup[key], ensure_ascii=False) if key in setup else f"no {key}"


def _tag(tags: dict, key: str) -> str:
    return f"{key}={tags[key]}" if key in tags else f"no {key}"


def _point_words(rec: dict) -> str:
    """What sets a point apart among an output's runs (its rate, its concurrency), in words."""
    rate, conc = rec.get(R.REQUEST_RATE), rec.get(R.CONC)
    words = [f"rate {R.UNLIMITED_RATE if R.is_unlimited_rate(rate) else R.rate_key(rate) + '/s'}"] \
        if rate is not None else []
    return ", ".join(words + ([f"conc {conc}"] if conc is not None else []))


def _pair_hint(sidecar: str, ran_row: str = "") -> str:
    if sidecar == "--row":  # a row given by hand: the row or the file is the wrong one
        return "pass the matrix row this output was run with as --row" + (f", written by {ran_row}" if ran_row else "")
    return "pair the output with its own job's .job.json"


def _ran_row(m: Measurement, row: dict, key: str | None) -> str:
    """The `sweepgate test-config` line that writes the row of ``key`` at the concurrency and lengths the output
    states (the row's where it states none), as the README's by-hand steps write a row; "" where the key is not
    known or the lengths have no --seq-lens name. s50g: the refusal said only "pass the matrix row this output was
    run with", leaving a newcomer to work out which command writes it and with what."""
    import shlex

    conc = m.fields.get(R.CONC) if isinstance(m.fields.get(R.CONC), int) else _row_conc(row)
    lengths = (m.fields.get(R.ISL) or row.get(F.ISL), m.fields.get(R.OSL) or row.get(F.OSL))
    seq = F.SEQ_LEN_NAMES.get(lengths)
    if not key or not isinstance(conc, int) or seq is None:
        return ""
    return f"`sweepgate test-config --config-keys {shlex.quote(key)} --seq-lens {seq} --conc {conc} > row.json`"


def _identity(m: Measurement, row: dict | None) -> dict:
    row = row or {}
    ident = {name: row.get(field) for field, name in ROW_FIELDS.items()}
    backend = row.get(F.KV_OFFLOAD_BACKEND) if isinstance(row.get(F.KV_OFFLOAD_BACKEND), dict) else {}
    conc = _row_conc(row)
    ident.update({
        R.MODEL: row.get(F.MODEL) or m.fields.get(R.MODEL),
        R.FRAMEWORK: row.get(F.FRAMEWORK) or m.fields.get(R.FRAMEWORK),  # the output's own: vLLM's --metadata
        R.HARDWARE: derive.hardware(row.get(F.RUNNER)),
        R.GPUS: derive.gpus(row), R.TOPOLOGY: derive.topology(row),
        R.CONC: conc if isinstance(conc, int) else m.fields.get(R.CONC),
        R.ISL: row.get(F.ISL, m.fields.get(R.ISL)), R.OSL: row.get(F.OSL, m.fields.get(R.OSL)),
        R.SCENARIO: row.get(F.SCENARIO_TYPE) or (F.FIXED_SEQ_LEN if row.get(F.ISL) else None),
        R.KV_OFFLOAD_BACKEND: backend.get("name"), R.KV_OFFLOAD_BACKEND_VERSION: backend.get("version"),
        R.REQUEST_RATE: m.fields.get(R.REQUEST_RATE),
    })
    if ident[R.CONC] is None and isinstance(conc, list) and len(conc) == 1:
        ident[R.CONC] = conc[0]
    return ident


def _status(m: Measurement, job: dict, metrics: dict) -> str:
    if job.get(R.STATUS) in (R.FAILURE, R.CANCELLED):
        return job[R.STATUS]
    if m.cancelled or derive.is_failed_run(metrics, m.evals):
        return R.FAILURE
    return R.SUCCESS


# whole numbers in any client's output (a peak of requests in flight too: vLLM's and SGLang's count of them)
COUNTS = (R.COMPLETED, R.FAILED, R.TOTAL_INPUT_TOKENS, R.TOTAL_OUTPUT_TOKENS, R.MAX_CONCURRENT_REQUESTS)


def check_metrics(metrics: dict, path: str, line: int) -> None:
    for name, value in metrics.items():
        if value is None:
            continue
        measured(value, name, path, line, plausible.least(name))
        if name in COUNTS and value != int(value):
            raise fail(path, line, f"{name}: {value} is not a whole number",
                       "a count of requests or tokens is whole; the output is corrupt, rerun it")
    total, output = metrics.get(R.TOTAL_TOKEN_THROUGHPUT), metrics.get(R.OUTPUT_THROUGHPUT)
    if total is not None and output is not None and total < output:
        raise fail(path, line, f"{R.TOTAL_TOKEN_THROUGHPUT}: {total:g} is below {R.OUTPUT_THROUGHPUT} ({output:g})",
                   "input and output tokens together cannot be fewer than the output's; the output is corrupt, rerun it")


def check_derived(metrics: dict, raw: dict, path: str, line: int) -> None:
    """Refuse a derived value that is not a finite number or is above ``R.MAX_FIGURE`` (1000 / a TPOT of 1e-320
    or of 1e-13), naming the measurements it came from: NaN, Infinity and no run's figures have no place in the
    store."""
    for name in derive.SOURCES:
        value = metrics.get(name)
        if value is not None and not (math.isfinite(value) and abs(value) <= R.MAX_FIGURE):
            given = ", ".join(f"{n} {raw[n]:g}" for n in derive.SOURCES[name] if raw.get(n) is not None)
            raise fail(path, line, f"{name}: {value}, derived from {given}, is not a measurement",
                       "the client wrote a figure too large or too small to be real; the output is corrupt, rerun it")


def check_rate(rate, path: str, line: int) -> None:
    """Refuse a request rate of NaN (the schema's number test lets it through); Infinity is "inf"."""
    if isinstance(rate, float) and math.isnan(rate):
        raise fail(path, line, f"{R.REQUEST_RATE}: {rate} is not a rate",
                   "the client wrote NaN for its request rate; the output is corrupt, rerun it")


def check_integers(rec: dict, path: str, line: int) -> None:
    """Refuse a record field whose whole number the store cannot hold (R.MAX_INTEGER): an absurd
    concurrency in the output, or attempt in the sidecar."""
    for name, value in rec.items():
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) > R.MAX_INTEGER:
            raise fail(path, line, f"{name}: {value} is out of range (at most {R.MAX_INTEGER})",
                       "the output or its job carries an absurd value; fix the source or rerun the job")


def build(m: Measurement, job: Job, path: str, result_filename: str, energy_j: float | None = None,
          energy_window: str | None = None, digest: str | None = None, power_column: str | None = None) -> dict:
    """The normalized, schema-checked record for one measurement; ``energy_window`` names the window
    ``energy_j`` is of (``record.ENERGY_WINDOWS``) and ``power_column`` the GPU samples' column it is of
    (``record.ENERGY_POWER_COLUMN``), each stored where there is an energy figure; ``digest``: the
    SHA-256 (hex) of the output file's bytes (``record.OUTPUT_SHA256``), None for a sidecar's alone."""
    if job.row:
        check_agreement(m, job.row, path, job.source or "--row", (job.job or {}).get(R.CONFIG_KEY))
    ident = _identity(m, job.row)
    check_rate(ident[R.REQUEST_RATE], path, m.line)
    raw = derive.measured(m.metrics)
    check_metrics(raw, path, m.line)
    plausible.refuse_impossible(raw, m, path)
    metrics = derive.add_derived(raw, ident[R.GPUS], energy_j)
    check_derived(metrics, raw, path, m.line)
    j = job.job
    rec = {R.SCHEMA: R.SCHEMA_VERSION, **ident, R.CONFIG_KEY: j.get(R.CONFIG_KEY),
           R.RESULT_FILENAME: result_filename, R.RUNNER_NAME: j.get(R.RUNNER_NAME),
           R.RUN_ID: j[R.RUN_ID], R.ATTEMPT: j[R.ATTEMPT], R.COMMIT: j.get(R.COMMIT), R.REF: j.get(R.REF),
           R.STARTED: R.stored_time(j.get(R.STARTED) or m.fields.get(R.STARTED)),
           R.FINISHED: R.stored_time(j.get(R.FINISHED) or m.fields.get(R.FINISHED)),
           R.STATUS: _status(m, j, metrics), R.REHEARSAL: bool(j.get(R.REHEARSAL)),
           R.RUN_IDENTITY: j.get(R.RUN_IDENTITY), R.REUSED_FROM: None,
           R.CLIENT: m.client, R.CLIENT_VERSION: m.client_version, R.SOURCE_FORMAT: m.source_format,
           R.SOURCE_LINE: m.line, R.OUTPUT_SHA256: digest, R.REQUEST_SPAN: m.fields.get(R.REQUEST_SPAN),
           R.ENERGY_WINDOW: energy_window if metrics.get(R.ENERGY_PER_OUTPUT_TOKEN_J) is not None else None,
           R.ENERGY_POWER_COLUMN: power_column if metrics.get(R.ENERGY_PER_OUTPUT_TOKEN_J) is not None else None,
           R.METRICS: {k: _plain(v) for k, v in sorted(metrics.items()) if v is not None}, R.EVALS: m.evals}
    check_integers(rec, path, m.line)
    validate(rec, path, m.line, job)
    return rec


def _from_row(rec: dict, job: Job) -> dict[str, tuple[str, str]]:
    """Record field -> (sidecar or --row, row field), for the fields that hold their job row's value:
    a bad one is the row's to fix, not the output's."""
    row, source = job.row or {}, job.source or "--row"
    names = {**{name: field for field, name in ROW_FIELDS.items()}, R.MODEL: F.MODEL}
    return {name: (source, field) for name, field in names.items()
            if field in row and row[field] is not None and row[field] == rec.get(name)}


def _plain(value):
    """Counts as ints (AIPerf writes 195.0 requests), everything else as float."""
    return int(value) if isinstance(value, float) and value.is_integer() and abs(value) < 2**53 else value


@functools.lru_cache(maxsize=1)
def _validator():
    import jsonschema

    from sweepgate.core.schemas import schema_bytes

    schema = json.loads(schema_bytes("result"))
    return jsonschema.Draft202012Validator(schema)


def validate(rec: dict, path: str, line: int, job: Job | None = None) -> None:
    """Refuse a record the result schema does not accept, naming the first bad field: at its
    ``job``'s row (the sidecar or --row) when the value is the row's, else at the output.

    A compiled validator answers "valid?"; jsonschema explains a "no"."""
    from sweepgate.core.check import fast_validator

    if fast_validator("result")(rec):
        return
    errors = sorted(_validator().iter_errors(rec), key=lambda e: list(e.absolute_path))
    if errors:
        e = errors[0]
        where = ".".join(str(p) for p in e.absolute_path) or "record"
        at_row = _from_row(rec, job).get(str(e.absolute_path[0])) if job and e.absolute_path else None
        if at_row:
            source, field = at_row
            raise fail(source, 0, f"row.{field}: {e.message}",
                       "the job's row carries a value the result schema refuses; fix the row (or the matrix it "
                       "came from) and write the sidecar again")
        raise fail(path, line, f"{where}: {e.message}",
                   "the job's row or the output carries a value the result schema refuses; fix the source")
