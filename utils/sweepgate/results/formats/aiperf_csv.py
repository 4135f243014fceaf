"""AIPerf and GenAI-Perf CSV exports: the JSON export's numbers as display-name tables.

Tables split by blank lines: ``Metric,avg,min,...`` (one row per
distribution) and ``Metric,Value`` (scalars); GPU telemetry tables (AIPerf's ``Endpoint,GPU_Index,...``,
GenAI-Perf's per-GPU ``Metric,GPU,avg,...`` and ``Metric,GPU,Value``) may follow and are no run metric, so they
are skipped. Display names map to export keys
by rule (``Time To First Token (ms)`` -> ``time_to_first_token`` in ms), values
may carry thousands separators (``"2,156.03"``), absent stats are blank cells or GenAI-Perf's ``N/A``.
The CSV carries no model or concurrency: those come from the job's row (held to what the CSV measured:
normalize.inputs_unlike_row, in_flight_unlike_row); a run over several models is told by the JSON export of its
name beside it, which refuses the CSV as it is refused (``aiperf.several_models``, ``ingest._csv_completion``).
"""

from __future__ import annotations

import csv
import io
import re

from sweepgate.core.errors import SweepgateError, fail
from sweepgate.results import jsonio
from sweepgate.results.formats import aiperf
from sweepgate.results.formats.foreign import MULTI_RUN_CSV, Auxiliary, MultiRunAggregate, SweepAggregate
from sweepgate.results.measurement import Measurement

_NAME = re.compile(r"^(?P<name>[^(]+?)\s*(?:\((?P<unit>[^)]*)\))?\s*$")
_UNITS = {"per sec": "per sec", "sec": "sec", "ms": "ms", "ns": "ns", "us": "us", "s": "s"}
SKIPPED = ["(a table other than Metric,...)"]  # header of a table whose rows are skipped
# GenAI-Perf's GPU telemetry tables (with a Triton server's metrics or DCGM collected): one row per metric and GPU,
# the GPU's name in this column after Metric (``Metric,GPU,avg,...``, ``Metric,GPU,Value``): no figure of the run.
GPU_COLUMN = "GPU"
# What GenAI-Perf's CSV exporter writes for a statistic it has no value of (exporter_utils: a metric or a stat
# missing from its statistics, as for tokens of a reasoning model it cannot count): absent, as a blank cell is.
NO_VALUE = "N/A"
# Keys AIPerf's CSV has and GenAI-Perf's 2024 CSV lacks (its 2025 one writes "Request Count (count)").
AIPERF_KEYS = ("benchmark_duration", "request_count", "error_request_count")
# GenAI-Perf spells throughput units "(per sec)"; AIPerf "(tokens/sec)", "(requests/sec)".
GENAI_PERF_UNIT = "per sec"
# Display names whose rule-made key differs from the JSON export's key.
EXPORT_KEYS = {"total_input_sequence_length": "total_isl", "total_output_sequence_length": "total_osl",
               "minimum_request_timestamp": "min_request_timestamp",
               "maximum_response_timestamp": "max_response_timestamp",
               "token_weighted_acceptance_length": "spec_decode_token_weighted_acceptance_length"}


# GenAI-Perf's telemetry CSV of its own (``<export>_telemetry.csv``, its per-GPU tables alone), as it wrote them in 2024
TELEMETRY_CSV = f"Metric,{GPU_COLUMN},"


def detect_text(text: str) -> bool:
    text = text.lstrip("\ufeff")
    return text.startswith("Metric,") and not text.startswith(TELEMETRY_CSV)


# AIPerf's sweep aggregate CSV (profile_export_aiperf_sweep.csv): one row per swept value, a column for
# each swept parameter (its leaf name, "concurrency"; its dotted path where two leaves clash: 0.11-0.13's
# cli_runner/_sweep_aggregate.py), then each metric as <name>_mean/_std/_min/_max/_cv columns, then
# "Best Configurations" and "Metadata".
_SWEEP_HEADER = re.compile(r"^[a-z0-9_.]+(,[a-z0-9_.]+)*?,([a-z0-9_]+_(mean|std|min|max|cv),)+")


