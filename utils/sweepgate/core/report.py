"""Report: JSON, terminal text, GitHub annotations and markdown.

Rendering only; nothing here decides anything.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterable
from contextlib import contextmanager

from sweepgate.core import fields as F
from sweepgate.core.errors import Diagnostic, emit  # noqa: F401  (re-exported: the one annotation writer)
from sweepgate.core.errors import printable

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


_BLANKS_BEFORE_NEWLINE = re.compile(r" +\n")
PIPE_WIDTH = 240  # columns of a table written to a pipe or file (no terminal to ask, no COLUMNS set)


def plain(text: str, style: str = ""):
    """``text`` as a rich Text, shown as written: never read as rich markup (a file named ``out[b].json``
    was shown as ``out.json``, a model named ``org/model[/b]`` stopped the table with a MarkupError), its control
    characters written as escapes (``errors.printable``: an escape sequence in a model name or a newline in a
    file name neither rewrites the reader's terminal nor splits a row in two)."""
    from rich.text import Text

    return Text(printable(text), style=style)


def _columns() -> int | None:
    """The width COLUMNS asks for (a positive number), else None."""
    import os

    columns = os.environ.get("COLUMNS", "")
    return int(columns) if columns.isascii() and columns.isdigit() and int(columns) > 0 else None


def columns_set() -> bool:
    """Whether COLUMNS asks for a width (``_columns``): a pipe's reader who set it chose the width."""
    return _columns() is not None


class PrintableStream:
    """A text stream that writes every control character but a line end and a tab as an escape
    (``errors.printable``): sys.stdout and sys.stderr while a results command runs (``printable_streams``), so
    no line it prints, whatever prints it (a note, a warning, a library's), sends a result's escape sequence to
    the terminal (s43c: a run id or a ref holding ``\\x1b[2J`` in compare's notes cleared the reader's screen).
    The one console writes to the stream beneath (``console``): its styles are escape codes, and it writes
    its text's control characters as escapes itself. A newline stays: a note that may hold one is ``say``'s."""

    def __init__(self, wrapped):
        self.wrapped = wrapped

    def write(self, text: str) -> int:
        self.wrapped.write(printable(text, lines=True))
        return len(text)

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name):  # flush, fileno, isatty, encoding, reader_left, ...: the stream's own
        return getattr(self.wrapped, name)


@contextmanager
def printable_streams():
    """sys.stdout and sys.stderr as ``PrintableStream`` for the block (each not one already), both restored
    after it."""
    import sys

    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = (s if s is None or isinstance(s, PrintableStream) else PrintableStream(s) for s in saved)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved


def say(line: str, stream=None) -> None:
    """Write ``line``, a command's own note naming somebody else's text (a run id, a ref, a folder), on
    ``stream`` (stderr) as one line: its control characters, a newline among them, as escapes
    (``errors.printable``), the line and its end in one write (as ``errors.emit`` writes a diagnostic)."""
    import sys

    (stream or sys.stderr).write(printable(line) + "\n")


def console(stream=None, *, width: int | None = None):
    """The one rich Console for terminal output: styles only on a terminal, and none under NO_COLOR.

    Every table sweepgate prints goes through this, so piped output carries no
    escape codes and ``NO_COLOR`` (https://no-color.org) is honoured everywhere: no colour, and no
    bold, dim or italic either (rich's ``no_color`` keeps those; a user who sets NO_COLOR wants plain
    text, and `results compare` and `results show` printed bold headers and dim rows). Piped without
    COLUMNS, no line is wrapped at the console's width: a long note stays one line, as the table
    it follows stays whole (``fits``). No string it prints is read as rich markup (``markup=False``: a
    result's ``[bold]`` or ``[link=...]`` is text), and on a ``PrintableStream`` it writes to the stream beneath.
    """
    import os
    import sys

    from rich.console import Console

    class _Console(Console):
        def _render_buffer(self, buffer) -> str:
            """The text to write; piped, with no line ending in blanks: rich pads every cell to its column's
            width, the last column's too (`mtp `, `verdict  `), which a diff, a CI log or a pasted report keeps.
            A terminal's text, escape codes among it, is left as rich draws it: its styles and cursor moves
            (control segments); a control character in the text itself, a cell's or a note's that reached
            here unescaped, is written as an escape (``printable``), so it never reaches the terminal (s42k)."""
            from rich.segment import Segment

            buffer = [seg if seg.control else Segment(printable(seg.text, lines=True), seg.style) for seg in buffer]
            text = super()._render_buffer(buffer)
            return text if self.is_terminal else _BLANKS_BEFORE_NEWLINE.sub("\n", text)

        def on_broken_pipe(self) -> None:
            """rich exits (SystemExit 1) when the reader leaves; say so as Python does. Not met on
            stdout, whose reader leaving cli.ReaderMayLeave turns into the end of the output alone."""
            self.quiet = True
            raise BrokenPipeError

    stream = sys.stdout if stream is None else stream
    if isinstance(stream, PrintableStream):  # its own escape codes are the console's to write
        stream = stream.wrapped
    tty = bool(getattr(stream, "isatty", None) and stream.isatty())
    piped = _columns() or PIPE_WIDTH  # `COLUMNS=100 cmd | less`
    plain = bool(os.environ.get("NO_COLOR"))  # a terminal still (its width), but no escape code of style
    return _Console(file=stream, force_terminal=tty, no_color=plain, color_system=None if plain else "auto",
                    width=width or (None if tty else piped), highlight=False, emoji=False, markup=False,
                    soft_wrap=not (tty or _columns() or width))


