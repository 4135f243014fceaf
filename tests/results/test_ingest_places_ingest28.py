"""ingest28: a refusal or warning about a value inside an AIPerf export is placed at its key.

AIPerf 0.8 writes each metric twice, the run's at the top and the warm-up's again under
``warmup_metrics``; a key named twice in the text was placed where the document starts
(``:1:1:``), so a NaN ``time_to_first_token.p1`` or a negative ``.p99`` pointed nowhere.
"""

from __future__ import annotations

import re

import pytest

from .helpers import SAMPLES, run_cli

SAMPLE = SAMPLES / "aiperf" / "aiperf_kimik2.7_fp4_mi355x_tp4_conc1.json"


def _edited(tmp_path, stat: str, value: str) -> tuple[str, str]:
    """The real export with the run's own ``time_to_first_token.<stat>`` set to ``value``; returns the
    file and the ``line:col`` of that key."""
    text = SAMPLE.read_text(encoding="utf-8")
    top = text.index('\n  "time_to_first_token": {')  # two-space indent: a key of the document itself
    assert text.count('"time_to_first_token":') == 2 and '"warmup_metrics"' in text  # the case at hand
    key = text.index(f'"{stat}":', top)
    end = text.index(",", key)
    edited = text[:key] + f'"{stat}": {value}' + text[end:]
    path = tmp_path / "aiperf_conc1.json"
    path.write_text(edited, encoding="utf-8")
    line = text.count("\n", 0, key) + 1
    return str(path), f"{line}:{key - text.rfind(chr(10), 0, key)}"


def test_a_broken_further_statistic_is_warned_of_at_its_key(tmp_path, capsys):
    path, place = _edited(tmp_path, "p1", "NaN")
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", path)
    assert rc == 0 and "ingested 1 results (1 new)" in out, (out, err)
    assert err.startswith(f"{path}:{place}: warning: time_to_first_token.p1: nan is no latency"), err
    assert place != "1:1"


def test_a_negative_percentile_is_refused_at_its_key(tmp_path, capsys):
    path, place = _edited(tmp_path, "p99", "-5")
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", path)
    assert rc == 1 and "nothing stored" in out, (out, err)
    assert err.startswith(f"{path}:{place}: time_to_first_token.p99: negative (-5)"), err


@pytest.mark.parametrize("text, path, want", [
    ('{"a": {"x": 1},\n "w": {"a": {"x": 2}}}', "a.x", (1, 8)),  # the document's own, the first
    ('{"w": {"a": {"x": 2}},\n "a": {"x": 1}}', "a.x", (2, 8)),  # the document's own, the last
    ('{"w": {"a": 1}, "v": {"a": 2}}', "a", (1, 1)),  # not the document's own, and twice: unknown
    ('{"s": "\\"a\\": {", "a": {"x": 1}, "w": {"a": 0}}', "a.x", (1, 25)),  # a key's name in a string
])
def test_a_key_named_again_in_a_nested_object_is_the_documents_own(text, path, want):
    from sweepgate.core.jsontext import key_place

    assert key_place(text, path) == want
    line, col = want
    if want != (1, 1):
        assert re.match(r'"\w+":', text.split("\n")[line - 1][col - 1:])