# GenAI-Perf's `analyze` export (analyze_export_genai_perf.csv): a row of p99s per run config.
_ANALYZE_HEADER = "Config Name,"


def refuse_sweep(text: str, path: str) -> None:
    """Refuse a summary of several runs (GenAI-Perf's analyze export) with its own reason. AIPerf's
    aggregates of runs (of one run's repeats, of a sweep's values: ``MultiRunAggregate``,
    ``SweepAggregate``) and its other CSVs (server metrics, per-request records, GPU telemetry, time
    slices) go beside the runs' exports: passed over (``Auxiliary``)."""
    first = jsonio.first_line(text.lstrip("\ufeff"))
    if first.startswith(MULTI_RUN_CSV):  # AIPerf's aggregate of one run's repeats (--num-profile-runs)
        raise MultiRunAggregate(path)
    if _SWEEP_HEADER.match(first) and "_cv," in first:  # one row per swept value: passed over
        raise SweepAggregate(path)
    if (first.startswith("# AIPerf Server Metrics Export") or first.startswith("Endpoint,GPU_Index,")  # telemetry
            or first.startswith(TELEMETRY_CSV)
            or (first.startswith("request_num,") and ",request_start_ns," in first)  # per-request records
            or first.startswith("Timeslice,Start_NS,End_NS,")):  # the time-slice export (--slice-duration)
        raise Auxiliary(path)
    if first.startswith(_ANALYZE_HEADER):
        raise fail(path, 1, "format: a GenAI-Perf analyze summary (one row per run config, p99 latencies and "
                   "throughputs only), not one run's export",
                   "ingest each run's own profile_export_genai_perf.json or .csv (genai-perf profile)")


def _key_unit(display: str) -> tuple[str, str | None]:
    match = _NAME.match(display)
    name, unit = (match["name"], match["unit"]) if match else (display, None)
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_"), unit


def _number(cell: str, path: str, at: tuple[int, int], column: str):
    """The number in ``cell`` (None when blank), at (line, column) ``at``, else refused there."""
    cell = cell.strip().replace(",", "")
    if not cell or cell == NO_VALUE:
        return None
    try:
        return float(cell)
    except ValueError:
        raise fail(path, at[0], f"{column}: {cell!r} is not a number",
                   "the CSV was edited or is not an AIPerf/GenAI-Perf export", col=at[1]) from None


# A cell of a CSV line: quoted (its commas its own, "" a quote) or up to the next comma.
_CELL = re.compile(r'"(?:[^"]|"")*"[^,]*|[^,]*')


def cell_columns(line: str) -> list[int]:
    """The 1-based character column where each cell of the CSV line ``line`` starts."""
    cols, at = [], 0
    while True:
        cols.append(at + 1)
        at = _CELL.match(line, at).end()
        if at >= len(line) or line[at] != ",":
            return cols
        at += 1


Place = tuple[int, int]  # (line, column), both 1-based, as an editor shows them


def _places(lines: list[str], first: int, last: int) -> tuple[list[Place], Place]:
    """(where each cell of the record written on physical lines ``first``..``last`` starts, where it ends): a quoted
    cell may hold a newline, so a record's later cells may stand on later lines."""
    record = "\n".join(lines[first - 1:last])

    def place(at: int) -> Place:  # ``at``: a 0-based offset in ``record``
        before = record.count("\n", 0, at)
        return first + before, at - (record.rfind("\n", 0, at) + 1) + 1

    return [place(col - 1) for col in cell_columns(record)], place(len(record.rstrip("\r")))


