"""Review s38w: a GenAI-Perf CSV states no concurrency and no input length it asked for, so a --row of
another conc or isl was taken without a word, though the table measured both: its "Input Sequence Length"
avg is the input tokens its requests averaged, and its request throughput times its mean request latency is
the requests it held in flight on average (Little's law: the real samples below give 1.0, 10.0, 99.9 and 249
for their conc 1, 10, 100 and 250). Each is now held to the row by the rule and words the vLLM output's
token totals are (`normalize.inputs_unlike_row`: a quarter, `measurement.SHORT_OUTPUTS`): one warning line
at the figure's cell, the result stored as before (exit 0). The real samples with their real rows say
nothing of it."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from helpers import ROOT, ROW, SAMPLES, run_cli, show_json

CSV = SAMPLES / "aiperf" / "genaiperf_nim-llama3-8b_trtllm_isl200_osl50_conc10.csv"
MODEL = "meta/llama3-8b-instruct"
HINT = "; if the row is not the one this output was run with, pass that one as --row (`sweepgate test-config {}` "\
    "narrows it to the output's {})"


def _ingest(tmp_path, capsys, monkeypatch, output, **row):
    monkeypatch.chdir(tmp_path)
    if output.suffix == ".csv":  # alone, stating nothing: beside its JSON export it is held to what that states (s42d)
        output = Path(shutil.copy(output, tmp_path / output.name))
    (tmp_path / "row.json").write_text(json.dumps({**ROW, "model": MODEL, **row}), encoding="utf-8")
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, "--row", "row.json", "--run-id", "101",
                           "--ref", "refs/heads/main", str(output))
    return rc, out, err, db


def _cell(output, line: str) -> str:
    """The cell a warning's path:line:col names."""
    _, number, col = line.split(": ", 1)[0].rsplit(":", 2)
    return output.read_text().splitlines()[int(number) - 1][int(col) - 1:]


def test_a_csv_with_a_row_of_another_input_length_is_warned_of_and_stored(tmp_path, capsys, monkeypatch):
    rc, out, err, db = _ingest(tmp_path, capsys, monkeypatch, CSV, isl=8192, osl=50, conc=10)
    assert rc == 0 and out.strip() == f"ingested 1 results (1 new) into {db}", err
    (line,) = err.strip().splitlines()
    assert ": warning: Input Sequence Length.avg: the run's completed requests averaged 200 input tokens, but its " \
        "job's row (--row) says isl 8192; stored under isl 8192, though its figures are not an isl-8192 run's" \
        + HINT.format("--seq-lens", "lengths") in line, line
    assert _cell(CSV, line).startswith("200.03,"), line  # at its cell
    (rec,) = show_json(capsys, db)
    assert rec["isl"] == 8192


@pytest.mark.parametrize("conc, averaged", [(100, 10), (1, 10)])
def test_a_csv_with_a_row_of_another_concurrency_is_warned_of_and_stored(tmp_path, capsys, monkeypatch, conc,
                                                                         averaged):
    rc, out, err, db = _ingest(tmp_path, capsys, monkeypatch, CSV, isl=200, osl=50, conc=conc)
    assert rc == 0 and out.strip() == f"ingested 1 results (1 new) into {db}", err
    (line,) = err.strip().splitlines()
    assert f": warning: Request Throughput (per sec).avg: the run's requests averaged {averaged} in flight (its " \
        "request throughput times its mean request latency), but its job's row (--row) says conc " \
        f"{conc}; stored under conc {conc}, though its figures are not a conc-{conc} run's" + HINT.format("--conc", "concurrency") in line, line
    assert _cell(CSV, line).startswith("11.38"), line
    (rec,) = show_json(capsys, db)
    assert rec["conc"] == conc


def test_the_csv_with_its_own_row_is_stored_without_a_word(tmp_path, capsys, monkeypatch):
    rc, out, err, db = _ingest(tmp_path, capsys, monkeypatch, CSV, isl=200, osl=50, conc=10)
    assert rc == 0 and err == "", err


