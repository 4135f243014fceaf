"""s50c: a YAML syntax error that a U+2028, U+2029 or U+0085 causes (a comment pasted from a web page with one inside
it: PyYAML ends the comment there, as the reference's safe_load does, and reads the rest of that line as YAML) was said
as 'mapping values are not allowed' or 'could not find expected ':'' at the text after it, with the generic fix: no
word of the character, which no editor shows. It is now named, at its own line and column, with the fix. And the
indentation hint of a syntax error below such a character (harmless there) was worked out for the line PyYAML counts,
one further down than the file's: it was lost (or said of another line)."""

from __future__ import annotations

import re

import pytest
from conftest import CHANGELOG, FLEET_NVIDIA, appended_entry

from sweepgate import cli
from sweepgate.core.errors import SweepgateError
from sweepgate.core.load import parse_yaml

NVIDIA = "configs/nvidia-master.yaml"
NAMES = {"\u2028": "U+2028", "\u2029": "U+2029", "\x85": "U+0085"}


def _said(text: str):
    with pytest.raises(SweepgateError) as err:
        parse_yaml(text, "f.yaml")
    (diag,) = err.value.diagnostics
    return diag


@pytest.mark.parametrize("separator", NAMES)
@pytest.mark.parametrize("comment", ["# note{} more words", "# see{}https://example.com/a"])
def test_a_syntax_error_a_line_separator_causes_names_it_where_it_stands(separator, comment):
    diag = _said(f"x:\n  {comment.format(separator)}\n  y: 1\nz: 1\n")
    assert (diag.line, diag.col) == (2, comment.index("{}") + 3), diag
    assert NAMES[separator] in diag.message and "line break" in diag.message, diag
    assert "replace it" in diag.hint, diag


def test_validate_names_the_line_separator_in_a_master_config(repo_outside_actions, capsys):
    repo = repo_outside_actions
    text = FLEET_NVIDIA.replace("  image: vllm/vllm-openai:v0.11.0\n",
                                "  # pasted\u2028 from a web page\n  image: vllm/vllm-openai:v0.11.0\n", 1)
    repo.commit({NVIDIA: text, "perf-changelog.yaml": CHANGELOG + appended_entry("5")})
    rc = cli.main(["validate", "--base-ref", repo.base, "--head-ref", repo.head(), "--pr-number", "5"])
    out, err = capsys.readouterr()
    line = text.split("\n").index("  # pasted\u2028 from a web page") + 1
    assert rc == 1, out + err
    assert re.search(rf"^{NVIDIA}:{line}:11: invalid YAML: U\+2028 ", err, re.M), err


def test_an_indentation_hint_below_a_harmless_line_separator_is_of_its_line():
    diag = _said("x:\n  # note\u2028# more\n  y: 1\n    b: 2\nz: 1\n")
    assert (diag.line, diag.col) == (4, 6), diag
    assert "this line is indented 4 spaces, more than the key above it (2)" in diag.message, diag


def test_a_syntax_error_the_separator_does_not_cause_keeps_its_words():
    """Guard: a harmless separator above an error of its own (an unclosed flow list) is not blamed."""
    diag = _said("x:\n  # note\u2028# more\n  y: [1\n")
    assert "U+2028" not in diag.message, diag
