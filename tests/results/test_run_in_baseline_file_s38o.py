"""New-user walk s38o: a maintainer with the results artifact's `results.jsonl` (main's runs and the PR's,
as `results ingest --jsonl` writes them) runs `results compare --run 200 --baseline-jsonl results.jsonl`.
The run compared is read from the store, the file gives its baseline only, so with no store (or one
without the run) the refusal said "no results store here" or "run '200' has no results", and its hint
(`ingest the run first`) led nowhere: `results ingest` refuses that JSONL as sweepgate's own records. When
a --baseline-jsonl file holds the run, the one line now says so and what to pass: --db with the store the
records were ingested into (the artifact's `results.db` beside its `results.jsonl`), or the run's outputs
to ingest. Exit 1, no traceback."""

from __future__ import annotations

from helpers import job, run_cli, vllm_output, write_job


def _jsonl(tmp_path, capsys) -> str:
    jsonl = tmp_path / "results.jsonl"
    for run_id, ref in (("101", "refs/heads/main"), ("200", "refs/pull/7/head")):
        write_job(tmp_path / "in" / run_id, "res_c4", vllm_output(4), job(run_id=run_id, ref=ref))
        rc, _, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'ci.db'}",
                             "--jsonl", str(jsonl), str(tmp_path / "in" / run_id))
        assert rc == 0, err
    return str(jsonl)


def _refusal(capsys, *argv) -> str:
    rc, out, err = run_cli(capsys, "results", "compare", "--run", "200", *argv)
    assert rc == 1 and out == "" and "Traceback" not in err, err
    (line,) = err.strip().splitlines()
    return line


def test_no_store_but_the_run_in_the_baseline_file(tmp_path, capsys, monkeypatch):
    jsonl = _jsonl(tmp_path, capsys)
    monkeypatch.chdir(tmp_path)
    line = _refusal(capsys, "--db", f"sqlite:///{tmp_path / 'none.db'}", "--baseline-jsonl", jsonl)
    assert line.startswith(f"--run: run '200' is in --baseline-jsonl {jsonl}, which gives the baseline only"), line
    assert line.endswith("; pass --db with the store its records were ingested into (a results artifact's "
                         "results.db, beside its results.jsonl), or ingest the run's outputs into one "
                         "(`sweepgate results ingest`)"), line


def test_a_store_without_the_run_but_the_run_in_the_baseline_file(tmp_path, capsys, monkeypatch):
    jsonl = _jsonl(tmp_path, capsys)
    other = tmp_path / "other"
    write_job(other, "res_c4", vllm_output(4), job(run_id="300", ref="refs/heads/main"))
    db = f"sqlite:///{tmp_path / 'other.db'}"
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(other))
    assert rc == 0, err
    line = _refusal(capsys, "--db", db, "--baseline-jsonl", jsonl)
    assert line.startswith(f"--run: run '200' is in --baseline-jsonl {jsonl}, which gives the baseline only"), line


def test_a_run_in_no_file_is_refused_as_before(tmp_path, capsys):
    jsonl = _jsonl(tmp_path, capsys)
    line = _refusal(capsys, "--db", f"sqlite:///{tmp_path / 'ci.db'}", "--run", "999", "--baseline-jsonl", jsonl)
    assert line.startswith("--run: run '999' has no results in"), line
