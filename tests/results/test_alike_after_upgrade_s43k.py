"""s43k: one measurement read from two files (a sweep's run=N.json and its summary.json#N, a one-line JSONL and
the same line of it grown) is stored once (``store_dedup._one_measurement``, ``store_dedup._continued_run``): the two
records were compared whole but for their provenance. A sweepgate that reads a metric more than the one that
stored the row (s43b: the peaks of vLLM's bench serve and SGLang's bench_serving, an SGLang line's summed
total token throughput) made the same measurement a different one, so an ingest after the upgrade stored it a
second time: the store held the sweep's run twice, and a grown JSONL's run held its first line twice (compare
took it for a point measured twice). Two records are one measurement now when every field but their provenance
and figures is the same and every figure both hold is the same; a figure one holds alone is one a newer
sweepgate reads or derives. A figure both hold with another value is still another measurement.

The files are real (tests/data/results-real/SOURCES.tsv); the rows are made as the older sweepgate stored them
by SQL, as test_peak_metrics_s43b does.
"""

from __future__ import annotations

import json
import shutil
import sqlite3

from helpers import ROOT, no_ref_said, run_cli, show_json
from test_sweep_filled_in30 import FILES, _point  # the real point of a vLLM 0.25.1 sweep, copied under root

from sweepgate.results import record as R

REAL = ROOT / "tests" / "data" / "results-real"
PEAKS = (R.MAX_OUTPUT_TOKENS_PER_S, R.MAX_CONCURRENT_REQUESTS)  # no column holds them
# bench_serving of May 2025: no total_throughput on its lines, so the total is input plus output (s43b)
SGLANG_NO_TOTAL = "sglang/sglang2025-05_qwen2.5-vl-3b_in512_out32_20prompts_c2_c32_c256_trimmed.jsonl"


def _ingest(capsys, db, path, warned: bool = False) -> list[str]:
    """The lines `results ingest --verbose` printed; stderr but its no-ref line (a raw file: no sidecar, no --row)
    empty unless ``warned`` (the file's own warnings)."""
    rc, out, err = run_cli(capsys, "results", "ingest", "--verbose", "--db", db, str(path))
    assert rc == 0 and (warned or no_ref_said(err, out, verbose=True) == ""), (out, err)
    return out.splitlines()


def _as_stored_before(path, newer: tuple[str, ...], edit=None) -> None:
    """Every row of the SQLite store ``path`` as the sweepgate before ``newer`` stored it: its record without
    those metrics (their typed columns NULL, where they have one); ``edit(record)`` then changes what it will."""
    with sqlite3.connect(path) as conn:
        columns = {row[1] for row in conn.execute("PRAGMA table_info(results)")}
        nulled = "".join(f", {m} = NULL" for m in newer if m in columns)
        for row_id, text in conn.execute("SELECT id, record FROM results").fetchall():
            rec = json.loads(text)
            assert set(newer) <= rec[R.METRICS].keys(), rec[R.METRICS]
            rec[R.METRICS] = {k: v for k, v in rec[R.METRICS].items() if k not in newer}
            if edit is not None:
                edit(rec)
            conn.execute(f"UPDATE results SET record = ?{nulled} WHERE id = ?", (json.dumps(rec), row_id))


def _names(capsys, db) -> list[str]:
    return sorted(r[R.RESULT_FILENAME] for r in show_json(capsys, db))


def test_a_summary_entry_whose_run_an_older_sweepgate_stored_from_its_file_is_not_stored_again(tmp_path, capsys):
    path = tmp_path / "r.db"
    db = f"sqlite:///{path}"
    point = _point(tmp_path, *FILES)
    _ingest(capsys, db, tmp_path / "experiment")
    assert _names(capsys, db) == ["run=0.json", "run=1.json"]
    _as_stored_before(path, PEAKS)
    run1 = next(r[R.RUN_ID] for r in show_json(capsys, db) if r[R.RESULT_FILENAME] == "run=1.json")
    (point / "run=1.json").unlink()  # the summary is read for run 1 again
    out = _ingest(capsys, db, tmp_path / "experiment")
    assert _names(capsys, db) == ["run=0.json", "run=1.json"]  # was summary.json#2 too: run 1 twice
    assert f"skipped {point / 'summary.json'}#2 (run=1.json of run {run1})" in out, out
    assert out[-1].startswith("ingested 1 results (0 new)"), out


def test_a_run_file_after_an_upgrade_takes_the_place_of_the_summary_entry_an_older_sweepgate_stored(tmp_path, capsys):
    path = tmp_path / "r.db"
    db = f"sqlite:///{path}"
    point = _point(tmp_path, "summary.json")
    _ingest(capsys, db, tmp_path / "experiment")
    assert _names(capsys, db) == ["summary.json#1", "summary.json#2"]
    _as_stored_before(path, PEAKS)
    _point(tmp_path, "run=0.json", "run=1.json")
    out = _ingest(capsys, db, tmp_path / "experiment")
    assert _names(capsys, db) == ["run=0.json", "run=1.json"], out  # was all four: each run twice
    assert out[-1].startswith("ingested 2 results (0 new)"), out
    assert (point / "summary.json").is_file()


