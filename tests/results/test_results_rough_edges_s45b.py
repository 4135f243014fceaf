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
    light = str.maketrans("┏┓┗┛━┃┳┻┡┩╇", "┌┐└┘─│┬┴├┤┼")
    tables = "                        NVIDIA AIPerf    \n" + tables.translate(light)
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


# `results ingest --row` of a PR's run whose row names another image than the row's config has as checked out: the
# row was written before the checkout's change (README: a PR that changes the image needs its rows written in its
# checkout), so the PR's figures are filed under main's recipe and compare names no recipe change beside them. A
# warning at the row file's image (stored all the same: the checkout may not be the commit the run measured, which
# ingest cannot tell); a main run's row is not checked (its earlier runs ran earlier images).
KEY = "dsr1-fp8-b300-vllm"  # configs/nvidia-master.yaml: image vllm/vllm-openai:v0.11.0
CHECKED_OUT = "vllm/vllm-openai:v0.11.0"


def _image_repo(tmp_path, monkeypatch):
    import shutil
    import subprocess

    from helpers import vllm_output

    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    path = tmp_path / "bench"
    (path / "configs").mkdir(parents=True)
    for name in ("configs/nvidia-master.yaml", "configs/runners.yaml", "perf-changelog.yaml"):
        shutil.copy(ROOT / name, path / name)
    (path / "runs").mkdir()
    (path / "runs" / "out.json").write_text(json.dumps(vllm_output()), encoding="utf-8")
    for args in (("init", "-q"), ("add", "-A"), ("commit", "-q", "-m", "configs")):
        subprocess.run(["git", "-C", str(path), "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
                       check=True, capture_output=True)
    monkeypatch.chdir(path / "runs")  # from a subdirectory of the repository, as a maintainer runs it
    return path


def _ingest_row(capsys, db, image: str, ref: str, run_id: str = "200", **more):
    from helpers import ROW, run_cli

    row = {**ROW, "precision": "fp8", "image": image, **more}  # a row of KEY
    with open("row.json", "w", encoding="utf-8") as f:
        json.dump(row, f, indent=2)
    return run_cli(capsys, "results", "ingest", "--db", db, "--row", "row.json", "--run-id", run_id, "--ref", ref,
                   "--config-key", KEY, "out.json")


def test_a_pr_row_whose_image_the_checkout_does_not_have_is_warned_at_its_image(tmp_path, db, capsys, monkeypatch):
    from helpers import show_json

    _image_repo(tmp_path, monkeypatch)
    rc, out, err = _ingest_row(capsys, db, "vllm/vllm-openai:v0.10.2", "refs/pull/7/head")
    assert rc == 0 and out.splitlines()[-1].startswith("ingested 1 results (1 new)"), (out, err)
    assert err.splitlines() == [
        "row.json:2:3: warning: image: the row says vllm/vllm-openai:v0.10.2, config key 'dsr1-fp8-b300-vllm' as "
        f"checked out says {CHECKED_OUT} (configs/nvidia-master.yaml): the row is stale against this checkout, or "
        "this checkout is not the pull/7/head run's; its results are stored under the row's image all the same; "
        "write the run's rows in its own checkout (`sweepgate test-config --config-keys dsr1-fp8-b300-vllm ...`) and "
        "ingest its outputs again with the next --attempt"], err
    assert [r["image"] for r in show_json(capsys, db)] == ["vllm/vllm-openai:v0.10.2"]  # stored all the same


def test_under_github_actions_the_stale_row_is_an_annotation(tmp_path, db, capsys, monkeypatch):
    _image_repo(tmp_path, monkeypatch)
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    rc, _, err = _ingest_row(capsys, db, "vllm/vllm-openai:v0.10.2", "refs/pull/7/head")
    assert rc == 0 and "::warning file=runs/row.json,line=2::image: the row says vllm/vllm-openai:v0.10.2" in err, err


def test_a_main_row_or_a_pr_row_of_the_checkout_s_image_says_nothing(tmp_path, db, capsys, monkeypatch):
    from helpers import vllm_output

    repo = _image_repo(tmp_path, monkeypatch)
    rc, _, err = _ingest_row(capsys, db, "vllm/vllm-openai:v0.10.2", "refs/heads/main", "101")  # main's earlier run
    assert rc == 0 and err == "", err
    (repo / "runs" / "out.json").write_text(json.dumps(vllm_output(output_throughput=410.0)), encoding="utf-8")
    rc, _, err = _ingest_row(capsys, db, CHECKED_OUT, "refs/pull/7/head")
    assert rc == 0 and err == "", err


def test_a_row_of_another_config_is_said_once_as_such(tmp_path, db, capsys, monkeypatch):
    """Its image differs too, but it is another config's row: the one warning names the fields that tell it."""
    _image_repo(tmp_path, monkeypatch)
    rc, _, err = _ingest_row(capsys, db, "vllm/vllm-openai:v0.10.2", "refs/pull/7/head", precision="fp4")
    assert rc == 0 and len(err.splitlines()) == 1 and "is not a row of config key" in err, err
