"""realdata29 hunt: real sweep output folders, ingested as their tools lay them out
(tests/data/results-real/SOURCES.tsv names each file's repository, path and commit).

A sweep tool writes each run's own output and, beside them, a summary of the runs: `vllm bench sweep
serve` a summary.json that is the list of the run=N.json beside it, AIPerf a sweep_aggregate/ folder of
statistics across its concurrency_N/ exports. Ingesting the sweep's folder stores each run once and
passes the summary over, counted on a line of its own; it was stored twice over (vLLM) or refused,
failing the folder with exit 1 and a hint to ingest the very folders ingested (AIPerf)."""

from __future__ import annotations

import shutil

from helpers import ROOT, ingested_verbose, no_ref_said, run_cli, show_json

REAL = ROOT / "tests" / "data" / "results-real"
# er0080/vllm-benchmarking packages/api/tests/fixtures/vllm_sweep_v0.25.1/SERVE--max_num_seqs=4-...: a real
# `vllm bench sweep serve` run of vLLM 0.25.1, two runs of one point and the summary.json of them
SWEEP_POINT = "SERVE--max_num_seqs=4-BENCH--max_concurrency=2-num_prompts=8"
SWEEP_FILES = {"run=0.json": "vllm/vllm0.25.1_bench_sweep_run0_opt125m_c2.json",
               "run=1.json": "vllm/vllm0.25.1_bench_sweep_run1_opt125m_c2_seqs4.json",
               "summary.json": "vllm/vllm0.25.1_bench_sweep_summary_2runs_c2.json"}
# akamaslabs/vllm-benchmark studies/26-g7-4500-gpu-slice-right-sizing/results/aiperf-exp7-no-mig-repeat/:
# one concurrency's export (and its CSV) and the sweep's aggregate of all twelve
AIPERF_FILES = {"concurrency_16/profile_export_aiperf.json": "aiperf/aiperf0.11_qwen3-4b_g7_conc16_trimmed.json",
                "concurrency_16/profile_export_aiperf.csv": "aiperf/aiperf0.11_qwen3-4b_g7_conc16.csv",
                "sweep_aggregate/profile_export_aiperf_sweep.json": "aiperf/aiperf0.11_sweep_aggregate_trimmed.json",
                "sweep_aggregate/profile_export_aiperf_sweep.csv": "aiperf/aiperf0.11_sweep_aggregate_trimmed.csv"}


def _laid_out(root, files: dict) -> None:
    for name, rel in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(REAL / rel, root / name)


def test_a_vllm_bench_sweep_point_folder_stores_each_run_once(tmp_path, capsys):
    """summary.json is the list of the run=N.json beside it (the same runs, key for key): each run
    was stored twice, as run=0.json and summary.json#1, and read as measured four times."""
    point = tmp_path / "experiment" / SWEEP_POINT
    _laid_out(point, SWEEP_FILES)
    db, out = ingested_verbose(capsys, tmp_path, tmp_path / "experiment")
    assert f"skipped {point / 'summary.json'}" in out.splitlines()
    assert ("skipped 1 vllm bench sweep summary file (summary.json, serve_sla's SLA--*.json: the list of a point's "
            "run=N.json, each run read from its own file)") in out.splitlines()
    assert "ingested 2 results (2 new)" in out
    recs = show_json(capsys, db)
    assert sorted(r["result-filename"] for r in recs) == ["run=0.json", "run=1.json"]
    assert sorted(r["metrics"]["ttft_mean_ms"] for r in recs) == [39.30731637592544, 217.27289337468392]


def test_a_vllm_bench_sweep_summary_without_its_runs_is_read(tmp_path, capsys):
    """A summary.json whose runs are not all beside it (one deleted, or the summary copied alone) holds
    the only copy of some: it is read, each run a result, as before."""
    point = tmp_path / SWEEP_POINT
    _laid_out(point, {name: rel for name, rel in SWEEP_FILES.items() if name != "run=1.json"})
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(point / "summary.json"))
    assert rc == 0 and no_ref_said(err) == "", err
    assert "ingested 2 results (2 new)" in out and "skipped" not in out


