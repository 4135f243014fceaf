"""The sidecar step clears symbolic links from what the templates upload: upload-artifact follows
them, so a link a benchmark (even in its container) leaves there would upload a file of the host."""

from __future__ import annotations

import json

import pytest

from helpers import ROW, run_cli  # helpers puts utils/ on sys.path

from sweepgate.core import jobfile


def job_env(monkeypatch, result_dir, name="res"):
    for k, v in {"ROW": json.dumps(ROW), "RESULT_DIR": str(result_dir), "RESULT_FILENAME": name,
                 "JOB_STATUS": "success", "GITHUB_RUN_ID": "5", "GITHUB_REF": "refs/heads/main"}.items():
        monkeypatch.setenv(k, v)
    for k in ("ROW_ID", "MATRIX_FILE", "JOB_CONTEXT_FILE", "GITHUB_ACTIONS"):
        monkeypatch.delenv(k, raising=False)


def test_a_result_dir_that_is_a_link_is_replaced_by_a_folder(tmp_path, capsys, monkeypatch):
    host = tmp_path / "host"
    host.mkdir()
    (host / "res.json").write_text("{}")  # what the upload would take through the link
    results = tmp_path / "results"
    results.symlink_to(host)
    job_env(monkeypatch, results)
    rc, _, err = run_cli(capsys, "results", "sidecar")
    assert rc == 1 and f"{results}: was a symbolic link to {host}; removed, not uploaded" in err, err
    assert results.is_dir() and not results.is_symlink()
    assert (results / f"res{jobfile.SUFFIX}").is_file() and sorted(p.name for p in host.iterdir()) == ["res.json"]


def test_regular_files_stay_and_the_step_passes(tmp_path, capsys, monkeypatch):
    results = tmp_path / "results"
    (results / jobfile.LOGS).mkdir(parents=True)
    (results / "res.json").write_text("{}")
    (results / jobfile.LOGS / "server.log").write_text("up")
    (results / "other.json").symlink_to(results / "res.json")  # not uploaded: left as it is
    job_env(monkeypatch, results)
    rc, _, err = run_cli(capsys, "results", "sidecar")
    assert rc == 0 and "symbolic link" not in err, err
    assert (results / "res.json").read_text() == "{}" and (results / jobfile.LOGS / "server.log").exists()
    assert (results / "other.json").is_symlink()


def test_a_link_that_cannot_be_removed_holds_both_uploads(tmp_path, capsys, monkeypatch):
    """In a folder the container made as root the runner's user cannot remove the link: the
    step sets SWEEPGATE_UPLOAD_HELD, and the templates' uploads run only while it is empty."""
    import os
    from pathlib import Path

    from sweepgate.core.fields import UPLOAD_HELD_ENV
    from sweepgate.workflow.kv import parse_kv

    results = tmp_path / "results"
    (results / jobfile.LOGS / "deep").mkdir(parents=True)
    (results / jobfile.LOGS / "deep" / "leak.log").symlink_to(tmp_path)
    job_env(monkeypatch, results)
    env_file = tmp_path / "github_env"
    monkeypatch.setenv("GITHUB_ENV", str(env_file))
    real = Path.unlink

    def refused(self, *a, **k):  # as unlink(2) in a root-owned folder answers the runner's user
        if self.name == "leak.log":
            raise PermissionError(13, os.strerror(13))
        return real(self, *a, **k)

    monkeypatch.setattr(Path, "unlink", refused)
    rc, _, err = run_cli(capsys, "results", "sidecar")
    assert rc == 1 and "leak.log: is a symbolic link to" in err and "cannot be removed (Permission denied)" in err, err
    assert parse_kv(env_file.read_text())[UPLOAD_HELD_ENV].startswith("1 path(s)"), env_file.read_text()
    from workflow_job import condition

    for held, runs in (({UPLOAD_HELD_ENV: "1 symbolic link(s)"}, False), ({}, True)):
        assert condition("always() && env.RESULT_FILENAME != '' && env.SWEEPGATE_UPLOAD_HELD == ''", {},
                         {"RESULT_FILENAME": "res", **held}, failed=True) is runs


