"""s38v: a GPU power column in milliwatts (`power_mw`, `power.draw [mW]`, `PowerDraw(mW)`) was read as watts,
1000x too high, and so was its energy. The draw column's unit is read from its name (gpu_metrics.WATTS_PER, in
brackets or parentheses at the end, or the last word after a separator; none stated is watts), the samples are
stored in watts, and a bracketed unit that is no unit of power is refused in one line."""

from __future__ import annotations

import pytest

from sweepgate.core.errors import SweepgateError
from sweepgate.results.formats import gpu_metrics

WATTS = {  # a draw column's name -> what its sample of 350000 is in watts
    "power_mw": 350.0,
    "power.draw [mW]": 350.0,
    "PowerDraw(mW)": 350.0,
    "gpu_power_MW": 350.0,  # capitals as written: MW would be megawatts, no GPU's draw
    "power.draw [W]": 350000.0,
    "gpu_powerdraw_w": 350000.0,
    "Average Graphics Package Power (W)": 350000.0,
    "socket_power": 350000.0,  # amd-smi's: no unit stated, watts
    "power_usage": 350000.0,
    "power_kw": 350000000.0,
}


def _csv(header: str) -> str:
    rows = [f"2026-01-01T12:00:{s:02d}Z,{gpu},350000" for s in (0, 10) for gpu in (0, 1)]
    return "\n".join([f"timestamp,index,{header}", *rows]) + "\n"


@pytest.mark.parametrize("header", WATTS)
def test_samples_are_stored_in_watts_whatever_the_column_s_unit(header):
    read = gpu_metrics.samples(_csv(header), "g.csv")
    assert read.column == header
    assert {w for points in read.by_gpu.values() for _, w in points} == {WATTS[header]}


@pytest.mark.parametrize("header", ["power.draw [%]", "PowerDraw(dBm)"])
def test_a_draw_column_in_an_unknown_unit_is_refused_in_one_line(header):
    with pytest.raises(SweepgateError) as refused:
        gpu_metrics.samples(_csv(header), "g.csv")
    text = str(refused.value)
    assert "\n" not in text.strip() and text.startswith("g.csv:1") and "unknown unit" in text
