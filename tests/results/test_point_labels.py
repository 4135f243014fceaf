"""How a point is named in the table, the Markdown and on the chart: a real SGLang request-rate
sweep states no concurrency (``max_concurrency: null``), so its points are told apart by their rate,
never as "conc None"; speculative decoding is named beside the topology."""

from __future__ import annotations

from helpers import ROOT, ROW, job, run_cli, write_job
from sweepgate.results import charts
from sweepgate.results import record as R
from sweepgate.results import render

# vLLM's llm-d sweep: rates 10, 30 and unlimited of three deployments, no max_concurrency stated
LLMD_SWEEP = ROOT / "tests" / "data" / "results-samples" / "vllm" / "vllm0.9_llama3.2-3b_l40sx4_llmd_qps10-30-inf.jsonl"
RATE_SWEEP = ROOT / "tests" / "data" / "results-samples" / "sglang" / "sglang_2024-12_llama3.3-70b_h200x4_online.jsonl"


def point(**over):
    fields = dict.fromkeys(R.POINT_IDENTITY)
    fields.update({R.CONFIG_KEY: "k", R.HARDWARE: "b300", R.SCENARIO: "fixed", R.ISL: 1024, R.OSL: 1024}, **over)
    return tuple(fields[name] for name in R.POINT_IDENTITY)


def test_a_label_names_conc_only_when_the_client_stated_one():
    assert render.point_label(point(**{R.CONC: 4})) == "k b300 fixed 1024/1024 conc 4"
    assert render.point_label(point(**{R.REQUEST_RATE: "2"})) == "k b300 fixed 1024/1024 rate 2/s"
    assert render.point_label(point(**{R.CONC: 8, R.TOPOLOGY: "tp8", R.SPEC_DECODING: "mtp"})) == \
        "k b300 fixed 1024/1024 conc 8 tp8 spec mtp"
    assert render.point_label(point(**{R.CONC: 8, R.SPEC_DECODING: "none"})) == "k b300 fixed 1024/1024 conc 8"


def test_a_chart_marks_a_rate_sweep_point_by_its_rate():
    item = {"conc": None, "point": point(**{R.REQUEST_RATE: "0.5"})}
    assert charts._mark(item, by_rate=True) == charts._mark(item, by_rate=False) == "0.5/s"
    assert charts._mark({"conc": 16, "point": point(**{R.CONC: 16})}, by_rate=False) == "16"
    assert charts._mark({"conc": None, "point": point()}, by_rate=False) == ""
    assert charts._mark({"conc": None, "point": point()}, by_rate=True) == "∞"  # the sweep's unlimited one


def test_a_rate_sweep_at_one_concurrency_labels_its_points_by_rate(tmp_path, db, capsys):
    """Review: a real vLLM request-rate sweep ingested with its matrix row (conc 1) labelled every
    point "1": rates 10/s, 30/s and unlimited could not be told apart (the table said "rate 10/s
    conc 1"). Each deployment's lines are one run: two on main, the third the PR's. Its client ran
    uncapped (max_concurrency null), which a row naming a conc is refused for (formats25), so its
    row names none."""
    import json

    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from helpers import show_json
    from sweepgate.results import compare as C

    lines = LLMD_SWEEP.read_text(encoding="utf-8").splitlines()
    row = {**{k: v for k, v in ROW.items() if k != "conc"}, "model": "meta-llama/Llama-3.2-3B-Instruct", "tp": 1}
    for n, deployment in enumerate(("no-features", "base", "kvcache"), 1):
        ref = "refs/pull/7/head" if deployment == "kvcache" else "refs/heads/main"
        text = "\n".join(line for line in lines if json.loads(line)["deployment"] == deployment) + "\n"
        write_job(tmp_path / deployment, "res", text, job(run_id=str(1000 + n), ref=ref,
                                                          row=row, finished=f"2026-01-0{n}T12:00:00+00:00"))
        assert run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path / deployment))[0] == 0
    recs = show_json(capsys, db)
    comp = C.compare_records([r for r in recs if r[R.RUN_ID] == "1003"], [r for r in recs if r[R.RUN_ID] != "1003"])
    ((group, items),) = charts.chart_groups(comp).items()
    fig = charts.draw_chart(group, items, comp.run)
    FigureCanvasAgg(fig).draw()
    assert {item["conc"] for item in items} == {None}
    # two main runs: too few to judge, as each label says, with a change past its threshold (s37h)
    assert sorted(t.get_text() for t in fig.axes[0].texts) == ["10/s not judged", "30/s not judged",
                                                               "∞ not judged, +8.5% tok/s/GPU"]
    assert charts.point_marks(items) == ["10/s", "30/s", "∞"]
    both = [dict(item, conc=conc) for conc in (1, 2) for item in items]  # a sweep of rates and concurrencies
    assert charts.point_marks(both)[:3] == ["10/s c1", "30/s c1", "∞ c1"]