REAL = sorted(p for folder in (SAMPLES / "aiperf", ROOT / "tests" / "data" / "results-real" / "aiperf")
              for p in folder.glob("*") if p.suffix in (".json", ".csv")
              and re.search(r"_c(?:onc)?(\d+)(?:_|\.|$)", p.stem))


@pytest.mark.parametrize("output", REAL, ids=lambda p: p.name)
def test_real_exports_with_their_own_rows_say_nothing_of_the_row(tmp_path, capsys, monkeypatch, output):
    """Each real export whose name says its concurrency, with a row of it and of the input length it
    averaged: no row-lengths or row-concurrency warning (whatever else it is worth, or refused as it was)."""
    conc = int(re.search(r"_c(?:onc)?(\d+)(?:_|\.|$)", output.stem)[1])
    isl = 200 if "isl200" in output.name else 1024
    text = output.read_text(encoding="utf-8", errors="replace")
    said = re.search(r'"input_sequence_length":\s*\{[^}]*?"avg":\s*([\d.]+)', text) or \
        re.search(r'^Input Sequence Length[^,]*,(?:"([\d,.]+)"|([\d.]+))', text, re.M)
    if said:
        isl = max(1, round(float((said[1] or said.group(2) or "0").replace(",", ""))))
    rc, out, err, db = _ingest(tmp_path, capsys, monkeypatch, output, isl=isl, osl=128, conc=conc)
    assert "isl " not in err and "in flight (its request throughput" not in err, err


def test_a_json_export_of_a_prompt_file_is_held_to_the_row_by_its_mean_input(tmp_path, capsys, monkeypatch):
    """The GenAI-Perf JSON export states its lengths only for synthetic prompts, and writes no token totals:
    the same run's export with its prompts from a file is held to the row by its input_sequence_length avg,
    the warning at that key."""
    doc = json.loads((SAMPLES / "aiperf" / "genaiperf_nim-llama3-8b_trtllm_isl200_osl50_conc10.json").read_text())
    doc["input_config"].update(prompt_source="file", input_file="prompts.jsonl")
    output = tmp_path / "profile_export_genai_perf.json"
    output.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    rc, out, err, db = _ingest(tmp_path, capsys, monkeypatch, output, isl=8192, osl=50, conc=10)
    assert rc == 0 and out.strip() == f"ingested 1 results (1 new) into {db}", err
    (line,) = err.strip().splitlines()
    assert ": warning: input_sequence_length.avg: the run's completed requests averaged 200 input tokens, but its " \
        "job's row (--row) says isl 8192;" in line, line
    lines = output.read_text().splitlines()
    at = int(line.split(": ", 1)[0].rsplit(":", 2)[1])
    assert '"avg": 200.03' in lines[at - 1] and '"input_sequence_length"' in "".join(lines[at - 4:at]), line
    (own := tmp_path / "own").mkdir()
    rc, out, err, db = _ingest(own, capsys, monkeypatch, output, isl=200, osl=50, conc=10)
    assert rc == 0 and err == "", err


def test_an_aiperf_csv_warning_of_its_token_totals_stands_at_their_cell(tmp_path, capsys, monkeypatch):
    """An AIPerf CSV writes its token totals and request count: the warning of them stood at 1:1 (the CSV's
    measurement has no line of its own); it now stands at the Total Input Sequence Length cell."""
    output = SAMPLES / "aiperf" / "aiperf_kimik2.7_fp4_mi355x_tp4_conc4.csv"
    rc, out, err, db = _ingest(tmp_path, capsys, monkeypatch, output, isl=500000, osl=128, conc=4)
    assert rc == 0, err
    (line,) = [w for w in err.splitlines() if "says isl 500000" in w]
    assert ": warning: Total Input Sequence Length (tokens).avg: the run's 547 completed requests averaged 81098 " \
        "input tokens" in line, line
    assert _cell(output, line).startswith("44360550.00"), line