def test_an_aiperf_sweep_folder_stores_its_runs_and_passes_over_its_aggregate(tmp_path, capsys):
    """The folder an AIPerf sweep writes was refused at its aggregate (exit 1), with the hint to ingest
    the concurrency_N/ folders it had just ingested; the aggregate is passed over as the multi-run
    aggregate of --num-profile-runs is, counted on its own line."""
    sweep = tmp_path / "aiperf-exp7-no-mig-repeat"
    _laid_out(sweep, AIPERF_FILES)
    db, out = ingested_verbose(capsys, tmp_path, sweep)
    assert f"skipped {sweep / 'sweep_aggregate' / 'profile_export_aiperf_sweep.json'}" in out.splitlines()
    assert ("skipped 1 AIPerf sweep aggregate (statistics across a sweep's runs, one entry per swept value: "
            "each run's own profile_export_aiperf.json, in the sweep's folder for its value such as concurrency_16/, "
            "is a result)") in out.splitlines()
    assert "ingested 1 results (1 new)" in out
    (rec,) = show_json(capsys, db)
    assert rec["conc"] == 16 and rec["client"] == "aiperf"


def test_an_aiperf_sweep_aggregate_folder_alone_holds_no_result(tmp_path, capsys):
    """Its sweep_aggregate/ folder alone is a folder of no result files (exit 1), as one of only
    multi-run aggregates is."""
    sweep = tmp_path / "sweep"
    _laid_out(sweep, {k: v for k, v in AIPERF_FILES.items() if k.startswith("sweep_aggregate/")})
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}",
                           str(sweep / "sweep_aggregate"))
    assert rc == 1 and err.startswith(f"{sweep / 'sweep_aggregate'}: no result files in this folder, only files "
                                      "that go with one"), err


# FernandoDorado/sizing-llm-inference-nvidia artifacts/meta_llama3-8b-instruct-openai-chat-concurrency1/: the
# folder GenAI-Perf wrote for one run (NIM llama3-8b, concurrency 1), its perf_analyzer export beside its own
GENAI_PERF_FILES = {"profile_export_genai_perf.json": "aiperf/genaiperf_nim-llama3-8b_trtllm_isl200_osl50_conc1.json",
                    "profile_export_genai_perf.csv": "aiperf/genaiperf_nim-llama3-8b_trtllm_isl200_osl50_conc1.csv",
                    "200_50.json": "aiperf/perfanalyzer2.48_raw_profile_export_conc1_first_request_trimmed.json"}


def test_a_genai_perf_artifact_folder_stores_its_run_and_passes_over_perf_analyzer_s_export(tmp_path, capsys):
    """GenAI-Perf leaves perf_analyzer's raw per-request export (--profile-export-file, profile_export.json
    by default) beside its own in every artifact folder; it was refused, failing the folder (exit 1) with
    the hint to ingest the profile_export_genai_perf.json just stored. It goes beside a result, as AIPerf's
    per-request records do: passed over and counted."""
    from helpers import SAMPLES

    folder = tmp_path / "meta_llama3-8b-instruct-openai-chat-concurrency1"
    folder.mkdir()
    for name, rel in GENAI_PERF_FILES.items():
        shutil.copyfile((REAL if (REAL / rel).is_file() else SAMPLES) / rel, folder / name)
    db, out = ingested_verbose(capsys, tmp_path, folder)
    assert f"skipped {folder / '200_50.json'}" in out.splitlines()
    assert ("skipped 1 file with no result (GPU metrics, lm-eval samples logs, AIPerf's and GenAI-Perf's other "
            "exports: files that go beside one)") in out.splitlines()
    assert "ingested 1 results (1 new)" in out
    (rec,) = show_json(capsys, db)
    assert (rec["client"], rec["conc"]) == ("genai-perf", 1)
