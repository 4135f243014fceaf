"""s38q: a GPU power column whose name has no separator between its words (`powerdraw`, `PowerDraw(W)`,
camelCase as some exporters write it) was found by no word "power" (the words were the runs of letters), so
samples holding one were refused with "no column is named power". A name's words are now its runs of letters
cut at camelCase's capitals, and a run holding "power" unseparated names power (as any name holding "power"
did before s38j), with the words that qualify it (limit, cap, max, avg, ...) found inside it too."""

from __future__ import annotations

import pytest

from sweepgate.results.formats import gpu_metrics

RANKS = {  # a column's name -> its rank as the draw (None: no draw)
    "powerdraw": 1,
    "PowerDraw(W)": 1,
    "GPUPower": 1,
    "gpu_powerdraw_w": 1,
    "AvgPowerDraw(W)": 0,
    "avgpower": 0,
    "currentpower": 2,
    "InstantPowerDraw": 2,
    "PowerLimit(W)": None,
    "powerlimit": None,
    "maxpower": None,
    "MaxPower(W)": None,
    "powercap": None,
    "PowerManagement": None,
    # the separated names keep their ranks
    "power.draw [W]": 1, "power.draw.average [W]": 0, "socket_power": 1, "power.limit [W]": None,
    "Max Graphics Package Power (W)": None, "utilization.gpu [%]": None,
}


@pytest.mark.parametrize("name", RANKS)
def test_a_power_column_s_name_ranks_with_or_without_separators(name):
    assert gpu_metrics.draw_rank(name) == RANKS[name]
    assert gpu_metrics.draw_rank(name.lower()) == RANKS[name]  # as ingest reads a header, lower-cased


@pytest.mark.parametrize("header", ["timestamp,index,PowerLimit(W),PowerDraw(W)", "timestamp,index,maxpower,powerdraw"])
def test_samples_under_an_unseparated_header_are_read_from_the_draw(header):
    rows = [f"2026-01-01T12:00:{s:02d}Z,{gpu},1000,{300 + gpu}" for s in (0, 10) for gpu in (0, 1)]
    read = gpu_metrics.samples("\n".join([header, *rows]) + "\n", "g.csv")
    assert read.column == header.split(",")[3]
    assert {gpu: [w for _, w in v] for gpu, v in read.by_gpu.items()} == {"0": [300.0, 300.0], "1": [301.0, 301.0]}
