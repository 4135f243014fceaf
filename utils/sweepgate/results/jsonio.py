"""Reading client output: JSON with the non-standard constants clients write.

SGLang writes a bare ``Infinity`` for an unbounded request rate and Python's
``json.dump`` writes ``NaN``; the standard library reads both when told how
(``parse_constant``). Decode errors become diagnostics with line and column.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from sweepgate.core.errors import LINE_LABELS, SweepgateError, fail, json_message, os_failure
from sweepgate.core import jsontext
from sweepgate.core.jsontext import key_offset, key_place, offset_place
from sweepgate.core.textmode import decoded, not_utf8

_CONSTANTS = {"Infinity": math.inf, "-Infinity": -math.inf, "NaN": math.nan}

HEAD_CHARS = 1 << 20  # the most of a text ``head`` returns: a header row is never this long


def _top(text: str, lines: int, cap: int | None = None) -> str:
    """The first ``lines`` lines of ``text``, each with its newline (the last may have none), and at most ``cap``
    characters when given: copied alone, the rest of the text never copied. ``head`` and ``_first_lines`` walk it."""
    end, limit = -1, len(text) if cap is None else cap
    for _ in range(lines):
        end = text.find("\n", end + 1, limit)
        if end < 0:
            return text[:limit]
    return text[:end + 1]


def head(text: str, lines: int) -> str:
    """The first ``lines`` lines of ``text`` (at most HEAD_CHARS characters), copied alone: what a
    sniffer asks of a file's top, never a copy of the whole (a StringIO of it takes 4 bytes a character,
    a list of its lines more)."""
    return _top(text, lines, HEAD_CHARS)


def first_line(text: str) -> str:
    """``text.split("\\n", 1)[0]`` of at most HEAD_CHARS characters, the rest never copied."""
    return head(text, 1).split("\n", 1)[0]


def _constant(name: str) -> float:
    return _CONSTANTS[name]


class _Twice(ValueError):
    """A key an object of a client's output states twice with two values (``_pairs``)."""

    def __init__(self, key: str, first, second):
        super().__init__(key)
        self.key, self.values = key, (first, second)


def _pairs(pairs: list[tuple[str, object]]) -> dict:
    """An object of a client's output as a dict, refusing (``_Twice``) a key stated twice with two values: Python's
    reader keeps the last silently, so `{"output_throughput": 409.6, ..., "output_throughput": 1.0}` read as 1.0 where
    a reader of the file sees 409.6 (s42k). A key stated twice alike is one value."""
    obj = dict(pairs)
    if len(obj) < len(pairs):
        first: dict = {}
        for key, value in pairs:
            if key in first and first[key] != value:
                raise _Twice(key, first[key], value)
            first.setdefault(key, value)
    return obj


TWICE_HINT = "a client writes each key once: the output was edited or is not a client's; rerun the benchmark"


def _twice(exc: _Twice, text: str, path: str, line_offset: int = 0) -> SweepgateError:
    """``path:line:col: KEY: stated twice ...`` at the key's second place in ``text`` (its first line, if not found)."""
    quoted = re.compile(re.escape(json.dumps(exc.key, ensure_ascii=False)) + r"\s*:")
    places = [m.start() for m in quoted.finditer(text)][1:2] or [0]
    line = text.count("\n", 0, places[0]) + 1
    col = places[0] - text.rfind("\n", 0, places[0])
    shown = [json.dumps(v, ensure_ascii=False)[:40] for v in exc.values]
    return fail(path, line + line_offset, f"{jsontext.said_key(exc.key)}: stated twice in one object, {shown[0]} "
                f"then {shown[1]}", TWICE_HINT, col=col, rule=UNREADABLE)


# The rule of a file that is empty or not whole JSON (a client that died writing it), as opposed
# to a whole document of another format.
UNREADABLE = "unreadable"