def test_a_real_rate_sweep_compares_without_conc_none(tmp_path, db, capsys):
    # its random-1024/1024 lines: the file's ShareGPT lines are another workload than a 1024/1024 row's
    text = "".join(line for line in RATE_SWEEP.read_text(encoding="utf-8").splitlines(True) if '"sharegpt"' not in line)
    for run, ref, day in (("1001", "refs/heads/main", 1), ("2002", "refs/pull/7/head", 2)):
        folder = tmp_path / run
        row = {k: v for k, v in ROW.items() if k != "conc"}  # a hand-made row, as the client: no concurrency
        write_job(folder, "res", text, job(run_id=run, ref=ref, row=row, finished=f"2026-01-0{day}T12:00:00+00:00"))
        rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(folder))
        assert rc == 0, err
    rc, md, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "2002", "--markdown")
    assert rc == 0, err
    assert "rate 1/s" in md and "None" not in md
    rc, table, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "2002")
    assert rc == 0, err
    assert "rate 1/s" in table and "None" not in table


def test_a_small_change_keeps_its_sign_and_size_and_one_repeat_is_singular():
    assert render.fmt_change(-0.00001) == "-0.001%" and render.fmt_change(-0.0006) == "-0.1%"
    assert render.fmt_change(0.0) == "+0.0%" and render.fmt_change(-1e-12) == "+0.0%"  # never "-0.0%"
    assert render.fmt_change(None) == "n/a"
    assert render.fmt_change(1e-7) == "+0.00001%" and render.fmt_change(5e-7) == "+0.00005%"  # never 1e-05
    from sweepgate.results import compare as C

    one = C.Comparison(run="1", verdicts=[], heads={}, baselines={}, repeated={point(**{R.CONC: 4}): 2})
    assert render.repeated_note(one).startswith("1 point was measured more than once")


def _llmd_runs(tmp_path, db, capsys, pr_factor: float = 1.0) -> None:
    """The llm-d sweep's no-features lines (rates 10/s, 30/s and unlimited, no concurrency cap, so a
    row naming no conc), ingested with --row as five main runs and one PR run (its throughput times
    ``pr_factor``)."""
    import json

    lines = [json.loads(line) for line in LLMD_SWEEP.read_text(encoding="utf-8").splitlines()]
    lines = [d for d in lines if d["deployment"] == "no-features"]
    row = tmp_path / "row.json"
    uncapped = {k: v for k, v in ROW.items() if k != "conc"}
    row.write_text(json.dumps({**uncapped, "model": "meta-llama/Llama-3.2-3B-Instruct"}), encoding="utf-8")
    for n, ref in [*((n, "refs/heads/main") for n in range(1, 6)), (9, "refs/pull/7/merge")]:
        scale = pr_factor if n == 9 else 1 + (n - 3) / 100
        out = tmp_path / f"run{n}.jsonl"
        out.write_text("".join(json.dumps({**d, "output_throughput": d["output_throughput"] * scale}) + "\n"
                               for d in lines), encoding="utf-8")
        rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, "--row", str(row), "--run-id", f"r{n}",
                             "--ref", ref, "--config-key", "k", str(out))
        assert rc == 0, err


