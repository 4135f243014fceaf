"""AIPerf and GenAI-Perf JSON exports (``profile_export_aiperf.json`` / ``..._genai_perf.json``).

Each metric is an object ``{unit, avg, p50, p90, p99, ...}`` whose unit string
varies (ms, sec, ns). AIPerf's ``inter_token_latency`` is the per-request
decode time per token, i.e. vLLM's TPOT; its ``inter_chunk_latency`` is the
gap between streamed chunks, vLLM's ITL.
"""

from __future__ import annotations

import math
from pathlib import PurePath

from sweepgate.core.errors import fail
from sweepgate.results import derive, plausible
from sweepgate.results import record as R
from sweepgate.results.formats.foreign import PHASES_FOLDER, SweepAggregate
from sweepgate.results.formats.vllm import rate_value
from sweepgate.results.measurement import (IN_FLIGHT, INPUT_MEAN, UNSTREAMED_RULE, Measurement, clock_zoned,
                                           drop_streamed, edited_or_unsupported, further_stat, number,
                                           refuse_tokenless, run_window)
from sweepgate.results.units import is_time_unit, to_ms

LATENCIES = {
    "time_to_first_token": R.TTFT,
    "inter_token_latency": R.TPOT,
    "inter_chunk_latency": R.ITL,
    "request_latency": R.E2EL,
}
# A metric object's stat -> the record's (R.STATS): a value here that is no measurement refuses the export,
# as it always has. Its min, max, p1, p5, p10 (and any other percentile) are named by R.stat_name
# (``ttft_min_ms``, ``ttft_p1_ms``) and kept too (measurement.further_stat); its sum and count are no
# statistic of one request's latency.
STATS = {"avg": "mean", "std": "std", "p25": "p25", "p50": "p50", "p75": "p75", "p90": "p90", "p95": "p95",
         "p99": "p99"}
SCALARS = {  # export key -> record metric (the "avg" of a single-valued metric)
    "request_throughput": R.REQUEST_THROUGHPUT,
    "goodput": R.REQUEST_GOODPUT,  # AIPerf with --goodput SLOs (requests/sec)
    "request_goodput": R.REQUEST_GOODPUT,  # GenAI-Perf's name for it
    "output_token_throughput": R.OUTPUT_THROUGHPUT,
    "input_token_throughput": R.INPUT_THROUGHPUT,
    "total_token_throughput": R.TOTAL_TOKEN_THROUGHPUT,
    "request_count": R.COMPLETED,
    "error_request_count": R.FAILED,
    "total_isl": R.TOTAL_INPUT_TOKENS,
    "total_osl": R.TOTAL_OUTPUT_TOKENS,
    # AIPerf 0.13+ against a server that reports each request's speculative decoding (vLLM's
    # --per-request-spec-decode-metrics): 1 + the run's accepted draft tokens over its verify steps, vLLM's
    # own acceptance length. Its spec_decode_acceptance_length is each request's figure averaged over
    # requests alike (short requests weigh as much as long ones): another figure, not read as it.
    "spec_decode_token_weighted_acceptance_length": R.ACCEPT_LENGTH,
}


# GenAI-Perf's goodput when a --goodput objective names no metric it measures (request_latenC:100): its
# GoodputCalculator.INVALID_GOODPUT, -1, exported as the run's request_goodput. No goodput and no corrupt run: the
# goodput is left out with a warning, the run's other figures stored.
INVALID_GOODPUT = -1
GENAI_PERF_GOODPUT = "request_goodput"
INVALID_GOODPUT_RULE = "invalid-goodput"
INVALID_GOODPUT_HINT = ("name metrics GenAI-Perf measures in --goodput (time_to_first_token, inter_token_latency, "
                        "request_latency, ...) and rerun the point for a goodput")


# A run whose every request failed exports only the error metrics.
DETECTING = ("time_to_first_token", "request_latency", "request_throughput", "error_request_count")
# AIPerf's sweep aggregate (profile_export_aiperf_sweep.json) lists every combination's statistics.
CONFIG = "input_config"  # where an export keeps the run's configuration (model, load, lengths)
SWEEP = "per_combination_metrics"


def detect(doc) -> bool:
    if not isinstance(doc, dict):
        return False
    metric = next((doc[k] for k in DETECTING if isinstance(doc.get(k), dict)), None)
    return ((metric is not None and "unit" in metric) or isinstance(doc.get("records"), dict)
            or isinstance(doc.get(SWEEP), list))


