"""s49b review: a ref git could not name was stored as written, in no baseline and without a word.

A sidecar's `job.ref` (and `--ref`) was taken as a full ref when it began with `refs/`: `"refs/heads/main "` (a
space left by a script), `"refs/heads/main\\t"`, `"refs/heads/my branch"`, `"refs/heads/"` were stored so, exit 0,
and `results compare`'s baseline (refs/heads/main) never read the run: a run of main lost from main's baseline as
silently as the short refs Hunt 16 refused. A ref with a leading space was refused, but its fix said `write refs/
refs/heads/main`. Such a ref is now refused as git's check-ref-format refuses it, saying why, its fix naming the
ref without the spaces where that is one; the refs GitHub gives (branches with slashes, dots and dashes, PRs,
tags) stay stored."""

from __future__ import annotations

import json

import pytest

from helpers import ROW, job, job_key_at, run_cli, show_json, vllm_output, write_job


def _db(tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'r.db'}"


@pytest.mark.parametrize("ref,what,fix", [
    ("refs/heads/main ", "it ends in a space", "write refs/heads/main"),
    (" refs/heads/main", "it holds a space", "write refs/heads/main"),
    ("refs/heads/main\t", "it ends in a tab", "write refs/heads/main"),
    ("refs/heads/my branch", "it holds a space", "write the ref the job ran on as git names it"),
    ("refs/heads/", "it ends in '/'", "write the ref the job ran on as git names it"),
    ("refs/heads/a..b", "it holds '..'", "write the ref the job ran on as git names it"),
    ("refs/heads/x.lock", "a part of it ends in '.lock'", "write the ref the job ran on as git names it"),
    ("refs/pull/7/head ", "it ends in a space", "write refs/pull/7/head"),
])
def test_a_sidecar_ref_git_cannot_name_is_refused_saying_why(tmp_path, capsys, ref, what, fix):
    write_job(tmp_path / "run", "r", vllm_output(), job(ref=ref))
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", _db(tmp_path), str(tmp_path / "run"))
    assert rc == 1, (out, err)  # was 0, stored under the ref as written
    (line,) = err.splitlines()
    assert line.startswith(f"{job_key_at(tmp_path / 'run' / 'r.job.json', 'ref')}: job.ref: {ref!r} is no git ref "
                           f"name ({what}); {fix}"), line
    assert "refs/ refs" not in line
    assert "nothing stored" in out


def test_the_annotation_names_the_sidecar_under_github_actions(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_WORKSPACE", str(tmp_path))
    write_job(tmp_path / "run", "r", vllm_output(), job(ref="refs/heads/main "))
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", _db(tmp_path), "run")
    line, annotation = err.splitlines()
    assert rc == 1 and line.startswith("run/r.job.json:1:"), err
    assert annotation.startswith("::error file=run/r.job.json,line=1::") and "is no git ref name" in annotation


@pytest.mark.parametrize("ref", ["refs/heads/main ", "refs/heads/my branch", "refs/heads/a~1"])
def test_ref_flag_git_cannot_name_is_argument_syntax(tmp_path, capsys, ref):
    out = write_job(tmp_path, "bare", vllm_output(), None)
    (tmp_path / "row.json").write_text(json.dumps(ROW))
    with pytest.raises(SystemExit) as exc:
        run_cli(capsys, "results", "ingest", "--db", _db(tmp_path), "--row", str(tmp_path / "row.json"),
                "--run-id", "1", "--ref", ref, str(out))
    err = capsys.readouterr().err
    assert exc.value.code == 2 and f"{ref!r} is no git ref name (" in err, err
    assert not (tmp_path / "r.db").exists()


@pytest.mark.parametrize("ref", ["refs/heads/main", "refs/heads/feature/x-1.2_b", "refs/pull/7/merge",
                                 "refs/tags/v1.0", "refs/heads/user@host"])
def test_the_refs_github_gives_are_stored(tmp_path, capsys, ref):
    write_job(tmp_path / "run", "r", vllm_output(), job(ref=ref))
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", _db(tmp_path), str(tmp_path / "run"))
    assert (rc, err) == (0, ""), err
    assert [r["ref"] for r in show_json(capsys, _db(tmp_path))] == [ref]
