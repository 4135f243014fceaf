"""What `results show` prints: one line per point, as a rich table or JSON. A job's eval scores
(lm-eval) are a line of their own at its point, their first score in the "eval" column."""

from __future__ import annotations

import json
import re

from sweepgate.core.jobfile import EVAL_SUFFIX
from sweepgate.core.report import count
from sweepgate.results import compare, derive, evals, normalize
from sweepgate.results import labels as L
from sweepgate.results import record as R
from sweepgate.results.figures import fmt_value

COLUMNS = (  # header, record field or metric; a metric's figure is written as compare writes it (figures.py)
    ("config key", R.CONFIG_KEY), ("model", R.MODEL), ("hw", R.HARDWARE), ("conc", R.CONC), ("rate", R.REQUEST_RATE),
    ("isl/osl", None), ("recipe", R.TOPOLOGY), ("image", R.IMAGE), ("status", R.STATUS),
    ("tok/s/GPU", R.OUTPUT_TPUT_PER_GPU), ("output tok/s", R.OUTPUT_THROUGHPUT),
    ("peak output tok/s", R.MAX_OUTPUT_TOKENS_PER_S), ("tok/s/user", R.INTERACTIVITY),
    ("TTFT p50 ms", R.latency_name(R.TTFT, "p50")), ("TPOT p50 ms", R.latency_name(R.TPOT, "p50")),
    ("E2EL p50 ms", R.latency_name(R.E2EL, "p50")),
    ("accept len", R.ACCEPT_LENGTH),  # speculative decoding's tokens per step, where a run has it
    ("success", R.SUCCESS_RATE),
    ("peak conc", R.MAX_CONCURRENT_REQUESTS),  # requests in flight in the busiest second, where a client counts it
    ("eval", R.EVALS),
    ("run", R.RUN_ID), ("ref", R.REF), ("result", R.RESULT_FILENAME),
)
# The compared metrics whose names state no unit (the ``_ms`` ones name theirs, a success rate reads as a
# percentage): every table that holds one says its unit, as COLUMNS heads its column, in ``units_line``.
UNITS_UNNAMED = (R.OUTPUT_TPUT_PER_GPU, R.INTERACTIVITY)
# What each of those is, in words: the charts' axis labels, and under `results show`'s table, whose columns are
# headed by their units alone (``columns_line``); interactivity also by what it is computed from (derive.py).
METRIC_WORDS = {R.OUTPUT_TPUT_PER_GPU: "output throughput per GPU", R.INTERACTIVITY: "interactivity"}
COMPUTED_FROM = {R.INTERACTIVITY: ("1000 / ", R.latency_name(R.TPOT, "p50"))}
COLUMNS_HEAD = "Columns:"
# A figure's cell where the line's output stated nothing it is computed from (``derive.why_none``), the reason
# under the table (``unstated_lines``): a blank cell said nothing of why (new user s41l: GenAI-Perf's success).
UNSTATED = "\u2014"
# The columns of counts a run measured, each written as a whole number (``8``, not a figure's ``8.00``), with no
# direction (never judged), blank for a failed job as its figures are.
COUNT_COLUMNS = (R.MAX_CONCURRENT_REQUESTS,)
# Written to a pipe or a file with no COLUMNS (a CI log, `| less`), the table is made to fit PIPED_WIDTH: these
# columns, least needed to read the figures first, are left out until it does (a line under it names them and how
# to get them), then the widest text columns are folded (FOLDED). A terminal, or a set COLUMNS, keeps its width.
PIPED_WIDTH = 200
LEFT_OUT_PIPED = (R.RESULT_FILENAME, R.RUN_ID, R.MAX_CONCURRENT_REQUESTS, R.MAX_OUTPUT_TOKENS_PER_S,
                  R.latency_name(R.E2EL, "p50"))
