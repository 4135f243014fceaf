"""s33b: results-file wording the last session left.

- A line of text written among a client's JSON lines further down than line 1 (a label above a second setup's
  runs, a note) read "not valid JSON: Expecting value; the file is truncated", as if a run died writing it: it is
  refused at that line as text among JSON lines, naming the JSON line before it, as text on line 1 already was.
  A last line cut short (a run killed writing it) is still called truncated.
- Text on line 1 whose JSON object line came later than line 1,000 (or was itself longer than the 1 MiB looked
  at: a vLLM 0.8 output with its per-request arrays, under a label) read "not JSON or CSV": every line that starts
  in the file's first 1 MiB is looked at now, and a longer file with none there says that much of it was looked at.
- A job sidecar holding two JSON documents (written twice) or text after its document was "truncated": it says
  what it holds and how to fix it, as a result file's refusal does.

Real files (tests/data/results-samples, results-real), real processes of the entry point, a real SQLite store.
"""

from __future__ import annotations

import json

import pytest
from helpers import ROOT, SAMPLES, SGLANG_RUNS, job, refused_alone, run_cli, vllm_output, write_job

REAL = ROOT / "tests" / "data" / "results-real"
LABELLED = REAL / "sglang" / "sglang_bench_one_batch_results_labelled_by_hand_torch_vs_te_tp4.jsonl"
AMONG = "JSON lines with text written among them, not a client's output as it writes it"
AMONG_HINT = "ingest the client's own output file, or remove the lines that are not JSON"
VLLM_ARRAYS = SAMPLES / "vllm" / "vllm0.8_llama3.3-70b_a100x8_tp8_sharegpt_qps_01.json"  # one line of 1.1 MB
EXPECTED = ("expected vLLM bench serve JSON/JSONL, SGLang bench_serving JSONL, AIPerf/GenAI-Perf JSON or CSV, "
            "lm-eval results JSON")


def _refused(capsys, tmp_path, name: str, text: str) -> tuple[str, list[str]]:
    source = tmp_path / "made" / name
    source.parent.mkdir()
    source.write_text(text, encoding="utf-8")
    src, lines = refused_alone(capsys, tmp_path, source)
    return str(src), lines


def test_a_label_further_down_json_lines_is_refused_as_text_not_as_truncated(tmp_path, capsys):
    """The real labelled file without its first label: its second one, 'te_tp4:', is on line 8."""
    text = LABELLED.read_text(encoding="utf-8").split("\n", 2)[2]
    src, lines = _refused(capsys, tmp_path, "result_summary.jsonl", text)
    assert lines == [f"{src}:8: format: line 8 is text ('te_tp4:'), not JSON, though line 6 is a JSON object: "
                     f"{AMONG}; {AMONG_HINT}"]


def test_a_note_on_line_5_of_sglang_runs_is_refused_at_its_line(tmp_path, capsys):
    runs = SGLANG_RUNS.read_text(encoding="utf-8").splitlines()
    text = "\n".join([*runs[:4], "# rerun after the driver update", *runs[4:]]) + "\n"
    src, lines = _refused(capsys, tmp_path, "sglang.jsonl", text)
    assert lines == [f"{src}:5: format: line 5 is text ('# rerun after the driver update'), not JSON, though line 4 "
                     f"is a JSON object: {AMONG}; {AMONG_HINT}"]


def test_a_last_line_cut_short_is_still_called_truncated(tmp_path, capsys):
    text = SGLANG_RUNS.read_text(encoding="utf-8").rstrip("\n")
    src, lines = _refused(capsys, tmp_path, "sglang.jsonl", text[:-100])
    assert len(lines) == 1 and lines[0].startswith(f"{src}:{text.count(chr(10)) + 1}:"), lines
    assert "not valid JSON: Unterminated string" in lines[0] and "the file is truncated" in lines[0], lines


def test_a_job_output_with_a_note_among_its_lines_is_refused_not_stored_as_the_job_s_failure(tmp_path, capsys):
    """Beside its sidecar, a file cut short is the job's failure; one with a note written in holds its runs."""
    runs = [json.dumps(vllm_output(conc)) for conc in (4, 8)]
    out = write_job(tmp_path / "res", "job1", "\n".join([runs[0], "second try:", runs[1]]) + "\n", job())
    db = tmp_path / "r.db"
    rc, stdout, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{db}", str(out.parent))
    assert rc == 1 and err.splitlines() == [f"{out}:2: format: line 2 is text ('second try:'), not JSON, though "
                                            f"line 1 is a JSON object: {AMONG}; {AMONG_HINT}"], err


