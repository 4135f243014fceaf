"""s48h review of s48f's null commit: `--commit 000…0` is refused (argument syntax), but a job's .job.json saying
"commit": "000…0" was stored so, and `results compare` then said "Measured on commit 000000000000", the line s48f's
fix meant never to print. A sidecar's null object id is refused at its key as any commit that is no full SHA is."""

from __future__ import annotations

import pytest

from helpers import job, job_key_at, run_cli, vllm_output, write_job


@pytest.mark.parametrize("null", ["0" * 40, "0" * 64])
def test_a_sidecar_whose_commit_is_the_null_object_id_is_refused(tmp_path, capsys, null):
    write_job(tmp_path / "run", "r", vllm_output(), job(commit=null))
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(tmp_path / "run"))
    assert rc == 1, (out, err)
    assert err.startswith(f"{job_key_at(tmp_path / 'run' / 'r.job.json', 'commit')}: job.commit: '{null}' is git's "
                          "null object id, no commit; write the commit the job checked out"), err
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err


def test_a_sidecar_with_a_real_commit_is_stored(tmp_path, capsys):
    """Guard: a commit with leading zeros is a commit."""
    write_job(tmp_path / "run", "r", vllm_output(), job(commit="0" * 39 + "1"))
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(tmp_path / "run"))
    assert rc == 0 and "(1 new)" in out, (out, err)
