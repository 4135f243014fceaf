"""Pick a client output's parser by what the file contains, never by its name."""

from __future__ import annotations

import csv
import io
import itertools
import re

from sweepgate.core import fields as F
from sweepgate.core import jsontext
from sweepgate.core.errors import fail
from sweepgate.core.report import count
from sweepgate.results import jsonio
from sweepgate.results import record as R
from sweepgate.results.formats import (aiperf, aiperf_csv, eval_side, foreign, gpu_metrics, inferencex, lm_eval,
                                       sglang, vllm)
from sweepgate.results.formats.foreign import Auxiliary, EvalSideFile  # Auxiliary: ingest catches it as sniff.Auxiliary
from sweepgate.results.measurement import Measurement

# Tried in order: the first whose detect() says yes parses the document.
JSON_FORMATS = (lm_eval, aiperf, sglang, vllm)
KNOWN = "vLLM bench serve JSON/JSONL, SGLang bench_serving JSONL, AIPerf/GenAI-Perf JSON or CSV, lm-eval results JSON"


# A console log's first line ("[TensorRT-LLM] version ...", "[07/11/2025-07:56:42] [TRT-LLM] ..."):
# a bracketed tag followed by text, which no JSON document starts with.
LOG_LINE = re.compile(r"\s*\[[^\]\[{}\"\n]*\][ \t]*[^\s,\]}]")


def parse_text(text: str, path: str) -> list[Measurement]:
    """Every measurement in one file's text; refuses what it cannot read."""
    if aiperf_csv.detect_text(text):
        return [aiperf_csv.parse_text(text, path)]
    if gpu_metrics.detect_text(text) or gpu_metrics.is_sidecar_text(text):
        raise Auxiliary(path)
    if not text.strip():
        raise fail(path, 1, "format: the file is empty",
                   "the client wrote nothing: check the job's log, or remove the file", rule=jsonio.UNREADABLE)
    aiperf_csv.refuse_sweep(text, path)
    if not text.lstrip()[:1] in ("{", "[") or LOG_LINE.match(text):
        if vllm.is_sweep_table(jsonio.first_line(text)):  # the table of runs read from their own files
            raise foreign.SweepTable(path)
        foreign.refuse_csv(jsonio.first_line(text), path)
        inferencex.refuse_csv(text, path)
        foreign.refuse_console(text, path)
        lm_eval.refuse_printed_table(text, path)
        sglang.refuse_offline_console(text, path)
        foreign.refuse_yaml_report(text, path)
        log = LOG_LINE.match(text)
        lone = None if log else _lone_value(text)
        if not (log or lone):
            _refuse_text_among_json_lines(text, path)
        what, more = ("a console log", "") if log else (lone, "") if lone else _text_said(text)
        line, col = jsontext.key_place(text, None) if lone else (1, 0)  # where the value is, past blank lines
        # a lone value is a client that wrote no result (killed before its dict, a variable echoed into
        # the file): beside the job's sidecar, the job's failure, as an empty file is (``ingest._unreadable``)
        raise fail(path, line, f"format: {what}, not a benchmark client output (expected {KNOWN})",
                   f"ingest the job's $RESULT_FILENAME.json, or remove the file{more}", col=col,
                   rule=jsonio.UNREADABLE if lone else "")
    docs = jsonio.documents(text, path)
    _refuse_empty(docs, path)
    if lm_eval.is_samples_log(docs) or gpu_metrics.is_identity_dump(docs):  # beside a result, as gpu_metrics.csv is
        raise Auxiliary(path)
    # beside an eval's scores, as lm-eval's samples log is; never a client output or an InferenceX
    # aggregate (refused with what to ingest instead), however like meta_env.json it reads
    if eval_side.is_side_file(docs) and not any(_is_client_output(doc) or inferencex.reason(doc) for _, doc in docs):
        raise EvalSideFile(path)
    return _parse_all(_jobs_documents(docs), path)


def _parse_all(docs: list[tuple[int, object]], path: str) -> list[Measurement]:
    """Each document's measurement. A document that goes beside a result (``Auxiliary``: an AIPerf
    record or aggregate) makes a file of them alone passed over; among client outputs it is refused
    at its line, so that the file's results are never passed over with it in silence."""
    out = []
    for n, (line, doc) in enumerate(docs):
        try:
            out.append(parse_document(doc, path, line))
        except Auxiliary as exc:
            if out or any(_is_client_output(other) for _, other in docs[n + 1:]):
                raise fail(path, line, f"format: not a result but of what is passed over alone ({type(exc).WHAT}), "
                           "and the file's other lines are results", "put each client output in a file of its own (or "
                           "remove this line) and ingest again") from None
            raise
    return out


