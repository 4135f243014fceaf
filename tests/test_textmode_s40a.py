"""s40a: bytes already read, as text the way ``Path.read_text`` reads the file (``core.textmode.decoded``), spelt
once for ``results.jsonio.read_text`` and ``rehearsal.linetrap._Source`` (each had its own newline rewrite).
Checked against Python's own text mode on real files, and through ``jsonio.read_text``."""

from __future__ import annotations

import pytest

from sweepgate.core.errors import SweepgateError
from sweepgate.core.textmode import decoded
from sweepgate.results import jsonio

SAMPLES = [b"", b"a\r\nb", b"a\rb\r", b"a\r\r\nb\n\r", b"\r\n\r\n", b"\xef\xbb\xbfx\r\n",  # a BOM stays, as in utf-8
           b"bad \xff byte\r\n", b"cut \xe2\x82\rend", b"\xed\xb2\x80 a surrogate's bytes\r", b"nel \xc2\x85 kept\r"]


@pytest.mark.parametrize("data", SAMPLES)
@pytest.mark.parametrize("errors", ["surrogateescape", "replace"])
def test_decoded_is_what_text_mode_reads(tmp_path, data, errors):
    path = tmp_path / "f"
    path.write_bytes(data)
    assert decoded(data, errors) == path.read_text(encoding="utf-8", errors=errors)


@pytest.mark.parametrize("data", SAMPLES)
def test_strict_refuses_the_first_byte_text_mode_refuses(tmp_path, data):
    path = tmp_path / "f"
    path.write_bytes(data)
    try:
        want = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        with pytest.raises(UnicodeDecodeError) as got:
            decoded(data)
        assert got.value.start == exc.start
    else:
        assert decoded(data) == want


def test_jsonio_read_text_gives_each_line_end_as_newline(tmp_path):
    path = tmp_path / "r.json"
    path.write_bytes(b'{\r\n  "a": 1,\r  "b": 2\r\n}\r')
    assert jsonio.read_text(path, "hint") == '{\n  "a": 1,\n  "b": 2\n}\n'
    path.write_bytes(b'{"a": "\xff"}\r\n')
    with pytest.raises(SweepgateError) as exc:
        jsonio.read_text(path, "save it as UTF-8")
    assert "not UTF-8 text (byte 7)" in str(exc.value)