FOLDED = (R.EVALS, R.MODEL, R.CONFIG_KEY, R.IMAGE)  # words of a cell go over lines in the table's last resort
# Left out where the title names the one ref of every row (`--run`, `--ref`).
REF_COLUMN = R.REF
# Shown only where the lines ran more than one image, each named by what tells it from the others
# (``labels.image_labels``: main's ``v0.11.0`` beside a PR's ``v0.12.0``; s48b: the two lines of one recipe
# read alike but for their ref and figures). Where every line ran one image it tells no line from another.
IMAGE_COLUMN = R.IMAGE
# A column shown only where the other is unknown, for a result ingested without its row: the total
# output throughput (no GPU count, so no per-GPU figure; two columns, each header naming its unit),
# and the model the output names (no config key to tell its lines apart).
UNLESS = {R.OUTPUT_THROUGHPUT: R.OUTPUT_TPUT_PER_GPU, R.MODEL: R.CONFIG_KEY}


def units_line(metrics, code=str) -> str | None:
    """The one line under a table of figures that gives the unit of each of the ``metrics`` it holds whose
    name states none (UNITS_UNNAMED, as COLUMNS heads its column), and that the ``_ms`` ones are
    milliseconds when it holds one; None when it holds none of UNITS_UNNAMED (review: "interactivity
    98.2" with no unit anywhere). ``code`` writes a metric's name (Markdown: in backticks). The compare
    table and its Markdown report say it so, whose rows name metrics; `results show`, whose columns its
    headers name, says ``columns_line``."""
    held = set(metrics)
    shown = [metric for metric in UNITS_UNNAMED if metric in held]
    if not shown:
        return None
    headers = {metric: header for header, metric in COLUMNS}
    ms = f"; {code('_ms')} metrics in milliseconds" if any(str(m).endswith("_ms") for m in held) else ""
    return f"Units: {', '.join(f'{code(metric)} {headers[metric]}' for metric in shown)}{ms}."


def columns_line(fields) -> str | None:
    """The line under `results show`'s table that says what its columns headed by a unit alone hold (the
    UNITS_UNNAMED of ``fields``), as their headers name them: ``Columns: tok/s/GPU is output throughput per
    GPU; tok/s/user is interactivity (1000 / TPOT p50 ms).``; None when it has none. New user s40: it said
    compare's units line, ``output_tput_per_gpu tok/s/GPU``, naming metrics the table never shows beside the
    units its headers already gave, and ``_ms metrics`` of columns headed ``TTFT p50 ms``."""
    held = set(fields)
    headers = {metric: header for header, metric in COLUMNS}
    said = []
    for metric in (m for m in UNITS_UNNAMED if m in held):
        how = COMPUTED_FROM.get(metric)
        said.append(f"{headers[metric]} is {METRIC_WORDS[metric]}" + (f" ({how[0]}{headers[how[1]]})" if how else ""))
    return f"{COLUMNS_HEAD} {'; '.join(said)}." if said else None


def unstated_lines(records: list[dict], columns) -> list[str]:
    """Under the table, why a cell reads UNSTATED, each reason once with how many lines it is of: "— under
    success: GenAI-Perf's output states no failed-request count (4 lines)." (``derive.why_none``)."""
    said: dict[tuple, int] = {}
    for rec in records:
        if compare.job_failed(rec):
            continue  # its figures are blank, as compare says a failed job's
        for header, field in columns:
            if field in R.DIRECTION and _value(rec, field) is None and (why := derive.why_none(rec, field)):
                said[header, why] = said.get((header, why), 0) + 1
    return [f"{UNSTATED} under {header}: {why} ({count(n, 'line')})." for (header, why), n in said.items()]


def _natural(name) -> tuple:
    """A name with its digit runs as numbers: "res#2" before "res#10"."""
    return tuple(int(part) if part.isdecimal() else part for part in re.split(r"(\d+)", str(name)))  # `²` is isdigit()


def sort_key(rec: dict) -> tuple:
    """Config key (else model), hardware, conc and request rate (unknowns last), recipe, then at one
    point main's line first, then each other ref's (a line of no ref last), then the result's name
    (its numbers as numbers; by its name first where that tells the point, ingested without a config key).
    Review s39k: a point's lines went by their files' names, main's above the PR's at one point and below
    it at the next."""
    def text(v):
        return (v is None, "" if v is None else str(v))
    conc, rate, ref = rec.get(R.CONC), R.identity(rec, R.REQUEST_RATE), rec.get(R.REF)
    name = _natural(rec.get(R.RESULT_FILENAME))
    return (*text(rec.get(R.CONFIG_KEY)), *text(rec.get(R.MODEL)), *text(rec.get(R.HARDWARE)),
            conc is None, conc or 0, *R.rate_order(rate), str(rec.get(R.TOPOLOGY)),
            name if rec.get(R.CONFIG_KEY) is None else (), ref != compare.DEFAULT_BASELINE_REF, *text(ref), name,
            _natural(rec.get(R.RUN_ID)), rec.get(R.ATTEMPT) or 0)


