"""s45l: a point's throughput baseline is main's runs of its newest recipe, not a mix of two.

When main changed a point's recipe within the window (its image moved from v0.25.1 to v0.27.0 two runs ago), the
baseline median and its noise mixed the two recipes: a PR was judged against neither, and the spread of the mix
widened the interval until a 10 % drop against main's current recipe read `unchanged`. The baseline is now the runs
of the window whose recipe is that of main's newest run of the point; the older ones are passed over, counted and
named (`--json`'s `"passed-over"`, a note over the tables, the headline's and the chart legend's count), and with
fewer than `--min-samples` such runs left the point is `insufficient-data`, saying why, rather than judged on a mix.
A real vLLM `bench serve` output (Qwen3-32B on 8xB200, conc 100), one job a run with its sidecar, through
`results ingest` into SQLite (and `--jsonl`, for `--baseline-jsonl`), then `results compare`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import ROW, SAMPLES, job, run_cli, write_job
from sweepgate.results import compare as C
from sweepgate.results import record as R

OUTPUT = SAMPLES / "vllm" / "vllmbench0.1x_qwen3-32b_b200x8_tp8_isl1024_osl128_c100.json"
KEY = "qwen3-32b-fp8-b200-vllm"
PR_REF = "refs/pull/7/head"
OLD, NEW = "vllm/vllm-openai:v0.25.1", "vllm/vllm-openai:v0.27.0"
FINGERPRINT = {OLD: "25" * 32, NEW: "27" * 32}
TPUT = R.OUTPUT_TPUT_PER_GPU


def _row(image: str, conc: int = 100) -> dict:
    return {**ROW, "image": image, "recipe-fingerprint": FINGERPRINT[image], "model": "Qwen/Qwen3-32B",
            "model-prefix": "qwen3-32b", "precision": "fp8", "runner": "cluster:b200-nv", "conc": conc,
            "isl": 1024, "osl": 128, "max-model-len": 1280, "exp-name": "qwen3-32b_1k128_tp8"}


def _output(day: int, scale: float, conc: int) -> dict:
    """The real output as run ``day`` measured it: its rates scaled by ``scale`` (its times by 1/scale), its
    date that day's (each run's own output, as a real job's is)."""
    doc = json.loads(OUTPUT.read_text(encoding="utf-8"))
    doc["date"] = f"202602{day:02d}-00{conc % 60:02d}51"
    doc["max_concurrency"] = conc
    for name, value in doc.items():  # a faster server: every rate up, every time down, alike
        if name.endswith(("_throughput", "_per_s")) and isinstance(value, float):
            doc[name] = value * scale
        elif (name == "duration" or name.endswith("_ms")) and isinstance(value, float):
            doc[name] = value / scale
    return doc


def _ingest(tmp_path: Path, db: str, capsys, run: str, image: str, scale: float, day: int, *,
            ref: str = "refs/heads/main", concs: tuple[int, ...] = (100,)) -> None:
    """One run: a job per concurrency, its output and its sidecar, ingested (and appended to ``main.jsonl`` when
    the run is main's)."""
    folder = tmp_path / "jobs" / run
    for conc in concs:
        side = job(run_id=run, ref=ref, row=_row(image, conc), **{"config-key": KEY},
                   started=f"2026-02-{day:02d}T00:{conc % 60:02d}:00+00:00",
                   finished=f"2026-02-{day:02d}T00:{conc % 60:02d}:59+00:00")
        write_job(folder, f"c{conc}", _output(day, scale, conc), side)
    jsonl = ("--jsonl", str(tmp_path / "main.jsonl")) if ref == "refs/heads/main" else ()
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, *jsonl, str(folder))
    assert rc == 0, err


# main's runs: three at v0.25.1, then the image bump, which made the point 15 % faster; a little noise each run
OLD_RUNS = {"1001": 1.00, "1002": 1.012, "1003": 0.991}
NEW_RUNS = {"1004": 1.15, "1005": 1.162, "1006": 1.141}