def test_values_github_never_sets_are_refused_and_no_sidecar_is_written(tmp_path, capsys, monkeypatch):
    """Bad-input review: GITHUB_RUN_ID=abc, GITHUB_SHA=zz, GITHUB_REF=main and JOB_STARTED=yesterday were
    written into the sidecar (and stored under ref "main", never main's baseline); RESULT_FILENAME=../../x
    wrote a sidecar outside RESULT_DIR."""
    results = tmp_path / "deep" / "results"
    job_env(monkeypatch, results)
    for k, v in {"GITHUB_RUN_ID": "abc", "GITHUB_SHA": "zz", "GITHUB_REF": "main", "JOB_STARTED": "yesterday"}.items():
        monkeypatch.setenv(k, v)
    rc, _, err = run_cli(capsys, "results", "sidecar")
    assert rc == 1 and err.splitlines() == [
        "GITHUB_RUN_ID: 'abc' is not a workflow run id (digits); leave GITHUB_RUN_ID as the runner sets it",
        "GITHUB_REF: 'main' is not a full git ref; leave GITHUB_REF as the runner sets it (refs/heads/main), or "
        "write the job context with `sweepgate ci split --job-context`",
        "GITHUB_SHA: 'zz' is not a full commit SHA (40 hex digits, 64 in a SHA-256 repository); leave GITHUB_SHA as the runner sets it",
        "JOB_STARTED: 'yesterday' is not an ISO 8601 time; set it with `date -u +%Y-%m-%dT%H:%M:%SZ`"], err
    assert not (results / f"res{jobfile.SUFFIX}").exists()
    job_env(monkeypatch, results, name="../../x")
    for k in ("GITHUB_SHA", "JOB_STARTED"):
        monkeypatch.delenv(k)
    monkeypatch.setenv("GITHUB_RUN_ID", "5")
    monkeypatch.setenv("GITHUB_REF", "refs/heads/main")
    rc, _, err = run_cli(capsys, "results", "sidecar")
    assert rc == 1 and err.strip() == ("RESULT_FILENAME: '../../x' is not a file name; leave RESULT_FILENAME as "
                                       "`sweepgate ci row-env` sets it"), err
    assert list(tmp_path.rglob("*.job.json")) == []
    monkeypatch.setenv("JOB_STARTED", "2026-01-01T00:00:00Z")
    monkeypatch.setenv("GITHUB_SHA", "f" * 40)
    job_env(monkeypatch, results)
    monkeypatch.setenv("GITHUB_RUN_ID", "5")
    assert run_cli(capsys, "results", "sidecar")[0] == 0 and (results / f"res{jobfile.SUFFIX}").exists()


def test_a_removed_link_is_said_even_when_the_step_then_refuses_a_value(tmp_path, capsys, monkeypatch):
    results = tmp_path / "results"
    results.mkdir()
    (results / "res.json").symlink_to(tmp_path)
    job_env(monkeypatch, results)
    monkeypatch.setenv("JOB_STATUS", "bogus")
    rc, _, err = run_cli(capsys, "results", "sidecar")
    assert rc == 1 and "res.json: was a symbolic link to" in err and "JOB_STATUS" in err, err
    assert not (results / "res.json").is_symlink()


@pytest.mark.parametrize("case", ["folder at an upload name", "fifo", "link above RESULT_DIR", "fifo in logs"])
def test_what_is_no_regular_file_holds_both_uploads(tmp_path, capsys, monkeypatch, case):
    """Session review: a folder named like an upload (`res.json/x -> host file`) is uploaded whole with
    its links followed; a FIFO blocks the upload; a link in a folder above RESULT_DIR was not seen."""
    import os

    from sweepgate.core.fields import UPLOAD_HELD_ENV
    from sweepgate.workflow.kv import parse_kv

    host = tmp_path / "host"
    host.mkdir()
    results = tmp_path / "results"
    if case == "link above RESULT_DIR":
        (host / "results" / "logs").mkdir(parents=True)
        (tmp_path / "out").symlink_to(host)
        results = tmp_path / "out" / "results"
        culprit = tmp_path / "out"
    else:
        (results / jobfile.LOGS).mkdir(parents=True)
        if case == "folder at an upload name":
            culprit = results / "res.json"
            culprit.mkdir()
            (culprit / "x").symlink_to(host)
        else:
            culprit = results / ("res.json" if case == "fifo" else "logs/server.log")
            os.mkfifo(culprit)
    job_env(monkeypatch, results)
    env_file = tmp_path / "github_env"
    monkeypatch.setenv("GITHUB_ENV", str(env_file))
    rc, _, err = run_cli(capsys, "results", "sidecar")
    assert rc == 1 and f"{culprit}: " in err and "; nothing is uploaded" in err, err
    assert parse_kv(env_file.read_text())[UPLOAD_HELD_ENV], env_file.read_text()