CLIENT_HINT = "the file is truncated or not a client's output; rerun the benchmark or remove the file"
# What a client's output that goes on after a whole JSON document is ("Extra data"): never cut short
SEVERAL_HINT = ("the file holds JSON documents back to back, not one; write one document, or JSON lines (one "
                "document a line)")
TRAILING_HINT = "the file goes on after its JSON document ends; remove what follows it, or rerun the benchmark"
GOES_ON = (SEVERAL_HINT, TRAILING_HINT)


def too_deep(path: str, line: int = 0, hint: str = CLIENT_HINT):
    """The refusal of a document nested deeper than Python's JSON reader goes (about 1,000 levels):
    whole, so not a client that died writing it, and no client's output either."""
    return fail(path, line, jsontext.NESTED_TOO_DEEPLY, hint)


UNZIP = "unzip FILE -d DIR"
UNTAR = "tar -xf FILE -C DIR"
HEAD = 4096  # the bytes of a file read to know what it is (a tar header, compressed, is well inside them)
DATABASE = "a SQLite database (such as a results store)"
ARCHIVE, COMPRESSED, IMAGE, STORE = "archive", "compressed", "image", "store"  # what a kind of file is, to a reader
VERBS = {ARCHIVE: "extract", COMPRESSED: "decompress"}


def _gunzipped(head: bytes) -> bytes:
    import zlib

    return zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(head, HEAD)  # a gzip header and trailer


def _unxzed(head: bytes) -> bytes:
    import lzma

    return lzma.LZMADecompressor().decompress(head, HEAD)


def _bunzipped(head: bytes) -> bytes:
    import bz2

    return bz2.BZ2Decompressor().decompress(head, HEAD)


@dataclass(frozen=True)
class Kind:
    """A kind of file that is no text, told by its magic bytes: what it is, how to get at what it holds.
    ``command`` unpacks or extracts it (one ending in ``suffix`` is unpacked beside itself, ``-k``; another
    name, which such tools refuse or rename, to NEW_FILE by ``stdout``); ``unpack`` gives the first bytes
    a compressed file holds, so a compressed tar archive is named as one, with ``untar`` (zstd's needs a
    package the standard library lacks: it is named by its compression alone). ``ends``: the name endings
    such files go by (an archive's; a compressed file's is ``suffix``), and ``tar_ends`` a tar archive so
    compressed besides ``.tar`` + ``suffix`` (``.tgz``): how a folder holding only such files names them."""

    name: str
    magic: bytes  # a regular expression of the bytes at ``at``
    said: str  # what the file is, at the start of its refusal
    kind: str  # ARCHIVE (files inside), COMPRESSED (one file inside), IMAGE (none: not a result), STORE
    command: str = ""
    suffix: str = ""
    stdout: str = ""
    at: int = 0
    unpack: Callable[[bytes], bytes] | None = None
    untar: str = ""
    tarball: str = ""  # how a tar archive so compressed is named: "a gzip-compressed tar archive"
    verb: str = ""  # what ``command`` does, when not VERBS[kind]: "unzip it (unzip FILE -d DIR)"
    short: str = ""  # the kind in a count of files, when not ``said``: "2 zip archives", "2 gzipped result files"
    ends: tuple[str, ...] = ()
    tar_ends: tuple[str, ...] = ()

    span: int = 64  # how many bytes from ``at`` the magic is looked for in

    def found_in(self, head: bytes) -> bool:
        return re.match(self.magic, head[self.at:self.at + self.span], re.DOTALL) is not None

    def unpacks(self, path: str) -> str:
        return self.command if not self.suffix or path.lower().endswith(self.suffix) else self.stdout

    @property
    def called(self) -> str:
        return self.short or self.said


TAR = Kind("tar", rb"ustar(?:\x00|  \x00)", "a tar archive", ARCHIVE, UNTAR, at=257,  # POSIX (pax) tar's, GNU tar's
           short="tar archive", ends=(".tar",))
