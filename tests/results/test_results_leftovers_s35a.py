"""s35a: results leftovers a maintainer would trip over.

- A figure read under a key vLLM misspelt (0.8-0.9's ``"request_goodput:"`` with its colon, spring 2024's
  ``"request_inthroughput"``) was refused at the document's first character, naming the corrected key no file
  holds; the refusal names the key as written and stands at it.
- Two jobs' outputs of the same bytes (each beside its own sidecar) ingested in one call were both stored without a
  word, though no two benchmark runs write the same bytes (a workflow copied one job's output as another's). Both
  are stored, under their jobs, as before, with one warning naming both files and what to check; an ingest that
  stores nothing new says nothing.
- A refusal or warning of a figure in an AIPerf/GenAI-Perf CSV export stood at its row alone (``path:18:``); it
  stands at its cell (``path:18:26:``, the cell's 1-based character column, quoted cells' commas their own), as
  one in a JSON export stands at its key; a refusal of a NaN there, and a warning of a broken further statistic
  (``p1``), stood at its row or at ``:1:1`` naming the JSON export's key (``time_to_first_token.p1``): they name the
  table's (``Time to First Token (ms).p1``) and stand at its cell.

Real outputs (tests/data/results-samples, results-real) and hand-made variants, ingested through the CLI into SQLite.
"""

from __future__ import annotations

import json

import pytest

from helpers import ROOT, ROW, SAMPLES, job, refused_alone, run_cli, show_json, vllm_output, write_job

from sweepgate.results import plausible

REAL = ROOT / "tests" / "data" / "results-real"
VLLM_0_8 = REAL / "vllm" / "vllm0.8_openai_backend_rate10_and_conc2_arrays_trimmed.json"


def _place(text: str, needle: str) -> str:
    """``line:col`` of ``needle`` in ``text``, 1-based."""
    at = text.index(needle)
    return f"{text.count(chr(10), 0, at) + 1}:{at - text.rfind(chr(10), 0, at)}"


def _refused(capsys, tmp_path, text: str, name: str = "out.json") -> str:
    made = tmp_path / "made" / name
    made.parent.mkdir()
    made.write_text(text, encoding="utf-8")
    src, lines = refused_alone(capsys, tmp_path, made)
    (line,) = lines
    return line.replace(str(src), "OUT")


def test_a_refused_goodput_stands_at_the_colon_key_vllm_0_8_wrote(tmp_path, capsys):
    doc = json.loads(VLLM_0_8.read_text(encoding="utf-8"))
    assert "request_goodput:" in doc
    doc["request_goodput:"] = -3.5
    text = json.dumps(doc, indent=1)
    line = _refused(capsys, tmp_path, text)
    assert line.startswith(f'OUT:{_place(text, chr(34) + "request_goodput:" + chr(34))}: "request_goodput:": '
                           "negative (-3.5); "), line  # s36c: quoted, as it read request_goodput:: negative


def test_a_rate_read_under_request_inthroughput_is_refused_at_that_key(tmp_path, capsys):
    doc = vllm_output(4)
    rate = doc.pop("request_throughput") * 10  # 40 requests in 100 s cannot be 4 req/s
    doc = {**doc, "request_inthroughput": rate}
    text = json.dumps(doc, indent=1)
    line = _refused(capsys, tmp_path, text)
    assert line == (f'OUT:{_place(text, chr(34) + "request_inthroughput" + chr(34))}: request_inthroughput: 4 req/s '
                    "for 100 s (duration) is 400 requests, but only 40 completed or failed; " + plausible.CORRUPT)


def test_two_jobs_outputs_of_the_same_bytes_are_stored_with_one_warning_naming_both(tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'r.db'}"
    first = write_job(tmp_path / "run", "c4", vllm_output(4), job(run_id="900"))
    second = write_job(tmp_path / "run", "c4b", vllm_output(4), job(run_id="900", row=dict(ROW, tp=4)))
    other = write_job(tmp_path / "run", "c8", vllm_output(8), job(run_id="900", row=dict(ROW, conc=8)))
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path / "run"))
    assert rc == 0 and "ingested 3 results (3 new)" in out, (out, err)
    assert err.splitlines() == [
        f"{second}: warning: the same bytes as {first}; stored under its job (c4b.job.json) all the same, but two "
        "benchmark runs never write the same bytes; check the workflow's steps that write or download outputs: one "
        "job's output was copied as another's (one $RESULT_FILENAME named twice); rerun the job whose output is not "
        "its own"], err
    assert str(other) not in err
    assert sorted(r["result-filename"] for r in show_json(capsys, db)) == ["c4", "c4b", "c8"]
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path / "run"))
    assert rc == 0 and "(0 new)" in out and "same bytes" not in err, (out, err)


GENAI_PERF_CSV = SAMPLES / "aiperf" / "genaiperf_nim-llama3-8b_trtllm_isl200_osl50_conc100.csv"
TTFT_ROW = ('Time To First Token (ms),"1,019.69",118.95,"1,564.96","1,564.27","1,424.55","1,419.93","1,303.30",'
            '"1,222.64",647.85')


@pytest.mark.parametrize(("p50", "said"), [
    ("n/a", "Time To First Token (ms).p50: 'n/a' is not a number; "),
    ('"1,999.00"', "Time To First Token (ms).p50: 1999 ms is above Time To First Token (ms).p75 (1303.3 ms), "),
])
def test_a_refused_csv_cell_is_placed_at_its_column_past_quoted_commas(p50, said, tmp_path, capsys):
    text = GENAI_PERF_CSV.read_text(encoding="utf-8")
    assert TTFT_ROW in text
    row = TTFT_ROW.replace('"1,222.64"', p50)
    line = _refused(capsys, tmp_path, text.replace(TTFT_ROW, row), "profile_export_genai_perf.csv")
    assert line.startswith(f"OUT:2:{row.index(p50) + 1}: {said}"), line


AIPERF_CSV = REAL / "aiperf" / "aiperf0.11_qwen3-4b_g7_conc16.csv"


@pytest.mark.parametrize(("cell", "said"), [
    (5, "warning: Time to First Token (ms).p1: nan is no latency; stored without it; "),  # a further statistic
    (1, "Time to First Token (ms).avg: nan is not a measurement; "),  # refused
])
def test_a_nan_in_an_aiperf_csv_is_named_as_the_table_writes_it_at_its_cell(cell, said, tmp_path, capsys):
    rows = AIPERF_CSV.read_text(encoding="utf-8").split("\n")
    n = next(i for i, row in enumerate(rows) if row.startswith("Time to First Token (ms),"))
    cells = rows[n].split(",")
    cells[cell] = "nan"
    rows[n] = ",".join(cells)
    made = tmp_path / "profile_export_aiperf.csv"
    made.write_text("\n".join(rows), encoding="utf-8")
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(made))
    assert rc == (0 if cell == 5 else 1), err
    (line,) = [x for x in err.splitlines() if ": nan is " in x]
    assert line.startswith(f"{made}:{n + 1}:{len(','.join(cells[:cell])) + 2}: {said}"), err
