"""A master config holding U+2028, U+2029 or U+0085 (a comment pasted from a web page), which PyYAML reads and counts
as a line break where git, GitHub's annotations and editors see none: every problem after it in its block stood a
line too far down (and at the column after the separator). Positions are now counted by the file's own line feeds."""

from __future__ import annotations

import re

import pytest

from conftest import CHANGELOG, FLEET_NVIDIA, appended_entry

from sweepgate import cli  # noqa: E402
from sweepgate.core.load import YamlDoc, at_value
from sweepgate.core.yamlsafe import duplicate_keys

NVIDIA = "configs/nvidia-master.yaml"


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\x85"])
def test_a_value_after_a_line_separator_stands_at_its_line(separator):
    text = f"a:\n  # pasted{separator}# note\n  b: {{ c: 1 }}\n  d:\n  - x\n"
    doc = YamlDoc("f.yaml", text, None)
    assert doc.locate(at_value(("a", "b", "c"))) == (3, 11)
    assert doc.locate(at_value(("a", "b"))) == (3, 6)
    assert doc.locate(("a", "d", 0)) == (5, 5)


def test_a_repeated_key_after_a_line_separator_stands_at_its_line():
    text = "a:\n  # pasted\u2028# note\n  b: 1\n  b: 2\n"
    (diag,) = duplicate_keys("f.yaml", text, lambda n: n)
    assert (diag.line, diag.col) == (4, 3) and "(first at line 3)" in diag.message, diag


def test_validate_says_a_schema_slip_after_a_line_separator_at_its_line(repo_outside_actions, capsys):
    repo = repo_outside_actions
    text = FLEET_NVIDIA.replace("  multinode: false\n", "  multinode: 3\n", 1).replace(
        "  image: vllm/vllm-openai:v0.11.0\n", "  # pasted\u2028# note\n  image: vllm/vllm-openai:v0.11.0\n", 1)
    repo.commit({NVIDIA: text, "perf-changelog.yaml": CHANGELOG + appended_entry("5")})
    rc = cli.main(["validate", "--base-ref", repo.base, "--head-ref", repo.head(), "--pr-number", "5"])
    out, err = capsys.readouterr()
    line = text.split("\n").index("  multinode: 3") + 1
    assert rc == 1, out + err
    assert re.search(rf"^{NVIDIA}:{line}:14: dsr1-fp4-b300-vllm\.multinode: 3 is not of type 'boolean'", err,
                     re.M), err


@pytest.mark.parametrize("value, said", [("[1", "a flow sequence starting here is never closed"),
                                         (".nan", ".nan is not a finite number")])
def test_a_yaml_error_after_a_line_separator_stands_at_its_line(value, said):
    from sweepgate.core.errors import SweepgateError
    from sweepgate.core.load import parse_yaml

    with pytest.raises(SweepgateError) as err:
        parse_yaml(f"a:\n  # pasted\u2028# note\n  b: {value}\n", "f.yaml")
    (diag,) = err.value.diagnostics
    assert (diag.line, diag.col) == (3, 6) and said in diag.message, diag
