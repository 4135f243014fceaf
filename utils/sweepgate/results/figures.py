"""How a measured figure is written wherever a user reads it: `results show`'s table, compare's
table, its Markdown report and the PR comment. One figure reads the same in each (show's 4.4 tok/s/user
was compare's 4.36); a row of compare adds digits only to tell two of its figures apart."""

from __future__ import annotations

import math

from sweepgate.results import record as R

HUGE = 1e12  # from here on a figure (a wide interval's bound) is written 7.76e+32, as a tiny one is 4.24e-25
TINY = 1e-4  # under this a figure is written with its exponent (4.30e-05), as Python's "g" writes it


def _exponent(value: float | None) -> bool:
    """Whether ``fmt_value`` writes ``value`` with an exponent: from HUGE on, or nonzero under TINY."""
    return value is not None and (abs(value) >= HUGE or 0 < abs(value) < TINY)


def fmt_value(value: float | None, metric: str | None = None, digits: int = 3, exponent: bool = False) -> str:
    """A figure as the tables show it: a success rate as a percentage, ``digits`` significant
    digits under 10 (more where ``fmt_values`` needs them to tell two figures apart), and from
    ``HUGE`` on as an exponent, not in 13 digits or more with their commas; with ``exponent``, as
    one whatever its size (a row of which some figure is written so: ``fmt_values``)."""
    if value is None:
        return "n/a"
    if metric == R.SUCCESS_RATE:
        return _percent(value, max(digits - 2, 1))
    if exponent:
        return f"{value:.{digits - 1}e}"
    if digits > 3:  # plain, as at 3 digits: a row must not read "12,345.1" beside "1.23457e+06"
        if abs(value) < 1 or not math.isfinite(value):
            return f"{value:#.{digits}g}"  # 0.5000 beside 0.5001, never 0.5; under TINY: ``exponent``
        decimals = max(digits - len(str(int(abs(value)))), 0)
        return f"{value:,.{decimals}f}"  # commas from 1,000 as rounded (999.96 is "1,000.0", never "1000.0")
    if abs(value) >= HUGE:
        return f"{value:.3g}"
    if abs(value) >= 999.95:  # 1,000 as written at one decimal too: 999.96 read "1000.0" beside 1000.04's "1,000"
        return f"{value:,.0f}"
    return f"{value:.1f}" if abs(value) >= 10 else f"{value:#.3g}"  # 9.00 beside 9.13, never 9


def _percent(rate: float, decimals: int) -> str:
    """A success rate in percent, with more decimals where fewer would round a failed request away: 5119
    of 5120 is "99.98%", never "100.0%" (nor one success in 5,120 "0.0%"), in every table alike."""
    return f"{rate * 100:.{_decimals(rate, decimals)}f}%"


def _decimals(rate: float | None, decimals: int) -> int:
    """``decimals``, or as many more as a rate strictly between 0 and 1 needs not to read 0 % or 100 %."""
    while rate is not None and 0 < rate < 1 and decimals < 9 and round(rate * 100, decimals) in (0, 100):
        decimals += 1
    return decimals


def fmt_values(values: list[float | None], metric: str | None = None) -> list[str]:
    """The figures of one row alike in precision and in form, with enough digits that two that differ
    do not read the same (a success rate of 5119/5120 is not "100.0%" beside main's 100 %). Where one of
    them is written with an exponent (a bound of a wide interval, ``_exponent``), all are: a cell read
    "[4.30e-05, 51,604,973,442]", two forms side by side."""
    exponent = metric != R.SUCCESS_RATE and any(map(_exponent, values))
    first = 2 + max((_decimals(v, 1) for v in values), default=1) if metric == R.SUCCESS_RATE else 3
    for digits in range(first, max(first + 1, 10)):  # a row's rates at one precision: 99.98% beside 100.00%
        texts = [fmt_value(v, metric, digits, exponent) for v in values]
        known = {_read(t): v for t, v in zip(texts, values) if v is not None and v == v}  # nan: no number
        if all(known[_read(t)] == v for t, v in zip(texts, values) if v is not None and v == v):
            return texts
    return texts


def _read(text: str) -> float | str:
    """The number a figure reads as: "1,000.0" and "1,000" are one number (review24), two texts."""
    try:
        number = float(text.replace(",", "").rstrip("%"))
    except ValueError:
        return text
    return number if number == number else text  # nan is no key


def fmt_change(change: float | None, threshold: float | None = None) -> str:
    """A relative change to 0.1 %; one smaller than that still shows its sign and size (a
    regression of 0.02 % is not "+0.0%"); float dust under 1e-7 reads as none, unless it is beyond
    its ``threshold`` (of 0: a figure a hair under identical baseline values is regressed, and read
    "+0.0% (±0%) regressed"). Beside its ``threshold``, with the digits that tell it from the
    threshold (review: a -5.04 % regression and a -4.96 % unchanged row both read "-5.0% (±5%)")."""
    if change is None:
        return "n/a"
    if abs(change) >= 0.0005:
        digits = 1
        while (threshold is not None and digits < 4 and abs(change) != threshold
               and round(abs(change) * 100, digits) == round(threshold * 100, digits)):
            digits += 1
        return f"{change:+.{digits}%}"
    if abs(change) < 1e-7 and (threshold is None or abs(change) <= threshold):
        return "+0.0%"
    percent = change * 100
    return f"{percent:+.{-math.floor(math.log10(abs(percent)))}f}%"  # one significant digit, never 1e-05
