"""Small things a maintainer reading results tripped over (polish 23): the evals table naming a point
on every row, an interval cell mixing number formats, the charts' folder in a comment file, "PR" over a
run that is no PR's, and bold and dim text under NO_COLOR."""

from __future__ import annotations

from sweepgate.results import compare as C
from sweepgate.results import evals as E
from sweepgate.results import render

POINT = ("dsr1-fp4-b300-vllm", "b300", "fixed-seq-len", 1024, 1024, 4, None, None, None, None, None)
OTHER = POINT[:5] + (8,) + POINT[6:]


def _eval(point: tuple, task: str, verdict: str = C.UNCHANGED) -> E.EvalVerdict:
    figures = {"value": 0.5, "stderr": 0.01, "samples": 1319}
    return E.EvalVerdict(point, task, "acc", "none", figures, {**figures, "run-id": "1001"}, 0.0, 0.03, verdict)


def _md_eval_rows(md: str) -> list[list[str]]:
    table = md[md.index("#### Evals"):].split("\n\n")[1]
    return [[c.strip() for c in line.strip("|").split(" | ")] for line in table.splitlines()[2:]]


def test_the_markdown_evals_table_names_a_point_in_its_first_row_only():
    """CONTRACTS §8: in every table of the report a point is named in its first row only; the evals
    table named it on each of its scores' rows (a 60-character label repeated per score)."""
    evals = [_eval(POINT, "gsm8k"), _eval(POINT, "mmlu"), _eval(OTHER, "gsm8k"), _eval(POINT, "arc")]
    md = render.markdown(C.Comparison("2002", [], {}, {}, evals=evals))
    rows = _md_eval_rows(md)
    label, other = render.point_label(POINT), render.point_label(OTHER)
    assert [r[0] for r in rows] == [label, "", other, label], rows  # named again after another point's rows
    assert [r[1] for r in rows] == ["gsm8k acc", "mmlu acc", "gsm8k acc", "arc acc"], rows