def test_a_label_above_a_one_line_output_longer_than_the_top_looked_at_is_named(tmp_path, capsys):
    """A vLLM 0.8 output with its per-request arrays is one line of 1.1 MB: longer than the 1 MiB looked at, it
    was cut there, no JSON, and the file read "not JSON or CSV"."""
    src, lines = _refused(capsys, tmp_path, "qps_01.json", "qps 0.1:\n" + VLLM_ARRAYS.read_text(encoding="utf-8"))
    assert lines == [f"{src}:1: format: line 1 is text ('qps 0.1:'), not JSON, though line 2 is a JSON object: "
                     f"{AMONG}; {AMONG_HINT}"]


def test_text_whose_json_object_comes_after_line_1000_is_named(tmp_path, capsys):
    log = "".join(f"INFO step {n}\n" for n in range(1, 1501))
    src, lines = _refused(capsys, tmp_path, "out.jsonl", log + SGLANG_RUNS.read_text(encoding="utf-8"))
    assert lines == [f"{src}:1: format: line 1 is text ('INFO step 1'), not JSON, though line 1501 is a JSON "
                     f"object: {AMONG}; {AMONG_HINT}"]


def test_text_longer_than_the_top_looked_at_says_how_much_was_looked_at(tmp_path, capsys):
    """A JSON object after more than 1 MiB of text is not looked for (the file is never split whole): the line
    says that no line of its first 1 MiB is one, and what to do if JSON lines follow."""
    log = "".join(f"INFO step {n:07d} of the warm-up with nothing measured yet\n" for n in range(1, 25001))
    src, lines = _refused(capsys, tmp_path, "out.jsonl", log + SGLANG_RUNS.read_text(encoding="utf-8"))
    assert lines == [f"{src}:1: format: not JSON or CSV (text, and no line of its first 1 MiB is a JSON object; the "
                     f"rest was not looked at), not a benchmark client output ({EXPECTED}); ingest the job's "
                     "$RESULT_FILENAME.json, or remove the file (if JSON lines follow further down, remove the text "
                     "above them)"]


def test_a_short_text_file_keeps_its_plain_words(tmp_path, capsys):
    src, lines = _refused(capsys, tmp_path, "notes.txt", "results:\n[1, 2]\n{not json}\n")
    assert lines == [f"{src}:1: format: not JSON or CSV, not a benchmark client output ({EXPECTED}); ingest the "
                     "job's $RESULT_FILENAME.json, or remove the file"]


SIDECAR_FIX = "write it with the benchmark workflow's sidecar step or `sweepgate rehearse`"
TWO = ("the job sidecar holds JSON documents back to back, not one; keep the job's one document and remove the "
       f"others, or {SIDECAR_FIX}")
AFTER = f"the job sidecar goes on after its JSON document ends; remove what follows it, or {SIDECAR_FIX}"
FIRST = json.dumps(job())


@pytest.mark.parametrize("text, where, hint", [
    (f"{FIRST}\n{json.dumps(job(attempt=2))}\n", "2:1", TWO),
    (f"{FIRST}{json.dumps(job(attempt=2))}", f"1:{len(FIRST) + 1}", TWO),
    (f"{FIRST}\ndone\n", "2:1", AFTER),
], ids=["two-lines", "back-to-back", "trailing-text"])
def test_a_sidecar_of_two_documents_says_so_not_truncated(tmp_path, capsys, text, where, hint):
    """A job's sidecar written twice (a step run again appending to it) was "the job sidecar is truncated"."""
    out = write_job(tmp_path / "res", "job1", vllm_output(), None)
    side = out.with_name("job1.job.json")
    side.write_text(text, encoding="utf-8")
    rc, stdout, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(out.parent))
    assert rc == 1 and err.splitlines() == [f"{side}:{where}: not valid JSON: Extra data; {hint}"], err
    assert not (tmp_path / "r.db").exists()
