"""What `results show`, `ingest` and `compare` print when piped, for one item, and when no chart
can be drawn: a table keeps its shape in a pipe, counts read "1 point", an empty plots folder says why."""

from __future__ import annotations

import io
import re

import pytest

import synth
from sweepgate import cli
from sweepgate.results import compare as C
from sweepgate.results import record as R
from sweepgate.results import render, show, store

LONG = "qwen3.5-fp8-mi355x-sglang-disagg-prefill-decode-" + "x" * 90  # a table wider than a 240-column pipe


@pytest.fixture
def piped(monkeypatch):
    for name in ("COLUMNS", "NO_COLOR", "GITHUB_ACTIONS", "SWEEPGATE_DB"):
        monkeypatch.delenv(name, raising=False)


def wide_records(run: str = "pr-7", ref: str = "refs/pull/7/merge") -> list[dict]:
    return [synth.make(run, LONG, conc, synth.curve(conc), ref=ref, day=28) for conc in (4, 8)]


def test_show_piped_prints_a_table_however_wide(piped, monkeypatch):
    """Piped (no terminal, no COLUMNS), a table wider than 240 columns came out as `- key value`
    blocks and a narrower one as a table: the shape depended on the data. It is a table whatever the data; s50b: one
    fitted to a log's 200 columns as far as its words allow (the least needed columns left out, the widest cells wrapped), with a line saying
    what was left out and the COLUMNS that prints the whole table, which then has each point on one line."""
    out = io.StringIO()
    show.table(wide_records(), out, "run pr-7: 2 points")
    lines = out.getvalue().splitlines()
    header = [line for line in lines if "┃" in line]
    assert header and "config key" in header[0] and "tok/s/GPU" in header[0], out.getvalue()
    assert not any(line.startswith("- ") for line in lines)
    assert "".join("".join(line.split("│")[1].split()) for line in lines if line.startswith("│")).count(LONG) == 2
    said = re.search(r"Left out to fit \d+ columns: .*?COLUMNS=(\d+) the whole table", " ".join(lines), re.S)
    assert said, out.getvalue()
    # narrower than the whole table (a config key of 138 characters with no break is kept one word: 243 here)
    assert max(len(line) for line in lines) < int(said.group(1)), out.getvalue()
    monkeypatch.setenv("COLUMNS", said.group(1))
    whole = io.StringIO()
    show.table(wide_records(), whole, "run pr-7: 2 points")
    lines = whole.getvalue().splitlines()
    body = [line for line in lines if LONG in line]
    assert len(body) == 2 and all("│" in line for line in body), whole.getvalue()
    assert max(len(line) for line in lines) > 240 and not any(line.startswith("- ") for line in lines)


