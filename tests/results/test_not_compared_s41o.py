"""New user s41l: GenAI-Perf's points were judged on one metric fewer than the others, nothing saying which or why.
Its exports count no failed request, so a success rate cannot be computed there: `results compare` says so in its
terminal report, its Markdown and its JSON ("success_rate not compared at 2 points: GenAI-Perf's output states
no ..."), and `results show` marks the cell "—" with the reason under its table. The reason is one function's
(``derive.why_none``). Real GenAI-Perf exports (NIM llama3-8b on TRT-LLM), ingested with their jobs' sidecars."""

from __future__ import annotations

import json

from helpers import ROW, SAMPLES, job, run_cli, vllm_output, write_job
from sweepgate.results import record as R
from test_several_models_s40d import _first_model

EXPORT = "aiperf/genaiperf_nim-llama3-8b_trtllm_isl200_osl50_conc{}.json"
REASON = "GenAI-Perf's output states no completed-request count or failed-request count"
NOTE = f"success_rate not compared at 2 points: {REASON}."
PR_REF = "refs/pull/5/merge"


def _genai_perf(conc: int) -> tuple[dict, dict]:
    doc = json.loads((SAMPLES / EXPORT.format(conc)).read_text(encoding="utf-8"))
    return doc, {**ROW, "model": _first_model(doc), "conc": conc, "isl": 200, "osl": 50}


def _store(tmp_path, capsys) -> str:
    """Three main runs and a PR run of GenAI-Perf at conc 1 and 10, and of vLLM's client (which counts its
    failed requests) at conc 4."""
    for run in ("101", "102", "103", "200"):
        ref = PR_REF if run == "200" else "refs/heads/main"
        day = f"2026-01-0{int(run) % 100 + 1 if run != '200' else 9}"
        for conc in (1, 10):
            doc, row = _genai_perf(conc)
            write_job(tmp_path / run, f"llama-c{conc}", doc, job(run, row=row, ref=ref, **{"config-key": "llama3-trt"},
                                                                  started=f"{day}T11:58:00+00:00",
                                                                  finished=f"{day}T12:00:00+00:00"))
        write_job(tmp_path / run, "dsr1-c4", vllm_output(4), job(run, ref=ref, started=f"{day}T11:58:00+00:00",
                                                               finished=f"{day}T12:00:00+00:00"))
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path))
    assert rc == 0, err
    return db


def test_compare_says_which_metric_it_did_not_compare_and_why(tmp_path, capsys):
    db = _store(tmp_path, capsys)
    rc, text, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "200")
    assert rc == 0, err
    assert NOTE in text.splitlines(), text
    rc, md, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "200", "--markdown")
    assert rc == 0 and f"> {NOTE}" in md.splitlines(), md
    rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "200", "--json")
    doc = json.loads(out)
    ((said,),) = [doc["not-compared"]]
    assert said["metric"] == R.SUCCESS_RATE and said["reason"] == REASON, said
    assert [(p["config-key"], p["conc"]) for p in said["points"]] == [("llama3-trt", 1), ("llama3-trt", 10)]
    assert {p["conc"] for p in doc["points"] if p["metric"] == R.SUCCESS_RATE} == {4}  # vLLM's is compared


def test_show_marks_the_cell_and_says_why_under_the_table(tmp_path, capsys):
    db = _store(tmp_path, capsys)
    rc, text, err = run_cli(capsys, "results", "show", "--db", db, "--run", "200")
    assert rc == 0, err
    lines = text.splitlines()
    cells = [[cell.strip() for cell in line.split("\u2502")] for line in lines if "\u2502" in line]
    header = next(line for line in lines if "\u2503" in line)  # rich heads its table with heavy rules
    success = [cell.strip() for cell in header.split("\u2503")].index("success")
    rows = [row for row in cells if "llama3-trt" in row]
    assert len(rows) == 2 and {row[success] for row in rows} == {"\u2014"}, rows
    assert f"\u2014 under success: {REASON} (2 lines)." in " ".join(text.split()), text  # wrapped to its width
    assert next(row for row in cells if "dsr1-fp4-b300-vllm" in row)[success] == "100.0%"