def test_a_figure_both_hold_with_another_value_is_still_another_measurement(tmp_path, capsys):
    """The stored run 1 with another mean TTFT (and without the peaks): the summary's entry of run 1 is not it."""
    path = tmp_path / "r.db"
    db = f"sqlite:///{path}"
    point = _point(tmp_path, *FILES)
    _ingest(capsys, db, tmp_path / "experiment")

    def other_ttft(rec: dict) -> None:
        if rec[R.RESULT_FILENAME] == "run=1.json":
            rec[R.METRICS]["ttft_mean_ms"] += 1.0

    _as_stored_before(path, PEAKS, other_ttft)
    (point / "run=1.json").unlink()
    out = _ingest(capsys, db, tmp_path / "experiment")
    assert _names(capsys, db) == ["run=0.json", "run=1.json", "summary.json#2"]
    assert out[-1].startswith("ingested 2 results (1 new)"), out


def test_a_grown_one_line_jsonl_stored_before_its_total_holds_its_first_line_once(tmp_path, capsys):
    """bench.jsonl of one line, stored by the sweepgate before the summed total; the client appends two lines and
    it is ingested again under its own name: its first line is the row stored before, not a second measurement
    of that point in the file's run (`results compare --run` took the point for one measured twice)."""
    path = tmp_path / "r.db"
    db = f"sqlite:///{path}"
    lines = (REAL / SGLANG_NO_TOTAL).read_text(encoding="utf-8").splitlines(keepends=True)
    bench = tmp_path / "runs" / "bench.jsonl"
    bench.parent.mkdir()
    bench.write_text(lines[0], encoding="utf-8")
    _ingest(capsys, db, bench)
    _as_stored_before(path, (R.TOTAL_TOKEN_THROUGHPUT,))
    (run,) = {r[R.RUN_ID] for r in show_json(capsys, db)}
    bench.write_text("".join(lines), encoding="utf-8")
    out = _ingest(capsys, db, bench, warned=True)  # its lines at c32 and c256 sent 20 requests
    assert out[-1].startswith("ingested 3 results (2 new)"), out
    rows = show_json(capsys, db)
    assert sorted(r[R.RESULT_FILENAME] for r in rows) == ["bench.jsonl", "bench.jsonl#2", "bench.jsonl#3"], rows
    assert {r[R.RUN_ID] for r in rows} == {run}
    rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", run, "--json")
    assert rc == 0, err
    report = json.loads(out)
    assert "repeated" not in report, report["repeated"]  # was the first line's point: 2 measurements


VLLM_PEAKS = "vllm/vllmbench_gptoss120b_h100x8_tp4dp2_isl15000_c100.json"


def test_a_main_run_an_older_sweepgate_stored_is_still_told_by_every_figure_both_hold(tmp_path, capsys):
    """Rows stored before sweepgate kept an output's SHA-256 (revision 0005) are told from a run ingested by hand
    (--row) with their output by its figures (``store_dedup._echoes``): those rows are an older sweepgate's, without the
    peaks it reads now, so the same output ingested as another main run was stored without a word."""
    from helpers import ROW
    from sweepgate.results import ingest
    from test_alike_index_s31 import stored_by_an_older_sweepgate

    out = tmp_path / "out.json"
    shutil.copyfile(REAL / VLLM_PEAKS, out)
    run = json.loads(out.read_text(encoding="utf-8"))
    row = dict(ROW, conc=run["max_concurrency"], isl=15000, osl=run["total_output_tokens"] // run["completed"])
    (tmp_path / "row.json").write_text(json.dumps(row), encoding="utf-8")
    db = f"sqlite:///{tmp_path / 'old.db'}"
    (old,) = ingest.records_of(out, ingest.Given(row=row, run_id="201", ref="refs/heads/main"))
    old = {k: v for k, v in old.items() if k != R.OUTPUT_SHA256}
    old[R.METRICS] = {k: v for k, v in old[R.METRICS].items() if k not in PEAKS}
    stored_by_an_older_sweepgate(db, [old], "0005")
    rc, stdout, err = run_cli(capsys, "results", "ingest", "--db", db, "--row", str(tmp_path / "row.json"),
                              "--run-id", "202", "--ref", "refs/heads/main", str(out))
    assert rc == 0 and "(1 new)" in stdout, (stdout, err)
    assert [line for line in err.splitlines() if "every figure the same as run 201's result 'out.json'" in line], err
