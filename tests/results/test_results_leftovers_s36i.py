"""s36i: results leftovers.

- A job's output compressed whole in a folder of jobs' sidecars (``c4.json.gz`` beside ``c4.job.json``) was
  counted with the helper outputs, and its sidecar stored as a failure that "left no result file": nothing said
  the output was there, compressed. It is warned of as a compressed result beside results is anywhere, naming
  the command that unpacks it, and its sidecar waits for it (no failure stored); unpacked, the job is ingested.
- An AIPerf/GenAI-Perf CSV export's places counted CSV records, not lines: a quoted cell holding a newline moved
  every later ``path:line`` one line short. They are physical lines, and a cell after the newline is placed on its own.
- ``results compare --json``: an eval verdict had no ``model``, though a point has one, so an eval ingested without
  its matrix row (no config key) had no name. It carries its record's model, where a point's stands.

Real outputs (tests/data/results-real) and hand-made variants, ingested through the CLI into SQLite.
"""

from __future__ import annotations

import gzip
import json
import lzma
import sqlite3

from helpers import ROOT, ROW, job, run_cli, vllm_output, write_job

REAL = ROOT / "tests" / "data" / "results-real"
LM_EVAL = REAL / "lm_eval" / "lmeval0.4.3_asdiv_llama3-8b_limit50_trimmed.json"


def _db(tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'r.db'}"


def _statuses(tmp_path) -> dict[str, str]:
    """Each stored record's result name -> its status, read straight from the store."""
    with sqlite3.connect(tmp_path / "r.db") as db:
        return dict(db.execute("SELECT result_filename, status FROM results"))


# 1. a job's output compressed whole beside its sidecar

def test_a_jobs_compressed_output_is_named_and_its_sidecar_not_stored_as_a_failure(tmp_path, capsys):
    runs = tmp_path / "runs"
    write_job(runs, "c8", vllm_output(conc=8), job(run_id="1001", row=dict(ROW, conc=8)))
    write_job(runs, "c4", None, job(run_id="1001"))
    (runs / "c4.json.gz").write_bytes(gzip.compress(json.dumps(vllm_output(conc=4)).encode()))
    write_job(runs, "c16", None, job(run_id="1001", row=dict(ROW, conc=16)))
    (runs / "c16.json.xz").write_bytes(lzma.compress(json.dumps(vllm_output(conc=16)).encode()))
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", _db(tmp_path), str(runs))
    assert rc == 0 and "ingested 1 results (1 new)" in out, (out, err)
    assert "helper" not in out and "left no result file" not in err, (out, err)
    assert err.splitlines() == [
        f"{runs / 'c16.json.xz'}: warning: xz-compressed, a result file not ingested (nor its job's sidecar "
        "c16.job.json); decompress it (xz -dk FILE) and ingest the folder again",
        f"{runs / 'c4.json.gz'}: warning: gzip-compressed, a result file not ingested (nor its job's sidecar "
        "c4.job.json); gunzip it (gunzip -k FILE) and ingest the folder again"], err
    assert _statuses(tmp_path) == {"c8": "success"}
    (runs / "c4.json").write_bytes(gzip.decompress((runs / "c4.json.gz").read_bytes()))  # gunzip -k
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", _db(tmp_path), str(runs))
    assert rc == 0 and "(1 new)" in out and "c4.json.gz" not in err, (out, err)
    assert _statuses(tmp_path) == {"c8": "success", "c4": "success"}


def test_an_eval_only_jobs_compressed_scores_are_named_and_its_sidecar_waits(tmp_path, capsys):
    """An eval-only job's output is ``X-eval.json`` beside ``X.job.json``: compressed, the same."""
    runs = tmp_path / "runs"
    write_job(runs, "c8", vllm_output(conc=8), job(row=dict(ROW, conc=8)))
    write_job(runs, "e4", None, job(row=dict(ROW, **{"run-eval": True, "eval-only": True})))
    (runs / "e4-eval.json.gz").write_bytes(gzip.compress(LM_EVAL.read_bytes()))
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", _db(tmp_path), str(runs))
    assert rc == 0 and "ingested 1 results (1 new)" in out and "helper" not in out, (out, err)
    assert err.splitlines() == [
        f"{runs / 'e4-eval.json.gz'}: warning: gzip-compressed, a result file not ingested (nor its job's sidecar "
        "e4.job.json); gunzip it (gunzip -k FILE) and ingest the folder again"], err