def to_export(text: str, path: str, rows: dict | None = None) -> dict:
    """The CSV as the JSON export's ``{key: {unit, avg, p50, ...}}`` shape; ``rows`` gets each key's line,
    display name (its first cell) and the place (line, column) of its cell under each header (``avg``, ``p50``,
    ...). Lines are physical lines, a record's cells each on its own (s36i: counted in records, a quoted cell
    holding a newline put every later place a line short)."""
    doc, header, table_start = {}, None, True
    text = text.lstrip("\ufeff")
    lines = text.split("\n")  # a cell's column is counted in its line as written
    reader, last = csv.reader(io.StringIO(text)), 0
    for row in reader:
        line, last = last + 1, reader.line_num
        if not row or not any(c.strip() for c in row):
            header, table_start = None, True
            continue
        if table_start:
            table_start = False
            run_table = row[0] == "Metric" and row[1:2] != [GPU_COLUMN]
            header = ["avg" if h == "Value" else h for h in row] if run_table else SKIPPED
            continue
        if header is SKIPPED:
            continue
        cells, end = _places(lines, line, last)
        if header is None or len(row) != len(header):
            odd = cells[len(header or [])] if len(cells) > len(header or []) else end
            raise fail(path, odd[0], f"expected {len(header or [])} cells after a 'Metric,...' header, "
                       f"got {len(row)}", "the CSV is truncated or not an AIPerf/GenAI-Perf export", col=odd[1])
        key, unit = _key_unit(row[0])
        key = EXPORT_KEYS.get(key, key)
        obj, places = {"unit": unit}, dict(zip(header[1:], cells[1:]))
        for column, cell in zip(header[1:], row[1:]):
            obj[column] = _number(cell, path, places.get(column, (line, 0)), f"{row[0]}.{column}")
        doc[key] = obj
        if rows is not None:
            rows[key] = (line, row[0], places)
    return doc


CSV_FORMAT = "{}-csv"  # a CSV export's source format, after its client's name
AIPERF_CSV = CSV_FORMAT.format("aiperf")
CSV_FORMATS = (AIPERF_CSV, CSV_FORMAT.format("genai-perf"))  # the source formats ``parse_text`` gives (``_client``)


def parse_text(text: str, path: str) -> Measurement:
    rows: dict[str, tuple[int, str, dict[str, Place]]] = {}
    doc = to_export(text, path, rows)
    client = _client(doc)
    m = Measurement(CSV_FORMAT.format(client), client)
    try:
        m.metrics.update(aiperf.metrics_from(doc, path, 0, m.notes, m.keys))
    except SweepgateError as exc:  # "key.stat: ..." of the JSON shape: at the key's cell, not the file's start,
        for d in exc.diagnostics:  # named as the table writes it
            dotted = d.message.split(":", 1)[0]
            key, _, stat = dotted.partition(".")
            if not d.line and key in rows:  # a stat with no cell of its own (the unit): the row's display name
                d.line, d.col = rows[key][2].get(stat, (rows[key][0], 1))
                if stat in rows[key][2]:
                    d.message = _as_table(rows, dotted) + d.message[len(dotted):]
        raise
    aiperf.averages(doc, m)
    _note_places(m, rows)
    _table_keys(m, rows)
    if client == "aiperf" and m.metrics.get(aiperf.R.FAILED) is None:
        m.metrics[aiperf.R.FAILED] = 0  # AIPerf writes its error rows only when a request failed
    m.run_window = aiperf.client_window(doc)
    m.fields[aiperf.R.REQUEST_SPAN] = aiperf.request_span(doc)
    aiperf.refuse_tokenless_run(m, {}, path, 1)
    if m.metrics.get(aiperf.R.OUTPUT_THROUGHPUT) is None and m.metrics.get(aiperf.R.COMPLETED) is None:
        raise fail(path, 0, "Output Token Throughput/Request Count: missing",
                   "export the full profile CSV (both the distribution and the scalar tables)")
    return m


def _note_places(m: Measurement, rows: dict[str, tuple[int, str, dict[str, Place]]]) -> None:
    """A warning the JSON shape's reader gave of a figure under its dotted key (``time_to_first_token.p1: nan is no
    latency``): named as the table writes it (``Time to First Token (ms).p1``) and placed at its cell (its metric,
    the note's last item, ``Measurement.places``)."""
    by_dotted = {dotted: name for name, dotted in m.keys.items()}
    for i, (rule, message, hint, *of) in enumerate(m.notes):
        dotted = message.removeprefix(jsonio.WARNING).split(": ", 1)[0]
        if not of and dotted in by_dotted and (named := _as_table(rows, dotted)):
            m.notes[i] = (rule, message.replace(dotted, named, 1), hint, by_dotted[dotted])


