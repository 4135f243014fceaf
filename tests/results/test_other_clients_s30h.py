"""s30h hunt: the saved reports of serving clients sweepgate does not read, refused by name.

inference-perf (kubernetes-sigs, the client llm-d's benchmarks drive) and LLMPerf (ray-project) are
serving clients of their own: their reports hold a run's figures in their own keys and units
(seconds). Each was refused as "unknown JSON output", a line that names neither the file's client
nor that no client of that name is read; as GuideLLM's report is, each is now refused as what it
is, one line, exit 1, nothing stored. The files are real (tests/data/results-real/SOURCES.tsv)."""

from __future__ import annotations

import shutil

import pytest

from helpers import ROOT, refused_alone, run_cli

REAL = ROOT / "tests" / "data" / "results-real"
NOT_READ = ("the output of a client sweepgate does not read; run the point with a client sweepgate reads "
            "(vllm bench serve --save-result, AIPerf), or remove the file")
INFERENCE_PERF = ("1:1: format: an inference-perf report (kubernetes-sigs/inference-perf: a stage's or the run's "
                  "lifecycle or Prometheus metrics, latencies in seconds), " + NOT_READ)

# file -> its one line after "<path>:"
REFUSALS = {
    # kubernetes-sigs/inference-perf demos/kubecon-na-2025/vllm+eagle/results/summary_lifecycle_metrics.json
    "other/inference-perf_summary_lifecycle_metrics_kubecon25_vllm_eagle_12981req.json": INFERENCE_PERF,
    # ... and stage_0_prometheus_metrics.json beside it: the server's metrics over the stage
    "other/inference-perf_stage0_prometheus_metrics_kubecon25_vllm_eagle.json": INFERENCE_PERF,
    # ray-project/llmperf-leaderboard raw_data/summary/groq_70b.json
    "other/llmperf_summary_groq_llama2-70b_550_150_conc5.json":
        "1:1: format: an LLMPerf summary (ray-project/llmperf's *_summary.json: results_* figures, latencies in "
        "seconds), " + NOT_READ,
    # ray-project/llmperf-leaderboard raw_data/individual/groq_70b.json, its first two requests
    "other/llmperf_individual_responses_groq_llama2-70b_first2_trimmed.json":
        "1:1: format: LLMPerf's per-request log (ray-project/llmperf's *_individual_responses.json: one entry a "
        "request, no run summary), " + NOT_READ,
}


@pytest.mark.parametrize("rel", sorted(REFUSALS))
def test_another_client_s_report_is_refused_by_name_and_nothing_stored(rel, tmp_path, capsys):
    src, lines = refused_alone(capsys, tmp_path, REAL / rel)
    assert lines == [f"{src}:{REFUSALS[rel]}"]


def test_an_inference_perf_results_folder_is_refused_file_by_file(tmp_path, capsys):
    """The folder inference-perf writes (its reports by stage and for the run, named as it names
    them): each refused on a line of its own, by name, and nothing stored."""
    folder = tmp_path / "results"
    folder.mkdir()
    for rel, name in (("other/inference-perf_summary_lifecycle_metrics_kubecon25_vllm_eagle_12981req.json",
                       "summary_lifecycle_metrics.json"),
                      ("other/inference-perf_stage0_prometheus_metrics_kubecon25_vllm_eagle.json",
                       "stage_0_prometheus_metrics.json")):
        shutil.copyfile(REAL / rel, folder / name)
    db = tmp_path / "results.db"
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{db}", str(folder))
    assert rc == 1
    assert sorted(err.splitlines()) == [f"{folder / name}:{INFERENCE_PERF}" for name in
                                        ("stage_0_prometheus_metrics.json", "summary_lifecycle_metrics.json")]
    assert not db.exists()


def test_the_files_hold_what_the_refusals_name():
    """What the refusals tell the files by: inference-perf's three top-level reports, LLMPerf's
    results_* keys and concurrency, and its list of per-request entries in seconds."""
    import json

    for rel in list(REFUSALS)[:2]:
        doc = json.loads((REAL / rel).read_text(encoding="utf-8"))
        assert set(doc) == {"load_summary", "successes", "failures"}
    summary = json.loads((REAL / "other/llmperf_summary_groq_llama2-70b_550_150_conc5.json").read_text())
    assert (summary["num_concurrent_requests"], summary["results_num_completed_requests"]) == (5, 150)
    log = json.loads((REAL / "other/llmperf_individual_responses_groq_llama2-70b_first2_trimmed.json").read_text())
    assert [round(r["ttft_s"], 3) for r in log] == [0.298, 0.33]