# One table, in the order looked at: the first whose magic a file starts with is what it is.
KINDS = (
    Kind("sqlite", re.escape(b"SQLite format 3\x00"), DATABASE, STORE),  # the first 16 bytes of every SQLite file
    Kind("zip", re.escape(b"PK\x03\x04"), "a zip archive (as a browser downloads a GitHub Actions artifact)",
         ARCHIVE, UNZIP, verb="unzip", short="zip archive", ends=(".zip",)),
    Kind("gzip", re.escape(b"\x1f\x8b"), "gzip-compressed", COMPRESSED, "gunzip -k FILE", ".gz",
         "gunzip -c FILE > NEW_FILE", unpack=_gunzipped, untar="tar -xzf FILE -C DIR",
         tarball="a gzip-compressed tar archive", verb="gunzip", short="gzipped", tar_ends=(".tgz",)),
    Kind("xz", re.escape(b"\xfd7zXZ\x00"), "xz-compressed", COMPRESSED, "xz -dk FILE", ".xz", "xz -dc FILE > NEW_FILE",
         unpack=_unxzed, untar="tar -xJf FILE -C DIR", tarball="an xz-compressed tar archive", tar_ends=(".txz",)),
    Kind("zstd", re.escape(b"\x28\xb5\x2f\xfd"), "zstd-compressed", COMPRESSED, "zstd -d FILE", ".zst",
         "zstd -dc FILE > NEW_FILE", untar="tar --zstd -xf FILE -C DIR", tarball="a zstd-compressed tar archive",
         tar_ends=(".tzst",)),
    # "BZh", the block size 1-9, then a block's magic (pi's digits) or, empty, the end of the stream's
    Kind("bzip2", rb"BZh[1-9](?:1AY&SY|\x17rE8P\x90)", "bzip2-compressed", COMPRESSED, "bunzip2 -k FILE", ".bz2",
         "bunzip2 -c FILE > NEW_FILE", unpack=_bunzipped, untar="tar -xjf FILE -C DIR",
         tarball="a bzip2-compressed tar archive", tar_ends=(".tbz2", ".tbz")),
    Kind("7z", re.escape(b"7z\xbc\xaf\x27\x1c"), "a 7z archive", ARCHIVE, "7z x FILE -oDIR", short="7z archive",
         ends=(".7z",)),
    TAR,
    Kind("png", re.escape(b"\x89PNG\r\n\x1a\n"), "an image (a chart?)", IMAGE),
    Kind("jpeg", re.escape(b"\xff\xd8\xff"), "an image", IMAGE),
    # an SVG chart (``compare --plots`` writes one beside each PNG): its XML declaration, doctype and comments,
    # then its <svg> element
    Kind("svg", rb"(?:\xef\xbb\xbf)?\s*(?:<\?xml[^>]*\?>\s*)?(?:<!--.*?-->\s*)*(?:<!DOCTYPE svg[\s>]|<svg[\s>])",
         "an image (a chart?)", IMAGE, span=1024),
)
# The names of tar archives, plain or compressed (``runs.tar``, ``runs.tar.gz``, ``runs.tgz``): job outputs
# copied between machines as a tarball (new-user29), whose every kind ``tar -xf`` reads
TAR_NAMES = TAR.ends + tuple(end for kind in KINDS if kind.kind == COMPRESSED
                             for end in (".tar" + kind.suffix, *kind.tar_ends))
# The name endings of every archive and compressor of KINDS (``.zip``, ``.7z``, ``.tar``, ``.tgz``, ``.gz`` ...): a
# file whose name has another extension (``checkpoint.pt``, ``report.xlsx``, ``layer.blob``: zips or gzip streams
# inside) is what its name says, not an archive to unpack, whatever its first bytes (``packed_name``)
PACKED_ENDS = TAR_NAMES + tuple(end for kind in KINDS if kind.kind in (ARCHIVE, COMPRESSED)
                                for end in (*kind.ends, *((kind.suffix,) if kind.suffix else ())))


