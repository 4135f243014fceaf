"""s49f hunt: GenAI-Perf's console tables as its first releases printed them, lm-eval's printed results table,
SGLang's bench_offline_throughput table and vLLM's offline throughput and latency lines
(tests/data/results-real/SOURCES.tsv, "s49f hunt"; each below its comment).

GenAI-Perf titled its metrics table "PA LLM Metrics" (the 24.03 SDK's, as its tutorial shows it), then "LLM Metrics"
alone (the 24.06 SDK's, in a user's log of a run after the wrapper's "Running Perf Analyzer" line), before the
"NVIDIA GenAI-Perf | LLM Metrics" that sweepgate named; its first column is headed "Statistic". Both were refused
as "not JSON or CSV, not a benchmark client output", a line that denies the file is a client's output and names no
export to ingest in its place. They are now refused as GenAI-Perf's console tables, naming its export."""

from __future__ import annotations

from helpers import ROOT, refused_alone

REAL = ROOT / "tests" / "data" / "results-real" / "aiperf"
# a user's log of a GenAI-Perf run from the tritonserver 24.06 SDK container (a document held in the code index:
# index id 66743808269), its second run's lines: the wrapper's log line, the table, the two throughputs
LOG_2406 = REAL / "genaiperf24.06_console_log_llm_metrics_untitled_ns_triton_vllm_c1.txt"
# triton-inference-server/client, src/c++/perf_analyzer/genai-perf/docs/tutorial.md (its 24.03 version, index id
# 16725173389): the example output of its Triton + vLLM run
TUTORIAL_2403 = REAL / "genaiperf24.03_tutorial_console_pa_llm_metrics_ns_gpt2_triton_vllm_c1.txt"


def _said(title: str) -> str:
    return (f"1: format: GenAI-Perf's console tables (its early form: '{title}' over a 'Statistic' column, as it "
            "printed them before titling them 'NVIDIA GenAI-Perf | ...'; figures rounded for display), not its "
            "export; ingest the run's profile_export_genai_perf.json (or the .csv beside it) from its artifacts "
            "folder, or remove the file")


def test_genai_perf_s_untitled_llm_metrics_table_after_its_log_line_is_refused_as_its_console_tables(capsys,
                                                                                                       tmp_path):
    src, lines = refused_alone(capsys, tmp_path, LOG_2406)
    assert lines == [f"{src}:{_said('LLM Metrics')}"], lines


def test_genai_perf_s_first_pa_llm_metrics_table_is_refused_as_its_console_tables(capsys, tmp_path):
    src, lines = refused_alone(capsys, tmp_path, TUTORIAL_2403)
    assert lines == [f"{src}:{_said('PA LLM Metrics')}"], lines


def test_the_titled_genai_perf_tables_keep_their_line(capsys, tmp_path):
    """The later title ("NVIDIA GenAI-Perf | LLM Metrics") is told as before, naming the same export."""
    text = LOG_2406.read_text(encoding="utf-8").replace(" LLM Metrics\n", " NVIDIA GenAI-Perf | LLM Metrics\n", 1)
    log = tmp_path / "titled.txt"
    log.write_text(text, encoding="utf-8")
    src, lines = refused_alone(capsys, tmp_path, log)
    assert len(lines) == 1 and lines[0].startswith(f"{src}:1: format: GenAI-Perf's console tables ('NVIDIA "
                                                   "GenAI-Perf | ...'"), lines


def test_an_llm_metrics_line_over_no_statistic_table_stays_not_a_client_output(capsys, tmp_path):
    """The words alone, or over a table whose first column is not "Statistic", are no GenAI-Perf table."""
    text = LOG_2406.read_text(encoding="utf-8")
    for n, changed in enumerate((text.replace("Statistic", "Benchmark", 1),
                                 text.replace("LLM Metrics\n", "LLM Metrics were:\n", 1),
                                 "INFO printing LLM Metrics\n┏━━━━┓\n┃ Statistic ┃\n")):
        log = tmp_path / f"other{n}" / "log.txt"
        log.parent.mkdir()
        log.write_text(changed, encoding="utf-8")
        src, lines = refused_alone(capsys, log.parent, log)
        assert len(lines) == 1 and "console tables" not in lines[0] and "not JSON or CSV" in lines[0], lines


