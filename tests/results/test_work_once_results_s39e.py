"""s39e: work that was done twice in results/ is done once, with the same answers. Each test counts the work
(calls of a real function, wrapped to count and still run) on real comparisons and stores.

4. A table one block a point (``render._by_point``) found each column's longest word (``_longest_units``) for its
   widths and again to tell whether they align: found once now (``_widths`` gives both).
5. A stored figure read as a float was spelled three ways (``compare.combined``, ``compare._figure``,
   ``charts._xy``): one helper, ``derive.float_figure``, which each now calls.
"""

from __future__ import annotations

import io

import synth
from sweepgate.core import report
from sweepgate.results import compare as C
from sweepgate.results import record as R
from sweepgate.results import charts, derive, render


def _counting(monkeypatch, module, name: str) -> list:
    """Wrap ``module.name`` so that each call is counted (its arguments kept), and still made."""
    calls, real = [], getattr(module, name)

    def wrapper(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, wrapper)
    return calls


def test_a_table_a_block_a_point_finds_its_longest_words_once(monkeypatch):
    comp = C.compare_records(synth.pr_run({(synth.KEYS[0], 16): {R.OUTPUT_TPUT_PER_GPU: 0.8}}), synth.history())
    monkeypatch.setenv("COLUMNS", "80")  # one block a point (test_results_leftovers_s37c)
    monkeypatch.setenv("NO_COLOR", "1")
    out = io.StringIO()
    assert report.console(out).width == 80
    longest = _counting(monkeypatch, render, "_longest_units")
    render.table(comp, out)
    assert synth.KEYS[0] in out.getvalue()
    assert len(longest) == 1, len(longest)


def test_compare_and_charts_read_a_figure_as_a_float_through_one_helper(monkeypatch):
    metrics = {charts.X: 40, charts.Y: 900}  # ints, as a record may store them
    assert derive.float_figure(metrics, charts.Y) == 900.0 and type(derive.float_figure(metrics, charts.Y)) is float
    assert derive.float_figure(metrics, "absent") is None
    read = _counting(monkeypatch, derive, "float_figure")
    assert type(C._figure({R.METRICS: metrics}, charts.Y)) is float and len(read) == 1
    assert charts._xy(metrics) == (40.0, 900.0) and all(type(v) is float for v in charts._xy(metrics))
    assert len(read) == 5
    twice = [{R.METRICS: {R.OUTPUT_TPUT_PER_GPU: v}} for v in (700, 900)]
    assert C.combined(twice)[R.METRICS] == {R.OUTPUT_TPUT_PER_GPU: 800.0} and len(read) == 7
