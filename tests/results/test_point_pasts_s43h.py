"""s43h (a new user's walk): `results compare` placed a run at the earliest time its records carry, and took a
point's baseline from main's runs before that. README's hand-ingest loop with three main runs made of the same two
real outputs (InferenceX's vLLM client: conc 32 dated 10:35, conc 64 dated 11:44) had `results compare --run 103`
judge conc 32 against runs 101 and 102 and call conc 64 `new`: main's conc 64 of 11:44 was after 10:35. And a PR
run of a recipe main never ran drew "context: main's newest ..." through one of main's two points. Main's baseline
of a point is now main's runs that measured THAT point before the run did (``record.Pasts``); the context, main's
newest figures by the time the run measured its last point. Through the real commands into SQLite, from the store
and from --baseline-jsonl alike."""

from __future__ import annotations

import json
import re
import shutil

import pytest

import synth
from helpers import ROW, SAMPLES, compared_json, sweepgate_at
from sweepgate import cli
from sweepgate.results import record as R
from sweepgate.results import store

OUTPUT = "vllm/ifx_benchserving_kimik2.5_int4_mi355x_tp8_mtp_8k1k_conc{}.json"  # conc 32 at 10:35, 64 at 11:44
KEY, NEW = "kimik2.5-int4-mi355x-vllm", "kimik2.5-int4-mi355x-vllm-mtp"


def _ingest(tmp_path, key: str, run: str, ref: str) -> None:
    """README's loop, one run: each output with its row (`--row`, `--run-id`, `--ref`, `--config-key`)."""
    for conc in (32, 64):
        row = tmp_path / f"row-c{conc}.json"
        row.write_text(json.dumps({**ROW, "conc": conc, "isl": 8192, "osl": 1024, "model": "moonshotai/Kimi-K2.5",
                                   "model-prefix": "kimik2.5", "exp-name": "kimik2.5_8k1k"}), encoding="utf-8")
        out = tmp_path / f"{key}-{run}" / f"c{conc}.json"
        out.parent.mkdir(exist_ok=True)
        shutil.copyfile(SAMPLES / OUTPUT.format(conc), out)
        proc = sweepgate_at(tmp_path, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", "--row",
                            row.name, "--run-id", run, "--ref", ref, "--config-key", key, "--jsonl", "main.jsonl"
                            if ref == "refs/heads/main" else "pr.jsonl", str(out.relative_to(tmp_path)))
        assert proc.returncode == 0, proc.stderr


def _baselines(report: dict) -> dict[int, tuple[int, str]]:
    return {p["conc"]: (p["baseline"]["n"], p["verdict"]) for p in report["points"]
            if p["metric"] == "output_tput_per_gpu"}


@pytest.mark.parametrize("source", ["store", "baseline-jsonl"])
def test_a_later_point_of_a_main_run_keeps_its_baseline(tmp_path, source):
    for run in ("101", "102", "103"):
        _ingest(tmp_path, KEY, run, "refs/heads/main")
    extra = ("--baseline-jsonl", "main.jsonl") if source == "baseline-jsonl" else ()
    report, err = compared_json(tmp_path, f"sqlite:///{tmp_path / 'r.db'}", "103", *extra)
    # one output stored as three runs counts once (the report says so): one baseline value at each point
    assert _baselines(report) == {32: (1, "insufficient-data"), 64: (1, "insufficient-data")}, report["points"]
    assert report["counts"].get("new", 0) == 0, err  # conc 64 was new
    report, _ = compared_json(tmp_path, f"sqlite:///{tmp_path / 'r.db'}", "101", *extra)
    assert _baselines(report) == {32: (0, "new"), 64: (0, "new")}  # the first run has nothing before it


def _context_points(svg) -> int:
    """How many points the chart's context line (main's nearest recipe) passes through."""
    found = re.search(r'<g id="context-recipe">\s*<path d="([^"]*)"', svg.read_text(encoding="utf-8"))
    return 0 if found is None else len(re.findall(r"[ML]", found.group(1)))


@pytest.mark.parametrize("source", ["store", "baseline-jsonl"])
def test_a_new_recipe_s_chart_draws_every_point_of_main_s_nearest_recipe(tmp_path, source):
    for run in ("101", "102", "103"):
        _ingest(tmp_path, KEY, run, "refs/heads/main")
    _ingest(tmp_path, NEW, "200", "refs/pull/7/head")
    extra = ("--baseline-jsonl", "main.jsonl") if source == "baseline-jsonl" else ()
    proc = sweepgate_at(tmp_path, "results", "compare", "--db", f"sqlite:///{tmp_path / 'r.db'}", "--run", "200",
                        "--plots", "charts", *extra)
    assert proc.returncode == 0, proc.stderr
    (svg,) = (tmp_path / "charts").glob("*.svg")
    assert f"main's newest {KEY}" in svg.read_text(encoding="utf-8")
    assert _context_points(svg) == 2  # was 1: main's conc 64 of 11:44 was after the run's 10:35


def _judged(capsys, url: str, *extra: str) -> dict[int, tuple[int, float]]:
    capsys.readouterr()
    assert cli.main(["results", "compare", "--db", url, "--run", "pr-7", "--json", *extra]) == 0
    report = json.loads(capsys.readouterr().out)
    return {p["conc"]: (p["baseline"]["n"], p["baseline"]["median"]) for p in report["points"]
            if p["metric"] == R.OUTPUT_TPUT_PER_GPU}


def test_a_point_s_window_is_main_s_last_runs_before_the_run_measured_that_point(env, capsys):
    """Main ran conc 32 and 64 daily (run k at day k+1, 1000 + k tok/s/GPU); the PR run measured conc 32 on day 5
    and conc 64 on day 10: conc 64's window is main's runs of days 6 to 10 (median 1007), not those before day 5
    (1002), and conc 32 still has its 5 runs from a store asked once for the run's latest past."""
    main = [synth.make(f"main-{k:02d}", synth.KEYS[0], conc, {**synth.curve(conc), R.OUTPUT_TPUT_PER_GPU: 1000.0 + k},
                       day=k + 1) for k in range(12) for conc in (32, 64)]
    pr = [{**synth.make("pr-7", synth.KEYS[0], conc, synth.curve(conc), ref="refs/pull/7/merge"),
           R.FINISHED: f"2026-11-{day:02d}T18:00:00Z"} for conc, day in ((32, 5), (64, 10))]
    url = f"sqlite:///{env / 'r.db'}"
    with store.open_store(url) as st:
        st.add(main + pr)
    (env / "main.jsonl").write_text("".join(json.dumps(r) + "\n" for r in main), encoding="utf-8")
    want = {32: (5, 1002.0), 64: (5, 1007.0)}
    assert _judged(capsys, url) == want
    assert _judged(capsys, url, "--baseline-jsonl", str(env / "main.jsonl")) == want
