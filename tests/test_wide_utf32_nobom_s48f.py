"""s48f review: a changelog saved as UTF-32 without a byte-order mark (Python's 'utf-32-le', some converters) was
not named (s47h read an unmarked file as UTF-16 only), so the gate told it as every history line edited, NULs
and control characters; it is the one line at line 1 that names UTF-32 and iconv's name for its byte order."""

from __future__ import annotations

import pytest

from conftest import CHANGELOG  # noqa: F401
from test_gate import entry, gate, repo  # noqa: F401  (fixtures)

from sweepgate.core.textmode import wide_encoding


@pytest.mark.parametrize("codec, iconv", [("utf-32-le", "UTF-32LE"), ("utf-32-be", "UTF-32BE")])
def test_utf32_without_a_mark_is_one_problem_naming_it(gate, codec, iconv):  # noqa: F811
    result = gate((CHANGELOG + "\n" + entry()).encode(codec))
    assert result.rc == 1
    assert result.err.splitlines() == [f"perf-changelog.yaml:1: file is UTF-32 text, not UTF-8; save it as UTF-8 "
                                       f"without a byte-order mark (e.g. iconv -f {iconv} -t UTF-8)"], result.err


def test_utf16_and_utf8_are_read_as_before():
    assert wide_encoding("- a".encode("utf-16-le")) == ("UTF-16", "UTF-16LE")
    assert wide_encoding("- a".encode("utf-16-be")) == ("UTF-16", "UTF-16BE")
    assert wide_encoding(b"- config-keys:\n") is None
