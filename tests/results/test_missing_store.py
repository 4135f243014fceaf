"""A read-only results command on a SQLite store that is not there (a mistyped --db) says so in one
line and exits 1; it used to create the file empty and report "0 points" with exit 0."""

from __future__ import annotations

import pytest

from helpers import run_cli


@pytest.mark.parametrize("argv", [("results", "show"), ("results", "show", "--json"),
                                  ("results", "compare", "--run", "1001"),
                                  ("results", "compare", "--run", "1001", "--json")])
def test_a_missing_store_is_refused_and_not_created(tmp_path, capsys, monkeypatch, argv):
    monkeypatch.chdir(tmp_path)
    missing = tmp_path / "resutls.db"
    rc, out, err = run_cli(capsys, *argv, "--db", f"sqlite:///{missing}")
    assert rc == 1 and out == "", (out, err)
    assert err.strip() == (f"{missing}: no results store here; check --db (or $SWEEPGATE_DB); "
                           "`sweepgate results ingest --db URL PATH...` creates one")
    assert not missing.exists()


@pytest.mark.parametrize("content", [b"", b"meeting notes\n", "another program's database"])
@pytest.mark.parametrize("argv", [("results", "show"), ("results", "compare", "--run", "1001")])
def test_a_file_that_is_no_store_is_refused_and_left_as_it_was(tmp_path, capsys, monkeypatch, argv, content):
    """Bad-input review: `results show --db sqlite:///notes.txt` on an empty file made it a 36 KB store
    and read "0 points", exit 0."""
    import sqlite3

    monkeypatch.chdir(tmp_path)
    path = tmp_path / "notes.txt"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        with sqlite3.connect(path) as conn:
            conn.execute("CREATE TABLE t (x)")
        conn.close()
    before = path.read_bytes()
    rc, out, err = run_cli(capsys, *argv, "--db", f"sqlite:///{path}")
    assert rc == 1 and out == "", (out, err)
    # New-user run: a text file read "it holds no results tables", as if it were a database; said as
    # ingest says it
    said = (f"{path}: is not a SQLite database" if content == b"meeting notes\n" else
            f"sqlite:///{path}: not a sweepgate results store (it holds no results tables)")
    assert err.strip() == (f"{said}; check --db (or $SWEEPGATE_DB); `sweepgate results ingest --db URL PATH...` "
                           "creates one")
    assert path.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_ingest_still_creates_the_store(tmp_path, capsys):
    from helpers import job, vllm_output, write_job

    url = f"sqlite:///{tmp_path / 'new.db'}"
    write_job(tmp_path / "run", "res", vllm_output(), job())
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", url, str(tmp_path / "run"))
    assert rc == 0, err
    rc, out, err = run_cli(capsys, "results", "show", "--db", url, "--json")
    assert rc == 0 and '"run-id": "1001"' in out, err


@pytest.mark.parametrize("which", ["sidecar", "row"])
def test_a_truncated_sidecar_or_row_gets_its_own_fix_not_a_client_outputs(tmp_path, capsys, which):
    """Review: a truncated .job.json was told to "rerun the benchmark" (the fix for a client's output)."""
    import json

    from helpers import ROW, job, vllm_output, write_job

    folder = tmp_path / "run"
    side = json.dumps(job())[:40]
    write_job(folder, "res", vllm_output(), None)
    if which == "sidecar":
        (folder / "res.job.json").write_text(side, encoding="utf-8")
        argv, where = [str(folder)], f"{folder / 'res.job.json'}:1:"
    else:
        (tmp_path / "row.json").write_text(json.dumps(ROW)[:30], encoding="utf-8")
        argv, where = ["--row", str(tmp_path / "row.json"), "--run-id", "1", "--ref", "refs/heads/main",
                       str(folder / "res.json")], f"{tmp_path / 'row.json'}:1:"
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", *argv)
    assert rc == 1
    (line,) = err.strip().splitlines()
    assert line.startswith(where) and ": not valid JSON: " in line, line
    assert "rerun the benchmark" not in line
    assert line.endswith("step or `sweepgate rehearse`" if which == "sidecar" else "pass the job's matrix row as a JSON file")


