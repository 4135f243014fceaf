"""An ingest that looks for stored copies of a job's output reads no ``ci reuse`` copy it does not name (s38d).

Each job output's bytes are looked up among the stored rows (``store_dedup._Outputs``): another job's output of the same
bytes is warned of, naming the first job that stored them (``_first_stored``: a job's own result before a ``ci
reuse`` copy of it). Every stored row of those bytes was fetched and JSON-decoded to pick that one, the copies too:
a job's result that later runs reused holds as many copies of its rows as runs reused it, so each ingest of its bytes
decoded them all. The rows are now read in the order the one named is picked by (run, then result name), and no
further than the first that is a job's own; what is warned of is unchanged. Counted in JSON values decoded.
"""

from __future__ import annotations

from test_store_copies_s37n import LINES, _count_decodes, _ingest, _jsonl

from helpers import job, write_job
from sweepgate.results import record as R
from sweepgate.results import store

REUSED = 6  # later runs that reused job 900's result: each holds a copy of its LINES rows


def _reused(db: str, runs) -> None:
    """Copies of run 900's records as ``ci reuse`` records them against each of ``runs``."""
    with store.open_store(db) as st:
        recs = st.run_results("900")
        for run in runs:
            st.add([{**rec, R.REUSED_FROM: {f: rec[f] for f in store.KEY}, R.RUN_ID: run,
                     R.REF: "refs/heads/main"} for rec in recs], keep_stored=True)


def test_another_job_s_copy_of_a_reused_output_reads_the_original_alone(tmp_path, capsys, monkeypatch):
    db, text = f"sqlite:///{tmp_path / 'r.db'}", _jsonl()
    write_job(tmp_path / "a", "c4", text, job(run_id="900"))
    _ingest(capsys, db, tmp_path / "a")
    _reused(db, [str(901 + n) for n in range(REUSED)])
    second = write_job(tmp_path / "b", "c4", text, job(run_id="950"))
    decoded = _count_decodes(monkeypatch)
    out, err = _ingest(capsys, db, tmp_path / "b")
    assert f"ingested {LINES} results ({LINES} new)" in out, (out, err)
    assert err.startswith(f"{second}: warning: the same bytes as run 900's results of 'c4', stored before"), err
    assert decoded[0] == 1  # before: every stored row of those bytes, LINES * (1 + REUSED)


def test_copies_alone_name_the_first_copy(tmp_path, capsys, monkeypatch):
    """Where only copies hold the bytes (their original's rows deleted), each is read, and the first is named."""
    db, text = f"sqlite:///{tmp_path / 'r.db'}", _jsonl()
    write_job(tmp_path / "a", "c4", text, job(run_id="900"))
    _ingest(capsys, db, tmp_path / "a")
    _reused(db, ["1002", "999", "1001"])
    with store.open_store(db) as st, st.engine.begin() as conn:
        conn.execute(store.results.delete().where(store.results.c.run_id == "900"))
    second = write_job(tmp_path / "b", "c4", text, job(run_id="950"))
    decoded = _count_decodes(monkeypatch)
    out, err = _ingest(capsys, db, tmp_path / "b")
    assert err.startswith(f"{second}: warning: the same bytes as run 999's results of 'c4', stored before"), err
    assert decoded[0] == 3 * LINES
