"""Job files the ingest cannot read: one line each, the other files still stored.

An unreadable sidecar (permission denied) and JSON nested past Python's reader (outputs,
sidecars, a --baseline-jsonl) ended in "internal error" (hostile review 11).
"""

from __future__ import annotations

import json
import pathlib

import pytest

from helpers import job, run_cli, vllm_output, write_job
from sweepgate.results import record as R
from sweepgate.results import store


def db_of(tmp: pathlib.Path) -> str:
    return f"sqlite:///{tmp / 'r.db'}"


def run_ids(db: str) -> list[str]:
    with store.open_store(db) as st:
        return sorted(r[R.RUN_ID] for r in st.records())


def test_an_unreadable_sidecar_is_one_line(tmp_path, capsys, monkeypatch):
    """A .job.json the ingest may not read (permission denied) was "internal error: PermissionError";
    it is refused as an unreadable output is. (Root reads any file: the denial is simulated.)"""
    write_job(tmp_path, "a", vllm_output(), job(run_id="1"))
    write_job(tmp_path, "b", vllm_output(), job(run_id="2"))
    denied = tmp_path / "b.job.json"

    def guarded(read):
        def reading(self, *args, **kwargs):
            if self == denied:
                raise PermissionError(13, "Permission denied", str(self))
            return read(self, *args, **kwargs)
        return reading

    for method in ("read_text", "read_bytes", "open"):  # however the file is read (jsonio.read_bytes: opened)
        monkeypatch.setattr(pathlib.Path, method, guarded(getattr(pathlib.Path, method)))
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db_of(tmp_path), str(tmp_path))
    (line,) = err.strip().splitlines()
    assert rc == 1 and line == f"{denied}: cannot read: Permission denied; check the path and its permissions", err
    assert "ingested 1 results (1 new)" in out and run_ids(db_of(tmp_path)) == ["1"]


def test_a_sidecar_that_is_not_utf8_is_one_line(tmp_path, capsys):
    write_job(tmp_path, "a", vllm_output(), job(run_id="1"))
    write_job(tmp_path, "b", vllm_output(), None)
    (tmp_path / "b.job.json").write_bytes(json.dumps(job(run_id="2", ref="caf\u00e9")).replace(
        "caf\\u00e9", "caf\u00e9").encode("latin-1"))
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db_of(tmp_path), str(tmp_path))
    (line,) = err.strip().splitlines()
    assert rc == 1 and line.startswith(f"{tmp_path / 'b.job.json'}: not UTF-8 text (byte "), err
    assert "ingested 1 results (1 new)" in out and run_ids(db_of(tmp_path)) == ["1"]


DEEP = "[" * 2000 + "]" * 2000


@pytest.mark.parametrize("where", ["output", "jsonl line", "sidecar"])
def test_json_nested_too_deeply_is_one_line(where, tmp_path, capsys):
    """JSON ~2,000 levels deep was "internal error: RecursionError" in outputs and sidecars."""
    good = json.dumps(vllm_output())
    text = {"output": DEEP, "jsonl line": f"{good}\n{{\"x\": {DEEP}}}\n", "sidecar": good}[where]
    write_job(tmp_path, "a", vllm_output(), job(run_id="1"))
    write_job(tmp_path, "b", text, job(run_id="2"))
    if where == "sidecar":
        (tmp_path / "b.job.json").write_text(f'{{"row": {DEEP}, "job": {{}}}}')
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db_of(tmp_path), str(tmp_path))
    (line,) = err.strip().splitlines()
    bad = tmp_path / ("b.job.json" if where == "sidecar" else "b.json")
    at = {"output": ":1", "jsonl line": ":2:1", "sidecar": ":1"}[where]  # a JSONL line: where its object starts
    assert rc == 1 and line.startswith(f"{bad}{at}: nested too deeply"), err
    assert "ingested 1 results (1 new)" in out and run_ids(db_of(tmp_path)) == ["1"]


def test_a_baseline_jsonl_nested_too_deeply_is_one_line(tmp_path, capsys):
    write_job(tmp_path / "in", "a", vllm_output(), job(run_id="1"))
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db_of(tmp_path), str(tmp_path / "in"))
    assert rc == 0, err
    (tmp_path / "base.jsonl").write_text(DEEP + "\n")
    rc, _, err = run_cli(capsys, "results", "compare", "--db", db_of(tmp_path), "--run", "1",
                         "--baseline-jsonl", str(tmp_path / "base.jsonl"))
    (line,) = err.strip().splitlines()
    assert rc == 1 and line.startswith(f"{tmp_path / 'base.jsonl'}:1: nested too deeply"), err


def test_a_row_nested_too_deeply_is_one_line_at_the_sidecar_step(tmp_path, capsys, monkeypatch):
    for name, value in {"ROW": DEEP, "RESULT_DIR": str(tmp_path), "RESULT_FILENAME": "res",
                        "JOB_STATUS": "success"}.items():
        monkeypatch.setenv(name, value)
    rc, _, err = run_cli(capsys, "results", "sidecar")
    (line,) = err.strip().splitlines()
    assert rc == 1 and line.startswith("ROW: row is nested too deeply"), err


@pytest.mark.parametrize("case", ["missing", "not utf-8"])
def test_a_baseline_jsonl_that_cannot_be_read_is_one_plain_line(case, tmp_path, capsys):
    """New-user run: a mistyped --baseline-jsonl read "cannot read: [Errno 2] No such file or directory:
    '/…/nope.jsonl'", the path twice and Python's errno; a Latin-1 file, "cannot read: 'utf-8' codec
    can't decode byte …". Each is said as the other commands say it."""
    write_job(tmp_path / "in", "a", vllm_output(), job(run_id="1"))
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db_of(tmp_path), str(tmp_path / "in"))
    assert rc == 0, err
    base = tmp_path / "base.jsonl"
    if case == "not utf-8":
        base.write_bytes(b'{"run-id": "caf\xe9"}\n')
    rc, _, err = run_cli(capsys, "results", "compare", "--db", db_of(tmp_path), "--run", "1",
                         "--baseline-jsonl", str(base))
    said = {"missing": "cannot read: No such file or directory", "not utf-8": "not UTF-8 text (byte 15)"}[case]
    assert rc == 1 and err == f"{base}: {said}; pass a readable JSONL file\n", err