def _stat(obj: dict, stat: str, key: str, path: str, line: int, least: float = 0.0):
    """Statistic ``stat`` of the export's metric object ``key`` (``measurement.number``), named as the export
    names it: ``time_to_first_token.p50``."""
    return number(obj, stat, path, line, where=f"{key}.{stat}", least=least, what="export")


def _time(value) -> str | None:
    """An export's start or end time as written, when it is one (ISO 8601); None for anything else."""
    from sweepgate.results.formats.gpu_metrics import parse_time

    return value if isinstance(value, str) and len(value) <= MAX_TIME_TEXT and parse_time(value) is not None else None


def _times(doc: dict) -> dict:
    """started and finished: the export's start_time and end_time as written, which AIPerf writes in the
    client's local time without a zone: each given the zone that puts it beside the first request's or the last
    response's Unix time (``clock_zoned``) where the export has them, else left without one (its zone unknown)."""
    edges = ((R.STARTED, "start_time", "min_request_timestamp"), (R.FINISHED, "end_time", "max_response_timestamp"))
    return {field: clock_zoned(at, _unix_ns(doc.get(unix))) or at
            for field, key, unix in edges for at in [_time(doc.get(key))]}


MAX_TIME_TEXT = 64  # an ISO 8601 time with a zone and nanoseconds is about 35 characters


def client_window(doc: dict) -> tuple[float, float] | None:
    """The run's own window for its energy: from the first request sent to the last response received
    (``min_request_timestamp``/``max_response_timestamp``, Unix ns; the span ``benchmark_duration``
    and the throughputs are of), else ``start_time``/``end_time`` where both are written with a zone
    (AIPerf writes them in the client's local time without one: which instant that is, is a guess)."""
    first, last = (_unix_ns(doc.get(key)) for key in ("min_request_timestamp", "max_response_timestamp"))
    return run_window(first, last) or run_window(*(_zoned(doc.get(key)) for key in ("start_time", "end_time")))


def request_span(doc: dict) -> list[float] | None:
    """The run's first request and last response as the export states them in ns (``record.REQUEST_SPAN``, Unix
    seconds), None unless it states both; never start_time/end_time, which a second's rounding could share."""
    first, last = (_unix_ns(doc.get(key)) for key in ("min_request_timestamp", "max_response_timestamp"))
    span = run_window(first, last)
    return list(span) if span is not None else None


def _unix_ns(obj) -> float | None:
    value = obj.get("avg") if isinstance(obj, dict) and obj.get("unit") == "ns" else None
    return value / 1e9 if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _zoned(value) -> float | None:
    at = R.moment(value) if _time(value) else None
    return at.timestamp() if at is not None and at.tzinfo is not None else None


def _further_stats(obj: dict, key: str, latency: str, notes: list, keys: dict) -> dict:
    """A latency's statistics beyond STATS in its metric object (min, max, p1, ...), in ms; ``keys`` gets the
    dotted key of each."""
    out = {}
    for stat, value in obj.items():
        name = None if stat in STATS else R.stat_name(stat)
        if name is not None:
            least = plausible.least(R.latency_name(latency, name)) / to_ms(1, obj["unit"])  # in the export's unit
            out[R.latency_name(latency, name)] = to_ms(further_stat(value, f"{key}.{stat}", notes, least),
                                                       obj["unit"])
            keys[R.latency_name(latency, name)] = f"{key}.{stat}"
    return {name: value for name, value in out.items() if value is not None}


