"""Places in a JSON text: where a key stands, for a message about its value.

Python's JSON reader keeps no positions; a refusal of a value names the line and column of its
key, found in the text, so that an indented file (or a one-line one, by its column) shows where.
"""

from __future__ import annotations

import json
import re


# What a key bare at the head of a "key: what is wrong" line would blur into the line's own colon: a colon or
# quote in it (vLLM 0.8 wrote "request_goodput:"), or a space at either end
_BLURRED = re.compile(r'[:"]|^\s|\s$|^$')


def said_key(key: str) -> str:
    """``key`` as a message names it: bare, else, where it would blur into the message (``_BLURRED``: it read
    ``request_goodput:: negative``), quoted as JSON writes it, ``"request_goodput:": negative``."""
    return json.dumps(key, ensure_ascii=False) if _BLURRED.search(key) else key


def leading_key(message: str) -> str | None:
    """The key a ``key: what is wrong`` message opens with (``said_key``'s, unquoted), else None."""
    if message.startswith('"'):
        try:
            key, end = json.JSONDecoder().raw_decode(message)
        except ValueError:
            return None
        return key if isinstance(key, str) and message.startswith(": ", end) else None
    name = message.split(": ", 1)[0]
    return name if name and not re.search(r"[\s\"']", name) else None


def _key_at(text: str, name: str, pos: int = 0):
    return re.compile(rf'"{re.escape(name)}"\s*:').search(text, pos)


# ``phases[1]``: element 1 of the array at key ``phases``; ``[1]``: of the array the text is
_INDEXED = re.compile(r"(.*)\[(\d+)\]")
_SPACE = re.compile(r"\s*")
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{},]')


def _element(text: str, pos: int, index: int) -> int | None:
    """Where element ``index`` of the JSON array that is the first value after ``pos`` begins; None
    when the value is no array or it is shorter."""
    depth, n = 0, 0
    for m in _TOKEN.finditer(text, pos):
        tok = m.group()
        if depth == 0 and tok != "[":
            return None
        if tok in "[{":
            depth += 1
        elif tok in "]}":
            depth -= 1
        elif tok == "," and depth == 1:
            n += 1
        if depth == 0:
            return None
        if depth == 1 and n == index and tok in "[,":
            return m.end()
    return None


def _find(text: str, name: str, pos: int = 0) -> tuple[int, int] | None:
    """(start, end) of key ``name`` after ``pos``; for ``name[i]`` (when no key is so named), from the
    start of ``name`` to the start of element i of its array, after which the next key is looked for."""
    if m := _key_at(text, name, pos):
        return m.start(), m.end()
    indexed = _INDEXED.fullmatch(name)
    if indexed and not indexed[1]:  # the text's own array, from its start: the element itself
        at = _element(text, pos, int(indexed[2]))
        return None if at is None else (_SPACE.match(text, at).end(), at)
    if indexed and (m := _key_at(text, indexed[1], pos)):
        at = _element(text, m.end(), int(indexed[2]))
        return None if at is None else (m.start(), at)
    return None


def _top_level_key(text: str, name: str) -> tuple[int, int] | None:
    """(start, end) of key ``name`` among the keys of the object ``text`` is (not of an object within
    it); None when it has no such key."""
    quoted, depth = f'"{name}"', 0
    for m in _TOKEN.finditer(text):
        tok = m.group()
        if tok in "[{":
            depth += 1
        elif tok in "]}":
            depth -= 1
        elif depth == 1 and tok == quoted and (colon := _COLON.match(text, m.end())):
            return m.start(), colon.end()
    return None


_COLON = re.compile(r"\s*:")


def key_offset(text: str, path: str) -> int | None:
    """The offset of the last key of a dotted ``path`` (``results.gsm8k.acc,none``; a key may
    hold a dot itself, as ``p99.9_ttft_ms`` does; ``phases[1].concurrency`` is the key in the array's
    element 1), each key looked for after the one before; None when the first key is not in the text,
    or is in it more than once and not once among the document's own keys."""
    parts = path.split(".")
    first = next(((j, m) for j in range(len(parts), 0, -1) if (m := _find(text, ".".join(parts[:j])))), None)
    if first is not None and _find(text, ".".join(parts[:first[0]]), first[1][1]):
        # named more than once (AIPerf's ``time_to_first_token`` again in its ``warmup_metrics``):
        # the document's own key, where it has one, is the one a path from the top names
        top = _top_level_key(text, ".".join(parts[:first[0]]))
        first = None if top is None else (first[0], top)
    if first is None:
        return None
    i, found = first[0], first[1]
    while i < len(parts):
        step = next(((j, m) for j in range(len(parts), i, -1)
                     if (m := _find(text, ".".join(parts[i:j]), found[1]))), None)
        if step is None:
            break
        i, found = step
    return found[0]


def key_place(text: str, path: str | None) -> tuple[int, int]:
    """(line, column), 1-based, of ``path``'s key (``key_offset``), else of the document's first character."""
    start = key_offset(text, path) if path else None
    if start is None:
        start = len(text) - len(text.lstrip())
    return offset_place(text, start)


def offset_place(text: str, start: int) -> tuple[int, int]:
    """(line, column), 1-based, of the character at offset ``start``."""
    return text.count("\n", 0, start) + 1, start - (text.rfind("\n", 0, start) + 1) + 1


_STRING_OR_BRACE = re.compile(r'"(?:[^"\\]|\\.)*"|\{')


def object_places(text: str, data) -> dict[int, tuple[int, int]]:
    """(line, column) of the '{' of every object in ``data`` (parsed from ``text``), by ``id``: the
    reader makes objects in the order their braces stand in the text, and a walk of ``data`` that
    takes each object before what it holds meets them in that order. Empty when the counts differ
    (a repeated key dropped an object)."""
    starts = [m.start() for m in _STRING_OR_BRACE.finditer(text) if m.group() == "{"]
    found, stack = [], [data]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            found.append(item)
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, list):
            stack.extend(reversed(item))
    if len(found) != len(starts):
        return {}
    return {id(obj): offset_place(text, start) for obj, start in zip(found, starts)}


# Digits of an integer read as such; the largest float, about 1.8e308, has 309.
# What a document nested deeper than Python's JSON reader goes (a RecursionError) is, as every refusal of one says.
NESTED_TOO_DEEPLY = "nested too deeply (about 1,000 levels)"
# A row file with nothing in it (`sweepgate test-config ... > row.json` whose test-config refused a mistyped key):
# no row, and not a broken JSON file; (what, fix) as `results ingest --row` and `rehearse --row-json` both say it
EMPTY_ROW_FILE = ("the file is empty: no row", "write the job's matrix row into it (the command that wrote it printed "
                  "nothing, such as `sweepgate test-config` refusing a mistyped key: see its error)")

INT_DIGITS = 300


def integer(digits: str) -> int | float:
    """A JSON integer (``json.loads(..., parse_int=integer)``): as Python reads it, but one of more
    than ``INT_DIGITS`` digits as the nearest float (infinity past 1.8e308), as ``1e999`` is read, so
    the checks that refuse a value that is not finite meet it. No file means such a count, and Python
    would refuse it past 4,300 digits (ValueError) or overflow turning it into a float."""
    return int(digits) if len(digits) <= INT_DIGITS else float(digits)


def loads(text: str | bytes, **options):
    """``json.loads`` with integers read by ``integer``: every JSON text sweepgate reads goes through it."""
    import json

    return json.loads(text, parse_int=integer, **options)