def packed_name(name: str) -> bool:
    """Whether a file so named may be told an archive or compressed file by its bytes: a name of no extension (an
    artifact saved as ``artifact``) or one of PACKED_ENDS."""
    return "." not in name.strip(".") or name.lower().endswith(PACKED_ENDS)


NOT_A_RESULT = ("pass the job's result file ($RESULT_FILENAME.json, a client's JSON/JSONL/CSV output): a chart is "
                "drawn from results, never read as one")


def kind_of(head: bytes) -> Kind | None:
    """What ``head`` (a file's first bytes) is, by KINDS; None for any other content (text, most often)."""
    return next((kind for kind in KINDS if kind.found_in(head)), None)


def inside(kind: Kind, head: bytes, path: str) -> Kind | None:
    """What a compressed file holds, as far as its first bytes tell (what a damaged stream gives before it
    breaks); without a decompressor here, a tar archive by its name (``runs.tar.zst``)."""
    if kind.unpack is None:
        return TAR if path.lower().endswith(".tar" + kind.suffix) else None
    body = unpacked(kind, head)
    return kind_of(body) if body is not None else None


def unpacked(kind: Kind, head: bytes) -> bytes | None:
    """The first bytes of what a file compressed as ``kind`` holds, from its own first bytes ``head`` (what a
    damaged stream gives before it breaks); None without a decompressor here or when the stream is damaged."""
    if kind.unpack is None:
        return None
    import lzma
    import zlib

    try:
        return kind.unpack(head[:HEAD])
    except (zlib.error, lzma.LZMAError, OSError, EOFError):  # a damaged stream (bz2 says OSError)
        return None


def archive(path: str, content: bytes, zipped: str = "pass the files it holds",
            gzipped: str = "pass the file", database: tuple[str, str] | None = None,
            image: str = NOT_A_RESULT) -> Exception | None:
    """The refusal of ``content`` as what its first bytes say it is (KINDS): an archive (a GitHub Actions
    artifact's zip as a browser downloads it, a tarball, a 7z archive), telling how to extract it and then
    ``zipped``; a compressed file (gzip, xz, zstd, bzip2), how to unpack it and then ``gzipped``, or, compressing a
    tar archive, how to extract that; an image (a chart), that it is no result (``image``: what to pass); given ``database`` (what the
    file is not, what to do instead), the SQLite database it is (the results artifact's results.db beside its
    JSONL: it read "not UTF-8 text (byte 106)"). None for any other content."""
    kind = kind_of(content[:HEAD])
    if kind is None or (kind.kind == STORE and not database):
        return None
    if kind.kind == STORE:
        return fail(path, 1, f"{kind.said}, not {database[0]}", database[1])
    if kind.kind == IMAGE:
        return fail(path, 1, f"{kind.said}, not a result", image)
    if kind.kind == COMPRESSED and inside(kind, content, path) is TAR:  # unpacked alone, it leaves a .tar (new-user29)
        return fail(path, 1, f"{kind.tarball}, not the file itself", f"extract it ({kind.untar}) and {zipped}")
    then = gzipped if kind.kind == COMPRESSED else zipped
    return fail(path, 1, f"{kind.said}, not the file itself",
                f"{kind.verb or VERBS[kind.kind]} it ({kind.unpacks(path)}) and {then}")


def file_head(path) -> bytes:
    """A file's first bytes, enough for ``archive`` to know it (none when it cannot be read again)."""
    try:
        with open(path, "rb") as f:
            return f.read(HEAD)
    except OSError:
        return b""


# The most bytes a file `results ingest` reads whole may hold (a job's output, its sidecar, its GPU samples, a --row,
# and the normalized JSONL it writes, as `results compare --baseline-jsonl` and ingest's --jsonl read it),
# taken from the file's size before it is read: a file of gigabytes is one line, never read into memory. The real
# outputs (tests/data/results-real, the shared samples) are at most 1.1 MB, a node's GPU samples over 12 hours some
# 12 MB; this leaves room a hundredfold.
MAX_INPUT_BYTES = 256 << 20
TOO_BIG_RULE = "too-big"  # the title of a file over MAX_INPUT_BYTES