def metrics_from(doc: dict, path: str, line: int, notes: list | None = None, keys: dict | None = None) -> dict:
    """Record metrics from the ``{key: {unit, avg, ...}}`` metric objects of an export; a latency
    statistic beyond STATS that is no measurement is a warning in ``notes``; ``keys`` (``Measurement.keys``)
    gets the dotted key each metric was read from (``time_to_first_token.p50``)."""
    metrics, keys = {}, {} if keys is None else keys
    for key in (*LATENCIES, *SCALARS, "benchmark_duration"):
        if doc.get(key) is not None and not isinstance(doc[key], dict):
            raise fail(path, line, f"{key}: expected a metric object ({{unit, avg, ...}}), got {doc[key]!r}",
                       edited_or_unsupported("export"))
    for key, latency in LATENCIES.items():
        obj = doc.get(key)
        if not isinstance(obj, dict):
            continue
        unit = obj.get("unit")
        if not is_time_unit(unit):
            raise fail(path, line, f"{key}.unit: {unit!r} is not a time unit",
                       "expected ns, us, ms or sec; the export is not a latency metric")
        for stat, name in STATS.items():
            least = plausible.least(R.latency_name(latency, name)) / to_ms(1, unit)  # in the export's unit
            metrics[R.latency_name(latency, name)] = to_ms(_stat(obj, stat, key, path, line, least), unit)
            keys[R.latency_name(latency, name)] = f"{key}.{stat}"
        metrics.update(_further_stats(obj, key, latency, notes if notes is not None else [], keys))
    for key, name in SCALARS.items():
        obj = doc.get(key)
        if isinstance(obj, dict) and key == GENAI_PERF_GOODPUT and obj.get("avg") == INVALID_GOODPUT:
            keys[name] = f"{key}.avg"
            if notes is not None:
                notes.append((INVALID_GOODPUT_RULE, f"warning: {key}.avg: {obj['avg']!r}, GenAI-Perf's mark of a "
                              "--goodput objective naming no metric it measures; stored without a goodput",
                              INVALID_GOODPUT_HINT))
        elif isinstance(obj, dict):
            metrics[name], keys[name] = _stat(obj, "avg", key, path, line), f"{key}.avg"
    duration = doc.get("benchmark_duration")
    if isinstance(duration, dict) and not is_time_unit(duration.get("unit")):
        raise fail(path, line, f"benchmark_duration.unit: {duration.get('unit')!r} is not a time unit",
                   f"expected ns, us, ms or sec; {edited_or_unsupported('export')}")
    if isinstance(duration, dict):
        value = to_ms(_stat(duration, "avg", "benchmark_duration", path, line), duration["unit"])
        metrics[R.DURATION_S], keys[R.DURATION_S] = value / 1000 if value is not None else None, \
            "benchmark_duration.avg"
    _fill_totals(metrics)
    if metrics.get(R.COMPLETED) is None and metrics.get(R.FAILED):
        metrics[R.COMPLETED] = 0  # only valid requests are counted; an all-error run exports none
    return metrics


def _fill_totals(metrics: dict) -> None:
    """Older exports lack input/total token throughput; both follow from totals and duration."""
    duration, tokens = metrics.get(R.DURATION_S), metrics.get(R.TOTAL_INPUT_TOKENS)
    if metrics.get(R.INPUT_THROUGHPUT) is None and duration and tokens is not None:
        metrics[R.INPUT_THROUGHPUT] = tokens / duration
    metrics[R.TOTAL_TOKEN_THROUGHPUT] = derive.total_token_throughput(metrics)


def _config(doc: dict, path: str = "") -> tuple[str | None, int | None, str]:
    """(model, concurrency, client) from ``input_config`` (its shape changed across versions); ``path``: the
    export's file (``_measured_phase``)."""
    cfg = _input_config(doc)
    models = _models(cfg)[0]
    model = models[0] if isinstance(models, list) and models else models if isinstance(models, str) else None
    conc = _concurrency(cfg, path)[0]
    conc = conc if isinstance(conc, int) and not isinstance(conc, bool) else None
    return model, conc, _client_of(cfg)


def _client_of(cfg: dict) -> str:
    """The client that wrote an export of ``input_config`` ``cfg``: GenAI-Perf names its service kind (at the top
    before 2025, under endpoint in its config-file layout, which also has a perf_analyzer section); AIPerf has
    neither."""
    endpoint = cfg.get("endpoint") if isinstance(cfg.get("endpoint"), dict) else {}
    genai = any(k in cfg for k in ("service_kind", "formatted_model_name", "perf_analyzer")) or (
        "service_kind" in endpoint)
    return "genai-perf" if genai else "aiperf"


def _concurrency(cfg: dict, path: str = "") -> tuple[object, str | None]:
    """(the concurrency, the dotted key it stands at) of ``input_config``: loadgen's (AIPerf), the top
    level's (GenAI-Perf), the stimulus's (its config-file layout) or the measured phase's (AIPerf 0.10+)."""
    loadgen = cfg.get("loadgen") if isinstance(cfg.get("loadgen"), dict) else {}
    phase = _measured_phase(cfg, path)
    for where, holder in (("loadgen.", loadgen), ("", cfg), ("perf_analyzer.stimulus.", _stimulus(cfg)),
                          (_phase_path(cfg, phase), phase)):
        if "concurrency" in holder:
            return holder["concurrency"], f"{CONFIG}.{where}concurrency"
    return None, None