def test_a_name_holding_a_newline_stays_one_line(tmp_path, capsys, monkeypatch):
    """Session review: a link named `x\n::error title=forged::...` printed a second line the runner reads
    as a workflow command."""
    results = tmp_path / "results"
    (results / jobfile.LOGS).mkdir(parents=True)
    (results / jobfile.LOGS / "x\n::error title=forged::all benchmarks passed").symlink_to(tmp_path)
    job_env(monkeypatch, results)
    rc, _, err = run_cli(capsys, "results", "sidecar")
    assert rc == 1 and not any(line.startswith("::") for line in err.splitlines()), err
    assert "x\\n::error title=forged" in err, err


def test_every_wrong_variable_is_named_in_one_run(tmp_path, capsys, monkeypatch):
    """New-user review: with several wrong, only RESULT_FILENAME was named; GITHUB_RUN_ID, GITHUB_REF,
    GITHUB_SHA and JOB_STARTED showed up one run later (the contract says one line each)."""
    results = tmp_path / "results"
    job_env(monkeypatch, results, name="../x")
    for k, v in {"GITHUB_RUN_ID": "abc", "GITHUB_SHA": "zz", "GITHUB_REF": "main", "JOB_STARTED": "yesterday",
                 "JOB_STATUS": "bogus", "GITHUB_RUN_ATTEMPT": "0"}.items():
        monkeypatch.setenv(k, v)
    rc, _, err = run_cli(capsys, "results", "sidecar")
    named = sorted(line.split(":")[0] for line in err.splitlines())
    assert rc == 1 and named == sorted(["RESULT_FILENAME", "GITHUB_RUN_ID", "GITHUB_REF", "GITHUB_SHA", "JOB_STARTED",
                                        "JOB_STATUS", "GITHUB_RUN_ATTEMPT"]), err
    assert not results.exists()


@pytest.mark.parametrize("case", ["result dir a file", "result dir unset"])
def test_a_bad_result_dir_is_named_beside_the_other_wrong_variables(tmp_path, capsys, monkeypatch, case):
    """Diff review: a RESULT_DIR that is a file was named only once JOB_STATUS was fixed, and an unset
    one hid every other variable."""
    job_env(monkeypatch, tmp_path / "afile")
    if case == "result dir a file":
        (tmp_path / "afile").write_text("x")
    else:
        monkeypatch.delenv("RESULT_DIR")
    monkeypatch.setenv("JOB_STATUS", "bogus")
    monkeypatch.setenv("GITHUB_REF", "main")
    rc, _, err = run_cli(capsys, "results", "sidecar")
    named = sorted(line.split(":")[0].rsplit("/", 1)[-1] for line in err.splitlines())
    first = "afile" if case == "result dir a file" else "RESULT_DIR"  # the unset one is named (new-user28)
    assert rc == 1 and named == sorted([first, "GITHUB_REF", "JOB_STATUS"]), err
    assert list(tmp_path.rglob("*.job.json")) == []


@pytest.mark.parametrize("case", ["link that cannot be removed", "fifo"])
def test_the_sidecar_never_writes_through_what_is_at_its_path(tmp_path, capsys, monkeypatch, case):
    """Review of 1791b64 (atomic_write follows links and writes FIFOs through): a link at the sidecar's
    own path that the step cannot remove (a root-owned folder) had the host-side step overwrite the host
    file it points at, and a FIFO there blocked the step until the job timed out. The sidecar replaces
    whatever is at its path; the uploads are held as before."""
    import os
    from pathlib import Path

    host = tmp_path / "host"
    host.mkdir()
    (host / "authorized_keys").write_text("the host's own file\n")
    results = tmp_path / "results"
    results.mkdir()
    side = results / f"res{jobfile.SUFFIX}"
    reader = None
    if case == "fifo":
        os.mkfifo(side)
        reader = os.open(side, os.O_RDONLY | os.O_NONBLOCK)  # so that a write through it returns, not blocks
    else:
        side.symlink_to(host / "authorized_keys")
        real = Path.unlink

        def refused(self, *a, **k):  # as unlink(2) in a root-owned folder answers the runner's user
            if self.name == side.name:
                raise PermissionError(13, os.strerror(13))
            return real(self, *a, **k)

        monkeypatch.setattr(Path, "unlink", refused)
    job_env(monkeypatch, results)
    monkeypatch.setenv("GITHUB_ENV", str(tmp_path / "github_env"))
    monkeypatch.setenv("SWEEPGATE_RUN_IDENTITY", "x" * 64)
    try:
        rc, _, err = run_cli(capsys, "results", "sidecar")
    finally:
        if reader is not None:
            os.close(reader)
    assert rc == 1 and "nothing is uploaded" in err, err
    assert (host / "authorized_keys").read_text() == "the host's own file\n"
    assert side.is_file() and not side.is_symlink() and json.loads(side.read_text())[jobfile.JOB]["run-id"] == "5"
