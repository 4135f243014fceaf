"""s32b: results behaviours the last closing note left alone.

- An output that is valid JSON holding nothing (``[]``, ``{}``, a list of ``{}``, JSONL lines of ``{}``) read
  "unknown JSON output", as if it were another tool's: it is refused as holding no results (exit 1), and beside
  its job's sidecar it is the job's failure, as an empty file is.
"""

from __future__ import annotations

import pytest
from helpers import job, run_cli, vllm_output, write_job

from sweepgate.results import store


def _ingest(capsys, db: str, *argv) -> tuple[int, list[str], list[str]]:
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, *argv)
    return rc, out.splitlines(), err.splitlines()


EMPTY = [("[]", "an empty JSON list ([])"), ("{}", "an empty JSON object ({})"),
         ("[{}, {}]", "a JSON list of 2 empty objects"), ("{}\n{}\n", "2 lines of empty JSON objects ({})")]


@pytest.mark.parametrize(("text", "what"), EMPTY)
def test_an_output_of_empty_json_is_refused_as_holding_no_results(tmp_path, capsys, text, what):
    out_file = tmp_path / "requests.jsonl"
    out_file.write_text(text, encoding="utf-8")
    rc, out, err = _ingest(capsys, f"sqlite:///{tmp_path / 'r.db'}", str(out_file))
    assert rc == 1 and len(err) == 1, err
    assert err[0].startswith(f"{out_file}:1:1: format: {what}: the file holds no results (a result is "), err
    assert "unknown JSON output" not in err[0] and not (tmp_path / "r.db").exists()


def test_an_empty_list_a_job_left_as_its_output_is_the_jobs_failure(tmp_path, capsys):
    """As an empty file or a lone null is: the job is stored as failed, and the sweep's other jobs are stored."""
    db = f"sqlite:///{tmp_path / 'r.db'}"
    write_job(tmp_path / "res", "job1", "[]", job())
    write_job(tmp_path / "res", "job2", vllm_output(), job())
    rc, out, err = _ingest(capsys, db, str(tmp_path / "res"))
    assert rc == 0 and len(err) == 1 and "an empty JSON list ([]): the file holds no results" in err[0], err
    assert "the job is stored as failure" in err[0]
    with store.open_store(db) as st:
        stored = st.run_results("1001")
    assert sorted((r["result-filename"], r["status"]) for r in stored) == [("job1", "failure"), ("job2", "success")]