def _phase_path(cfg: dict, phase: dict) -> str:
    """``phases[i].``: where the measured phase (``_measured_phase``) stands in ``phases``, so a refusal
    of its value stands at its own key, not at a warmup phase's before it."""
    at = next((i for i, p in enumerate(cfg.get("phases") or ()) if p is phase), None)
    return "" if at is None else f"phases[{at}]."


def _length_keys(cfg: dict) -> dict:
    """The dotted keys ``_lengths`` reads isl and osl at (in the same order of layouts)."""
    if "synthetic_input_tokens_mean" in cfg:
        isl, osl = "synthetic_input_tokens_mean", "output_tokens_mean"
    elif isinstance(cfg.get("input"), dict):
        isl, osl = "input.prompt.input_tokens.mean", "input.prompt.output_tokens.mean"
    else:
        isl, osl = "datasets.prompts.isl", "datasets.prompts.osl"
    return {R.ISL: f"{CONFIG}.{isl}", R.OSL: f"{CONFIG}.{osl}"}


def _input_config(doc: dict) -> dict:
    """The export's ``input_config`` ({} when it has none)."""
    cfg = doc.get(CONFIG)
    return cfg if isinstance(cfg, dict) else {}


def _models(cfg: dict) -> tuple[object, str]:
    """(the model name or names, the dotted key they stand at) of ``input_config``: the endpoint's
    (AIPerf), ``model`` or ``model_names`` (GenAI-Perf), else AIPerf 0.10+'s ``models.items``."""
    endpoint = cfg.get("endpoint") if isinstance(cfg.get("endpoint"), dict) else {}
    for where, value in (("endpoint.model_names", endpoint.get("model_names")), ("model", cfg.get("model")),
                         ("model_names", cfg.get("model_names"))):
        if value:
            return value, f"{CONFIG}.{where}"
    return _items(cfg), f"{CONFIG}.models.items.name"


# Where an export names the run's setup beyond its point and lengths, besides its model (``_models``): the
# endpoint it asked (chat, completions, ...; GenAI-Perf before 2025 wrote it at the top, as endpoint_type) and
# whether it streamed; each setting at the first of its keys of ``input_config`` the export holds.
SETUP = (("endpoint.type", "endpoint_type"), ("endpoint.streaming", "streaming"))


def _setup(cfg: dict) -> dict:
    """The run's setup (``Measurement.setup``): its model names and ``SETUP``'s settings as written, each
    at its dotted key (a null or absent one left out)."""
    models, where = _models(cfg)
    found = {where: models} if models else {}
    for keys in SETUP:
        for key in keys:
            holder, _, name = key.rpartition(".")
            within = cfg.get(holder) if holder else cfg
            if isinstance(within, dict) and within.get(name) is not None:
                found[f"{CONFIG}.{key}"] = within[name]
                break
    return found


def _stimulus(cfg: dict) -> dict:
    """GenAI-Perf's config-file layout (2025) keeps the load under ``perf_analyzer.stimulus``:
    ``{concurrency: N}`` or ``{request_rate: R}``."""
    analyzer = cfg.get("perf_analyzer") if isinstance(cfg.get("perf_analyzer"), dict) else {}
    return analyzer.get("stimulus") if isinstance(analyzer.get("stimulus"), dict) else {}


def _items(cfg: dict) -> list:
    """AIPerf 0.10+ names its models as ``models: {strategy, items: [{name}]}``."""
    models = cfg.get("models") if isinstance(cfg.get("models"), dict) else {}
    items = models.get("items") if isinstance(models.get("items"), list) else []
    return [i["name"] for i in items if isinstance(i, dict) and isinstance(i.get("name"), str)]


def _measured_phases(cfg: dict) -> list[dict]:
    """AIPerf 0.10+ keeps the load in ``phases``; the measured ones are not excluded from results."""
    phases = cfg.get("phases") if isinstance(cfg.get("phases"), list) else []
    return [p for p in phases if isinstance(p, dict) and p.get("exclude_from_results") is not True]