def read_bytes(path, limit: int = MAX_INPUT_BYTES) -> bytes:
    """``path``'s bytes, or one line (``TOO_BIG_RULE``) when it holds more than ``limit``: its size is taken first
    (stat) and that many bytes read, no buffer of the cap's size made; what follows (a file grown since, a pipe
    or device, whose size says 0) is read a MiB at a time up to ``limit`` + 1 bytes, and refused the same way past
    ``limit``. An OSError is the caller's to say."""
    def too_big(size: int):
        return fail(str(path), 0, f"{size:,} bytes, over the {limit >> 20:,} MiB a file ingest reads may hold",
                    "check that it is the file meant: real ones are a few MB", rule=TOO_BIG_RULE)

    size = os.stat(path).st_size
    if size > limit:
        raise too_big(size)
    with Path(path).open("rb") as f:
        parts = [f.read(size)] if size else []
        got = len(parts[0]) if parts else 0
        step = 1 if size else 1 << 20  # a file ends where its size said: one byte asks whether it grew
        while chunk := f.read(min(step, limit + 1 - got)):
            parts.append(chunk)
            got, step = got + len(chunk), 1 << 20
            if got > limit:
                raise too_big(got)
    return parts[0] if len(parts) == 1 else b"".join(parts)


def read_text(path, hint: str, unreadable_hint: str | None = None, database: tuple[str, str] | None = None,
              limit: int | None = None) -> str:
    """A file's UTF-8 text, or one line saying why it cannot be read: the system's reason (no
    path a second time) with ``unreadable_hint`` (else ``hint``), over ``limit`` bytes when given (``read_bytes``:
    by its size, unread), a zip or gzip archive as such
    (``archive``), a SQLite database as such given ``database`` (``archive``), or the first byte
    that is not UTF-8 with ``hint``. A text holding a NUL near its start is looked at as ``archive`` too:
    an uncompressed tar of text files is valid UTF-8 (review29: `--baseline-jsonl main.tar` read "not JSON")."""
    def packed() -> Exception | None:  # of the bytes read: a pipe (/dev/stdin) gives nothing a second time
        return archive(str(path), content[:HEAD], database=database, image=database[1] if database else hint)

    try:
        content = Path(path).read_bytes() if limit is None else read_bytes(path, limit)
    except OSError as exc:
        raise os_failure(str(path), "cannot read", exc, unreadable_hint or hint) from None
    try:
        text = decoded(content)  # as Path.read_text reads it: universal newlines
    except UnicodeDecodeError as exc:
        if (refusal := packed()) is not None:
            raise refusal from None
        raise fail(str(path), 0, not_utf8(exc.start), hint) from None
    if "\x00" in text[:HEAD] and (refusal := packed()) is not None:
        raise refusal
    return text


def _goes_on(exc: json.JSONDecodeError, fixes: tuple[str, str] = GOES_ON) -> str:
    """The fix (of ``fixes``: several documents', trailing text's) for a file whose JSON document is whole but
    followed by more ("Extra data"): another document (``{...}{...}``, written into one file) or other text."""
    try:
        json.JSONDecoder(parse_int=jsontext.integer, parse_constant=_constant).raw_decode(exc.doc, exc.pos)
    except (ValueError, RecursionError):
        return fixes[1]
    return fixes[0]


def stops_early(exc: json.JSONDecodeError) -> bool:
    """Whether the text ``exc`` was raised of stops before its document ends (cut short: the parser ran out of
    text, or a string has no closing quote), rather than going wrong before its end (YAML, a hand edit)."""
    return exc.msg.startswith("Unterminated string") or exc.pos >= len(exc.doc.rstrip())