def live(stream) -> bool:
    """Whether ``stream`` may be drawn on (a spinner or a status line redrawn in place): a terminal that can move
    its cursor (not TERM=dumb, an editor's shell buffer, where rich draws no status at all), and no NO_COLOR.
    Under NO_COLOR a user wants plain text, and a redrawn line is cursor-control codes (hide the cursor, move
    up, erase the line) many times a second; such a stream gets plain lines instead."""
    import os

    tty = bool(getattr(stream, "isatty", None) and stream.isatty())
    return tty and not os.environ.get("NO_COLOR") and os.environ.get("TERM", "").lower() not in ("dumb", "unknown")


def reader_left() -> bool:
    """Whether the reader of standard output has left (`| head -3`: a write or flush met EPIPE, which
    cli.ReaderMayLeave turns into the end of the output alone), so what was printed, a path among it,
    may never have been read. Flush stdout first: a pipe's reader leaving shows only when bytes reach it."""
    import sys

    return bool(getattr(sys.stdout, "reader_left", False))


CLOCK = time.monotonic  # what ``progress`` times a piped line by (a test's clock steps as it is read)
PIPED_EVERY = 5.0  # seconds of work between two progress lines into a pipe or a file (a CI log)


def progress(total: int, what: str, minimum: int, *, of: str = ""):
    """Progress over a list of ``total`` items on stderr when there are ``minimum`` items or more (work that
    may take more than a few seconds); else None. Called on the list, it yields its items. Where stderr may be
    drawn on (``live``), a transient rich bar; on a terminal that may not be (NO_COLOR, TERM=dumb), plain lines
    ``what: done/total of``, one a tenth of the work (counted, not timed) and one at the end: a redrawn bar is
    cursor-control codes many times a second. Into a pipe or a file (a CI log), the same plain line each
    PIPED_EVERY seconds of work (by CLOCK) and one at the end once any was said; work done sooner says nothing,
    leaving the log the command's own summary (s42c: a job of minutes said nothing until its end)."""
    import sys

    stream = sys.stderr
    if total < minimum:
        return None
    if not stream.isatty():
        return lambda items: _piped_progress(items, total, what, of, stream, CLOCK)
    if not live(stream):
        return lambda items: _plain_progress(items, total, what, of, stream)
    from rich.progress import track

    return lambda items: track(items, description=what, console=console(stream), transient=True)


def _progress_line(what: str, done: int, total: int, of: str, stream) -> None:
    """``what: done/total of``, the line plain progress says, said once the item is through (the loop asks for
    the next)."""
    print(f"{what}: {done}/{total}{f' {of}' if of else ''}", file=stream, flush=True)


