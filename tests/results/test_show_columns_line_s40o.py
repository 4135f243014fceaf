"""New-user walk s40: under `results show`'s table, whose columns are headed ``tok/s/GPU``, ``tok/s/user`` and
``TTFT p50 ms``, a line read ``Units: output_tput_per_gpu tok/s/GPU, interactivity tok/s/user; _ms metrics in
milliseconds.``: compare's line, naming metrics the table never shows and repeating the units its headers give.
The line now says what the unit-headed columns hold, by their headers."""

from __future__ import annotations

import io
import re

import synth
from sweepgate.results import record as R
from sweepgate.results import show

KEY = synth.KEYS[0]
BOTH = "Columns: tok/s/GPU is output throughput per GPU; tok/s/user is interactivity (1000 / TPOT p50 ms)."


def printed(records: list[dict]) -> tuple[list[str], str]:
    """`results show`'s table (piped) of ``records``: its header cells, and the text under the table."""
    out = io.StringIO()
    show.table(records, out, "all points")
    lines = out.getvalue().splitlines()
    (header,) = [line for line in lines if "┃" in line]
    end = max(i for i, line in enumerate(lines) if line.startswith("└"))
    return [cell.strip() for cell in header.strip("┃").split("┃")], " ".join(" ".join(lines[end + 1:]).split())


def test_the_line_under_the_table_names_its_columns_by_their_headers():
    headers, under = printed(synth.history(runs=1, keys=(KEY,), concs=(8, 16)))
    assert {"tok/s/GPU", "tok/s/user", "TPOT p50 ms"} <= set(headers), headers
    assert under == BOTH, under
    named = re.findall(r"(\S+) is ", under) + re.findall(r"/ (.+?)\)", under)
    assert named and all(name in headers for name in named), (named, headers)  # each as the table heads it
    for unshown in (R.OUTPUT_TPUT_PER_GPU, "_ms", "Units:"):  # metric names no column is headed by
        assert unshown not in under, under


def test_a_table_without_per_gpu_figures_or_interactivity_says_only_what_it_shows():
    """Ingested without its row: no GPU count, so `output tok/s` (a header naming its unit) in place of tok/s/GPU."""
    rec = synth.make("local-1", KEY, 4, {R.OUTPUT_THROUGHPUT: 3918.6, "tpot_p50_ms": 20.0, R.INTERACTIVITY: 50.0,
                                         R.COMPLETED: 100, R.FAILED: 0})  # counted: no success cell to explain
    headers, under = printed([rec])
    assert "output tok/s" in headers and "tok/s/GPU" not in headers, headers
    assert under == "Columns: tok/s/user is interactivity (1000 / TPOT p50 ms).", under
    for metric in ("tpot_p50_ms", R.INTERACTIVITY):  # a run of one output token a request: no TPOT (ingest)
        rec[R.METRICS].pop(metric)
    headers, under = printed([rec])
    assert "tok/s/user" not in headers and under == "", (headers, under)
