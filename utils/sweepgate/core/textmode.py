"""Bytes already read, as text the way Python's text mode reads a file (``Path.read_text``): decoded as
UTF-8, every line end (`\\r\\n`, a lone `\\r`) as `\\n` (universal newlines). One spelling for the readers that
hold a file's bytes and want its text too (``results.jsonio.read_text``, ``rehearsal.linetrap``)."""

from __future__ import annotations


def decoded(data: bytes, errors: str = "strict") -> str:
    """``data`` as ``Path.read_text(encoding="utf-8", errors=errors)`` gives it: under "strict", a byte that
    is not UTF-8 raises UnicodeDecodeError ("surrogateescape" keeps it, "replace" makes it U+FFFD)."""
    return data.decode("utf-8", errors).replace("\r\n", "\n").replace("\r", "\n")
