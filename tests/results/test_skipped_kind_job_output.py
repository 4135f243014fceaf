"""A job's own output (the ``X.json`` its ``X.job.json`` pairs with) that is a kind of file ingest
passes over (an AIPerf multi-run aggregate, a file an eval leaves beside its scores, another
export): the job has no result. It was passed over like any such file, so the job vanished from
the store, with exit 0 when the folder held other results. It is refused at the output, naming
its job sidecar and the kind, and the other jobs are still stored."""

from __future__ import annotations

import json

import pytest

from helpers import job, run_cli, show_json, vllm_output, write_job
from test_aiperf_multi_run import AGGREGATE
from test_eval_side_files import META_ENV


@pytest.mark.parametrize("doc, kind", [(META_ENV, "files an eval leaves beside its scores"),
                                       (AGGREGATE, "AIPerf multi-run aggregates")])
def test_a_jobs_output_of_a_skipped_kind_is_refused_and_the_rest_stored(tmp_path, capsys, doc, kind):
    folder = tmp_path / "results"
    bad = write_job(folder, "bad", doc, job(run_id="1001"))
    write_job(folder, "good", vllm_output(), job(run_id="1001"))
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(folder))
    assert rc == 1, (out, err)
    assert err.count("\n") == 1, err
    assert err.startswith(f"{bad}: ") and "bad.job.json" in err and kind in err, err
    assert out.splitlines()[-1] == f"ingested 1 results (1 new) into {db}", out
    assert [r["result-filename"] for r in show_json(capsys, db, "--run", "1001")] == ["good"]


def test_the_same_kind_beside_a_jobs_output_is_still_passed_over(tmp_path, capsys):
    folder = tmp_path / "results"
    write_job(folder, "good", vllm_output(), job(run_id="1001"))
    (folder / "meta_env.json").write_text(json.dumps(META_ENV), encoding="utf-8")
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(folder))
    assert (rc, err) == (0, ""), err
    assert out.splitlines()[-1] == f"ingested 1 results (1 new) into {db}", out
