"""Reading client output: JSON with the non-standard constants clients write.

SGLang writes a bare ``Infinity`` for an unbounded request rate and Python's
``json.dump`` writes ``NaN``; the standard library reads both when told how
(``parse_constant``). Decode errors become diagnostics with line and column.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

from sweepgate.core.errors import LINE_LABELS, fail, json_message, os_reason
from sweepgate.core import jsontext
from sweepgate.core.jsontext import key_offset, key_place, offset_place

_CONSTANTS = {"Infinity": math.inf, "-Infinity": -math.inf, "NaN": math.nan}


def _constant(name: str) -> float:
    return _CONSTANTS[name]


# The rule of a file that is empty or not whole JSON (a client that died writing it), as opposed
# to a whole document of another format.
UNREADABLE = "unreadable"

CLIENT_HINT = "the file is truncated or not a client's output; rerun the benchmark or remove the file"


def too_deep(path: str, line: int = 0, hint: str = CLIENT_HINT):
    """The refusal of a document nested deeper than Python's JSON reader goes (about 1,000 levels):
    whole, so not a client that died writing it, and no client's output either."""
    return fail(path, line, "nested too deeply (arrays or objects about 1,000 levels deep)", hint)


ZIP_MAGIC, GZIP_MAGIC = b"PK\x03\x04", b"\x1f\x8b"
SQLITE_MAGIC = b"SQLite format 3\x00"  # the first 16 bytes of every SQLite database file
UNZIP = "unzip FILE -d DIR"
UNTAR, UNTAR_GZ = "tar -xf FILE -C DIR", "tar -xzf FILE -C DIR"
TAR_MAGICS, TAR_MAGIC_AT = (b"ustar\x00", b"ustar  \x00"), 257  # POSIX (pax) tar's, GNU tar's
HEAD = 4096  # the bytes of a file read to know what it is (a tar header, gzipped, is well inside them)
DATABASE = "a SQLite database (such as a results store)"


def archive(path: str, content: bytes, zipped: str = "pass the files it holds",
            gzipped: str = "pass the file", database: tuple[str, str] | None = None) -> Exception | None:
    """The refusal of ``content`` as the zip archive (a GitHub Actions artifact as a browser downloads
    it) or gzip file it is, telling how to unpack it and what to do then, or, given ``database`` (what
    the file is not, what to do instead), as the SQLite database it is (the results artifact's
    results.db beside its JSONL: it read "not UTF-8 text (byte 106)"); None for any other content."""
    if database and content.startswith(SQLITE_MAGIC):
        return fail(path, 1, f"{DATABASE}, not {database[0]}", database[1])
    if content.startswith(ZIP_MAGIC):
        return fail(path, 1, "a zip archive (as a browser downloads a GitHub Actions artifact), not the "
                    "file itself", f"unzip it ({UNZIP}) and {zipped}")
    if content.startswith(GZIP_MAGIC):
        if _is_tar(_gunzipped_head(content)):  # gunzip alone would leave a .tar, refused in its turn (new-user29)
            return fail(path, 1, "a gzip-compressed tar archive, not the file itself", f"extract it ({UNTAR_GZ}) and {zipped}")
        return fail(path, 1, "gzip-compressed, not the file itself", f"gunzip it ({_gunzip(path)}) and {gzipped}")
    if _is_tar(content):
        return fail(path, 1, "a tar archive, not the file itself", f"extract it ({UNTAR}) and {zipped}")
    return None


def _is_tar(head: bytes) -> bool:
    """Whether ``head`` (a file's first bytes) is a tar archive's: at byte 257 POSIX tar writes "ustar" and a
    NUL, GNU tar "ustar", two blanks and a NUL (no text file holds a NUL: a JSON output reading "ustar" there
    is not taken for one)."""
    return any(head[TAR_MAGIC_AT:TAR_MAGIC_AT + len(magic)] == magic for magic in TAR_MAGICS)


def _gunzipped_head(content: bytes) -> bytes:
    """The first bytes ``content``, gzip-compressed, unpacks to (as many as ``HEAD`` asks; what a damaged
    stream gives before it breaks)."""
    import zlib

    unpack = zlib.decompressobj(16 + zlib.MAX_WBITS)  # a gzip header and trailer
    try:
        return unpack.decompress(content[:HEAD], HEAD)
    except zlib.error:
        return b""


def _gunzip(path: str) -> str:
    """The command that unpacks ``path``: ``gunzip -k`` needs a name ending in .gz (it refuses any
    other, "unknown suffix -- ignored", as for a gzipped download saved as results.jsonl)."""
    return "gunzip -k FILE" if path.lower().endswith(".gz") else "gunzip -c FILE > NEW_FILE"


def _head(path) -> bytes:
    """A file's first bytes, enough for ``archive`` to know it (none when it cannot be read again)."""
    try:
        with open(path, "rb") as f:
            return f.read(HEAD)
    except OSError:
        return b""


