"""`results compare`'s terminal table at 80 columns and on a wide terminal."""

from __future__ import annotations

import io
import re

import pytest

import synth
from helpers import md_rows
from sweepgate.core import report
from sweepgate.results import compare as C
from sweepgate.results import record as R
from sweepgate.results import render, show

DISAGG = "p1x(tp4-pp1-dcp1-pcp1-ep4-dpatrue)_d5x(tp8-pp1-dcp1-pcp1-ep8-dpatrue)"
SHORT = "p1x(tp4-ep4-dpa)_d5x(tp8-ep8-dpa)"  # as every table names it


def comparison() -> C.Comparison:
    """Every compared metric at five points with a long multi-node topology (the review's run), one regressed."""
    def disagg(records):
        for rec in records:
            rec[R.TOPOLOGY] = DISAGG
        return records
    pr = disagg(synth.pr_run({(synth.KEYS[0], 16): {R.OUTPUT_TPUT_PER_GPU: 0.8}}, keys=synth.KEYS[:1]))
    return C.compare_records(pr, disagg(synth.history(keys=synth.KEYS[:1])))


def text(comp: C.Comparison, width: int, monkeypatch) -> str:
    """The table as a terminal ``width`` columns wide shows it (styles dropped; COLUMNS stands for
    the terminal's width: a pipe without it gets the whole table)."""
    monkeypatch.setenv("COLUMNS", str(width))
    monkeypatch.setenv("NO_COLOR", "1")
    out = io.StringIO()
    render.table(comp, out)
    return re.sub(r"\x1b\[[0-9;]*m", "", out.getvalue())


def test_at_80_columns_each_point_is_named_once_and_no_metric_name_breaks(monkeypatch):
    """Review: at 80 columns each point wrapped onto ~6 lines and `output_tput_per_gpu` read
    `output_tput_per` / `_gpu`."""
    comp = comparison()
    lines = text(comp, 80, monkeypatch).splitlines()
    assert all(len(line) <= 80 for line in lines), "\n".join(lines)
    assert "…" not in "\n".join(lines)
    for metric in synth.PLAIN_METRICS:  # whole, and on as many lines as it has verdicts
        rows = [line for line in lines if re.match(rf"\s+{metric}\s", line)]
        assert len(rows) == sum(v.metric == metric for v in comp.verdicts), (metric, "\n".join(lines))
    names = {v.metric for v in comp.verdicts}
    units = show.units_line(names)  # its "_ms" and "in" are words, not a name's broken pieces: said whole, then left out
    at = next(i for i, line in enumerate(lines) if line.startswith("Units: "))
    end = next(j for j in range(at + 1, len(lines) + 1) if len(" ".join(lines[at:j])) >= len(units))
    assert " ".join(" ".join(lines[at:end]).split()) == units, lines[at:end]  # whole, folded between words only
    table = lines[:at] + lines[end:]
    rule = render.verdict_rule(comp)  # prose too (its "a" and "it" are words): said whole, then left out
    at = next(i for i, line in enumerate(table) if line.startswith("How to read a verdict: "))
    end = next(j for j in range(at + 1, len(table) + 1) if len(" ".join(table[at:j])) >= len(rule))
    assert " ".join(" ".join(table[at:end]).split()) == rule, table[at:end]
    table = table[:at] + table[end:]
    pieces = [w for line in table for w in line.split() if re.fullmatch(r"_?[a-z]+(_[a-z0-9]+)*_?", w)]
    assert all(w in names or not any(w != n and w in n for n in names) for w in pieces), pieces
    labels = [line for line in lines if line.startswith(synth.KEYS[0] + " ")]
    points = len({v.point for v in comp.verdicts})
    assert len(labels) == points == 5, "\n".join(lines)  # once (all its rows under it): conc 16's unchanged too
    # the regressed point comes first, its rows right under its label
    first = lines.index(labels[0])
    assert "conc 16" in labels[0] and "regressed" in lines[first + 2] and "output_tput_per_gpu" in lines[first + 2]


def test_a_wide_terminal_keeps_one_row_per_verdict_with_its_point(monkeypatch):
    comp = comparison()
    lines = text(comp, 240, monkeypatch).splitlines()
    assert lines[0].split()[:2] == ["point", "metric"] and "baseline median [interval] (n)" in lines[0]
    body = lines[1:1 + len(comp.verdicts)]
    assert all(line.startswith(synth.KEYS[0] + " ") and SHORT in line for line in body), "\n".join(lines)
    assert sum("output_tput_per_gpu" in line for line in body) == 5