_OBJECT_LINE = re.compile(r"^[ \t]*\{", re.MULTILINE)  # a line that starts as a JSON object
OBJECT_TRIES = 1000  # such lines read as JSON at most: a file of more that are none is no JSON lines (nor quick)
_BLANK = re.compile(r"[\s\ufeff]*")  # what may stand before a file's first line of text


def _refuse_text_among_json_lines(text: str, path: str) -> None:
    """Refuse a file whose first line is text but a later line a JSON object (JSON lines with a label or a
    note written among them by hand, as a results summary of several runs): one line saying so, at the
    text, rather than "not JSON" of a file that holds JSON. Return for any other text. Only lines that start
    in the file's top (``jsonio.HEAD_CHARS``) are looked at, however many (a log of thousands of lines before
    its JSON), the first OBJECT_TRIES that start as an object each read to its end (a one-line vLLM output with
    its per-request arrays is longer than the top): a large file is never split into its lines, and each line
    read is copied alone."""
    import json

    for found in itertools.islice(_OBJECT_LINE.finditer(text, 0, jsonio.HEAD_CHARS), OBJECT_TRIES):
        end = text.find("\n", found.start())
        try:
            doc = json.loads(text[found.start():None if end < 0 else end])  # a line, never more
        except (ValueError, RecursionError):
            continue
        if isinstance(doc, dict):
            at = _BLANK.match(text).end()
            raise jsonio.text_among(path, text.count("\n", 0, at) + 1, jsonio.first_line(text[at:at + 200]),
                                    text.count("\n", 0, found.start()) + 1)


def _text_said(text: str) -> tuple[str, str]:
    """What a text that is no client output was seen to be, and what to add to the fix: a CSV table, or not JSON
    or CSV; in a file longer than the top looked at for a JSON object line (``_refuse_text_among_json_lines``),
    that no line of the top is one, and the fix should JSON lines follow further down."""
    if _table(text):
        return "a CSV table", ""
    if len(text) <= jsonio.HEAD_CHARS:
        return "not JSON or CSV", ""
    return (f"not JSON or CSV (text, and no line of its first {jsonio.HEAD_CHARS >> 20} MiB is a JSON object; the "
            "rest was not looked at)", " (if JSON lines follow further down, remove the text above them)")


def _refuse_empty(docs: list[tuple[int, object]], path: str) -> None:
    """Refuse a file whose every document is an empty JSON object or list (``{}``, ``[]``, a list of ``{}``,
    JSONL lines of ``{}``) as holding no results: valid JSON, but no run's figures (s32b: it read "unknown JSON
    output", as if it were some other tool's). Beside a job's sidecar it is the job's failure, as an empty file
    is (``ingest._unreadable``)."""
    def empty(doc) -> bool:
        return doc == {} or (isinstance(doc, list) and all(d == {} for d in doc))

    if not all(empty(doc) for _, doc in docs):
        return
    first = docs[0][1]
    if len(docs) > 1:
        kinds = {isinstance(doc, list) for _, doc in docs}
        names = {frozenset({False}): "objects ({})", frozenset({True}): "lists ([])"}
        what = f"{len(docs)} lines of empty JSON {names.get(frozenset(kinds), 'objects and lists ({}, [])')}"
    elif isinstance(first, dict):
        what = "an empty JSON object ({})"
    else:
        what = f"a JSON list of {count(len(first), 'empty object')}" if first else "an empty JSON list ([])"
    raise fail(path, docs[0][0], f"format: {what}: the file holds no results (a result is a run's figures as its "
               f"client writes them: {KNOWN})", "the client wrote no run: check the job's log, or remove the file",
               rule=jsonio.UNREADABLE)


def _lone_value(text: str) -> str | None:
    """What a file holding one JSON value that is no object or array is (``null``, ``1``, ``"x"``,
    ``true``: a client killed before it wrote its dict, a variable echoed into the file), else None.
    It is JSON: "not JSON or CSV" said the opposite of what the file shows (nu30)."""
    import json

    try:
        value = json.loads(text)
    except ValueError:
        return None
    kinds = ((type(None), "null"), (bool, "boolean"), ((int, float), "number"), (str, "string"))
    return next((f"a JSON {name}" for kind, name in kinds if isinstance(value, kind)), None)


# The most words a cell of a header row holds as a column's name ("p99 Time To First Token (ms)")
NAME_WORDS = 6


def _table(text: str) -> bool:
    """Whether ``text`` reads as a CSV table: a first row of two or more cells and at least one next row
    as wide (one line with a comma in it is as likely a sentence: a client's last error), whose next rows hold
    a number or whose first row is of names (``_names``): lines of text with a comma in each (a log's, ``INFO
    step 1 of the warm-up, nothing measured``) are as wide, and no table."""
    try:
        rows = [row for row in itertools.islice(csv.reader(io.StringIO(jsonio.head(text, 8))), 3) if row]
    except csv.Error:
        return False
    if len(rows) < 2 or len(rows[0]) < 2 or any(len(row) != len(rows[0]) for row in rows):
        return False
    return any(_number(cell) for row in rows[1:] for cell in row) or _names(rows)


