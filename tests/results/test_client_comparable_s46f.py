"""s46f: a point's figures are compared only with main's measured by the same benchmark client.

The client (vLLM's `bench serve`, SGLang's `bench_serving`, AIPerf, GenAI-Perf) was no part of what a baseline run had
to share with the run it judges: a PR that moved its benchmark from vLLM's client to SGLang's (other token counting,
warm-up, request pacing) was judged against main's vLLM figures as if nothing had changed, the change named beside a
verdict of `regressed`. Now such a point is `insufficient-data`, its `why` naming the clients, main's figures still
shown beside it; so is one measured with another release line of a client whose output states its own version (AIPerf
0.8 -> 0.11), and main's own older runs of another client within the window are passed over as another recipe's are.
Real outputs (vLLM `bench serve`, SGLang `bench_serving` 0.5.8, AIPerf 0.8), one job a run with its sidecar, through
`results ingest` into SQLite, then `results compare`.
"""

from __future__ import annotations

import json
from pathlib import Path

from helpers import ROW, SAMPLES, job, run_cli, write_job
from sweepgate.results import compare as C
from sweepgate.results import record as R

VLLM = SAMPLES / "vllm" / "vllmbench0.1x_qwen3-32b_b200x8_tp8_isl1024_osl128_c100.json"
SGLANG = SAMPLES / "sglang" / "sglang0.5.8_gptoss120b_a100x8_tp8_in1024_out128_c100_details.jsonl"
AIPERF = SAMPLES / "aiperf" / "aiperf_kimik2.7_fp4_mi355x_tp4_conc4.json"
KEY = "qwen3-32b-fp8-b200-vllm"
PR_REF = "refs/pull/7/head"
TPUT = R.OUTPUT_TPUT_PER_GPU


def _row(conc: int, isl: int = 1024, osl: int = 128) -> dict:
    return {**ROW, "model": "Qwen/Qwen3-32B", "model-prefix": "qwen3-32b", "precision": "fp8",
            "runner": "cluster:b200-nv", "conc": conc, "isl": isl, "osl": osl, "max-model-len": isl + osl,
            "exp-name": "qwen3-32b_1k128_tp8"}


def _scaled(doc: dict, scale: float) -> dict:
    """A real output as a run ``scale`` times as fast measured it: every rate up, every time down, alike."""
    for name, value in doc.items():
        if name.endswith(("_throughput", "_per_s")) and isinstance(value, float):
            doc[name] = value * scale
        elif (name == "duration" or name.endswith("_ms")) and isinstance(value, float):
            doc[name] = value / scale
    return doc


def _ingest(tmp_path: Path, db: str, capsys, run: str, output: str, day: int, *, conc: int = 100,
            ref: str = "refs/heads/main") -> None:
    """One run: one job, its output (a client's text as written: SGLang's JSONL line too) and its sidecar."""
    folder = tmp_path / "jobs" / run
    side = job(run_id=run, ref=ref, row=_row(conc), **{"config-key": KEY},
               started=f"2026-02-{day:02d}T00:00:00+00:00", finished=f"2026-02-{day:02d}T00:09:59+00:00")
    write_job(folder, "c", output, side)
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(folder))
    assert rc == 0, err


def _vllm(scale: float) -> str:
    return json.dumps(_scaled(json.loads(VLLM.read_text(encoding="utf-8")), scale))


def _sglang(scale: float) -> str:
    """SGLang's line as written (its unlimited rate a bare Infinity), each run's own."""
    return json.dumps(_scaled(json.loads(SGLANG.read_text(encoding="utf-8")), scale))


def _compare(capsys, db: str, *extra: str) -> tuple[int, dict]:
    rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "2001", "--json", *extra)
    assert rc in (0, 3), err
    return rc, json.loads(out)


def _tput(report: dict) -> dict:
    (point,) = [p for p in report["points"] if p["metric"] == TPUT]
    return point


def _main_vllm(tmp_path, db, capsys) -> None:
    for day, (run, scale) in enumerate({"1001": 1.0, "1002": 1.012, "1003": 0.991}.items(), 1):
        _ingest(tmp_path, db, capsys, run, _vllm(scale), day)


WHY = ("another benchmark client than the baseline runs' (client vllm-bench \u2192 sglang-bench): two clients count "
       "a run apart (its tokens, warm-up and request pacing), so its figures are not judged against theirs")