def test_show_with_columns_set_still_folds_into_blocks(monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.delenv("NO_COLOR", raising=False)
    out = io.StringIO()
    show.table(wide_records(), out, "run pr-7: 2 points")
    lines = out.getvalue().splitlines()
    assert all(len(line) <= 100 for line in lines) and sum(line.startswith("- ") for line in lines) == 2


def test_piped_show_and_compare_keep_each_line_whole_and_unpadded(piped, tmp_path, capsys, monkeypatch):
    """Review: piped without COLUMNS, compare's "Not measured by this run…" note broke mid-sentence at
    240 columns (a pipe gets whole lines, as it gets the whole table), and show's title line was
    padded with spaces to the table's width."""
    url = f"sqlite:///{tmp_path / 'r.db'}"
    with store.open_store(url) as st:
        st.add(synth.history(keys=synth.KEYS[:1]) + synth.pr_run(keys=synth.KEYS[:1], concs=(8, 16, 32)))
    assert cli.main(["results", "compare", "--db", url, "--run", "pr-7"]) == 0
    lines = capsys.readouterr().out.splitlines()
    (note,) = [line for line in lines if "main's newest run of the same config keys" in line]
    assert note.startswith("Not measured by this run") and note.endswith("check that none was dropped by mistake.")
    assert len(note) > 240 and "conc 4; " in note and "conc 64)" in note
    assert cli.main(["results", "show", "--db", url, "--run", "pr-7"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "run pr-7: 3 points" and "┏" in lines[1], lines[:2]
    assert all(line == line.rstrip() for line in lines), [line for line in lines if line != line.rstrip()]
    monkeypatch.setenv("COLUMNS", "400")  # a width the table fits in: the title is still not padded to it
    assert cli.main(["results", "show", "--db", url, "--run", "pr-7"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "run pr-7: 3 points"


def test_compare_table_piped_keeps_its_grid(piped, tmp_path):
    url = f"sqlite:///{tmp_path / 'r.db'}"
    with store.open_store(url) as st:
        st.add([rec for r in range(3) for rec in wide_records(f"main-{r}", synth.MAIN)] + wide_records())
        pr, base = st.run_results("pr-7"), st.records(ref=synth.MAIN)
    comparison = C.compare_records(pr, base, run="pr-7")
    text = render.table_text(comparison)
    rows = [line for line in text.splitlines() if LONG in line]
    assert len(rows) == len(comparison.verdicts) == 12, text  # a line a verdict: the grid, not blocks
    assert all(re.search(r"\d", line) for line in rows)


def test_one_point_reads_in_the_singular_and_the_ingest_line_keeps_the_contract(piped, tmp_path, capsys):
    """CONTRACTS §8 spells the ingest's last line for tools that parse it ("ingested N results
    (M new) into <db>"): it read "1 result" for one, which such a pattern misses."""
    from helpers import job, vllm_output, write_job

    write_job(tmp_path / "out", "one", vllm_output(conc=4), job())
    db = f"sqlite:///{tmp_path / 'r.db'}"
    assert cli.main(["results", "ingest", "--db", db, str(tmp_path / "out")]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert re.fullmatch(r"ingested (\d+) results \((\d+) new\) into (\S+)", last), last
    assert cli.main(["results", "show", "--db", db]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert "all points: 1 point" in first and "1 points" not in first


def test_compare_says_why_it_wrote_no_chart(piped, tmp_path, capsys, monkeypatch):
    """Results ingested without their rows have no GPU count, so no tok/s/GPU: the plots folder
    stayed empty and the command said only "wrote 0 charts"."""
    monkeypatch.chdir(tmp_path)
    url = f"sqlite:///{tmp_path / 'r.db'}"

    def without_per_gpu(records):
        for rec in records:
            rec[R.METRICS].pop(R.OUTPUT_TPUT_PER_GPU)
        return records

    with store.open_store(url) as st:
        st.add(without_per_gpu(synth.history(runs=3)) + without_per_gpu(synth.pr_run()))
    assert cli.main(["results", "compare", "--db", url, "--run", "pr-7", "--plots", "plots"]) == 0
    err = capsys.readouterr().err
    assert "wrote no chart: no point has a throughput per GPU" in err and "--row" in err, err
    assert not (tmp_path / "plots").exists()  # no chart, and no empty new folder (tidy28)


def test_compare_counts_its_charts(piped, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    url = f"sqlite:///{tmp_path / 'r.db'}"
    with store.open_store(url) as st:
        st.add(synth.history(runs=3) + synth.pr_run())
    assert cli.main(["results", "compare", "--db", url, "--run", "pr-7", "--plots", "plots"]) == 0
    err = capsys.readouterr().err
    assert re.search(r"wrote 1 chart \(PNG and SVG\) into plots", err), err  # one chart group, two files


def test_no_chart_reason_for_a_run_without_interactivity():
    from sweepgate.results import charts

    pr = synth.pr_run()
    for rec in pr:
        rec[R.METRICS].pop(R.INTERACTIVITY)
    comparison = C.compare_records(pr, [], run="pr-7")
    assert charts.chart_groups(comparison) == {}
    assert "interactivity" in charts.why_no_chart(comparison)


def test_show_and_compare_refuse_an_unknown_run_with_the_same_line(piped, tmp_path, capsys):
    """Review: show said `--run: ...` and compare `sweepgate results compare: ...`, with the fix in
    another order, for the same mistake."""
    url = f"sqlite:///{tmp_path / 'r.db'}"
    with store.open_store(url) as st:
        st.add(synth.pr_run())
    lines = []
    for command in ("show", "compare"):
        assert cli.main(["results", command, "--db", url, "--run", "pr-8"]) == 1
        lines.append(capsys.readouterr().err.strip())
    assert lines[0] == lines[1] and lines[0].startswith("--run: run 'pr-8' has no results in "), lines


def test_show_marks_rehearsal_figures_and_keeps_small_latencies(piped):
    """Review: `results show --run <a rehearsal>` had no rehearsal mark (README: "marked as
    rehearsals everywhere") and printed a stand-in's 0.000236 ms TPOT as 0.00."""
    rec = synth.make("rehearsal-1", "k", 4, {**synth.curve(4), "tpot_p50_ms": 0.000236, R.SUCCESS_RATE: 0.5},
                     rehearsal=True)
    out = io.StringIO()
    show.table([rec], out, "run rehearsal-1: 1 point")
    text = out.getvalue()
    assert text.startswith(render.REHEARSAL_NOTE), text
    row = next(line for line in text.splitlines() if "│ k " in line)
    assert "success (rehearsal)" in row and "0.000236" in row and "50.0%" in row, row
    plain = synth.make("pr-1", "k", 4, synth.curve(4))
    out = io.StringIO()
    show.table([plain], out, "run pr-1: 1 point")
    assert "REHEARSAL" not in out.getvalue() and "(rehearsal)" not in out.getvalue()


def test_a_failed_point_with_one_baseline_run_says_run():
    from sweepgate.results import compare as C
    from sweepgate.results import render

    from sweepgate.results import record as R

    pt = C.point_of({R.CONFIG_KEY: "k", R.CONC: 4})
    for n, said in ((1, "1 baseline run"), (2, "2 baseline runs")):
        v = C.Verdict(pt, None, None, n, None, None, None, None, C.FAILED, 0.05, status="failure")
        assert render.cells(v)[3] == said


def test_a_long_report_keeps_as_many_changed_rows_as_fit():
    """Review: a report over the comment limit kept the first 50 changed rows (~22 KB of 65 KB)."""
    from sweepgate.results import compare as C
    from sweepgate.results import record as R
    from sweepgate.results import render

    concs = tuple(range(4, 1004, 2))
    scale = {(k, c): {R.OUTPUT_TPUT_PER_GPU: 0.7} for k in synth.KEYS for c in concs}
    comp = C.compare_records(synth.pr_run(scale, concs=concs), synth.history(concs=concs))
    body = render.markdown(comp, limit=65_000)
    assert 40_000 < len(body.encode()) <= 65_000
    (more,) = [line for line in body.splitlines() if "more regressed rows" in line]
    kept = comp.counts()[C.REGRESSED] - int(more.split()[0])
    assert kept in render.CUT_ROWS and kept >= 200, more


def test_a_cut_report_keeps_every_regressed_metric_and_trims_improvements_first():
    """Review: cut to fit, the comment kept 100 improved rows beside 100 regressed ones, and the
    240 success-rate regressions (requests failing) were all pushed out by larger throughput drops."""
    concs = tuple(range(4, 1004, 2))
    keys = synth.KEYS
    scale = {(k, c): {R.OUTPUT_TPUT_PER_GPU: 0.7 if i % 2 else 1.4} for i, k in enumerate(keys) for c in concs}
    for c in concs[:30]:
        scale[(keys[0], c)] = {R.SUCCESS_RATE: 0.9}
    comp = C.compare_records(synth.pr_run(scale, concs=concs), synth.history(concs=concs))
    counts = comp.counts()
    assert counts[C.REGRESSED] > 400 and counts[C.IMPROVED] > 400
    assert sum(v.metric == R.SUCCESS_RATE for v in comp.verdicts if v.verdict == C.REGRESSED) == 30
    body = render.markdown(comp, limit=65_000)
    regressed = body.split("#### Regressed")[1].split("####")[0]
    improved = body.split("#### Improved")[1].split("####")[0]
    assert f"| {R.SUCCESS_RATE} |" in regressed  # the share of each metric survives the cut
    rows = lambda section: sum(line.startswith("| ") for line in section.splitlines()) - 1
    assert rows(improved) * render.IMPROVED_SHARE <= rows(regressed)
    (more,) = [line for line in regressed.splitlines() if "more regressed rows" in line]
    assert f"{R.SUCCESS_RATE} 30" in more, more


def test_a_key_with_html_or_a_line_break_stays_in_its_table_cell():
    """Review: only `|` was escaped; a key with a newline split its row and `<!--` hid the comment."""
    pt = C.point_of({R.CONFIG_KEY: "dsr1 <!-- hidden\n| x <b>y</b> & z", R.CONC: 4})
    v = C.Verdict(pt, None, None, 2, None, None, None, None, C.FAILED, 0.05, status="failure")
    (header, rule, row) = render._md_table([v])
    assert row.startswith("| ") and row.endswith(" |") and "\n" not in row
    assert "<" not in row and "&lt;!-- hidden \\| x &lt;b&gt;y&lt;/b&gt; &amp; z" in row, row
    assert row.count(" | ") == header.count(" | ")


def test_compare_names_the_points_it_left_off_every_chart(piped, tmp_path, capsys, monkeypatch):
    """Review leftover: a PR point with no interactivity figure (the client reported no median TPOT)
    was left off its chart without a word while the chart still drew its series."""
    monkeypatch.chdir(tmp_path)
    url = f"sqlite:///{tmp_path / 'r.db'}"
    pr = synth.pr_run()
    blind = [rec for rec in pr if rec[R.CONC] == max(r[R.CONC] for r in pr)][:1]
    for rec in blind:
        rec[R.METRICS].pop(R.INTERACTIVITY)
    with store.open_store(url) as st:
        st.add(synth.history(runs=3) + pr)
    assert cli.main(["results", "compare", "--db", url, "--run", "pr-7", "--plots", "plots"]) == 0
    err = capsys.readouterr().err
    line = next((ln for ln in err.splitlines() if "at its baseline median" in ln), None)
    assert line is not None, err
    assert f"conc {blind[0][R.CONC]}" in line and "no interactivity figure" in line, line
    assert "1 point is drawn only as a ? at its baseline median" in line, line  # it has a baseline (new-user28)


def test_a_cancelled_job_off_every_chart_is_called_cancelled():
    """Diff review: a cancelled job with no baseline was named "its job failed"."""
    from sweepgate.results import charts

    pr = synth.pr_run()
    pr[0][R.STATUS] = "cancelled"
    pr[1][R.STATUS] = "failure"
    comparison = C.compare_records(pr, [], run="pr-7")
    whys = dict(charts.off_chart(comparison))
    assert whys[C.point_of(pr[0])].startswith("its job was cancelled") and \
        whys[C.point_of(pr[1])].startswith("its job failed"), whys
