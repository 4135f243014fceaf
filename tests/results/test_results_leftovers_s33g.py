"""s33g: three results-ingest leftovers this morning's reviewers found.

- One output ingested under several run ids (`--row row.json --run-id 101`, then the same file as 102 and 103)
  was stored as three main runs without a word, and `results compare` judged a PR against a baseline of no
  spread (`[51.2, 51.2] (n=3)`): separate runs never measure bit-identical figures. Each later ingest now warns,
  naming the run whose figures it repeats and saying to ingest each run's own output; stored all the same.
- A text file with a comma on every line (a log's `INFO step 1 of the warm-up, nothing measured`) was refused as
  "a CSV table": it is text, "not JSON or CSV"; a real table still reads as one.
- A job sidecar that does not parse for another reason than ending early (YAML with `---`, a hand edit) read
  "the job sidecar is truncated": it says it is no JSON there, and "truncated" is kept for one cut short.

Real processes of the entry point, a real SQLite store.
"""

from __future__ import annotations

import json

import yaml
from helpers import ROW, job, sweepgate_at, vllm_output, write_job

WARNED = "warning: the same bytes as run"  # s34a: told by the bytes (was: every figure the same)
FIX = "ingest each run's own output (its job's $RESULT_FILENAME.json), not run 101's again"


def _by_hand(tmp_path, name: str, run: str, ref: str = "refs/heads/main"):
    return sweepgate_at(tmp_path, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", "--row", "row.json",
                        "--run-id", run, "--ref", ref, name)


def _files(tmp_path, **outputs: dict) -> None:
    (tmp_path / "row.json").write_text(json.dumps(ROW), encoding="utf-8")
    for name, doc in outputs.items():
        (tmp_path / f"{name}.json").write_text(json.dumps(doc), encoding="utf-8")


def test_one_output_ingested_as_three_runs_warns_at_the_second_and_third_naming_the_first(tmp_path):
    _files(tmp_path, out=vllm_output(4))
    first = _by_hand(tmp_path, "out.json", "101")
    assert first.returncode == 0 and first.stderr == "", first.stderr
    for run in ("102", "103"):
        proc = _by_hand(tmp_path, "out.json", run)
        assert proc.returncode == 0 and "ingested 1 results (1 new)" in proc.stdout, proc.stderr
        assert proc.stderr.splitlines() == [
            f"out.json: {WARNED} 101's result 'out.json', stored before: one output stored as two runs, which no two "
            f"runs measure; stored all the same as run {run}'s 'out.json'; `results compare` counts the output once; {FIX}"],\
            proc.stderr
    again = _by_hand(tmp_path, "out.json", "102")  # stored before: said when it was stored
    assert again.returncode == 0 and "(0 new)" in again.stdout and WARNED not in again.stderr, again.stderr


def test_a_pr_run_given_a_main_run_s_output_warns_too(tmp_path):
    _files(tmp_path, out=vllm_output(4))
    assert _by_hand(tmp_path, "out.json", "101").returncode == 0
    proc = _by_hand(tmp_path, "out.json", "200", ref="refs/pull/7/head")
    assert proc.returncode == 0 and f"{WARNED} 101's result 'out.json'" in proc.stderr, proc.stderr


def test_runs_of_their_own_figures_are_stored_without_a_word(tmp_path):
    _files(tmp_path, a=vllm_output(4), b=vllm_output(4, output_throughput=409.7))
    for name, run in (("a.json", "101"), ("b.json", "102")):
        proc = _by_hand(tmp_path, name, run)
        assert proc.returncode == 0 and proc.stderr == "", proc.stderr


EXPECTED = ("expected vLLM bench serve JSON/JSONL, SGLang bench_serving JSONL, AIPerf/GenAI-Perf JSON or CSV, "
            "lm-eval results JSON")


def _refused(tmp_path, name: str, text: str) -> list[str]:
    (tmp_path / name).write_text(text, encoding="utf-8")
    proc = sweepgate_at(tmp_path, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", name)
    assert proc.returncode == 1 and "nothing stored" in proc.stdout, proc.stderr
    assert not (tmp_path / "r.db").exists()
    return proc.stderr.splitlines()


def test_log_lines_with_a_comma_each_are_text_not_a_csv_table(tmp_path):
    log = "".join(f"INFO step {n} of the warm-up, nothing measured\n" for n in range(1, 6))
    assert _refused(tmp_path, "res.json", log) == [
        f"res.json:1: format: not JSON or CSV, not a benchmark client output ({EXPECTED}); ingest the job's "
        "$RESULT_FILENAME.json, or remove the file"]


def test_sentences_with_commas_are_text_not_a_csv_table(tmp_path):
    log = "Loading model, this may take a while\nServer started, listening on port 8000\nReady, waiting for requests\n"
    assert _refused(tmp_path, "res.json", log)[0].startswith("res.json:1: format: not JSON or CSV, ")


def test_tables_still_read_as_tables_with_numbers_or_a_header_of_names(tmp_path):
    for name, text in (("words.csv", "name,model,gpu\nrun a,llama,b300\nrun b,qwen,mi355x\n"),
                       ("figures.csv", "Request Throughput (per sec), TTFT p99 (ms)\n1.5, 300\n2.5, 310\n")):
        (tmp_path / name).unlink(missing_ok=True)
        assert _refused(tmp_path, name, text) == [
            f"{name}:1: format: a CSV table, not a benchmark client output ({EXPECTED}); ingest the job's "
            "$RESULT_FILENAME.json, or remove the file"]


REWRITE = "write it with the benchmark workflow's sidecar step or `sweepgate rehearse`"
NOT_JSON = f'a job sidecar is one JSON document, {{"row": {{...}}, "job": {{...}}}}, not YAML or other text; {REWRITE}'


def _sidecar_refused(tmp_path, sidecar_text: str) -> list[str]:
    write_job(tmp_path / "res", "r", vllm_output(4), None)
    (tmp_path / "res" / "r.job.json").write_text(sidecar_text, encoding="utf-8")
    proc = sweepgate_at(tmp_path, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", "res")
    assert proc.returncode == 1 and "nothing stored" in proc.stdout, proc.stderr
    return proc.stderr.splitlines()


def test_a_yaml_sidecar_is_said_to_be_no_json_not_truncated(tmp_path):
    text = "---\n" + yaml.safe_dump(job()) + "---\n"
    assert _sidecar_refused(tmp_path, text) == [f"res/r.job.json:1:1: not valid JSON: Expecting value; {NOT_JSON}"]


def test_a_sidecar_edited_by_hand_is_said_to_be_no_json_there(tmp_path):
    text = json.dumps(job(), indent=1).replace('"attempt": 1,', '"attempt": 1,,')
    line = text[:text.index(",,")].count("\n") + 1
    assert _sidecar_refused(tmp_path, text) == [
        f"res/r.job.json:{line}:16: not valid JSON: Expecting property name enclosed in double quotes; {NOT_JSON}"]


def test_a_sidecar_cut_short_is_still_truncated(tmp_path):
    text = json.dumps(job(), indent=1)
    for cut in (text[:len(text) // 2], text[:text.index('"job"') + 7]):  # in a string; after a key's colon
        lines = _sidecar_refused(tmp_path, cut)
        assert len(lines) == 1 and lines[0].endswith(f"; the job sidecar is truncated; {REWRITE}"), lines
        (tmp_path / "res" / "r.job.json").unlink()