def loads(text: str, path: str, line_offset: int = 0, hint: str = CLIENT_HINT,
          goes_on: tuple[str, str] | None = None, broken: str | None = None):
    """Parse one JSON document; errors as ``path:line:col: ...; hint``, by default the fix for a client's output;
    for a document followed by more, ``_goes_on``'s of ``goes_on`` (a client's output's, GOES_ON, with its hint);
    given ``broken``, that for text that goes wrong before its end (``stops_early`` not: not JSON there), ``hint``
    kept for one cut short."""
    try:
        return jsontext.loads(text, parse_constant=_constant, object_pairs_hook=_pairs)
    except _Twice as exc:
        raise _twice(exc, text, path, line_offset) from None
    except json.JSONDecodeError as exc:
        fixes = goes_on or (GOES_ON if hint == CLIENT_HINT else None)
        if exc.msg == "Extra data" and fixes:
            hint = _goes_on(exc, fixes)
        elif broken is not None and not stops_early(exc):
            hint = broken
        raise fail(path, exc.lineno + line_offset, f"not valid JSON: {json_message(exc)}", hint, col=exc.colno,
                   rule=UNREADABLE) from None
    except RecursionError:  # one line of JSONL, or a one-line file: its line; else the file's
        raise too_deep(path, line_offset + 1 if "\n" not in text.strip() else 0, hint) from None


def _first_lines(text: str, n: int) -> list[str]:
    """The first ``n`` of ``json_lines(text)``, the rest of the text never copied (a refusal at line 1 of a
    large file of another kind split all of it into a list of its lines, many times its size)."""
    return json_lines(_top(text, n))[:n]


def _object_line(line: str) -> bool:
    """A line that is one whole JSON object, as JSONL's are (``{...}``)."""
    return len(line) > 1 and line.startswith("{") and line.endswith("}")


def _value_line(line: str) -> bool:
    """A line that reads as one whole JSON object or array (``{...}``, ``[...]``), never the lone ``{`` or ``[``
    a pretty-printed document starts with."""
    return _object_line(line) or (len(line) > 1 and line.startswith("[") and line.endswith("]"))


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
        return [(0, jsontext.loads(text, parse_constant=_constant, object_pairs_hook=_pairs))]
    except _Twice as exc:
        raise _twice(exc, text, path) from None
    except json.JSONDecodeError as exc:
        whole_error = exc
    except RecursionError:
        raise too_deep(path, 1 if len(lines) == 1 else 0) from None
    if len(lines) < 2 or not _value_line(lines[0][1]):
        # One document (pretty-printed JSON cut short): where the whole file's parse stopped, not
        # its first line's, which is a lone "{".
        loads(text, path)  # raises with the whole-file position
        raise AssertionError(whole_error)  # unreachable
    return _line_documents(lines, path)


def _line_documents(lines: list[tuple[int, str]], path: str) -> list[tuple[int, object]]:
    """Each JSONL line's document. A line that is no JSON and does not start as one (a label or a note written
    among the lines by hand) is refused as text among JSON lines (``text_among``), naming the JSON line before
    it; a line that starts as an object but stops short (a run killed writing it) stays "not valid JSON"."""
    docs: list[tuple[int, object]] = []
    for n, line in lines:
        try:
            docs.append((n, loads(line, path, n - 1)))
        except SweepgateError:
            if line.startswith(("{", "[")):
                raise
            before, doc = docs[-1]  # the first line is a JSON value (``documents``)
            raise text_among(path, n, line, before, "a JSON object" if isinstance(doc, dict) else "JSON") from None
    return docs


AMONG_HINT = "ingest the client's own output file, or remove the lines that are not JSON"


def text_among(path: str, n: int, line: str, json_line: int, what: str = "a JSON object"):
    """The refusal of line ``n`` of a file, ``line``, as text among JSON lines (``json_line`` is JSON, ``what``):
    JSON lines with a label or a note written among them by hand, not a client's output as it writes it."""
    return fail(path, n, f"{KIND}: line {n} is text ({line.strip()[:60]!r}), not JSON, though line {json_line} is "
                f"{what}: JSON lines with text written among them, not a client's output as it writes it", AMONG_HINT)