def _measured_phase(cfg: dict, path: str = "") -> dict:
    """The measured phase (``_measured_phases``) whose figures the export ``path`` holds: the only one, else
    (several profiling phases, each its own load: AIPerf 0.12+) the one whose own export it is, in the run's
    phases/<that phase's name>/ (exporters/exporter_manager.py); {} for the run's export, which pools them."""
    measured, folder = _measured_phases(cfg), PurePath(path).parent
    if len(measured) == 1:
        return measured[0]
    own = folder.name if folder.parent.name == PHASES_FOLDER else None
    return next((p for p in measured if own is not None and p.get("name") == own), {})


def _pooled(cfg: dict, path: str, line: int) -> None:
    """Refuse the export of a run of several profiling phases that is no phase's own (``_measured_phase``):
    AIPerf pools the phases' requests in the run's export (0.12+: its throughputs over their summed
    durations; records_manager.py, _adjust_multi_phase_aggregate_rates), so its figures are no one load's."""
    measured = _measured_phases(cfg)
    if len(measured) < 2 or _measured_phase(cfg, path):
        return
    loads = ", ".join(f"{p.get('name')}: " + next((f"{key} {p[key]}" for key in ("concurrency", "rate") if key in p),
                                                 f"{p.get('type')}") for p in measured)
    raise fail(path, line, f"{CONFIG}.phases: {len(measured)} profiling phases ({loads}): AIPerf pools their requests "
               "in the run's export, so its figures are no one load's",
               "ingest the run's folder, whose phases/<name>/ holds each phase's own export (AIPerf 0.12+), or run "
               "each load as a run of its own")


def _several_models(cfg: dict, client: str, path: str, line: int, csv: str | None = None) -> None:
    """Refuse the export of a run over several models (GenAI-Perf's ``-m a -m b``, AIPerf's ``--model a --model
    b``): the client sends the requests to each in turn (``model_selection_strategy``) and exports one set of
    figures over them all, none per model, so they are no measurement of the first model it names. ``csv``: the
    run's CSV export being ingested, refused by this export's models (``several_models``)."""
    models, where = _models(cfg)
    names = list(dict.fromkeys(models)) if isinstance(models, list) else [models]
    if len(names) < 2:
        return
    tool = R.CLIENT_NAMES.get(client, R.CLIENT_NAMES["aiperf"])
    also = f", nor are its CSV export {csv}'s" if csv else ""
    raise fail(path, line, f"{where}: {len(names)} models ({', '.join(map(str, names))}): {tool} sends the run's "
               f"requests to all of them and exports one set of figures over them all, so they are no one model's{also}",
               "benchmark each model in a run of its own")


def several_models(doc: dict, path: str, csv: str) -> None:
    """Refuse the CSV export ``csv`` of a run over several models, as its JSON export ``doc`` (at ``path``, beside
    it) names them: the CSV names no model, so only the JSON export of its run tells (``_several_models``)."""
    cfg = _input_config(doc)
    _several_models(cfg, _client_of(cfg), path, 0, csv)


def _request_rate(doc: dict, path: str = ""):
    """The requested rate (requests/s): loadgen's (AIPerf), the top level's (GenAI-Perf) or the phase's."""
    cfg = _input_config(doc)
    loadgen = cfg.get("loadgen") if isinstance(cfg.get("loadgen"), dict) else {}
    for value in (loadgen.get("request_rate"), cfg.get("request_rate"), _stimulus(cfg).get("request_rate"),
                  _measured_phase(cfg, path).get("rate")):
        if value is not None and not isinstance(value, bool):
            return rate_value(value)
    return None


def _fixed(dist, mean_key: str = "mean", stddev_key: str = "stddev") -> int | None:
    """A configured token count that every request got: a positive whole mean, no spread."""
    if not isinstance(dist, dict):
        return None
    mean, spread = dist.get(mean_key), dist.get(stddev_key) or 0
    if isinstance(mean, bool) or not isinstance(mean, (int, float)) or not math.isfinite(mean) or mean <= 0 \
            or mean != int(mean):
        return None
    return int(mean) if spread == 0 else None