def _main(tmp_path, db, capsys, new_runs: int = 3, concs: tuple[int, ...] = (100,)) -> None:
    day = 1
    for run, scale in OLD_RUNS.items():
        _ingest(tmp_path, db, capsys, run, OLD, scale, day, concs=concs)
        day += 1
    for run, scale in list(NEW_RUNS.items())[:new_runs]:
        _ingest(tmp_path, db, capsys, run, NEW, scale, day, concs=concs)
        day += 1


def _compare(capsys, db: str, tmp_path: Path, source: str, *extra: str) -> tuple[int, dict]:
    base = ("--baseline-jsonl", str(tmp_path / "main.jsonl")) if source == "jsonl" else ()
    rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "2001", "--json", *base, *extra)
    assert rc in (0, 3), err
    return rc, json.loads(out)


def _tput(report: dict, conc: int = 100) -> dict:
    (point,) = [p for p in report["points"] if p["metric"] == TPUT and p["conc"] == conc]
    return point


def _why(run: str, newest: str = "1006") -> str:
    return f"another recipe than baseline run {newest}, the newest (image v0.25.1 \u2192 v0.27.0)"


@pytest.mark.parametrize("source", ["store", "jsonl"])
def test_a_drop_against_main_s_new_recipe_is_not_hidden_by_its_old_runs(tmp_path, db, capsys, source):
    """Main's window (1002-1006) holds two runs at v0.25.1 and three at v0.27.0. A PR at v0.27.0 10 % under main's
    v0.27.0 runs: against the mix (median 1.141, spread 15 %) it read unchanged; against the three v0.27.0 runs it
    regresses, and --fail-on-regression exits 3. The two older runs are named as passed over, and why."""
    _main(tmp_path, db, capsys)
    _ingest(tmp_path, db, capsys, "2001", NEW, 1.15 * 0.90, 9, ref=PR_REF)
    rc, report = _compare(capsys, db, tmp_path, source, "--fail-on-regression")
    tput = _tput(report)
    assert tput["baseline"]["n"] == 3 and tput["verdict"] == C.REGRESSED, tput
    assert rc == 3
    assert tput["baseline"]["median"] == pytest.approx(5368.234273466431 * 1.15 / 8)
    assert tput["passed-over"] == [{"run-id": "1003", "why": _why("1003")}, {"run-id": "1002", "why": _why("1002")}]
    assert "why" not in tput  # judged: nothing to explain
    # the PR runs main's current recipe: no recipe change beside it
    rc, text, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "2001",
                            *(("--baseline-jsonl", str(tmp_path / "main.jsonl")) if source == "jsonl" else ()))
    flat = " ".join(text.split())
    assert "\u2192 v0.27.0" in flat and "2 older runs of another recipe passed over" in flat, text
    assert "(last 5 runs; 3 found at the newest recipe)" in flat, text


def test_with_too_few_runs_of_main_s_new_recipe_the_point_is_not_judged_on_a_mix(tmp_path, db, capsys):
    """Main ran v0.27.0 only twice (1004, 1005): two values, under --min-samples 3: insufficient-data, its why naming
    the three v0.25.1 runs passed over; the Markdown report and the terminal table say so too."""
    _main(tmp_path, db, capsys, new_runs=2)
    _ingest(tmp_path, db, capsys, "2001", NEW, 1.15 * 0.90, 9, ref=PR_REF)
    rc, report = _compare(capsys, db, tmp_path, "store", "--fail-on-regression")
    tput = _tput(report)
    assert rc == 0 and tput["verdict"] == C.INSUFFICIENT and tput["baseline"]["n"] == 2, tput
    assert [p["run-id"] for p in tput["passed-over"]] == ["1003", "1002", "1001"]
    assert tput["why"] == ("2 baseline runs of the newest recipe, fewer than --min-samples 3: 3 older runs of "
                           "another recipe passed over (image v0.25.1 \u2192 v0.27.0 from baseline run 1004)"), tput
    rc, md, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "2001", "--markdown")
    flat = " ".join(md.split())
    assert ("At 1 point main changed the recipe within the window (image v0.25.1 \u2192 v0.27.0 from run 1004): it is "
            "judged against main's runs of the newest recipe alone, 3 older runs of another recipe passed over; "
            "1 point has fewer than --min-samples such runs: insufficient-data until main has run the new recipe "
            "that often") in flat, md
    assert "(last 5 runs; 2 found at the newest recipe)" in flat
    # --min-samples 2 judges it on the two, never on the mix
    rc, report = _compare(capsys, db, tmp_path, "store", "--min-samples", "2")
    tput = _tput(report)
    assert tput["baseline"]["n"] == 2 and tput["verdict"] != C.INSUFFICIENT and "why" not in tput, tput