def _plain_progress(items, total: int, what: str, of: str, stream):
    every = -(-total // 10)  # ten lines at most, and the last at the end
    for done, item in enumerate(items, 1):
        yield item
        if done % every == 0 or done == total:
            _progress_line(what, done, total, of, stream)


def _piped_progress(items, total: int, what: str, of: str, stream, clock):
    last, said = clock(), False
    for done, item in enumerate(items, 1):
        yield item
        now = clock()
        if now - last >= PIPED_EVERY or (said and done == total):
            _progress_line(what, done, total, of, stream)
            last, said = now, True


def fits(console, renderable) -> bool:
    """Whether ``renderable`` prints whole on ``console``, widening a piped console (no terminal, no
    COLUMNS) to the width it needs: a pipe or a file has no width to respect, and a table whose shape
    depended on its own width would read differently from one run to the next."""
    from rich.measure import Measurement

    need = Measurement.get(console, console.options.update(max_width=10**6), renderable).maximum
    if need <= console.width:
        return True
    if console.is_terminal or _columns():
        return False
    console.width = need
    return True


def print_block(console, pairs: list[tuple[str, str]], style: str | None = None, units=None) -> None:
    """One row as `header value` pairs packed into lines of the console's width, in the order given: what a
    table too wide for a terminal prints instead of cutting its cells to "…". A pair starts a line of its own
    where the line it would end has no room for it whole; one wider than a line breaks between its header's
    words and its value's ``units`` (a function of the value, default its words: `results compare` keeps a
    baseline's interval one; s38f: at 50 columns rich broke a pair at its last blank, "461.6 [441.8," over
    "485.3] (n=5)"), the rest indented 4; a unit wider than a line is cut as ``_hanging`` cuts it."""
    from rich.cells import cell_len
    from rich.text import Text

    split = units or str.split
    width, line, lines = console.width, Text("-", style=style or ""), []
    broken = False  # the last pair was broken over lines: the next starts a line of its own
    for header, cell in ((printable(h), printable(c)) for h, c in pairs):
        if line.cell_len > 2 and (broken or line.cell_len + 2 + cell_len(header) + 1 + cell_len(cell) > width):
            lines.append(line)
            line = Text(" ", style=style or "")
        gap, broken = " " if line.cell_len <= 1 else "  ", False
        for word, dim in [*((w, True) for w in header.split()), *((u, False) for u in split(cell))]:
            # a word no line holds (a 113-character result name) starts beside its header, cut by ``_hanging``
            if line.cell_len > 4 and line.cell_len + len(gap) + cell_len(word) > width and cell_len(word) <= width - 4:
                lines.append(line)
                line, gap, broken = Text(" " * 4, style=style or ""), "", True
            line.append(gap)
            line.append(word, style="dim" if dim else None)
            gap = " "
    for text in (*lines, line):
        for part in _hanging(text, width):
            console.print(part, overflow="fold")


def _hanging(text, width: int, indent: int = 4) -> list:
    """``text``, one line of a block, cut to ``width`` cells, each line after the first indented by ``indent``
    (new-user28: at 80 columns a 110-character InferenceX result name went to a line of its own at column 0,
    cut as "..._conc1" over "6_b200...", as if a new block began)."""
    from rich.text import Text

    if width <= indent or len(text) <= width:
        return [text]
    cut = _cut(text.plain, width)
    parts, rest = [text[:cut]], text[cut:]
    while len(rest):
        cut = _cut(rest.plain, width - indent)
        parts.append(Text(" " * indent, style=text.style) + rest[:cut])
        rest = rest[cut:]
    for part in parts:  # a cut after a blank leaves it at the line's end (new-user28: "100.0%, 100.0%] " over "(n=5)")
        part.rstrip()
    return parts


def _cut(plain: str, width: int) -> int:
    """Where to cut ``plain`` to at most ``width`` characters: after its last ``_``, ``-``, ``/`` or blank
    in the second half of that, else at ``width``."""
    if len(plain) <= width:
        return len(plain)
    after = max(plain.rfind(c, 0, width) for c in "_-/ ") + 1
    return after if after > width // 2 else width


def print_table(stream, header: list[str], body: list[list[str]], *, title: str | None = None,
                numeric: Iterable[str] = ()) -> None:
    """``body`` under ``header`` as a rich table on ``stream`` (see ``console`` and ``fits``); on a
    terminal too narrow for it, one block per row (``print_block``)."""
    from rich.table import Table

    numeric = set(numeric)
    table = Table(header_style="bold cyan", box=None, pad_edge=False)
    for name in header:
        table.add_column(plain(name), justify="right" if name in numeric else "left", no_wrap=True)
    for row in body:
        table.add_row(*map(plain, row))
    out = console(stream)
    if title:
        out.print(plain(title, "bold"))
    if fits(out, table):
        out.print(table)
        return
    for row in body:
        print_block(out, [(name, cell) for name, cell in zip(header, row) if cell])


def print_matrix(stream, rows: Iterable[tuple[str, dict]], *, title: str | None = None) -> None:
    """Matrix rows as a terminal table."""
    print_table(stream, [h for h, _ in TABLE_COLUMNS], matrix_table(rows), title=title,
                numeric=("tp", "ep", "conc", "dram-gb"))


def md_code(text: str) -> str:
    """``text`` to sit inside a markdown code span: a backtick or a line break would end it; a control
    character is an escape (``printable``), as in ``results.render._md_escape``."""
    return printable(text.replace("`", "'").replace("\n", " "))


def markdown_table(header: list[str], body: list[list[str]]) -> str:
    def esc(text: str) -> str:
        return str(text).replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(esc(h) for h in header) + " |",
             "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(esc(c) for c in row) + " |" for row in body]
    return "\n".join(lines) + "\n"


def matrix_markdown(rows: Iterable[tuple[str, dict]]) -> str:
    return markdown_table([h for h, _ in TABLE_COLUMNS], matrix_table(rows))


# --------------------------------------------------------------------------- sweepgate plan

def _size(text: str, unit: str) -> int:
    return len(text.encode("utf-8")) if unit == "bytes" else len(text)


def truncate_markdown(text: str, limit: int, note: str, unit: str = "bytes") -> str:
    """``text`` cut at a line boundary so that it and ``note`` fit in ``limit`` (bytes or chars).

    Open ``<details>`` blocks are closed so the truncated markdown still renders.
    """
    if _size(text, unit) <= limit:
        return text
    tail = "\n" + note.rstrip("\n") + "\n"
    budget = limit - _size(tail, unit) - 64  # room for closing tags
    lines, used = [], 0
    for line in text.splitlines(keepends=True):
        size = _size(line, unit)
        if used + size > budget:
            break
        lines.append(line)
        used += size
    body = "".join(lines)
    opened = body.count("<details") - body.count("</details>")
    closing = "\n" + "</details>\n" * max(opened, 0) if opened > 0 else ""
    return body + closing + tail


def _hours(value: float, lower_bound: bool = False) -> str:
    """'14.0', or '≥ 14.0' for GPU-hours that count some jobs by the GPUs they use, not the nodes they hold."""
    return f"{'≥ ' if lower_bound else ''}{value:,.1f}"


def _lower_bound_note(plan: dict) -> str:
    """Why some GPU-hours are marked '≥', naming the runner labels; '' when none are."""
    labels = [runner for runner, agg in (plan.get(F.BY_RUNNER) or {}).items()
              if agg.get(F.LOWER_BOUND) or agg.get(F.EVAL_LOWER_BOUND)]
    if not labels:
        return ""
    return (f"≥: a lower bound; jobs on {', '.join(labels)} (no {F.GPUS_PER_NODE} in {F.RUNNERS_FILE}) are "
            "counted by the GPUs they use (tp × pp × pcp-size a worker), not the whole nodes they hold")


def _estimated(total: float, estimated: float) -> str:
    """' (all estimated)', ' (of which 3.0 estimated)' or '' for GPU-hours partly from estimates."""
    if not estimated:
        return ""
    if _hours(estimated) == _hours(total):
        return " (all estimated)"
    return f" (of which {_hours(estimated)} estimated)"


def _plan_headline(plan: dict) -> str:
    text = (f"{plan[F.JOBS]} benchmark job{'s' if plan[F.JOBS] != 1 else ''}, "
            f"{_hours(plan[F.GPU_HOURS], plan.get(F.LOWER_BOUND, False))} GPU-hours")
    text += _estimated(plan[F.GPU_HOURS], plan.get(F.GPU_HOURS_ESTIMATED) or 0)
    if plan.get(F.EVAL_JOBS):
        text += (f"; {plan[F.EVAL_JOBS]} eval job{'s' if plan[F.EVAL_JOBS] != 1 else ''}, "
                 f"{_hours(plan[F.EVAL_GPU_HOURS], plan.get(F.EVAL_LOWER_BOUND, False))} GPU-hours (estimated)")
    return text


def _markdown_runners(plan: dict, entries: list) -> list[str]:
    """GPU-hours by runner, or why there are no jobs."""
    out: list[str] = []
    if plan.get(F.BY_RUNNER):
        body = []
        for runner, agg in plan[F.BY_RUNNER].items():
            low, eval_low = agg.get(F.LOWER_BOUND, False), agg.get(F.EVAL_LOWER_BOUND, False)
            body.append([runner, str(agg[F.JOBS]), _hours(agg[F.GPU_HOURS], low),
                         _hours(agg[F.GPU_HOURS_ESTIMATED], low) if agg[F.GPU_HOURS_ESTIMATED] else "-",
                         str(agg[F.EVAL_JOBS]), _hours(agg[F.EVAL_GPU_HOURS], eval_low) if agg[F.EVAL_JOBS] else "-"])
        out.append("### GPU-hours by runner\n\n")
        out.append(markdown_table(["runner", "jobs", "GPU-hours", "of which estimated", "eval jobs",
                                   "eval GPU-hours (est.)"], body))
        source = (plan.get(F.ESTIMATES) or {}).get(F.ESTIMATES_SOURCE, "")
        out.append(f"\nAgentic rows: duration × GPUs. Other rows: minutes per job from {source} × GPUs.\n\n")
        if _lower_bound_note(plan):
            out.append(_lower_bound_note(plan) + ".\n\n")
    elif entries:
        out.append("No jobs: the appended entries select no benchmark or eval rows.\n\n")
    else:
        out.append("No jobs: the change appends no changelog entry.\n\n")
    return out


def _markdown_findings(plan: dict) -> list[str]:
    """The findings table."""
    out: list[str] = []
    warnings = plan.get("warnings") or []
    if warnings:
        icon = {"error": "❌", "warning": "⚠️", "info": "ℹ️"}
        body = [[f"{icon.get(w.get('severity'), '')} {w.get('severity', '')}", w["rule"],
                 f"`{w['file']}:{w['line']}`" if w.get("line") else f"`{w['file']}`",
                 w["message"] + (f" — {w['hint']}" if w.get("hint") else "")] for w in warnings]
        out.append(f"### Findings ({len(warnings)})\n\n")
        out.append(markdown_table(["severity", "rule", "where", "finding"], body))
        out.append("\n")
    return out


def _markdown_recipes(plan: dict) -> list[str]:
    """New, changed and removed recipes, and how many are unchanged."""
    out: list[str] = []
    diff = plan.get("diff") or {}
    out.append("### Recipe changes\n\n")
    for status in (s for s in F.RECIPE_STATUSES if s != F.RECIPE_UNCHANGED):
        items = diff.get(status) or []
        if not items:
            continue
        out.append(f"**{status}** ({len(items)}):\n\n")
        grouped = _one_line_groups([item for item in items if isinstance(item, dict)])
        in_groups = {id(item) for group in grouped.values() for item in group}
        for item in items:
            if isinstance(item, dict) and id(item) not in in_groups:
                selected = " (selected)" if item["key"] in (plan.get("selected") or {}) else ""
                out.append(f"- `{item['key']}`{selected}: {'; '.join(_change_reasons(item))}\n")
                out += [f"{line}\n" for line in _value_lines(item, "  ", _md_value)]
            elif not isinstance(item, dict):
                selected = " (selected)" if item in (plan.get("selected") or {}) else ""
                out.append(f"- `{item}`{selected}\n")
        for group in grouped.values():
            keys = [item["key"] for item in group]
            picked = sum(1 for key in keys if key in (plan.get("selected") or {}))
            out.append(f"- {count(len(keys), 'config key')}{f' ({picked} selected)' if picked else ''}: "
                       f"{'; '.join(_change_reasons(group[0]))} ({', '.join(f'`{key}`' for key in keys[:3])} and "
                       f"{len(keys) - 3} more; `plan --json` lists each)\n")
        out.append("\n")
    out.append(f"**unchanged**: {len(diff.get('unchanged') or [])} config keys\n\n")
    return out


def _markdown_matrix(plan: dict, rows: list) -> list[str]:
    """The matrix rows, one collapsed table per bucket."""
    out: list[str] = []
    if rows:
        out.append("### Matrix\n\n")
        buckets: dict[str, list] = {}
        for bucket, row in rows:
            buckets.setdefault(bucket, []).append((bucket, row))
        for bucket, items in buckets.items():
            agg = (plan.get(F.BY_BUCKET) or {}).get(bucket) or {}
            hours = agg.get(F.GPU_HOURS, 0.0) + agg.get(F.EVAL_GPU_HOURS, 0.0)
            low = bool(agg.get(F.LOWER_BOUND) or agg.get(F.EVAL_LOWER_BOUND))
            out.append(f"<details><summary>{bucket}: {count(len(items), 'row')}, {_hours(hours, low)} GPU-hours"
                       "</summary>\n\n")
            out.append(matrix_markdown(items))
            out.append("\n</details>\n\n")
    return out


def plan_markdown(plan: dict, *, limit: int = 1_000_000, marker: str = "", unit: str = "bytes") -> str:
    """The plan for a step summary or a PR comment, at most ``limit`` bytes/characters."""
    from sweepgate.core.select import iter_rows

    out = []
    if marker:
        out.append(marker + "\n")
    out.append(f"## sweepgate plan: {_plan_headline(plan)}\n\n")
    out.append(f"`{plan[F.BASE_REF]}` → `{plan[F.HEAD_REF]}`")
    entries = ((plan.get("matrix") or {}).get(F.CHANGELOG_METADATA) or {}).get(F.ENTRIES) or []
    out.append(f" · {len(entries)} appended changelog entr{'y' if len(entries) == 1 else 'ies'}\n\n")

    out += _markdown_runners(plan, entries) + _markdown_findings(plan) + _markdown_recipes(plan)
    rows = list(iter_rows(plan.get("matrix") or {}))
    out += _markdown_matrix(plan, rows)
    text = "".join(out)
    return truncate_markdown(text, limit, f"_… truncated to fit GitHub's limit; the full plan is in "
                                          f"`sweepgate plan --json` ({count(len(rows), 'row')})._", unit)


def count(n: int, noun: str) -> str:
    """'1 job', '2 jobs'."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


# A count ("3", "1,234", "68.0" of plan's GPU-hours, "(5" of "(last 5 runs)", a range "2–5" of "2–5 found"): a
# line of counts breaks before it, never after it.
_COUNT = re.compile(r"\(?\d[\d,]*(?:\.\d+)?(?:\u2013\d[\d,]*(?:\.\d+)?)?")
ITEM_ENDS = (",", ";", ":")  # what ends an item of a line of counts ("1 point improved (3 metrics),"), print_units


def count_units(text: str) -> list[str]:
    """``text``'s words, each count joined to the word after it ("3 regressed,"): where a line may break."""
    units: list[str] = []
    glued = False
    for word in text.split(" "):
        if glued:
            units[-1] += " " + word
        else:
            units.append(word)
        glued = bool(_COUNT.fullmatch(word))
    return units


def print_counts(console, text: str, style: str | None = None, hang: int = 0) -> None:
    """Print a line of counts ("run 7 ...: 1 regressed, 1 improved") as words, on as many lines as the
    console's width takes, each count on the line of its noun: rich breaks at any blank, a no-break
    space among them, and left "3" at a line's end, "regressed" on the next. A note of words and
    counts prints so too (rich's own wrapping left a blank at each line's end); ``text``'s leading blanks
    stay on its first line, and ``hang``: as ``print_units``."""
    lead = len(text) - len(text.lstrip(" "))
    units = count_units(text[lead:])
    print_units(console, [" " * lead + units[0], *units[1:]], style, hang)


def print_units(console, units: list[str], style: str | None = None, hang: int = 0) -> None:
    """Print ``units`` joined by blanks, on as many lines as the console's width takes, breaking only
    between units (a unit wider than the console is folded); one line when the console soft-wraps. A line
    ends where an item ends (a unit ending in ``,``, ``;`` or ``:`` outside parentheses) when one ends in its
    second half: new-user28 read "1 point" at a line's end, "improved (3 metrics)" on the next, and
    "interactivity" over its unit, "tok/s/user". ``hang``: blanks before each line after the first (the
    rest of an indented line of `plan`'s summary stays under it, not at a new line's place)."""
    from rich.text import Text

    hang = hang if 0 < hang <= console.width // 2 else 0
    units = [printable(unit) for unit in units]  # a point's label in a note: somebody else's text
    lines = [" ".join(units)] if console.soft_wrap else packed(units, console.width, hang)
    fold = None if console.soft_wrap else "fold"  # a soft-wrapping console's one line stays whole (rich
    # folded nothing there but cut the line at the console's width: a piped note lost its end at 240 columns)
    for n, text in enumerate(lines):  # Text: a ref or a run id is words, not rich markup
        text = Text(" " * hang * bool(n) + text, style=style or "")
        # a unit wider than the console (a long config key) cut after a "-", "_" or "/" (s38f: rich folded
        # "...-dspark-lmca" over "che" at 40 columns)
        for part in [text] if console.soft_wrap else _hanging(text, console.width):
            console.print(part, overflow=fold)


PROSE_WIDTH = 80  # a line of prose under a table written to a pipe or a file is broken at this width


def print_wrapped(console, text: str, indent: int = 2) -> None:
    """Print ``text``, a sentence under a table, broken as ``print_units`` breaks a line (between words,
    at an item's end where one ends in a line's second half) at the terminal's width (the console's, or
    COLUMNS; PROSE_WIDTH in a pipe or a file, where a table is as wide as it needs but the sentence is
    read in a window or a pager), each line after the first indented by ``indent`` (rich broke it at
    column 0, as if a line of its own began)."""
    from rich.text import Text

    width = console.width if console.is_terminal or _columns() else PROSE_WIDTH
    for i, line in enumerate(packed([printable(word) for word in text.split()], width, indent)):  # Text: no markup
        console.print(Text(" " * indent * bool(i) + line), overflow="fold")


def packed(units: list[str], width: int, indent: int = 0) -> list[str]:
    """``units`` joined by blanks into lines of at most ``width`` cells, each line after the first
    ``indent`` narrower (for its indent), broken only between units (one wider than that stays whole on
    a line of its own), and where an item ends (``ITEM_ENDS`` outside parentheses) when one ends in the
    line's second half."""
    from rich.cells import cell_len

    ends, depth = set(), 0  # the units that end an item
    for i, unit in enumerate(units):
        depth = max(0, depth + unit.count("(") - unit.count(")"))
        if not depth and unit.endswith(ITEM_ENDS):
            ends.add(i)
    lines: list[str] = []
    line, first = [], 0  # first: the index of line[0]
    for unit in units:
        room = width - (indent if lines else 0)
        while line and cell_len(" ".join([*line, unit])) > room:
            # an item's end in the line's second half: after a ";" first, then a ",", a ":" last (it
            # may head what follows: "; eval scores: 0 regressed" keeps its label with its counts)
            cut = next((k for marks in (";", ",", ":") for k in range(len(line), 0, -1)
                        if first + k - 1 in ends and line[k - 1].endswith(marks)
                        and cell_len(" ".join(line[:k])) > room // 2), len(line))
            lines.append(" ".join(line[:cut]))
            line, first = line[cut:], first + cut
            room = width - indent
        line.append(unit)
    if line:
        lines.append(" ".join(line))
    return lines


# More configs than this changed by the same files alone (benchmark_lib.sh, a launcher) are one line of the text plan.
CHANGED_ONE_LINE_OVER = 5


# What changed a config, by kind (``_changed_by``), as the Markdown plan says each; fields are said together.
_FIELD = "field"
_SAID = {"script": "script `{}`", "file": "`{}`", "runner": "runner facts in `{}`"}


def _changed_by(item: dict) -> list[tuple[str, str]]:
    """What changed a config, in the order the plans say it, each as (kind, name): its fields, the scripts,
    ``benchmark_lib.sh`` and the support files its jobs run, then the runners file (runner facts)."""
    return ([(_FIELD, field) for field in item.get("fields") or []]
            + [("script", script["path"]) for script in item.get("scripts") or []]
            + ([("file", F.BENCHMARK_LIB)] if item.get("benchmark_lib") else [])
            + [("file", path) for path in item.get("support_files") or []]
            + ([("runner", F.RUNNERS_FILE)] if item.get("runner") else []))


def _change_parts(item: dict) -> list[str]:
    """What changed a config, as the text plan says it: its fields, then the files its jobs run."""
    return [name for _, name in _changed_by(item)]


def _change_reasons(item: dict) -> list[str]:
    """What changed a config, as the Markdown plan says it: its fields on one reason (20 named)."""
    changed = _changed_by(item)
    fields = [name for kind, name in changed if kind == _FIELD]
    reasons = ["fields " + ", ".join(f"`{f}`" for f in fields[:20])
               + (f" and {len(fields) - 20} more" if len(fields) > 20 else "")] if fields else []
    return reasons + [_SAID[kind].format(name) for kind, name in changed if kind != _FIELD]


def _one_line_groups(items: list[dict]) -> dict[tuple, list[dict]]:
    """The changed configs the plan says on one line, by what changed them: more than CHANGED_ONE_LINE_OVER
    changed by the same files and by no field of their own (review s39k: a one-line library edit printed a
    line for each of a repository's 208 configs, hiding the two the PR edited)."""
    shared: dict[tuple, list[dict]] = {}
    for item in items:
        if not item.get("fields"):
            shared.setdefault(tuple(_change_parts(item)), []).append(item)
    return {parts: group for parts, group in shared.items() if len(group) > CHANGED_ONE_LINE_OVER}


VALUES_SHOWN = 5  # a changed config's field values the text and Markdown plans show; --json has every one
VALUE_CHARS = 200  # a value longer than this is cut (…): a whole command line in a setting


def _value_text(value) -> str:
    """A config value as the plan shows it: a string as written, a field absent (or null) as ``(none)``, anything
    else as JSON (YAML's true)."""
    text = value if isinstance(value, str) else "(none)" if value is None else json.dumps(value)
    return text if len(text) <= VALUE_CHARS else text[:VALUE_CHARS - 1] + "\u2026"


def _value_lines(item: dict, indent: str, say) -> list[str]:
    """The lines saying a changed config's field values before and after (``recipes.field_values``), each as
    ``say(name, before, after)`` puts it, the first VALUES_SHOWN and a count of the rest (``say(None, n, '')``)."""
    values = list((item.get("values") or {}).items())
    lines = [indent + say(name, _value_text(old), _value_text(new)) for name, (old, new) in values[:VALUES_SHOWN]]
    if len(values) > VALUES_SHOWN:
        lines.append(indent + say(None, len(values) - VALUES_SHOWN, ""))
    return lines


def _text_value(name: str | None, old, new: str) -> str:
    if name is None:
        return f"and {old} more (plan --json has every value)"
    return printable(f"{name}: {old} \u2192 {new}")


def _md_value(name: str | None, old, new: str) -> str:
    if name is None:
        return f"- and {old} more (`plan --json` has every value)"
    return f"- `{md_code(name)}`: `{md_code(old)}` \u2192 `{md_code(new)}`"


def _changed_lines(items: list[dict]) -> list[str]:
    """The text plan's lines of changed configs: one each, its field values under it, but for
    ``_one_line_groups``, one line a group naming its first three configs and their count."""
    grouped = _one_line_groups(items)
    in_groups = {id(item) for group in grouped.values() for item in group}
    lines = [line for item in items if id(item) not in in_groups
             for line in [f"  {F.RECIPE_CHANGED} {item['key']}: {', '.join(_change_parts(item))}",
                          *_value_lines(item, "    ", _text_value)]]
    return lines + [f"  {F.RECIPE_CHANGED} {count(len(group), 'config key')}: {', '.join(parts)} "
                    f"({', '.join(item['key'] for item in group[:3])} and {len(group) - 3} more; plan --json lists each)"
                    for parts, group in grouped.items()]


def _estimates_said(plan: dict) -> str:
    """What the estimated GPU-hours stand on: the minutes a job of each bucket with an estimated figure is
    charged and where they come from; '' when nothing is estimated. Review s39k: the text plan said
    `84.0 GPU-hours (all estimated)` and nothing of the built-in 30 minutes a job behind it."""
    from sweepgate.core.plan import BUILT_IN_ESTIMATES, ESTIMATES_FILE, estimate_minutes

    estimates = plan.get(F.ESTIMATES) or {}
    table, source = estimates.get(F.MINUTES_PER_JOB) or {}, estimates.get(F.ESTIMATES_SOURCE, "")
    buckets = [bucket for bucket, agg in (plan.get(F.BY_BUCKET) or {}).items()
               if agg.get(F.ESTIMATED) or agg.get(F.EVAL_JOBS)]
    if not buckets:
        return ""
    said = ", ".join(f"{bucket} {estimate_minutes(bucket, table):g} min" for bucket in buckets)
    where = f"sweepgate's {source}; {ESTIMATES_FILE} sets them" if source == BUILT_IN_ESTIMATES else source
    return f"estimated: minutes a job × the GPUs it holds; {said} ({where})"


def plan_text(plan: dict) -> str:
    """A short terminal summary of a plan."""
    lines = [f"plan: {_plan_headline(plan)}"]
    for runner, agg in (plan.get(F.BY_RUNNER) or {}).items():
        est = _estimated(agg[F.GPU_HOURS], agg[F.GPU_HOURS_ESTIMATED])
        evals = (f"; {count(agg[F.EVAL_JOBS], 'eval job')}, "
                 f"{_hours(agg[F.EVAL_GPU_HOURS], agg.get(F.EVAL_LOWER_BOUND, False))} GPU-hours"
                 if agg[F.EVAL_JOBS] else "")
        hours = _hours(agg[F.GPU_HOURS], agg.get(F.LOWER_BOUND, False))
        lines.append(f"  {runner}: {count(agg[F.JOBS], 'job')}, {hours} GPU-hours{est}{evals}")
    if _lower_bound_note(plan):
        lines.append(f"  {_lower_bound_note(plan)}")
    if _estimates_said(plan):
        lines.append(f"  {_estimates_said(plan)}")
    diff = plan.get("diff") or {}
    lines.append("recipes: " + ", ".join(f"{len(diff.get(s) or [])} {s}"
                                         for s in F.RECIPE_STATUSES))
    lines += [f"  {F.RECIPE_NEW} {key}" for key in diff.get(F.RECIPE_NEW) or []]
    lines += _changed_lines(diff.get(F.RECIPE_CHANGED) or [])
    lines += [f"  {F.RECIPE_REMOVED} {key}" for key in diff.get(F.RECIPE_REMOVED) or []]
    return "\n".join(lines) + "\n"


def print_plan(stream, plan: dict) -> None:
    """The terminal plan: the summary, then a table of the rows it will run."""
    from sweepgate.core.select import iter_rows

    out = console(stream)
    for line in plan_text(plan).splitlines():  # at the terminal's width, as the tables are; the rest
        # of a line further in than any line of the summary starts (``print_counts``)
        print_counts(out, line, hang=len(line) - len(line.lstrip(" ")) + 4)
    rows = list(iter_rows(plan.get("matrix") or {}))
    if rows:
        out.print()
        print_matrix(stream, rows, title=count(len(rows), "matrix row"))