def _drawn(dist) -> int | None:
    """A token count AIPerf 0.10+ draws for every request from one of its distributions (0.11-0.13's
    config/distributions.py, told apart by their keys): a fixed ``value``, a normal ``mean`` with no
    ``stddev``, a log-normal whose ``median`` is its ``mean``; a ``min``/``max`` bound clamps it. None for
    a spread, and for ``peaks`` (multimodal) or ``points`` (empirical)."""
    if not isinstance(dist, dict) or dist.keys() & {"peaks", "points"}:
        return None
    if "median" in dist and dist.get("median") != dist.get("mean"):
        return None  # a log-normal's spread is its mean over its median
    value = dist.get("value", dist.get("mean"))
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return None
    for bound, clamps in (("min", max), ("max", min)):
        limit = dist.get(bound)
        if isinstance(limit, (int, float)) and not isinstance(limit, bool) and math.isfinite(limit):
            value = clamps(value, limit)
    return _fixed({"mean": value, "stddev": dist.get("stddev")})


def _lengths(cfg: dict) -> tuple[int | None, int | None]:
    """(isl, osl) the run configured for its synthetic prompts, where the export says so: GenAI-Perf's
    ``synthetic_input_tokens_mean``/``output_tokens_mean``, AIPerf's ``input.prompt.input_tokens`` /
    ``output_tokens``, AIPerf 0.10+'s one synthetic dataset's ``prompts.isl``/``osl``. Nothing for a
    file or public dataset (the lengths are the dataset's), a spread, or an unset output length."""
    if "synthetic_input_tokens_mean" in cfg:
        if cfg.get("prompt_source", "synthetic") != "synthetic" or cfg.get("input_dataset") or cfg.get("input_file"):
            return None, None
        return (_fixed(cfg, "synthetic_input_tokens_mean", "synthetic_input_tokens_stddev"),
                _fixed(cfg, "output_tokens_mean", "output_tokens_stddev"))
    inp = cfg.get("input") if isinstance(cfg.get("input"), dict) else None
    if inp is not None:
        if any(inp.get(k) for k in ("file", "public_dataset", "custom_dataset_type")):
            return None, None
        prompt = inp.get("prompt") if isinstance(inp.get("prompt"), dict) else {}
        return _fixed(prompt.get("input_tokens")), _fixed(prompt.get("output_tokens"))
    datasets = cfg.get("datasets") if isinstance(cfg.get("datasets"), list) else []
    if len(datasets) == 1 and isinstance(datasets[0], dict) and datasets[0].get("type") == "synthetic":
        prompts = datasets[0].get("prompts") if isinstance(datasets[0].get("prompts"), dict) else {}
        return _drawn(prompts.get("isl")), _drawn(prompts.get("osl"))
    return None, None


INPUT_LENGTHS = "input_sequence_length"  # the metric object of each request's input tokens


def averages(doc: dict, m: Measurement, path: str = "") -> None:
    """What the run measured of its point (``Measurement.averaged``), for an export that states no setting of it
    (a CSV states none): its requests' mean input tokens (``input_sequence_length`` avg) and, from its request
    throughput and mean request latency (``metrics_from``'s, in ``m.metrics``), the requests it held in flight on
    average, named by its request throughput's key; not of a run on a fixed schedule (``_scheduled``), whose
    trace's arrivals set what is in flight, as a rate's do (s39b)."""
    lengths = doc.get(INPUT_LENGTHS)
    mean = lengths.get("avg") if isinstance(lengths, dict) else None
    if isinstance(mean, (int, float)) and not isinstance(mean, bool) and math.isfinite(mean) and mean > 0:
        m.averaged[INPUT_MEAN], m.keys[INPUT_MEAN] = mean, f"{INPUT_LENGTHS}.avg"
    rate, latency = m.metrics.get(R.REQUEST_THROUGHPUT), m.metrics.get(R.latency_name(R.E2EL, "mean"))
    if rate and latency and not _scheduled(_input_config(doc), path):
        m.averaged[IN_FLIGHT], m.keys[IN_FLIGHT] = rate * latency / 1000, m.keys.get(R.REQUEST_THROUGHPUT)


FIXED_SCHEDULE = "fixed_schedule"  # AIPerf's load of a trace sent on its own timestamps (--fixed-schedule)


def _scheduled(cfg: dict, path: str = "") -> bool:
    """Whether ``input_config`` states a fixed schedule: the measured phase's type (AIPerf 0.10+), else the
    ``input`` section's switch (earlier AIPerf)."""
    given = cfg.get("input") if isinstance(cfg.get("input"), dict) else {}
    return _measured_phase(cfg, path).get("type") == FIXED_SCHEDULE or given.get(FIXED_SCHEDULE) is True


