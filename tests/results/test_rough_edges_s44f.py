"""s44f: results' rough edges.

- `results compare --baseline-jsonl FILE` read FILE whole whatever its size, where ingest refuses a file over
  jsonio.MAX_INPUT_BYTES by its size: it is now refused the same way, one line, unread (a sparse file stands for
  a big one).
"""

from __future__ import annotations

from helpers import job, run_cli, vllm_output, write_job


def test_a_baseline_jsonl_over_the_cap_is_refused_by_its_size_as_ingest_refuses_one(tmp_path, capsys, monkeypatch):
    from sweepgate.results.jsonio import MAX_INPUT_BYTES

    monkeypatch.chdir(tmp_path)
    db = f"sqlite:///{tmp_path / 'ci.db'}"
    write_job(tmp_path / "in", "res_c4", vllm_output(4), job(run_id="200", ref="refs/pull/7/head"))
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path / "in"))
    assert rc == 0, err
    big = tmp_path / "main.jsonl"
    with open(big, "wb") as f:
        f.truncate(MAX_INPUT_BYTES + 1)  # sparse: no gigabytes written
    refusal = (f"{big}: {MAX_INPUT_BYTES + 1:,} bytes, over the {MAX_INPUT_BYTES >> 20:,} MiB a file ingest reads "
               "may hold; check that it is the file meant: real ones are a few MB")
    rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "200", "--baseline-jsonl", str(big))
    assert rc == 1 and out == "" and err.splitlines() == [refusal], err
