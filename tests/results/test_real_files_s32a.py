"""s32a hunt: real outputs of tools around the serving clients, refused by what they are.

An llm-d-benchmark report (the harness's summary of its client's run, YAML or JSON) was refused as "not
JSON or CSV, not a benchmark client output" or "unknown JSON output"; an EvalScope perf summary, an
SGLang benchmark script's result line and lm-eval's task scores copied out of their results file (as a
model card shows them) as "unknown JSON output". Each is now refused on one line naming it, exit 1,
nothing stored. The files are real (tests/data/results-real/SOURCES.tsv)."""

from __future__ import annotations

import json
import shutil

import pytest

from helpers import ROOT, refused_alone, run_cli

REAL = ROOT / "tests" / "data" / "results-real"
NOT_READ_HINT = ("run the point with a client sweepgate reads (vllm bench serve --save-result, AIPerf), "
                 "or remove the file")
LLMD = "other/llm-d_benchmark_report0.2_inference-perf_wide-ep_dsr1-0528_h200x32_c2048.yaml"
LLMD_WHAT = ("format: an llm-d-benchmark report (version 0.2, client inference-perf: the harness's summary of a "
             "client's output, its figures converted), not the client's output")
EVALSCOPE = "other/evalscope_perf_summary_dsr1-distill-qwen32b_hygon-k100ai_vllm0.8.5_c64.json"
SGLANG_SCRIPT = "sglang/sglang_benchmark_script_mtbench_dflash_b300_2lines.jsonl"
LM_EVAL_SCORES = "lm_eval/lmeval0.4_task_scores_alone_dolphin2.8-mistral-7b_model_card_6tasks.json"
LM_EVAL_HINT = "ingest the results_<time>.json lm_eval wrote under --output_path, or remove the file"

# file -> its one line after "<path>:"
REFUSALS = {
    LLMD: f"1: {LLMD_WHAT}; inference-perf is a client sweepgate does not read; {NOT_READ_HINT}",
    EVALSCOPE: "1:1: format: an EvalScope perf summary (modelscope/evalscope's benchmark_summary.json: display "
               "names as keys, such as 'Average time to first token (s)', latencies in seconds), the output of a "
               f"client sweepgate does not read; {NOT_READ_HINT}",
    SGLANG_SCRIPT: "1:1: format: an SGLang benchmark script's result (benchmark/<task>/bench_sglang*.py's "
                   "--result-file line, task 'mtbench': a question set's latency in seconds and accuracy or "
                   "throughput, no serving requests at a concurrency); ingest sglang.bench_serving's --output-file "
                   "JSONL, a serving run at a concurrency",
    LM_EVAL_SCORES: "1:1: format: lm-eval's task scores alone (arc_challenge, gsm8k, hellaswag, ...: a results block "
                    "without the configs, versions and n-samples lm-eval writes beside it), not its results file; "
                    + LM_EVAL_HINT,
}


@pytest.mark.parametrize("rel", sorted(REFUSALS))
def test_a_real_output_around_the_clients_is_refused_by_name_and_nothing_stored(rel, tmp_path, capsys):
    src, lines = refused_alone(capsys, tmp_path, REAL / rel)
    assert lines == [f"{src}:{REFUSALS[rel]}"]


def test_the_llm_d_report_written_as_json_is_refused_by_the_same_words(tmp_path, capsys):
    """The report's schema is JSON Schema: written as JSON it is the same report, refused at 1:1."""
    from sweepgate.core.pyyaml import yaml

    doc = yaml.safe_load((REAL / LLMD).read_text(encoding="utf-8"))
    report = tmp_path / "benchmark_report.json"
    report.write_text(json.dumps(doc), encoding="utf-8")
    src, lines = refused_alone(capsys, tmp_path, report)
    assert lines == [f"{src}:1:1: {LLMD_WHAT}; inference-perf is a client sweepgate does not read; {NOT_READ_HINT}"]


def test_an_llm_d_report_of_a_client_sweepgate_reads_names_that_client_s_output(tmp_path, capsys):
    """A report of llm-d's vllm-benchmark harness: the harness saved vllm bench serve's own JSON beside it."""
    text = (REAL / LLMD).read_text(encoding="utf-8").replace("tool: inference-perf", "tool: vllm-benchmark")
    report = tmp_path / "benchmark_report,_vllm.yaml"
    report.write_text(text, encoding="utf-8")
    src, lines = refused_alone(capsys, tmp_path, report)
    assert lines == [f"{src}:1: {LLMD_WHAT.replace('inference-perf', 'vllm-benchmark')}; ingest the vllm-benchmark "
                     "output the harness saved beside it (vllm bench serve's JSON), or remove the file"]


def test_other_yaml_is_still_no_client_output(tmp_path, capsys):
    """A YAML file that is no report (a harness's config) keeps the line it had."""
    config = tmp_path / "config.yaml"
    config.write_text("scenario:\n  model: x\nresults:\n  dir: /tmp\n", encoding="utf-8")
    src, lines = refused_alone(capsys, tmp_path, config)
    assert lines == [f"{src}:1: format: not JSON or CSV, not a benchmark client output (expected vLLM bench serve "
                     "JSON/JSONL, SGLang bench_serving JSONL, AIPerf/GenAI-Perf JSON or CSV, lm-eval results JSON); "
                     "ingest the job's $RESULT_FILENAME.json, or remove the file"]


