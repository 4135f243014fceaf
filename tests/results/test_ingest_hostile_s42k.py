"""s42k: a result file is a GPU job's bytes, which ran a PR's code. Each hostile shape `results ingest` may meet is
one refusal line at its place (or a documented accept), never a traceback, a hang or a row stored half: NaN and
Infinity literals, 1e400, a negative or quoted throughput, deep nesting, UTF-16, a FIFO, /dev/zero, a link to a
host file (s43a: a link out of the folder is refused unread). New: a key an object states twice with two values was
read as its last (Python's reader keeps it),
`"output_throughput": 409.6, ..., "output_throughput": 1.0` stored as 1.0 where a reader of the file sees 409.6; it is
refused at its second place. A key stated twice alike is one value, and a 10 MB line is read."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys

import pytest

from helpers import ROOT, no_ref_said, run_cli, vllm_output

PLAIN = json.dumps(vllm_output())
THROUGHPUT = '"output_throughput": 409.6'


def _with(value: str) -> str:
    return PLAIN.replace(THROUGHPUT, f'"output_throughput": {value}')


COL = PLAIN.index(THROUGHPUT) + 1
TEXTS = {
    "NaN": (_with("NaN"), f":1:{COL}: output_throughput: nan is not a measurement"),
    "Infinity": (_with("Infinity"), f":1:{COL}: output_throughput: inf is not a measurement"),
    "1e400": (_with("1e400"), f":1:{COL}: output_throughput: inf is not a measurement"),
    "negative": (_with("-409.6"), f":1:{COL}: output_throughput: negative (-409.6)"),
    "quoted": (_with('"409.6"'), f":1:{COL}: output_throughput: expected a number, got '409.6'"),
    "deep": ('{"a":' * 100_000 + "1" + "}" * 100_000, ":1:1: nested too deeply"),
    "twice": (PLAIN[:-1] + ', "output_throughput": 1.0}', f":1:{len(PLAIN) + 2}: output_throughput: stated twice in one "
              "object, 409.6 then 1.0; a client writes each key once"),
}


def _rows(db: str) -> int:
    path = db.removeprefix("sqlite:///")
    if not os.path.exists(path):
        return 0
    with sqlite3.connect(path) as con:
        return con.execute("select count(*) from results").fetchone()[0]


@pytest.mark.parametrize("case", TEXTS)
def test_a_hostile_json_text_is_one_line_at_its_place_and_stores_nothing(case, db, tmp_path, capsys):
    text, said = TEXTS[case]
    path = tmp_path / "res.json"
    path.write_text(text, encoding="utf-8")
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(path))
    assert rc == 1 and err.splitlines() == [err.strip()] and err.startswith(f"{path}{said}"), err
    assert _rows(db) == 0


def test_a_key_stated_twice_alike_and_a_ten_megabyte_line_are_read(db, tmp_path, capsys):
    path = tmp_path / "res.json"
    path.write_text(PLAIN[:-1] + f', "output_throughput": 409.6, "note": "{"x" * 10_000_000}"}}', encoding="utf-8")
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(path))
    assert rc == 0 and no_ref_said(err) == "", err
    assert _rows(db) == 1


def test_utf16_is_one_line(db, tmp_path, capsys):
    path = tmp_path / "res.json"
    path.write_bytes(PLAIN.encode("utf-16"))
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(path))
    assert rc == 1 and err == f"{path}:1:1: not UTF-8 text (byte 0); pass a client's JSON/JSONL/CSV output\n", err


@pytest.mark.parametrize("kind", ["fifo", "/dev/zero", "/etc/passwd"])
def test_what_is_no_result_file_in_a_results_folder_is_one_line_and_no_hang(kind, tmp_path):
    """Through a real process, the folder walked as the collect job walks it (a FIFO read would never end)."""
    folder = tmp_path / "results"
    folder.mkdir()
    if kind == "fifo":
        os.mkfifo(folder / "res.json")
    else:
        os.symlink(kind, folder / "res.json")
    db = f"sqlite:///{tmp_path / 'r.db'}"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "utils")}
    env.pop("GITHUB_ACTIONS", None)
    proc = subprocess.run([sys.executable, "-m", "sweepgate", "results", "ingest", "--db", db, str(folder)],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    said = (f"a symbolic link to {kind}, outside the folder given" if kind.startswith("/")  # s43a: not read
            else "not a regular file (a FIFO, socket or device); not ingested")
    assert proc.returncode == 1 and len(proc.stderr.splitlines()) == 1 and said in proc.stderr, proc.stderr
    assert "root:" not in proc.stderr + proc.stdout  # nothing of the host file is echoed
    assert _rows(db) == 0