def test_a_table_first_in_its_file_is_told_by_its_own_title_whatever_ends_the_file(capsys, tmp_path):
    """The "PA " of the first releases' title is looked for before the table's title only: a table first in its
    file is "LLM Metrics" though the file's last characters are "PA " (a search before the text's start reads them)."""
    text = LOG_2406.read_text(encoding="utf-8").split("\n", 1)[1].lstrip() + "see PA "
    log = tmp_path / "first.txt"
    log.write_text(text, encoding="utf-8")
    src, lines = refused_alone(capsys, tmp_path, log)
    assert lines == [f"{src}:{_said('LLM Metrics')}"], lines


# lm-eval's printed results table (its make_table: what lm_eval prints at a run's end, kept as a Markdown file or in a
# log of its stdout) was refused as "not JSON or CSV, not a benchmark client output" and sent the user to "the job's
# $RESULT_FILENAME.json": it is the eval client's output, its scores rounded to four places, without the sample
# counts, model and settings of the results JSON lm_eval writes beside its samples. It is now named, at its line.
LM_EVAL = ROOT / "tests" / "data" / "results-real" / "lm_eval"
# zhy617/SMoE, eval-results/qwen/benchmark/expert_svd_router_avg_la_k45.md: its first rows and the Groups table
TABLE_MD = LM_EVAL / "lmeval0.4_printed_results_table_qwen_moe_svd_arc_mmlu_groups_trimmed.md"
# an agent session's log held in the code index (index id 54306239435): lm_eval's last log line, its settings line,
# then the table (a few rows of each table)
TABLE_LOG = LM_EVAL / "lmeval0.4_stdout_log_then_printed_table_qwen3.5-2b_w4a16_trimmed.txt"
TABLE_SAID = ("format: lm-eval's printed results table ('|Tasks|Version|...', as lm_eval prints it at a run's end: "
              "scores rounded for display, no sample counts, model or settings), not its results file; ingest the "
              "results_<time>.json lm_eval wrote under --output_path, or remove the file")


def test_lm_eval_s_printed_table_kept_as_markdown_is_refused_as_what_it_is(capsys, tmp_path):
    src, lines = refused_alone(capsys, tmp_path, TABLE_MD)
    assert lines == [f"{src}:1: {TABLE_SAID}"], lines


def test_lm_eval_s_printed_table_after_its_log_lines_is_refused_at_the_table_s_line(capsys, tmp_path):
    src, lines = refused_alone(capsys, tmp_path, TABLE_LOG)
    assert lines == [f"{src}:3: {TABLE_SAID}"], lines


def test_a_groups_table_alone_and_lm_eval_0_3_s_task_header_are_told_too(capsys, tmp_path):
    """The Groups table printed alone, and lm-eval 0.3's header ("|Task|Version|Metric|Value|   |Stderr|")."""
    groups = TABLE_MD.read_text(encoding="utf-8").split("\n\n", 1)[1]
    old = "|    Task     |Version| Metric |Value |   |Stderr|\n|-------------|------:|--------|-----:|---|-----:|\n"
    for n, text in enumerate((groups, old + "|arc_easy     |      0|acc     |0.6600|±  |0.0150|\n")):
        table = tmp_path / f"t{n}" / "table.md"
        table.parent.mkdir()
        table.write_text(text, encoding="utf-8")
        src, lines = refused_alone(capsys, table.parent, table)
        assert lines == [f"{src}:1: {TABLE_SAID}"], lines


