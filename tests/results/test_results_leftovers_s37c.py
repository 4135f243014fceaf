"""s37c: results leftovers.

- A job's output whose name holds a ``#`` (``c4#b.json``, its sidecar ``c4#b.job.json``) was taken, by the store's
  SQL, for one of the runs of ``c4.json`` (a file of several runs stores them as ``c4#1``, ``c4#2``), while the
  rest of the store takes only ``#<digits>`` for that: the same bytes as ``c4``'s, stored before it, went
  unsaid. One rule (``store.file_of``) says which file a result name is of, everywhere.
Real ingests through the CLI into SQLite.
"""

from __future__ import annotations

from helpers import ROW, job, run_cli, vllm_output, write_job

JOBS_COPY_FIX = ("check the workflow's steps that write or download outputs: one job's output was copied as another's "
                 "(one $RESULT_FILENAME named twice); rerun the job whose output is not its own")


def _db(tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'r.db'}"


def _copy_warning(path, stored: str, sidecar: str) -> str:
    return (f"{path}: warning: the same bytes as run 900's result {stored!r}, stored before; stored under its job "
            f"({sidecar}) all the same, but two benchmark runs never write the same bytes; {JOBS_COPY_FIX}")


def test_a_hash_in_a_jobs_result_name_is_no_run_of_another_file(tmp_path, capsys):
    """Two jobs of run 900, ``c4`` and ``c4#b``, of the same bytes, ingested apart: the later is said to repeat the
    earlier in either order (``c4#b`` first was not said: its name was taken for one of ``c4``'s runs)."""
    for first, later in (("c4#b", "c4"), ("c4", "c4#b")):
        top = tmp_path / f"order{len(first)}"
        db = _db(top)
        top.mkdir()
        write_job(top / "a", first, vllm_output(4), job(run_id="900", row=dict(ROW, tp=4)))
        second = write_job(top / "b", later, vllm_output(4), job(run_id="900"))
        rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(top / "a"))
        assert rc == 0 and err == "", (out, err)
        rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(top / "b"))
        assert rc == 0 and "ingested 1 results (1 new)" in out, (out, err)
        assert err.splitlines() == [_copy_warning(second, first, f"{later}.job.json")], err

