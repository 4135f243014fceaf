"""s41c: `results show --ref` named the ref in its title as stored, and in its table's ref column short.

A job's ref is stored in full (``refs/heads/main``: its sidecar's, or ``results ingest --ref``, which takes no
other); `results show` writes it short, as a reader tells refs apart (``main``, ``pull/42/head``: the ref
column, ``record.short_ref``). Its title over a ``--ref`` did not: ``show --ref main`` printed "all points on
refs/heads/main" above a table whose run lines were main's as ``main``. The title now names it as the
table does; ``--json`` keeps the stored ref.
"""

from __future__ import annotations

import pytest
from helpers import ROW, job, run_cli, show_json, vllm_output, write_job


@pytest.mark.parametrize("given", ["main", "refs/heads/main"])
def test_show_ref_titles_the_ref_as_its_table_writes_it(tmp_path, capsys, given):
    write_job(tmp_path / "main", "a", vllm_output(4), job())
    write_job(tmp_path / "pr", "a", vllm_output(8), job(run_id="2002", ref="refs/pull/42/head", row={**ROW, "conc": 8}))
    db = f"sqlite:///{tmp_path / 'r.db'}"
    assert run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path))[0] == 0
    rc, out, err = run_cli(capsys, "results", "show", "--db", db, "--ref", given)
    assert (rc, err) == (0, ""), err
    assert out.splitlines()[0] == "all points on main: 1 point", out
    rc, out, _ = run_cli(capsys, "results", "show", "--db", db, "--key", "dsr1-fp4-b300-vllm", "--ref", given)
    assert out.splitlines()[0] == "config key dsr1-fp4-b300-vllm on main: 1 point", out
    rc, out, _ = run_cli(capsys, "results", "show", "--db", db)
    assert "│ main " in out and "│ pull/42/head " in out, out  # the ref column, as the title writes it
    assert {r["ref"] for r in show_json(capsys, db, "--ref", given)} == {"refs/heads/main"}  # stored in full