def test_a_pr_that_moved_to_another_client_is_not_judged_against_main_s_figures(tmp_path, db, capsys):
    """Main measured conc 100 with vLLM's bench serve three times; the PR's job measured it with SGLang's
    bench_serving. Its throughput per GPU is far from main's, and that was `regressed` (exit 3), the client change only
    named beside it. Now every metric of the point is insufficient-data, the why naming both clients, main's median
    and the change still shown; --fail-on-regression passes; the terminal and Markdown reports say why."""
    _main_vllm(tmp_path, db, capsys)
    _ingest(tmp_path, db, capsys, "2001", SGLANG.read_text(encoding="utf-8"), 9, ref=PR_REF)
    rc, report = _compare(capsys, db, "--fail-on-regression")
    tput = _tput(report)
    assert tput["verdict"] == C.INSUFFICIENT and tput["why"] == WHY, tput
    assert tput["baseline"]["n"] == 3 and tput["change"] is not None and tput["p-adjusted"] is None
    assert {p["verdict"] for p in report["points"]} == {C.INSUFFICIENT}
    assert rc == 0
    rc, text, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "2001")
    flat = " ".join(text.split())
    assert ("At 1 point this run used another benchmark client than main's runs (client vllm-bench \u2192 "
            "sglang-bench): two clients count a run apart") in flat, text
    rc, md, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "2001", "--markdown")
    assert "until main's runs there use this client too" in " ".join(md.split()), md


def test_the_same_client_is_judged_as_before(tmp_path, db, capsys):
    _main_vllm(tmp_path, db, capsys)
    _ingest(tmp_path, db, capsys, "2001", _vllm(0.85), 9, ref=PR_REF)
    rc, report = _compare(capsys, db, "--fail-on-regression")
    tput = _tput(report)
    assert rc == 3 and tput["verdict"] == C.REGRESSED and "why" not in tput, tput


def test_main_s_own_runs_of_another_client_in_the_window_are_passed_over(tmp_path, db, capsys):
    """Main moved conc 100 from vLLM's client to SGLang's two runs ago: its three vLLM runs are passed over (named,
    the change said), as another recipe's are, and the PR, measured with SGLang's like main's newest, has two runs of
    its client: insufficient-data for too few, never judged against the vLLM runs' figures."""
    _main_vllm(tmp_path, db, capsys)
    for day, (run, scale) in enumerate({"1004": 1.0, "1005": 1.01}.items(), 4):
        _ingest(tmp_path, db, capsys, run, _sglang(scale), day)
    _ingest(tmp_path, db, capsys, "2001", _sglang(0.995), 9, ref=PR_REF)
    rc, report = _compare(capsys, db)
    tput = _tput(report)
    assert tput["verdict"] == C.INSUFFICIENT and tput["baseline"]["n"] == 2, tput
    assert [p["run-id"] for p in tput["passed-over"]] == ["1003", "1002", "1001"]
    assert tput["passed-over"][0]["why"] == ("another recipe than baseline run 1005, the newest (client vllm-bench "
                                             "\u2192 sglang-bench)")
    assert "client vllm-bench \u2192 sglang-bench from baseline run 1004" in tput["why"], tput


def _aiperf(version: str | None, scale: float = 1.0, day: int = 0) -> str:
    """The real AIPerf 0.8.0 export (Kimi-K2.7, conc 4) as ``version`` of the client wrote it, ``scale`` times as
    fast (its throughputs up, its latencies down), run ``day`` days later (its request timestamps moved: another
    run, not the same run's export again, which store_dedup counts once by its request span)."""
    doc = json.loads(AIPERF.read_text(encoding="utf-8"))
    doc["aiperf_version"] = version
    for name, value in doc.items():
        if name.endswith("_timestamp") and isinstance(value, dict):
            doc[name] = {k: v + day * 86_400e9 if isinstance(v, (int, float)) and not isinstance(v, bool) else v
                         for k, v in value.items()}
        elif isinstance(value, dict) and isinstance(value.get("avg"), (int, float)):
            factor = scale if "throughput" in name else 1 / scale if value.get("unit") in ("ms", "sec") else 1
            for stat, figure in value.items():
                if isinstance(figure, (int, float)) and not isinstance(figure, bool):
                    value[stat] = figure * factor
    return json.dumps(doc)


def _aiperf_runs(tmp_path, db, capsys, pr_version: str, pr_scale: float) -> dict:
    for day, (run, scale) in enumerate({"1001": 1.0, "1002": 1.01, "1003": 0.99}.items(), 1):
        _ingest(tmp_path, db, capsys, run, _aiperf("0.8.0", scale, day), day, conc=4)
    _ingest(tmp_path, db, capsys, "2001", _aiperf(pr_version, pr_scale, 9), 9, conc=4, ref=PR_REF)
    return _tput(_compare(capsys, db)[1])


