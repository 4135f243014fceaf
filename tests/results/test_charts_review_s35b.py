"""Charts and the compare table as a maintainer reads them in a PR comment (review s35b): a recipe far
below another in one chart, a point ingested without its matrix row, and a sweep of several models,
precisions and hardware. Each test checks what was drawn or written (scales, artists, texts, cells)."""

from __future__ import annotations

import synth
from sweepgate.results import charts
from sweepgate.results import compare as C
from sweepgate.results import record as R

LOW_KEY = synth.KEYS[1]  # the recipe drawn far below the other
CONCS = (16, 32, 64)  # 1,040 to 1,890 tok/s/GPU: a recipe 25x below spans 42 to 76, the chart 45x


def _below(records: list[dict], factor: float) -> list[dict]:
    """``records`` with LOW_KEY's throughput per GPU ``factor`` times as large."""
    out = []
    for rec in records:
        if rec[R.CONFIG_KEY] == LOW_KEY:
            rec = {**rec, R.METRICS: {**rec[R.METRICS],
                                      R.OUTPUT_TPUT_PER_GPU: rec[R.METRICS][R.OUTPUT_TPUT_PER_GPU] * factor}}
        out.append(rec)
    return out


def _drawn(comp: C.Comparison):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    ((group, items),) = charts.chart_groups(comp).items()
    fig = charts.draw_chart(group, items, comp.run)
    FigureCanvasAgg(fig).draw()
    return fig, items


def test_a_recipe_25_times_below_another_gets_a_log_axis_its_change_a_distance():
    """Review s35b: two recipes of one chart 25x apart in throughput (the chart's values 45x apart) were drawn
    on a linear axis from 0, the lower recipe's whole front a flat line on the axis and its -15 % regression
    at conc 32 under a pixel high. The axis is logarithmic from a tenfold span, and says so."""
    pr = _below(synth.pr_run({(LOW_KEY, 32): {R.OUTPUT_TPUT_PER_GPU: 0.85}}, concs=CONCS), 1 / 25)
    comp = C.compare_records(pr, _below(synth.history(concs=CONCS), 1 / 25))
    fig, items = _drawn(comp)
    ax = fig.axes[0]
    assert ax.get_yscale() == "log" and ax.get_ylabel() == charts.Y_LABEL + charts.LOG_NOTE
    assert ax.get_xscale() == "linear"  # interactivity spans 2.3x: linear, its label plain
    (moved,) = [item for item in items if item["flag"] == C.REGRESSED]
    assert moved["series"][0] == LOW_KEY
    (_, y_pr), (_, y_base) = ax.transData.transform([moved["pr"], moved["base"]])
    assert abs(y_base - y_pr) > 10, "the regression is drawn as a distance"
    ticks = [t.get_text() for t in ax.yaxis.get_ticklabels() if t.get_text()]
    assert len(ticks) >= charts.MIN_LOG_TICKS, ticks


def test_a_tenfold_span_is_logarithmic_with_four_labelled_ticks_wherever_it_lies():
    """The bound: 9.9x stays linear, 10x is logarithmic; and a log axis of a tenfold span has
    MIN_LOG_TICKS labelled ticks wherever in a decade it starts (1, 2, 5 gave three from 2.83 to 28.3: 5, 10, 20)."""
    assert not charts.is_log_axis([10.0, 99.0]) and charts.is_log_axis([10.0, 100.0])
    assert not charts.is_log_axis([0.0, 5.0, 1000.0])
    for start in (1.0, 1.41, 2.83, 3.6, 5.01, 7.7):
        low, high = start / charts.LOG_PAD, start * 10 * charts.LOG_PAD
        subs = charts.log_ticks(low, high)
        shown = [sub * 10.0 ** k for k in range(-1, 4) for sub in subs if low <= sub * 10.0 ** k <= high]
        assert len(shown) >= charts.MIN_LOG_TICKS, (start, shown)


GPT_OSS = "vllm/ifx_benchserving_gptoss120b_disagg_1p1d_16gpu_1k1k_conc4.json"  # model: a hub cache folder


def _rowless_run(capsys, tmp_path, output) -> tuple[str, str]:
    """A store holding ``output`` (bytes) ingested without a sidecar or --row; (its URL, the run id)."""
    import json

    from helpers import run_cli

    db = f"sqlite:///{tmp_path / 'r.db'}"
    path = tmp_path / "out.json"
    path.write_bytes(output)
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(path))
    assert rc == 0, err
    rc, out, err = run_cli(capsys, "results", "show", "--db", db, "--json")
    assert rc == 0, err
    ((run, _),) = {(rec[R.RUN_ID], 0) for rec in json.loads(out)}
    return db, run