def test_the_markdown_is_not_the_terminal_layout():
    md = render.markdown(comparison())
    row = next(line for line in md.splitlines() if "output_tput_per_gpu" in line and "regressed" in line)
    # the point in its first Markdown row (its `_` after `)` escaped: it could open emphasis there, s42a)
    assert row.startswith(f"| {synth.KEYS[0]} ") and SHORT.replace(")_", ")\\_") in row
    assert not any(line.startswith(synth.KEYS[0]) for line in md.splitlines())  # never a line of its own


def test_a_piped_table_takes_its_width_from_columns_when_set(monkeypatch):
    """`COLUMNS=100 sweepgate results compare ... | less`: no terminal to ask, so COLUMNS says."""
    monkeypatch.setenv("NO_COLOR", "1")
    for columns, width in (("100", 100), ("", report.PIPE_WIDTH), ("wide", report.PIPE_WIDTH), ("0", report.PIPE_WIDTH)):
        monkeypatch.setenv("COLUMNS", columns)
        assert report.console(io.StringIO()).width == width, columns
    out = io.StringIO()
    monkeypatch.setenv("COLUMNS", "100")
    render.table(comparison(), out)
    assert max(map(len, out.getvalue().splitlines())) <= 100


def test_narrower_than_the_aligned_columns_no_number_or_name_is_broken(monkeypatch):
    """Review: at 60 columns (here 50, for these figures) `-30.6%` read `-30.` / `6%`, `47,789` `47,78` / `9`, and
    `output_tput_per_gpu` was cut to `output_tput_per_gp`."""
    comp = comparison()
    out = text(comp, 50, monkeypatch)
    lines = out.splitlines()
    assert all(len(line) <= 50 for line in lines), out
    tokens = {w for line in lines for w in line.split()}
    for v in comp.verdicts:
        assert v.metric in tokens, (v.metric, out)
        assert render.cells(v)[2] in tokens  # the head value, whole
        for part in render.cells(v)[4].split():  # the change and its threshold, each whole
            assert part in tokens, (part, out)


def test_a_sweep_s_table_counts_its_unchanged_rows_instead_of_listing_thousands():
    """Review at scale: 4,918 unchanged rows scrolled the 21 that mattered out of sight."""
    from sweepgate.results import render

    keys = tuple(f"k{i:02d}" for i in range(25))  # 125 points, 750 comparisons
    comp = C.compare_records(synth.pr_run({(keys[0], 4): {R.OUTPUT_TPUT_PER_GPU: 0.7}}, keys=keys, noise=0.0),
                             synth.history(keys=keys, noise=0.01))
    text = render.table_text(comp)
    unchanged = comp.counts()[C.UNCHANGED]
    def rows(text: str) -> int:
        return len(re.findall(r"%\)\s+unchanged", text))

    assert unchanged > render.UNCHANGED_SHOWN and rows(text) == 0
    assert f"{unchanged:,} unchanged rows not shown (--all shows them)" in text and "regressed" in text
    every = render.table_text(comp, all_rows=True)
    assert rows(every) == unchanged and "not shown" not in every
    small = C.compare_records(synth.pr_run(keys=keys[:2]), synth.history(keys=keys[:2]))
    assert "not shown" not in render.table_text(small) and rows(render.table_text(small)) > 0


def test_regressions_are_listed_largest_first_whatever_their_config_key():
    """Review at scale: 84 regressed rows in config-key order put a +5 % beside the -13 % ones."""
    keys = synth.KEYS
    scale = {(keys[0], 4): {R.OUTPUT_TPUT_PER_GPU: 0.85}, (keys[0], 8): {R.OUTPUT_TPUT_PER_GPU: 0.6},
             (keys[1], 4): {R.OUTPUT_TPUT_PER_GPU: 0.75}}
    comp = C.compare_records(synth.pr_run(scale, noise=0.0), synth.history(noise=0.01))
    ((_, regressed),) = [(t, rows) for t, rows in render.sections(comp) if t == "Regressed"]
    assert [v.change for v in regressed] == pytest.approx([-0.4, -0.25, -0.15], abs=0.03)  # over 1 % noise


