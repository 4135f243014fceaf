"""A new user's mistakes on the results path, installed from a wheel into another repository (nu30)."""

from __future__ import annotations

import pytest

from helpers import run_cli


@pytest.mark.parametrize("text,what", [
    ("null\n", "a JSON null"), ("1\n", "a JSON number"), ('"x"\n', "a JSON string"), ("true\n", "a JSON boolean"),
    ("  42.5\n", "a JSON number"),
])
def test_a_lone_json_value_is_not_called_not_json(tmp_path, capsys, text, what):
    """`null` (or a lone number, string or boolean: a client killed before it wrote its dict, a
    variable echoed into the file) was refused as "format: not JSON or CSV": it is JSON, only not
    an object, and the line said the opposite of what the user could see in the file."""
    (tmp_path / "out.json").write_text(text, encoding="utf-8")
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}",
                           str(tmp_path / "out.json"))
    assert rc == 1, err
    (line,) = err.strip().splitlines()
    assert "not JSON" not in line, line
    assert line.startswith(f"{tmp_path / 'out.json'}:1:{len(text) - len(text.lstrip()) + 1}: format: {what}, "
                           "not a benchmark client output (expected "), line
    assert line.endswith("; ingest the job's $RESULT_FILENAME.json, or remove the file"), line