def test_a_folder_of_a_jobs_compressed_output_and_its_sidecar_alone_holds_no_result(tmp_path, capsys):
    """Its one job waits for its output: no result file to read, as in a folder of compressed results alone."""
    runs = tmp_path / "runs"
    write_job(runs, "c4", None, job())
    (runs / "c4.json.gz").write_bytes(gzip.compress(json.dumps(vllm_output()).encode()))
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", _db(tmp_path), str(runs))
    assert rc == 1 and err.splitlines() == [
        f"{runs}: no result files (.json, .jsonl, .csv) in this folder, only 1 gzipped result file (c4.json.gz), "
        "and 1 job sidecar (c4.job.json) whose output it is; gunzip each (gunzip -k FILE) and ingest the folder"], (
        out, err)
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", _db(tmp_path), str(runs), "--allow-empty")
    assert rc == 0 and "(0 new)" in out and "nor its job's sidecar c4.job.json" in err, (out, err)


def test_a_compressed_file_no_sidecar_pairs_with_is_still_a_helper_output(tmp_path, capsys):
    """Only a compressed file named as a job's output is that output; a part beside the jobs stays a helper."""
    runs = tmp_path / "runs"
    write_job(runs, "c4", vllm_output(), job())
    (runs / "c4_part.json.gz").write_bytes(gzip.compress(json.dumps(vllm_output(conc=8)).encode()))
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", _db(tmp_path), str(runs))
    assert rc == 0 and err == "" and "skipped 1 file with no job sidecar (helper outputs)" in out, (out, err)


# 2. an AIPerf CSV export's places counted in physical lines

AIPERF_CSV = REAL / "aiperf" / "aiperf0.11_qwen3-4b_g7_conc16.csv"
NOT_A_NUMBER = "the CSV was edited or is not an AIPerf/GenAI-Perf export"


def _csv_with_a_two_line_name(tmp_path, bad_row: str, bad_cell: int) -> tuple:
    """The real export with ``HTTP Blocked (ms)``'s name quoted over two lines (as a spreadsheet writes a cell
    holding a newline) and cell ``bad_cell`` of the row starting ``bad_row`` made no number: (the file, the
    line and column of that cell as an editor shows them)."""
    text = AIPERF_CSV.read_text(encoding="utf-8").replace("HTTP Blocked (ms),", '"HTTP Blocked\n(ms)",', 1)
    lines = text.split("\n")
    (at,) = [n for n, line in enumerate(lines) if line.startswith(bad_row)]
    cells = lines[at].split(",")
    cells[bad_cell] = "oops"
    lines[at] = ",".join(cells)
    path = tmp_path / "profile_export_aiperf.csv"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path, at + 1, len(",".join(cells[:bad_cell])) + 2


def test_a_quoted_cell_holding_a_newline_shifts_no_later_line(tmp_path, capsys):
    path, line, col = _csv_with_a_two_line_name(tmp_path, "Inter Token Latency (ms),", 9)
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", _db(tmp_path), str(path))
    assert rc == 1 and err.splitlines() == [
        f"{path}:{line}:{col}: Inter Token Latency (ms).p50: 'oops' is not a number; {NOT_A_NUMBER}"], err


def test_a_cell_on_the_second_line_of_a_record_is_placed_there(tmp_path, capsys):
    """Its line's first cell is the name's end: the value is at its line and column, not the record's first
    line; the newline in the name is written as such, the diagnostic staying one line."""
    path, line, col = _csv_with_a_two_line_name(tmp_path, '(ms)",', 1)
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", _db(tmp_path), str(path))
    assert rc == 1 and err.splitlines() == [
        f"{path}:{line}:{col}: HTTP Blocked\\n(ms).avg: 'oops' is not a number; {NOT_A_NUMBER}"], err


# 3. `results compare --json`: an eval verdict names its model, as a point does


def test_an_eval_verdict_in_compare_json_names_its_model(tmp_path, capsys):
    """Ingested without its matrix row, the eval's point has no config key: its model alone names it."""
    db = _db(tmp_path)
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(LM_EVAL))
    assert rc == 0, err
    rc, out, _ = run_cli(capsys, "results", "show", "--db", db, "--json")
    run = json.loads(out)[0]["run-id"]
    rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", run, "--json")
    assert rc == 0, err
    evals = json.loads(out)["evals"]
    assert evals and {e["config-key"] for e in evals} == {None}, evals
    assert [e["model"] for e in evals] == ["meta-llama/Meta-Llama-3-8B-Instruct"] * len(evals), evals
    assert list(evals[0])[list(evals[0]).index("request-rate") + 1] == "model", evals[0]  # where a point has it


def test_an_eval_verdict_of_a_matrix_row_names_the_rows_model(tmp_path, capsys):
    """A job's eval (its row's model) and a failed eval job's one verdict, which has no score, name it too."""
    db = _db(tmp_path)
    row = dict(ROW, **{"run-eval": True, "eval-only": True})
    write_job(tmp_path / "a", "e1", None, job(run_id="700", row=row, status="failure"))
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path / "a"))
    assert rc == 0, err
    rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "700", "--json")
    evals = json.loads(out)["evals"]
    assert [(e["task"], e["model"]) for e in evals] == [("(job)", ROW["model"])], evals