def _names(rows: list[list[str]]) -> bool:
    """Whether the first of ``rows`` (none of which holds a number) reads as a header: cells of at most NAME_WORDS
    words, and no row's comma followed by a blank, as a sentence's is (a CSV writer puts none there)."""
    return all(len(cell.split()) <= NAME_WORDS for cell in rows[0]) and not any(
        cell[:1].isspace() for row in rows for cell in row[1:])


def _number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


def _is_client_output(doc) -> bool:
    return any(module.detect(doc) for module in JSON_FORMATS)


def is_output(doc) -> bool:
    """Whether a parsed JSON document (a JSONL file's first line) is a benchmark client's output as ingest reads
    one, benchmark_lib's wrappings of one too (``_jobs_documents``): not a server's config or a tool's record."""
    return any(_is_client_output(d) for _line, d in _jobs_documents([(0, doc)]))


def _jobs_documents(docs: list[tuple[int, object]]) -> list[tuple[int, object]]:
    """What benchmark_lib writes, as client outputs: a multi-node job's list of one output per
    concurrency (numbered from 1, as JSONL lines are) and an agentic job's AIPerf export kept under
    ``"aiperf"`` beside the row's identity. Anything else stays as it is (a list on a JSONL line too: its outputs
    would share the line, each result's name)."""
    out: list[tuple[int, object]] = []
    for line, doc in docs:
        if line == 0 and isinstance(doc, list) and doc and all(_is_client_output(d) for d in doc):
            out.extend(enumerate(doc, 1))
        elif isinstance(doc, dict) and isinstance(doc.get("aiperf"), dict) and aiperf.detect(doc["aiperf"]):
            out.append((line, doc["aiperf"]))
        else:
            out.append((line, doc))
    return out


def parse_document(doc, path: str, line: int) -> Measurement:
    for module in JSON_FORMATS:
        if module.detect(doc):
            return module.parse(doc, path, line)
    sglang.refuse_one_batch(doc, path, line)
    vllm.refuse_pooling(doc, path, line)
    lm_eval.refuse_scores_alone(doc, path, line)
    foreign.refuse(doc, path, line)
    if inferencex.reason(doc):
        inferencex.refuse(doc, path, line)
    _refuse_own_records(doc, path, line)
    _refuse_matrix_rows(doc, path, line)
    raise fail(path, line, f"format: unknown JSON output (expected {KNOWN})",
               "ingest the job's $RESULT_FILENAME.json, or remove the file")


# Keys every matrix row has (CONTRACTS §1), none a client output: a row named as a result, ``--row`` forgotten
_ROW_KEYS = (F.EXP_NAME, F.CONC, F.RUNNER, F.IMAGE, F.MODEL_PREFIX)
_ROW_HINT = ("pass it as the output's row: `results ingest --row row.json --run-id ID --ref REF OUTPUT`, OUTPUT the "
             "client's output that row ran")


def _is_row(doc) -> bool:
    return isinstance(doc, dict) and all(key in doc for key in _ROW_KEYS)


def _refuse_matrix_rows(doc, path: str, line: int) -> None:
    """Refuse a matrix row (``jq '.[0]'`` of `test-config`), or a list of them, as what it is, naming
    ``--row``; return for anything else."""
    if _is_row(doc):
        raise fail(path, line, "format: a matrix row (as `sweepgate test-config` or `matrix` prints one), "
                   "not a client's output", _ROW_HINT)
    if isinstance(doc, list) and doc and all(_is_row(d) for d in doc):
        raise fail(path, line, f"format: a list of {len(doc)} matrix rows (as `sweepgate test-config` prints "
                   "them), not a client's output", f"{_ROW_HINT}, one row picked with jq")


def _refuse_own_records(doc, path: str, line: int) -> None:
    """Refuse sweepgate's own normalized records as what they are: a line of what `results ingest
    --jsonl` writes (the results artifact's results.jsonl, which a user unzipping the artifact and
    ingesting the folder met) or the array `results show --json` prints; return for anything else."""
    if R.is_record(doc):
        raise fail(path, line, "format: sweepgate's own normalized result records (as `results ingest --jsonl` "
                   "writes them), not a client's output: results ingested already",
                   "pass the file to `results compare --baseline-jsonl`, or ingest the job outputs it was made from")
    if isinstance(doc, list) and doc and all(R.is_record(d) for d in doc):
        raise fail(path, line, "format: sweepgate's own normalized result records (a JSON array, as `results "
                   "show --json` prints them), not a client's output: results ingested already",
                   "read them with `results show`, or ingest the job outputs they were made from")