def _failed(doc: dict, metrics: dict):
    if metrics.get(R.FAILED) is not None:
        return metrics[R.FAILED]
    summary = doc.get("error_summary")
    if isinstance(summary, list):
        return sum(int(e.get("count", 1)) if isinstance(e, dict) else 1 for e in summary)
    return None


# AIPerf of late 2025 kept its metrics under "records", each keyed by its tag, TTFT as "ttft".
TAGS = {"ttft": "time_to_first_token", "ttst": "time_to_second_token"}


def _keyed_by_tag(records: dict) -> bool:
    return bool(records) and all(isinstance(v, dict) and v.get("tag") == k for k, v in records.items())


def _untagged(records: dict) -> dict:
    """Tag-keyed records as the top-level metric objects of the later exports."""
    return {TAGS.get(tag, tag): obj for tag, obj in records.items()}


def _unstreamed(doc: dict, m: Measurement) -> None:
    """A run that did not stream (GenAI-Perf's ``streaming``, AIPerf's ``endpoint.streaming``:
    false) got each response whole: GenAI-Perf still exports a time to first token, equal to the
    request's latency. Its TTFT, TPOT and ITL are left out, with a warning (hunt 8: a streamed and
    an unstreamed run of one setup read as a 25x TTFT change)."""
    cfg = _input_config(doc)
    endpoint = cfg.get("endpoint") if isinstance(cfg.get("endpoint"), dict) else {}
    if cfg.get("streaming") is not False and endpoint.get("streaming") is not False:
        return
    drop_streamed(m, UNSTREAMED_RULE, "warning: ttft: the client did not stream (streaming: false), so its time to "
                  "first token is the whole response's; stored without TTFT, TPOT and ITL",
                  "rerun with streaming on (genai-perf --streaming) to measure them")


# The figures an export has of a run whose endpoint generates tokens (chat, completions, ...), each when it counted
# one: AIPerf and GenAI-Perf count no output token against an endpoint that generates none (embeddings, rankings,
# image retrieval; AIPerf's endpoint metadata says produces_tokens: false) and export its latency and rates alone.
TOKEN_FIGURES = (R.OUTPUT_THROUGHPUT, R.TOTAL_OUTPUT_TOKENS, R.TTFT)
ENDPOINT_TYPE = ("endpoint.type", "endpoint_type")  # AIPerf's, GenAI-Perf's (SETUP's first)


def refuse_tokenless_run(m: Measurement, cfg: dict, path: str, line: int) -> None:
    """Refuse (``refuse_tokenless``) a run whose requests completed without a token counted (``TOKEN_FIGURES``:
    none), its endpoint type named as ``input_config`` (``cfg``) states it; a CSV export (``cfg`` {}) states none."""
    done, rate = m.metrics.get(R.COMPLETED), m.metrics.get(R.REQUEST_THROUGHPUT)
    if not (done or (done is None and rate)) or any(m.metrics.get(name) is not None or any(
            key.startswith(f"{name}_") for key in m.metrics) for name in TOKEN_FIGURES):
        return  # GenAI-Perf's base metrics (embeddings, rankings) have no request count: its rate tells requests done
    endpoint = _setup(cfg).get(f"{CONFIG}.{ENDPOINT_TYPE[0]}") or _setup(cfg).get(f"{CONFIG}.{ENDPOINT_TYPE[1]}")
    tool = R.CLIENT_NAMES.get(m.client, m.client)
    done = (f"{done:g} requests completed" if done else f"{rate:g} requests/s completed") + ", no output token counted"
    refuse_tokenless(path, line, f"{'an' if tool[0] in 'AEIOU' else 'a'} {tool} run",
                     f"endpoint type {endpoint}, {done}" if isinstance(endpoint, str) else
                     f"endpoint type not stated, {done}", "endpoint type (chat, completions)")


def _incomplete(doc: dict, m: Measurement) -> bool:
    """Whether AIPerf says the run did not finish (0.13+: ``is_complete: false``, its ``incomplete_reason``
    the cause: its record-stall watchdog gave up on records that never came, its results failed to
    finalize): the figures are of the records it had, a part of the run's, at a fraction of its true
    throughput. Stored as failed, as a cancelled run is, with a warning saying why (not for a cancelled
    run, whose reason only says so)."""
    if doc.get("is_complete") is not False:
        return False
    if doc.get("was_cancelled") is not True:
        reason = doc.get("incomplete_reason")
        why = f" ({reason})" if isinstance(reason, str) and reason else ""
        m.notes.append(("incomplete-run", f"warning: is_complete: false{why}: AIPerf finished the run without all "
                        "its records, so its figures are of a part of it; stored as failed",
                        "check the run's log (workers that sent no records) and rerun the point"))
    return True