def point_key(rec: dict) -> tuple:
    """What tells a line's point apart: POINT_IDENTITY, an eval's scores from its throughput, and an
    output ingested without a job by its own file name (each its own point)."""
    key = R.point_values(rec) + (compare.is_eval_result(rec),)
    return key + (rec.get(R.RESULT_FILENAME),) if rec.get(R.CONFIG_KEY) is None else key


def line_point(rec: dict) -> tuple:
    """The point a line is at, whether it holds throughput or eval scores: ``point_key`` without what tells
    those two lines apart (an output ingested without its job by its file name, an eval's without ``-eval``)."""
    key = R.point_values(rec)
    if rec.get(R.CONFIG_KEY) is None:
        name = str(rec.get(R.RESULT_FILENAME))
        key += (name.removesuffix(EVAL_SUFFIX) if compare.is_eval_result(rec) else name,)
    return key


def eval_scores(rec: dict) -> list[tuple]:
    """The eval scores an eval line holds, each as what tells it apart across lines (its point, task,
    metric and filter); a failed eval job's line, with none, one (compare's evals table gives it a row
    of its own, ``(job)``). [] for a throughput line."""
    if not compare.is_eval_result(rec):
        return []
    point = line_point(rec)
    return [(point, s.get(R.EVAL_TASK), s.get(R.EVAL_METRIC), s.get(R.EVAL_FILTER)) for s in rec.get(R.EVALS) or []] \
        or [(point, None, None, None)]


def one_per_point(records: list[dict]) -> list[dict]:
    """The newest attempt of each point (records arrive newest first or in attempt order)."""
    best: dict[tuple, dict] = {}
    for rec in records:
        key = point_key(rec) + (rec.get(R.RUN_ID),)
        if key not in best or (rec.get(R.ATTEMPT) or 0) > (best[key].get(R.ATTEMPT) or 0):
            best[key] = rec
    return sorted(best.values(), key=sort_key)


def as_json(records: list[dict]) -> str:
    return json.dumps(records, indent=2, sort_keys=True)


def _value(rec: dict, field: str):
    if field == R.REQUEST_RATE:  # as points are told apart: no rate when unlimited
        return R.identity(rec, field)
    if field in rec:
        return rec[field]
    return derive.figure(rec.get(R.METRICS) or {}, field)  # as compare reads it: none where no run's


# Where a cell of a narrow block or a folded column may break: between words, a bracketed interval one word
# ("[972.6, 1,106]": s37c, at 80 columns compare read "1,031 [972.6," over "1,106] (n=5)", rich breaking at any
# blank), a score with its stderr another ("0.8946 ±0.0085"), and an eval cell's "(1 more)" (s41l: `results show`
# broke both at any blank, "0.8926" over "±0.0085", "(1" over "more)").
_CELL_UNIT = re.compile(r"\(\d[\d,]* more\)|(?:\S*\[[^\]]*\]\S*|\S+)(?: \u00b1\S+)?")


def cell_units(cell: str) -> list[str]:
    """``cell``'s words, each kept whole where a line breaks (``_CELL_UNIT``)."""
    return _CELL_UNIT.findall(cell)


def eval_cell(rec: dict) -> str:
    """The first eval score, ``gsm8k exact_match strict-match 0.8946 ±0.0085``, and ``(N more)`` for N more
    (not "(+N)", which reads like a change)."""
    scores = rec.get(R.EVALS) or []
    if not scores:
        return ""
    first = scores[0]
    label = evals.score_label(first[R.EVAL_TASK], first[R.EVAL_METRIC], first[R.EVAL_FILTER])
    text = f"{label} {evals.fmt_score(first[R.EVAL_VALUE], first.get(R.EVAL_STDERR))}"
    return text + (f" ({len(scores) - 1} more)" if len(scores) > 1 else "")


