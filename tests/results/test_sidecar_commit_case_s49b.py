"""s49b review: a sidecar's commit of 40 hex digits in upper case (or with a space around it) was refused with
"is not a full commit SHA; write the commit the job checked out, 40 hex digits …", which it is: nothing said what
was wrong, while `--commit` takes the same value (lower-cased). Still refused (the store keeps and searches the
lower case git prints), it now says why and names the value to write."""

from __future__ import annotations

import pytest

from helpers import job, job_key_at, run_cli, vllm_output, write_job

SHA = "c0ffee" * 6 + "abcd"


@pytest.mark.parametrize("commit,why", [(SHA.upper(), "it is in upper case"),
                                        (SHA[:20].upper() + SHA[20:], "it is in upper case"),
                                        (f"{SHA} ", "it has spaces around it"),
                                        (f" {SHA.upper()}", "it is in upper case and has spaces around it"),
                                        (("AB" * 32), "it is in upper case")])
def test_a_sidecar_commit_in_upper_case_is_refused_naming_the_sha_to_write(tmp_path, capsys, commit, why):
    write_job(tmp_path / "run", "r", vllm_output(), job(commit=commit))
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(tmp_path / "run"))
    assert rc == 1, (out, err)
    (line,) = err.splitlines()
    assert line == (f"{job_key_at(tmp_path / 'run' / 'r.job.json', 'commit')}: job.commit: {commit!r} is not a full "
                    f"commit SHA as git prints one ({why}); write {commit.strip().lower()}, as git rev-parse HEAD "
                    "prints it"), line


@pytest.mark.parametrize("commit", ["c0ffee1", "main", "g" * 40])
def test_other_commits_keep_their_refusal(tmp_path, capsys, commit):
    write_job(tmp_path / "run", "r", vllm_output(), job(commit=commit))
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(tmp_path / "run"))
    assert rc == 1 and f"job.commit: '{commit}' is not a full commit SHA; write the commit the job checked out, 40 " \
        "hex digits, 64 in a SHA-256 repository (git rev-parse HEAD)" in err, err
