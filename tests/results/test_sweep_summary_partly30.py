"""s30: a `vllm bench sweep serve` point folder whose summary.json lists a run that is not beside it.

The folder is the real point of a vLLM 0.25.1 sweep (tests/data/results-real/SOURCES.tsv,
er0080/vllm-benchmarking: run=0.json, run=1.json and their summary.json) with run=1.json taken away, as
when one run's file was deleted or not downloaded. The summary was read whole, so run 0, beside it, was
stored twice (run=0.json and summary.json#1): three rows for two runs. Each run is now stored once: from
its own file where it has one, from the summary only where it has none, and the summary's entry left out
is said on one "skipped" line.
"""

from __future__ import annotations

import json
import shutil

from helpers import ROOT, ingested_verbose, no_ref_said, run_cli, show_json

REAL = ROOT / "tests" / "data" / "results-real" / "vllm"
POINT = "SERVE--max_num_seqs=4-BENCH--max_concurrency=2-num_prompts=8"
RUN0, RUN1 = "vllm0.25.1_bench_sweep_run0_opt125m_c2.json", "vllm0.25.1_bench_sweep_run1_opt125m_c2_seqs4.json"
SUMMARY = "vllm0.25.1_bench_sweep_summary_2runs_c2.json"
RUN_TTFTS = [39.30731637592544, 217.27289337468392]  # mean TTFT of run 0, run 1
SKIPPED = ("skipped 1 run of vllm bench sweep summaries (summary.json#N, SLA--*.json#N) read from their own "
           "run=N.json instead (not stored twice; a summary's runs with no file of their own are read from it)")


def _point_without_run1(root):
    point = root / "experiment" / POINT
    point.mkdir(parents=True)
    shutil.copyfile(REAL / RUN0, point / "run=0.json")
    shutil.copyfile(REAL / SUMMARY, point / "summary.json")
    return point


def test_the_sample_summary_lists_both_runs_key_for_key():
    """What the test below stands on: the real summary.json is the two real run files, in order."""
    summary = json.loads((REAL / SUMMARY).read_text(encoding="utf-8"))
    assert summary == [json.loads((REAL / name).read_text(encoding="utf-8")) for name in (RUN0, RUN1)]


def test_a_run_beside_a_summary_missing_another_is_stored_once(tmp_path, capsys):
    point = _point_without_run1(tmp_path)
    db, out = ingested_verbose(capsys, tmp_path, tmp_path / "experiment")
    recs = show_json(capsys, db)
    assert len(recs) == 2, sorted(r["result-filename"] for r in recs)  # was 3: run 0 twice
    assert sorted(r["result-filename"] for r in recs) == ["run=0.json", "summary.json#2"]
    assert sorted(r["metrics"]["ttft_mean_ms"] for r in recs) == RUN_TTFTS
    assert f"skipped {point / 'summary.json'}#1" in out.splitlines()
    assert SKIPPED in out.splitlines()
    assert out.splitlines()[-1].startswith("ingested 2 results (2 new)")
    # ingested again: nothing new, and still two rows
    rc, again, err = run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path / "experiment"))
    assert rc == 0 and err == "", err
    assert "ingested 2 results (0 new)" in again and len(show_json(capsys, db)) == 2


def test_a_summary_with_no_run_beside_it_is_still_read_whole(tmp_path, capsys):
    """Its runs have no file of their own: both are read from it, and nothing is said skipped."""
    point = tmp_path / POINT
    point.mkdir()
    shutil.copyfile(REAL / SUMMARY, point / "summary.json")
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(point))
    assert rc == 0 and no_ref_said(err) == "", err
    assert "skipped" not in out and "ingested 2 results (2 new)" in out
    assert sorted(r["result-filename"] for r in show_json(capsys, db)) == ["summary.json#1", "summary.json#2"]