def model_cell(model: str) -> str:
    """The model as the output names it, a Hugging Face cache folder as the hub id it holds
    (``ORG/NAME``): 90 characters of path and commit hash would make the table's widest column. An adapter
    run's base and adapter (``R.WITH_ADAPTER``) are each shortened, the adapter kept: it is not the base's run."""
    return R.WITH_ADAPTER.join(normalize.hub_cache_repo(part) or part for part in model.split(R.WITH_ADAPTER, 1))


def _cell(rec: dict, field: str | None) -> str:
    if field == R.EVALS:
        return eval_cell(rec)
    if field == R.TOPOLOGY:  # the recipe as the compare table and the charts name it: tp8 spec mtp
        return L.recipe_label(rec)
    if field is None:
        isl, osl = rec.get(R.ISL), rec.get(R.OSL)
        return f"{'?' if isl is None else isl}/{'?' if osl is None else osl}" if isl or osl else ""
    if compare.job_failed(rec):  # no figure of a failed job is one it measured: said as compare says it
        if field in R.DIRECTION or field in COUNT_COLUMNS:
            return ""
        if field == R.STATUS:
            return compare.job_status_words(rec) + (" (rehearsal)" if rec.get(R.REHEARSAL) else "")
    value = _value(rec, field)
    if value is None and field in R.DIRECTION and derive.why_none(rec, field):
        return UNSTATED
    if value is None or (field in UNLESS and _value(rec, UNLESS[field]) is not None):
        return ""
    if field == R.MODEL:
        return model_cell(str(value))
    if field == R.STATUS and rec.get(R.REHEARSAL):
        return f"{value} (rehearsal)"
    if field == R.RUN_ID:
        attempt = f", attempt {rec[R.ATTEMPT]}" if (rec.get(R.ATTEMPT) or 1) > 1 else ""
        return f"{value}{attempt}" + (f" ({L.CANCELLED_RUN})" if rec.get(R.RUN_CANCELLED) else "")
    if field == R.REF:
        return R.short_ref(value)
    if field in R.DIRECTION:  # a figure, as compare and the PR comment write it
        return fmt_value(value, field)
    if field in COUNT_COLUMNS:
        return f"{value:,.0f}"
    return f"{value}/s" if field == R.REQUEST_RATE else str(value)


def _columns(records: list[dict], ref_column: bool) -> tuple[list[tuple], list[list[str]]]:
    """The columns holding a value for some record (an all-blank column only costs width), and the cells."""
    cells = [[_cell(rec, field) for _, field in COLUMNS] for rec in records]
    model = [field for _, field in COLUMNS].index(R.MODEL)
    if any(row[model] for row in cells):  # a line of neither among named ones says so, never a blank
        for rec, row in zip(records, cells):
            if rec.get(R.CONFIG_KEY) is None and R.named_model(rec) is None:
                row[model] = L.NO_KEY_OR_MODEL
    image = [field for _, field in COLUMNS].index(IMAGE_COLUMN)
    said = L.image_labels(str(rec[IMAGE_COLUMN]) for rec in records if rec.get(IMAGE_COLUMN) not in (None, ""))
    for rec, row in zip(records, cells):
        row[image] = said.get(str(rec.get(IMAGE_COLUMN)), "") if len(said) > 1 else ""
    rate = [field for _, field in COLUMNS].index(R.REQUEST_RATE)
    if any(row[rate] for row in cells):  # a rate sweep: its unlimited rate is one of its rates, not a blank
        for rec, row in zip(records, cells):
            row[rate] = row[rate] or (R.UNLIMITED_RATE if R.is_unlimited_rate(rec.get(R.REQUEST_RATE)) else "")
    keep = [i for i, (_, field) in enumerate(COLUMNS)
            if any(row[i] for row in cells) and (ref_column or field != REF_COLUMN)]
    keep = keep or list(range(len(COLUMNS)))
    return [COLUMNS[i] for i in keep], [[row[i] for i in keep] for row in cells]


