"""s30 review: the look-up that stores one measurement once across hashed runs (store_dedup._stored_alike, b2e3758)
found its candidates by model and the client's time alone. An output that states no time (SGLang's
bench_serving JSONL, GenAI-Perf's export) has none, so every file ingested without a sidecar fetched and
compared, field for field, every stored row of its model that has no time either: the rows of every such file
ingested before. 400 SGLang JSONLs of one model (2,800 lines, each file its own measurements) took 33 s to
ingest where the version before took 1.3 s, and a team store's hand ingests slowed with each.

The candidates are now narrowed by the client's output throughput as well (a typed column, part of the
measurement), so a new measurement compares no stored row; a grown JSONL's lines and a sweep's run are still
found (test_sweep_filled_in30).

The files are the real SGLang sample (tests/data/results-samples), its figures scaled a little per file: runs
of the same server, each measured on its own.
"""

from __future__ import annotations


from helpers import SGLANG_RUNS, run_cli, scaled_sglang_runs, show_json

from sweepgate.results import record as R
from sweepgate.results import store
from sweepgate.results import store_dedup

def test_a_new_measurement_without_a_time_compares_no_stored_row(tmp_path, capsys, monkeypatch):
    db = f"sqlite:///{tmp_path / 'r.db'}"
    scaled_sglang_runs(tmp_path / "before", 20)
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path / "before"))
    assert rc == 0, err
    stored = show_json(capsys, db)
    assert len(stored) == 20 * 7 and {r[R.FINISHED] for r in stored} == {None}  # no time to look them up by
    scaled_sglang_runs(tmp_path / "later", 1, first=20)
    compared: list[dict] = []
    measurement = store_dedup._measurement

    def counted(rec: dict) -> str:
        compared.append(rec)
        return measurement(rec)

    monkeypatch.setattr(store_dedup, "_measurement", counted)
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path / "later"))
    assert rc == 0 and out.splitlines()[-1].startswith("ingested 7 results (7 new)"), (out, err)
    others = [r for r in compared if store.file_of(r[R.RESULT_FILENAME]) != "run00020.jsonl"]
    assert others == []  # was the 140 stored rows of its model, each compared field for field
    assert len(show_json(capsys, db)) == 21 * 7


def test_a_grown_jsonl_is_still_found_by_the_narrower_look_up(tmp_path, capsys):
    """The narrowing keeps what it is for: lines stored before, read again from the grown file, are skipped. The
    grown file is a copy under another name (a later job's artifact): under its own name it continues the run its
    first lines are stored in (s32b), with no look-up."""
    db = f"sqlite:///{tmp_path / 'r.db'}"
    lines = SGLANG_RUNS.read_text(encoding="utf-8").splitlines(keepends=True)
    first = tmp_path / "runs" / "bench.jsonl"
    first.parent.mkdir()
    first.write_text("".join(lines[:4]), encoding="utf-8")
    assert run_cli(capsys, "results", "ingest", "--db", db, str(first))[0] == 0
    grown = tmp_path / "later" / "bench-later.jsonl"
    grown.parent.mkdir()
    grown.write_text("".join(lines), encoding="utf-8")
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(grown))
    assert rc == 0, err
    assert out.splitlines()[-1].startswith("ingested 3 results (3 new)"), out
    assert len(show_json(capsys, db)) == len(lines)
