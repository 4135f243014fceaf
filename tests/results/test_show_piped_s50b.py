"""s50b: `results show` written to a pipe or a file (a CI log) with no COLUMNS printed every column whole: 344
characters a line on the real samples, run ids and result file names beside the figures. It now fits
show.PIPED_WIDTH: the least needed columns left out first (named under the table, with the COLUMNS that prints
them all, and --json), then the widest text columns folded. A set COLUMNS and --json are as they were."""

from __future__ import annotations

import io
import json
import re

import pytest

import synth  # noqa: F401 - puts utils/ on sys.path
from sweepgate.results import record as R
from sweepgate.results import show

LONG = "ifx_benchserving_gptoss120b_disagg_1p1d_16gpu_1k1k_conc{}_with_a_suffix_long_enough_to_leave_out.json"


def point(conc: int, model: str = "openai/gpt-oss-120b") -> dict:
    return {R.MODEL: model, R.CONC: conc, R.ISL: 1024, R.OSL: 1024, R.STATUS: R.SUCCESS,
            R.RUN_ID: f"local-fd4762534f52{conc:04d}", R.REF: "refs/heads/main", R.RESULT_FILENAME: LONG.format(conc),
            R.METRICS: {R.OUTPUT_THROUGHPUT: 459.2 * conc, R.INTERACTIVITY: 119.2, R.MAX_OUTPUT_TOKENS_PER_S: 900.0,
                        R.latency_name(R.TTFT, "p50"): 124.3, R.latency_name(R.TPOT, "p50"): 8.39,
                        R.latency_name(R.E2EL, "p50"): 8703.0, R.SUCCESS_RATE: 1.0,
                        R.MAX_CONCURRENT_REQUESTS: conc}}


@pytest.fixture(autouse=True)
def no_columns(monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)


def shown(records: list[dict]) -> str:
    out = io.StringIO()  # no terminal: as a pipe or a file
    show.table(records, out, "all points")
    return out.getvalue()


def header(text: str) -> list[str]:
    line = next(line for line in text.splitlines() if "┃" in line)
    return [cell.strip() for cell in line.strip()[1:-1].split("┃")]


def test_a_piped_table_too_wide_leaves_out_the_least_needed_columns_and_says_how_to_get_them(monkeypatch):
    records = [point(conc) for conc in (4, 8, 16)]
    text = shown(records)
    assert max(map(len, text.splitlines())) <= show.PIPED_WIDTH, text
    heads = header(text)
    assert "result" not in heads, heads
    assert {"model", "conc", "output tok/s", "tok/s/user", "TTFT p50 ms", "ref"} <= set(heads), heads
    said = " ".join(text.split())
    found = re.search(rf"Left out to fit {show.PIPED_WIDTH} columns: (.*?); `--json` prints every field, and COLUMNS=(\d+) the "
                      r"whole table\.", said)
    assert found, text
    assert found[1].split(", ")[0] == "result", found[1]  # the first to go
    left = found[1].split(", ")
    assert not set(left) & set(heads)
    # what it says works: COLUMNS at that width prints the whole table, every column
    monkeypatch.setenv("COLUMNS", found[2])
    whole = shown(records)
    assert {"result", "run", *left} <= set(header(whole)) and "Left out" not in whole, whole
    assert LONG.format(16) in whole
    assert max(map(len, whole.splitlines())) == int(found[2]), whole


def test_a_set_columns_is_honoured_as_before(monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")  # narrower than the table: one block per point, every field in it
    text = shown([point(4)])
    assert "Left out" not in text and "result " + LONG[:40] in text and "┃" not in text, text
    assert max(map(len, text.splitlines())) <= 100, text


def test_a_table_that_fits_is_whole_and_says_nothing_more():
    record = {**point(4), R.RESULT_FILENAME: "conc4.json"}
    for gone in (R.MAX_OUTPUT_TOKENS_PER_S, R.MAX_CONCURRENT_REQUESTS):
        record[R.METRICS].pop(gone)
    text = shown([record])
    assert "Left out" not in text and {"run", "result"} <= set(header(text)), text


def test_folded_when_leaving_out_is_not_enough_and_no_escape_codes_piped_or_under_no_color(monkeypatch):
    model = "TechxGenus/Meta-Llama-3-70B-Instruct-GPTQ with a name long enough to need folding " * 2
    records = [point(4, model.strip()), point(8)]
    for no_color in (None, "1"):
        if no_color:
            monkeypatch.setenv("NO_COLOR", no_color)
        text = shown(records)
        assert "\x1b" not in text, text
        assert max(map(len, text.splitlines())) <= show.PIPED_WIDTH, text
        assert "TechxGenus/Meta-Llama-3-70B-Instruct-GPTQ" in text and "Left out to fit" in " ".join(text.split())
        assert header(text)[0] == "model", text