def test_a_pr_branched_before_main_s_change_is_judged_against_main_s_current_recipe(tmp_path, db, capsys):
    """The PR's branch predates the bump: it runs v0.25.1. Its baseline is main's three v0.27.0 runs (the recipe it
    would merge into), the change named beside it (image v0.27.0 → v0.25.1: the branch is behind main), not a mix of
    both images that read as neither."""
    _main(tmp_path, db, capsys)
    _ingest(tmp_path, db, capsys, "2001", OLD, 1.003, 9, ref=PR_REF)
    rc, report = _compare(capsys, db, tmp_path, "store")
    tput = _tput(report)
    assert tput["baseline"]["n"] == 3 and tput["verdict"] == C.REGRESSED, tput
    assert [p["run-id"] for p in tput["passed-over"]] == ["1003", "1002"]
    rc, text, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "2001")
    assert "image v0.27.0 \u2192 v0.25.1" in " ".join(text.split()), text


def test_without_a_recipe_change_in_main_nothing_is_passed_over(tmp_path, db, capsys):
    for day, (run, scale) in enumerate(OLD_RUNS.items(), 1):
        _ingest(tmp_path, db, capsys, run, OLD, scale, day)
    _ingest(tmp_path, db, capsys, "2001", NEW, 1.15, 9, ref=PR_REF)
    rc, report = _compare(capsys, db, tmp_path, "store")
    tput = _tput(report)
    assert tput["baseline"]["n"] == 3 and "passed-over" not in tput and "why" not in tput, tput
    rc, text, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "2001")
    assert "passed over" not in text and "at the newest recipe" not in text


def test_a_point_the_pr_dropped_stands_at_main_s_current_recipe(tmp_path, db, capsys):
    """Main ran conc 50 and 100; the PR only 100. The chart's cross for conc 50, not measured, stands at the median of
    main's v0.27.0 runs there, and the legend counts the runs of the newest recipe."""
    from sweepgate.results import store_adapter
    from sweepgate.results import charts

    _main(tmp_path, db, capsys, concs=(50, 100))
    _ingest(tmp_path, db, capsys, "2001", NEW, 1.15, 9, ref=PR_REF)
    rc, report = _compare(capsys, db, tmp_path, "jsonl")
    assert [(m["conc"], m["not-measured"], m["baseline-run"]) for m in report["not-measured"]] == [(50, "point", "1006")]
    pr, _, _, _ = store_adapter.from_store(db, "2001", "refs/heads/main", C.DEFAULT_WINDOW)
    main = [json.loads(line) for line in (tmp_path / "main.jsonl").read_text(encoding="utf-8").splitlines()]
    comparison = C.compare_records(pr, main)
    (dropped,) = comparison.dropped.values()
    assert [str(r[R.RUN_ID]) for r in dropped] == ["1006", "1005", "1004"]
    (group,) = charts.chart_groups(comparison).values()
    legend = charts.baseline_label(group, ("refs/heads/main", C.DEFAULT_WINDOW))
    assert legend == "baseline median of main's last 5 runs (3 found at the newest recipe; refs/heads/main)", legend


def test_the_chart_legend_says_the_medians_are_of_the_newest_recipe(tmp_path, db, capsys):
    """`results compare --plots`: the legend said "baseline median of main's last 5 runs" of a median of two runs
    of main's new recipe (the three older ones passed over); it says how many, and of what."""
    _main(tmp_path, db, capsys, new_runs=2)
    _ingest(tmp_path, db, capsys, "2001", NEW, 1.15, 9, ref=PR_REF)
    rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "2001", "--plots", str(tmp_path / "c"))
    assert rc == 0, err
    (svg,) = (tmp_path / "c").glob("*.svg")
    text = svg.read_text(encoding="utf-8")
    assert "baseline median of main's last 5 runs (2 found at the newest recipe; refs/heads/main)" in text