def test_a_point_s_regressed_rows_stay_together():
    """Review: 62 regressed rows of 13 points, sorted row by row, scattered each point's five."""
    keys = synth.KEYS
    scale = {(keys[0], 4): {R.OUTPUT_TPUT_PER_GPU: 0.8, "ttft_p50_ms": 1.5},
             (keys[1], 8): {R.OUTPUT_TPUT_PER_GPU: 0.7, "ttft_p50_ms": 1.1}}
    comp = C.compare_records(synth.pr_run(scale, noise=0.0), synth.history(noise=0.01))
    ((_, regressed),) = [(t, rows) for t, rows in render.sections(comp) if t == "Regressed"]
    assert [(v.point[0], v.metric) for v in regressed] == [
        (keys[0], R.OUTPUT_TPUT_PER_GPU), (keys[0], "ttft_p50_ms"),  # +50 % TTFT: the largest change
        (keys[1], R.OUTPUT_TPUT_PER_GPU), (keys[1], "ttft_p50_ms")]


def test_a_not_judged_point_s_rows_stay_together_when_some_changed_beyond_the_threshold(monkeypatch):
    """New user, two main runs of a rate sweep: the unlimited rate moved 9-65 % in four figures, its
    success_rate not at all; the beyond-threshold rows were sorted first row by row, so that
    success_rate row trailed the other points' and the Markdown named the point twice (its stray
    row read as the point above's). Each point is now one block, the ones with a large change first."""
    monkeypatch.delenv("COLUMNS", raising=False)
    key, concs = synth.KEYS[0], (8, 16, 32)
    moved = {R.OUTPUT_TPUT_PER_GPU: 1.2, "ttft_p50_ms": 0.4}
    comp = C.compare_records(synth.pr_run({(key, 32): moved, (key, 16): {"tpot_p50_ms": 1.3}}, keys=(key,),
                                          concs=concs, noise=0.0),
                             synth.history(runs=2, keys=(key,), concs=concs, noise=0.01))
    assert comp.counts()[C.INSUFFICIENT] == 3 * len(synth.PLAIN_METRICS)
    ((_, rows),) = [(t, rows) for t, rows in render.sections(comp) if t == "Not judged"]
    assert [v.point[5] for v in rows] == [16] * 6 + [32] * 6 + [8] * 6, [(v.point[5], v.metric) for v in rows]
    assert [v.metric for v in rows[:6]] == list(synth.PLAIN_METRICS)
    md = render.markdown(comp)
    for table in md.split("| point |")[1:]:  # each table names each of its points once, all its rows under it
        named = [line.split(" | ")[0] for line in table.splitlines() if line.startswith(f"| {key}")]
        assert len(named) == len(set(named)), table
    beyond = md.split("#### Not judged, changed beyond the threshold (2 points, 3 metrics)")[1].split("<details>")[0]
    # the point with the largest change first; each point's rows in metric order, as in every other section
    # (they were sorted by change within the point here alone)
    assert [row[1] for row in md_rows(beyond)] == [R.OUTPUT_TPUT_PER_GPU, "ttft_p50_ms", "tpot_p50_ms"]
    assert list(synth.PLAIN_METRICS).index(R.OUTPUT_TPUT_PER_GPU) < list(synth.PLAIN_METRICS).index("ttft_p50_ms")
    lines = [line for line in render.table_text(comp).splitlines() if line.startswith(key)]
    assert [re.search(r"conc (\d+)", line).group(1) for line in lines] == ["16"] * 6 + ["32"] * 6 + ["8"] * 6


def test_every_row_states_the_threshold_its_verdict_was_held_to():
    """Numbers audit: -9.8 % outside its interval read "unchanged" with the config's 15 % threshold
    nowhere in the table, the comment or the JSON."""
    per_config = {synth.KEYS[0]: {"threshold": 0.15, "thresholds": {"tpot_p50_ms": 0.05}}}
    comp = C.compare_records(synth.pr_run(), synth.history(), per_config=per_config)
    want = {(synth.KEYS[0], R.OUTPUT_TPUT_PER_GPU): 0.15, (synth.KEYS[0], "tpot_p50_ms"): 0.05,
            (synth.KEYS[0], R.SUCCESS_RATE): 0.0, (synth.KEYS[1], R.OUTPUT_TPUT_PER_GPU): 0.05}
    points = comp.as_json()["points"]
    for (key, metric), threshold in want.items():
        assert {p["threshold"] for p in points if (p["config-key"], p["metric"]) == (key, metric)} == {threshold}
    shown = {(str(v.point[0]), v.metric): render.cells(v)[4] for v in comp.verdicts}
    assert shown[synth.KEYS[0], R.OUTPUT_TPUT_PER_GPU].endswith(" (\u00b115%)")
    assert shown[synth.KEYS[0], R.SUCCESS_RATE].endswith(" (\u00b10%)")
    assert render.HEADERS[4] == "change (threshold)"
    assert "(\u00b15%)" in render.markdown(comp, C.DEFAULT_BASELINE_REF, 5, None)