def table(records: list[dict], stream, title: str, ref_column: bool = True) -> None:
    """A rich table; styles only on a terminal and none under NO_COLOR. On a terminal (or a set
    COLUMNS) too narrow for the table, one block per point instead (a squeezed table shows no
    figure at all); a pipe or a file with no COLUMNS gets the table fitted to PIPED_WIDTH (``_fit_piped``).
    ``ref_column``: whose each row is (main's, a
    PR's), unless the title says it for all."""
    from sweepgate.core.report import columns_set, fits, plain, print_block, print_wrapped
    from sweepgate.core.report import console as make_console

    console = make_console(stream)
    if any(rec.get(R.REHEARSAL) for rec in records):
        console.print(L.REHEARSAL_NOTE, style="bold yellow")
    if any(rec.get(R.RUN_CANCELLED) for rec in records):
        console.print(plain(L.CANCELLED_RUN_NOTE, "yellow"))
    columns, cells = _columns(records, ref_column)
    console.print(plain(title, "italic"))  # not the table's title: rich pads that to the table's width
    styles = [None if rec.get(R.STATUS) == R.SUCCESS else "red" for rec in records]  # every stored record states one
    tbl, left_out, folded = _table(columns, cells, styles), "", False
    if not console.is_terminal and not columns_set():
        tbl, columns, cells, left_out, folded = _fit_piped(console, columns, cells, styles)
    if folded or fits(console, tbl):  # folded: as wide as _fit_piped made the console
        console.print(tbl)
    else:
        for row, style in zip(cells, styles):
            print_block(console, [(header, cell) for (header, _), cell in zip(columns, row) if cell], style,
                        cell_units)
    if line := columns_line(field for _, field in columns):
        print_wrapped(console, line)
    for line in unstated_lines(records, columns):
        print_wrapped(console, line)
    if left_out:
        print_wrapped(console, left_out)


def _table(columns, cells, styles, fold: bool = False):
    """The rich table of these columns; ``fold``: the FOLDED columns' cells may go over lines, at their words."""
    from rich.table import Table

    from sweepgate.core.report import plain

    tbl = Table()
    for header, field in columns:
        numeric = field in R.DIRECTION or field in (R.CONC, R.REQUEST_RATE, *COUNT_COLUMNS)
        folds = fold and field in FOLDED
        tbl.add_column(header, justify="right" if numeric else "left", no_wrap=not folds,
                       overflow="fold" if folds else "ellipsis")
    for row, style in zip(cells, styles):  # plain: a file name or a model is shown as written, never markup
        tbl.add_row(*map(plain, row), style=style)
    return tbl


def _fit_piped(console, columns, cells, styles) -> tuple:
    """The table a pipe or a file with no COLUMNS gets: whole when it is at most PIPED_WIDTH wide; else without
    the LEFT_OUT_PIPED columns it holds, in their order, until it fits, then with its FOLDED columns folded;
    and the line that says what was left out and how to see it. (table, columns, cells, that line or '', whether
    it was folded: the console is then as wide as the table may be)."""
    from rich.measure import Measurement

    def width(tbl, least: bool = False) -> int:
        measured = Measurement.get(console, console.options.update(max_width=10**6), tbl)
        return measured.minimum if least else measured.maximum

    whole = width(_table(columns, cells, styles))
    if whole <= PIPED_WIDTH:
        return _table(columns, cells, styles), columns, cells, "", False
    left: list[str] = []
    for field in LEFT_OUT_PIPED:
        if field not in (f for _, f in columns):
            continue
        i = [f for _, f in columns].index(field)
        left.append(columns[i][0])
        columns, cells = columns[:i] + columns[i + 1:], [row[:i] + row[i + 1:] for row in cells]
        if width(_table(columns, cells, styles)) <= PIPED_WIDTH:
            break
    tbl, folded = _table(columns, cells, styles), False
    if width(tbl) > PIPED_WIDTH:
        tbl, folded = _table(columns, cells, styles, fold=True), True
        # the folded columns give up their width to fit it, at their words (no wider than a table of whole words)
        console.width = max(PIPED_WIDTH, width(tbl, least=True))
    said = (f"Left out to fit {PIPED_WIDTH} columns: {', '.join(left)}; `--json` prints every field, and "
            f"COLUMNS={whole} the whole table.") if left else ""
    return tbl, columns, cells, said, folded