def test_a_pipe_table_of_other_columns_stays_not_a_client_output(capsys, tmp_path):
    """A Markdown table whose first columns are not lm-eval's (a serving summary's) is no printed eval table."""
    table = tmp_path / "summary.md"
    table.write_text("| Test name | Version | Tput (req/s) |\n|---|---|---|\n| serving_qps_1 | 1 | 0.64 |\n",
                     encoding="utf-8")
    src, lines = refused_alone(capsys, tmp_path, table)
    assert len(lines) == 1 and "printed results table" not in lines[0] and "not JSON or CSV" in lines[0], lines


# SGLang's bench_offline_throughput prints its result as a table titled "Offline Throughput Benchmark Result" (its
# JSONL line, --result-filename, is refused by name as the engine's offline throughput); the table kept from its
# stdout was "not JSON or CSV, not a benchmark client output", sending the user to the job's $RESULT_FILENAME.json.
SGLANG = ROOT / "tests" / "data" / "results-real" / "sglang"
# a blog post held in the code index (index id 31662206679): Qwen2.5-72B-Instruct-GPTQ-Int4, TP2, 1000 ShareGPT prompts
OFFLINE_CONSOLE = SGLANG / "sglang_bench_offline_throughput_console_qwen2.5-72b-gptq-int4_tp2_sharegpt_1000.txt"
OFFLINE_SAID = ("1: format: an SGLang bench_offline_throughput console output (its 'Offline Throughput Benchmark "
                "Result' table: the engine's offline throughput, figures rounded for display; no serving latencies or "
                "concurrency), not a serving result; ingest sglang.bench_serving's --output-file JSONL, a serving run "
                "at a concurrency")


def test_sglang_s_offline_throughput_table_is_refused_as_what_it_is(capsys, tmp_path):
    src, lines = refused_alone(capsys, tmp_path, OFFLINE_CONSOLE)
    assert lines == [f"{src}:{OFFLINE_SAID}"], lines


def test_the_offline_table_after_the_run_s_own_lines_is_told_too(capsys, tmp_path):
    log = tmp_path / "run.log"
    log.write_text("#Input tokens: 302118\n#Output tokens: 195775\n\n" + OFFLINE_CONSOLE.read_text(encoding="utf-8"),
                   encoding="utf-8")
    src, lines = refused_alone(capsys, tmp_path, log)
    assert lines == [f"{src}:{OFFLINE_SAID}"], lines


def test_the_offline_table_s_name_in_a_command_is_no_table(capsys, tmp_path):
    """A grep for the title (as READMEs show how to read a log) names no table: it stays "not JSON or CSV"."""
    note = tmp_path / "notes.txt"
    note.write_text('cat sglang.sh.o74975 | grep "Offline Throughput Benchmark Result" -A 11\n', encoding="utf-8")
    src, lines = refused_alone(capsys, tmp_path, note)
    assert len(lines) == 1 and "bench_offline_throughput" not in lines[0] and "not JSON or CSV" in lines[0], lines


# vLLM's offline throughput benchmark (benchmark_throughput.py, `vllm bench throughput`) prints its result as one line,
# "Throughput: N requests/s, N total tokens/s, N output tokens/s" (earlier: "..., N tokens/s"); its --output-json is
# refused by name as offline generation, the line kept from its stdout was "not JSON or CSV, not a benchmark client
# output".
VLLM = ROOT / "tests" / "data" / "results-real" / "vllm"
# a README held in the code index (index id 59858086279): `vllm bench throughput` of LiquidAI/LFM2.5-350M on an H100,
# 512 random prompts of 512 tokens in and 256 out
THROUGHPUT_CONSOLE = VLLM / "vllm-bench-throughput_console_lfm2.5-350m_h100_random512x256_512prompts.txt"
THROUGHPUT_SAID = ("1: format: a vLLM benchmark_throughput console output (its 'Throughput: ... requests/s, ...' line: "
                   "offline generation, no serving latencies), not a serving result; ingest `vllm bench serve "
                   "--save-result` JSON, a serving run")