def _table_keys(m: Measurement, rows: dict[str, tuple[int, str, dict[str, Place]]]) -> None:
    """Each metric's key (``time_to_first_token.p50`` of the JSON shape) as the table writes it, its row's
    display name and its column (``Time To First Token (ms).p50``, as a cell's refusal names it), and its
    cell's line and column (``Measurement.places``)."""
    for name, dotted in list(m.keys.items()):
        key, _, column = dotted.partition(".")
        if key in rows:
            m.places[name], m.keys[name] = rows[key][2].get(column, (rows[key][0], 1)), _as_table(rows, dotted)


def _as_table(rows: dict[str, tuple[int, str, dict[str, Place]]], dotted: str) -> str | None:
    """A JSON-shape key (``time_to_first_token.p1``) as the table writes it (``Time to First Token (ms).p1``):
    its row's display name and its column; None for a key of no row."""
    key, _, column = dotted.partition(".")
    return f"{rows[key][1]}.{column}" if key in rows else None


# AIPerf 0.13+ writes this marker in a run's artifact folder once its exports are whole: {ready, was_cancelled,
# partial, ...}, and since, the phase the run ended in and the error it ended with when it did, terminal_phase and
# terminal_error, each left out when there is none (common/results_markers.py, write_ready_marker)
READY_MARKER = ".aiperf_results_ready.json"
UNKNOWN_COMPLETION = "aiperf-csv-completion"
ENDED_IN_ERROR = "aiperf-terminal-error"
EXPORT, MARKER = "export", "marker"  # which file beside a CSV export said whether its run finished


def completion(m: Measurement, export, marker) -> str | None:
    """Whether an AIPerf CSV export's run finished, which the CSV does not say (its JSON export's was_cancelled
    and 0.13+'s is_complete have no row in it: exporters/metrics_csv_exporter.py writes the metrics alone): as
    the JSON export of its name beside it (``export``) says (``aiperf.completion``), else as the ready marker
    beside it (``marker``) says: cancelled, or ended in an error (``terminal_error``: stored as failed, as a
    cancelled run is, with a warning quoting it); else stored as finished, with a warning that nothing said so.
    GenAI-Perf's exports say it nowhere: none. Returns which file said it, EXPORT or MARKER, when a warning it
    gave (``m.notes`` added) is of that file's key, not of the CSV; else None."""
    if m.source_format != AIPERF_CSV:
        return None
    if isinstance(export, dict) and aiperf.detect(export):
        aiperf.completion(export, m)
        return EXPORT
    if isinstance(marker, dict) and marker.get("was_cancelled") is True:
        m.cancelled = True
    elif isinstance(marker, dict) and marker.get("terminal_error") not in (None, ""):
        m.cancelled = True  # s35h: such a run was stored as finished, the marker read for was_cancelled alone
        error, phase = marker["terminal_error"], marker.get("terminal_phase")
        quoted = str(error).strip().splitlines()[0] if str(error).strip() else repr(error)
        where = f" in its {phase} phase" if isinstance(phase, str) and phase else ""
        m.notes.append((ENDED_IN_ERROR, f"warning: terminal_error: AIPerf's ready marker says the run ended in an "
                        f"error{where} ({quoted}), so its figures are of a part of it at most; stored as failed",
                        "check the run's log and rerun the point"))
        return MARKER
    else:  # s35e: a marker of a run not cancelled was said as absent ("was_cancelled ... in its JSON export only")
        said = ("its ready marker beside it says it was not cancelled, and is_complete is in its JSON export only, "
                "none of its name beside it" if isinstance(marker, dict) and marker.get("was_cancelled") is False
                else "was_cancelled, is_complete: in its JSON export only, and none of its name is beside it")
        m.notes.append((UNKNOWN_COMPLETION, "warning: an AIPerf CSV export does not say whether its run finished "
                        f"({said}); stored as a finished run", "ingest the run's profile_export_aiperf.json, from "
                        "the same artifact folder, instead"))
    return None


def _client(doc: dict) -> str:
    """GenAI-Perf when a throughput is "(per sec)", else AIPerf when it has a key only AIPerf writes."""
    if any(isinstance(o, dict) and o.get("unit") == GENAI_PERF_UNIT for o in doc.values()):
        return "genai-perf"
    return "aiperf" if any(k in doc for k in AIPERF_KEYS) else "genai-perf"