WARNING = LINE_LABELS["warning"]  # how a stored-with-a-warning message starts, before the key it names
# The word a refusal of what kind of file it is opens with ("format: unknown JSON output", "format: an LLMPerf
# summary (...)"): no key of the file, though a file may have a key of that name (llm-load-test's
# config.output.format), so such a refusal stands where its document starts, not at that key.
KIND = "format"


def place(diagnostics, text: str, path: str) -> None:
    """Give a refusal or warning of a whole-document file (line 0) a place in it: the key its message
    names first (``completed: ...``, ``warning: ttft: ...``), else where the document starts. A file
    that starts with '[' is one document (``documents``): in a multi-node job's list of outputs, "line"
    N is its Nth output (``sniff._jobs_documents``), placed at that key of that output. A JSONL line's
    (line N) is placed at that key of that line, else where its object starts, as a one-line file's is."""
    listed, lines = _one_list(text), None
    for d in diagnostics:
        if d.file != path or (d.line and d.col):
            continue
        name = jsontext.leading_key(d.message.removeprefix(WARNING))
        key = name if name != KIND else None
        if not d.line:
            d.line, d.col = key_place(text, key)
        elif listed:
            if (at := _output_place(text, d.line, key)) is not None:
                d.line, d.col = at
        else:  # a JSONL line's
            lines = lines or _first_lines(text, max(x.line for x in diagnostics))  # once for all the file's refusals
            d.col = (_line_key_col(lines, d.line, key) if key else 0) or _object_col(lines, d.line)


def record_where(text: str, n: int, key: str | None = None) -> str:
    """Where in the file ``text`` its record "line" ``n`` is, in words after "on", as ``place`` places a
    refusal: a JSONL line (or CSV row) is ``line N`` itself; in a file that starts with '[' (a multi-node
    job's list of outputs, a sweep's summary) ``n`` counts outputs, so it is the line where ``key`` of the
    Nth output is (else where that output starts), with which output it is: ``line 48 (output 2 of the
    list)``."""
    if not n or not _one_list(text):
        return f"line {n}"
    at = _output_place(text, n, key)
    return f"output {n} of the list" if at is None else f"line {at[0]} (output {n} of the list)"


_MORE = re.compile(r"\S")


def _one_list(text: str) -> bool:
    """Whether ``text`` is one JSON array, whose "line" N is its Nth output, not JSON lines of arrays (``[]`` a
    line), as ``documents`` tells them."""
    start = m.start() if (m := _MORE.search(text)) else len(text)
    if not text.startswith("[", start):
        return False
    first = first_line(text[start:start + HEAD_CHARS])
    return not (_value_line(first.strip()) and _MORE.search(text, start + len(first)) is not None)


def _line_key_col(lines: list[str], n: int, key: str) -> int:
    """The 1-based column of ``key`` in line ``n`` of ``lines``, 0 when the line does not hold it once."""
    at = key_offset(lines[n - 1], key) if 0 < n <= len(lines) else None
    return 0 if at is None else at + 1


def _object_col(lines: list[str], n: int) -> int:
    """The 1-based column where line ``n`` of ``lines`` starts its JSON object, 0 when it is no JSONL object
    line (an empty file, a console log, a CSV row: refused at the line alone)."""
    line = lines[n - 1] if 0 < n <= len(lines) else ""
    return len(line) - len(line.lstrip()) + 1 if _value_line(line.strip()) else 0


def _output_place(text: str, n: int, key: str | None) -> tuple[int, int] | None:
    """(line, column) of ``key`` in the Nth object of the array ``text`` is, else of that object's
    start; None when its Nth element is no object (a refusal of the array itself)."""
    start = key_offset(text, f"[{n - 1}]")
    if start is None or text[start] != "{":
        return None
    found, end = key_offset(text, f"[{n - 1}].{key}") if key else None, key_offset(text, f"[{n}]")
    return offset_place(text, found if found is not None and (end is None or found < end) else start)