def test_a_yaml_report_with_an_alias_is_not_parsed(tmp_path, capsys):
    """Aliases are not expanded (a few hundred bytes could expand to gigabytes): such a file is no report read."""
    bomb = "version: '0.2'\nscenario:\n  a: &a [x, x, x, x, x, x, x, x, x]\n  b: &b [*a, *a, *a, *a, *a, *a]\n" \
           "results:\n  c: [*b, *b, *b, *b, *b, *b]\n"
    report = tmp_path / "report.yaml"
    report.write_text(bomb, encoding="utf-8")
    src, lines = refused_alone(capsys, tmp_path, report)
    assert lines[0].startswith(f"{src}:1: format: not JSON or CSV, not a benchmark client output")


def test_a_folder_of_the_three_is_refused_file_by_file(tmp_path, capsys):
    """Named together, each is refused on a line of its own (the YAML named, as a walk passes .yaml by)."""
    folder = tmp_path / "results"
    folder.mkdir()
    for rel in REFUSALS:
        shutil.copyfile(REAL / rel, folder / (REAL / rel).name)
    db = tmp_path / "results.db"
    paths = [str(folder / (REAL / rel).name) for rel in sorted(REFUSALS)]
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{db}", *paths)
    assert rc == 1
    assert sorted(err.splitlines()) == sorted(f"{folder / (REAL / rel).name}:{REFUSALS[rel]}" for rel in REFUSALS)
    assert not db.exists()


def test_the_files_hold_what_the_refusals_name():
    from sweepgate.core.pyyaml import yaml

    report = yaml.safe_load((REAL / LLMD).read_text(encoding="utf-8"))
    assert report["version"] == "0.2" and report["scenario"]["load"]["standardized"]["tool"] == "inference-perf"
    assert report["results"]["request_performance"]["aggregate"]["requests"]["total"] == 8192
    summary = json.loads((REAL / EVALSCOPE).read_text(encoding="utf-8"))
    assert (summary["Number of concurrency"], summary["Succeed requests"]) == (64, 10)
    lines = [json.loads(line) for line in (REAL / SGLANG_SCRIPT).read_text(encoding="utf-8").splitlines()]
    assert [(line["task"], line["accept_length"]) for line in lines] == [("mtbench", 4.07), ("mtbench", 3.695)]


def test_lm_eval_scores_alone_under_results_are_refused_as_such(tmp_path, capsys):
    """The same block kept under "results" (lm-eval's key), without the file's other keys."""
    scores = json.loads((REAL / LM_EVAL_SCORES).read_text(encoding="utf-8"))
    block = tmp_path / "results.json"
    block.write_text(json.dumps({"results": {"gsm8k": scores["gsm8k"]}}), encoding="utf-8")
    src, lines = refused_alone(capsys, tmp_path, block)
    assert lines == [f"{src}:1:1: format: lm-eval's task scores alone (gsm8k: a results block without the configs, "
                     f"versions and n-samples lm-eval writes beside it), not its results file; {LM_EVAL_HINT}"]


LABELLED = "sglang/sglang_bench_one_batch_results_labelled_by_hand_torch_vs_te_tp4.jsonl"
LABELLED_HINT = "ingest the client's own output file, or remove the lines that are not JSON"


def test_json_lines_under_a_label_written_by_hand_are_refused_at_the_label(tmp_path, capsys):
    """SGLang's bench_one_batch lines of two setups, each under a label line ('torch_tp4:'): it was refused as
    "not JSON or CSV", of a file of JSON lines; now at the label, naming the JSON line after it."""
    src, lines = refused_alone(capsys, tmp_path, REAL / LABELLED)
    assert lines == [f"{src}:1: format: line 1 is text ('torch_tp4:'), not JSON, though line 3 is a JSON object: JSON "
                     f"lines with text written among them, not a client's output as it writes it; {LABELLED_HINT}"]


def test_a_label_after_blank_lines_is_placed_at_its_line(tmp_path, capsys):
    text = (REAL / LABELLED).read_text(encoding="utf-8")
    moved = tmp_path / "results.jsonl"
    moved.write_text("\n\n" + text, encoding="utf-8")
    src, lines = refused_alone(capsys, tmp_path, moved)
    assert lines == [f"{src}:3: format: line 3 is text ('torch_tp4:'), not JSON, though line 5 is a JSON object: JSON "
                     f"lines with text written among them, not a client's output as it writes it; {LABELLED_HINT}"]


def test_text_whose_later_lines_hold_no_json_object_keeps_its_line(tmp_path, capsys):
    """A list or a broken object on a later line is no JSON object: the file keeps "not JSON or CSV"."""
    notes = tmp_path / "notes.txt"
    notes.write_text("results:\n[1, 2]\n{not json}\n", encoding="utf-8")
    src, lines = refused_alone(capsys, tmp_path, notes)
    assert lines[0].startswith(f"{src}:1: format: not JSON or CSV, not a benchmark client output")
