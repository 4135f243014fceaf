"""s45b: rough edges of the results path a maintainer meets.

- AIPerf's console tables were told by their title in the file's first 4 KiB only: a console log kept from the
  job's stdout, its log lines and progress bars first, read "not JSON or CSV". They are now told by their form
  (a title line "NVIDIA AIPerf ..." over a table's top border) wherever they stand.
- llama.cpp's llama-bench report (-o json, -o jsonl) read "unknown JSON output"; it is refused by name, as the
  other clients sweepgate does not read are (tests/data/results-real/SOURCES.tsv: a real -o json file).
"""

from __future__ import annotations

import json

from helpers import ROOT, refused_alone

REAL = ROOT / "tests" / "data" / "results-real"
CONSOLE = REAL / "aiperf" / "aiperf0.8_profile_export_console_mock_c250k_error_summary_trimmed.txt"
LLAMA_BENCH = REAL / "other" / "llama-bench_b5606_snowpiercer-15b_q3kl_rtx4090_pp8192_tg1280.json"
NOT_READ = ("the output of a client sweepgate does not read; run the point with a client sweepgate reads "
            "(vllm bench serve --save-result, AIPerf), or remove the file")


def _console_log(tmp_path, preamble: str, tables: str, name: str = "aiperf.log"):
    path = tmp_path / name
    path.write_text(preamble + tables, encoding="utf-8")
    return path


# What `aiperf profile ... | tee aiperf.log` keeps before its tables: its log lines (here a long run's worth).
PREAMBLE = "".join(f"2026-01-01 12:{i // 60:02d}:{i % 60:02d}.000 INFO     Worker {i % 8}: {i * 17} of 563265 "
                   "requests completed, 0 errors (NVIDIA B300, step of the profiling phase)\n" for i in range(400))


def test_aiperf_console_tables_after_a_long_log_are_refused_as_console_tables(capsys, tmp_path):
    assert len(PREAMBLE) > 4096 * 8
    log = _console_log(tmp_path, PREAMBLE, CONSOLE.read_text(encoding="utf-8"))
    src, lines = refused_alone(capsys, tmp_path, log)
    assert lines == [f"{src}:1: format: AIPerf's console tables ('NVIDIA AIPerf | ...', as "
                     "profile_export_console.txt keeps them; figures rounded for display), not its export; ingest "
                     "the run's profile_export_aiperf.json beside it, or remove the file"], lines


def test_a_console_table_titled_by_the_client_alone_and_drawn_in_light_lines_is_told_too(capsys, tmp_path):
    """AIPerf's Rust exporter titles the metrics table "NVIDIA AIPerf" alone; a light box (┌) is rich's too."""
    tables = CONSOLE.read_text(encoding="utf-8").split("NVIDIA AIPerf | LLM Metrics", 1)[1].lstrip("\n")
    tables = "                        NVIDIA AIPerf    \n" + tables.translate(str.maketrans("┏┓┗┛━┃┳┻┡┩╇", "┌┐└┘─│┬┴├┤┼"))
    src, lines = refused_alone(capsys, tmp_path, _console_log(tmp_path, PREAMBLE, tables))
    assert len(lines) == 1 and lines[0].startswith(f"{src}:1: format: AIPerf's console tables"), lines


def test_the_title_in_a_log_line_is_no_console_table(capsys, tmp_path):
    """The title's words inside a line of text (a log quoting it) are no table: the file stays "not JSON or CSV"."""
    text = PREAMBLE + "INFO     printing NVIDIA AIPerf | LLM Metrics\n┏━━━━┓\n"
    src, lines = refused_alone(capsys, tmp_path, _console_log(tmp_path, "", text))
    assert len(lines) == 1 and "console tables" not in lines[0] and "not JSON or CSV" in lines[0], lines


LLAMA_BENCH_LINE = ("format: a llama-bench report (llama.cpp's llama-bench -o json or jsonl: tokens per second of "
                    "prompt processing and generation tests, the engine driven in-process; no server, requests, "
                    f"concurrency or latencies), {NOT_READ}")


def test_a_llama_bench_json_report_is_refused_by_name(capsys, tmp_path):
    src, lines = refused_alone(capsys, tmp_path, LLAMA_BENCH)
    assert lines == [f"{src}:1:1: {LLAMA_BENCH_LINE}"], lines


def test_a_llama_bench_jsonl_report_is_refused_by_name(capsys, tmp_path):
    """-o jsonl writes the same entries one a line."""
    entries = json.loads(LLAMA_BENCH.read_text(encoding="utf-8"))
    path = tmp_path / "bench.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8")
    src, lines = refused_alone(capsys, tmp_path, path)
    assert len(lines) == 1 and lines[0].startswith(f"{src}:1:") and LLAMA_BENCH_LINE in lines[0], lines


# The evals table's baseline is one main run's score (the newest of the window that has it), unlike the throughput
# tables' median of runs (their n); it did not say which run, the JSON alone did ("run-id"). It now names it in a
# column headed by the baseline ref, as the not-measured table heads its own ("main run").
def test_the_evals_table_names_the_main_run_its_baseline_is_from(tmp_path, db, capsys):
    from helpers import run_cli
    from test_compare_evals import PR_REF, gsm8k, ingest_job

    ingest_job(tmp_path, db, capsys, "1000", gsm8k(0.80 - 0.8946171341925702), day=1)
    ingest_job(tmp_path, db, capsys, "1001", gsm8k(), day=2)  # the newest main run with the score
    ingest_job(tmp_path, db, capsys, "1002", None, day=3)  # the newest main run ran no eval
    ingest_job(tmp_path, db, capsys, "2002", gsm8k(-0.05), ref=PR_REF, day=4)
    rc, md, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "2002", "--markdown")
    assert rc == 0, err
    assert "| point | score | PR | baseline | main run | change (margin) | verdict |" in md, md
    rows = [line for line in md.splitlines() if "| gsm8k exact_match" in line]
    assert len(rows) == 2 and all("| 0.8946 ±0.0085 | 1001 |" in row or "| 0.8059 ±0.0109 | 1001 |" in row
                                  for row in rows), rows
    rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "2002")
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip() == "evals")
    assert "main run" in lines[start + 1] and lines[start + 1].index("main run") > lines[start + 1].index("baseline")
    assert all(" 1001 " in line for line in lines[start + 2:start + 4]), lines[start:start + 4]


def test_a_score_with_no_baseline_names_no_run(tmp_path, db, capsys):
    from helpers import run_cli
    from test_compare_evals import PR_REF, gsm8k, ingest_job

    ingest_job(tmp_path, db, capsys, "1001", None)  # main ran no eval
    ingest_job(tmp_path, db, capsys, "2002", gsm8k(), ref=PR_REF, day=2)
    rc, md, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "2002", "--markdown")
    rows = [line for line in md.splitlines() if "| gsm8k exact_match" in line]
    assert len(rows) == 2 and all("| none | none | n/a | new |" in row for row in rows), rows