def test_vllm_s_offline_throughput_line_is_refused_as_what_it_is(capsys, tmp_path):
    src, lines = refused_alone(capsys, tmp_path, THROUGHPUT_CONSOLE)
    assert lines == [f"{src}:{THROUGHPUT_SAID}"], lines


def test_the_earlier_throughput_line_after_the_progress_bar_is_told_too(capsys, tmp_path):
    """benchmark_throughput.py of 2024 wrote "N tokens/s" alone, after vLLM's progress bar."""
    log = tmp_path / "throughput.log"
    log.write_text("Processed prompts: 100%|██████████| 25/25 [00:02<00:00,  9.14it/s]\n"
                   "Throughput: 9.14 requests/s, 1754.43 tokens/s\n", encoding="utf-8")
    src, lines = refused_alone(capsys, tmp_path, log)
    assert lines == [f"{src}:{THROUGHPUT_SAID}"], lines


def test_a_throughput_of_other_units_is_no_vllm_line(capsys, tmp_path):
    """Another tool's "Throughput: N tokens / s" (LoRAX's script) stays "not JSON or CSV"."""
    log = tmp_path / "other.log"
    log.write_text("Avg Latency: 0.01 s / tokens\nThroughput: 1200.5 tokens / s\n", encoding="utf-8")
    src, lines = refused_alone(capsys, tmp_path, log)
    assert len(lines) == 1 and "benchmark_throughput" not in lines[0] and "not JSON or CSV" in lines[0], lines


# vLLM's offline latency benchmark (benchmark_latency.py, `vllm bench latency`) prints "Avg latency: N seconds" and a
# line a percentile ("10% percentile latency: N seconds", ...); its --output-json is refused by name, the lines kept
# from its stdout were "not JSON or CSV, not a benchmark client output".
# a document held in the code index (index id 19149627186): `vllm bench latency` of Qwen/Qwen3-8B under ROCm, TP1,
# batch 8, 256 tokens in and 128 out, 100 iterations
LATENCY_CONSOLE = VLLM / "vllm-bench-latency_console_qwen3-8b_rocm_tp1_bs8_in256_out128.txt"
LATENCY_SAID = ("1: format: a vLLM benchmark_latency console output (its 'Avg latency: ... seconds' and percentile "
                "lines: one offline batch's latency, no requests served at a concurrency), not a serving result; "
                "ingest `vllm bench serve --save-result` JSON, a serving run")


def test_vllm_s_offline_latency_lines_are_refused_as_what_they_are(capsys, tmp_path):
    src, lines = refused_alone(capsys, tmp_path, LATENCY_CONSOLE)
    assert lines == [f"{src}:{LATENCY_SAID}"], lines


def test_the_latency_lines_after_the_iterations_bar_are_told_too(capsys, tmp_path):
    log = tmp_path / "latency.log"
    log.write_text("Profiling iterations: 100%|██████████| 5/5 [00:32<00:00,  6.52s/it]\n"
                   + LATENCY_CONSOLE.read_text(encoding="utf-8"), encoding="utf-8")
    src, lines = refused_alone(capsys, tmp_path, log)
    assert lines == [f"{src}:{LATENCY_SAID}"], lines


def test_an_avg_latency_line_alone_is_no_vllm_latency_output(capsys, tmp_path):
    """Other tools print "Avg latency: ..." too; without vLLM's percentile line under it, it stays "not JSON or CSV"."""
    log = tmp_path / "other.log"
    log.write_text("Avg latency: 8.01 seconds\nWall clock: 12.0s\n", encoding="utf-8")
    src, lines = refused_alone(capsys, tmp_path, log)
    assert len(lines) == 1 and "benchmark_latency" not in lines[0] and "not JSON or CSV" in lines[0], lines