def read_text(path, hint: str, unreadable_hint: str | None = None, database: tuple[str, str] | None = None) -> str:
    """A file's UTF-8 text, or one line saying why it cannot be read: the system's reason (no
    path a second time) with ``unreadable_hint`` (else ``hint``), a zip or gzip archive as such
    (``archive``), a SQLite database as such given ``database`` (``archive``), or the first byte
    that is not UTF-8 with ``hint``."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise fail(str(path), 0, f"cannot read: {os_reason(exc)}", unreadable_hint or hint) from None
    except UnicodeDecodeError as exc:
        refusal = archive(str(path), _head(path), database=database)
        if refusal is not None:
            raise refusal from None
        raise fail(str(path), 0, f"not UTF-8 text (byte {exc.start})", hint) from None


def loads(text: str, path: str, line_offset: int = 0, hint: str = CLIENT_HINT):
    """Parse one JSON document; errors as ``path:line:col: ...; hint`` (by default, the fix for a
    client's output)."""
    try:
        return jsontext.loads(text, parse_constant=_constant)
    except json.JSONDecodeError as exc:
        raise fail(path, exc.lineno + line_offset, f"not valid JSON: {json_message(exc)}", hint, col=exc.colno,
                   rule=UNREADABLE) from None
    except RecursionError:  # one line of JSONL, or a one-line file: its line; else the file's
        raise too_deep(path, line_offset + 1 if "\n" not in text.strip() else 0, hint) from None


def _object_line(line: str) -> bool:
    """A line that is one whole JSON object, as JSONL's are (``{...}``)."""
    return len(line) > 1 and line.startswith("{") and line.endswith("}")


def json_lines(text: str) -> list[str]:
    """The lines of a JSON or JSONL text, split at newlines only: str.splitlines also splits at
    U+2028, U+0085 and other separators, which JSON strings hold unescaped (lm-eval writes its
    samples log with ensure_ascii=False), cutting a record in two and numbering the rest wrongly."""
    return text.split("\n")


def documents(text: str, path: str) -> list[tuple[int, object]]:
    """The JSON documents of a file: one for JSON, one per non-empty line for JSONL.

    Returns ``(line, document)`` pairs; ``line`` is 0 for a whole-file document.
    """
    stripped = text.lstrip()
    if not stripped:
        raise fail(path, 1, "the file is empty", "rerun the benchmark or remove the file", rule=UNREADABLE)
    lines = [(n, s.strip()) for n, s in enumerate(json_lines(text), 1) if s.strip()]
    if len(lines) > 1 and all(_object_line(s) for _, s in lines):
        return [(n, loads(s, path, n - 1)) for n, s in lines]  # JSONL: one object per line
    try:
        return [(0, jsontext.loads(text, parse_constant=_constant))]
    except json.JSONDecodeError as exc:
        whole_error = exc
    except RecursionError:
        raise too_deep(path, 1 if len(lines) == 1 else 0) from None
    if len(lines) < 2 or not _object_line(lines[0][1]):
        # One document (pretty-printed JSON cut short): where the whole file's parse stopped, not
        # its first line's, which is a lone "{".
        loads(text, path)  # raises with the whole-file position
        raise AssertionError(whole_error)  # unreachable
    return [(n, loads(s, path, n - 1)) for n, s in lines]


WARNING = LINE_LABELS["warning"]  # how a stored-with-a-warning message starts, before the key it names


def place(diagnostics, text: str, path: str) -> None:
    """Give a refusal or warning of a whole-document file (line 0) a place in it: the key its message
    names first (``completed: ...``, ``warning: ttft: ...``), else where the document starts. A file
    that starts with '[' is one document (``documents``): in a multi-node job's list of outputs, "line"
    N is its Nth output (``sniff._jobs_documents``), placed at that key of that output. A JSONL line's
    (line N) is placed at that key of that line, else where its object starts, as a one-line file's is."""
    listed, lines = text.lstrip().startswith("["), None
    for d in diagnostics:
        if d.file != path or (d.line and d.col):
            continue
        name = d.message.removeprefix(WARNING).split(": ", 1)[0]
        key = name if name and not re.search(r"[\s\"']", name) else None
        if not d.line:
            d.line, d.col = key_place(text, key)
        elif listed:
            if (at := _output_place(text, d.line, key)) is not None:
                d.line, d.col = at
        else:  # a JSONL line's
            lines = lines or json_lines(text)  # once for all the file's refusals
            d.col = (_line_key_col(lines, d.line, key) if key else 0) or _object_col(lines, d.line)


def _line_key_col(lines: list[str], n: int, key: str) -> int:
    """The 1-based column of ``key`` in line ``n`` of ``lines``, 0 when the line does not hold it once."""
    at = key_offset(lines[n - 1], key) if 0 < n <= len(lines) else None
    return 0 if at is None else at + 1


def _object_col(lines: list[str], n: int) -> int:
    """The 1-based column where line ``n`` of ``lines`` starts its JSON object, 0 when it is no JSONL object
    line (an empty file, a console log, a CSV row: refused at the line alone)."""
    line = lines[n - 1] if 0 < n <= len(lines) else ""
    return len(line) - len(line.lstrip()) + 1 if _object_line(line.strip()) else 0


def _output_place(text: str, n: int, key: str | None) -> tuple[int, int] | None:
    """(line, column) of ``key`` in the Nth object of the array ``text`` is, else of that object's
    start; None when its Nth element is no object (a refusal of the array itself)."""
    start = key_offset(text, f"[{n - 1}]")
    if start is None or text[start] != "{":
        return None
    found, end = key_offset(text, f"[{n - 1}].{key}") if key else None, key_offset(text, f"[{n}]")
    return offset_place(text, found if found is not None and (end is None or found < end) else start)