def test_another_release_line_of_a_client_that_states_its_version_is_not_judged(tmp_path, db, capsys):
    """AIPerf 0.8 on main, 0.11 in the PR (before 1.0 each minor release may count otherwise): not judged."""
    tput = _aiperf_runs(tmp_path, db, capsys, "0.11.0", 0.8)
    assert tput["verdict"] == C.INSUFFICIENT, tput
    assert tput["why"].startswith("another benchmark client than the baseline runs' (client aiperf 0.8.0 \u2192 "
                                  "0.11.0): "), tput


def test_a_patch_release_of_the_client_is_judged(tmp_path, db, capsys):
    tput = _aiperf_runs(tmp_path, db, capsys, "0.8.1", 0.8)
    assert tput["verdict"] == C.REGRESSED and "why" not in tput, tput


def test_a_version_the_output_does_not_state_differs_from_none(tmp_path, db, capsys):
    tput = _aiperf_runs(tmp_path, db, capsys, None, 0.8)
    assert tput["verdict"] == C.REGRESSED and "why" not in tput, tput


def test_release_lines():
    assert [R.client_major(v) for v in ("0.8.0", "0.8.1", "0.11.0", "v1.2.3", "1.9", "2", "0", None, "",
                                         "lmms-eval main@abc1234", 3)] == [
        (0, 8), (0, 8), (0, 11), (1,), (1,), (2,), (0,), None, None, None, None]


def test_sglang_s_version_is_its_server_s_and_no_client_change():
    """SGLang's bench_serving stores its server's version (``server_info``): a PR bumping the server's image is judged
    on the bump, not passed over as another client."""
    old = {R.CLIENT: "sglang-bench", R.CLIENT_VERSION: "0.4.9"}
    assert C.client_change(old, {R.CLIENT: "sglang-bench", R.CLIENT_VERSION: "0.5.8"}) is None
    assert C.client_change({R.CLIENT: "aiperf", R.CLIENT_VERSION: "0.4.0"},
                           {R.CLIENT: "aiperf", R.CLIENT_VERSION: "0.5.0"}) == "client aiperf 0.4.0 \u2192 0.5.0"


def test_the_chart_legend_says_why_the_point_is_not_judged(tmp_path, db, capsys):
    """`--plots`: the point's label says `not judged`, and the legend said that was for too few baseline runs, when
    main had three; it names the other client instead."""
    _main_vllm(tmp_path, db, capsys)
    _ingest(tmp_path, db, capsys, "2001", _sglang(1.0), 9, ref=PR_REF)
    rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "2001", "--plots", str(tmp_path / "c"))
    assert rc == 0, err
    (svg,) = (tmp_path / "c").glob("*.svg")
    text = svg.read_text(encoding="utf-8")
    assert "not judged: another benchmark client than the baseline's" in text, text[:3000]
    assert "too few baseline runs" not in text


def test_the_markdown_section_of_changes_not_judged_says_why_they_are_not(tmp_path, db, capsys):
    """The open section of points not judged that changed beyond their threshold said "Too few baseline runs to tell
    these from noise" of a point main had three runs of, measured with another client."""
    _main_vllm(tmp_path, db, capsys)
    _ingest(tmp_path, db, capsys, "2001", _sglang(1.0), 9, ref=PR_REF)
    rc, md, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "2001", "--markdown")
    assert "Too few baseline runs" not in md, md
    assert ("Measured with another benchmark client than the baseline runs (see the note above); look at them before "
            "merging.") in md, md


def test_the_window_bounds_a_recipe_main_went_back_to(tmp_path):
    """s46f's review of the window (decided right as it is): main ran image A (runs 1-6), B (7, 8), then A again (9,
    10). The window of 5 (6-10) keeps its A runs, 6, 9 and 10, and passes 7 and 8 over; runs 1-5, of A too, are
    older than the window and stay out, as every run before the window does: `--window` bounds how old a baseline
    run may be, whatever its recipe."""
    import synth

    old, new = "vllm/vllm-openai:v0.11.0", "vllm/vllm-openai:v0.12.0"
    main = [synth.make(str(run), synth.KEYS[0], 4, synth.curve(4), day=run, image=new if run in (7, 8) else old)
            for run in range(1, 11)]
    pr = [synth.make("pr-1", synth.KEYS[0], 4, synth.curve(4), ref=PR_REF, day=20, image=old)]
    result = C.compare_records(pr, main)
    (pt,) = result.heads
    assert [r[R.RUN_ID] for r in result.baselines[pt]] == ["10", "9", "6"]
    assert [r[R.RUN_ID] for r in result.passed_over[pt].runs] == ["8", "7"]
