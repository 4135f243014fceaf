"""Bytes already read, as text the way Python's text mode reads a file (``Path.read_text``): decoded as
UTF-8, every line end (`\\r\\n`, a lone `\\r`) as `\\n` (universal newlines). One spelling for the readers that
hold a file's bytes and want its text too (``results.jsonio.read_text``, ``rehearsal.linetrap``)."""

from __future__ import annotations


def decoded(data: bytes, errors: str = "strict") -> str:
    """``data`` as ``Path.read_text(encoding="utf-8", errors=errors)`` gives it: under "strict", a byte that
    is not UTF-8 raises UnicodeDecodeError ("surrogateescape" keeps it, "replace" makes it U+FFFD)."""
    return data.decode("utf-8", errors).replace("\r\n", "\n").replace("\r", "\n")


# What a refusal of bytes that are not UTF-8 says, and how to mend them: one wording for every reader.
def not_utf8(at: int, reason: str | None = None) -> str:
    """``not UTF-8 text (byte 12)``; with the decoder's ``reason``,
    ``not UTF-8 text (invalid start byte at byte 12)``."""
    return f"not UTF-8 text ({reason} at byte {at})" if reason else f"not UTF-8 text (byte {at})"


def not_valid_utf8(byte: int) -> str:
    """A changelog or config line's refusal, naming the byte that is not UTF-8: ``not valid UTF-8 (byte 0xff)``."""
    return f"not valid UTF-8 (byte 0x{byte:02x})"


def save_as_utf8(what: str = "file") -> str:
    return f"save the {what} as UTF-8"


# Byte-order marks of the encodings a text file that is not UTF-8 most often is (Windows PowerShell 5's `>` and
# Out-File write UTF-16 with one): UTF-32's little-endian mark starts with UTF-16's, so it is tried first.
WIDE_MARKS = ((b"\xff\xfe\x00\x00", "UTF-32"), (b"\x00\x00\xfe\xff", "UTF-32"), (b"\xff\xfe", "UTF-16"),
              (b"\xfe\xff", "UTF-16"))


def wide_encoding(data: bytes) -> tuple[str, str] | None:
    """(the encoding's name, iconv's name for it) when ``data`` is UTF-16 or UTF-32 text: it starts with that
    byte-order mark, or, unmarked, with two ASCII characters each beside three NULs (UTF-32) or a NUL (``-\\0 \\0``,
    UTF-16LE; ``\\0-\\0 ``, UTF-16BE); None otherwise (UTF-8 text never holds a NUL beside each of its first characters)."""
    for mark, name in WIDE_MARKS:
        if data.startswith(mark):
            return name, name
    wide = data[:8]  # unmarked UTF-32: two ASCII characters, each with three NULs on the side of its byte order
    if len(wide) == 8 and all(0 < b < 0x80 for b in wide[0::4]) and not any(wide[1:4] + wide[5:8]):
        return "UTF-32", "UTF-32LE"
    if len(wide) == 8 and all(0 < b < 0x80 for b in wide[3::4]) and not any(wide[0:3] + wide[4:7]):
        return "UTF-32", "UTF-32BE"
    head = data[:4]
    if len(head) == 4 and all(0 < b < 0x80 for b in head[0::2]) and not any(head[1::2]):
        return "UTF-16", "UTF-16LE"
    if len(head) == 4 and all(0 < b < 0x80 for b in head[1::2]) and not any(head[0::2]):
        return "UTF-16", "UTF-16BE"
    return None


def save_wide_as_utf8(iconv_name: str) -> str:
    """The fix of a UTF-16 or UTF-32 text file (``wide_encoding``)."""
    return f"save it as UTF-8 without a byte-order mark (e.g. iconv -f {iconv_name} -t UTF-8)"


def changelog_encoding_problem(data: bytes) -> tuple[int, str, str] | None:
    """(its line, what is wrong, how to fix) when a changelog's ``data`` is no UTF-8 text, as the readers that
    take its bytes whole say it: UTF-16 or UTF-32 (``wide_refusal``) asked first, at line 1, since UTF-16 of ASCII
    text without a mark decodes as UTF-8 (s48f); else the line of the first byte that does not decode. None for
    UTF-8 text."""
    if wide := wide_refusal(data):
        return 1, *wide
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return data[:exc.start].count(b"\n") + 1, not_utf8(exc.start), save_as_utf8("changelog")
    return None


def wide_refusal(data: bytes) -> tuple[str, str] | None:
    """The one problem of ``data`` saved as UTF-16 or UTF-32 (``wide_encoding``), (what is wrong, how to fix),
    as every reader of the changelog says it at its line 1; None for any other bytes."""
    wide = wide_encoding(data)
    return (f"file is {wide[0]} text, not UTF-8", save_wide_as_utf8(wide[1])) if wide else None
