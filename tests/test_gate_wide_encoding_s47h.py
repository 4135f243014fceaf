"""A changelog saved as UTF-16 or UTF-32 (Windows PowerShell 5's `>` and `Out-File` write UTF-16 with a
byte-order mark) is one problem at line 1 that names the encoding, not a flood of per-line ones.

s47h's walk: an adopter's UTF-16 changelog got 90 lines and "12829 problems": every history line "edited"
into NUL-laced text, "NUL byte" and "control character U+0014" on each line, "appended text does not start
a new entry"; none said what was wrong (the file's encoding)."""

from __future__ import annotations

import pytest

from conftest import CHANGELOG, appended_entry  # noqa: F401
from test_gate import entry, gate, repo  # noqa: F401  (fixtures)


@pytest.mark.parametrize("codec, name", [("utf-16", "UTF-16"), ("utf-16-be", "UTF-16"), ("utf-32", "UTF-32")])
def test_a_utf16_or_utf32_changelog_is_one_problem_naming_its_encoding(gate, codec, name):
    text = CHANGELOG + "\n" + entry()
    data = text.encode(codec)
    if codec == "utf-16-be":
        data = b"\xfe\xff" + data  # Python writes no byte-order mark for an explicit byte order
    result = gate(data)
    assert result.rc == 1
    problems = result.err.splitlines()
    assert problems == [f"perf-changelog.yaml:1: file is {name} text, not UTF-8; save it as UTF-8 without a "
                        f"byte-order mark (e.g. iconv -f {name} -t UTF-8)"], result.err
    assert "perf-changelog.yaml: 1 problem; fix it and rerun" in result.out


def test_a_utf16_changelog_without_a_byte_order_mark_is_named_too(gate):
    """UTF-16 without a mark: NUL every other byte of an ASCII start ('-\\0 \\0c\\0')."""
    result = gate((CHANGELOG + "\n" + entry()).encode("utf-16-le"))
    assert result.rc == 1
    assert result.err.splitlines() == ["perf-changelog.yaml:1: file is UTF-16 text, not UTF-8; save it as UTF-8 "
                                       "without a byte-order mark (e.g. iconv -f UTF-16LE -t UTF-8)"], result.err


def test_a_utf8_changelog_with_a_nul_byte_is_still_told_of_its_line(gate):
    """Only the file's start decides it is UTF-16: a stray NUL in an appended entry stays a NUL at its line."""
    result = gate(CHANGELOG + "\n" + entry(description='"a\0b"'))
    assert result.rc == 1
    assert "NUL byte" in result.err and "UTF-16" not in result.err, result.err


WIDE_LINE = ("perf-changelog.yaml:1: file is UTF-16 text, not UTF-8; save it as UTF-8 without a byte-order mark "
             "(e.g. iconv -f UTF-16 -t UTF-8)")


def test_the_matrix_step_and_changelog_add_name_the_encoding_too(repo, capsys):
    """`sweepgate matrix` said "not UTF-8 text (byte 0); save the changelog as UTF-8", `changelog add` the same:
    true, but not what to do about a file PowerShell wrote; they now say what the gate says."""
    from sweepgate import cli

    data = (CHANGELOG + "\n" + entry()).encode("utf-16")
    head = repo.commit_changelog(data)
    assert cli.main(["matrix", "--base-ref", repo.base, "--head-ref", head]) == 1
    assert capsys.readouterr().err.splitlines() == [WIDE_LINE]
    assert cli.main(["changelog", "add", "--key", "dsr1-fp4-b300-vllm", "--description", "x"]) == 1
    assert capsys.readouterr().err.splitlines() == [WIDE_LINE]
    assert (repo.path / "perf-changelog.yaml").read_bytes() == data
