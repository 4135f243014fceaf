"""Looking for copies of a job's output reads no record of the file itself (review finding, s37n).

An ingest looks up the stored rows of the same bytes as each job output (another job's copy of it); the file's own
rows, just stored, are of those bytes too. ``_copies`` fetched and JSON-decoded every one of them and then passed
them over: N records for an N-line JSONL, on every fresh ingest. It now tells them apart by their keys (run id,
attempt, result name) and reads the records of the other files' rows alone.
"""

from __future__ import annotations

import json

import sqlalchemy.sql.sqltypes as sqltypes
from helpers import ROW, SGLANG_RUNS, job, run_cli, write_job

LINES = 5


def _jsonl() -> str:
    """A job's JSONL of LINES runs of its point (a real bench_serving line at the row's concurrency), each of
    its own figures."""
    first = json.loads(SGLANG_RUNS.read_text(encoding="utf-8").splitlines()[0]) | {"max_concurrency": ROW["conc"]}
    return "".join(json.dumps({k: v * (1 + i / 100) if isinstance(v, float) and k.endswith("_ms") else v
                               for k, v in first.items()}) + "\n" for i in range(LINES))


def _count_decodes(monkeypatch) -> list[int]:
    """A counter of the JSON column values read back from the store, from now on."""
    decoded, processor = [0], sqltypes.JSON.result_processor

    def counting(self, dialect, coltype):
        inner = processor(self, dialect, coltype)

        def process(value):
            decoded[0] += 1
            return inner(value)
        return process

    monkeypatch.setattr(sqltypes.JSON, "result_processor", counting)
    return decoded


def _ingest(capsys, db: str, folder) -> tuple[str, str]:
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(folder))
    assert rc == 0, (out, err)
    return out, err


def test_a_fresh_jsonl_s_own_rows_are_not_read_back(tmp_path, capsys, monkeypatch):
    lines = LINES
    write_job(tmp_path / "a", "c4", _jsonl(), job(run_id="900"))
    decoded = _count_decodes(monkeypatch)
    out, err = _ingest(capsys, f"sqlite:///{tmp_path / 'r.db'}", tmp_path / "a")
    assert f"ingested {lines} results ({lines} new)" in out and err == "", (out, err)
    assert decoded[0] == 0


def test_a_copy_ingested_later_reads_the_stored_file_s_rows_alone_and_is_told(tmp_path, capsys, monkeypatch):
    db, text, lines = f"sqlite:///{tmp_path / 'r.db'}", _jsonl(), LINES
    write_job(tmp_path / "a", "c4", text, job(run_id="900"))
    second = write_job(tmp_path / "b", "c4#b", text, job(run_id="900"))
    _ingest(capsys, db, tmp_path / "a")
    decoded = _count_decodes(monkeypatch)
    out, err = _ingest(capsys, db, tmp_path / "b")
    assert f"ingested {lines} results ({lines} new)" in out, (out, err)
    assert err.startswith(f"{second}: warning: the same bytes as run 900's results of 'c4', stored before"), err
    assert decoded[0] == 1  # c4's first row (s38d: each of c4's rows before), not c4#b's own
