"""Report: JSON, terminal text, GitHub annotations and markdown.

Rendering only; nothing here decides anything.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Iterable

from sweepgate import fields as F
from sweepgate.errors import Diagnostic, emit  # noqa: F401  (re-exported: the one annotation writer)

# Columns of the terminal/markdown matrix table: (header, field or callable)
TABLE_COLUMNS = (
    ("bucket", None),
    ("exp-name", F.EXP_NAME),
    ("runner", F.RUNNER),
    ("tp", F.TP),
    ("ep", F.EP),
    ("conc", F.CONC),
    ("kv", F.KV_OFFLOADING),
    ("backend", F.KV_OFFLOAD_BACKEND),
    ("dram-gb", F.TOTAL_CPU_DRAM_GB),
    ("spec", F.SPEC_DECODING),
)


def to_json(value, *, pretty: bool = False) -> str:
    if pretty:
        return json.dumps(value, indent=2, sort_keys=False) + "\n"
    return json.dumps(value) + "\n"


def _cell(row: dict, bucket: str, field) -> str:
    if field is None:
        return bucket
    value = row.get(field)
    if value is None and field == F.TP and isinstance(row.get(F.PREFILL), dict):
        p, d = row[F.PREFILL], row[F.DECODE]
        return f"p{p[F.NUM_WORKER]}x{p[F.TP]}/d{d[F.NUM_WORKER]}x{d[F.TP]}"
    if value is None:
        return "-"
    if isinstance(value, dict):
        return "@".join(str(v) for v in value.values())
    if isinstance(value, list):
        return ",".join(map(str, value))
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def matrix_table(rows: Iterable[tuple[str, dict]]) -> list[list[str]]:
    return [[_cell(row, bucket, field) for _, field in TABLE_COLUMNS] for bucket, row in rows]


def text_table(rows: Iterable[tuple[str, dict]]) -> str:
    """A fixed-width table of matrix rows for a terminal."""
    body = matrix_table(rows)
    header = [h for h, _ in TABLE_COLUMNS]
    widths = [max(len(r[i]) for r in [header, *body]) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(header, widths)).rstrip(),
             "  ".join("-" * w for w in widths)]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in body]
    return "\n".join(lines) + "\n"


def markdown_table(header: list[str], body: list[list[str]]) -> str:
    def esc(text: str) -> str:
        return str(text).replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(esc(h) for h in header) + " |",
             "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(esc(c) for c in row) + " |" for row in body]
    return "\n".join(lines) + "\n"


def matrix_markdown(rows: Iterable[tuple[str, dict]]) -> str:
    return markdown_table([h for h, _ in TABLE_COLUMNS], matrix_table(rows))


def use_color(stream=None) -> bool:
    stream = stream or sys.stdout
    return stream.isatty() and not os.environ.get("NO_COLOR")