def test_the_unlimited_point_of_a_rate_sweep_is_labelled_rate_infinity(tmp_path, db, capsys, monkeypatch):
    """Review: the table and Markdown named the sweep's unlimited point "... 1000/500 conc 4 tp8..."
    beside "rate 10/s conc 4", as if it were a point of another sweep; the chart marks it ∞. (Its row
    names no conc since formats25: the client ran uncapped.)"""
    _llmd_runs(tmp_path, db, capsys)
    monkeypatch.setenv("COLUMNS", "400")
    for flags in ((), ("--markdown",)):
        rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "r9", *flags)
        assert rc == 0, err
        labels = {line.split("1024/1024 ")[1].split(" tp8")[0] for line in out.splitlines() if " tp8" in line}
        assert labels == {"rate 10/s", "rate 30/s", f"rate {R.UNLIMITED_RATE}"}, out


def test_a_concurrency_sweep_names_no_rate():
    pts = [point(**{R.CONC: c}) for c in (4, 8)]
    from sweepgate.results import compare as C

    comp = C.Comparison(run="1", verdicts=[], heads=dict.fromkeys(pts, {}), baselines={})
    assert render.rate_sweeps(comp) == frozenset()
    assert render.point_label(pts[0], render.point_naming(comp)) == "k b300 fixed 1024/1024 conc 4"
    rated = render.point_naming(C.Comparison(run="1", verdicts=[], heads=dict.fromkeys(
        [*pts, point(**{R.CONC: 4, R.REQUEST_RATE: "2"})], {}), baselines={}))
    assert render.point_label(pts[1], rated) == f"k b300 fixed 1024/1024 rate {R.UNLIMITED_RATE} conc 8"
    assert render.point_label(point(**{R.CONC: 8, R.TOPOLOGY: "tp4"}), rated) == "k b300 fixed 1024/1024 conc 8 tp4"


def test_a_chart_names_the_baseline_its_medians_come_from(tmp_path, db, capsys):
    """Review: a chart seen on its own (a PR comment links it) said "baseline median" and never of
    what: its legend names the baseline ref and window, and how many runs there were when fewer."""
    _llmd_runs(tmp_path, db, capsys, pr_factor=0.8)
    for window, words in ((5, "baseline median of main's last 5 runs (refs/heads/main)<"),
                          (8, "baseline median of main's last 8 runs (5 found; refs/heads/main)<")):
        plots = tmp_path / f"plots{window}"
        rc, _, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "r9", "--window", str(window),
                             "--baseline-ref", "main", "--plots", str(plots))
        assert rc == 0, err
        (svg,) = plots.glob("*.svg")
        assert words in svg.read_text(encoding="utf-8")


def test_one_report_names_its_points_once(monkeypatch):
    """Tidy (s36f): every section of a report (each table, note and fold, on each try at a comment's size
    limit) rebuilt the comparison's point naming, a pass over all its points; one report builds it once,
    and every section still names a point without a config key by its model."""
    from sweepgate.results import compare as C

    pts = [point(**{R.CONFIG_KEY: None, R.CONC: c}) for c in range(1, 81)]
    comp = C.Comparison(run="9", verdicts=[C.Verdict(pt, None, None, 2, None, None, None, None, C.FAILED, 0.05,
                                                     status="failure") for pt in pts],
                        heads={pt: {R.MODEL: "org/model"} for pt in pts}, baselines={},
                        repeated={pts[0]: 2}, not_measured=[C.NotMeasured(pts[1], None, "7")])
    built, real = [], render.point_naming
    monkeypatch.setattr(render, "point_naming", lambda c: built.append(c) or real(c))
    body, whole = render.fitted_markdown(comp, limit=3000)
    assert not whole and len(built) == 1, len(built)  # cut to fit: several tries, one naming
    assert "org/model b300 fixed 1024/1024 conc 1 (2×)" in body and "| org/model b300 fixed 1024/1024 conc 1 |" in body
    built.clear()
    text = render.table_text(comp)
    assert len(built) == 1 and "org/model b300 fixed 1024/1024 conc 1 (2×)" in text, len(built)