def test_a_points_unchanged_rows_stay_with_its_changed_ones(monkeypatch):
    """Review: two points slowed in every figure but success_rate (unchanged, 100 %) had their
    success_rate rows listed at the end, in the table and in Markdown, among another point's."""
    monkeypatch.delenv("COLUMNS", raising=False)
    slow = {R.OUTPUT_TPUT_PER_GPU: 0.8, R.INTERACTIVITY: 0.8, "ttft_p50_ms": 1.3, "tpot_p50_ms": 1.25,
            "e2el_p50_ms": 1.25}
    concs = (8, 16, 32)
    comp = C.compare_records(synth.pr_run({(synth.KEYS[0], c): slow for c in concs[:2]}, keys=synth.KEYS[:1],
                                          concs=concs), synth.history(keys=synth.KEYS[:1], concs=concs))
    assert comp.counts()[C.REGRESSED] == 10 and comp.counts()[C.UNCHANGED] == 8
    lines = [line for line in render.table_text(comp).splitlines() if line.startswith(synth.KEYS[0])]
    order = [(re.search(r"conc (\d+)", line).group(1), line.split()[6]) for line in lines]
    assert [c for c, _ in order] == ["16"] * 6 + ["8"] * 6 + ["32"] * 6, order  # each point once, whole
    assert [m for _, m in order[:6]] == list(synth.PLAIN_METRICS) == [m for _, m in order[6:12]], order
    md = render.markdown(comp)
    regressed, unchanged = md.split("#### Regressed (2 points, 10 metrics)")[1].split("<details>")
    rows = [row for row in md_rows(regressed) if row[0].startswith(synth.KEYS[0])]
    assert [row[1] for row in rows] == list(synth.PLAIN_METRICS) * 2, rows
    assert rows[5][-1] == "unchanged" and "conc 16" in rows[5][0]
    assert [row[0] for row in rows] == [rows[0][0]] * 6 + [rows[6][0]] * 6 and "conc 8" in rows[6][0]
    assert sum(line.startswith(f"| {synth.KEYS[0]}") for line in regressed.splitlines()) == 2  # each named once
    assert "<summary>Unchanged: 1 point, 6 metrics; 2 unchanged metrics of 2 other points listed above with them</summary>" in unchanged
    assert sum(row[0].startswith(synth.KEYS[0]) for row in md_rows(unchanged)) == 6
    assert "conc 16" not in unchanged and "conc 8 " not in unchanged
    one = C.compare_records(synth.pr_run({(synth.KEYS[0], 8): slow}, keys=synth.KEYS[:1], concs=concs),
                            synth.history(keys=synth.KEYS[:1], concs=concs))
    assert "<summary>Unchanged: 2 points, 12 metrics; 1 unchanged metric of 1 other point listed above with it</summary>" in render.markdown(one)


def test_a_fold_whose_rows_are_all_listed_above_is_one_line():
    """New user: one point, regressed in five metrics and unchanged in success_rate, got an Unchanged fold
    holding a table of headers alone, its one row being listed above with its point."""
    slow = {R.OUTPUT_TPUT_PER_GPU: 0.8, R.INTERACTIVITY: 0.8, "ttft_p50_ms": 1.3, "tpot_p50_ms": 1.25,
            "e2el_p50_ms": 1.25}
    comp = C.compare_records(synth.pr_run({(synth.KEYS[0], 8): slow}, keys=synth.KEYS[:1], concs=(8,)),
                             synth.history(keys=synth.KEYS[:1], concs=(8,)))
    assert comp.counts()[C.REGRESSED] == 5 and comp.counts()[C.UNCHANGED] == 1
    md = render.markdown(comp)
    assert "<details>" not in md.split("#### Regressed (1 point, 5 metrics)")[1], md
    assert "\nUnchanged: 1 metric of 1 point, listed above with it.\n" in md, md
    header = "| point | metric |"
    assert md.count(header) == 1, md  # the Regressed table's, no empty one after it
