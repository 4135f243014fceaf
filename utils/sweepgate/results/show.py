"""What `results show` prints: one line per point, as a rich table or JSON."""

from __future__ import annotations

import json

from sweepgate.results import record as R

COLUMNS = (  # header, record field or metric, format
    ("config key", R.CONFIG_KEY, "{}"), ("hw", R.HARDWARE, "{}"), ("conc", R.CONC, "{}"),
    ("isl/osl", None, "{}"), ("topology", R.TOPOLOGY, "{}"), ("status", R.STATUS, "{}"),
    ("tok/s/GPU", R.OUTPUT_TPUT_PER_GPU, "{:,.1f}"), ("tok/s/user", R.INTERACTIVITY, "{:,.1f}"),
    ("TTFT p50 ms", R.latency_name("ttft", "p50"), "{:,.1f}"), ("TPOT p50 ms", R.latency_name("tpot", "p50"), "{:,.2f}"),
    ("E2EL p50 ms", R.latency_name("e2el", "p50"), "{:,.0f}"), ("success", R.SUCCESS_RATE, "{:.1%}"),
    ("run", R.RUN_ID, "{}"), ("result", R.RESULT_FILENAME, "{}"),
)


def sort_key(rec: dict) -> tuple:
    """Config key, hardware, conc (unknowns last), then the result's name."""
    def text(v):
        return (v is None, "" if v is None else str(v))
    conc = rec.get(R.CONC)
    return (*text(rec.get(R.CONFIG_KEY)), *text(rec.get(R.HARDWARE)), conc is None, conc or 0,
            str(rec.get(R.TOPOLOGY)), str(rec.get(R.RESULT_FILENAME)), str(rec.get(R.RUN_ID)),
            rec.get(R.ATTEMPT) or 0)


def one_per_point(records: list[dict]) -> list[dict]:
    """The newest attempt of each point (records arrive newest first or in attempt order)."""
    best: dict[tuple, dict] = {}
    for rec in records:
        key = tuple(str(rec.get(f)) for f in R.POINT_IDENTITY) + (rec.get(R.RUN_ID),)
        if rec.get(R.CONFIG_KEY) is None:  # outputs ingested without a job: each its own point
            key += (rec.get(R.RESULT_FILENAME),)
        if key not in best or (rec.get(R.ATTEMPT) or 0) > (best[key].get(R.ATTEMPT) or 0):
            best[key] = rec
    return sorted(best.values(), key=sort_key)


def as_json(records: list[dict]) -> str:
    return json.dumps(records, indent=2, sort_keys=True)


def _cell(rec: dict, field: str | None, fmt: str) -> str:
    if field is None:
        isl, osl = rec.get(R.ISL), rec.get(R.OSL)
        return f"{isl}/{osl}" if isl or osl else ""
    value = rec.get(field, rec.get(R.METRICS, {}).get(field))
    return "" if value is None else fmt.format(value)


def table(records: list[dict], stream, title: str) -> None:
    """A rich table; colour only on a terminal and not under NO_COLOR."""
    from rich.table import Table

    from sweepgate.core.report import console as make_console

    console = make_console(stream)
    tbl = Table(title=title, title_justify="left")
    for header, field, _ in COLUMNS:
        numeric = field in R.DIRECTION or field == R.CONC
        tbl.add_column(header, justify="right" if numeric else "left", no_wrap=True)
    for rec in records:
        style = None if rec.get(R.STATUS) == "success" else "red"
        tbl.add_row(*(_cell(rec, field, fmt) for _, field, fmt in COLUMNS), style=style)
    console.print(tbl)