def test_an_ingest_whose_every_input_is_refused_creates_no_store(tmp_path, capsys, monkeypatch):
    """Leftover of a review: a mistaken ingest left an empty .sweepgate/results.db in the repository."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    (tmp_path / "notes.json").write_text('{"a": 1}', encoding="utf-8")
    rc, out, err = run_cli(capsys, "results", "ingest", "notes.json")
    assert rc == 1 and err.startswith("notes.json:1:1: format: unknown JSON output"), err
    assert out.strip().startswith("ingested 0 results (0 new) into sqlite:///")
    assert out.strip().endswith("; nothing stored")
    assert not (tmp_path / ".sweepgate").exists()


def test_an_ingest_checks_the_database_url_before_reading_any_file(tmp_path, capsys):
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", "postgresql+nosuch://h/db", str(tmp_path / "none.json"))
    assert rc == 1 and err.startswith("postgresql+nosuch://h/db: not a database URL: "), err


@pytest.mark.parametrize("row, said", [('{"a": 1}', "row has no 'exp-name', 'runner', 'precision', 'framework', 'image'"),
                                       ("[1]", "row is not a JSON object")])
def test_a_row_that_is_not_a_matrix_row_is_refused_before_anything_is_stored(tmp_path, capsys, row, said):
    """Audit: `ingest --row` of {"a": 1} stored a result with no config key or hardware."""
    from helpers import vllm_output

    (tmp_path / "row.json").write_text(row)
    (tmp_path / "out.json").write_text(__import__("json").dumps(vllm_output()))
    db = tmp_path / "r.db"
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{db}", "--row", str(tmp_path / "row.json"),
                         "--run-id", "1", "--ref", "refs/heads/main", str(tmp_path / "out.json"))
    assert rc == 1 and err.startswith(f"{tmp_path / 'row.json'}:1:1: {said}") and not db.exists(), err


@pytest.mark.parametrize("conc", ['"sixteen"', "null", "0", "true", "[]"])
def test_a_row_whose_conc_is_no_concurrency_is_refused(tmp_path, capsys, conc):
    """Review: a --row with "conc": "sixteen" or null was stored, under the output's concurrency."""
    import json

    from helpers import ROW, vllm_output

    row = json.dumps({**ROW, "conc": None}).replace('"conc": null', f'"conc": {conc}')
    (tmp_path / "row.json").write_text(row)
    (tmp_path / "out.json").write_text(json.dumps(vllm_output()))
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", "--row",
                         str(tmp_path / "row.json"), "--run-id", "1", "--ref", "refs/heads/main", str(tmp_path / "out.json"))
    assert rc == 1 and "is not a positive whole number (or a list of them)" in err, err


@pytest.mark.parametrize("kind", ["another program's database", "a text file", "a folder", "one using Alembic",
                                  "views only", "in WAL mode"])
def test_ingest_never_writes_into_a_file_that_is_no_store_and_says_so_first(tmp_path, capsys, monkeypatch, kind):
    """New-user review: `results ingest --db sqlite:///foreign.db` added sweepgate's tables to another
    program's SQLite file (exit 0), and a --db that is a folder was found only after every input was
    read. Each is one line now, before any input is read (the input named here does not exist)."""
    import sqlite3

    monkeypatch.chdir(tmp_path)
    path = tmp_path / "target.db"
    if kind == "a folder":
        path.mkdir()
        said = f"{path}: is a folder, not a SQLite database file; "
    elif kind == "a text file":
        path.write_text("meeting notes\n")
        said = f"{path}: is not a SQLite database; "
    else:  # diff review: an Alembic version table of its own, views without tables, WAL's files left behind
        statements = {"one using Alembic": ["CREATE TABLE alembic_version (version_num)",
                                            "INSERT INTO alembic_version VALUES ('deadbeef')", "CREATE TABLE users (id)"],
                      "views only": ["CREATE VIEW users AS SELECT 1 AS id"],
                      "in WAL mode": ["PRAGMA journal_mode=WAL", "CREATE TABLE users (id)"]}.get(kind, ["CREATE TABLE users (id)"])
        conn = sqlite3.connect(path)
        for statement in statements:
            conn.execute(statement)
        conn.commit()
        conn.close()
        tables = "alembic_version, users" if kind == "one using Alembic" else "users"
        said = f"{path}: another program's database (tables {tables}), not a sweepgate results store; nothing was written; "
    before = sorted(p.name for p in tmp_path.rglob("*")), path.read_bytes() if path.is_file() else b""
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{path}", str(tmp_path / "no-such-run"))
    (line,) = err.splitlines()
    assert rc == 1 and out == "" and line.startswith(said), (out, err)
    assert (sorted(p.name for p in tmp_path.rglob("*")), path.read_bytes() if path.is_file() else b"") == before


def test_ingest_adopts_an_empty_file_as_a_new_store(tmp_path, capsys):
    from helpers import job, vllm_output, write_job

    (tmp_path / "empty.db").write_bytes(b"")
    write_job(tmp_path / "run", "res", vllm_output(), job())
    assert run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'empty.db'}", str(tmp_path / "run"))[0] == 0
