"""New user (newuser27, second walk): sweepgate's own result files handed back to it.

The results artifact (`sweepgate-results`) holds the store, `results.db`, and the records
`results ingest --jsonl` wrote, `results.jsonl`. Told to "unzip it and ingest the folder" by the
refusal of its zip, a user ingesting the unzipped folder got, for `results.jsonl`, "format: unknown
JSON output ...; ingest the job's $RESULT_FILENAME.json, or remove the file", as if sweepgate had
never seen the file; `results show --json` saved to a file read the same. The SQLite store passed
as a result or as `compare --baseline-jsonl` read "not UTF-8 text (byte 106)", as if damaged. Each
now says what the file is and where it goes; nothing is stored.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from helpers import job, run_cli, vllm_output, write_job


def _store_and_records(tmp: Path, capsys) -> tuple[Path, Path]:
    """A real store and its records JSONL, as the collect job leaves them in its artifact."""
    art = tmp / "sweepgate-results"
    art.mkdir()
    write_job(tmp / "main", "res", vllm_output(), job(run_id="5"))
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{art / 'results.db'}",
                           "--jsonl", str(art / "results.jsonl"), str(tmp / "main"))
    assert rc == 0, err
    (art / "charts").mkdir()
    return art / "results.db", art / "results.jsonl"


def test_the_records_jsonl_ingested_is_told_what_it_is(tmp_path, capsys):
    db, records = _store_and_records(tmp_path, capsys)
    other = f"sqlite:///{tmp_path / 'other.db'}"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", other, str(records.parent))
    assert rc == 1 and "nothing stored" in out, (out, err)
    assert err.splitlines() == [
        f"{records}:1:1: format: sweepgate's own normalized result records (as `results ingest --jsonl` writes "
        "them), not a client's output: results ingested already; pass the file to `results compare "
        "--baseline-jsonl`, or ingest the job outputs it was made from"], err
    assert not (tmp_path / "other.db").exists()


def test_results_show_json_saved_and_ingested_is_told_what_it_is(tmp_path, capsys):
    db, _ = _store_and_records(tmp_path, capsys)
    rc, out, err = run_cli(capsys, "results", "show", "--db", f"sqlite:///{db}", "--json")
    assert rc == 0, err
    shown = tmp_path / "shown.json"
    shown.write_text(out)
    assert isinstance(json.loads(out), list)
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'other.db'}", str(shown))
    assert rc == 1 and err.splitlines() == [
        f"{shown}:1:1: format: sweepgate's own normalized result records (a JSON array, as `results show --json` "
        "prints them), not a client's output: results ingested already; read them with `results show`, or "
        "ingest the job outputs they were made from"], err


def test_a_sqlite_store_as_a_result_or_as_a_baseline_is_told_what_it_is(tmp_path, capsys):
    db, records = _store_and_records(tmp_path, capsys)
    with sqlite3.connect(db) as conn:  # a real SQLite file, whatever bytes follow its header
        assert conn.execute("select count(*) from results").fetchone()[0] == 1
    other = f"sqlite:///{tmp_path / 'other.db'}"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", other, str(db))
    assert rc == 1 and "nothing stored" in out, (out, err)
    assert err.splitlines() == [
        f"{db}:1: a SQLite database (such as a results store), not a client's output; "
        f"read a store with --db sqlite:///{db} (`results show`, `results compare`), "
        "and ingest the job outputs themselves"], err
    write_job(tmp_path / "pr", "res", vllm_output(), job(run_id="7", ref="refs/pull/7/head"))
    assert run_cli(capsys, "results", "ingest", "--db", other, str(tmp_path / "pr"))[0] == 0
    rc, out, err = run_cli(capsys, "results", "compare", "--db", other, "--run", "7", "--baseline-jsonl", str(db))
    assert rc == 1 and out == "", out
    assert err.splitlines() == [
        f"{db}:1: a SQLite database (such as a results store), not JSON lines; pass the JSONL "
        "`results ingest --jsonl` wrote beside it (results.jsonl in the results artifact)"], err
    # the JSONL beside it is the baseline it asks for
    rc, out, err = run_cli(capsys, "results", "compare", "--db", other, "--run", "7", "--baseline-jsonl", str(records))
    assert rc == 0 and "1 found" in out, (out, err)