def test_a_point_ingested_without_its_row_is_named_by_its_outputs_model_everywhere(capsys, tmp_path):
    """Review s35b: a real output ingested without its matrix row read "conc 4" in compare's table and the PR
    comment, nothing saying what model ran. It is named by the model its output states (a hub cache folder as
    its ORG/NAME, as `results show` names it), `--json` carries that `model`, and a note says why the point
    has no key and how to give it a row."""
    import json

    from helpers import SAMPLES, run_cli

    db, run = _rowless_run(capsys, tmp_path, (SAMPLES / GPT_OSS).read_bytes())
    rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", run)
    assert rc == 0, err
    rows = [line for line in out.splitlines() if line.startswith("openai/gpt-oss-120b conc 4 ")]
    assert len(rows) == 5, out  # interactivity, TTFT, TPOT, E2EL, success rate
    assert "ingested without its matrix row" in out and "--row FILE" in out and "--config-key KEY" in out
    rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", run, "--markdown")
    assert rc == 0, err
    assert "| openai/gpt-oss-120b conc 4 |" in out and "ingested without its matrix row" in out
    rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", run, "--json")
    assert rc == 0, err
    points = json.loads(out)["points"]
    assert points and all(p["config-key"] is None and "models--openai--gpt-oss-120b" in p["model"] for p in points)


def test_a_rowless_point_whose_output_names_no_model_reads_as_a_placeholder(capsys, tmp_path):
    """An output naming no model either: its label says so (NO_KEY), never a bare "conc 4"."""
    import json

    from helpers import run_cli, vllm_output
    from sweepgate.results import render

    doc = vllm_output(4)
    del doc["model_id"]
    db, run = _rowless_run(capsys, tmp_path, json.dumps(doc).encode())
    rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", run, "--markdown")
    assert rc == 0, err
    assert f"| {render.NO_KEY} conc 4 |" in out, out
    rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", run, "--json")
    assert {p["model"] for p in json.loads(out)["points"]} == {None}


def test_a_recipe_without_a_config_key_is_no_none_in_the_legend():
    """Review s35b: a recipe ingested with --row and no --config-key drew as "None" in its chart's legend."""
    from sweepgate.results import labels

    keyless = [{**rec, R.CONFIG_KEY: None} for rec in synth.pr_run(keys=synth.KEYS[:1])]
    comp = C.compare_records(keyless, [{**rec, R.CONFIG_KEY: None} for rec in synth.history(keys=synth.KEYS[:1])])
    fig, _ = _drawn(comp)
    (legend,) = fig.legends
    texts = [t.get_text() for t in legend.get_texts()]
    assert labels.NO_CONFIG_KEY in texts and not any("None" in t for t in texts), texts


def test_the_pr_front_is_broken_where_a_point_between_its_points_failed():
    """Review s35b: a recipe whose PR job at conc 16 failed had its PR front drawn straight from conc 8 to 32,
    far below the baseline's front through conc 16: a drop no point measured and the table did not report.
    The PR front is drawn in pieces that never cross the failed point's interactivity; the legend still names
    it, and the baseline front runs whole."""
    pr = synth.pr_run(keys=synth.KEYS[:1])
    for rec in pr:
        if rec[R.CONC] == 16:
            rec.update({R.STATUS: "failure", R.METRICS: {}})
    comp = C.compare_records(pr, synth.history(keys=synth.KEYS[:1]))
    fig, items = _drawn(comp)
    ax = fig.axes[0]
    (failed,) = [item for item in items if item["flag"] == C.FAILED]
    gap = failed["at"][0]
    fronts = [line for line in ax.get_lines() if (line.get_gid() or "").startswith(charts.FRONT_GID[charts.PR_FRONT])]
    assert len(fronts) == 2, [line.get_gid() for line in fronts]  # conc 4-8, conc 32-64
    for line in fronts:
        xs = sorted(line.get_xdata())
        assert not any(a < gap < b for a, b in zip(xs, xs[1:])), (gap, xs)
    (base,) = [line for line in ax.get_lines() if (line.get_gid() or "").startswith(charts.FRONT_GID[charts.BASE_FRONT])]
    assert len(base.get_xdata()) == 5
    (legend,) = fig.legends
    assert charts.PR_FRONT in [t.get_text() for t in legend.get_texts()]
