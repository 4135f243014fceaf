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
