"""A change beside its threshold reads apart from it: a regression of -5.04 % against ±5 % and an
unchanged row at -4.96 % must not both read "-5.0% (±5%)"."""

from __future__ import annotations

from sweepgate.results import compare as C
from sweepgate.results import record as R
from sweepgate.results import render

POINT = ("k", "b300", "fixed-seq-len", 1024, 1024, 4, None, None, None, None, None)


def _change_cell(change: float, verdict: str) -> str:
    v = C.Verdict(POINT, R.OUTPUT_TPUT_PER_GPU, 100 * (1 + change), 5, 100.0, 98.0, 102.0, change, verdict, 0.05)
    return render.cells(v)[4]


def test_a_change_just_past_its_threshold_does_not_read_as_the_threshold():
    regressed, unchanged = _change_cell(-0.0504, C.REGRESSED), _change_cell(-0.0496, C.UNCHANGED)
    assert regressed == "-5.04% (\u00b15%)" and unchanged == "-4.96% (\u00b15%)"
    assert _change_cell(-0.103, C.REGRESSED) == "-10.3% (\u00b15%)"  # away from it: 0.1 % as before
    assert _change_cell(-0.05, C.UNCHANGED) == "-5.0% (\u00b15%)"  # at it exactly: not beyond it


def test_an_interval_bound_past_a_trillion_is_written_as_an_exponent():
    """New user 16: two baseline runs 37 % apart gave an interval of [4.24e-25, 776,036,733,940,167,348,
    680,665,333,760]: the low bound in significant digits, the high one in all its 33, which a narrow
    terminal broke in the middle of the number."""
    v = C.Verdict(POINT, R.OUTPUT_TPUT_PER_GPU, 671.0, 2, 580.4, 4.24e-25, 7.76e32, 0.156, C.UNCHANGED, 0.05)
    assert render.cells(v)[2:4] == ("6.71e+02", "5.80e+02 [4.24e-25, 7.76e+32] (n=2)")  # one form a row (polish 23)
    v = C.Verdict(POINT, "e2el_p50_ms", 9.5e6, 5, 9.4e6, 9.0e6, 9.9e6, 0.01, C.UNCHANGED, 0.05)
    assert render.cells(v)[3] == "9,400,000 [9,000,000, 9,900,000] (n=5)"  # a long run's ms keep their commas


def test_figures_under_ten_keep_their_three_digits():
    """Review: a TPOT row read "9.13 | 9 [8.46, 9.57]": a median of exactly 9 lost its decimals, as if
    rounded coarser than the head beside it."""
    v = C.Verdict(POINT, "tpot_p50_ms", 9.13, 5, 9.0, 8.46, 9.57,
                  0.0144, C.UNCHANGED, 0.05)
    assert render.cells(v)[2:4] == ("9.13", "9.00 [8.46, 9.57] (n=5)")
    assert render.fmt_values([0.5, 0.0]) == ["0.500", "0.00"] and render.fmt_values([12.0]) == ["12.0"]