def completion(doc: dict, m: Measurement) -> None:
    """Whether the run ``doc`` (an export) is of finished: stored as failed when it says it was cancelled or did
    not finish (``_incomplete``); for its CSV export too, which does not say (``aiperf_csv.completion``)."""
    m.cancelled = doc.get("was_cancelled") is True or _incomplete(doc, m)


LONG_OUTPUTS = 2  # times the configured output length: past it the client miscounted the tokens


def _long_outputs(doc: dict, m: Measurement) -> None:
    """A warning when the responses averaged over LONG_OUTPUTS times the output length the run
    fixed: a request cannot outrun its max_tokens, so the client miscounted (GenAI-Perf 24.11 and
    24.12 counted streamed tokens about five times over: hunt 8), and its token throughputs with it."""
    osl, lengths = m.fields.get(R.OSL), doc.get("output_sequence_length")
    mean = lengths.get("avg") if isinstance(lengths, dict) else None
    if not isinstance(osl, int) or osl <= 0 or isinstance(mean, bool) or not isinstance(mean, (int, float)) \
            or mean <= LONG_OUTPUTS * osl:
        return
    m.notes.append(("long-outputs", f"warning: {m.said(R.OSL)}: the run fixed {osl} output tokens per request but its "
                    f"responses averaged {mean:.1f}; the client miscounted tokens, so its token throughputs "
                    f"are about {mean / osl:.1f} times too high", "rerun with a client version that counts "
                    "streamed tokens right (GenAI-Perf 24.11 and 24.12 do not)"))


def parse(doc: dict, path: str, line: int) -> Measurement:
    if isinstance(doc.get(SWEEP), list):  # beside the runs' own exports, as the sweep writes it: passed over
        raise SweepAggregate(path)
    tagged = isinstance(doc.get("records"), dict)
    if tagged:
        if not _keyed_by_tag(doc["records"]):
            raise fail(path, line, "records: a pre-release AIPerf export (2025-06; metrics keyed by display "
                       "name) has no request count or throughputs",
                       "rerun with AIPerf 0.3 or later, whose export has request_throughput and request_count")
        doc = {**{k: v for k, v in doc.items() if k != "records"}, **_untagged(doc["records"])}
    _pooled(_input_config(doc), path, line)
    model, conc, client = _config(doc, path)
    _several_models(_input_config(doc), client, path, line)
    m = Measurement(f"{client}-json", client, line, client_version=doc.get("aiperf_version"))
    m.metrics.update(metrics_from(doc, path, line, m.notes, m.keys))
    averages(doc, m, path)
    if tagged:  # each metric's key as the export writes it, under records and its tag
        tag_of = {key: tag for tag, key in TAGS.items()}
        m.keys = {name: "records." + ".".join((tag_of.get(k, k), *rest)) for name, (k, *rest) in
                  ((name, key.split(".")) for name, key in m.keys.items())}
    m.metrics[R.FAILED] = _failed(doc, m.metrics)
    completion(doc, m)
    m.fields.update({R.MODEL: model, R.CONC: conc, **_times(doc), R.REQUEST_RATE: _request_rate(doc, path)})
    m.run_window = client_window(doc)
    m.fields[R.REQUEST_SPAN] = request_span(doc)
    cfg = _input_config(doc)
    m.fields[R.ISL], m.fields[R.OSL] = _lengths(cfg)
    m.keys.update({R.CONC: _concurrency(cfg, path)[1], R.MODEL: _models(cfg)[1], **_length_keys(cfg)})
    m.setup = _setup(cfg)
    refuse_tokenless_run(m, cfg, path, line)
    _unstreamed(doc, m)
    _long_outputs(doc, m)
    if m.metrics.get(R.OUTPUT_THROUGHPUT) is None and m.metrics.get(R.COMPLETED) is None:
        raise fail(path, line, "output_token_throughput/request_count: missing",
                   "export the full profile (profile_export_aiperf.json) rather than a partial one")
    return m
