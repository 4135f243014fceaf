"""ingest28: a job's sidecar alone (a partial copy of its artifact) and its whole copy, output and
sidecar, in one ingest are one result. The summary read "ingested 2 results (2 new)" (sidecar
first) or "(1 new)" (output first) for the one row the store keeps, and warned that the job "left
no result file" although its output was stored in the same ingest."""

from __future__ import annotations

import json

import pytest

from sweepgate.results import record as R

from .helpers import job, run_cli, show_json, vllm_output, write_job


def _ingest(capsys, tmp_path, *folders):
    jsonl = tmp_path / "main.jsonl"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", "--jsonl",
                           str(jsonl), *map(str, folders))
    return rc, out, err, jsonl


@pytest.mark.parametrize("order", ["sidecar-first", "output-first"])
@pytest.mark.parametrize("partial", ["sidecar alone", "empty output"])
def test_a_placeholder_and_its_output_in_one_ingest_are_one_new_result(tmp_path, capsys, order, partial):
    write_job(tmp_path / "part", "res", "" if partial == "empty output" else None, job(run_id="900"))
    write_job(tmp_path / "whole", "res", vllm_output(4), job(run_id="900"))
    folders = [tmp_path / "part", tmp_path / "whole"]
    rc, out, err, jsonl = _ingest(capsys, tmp_path, *(folders if order == "sidecar-first" else folders[::-1]))
    assert (rc, err) == (0, ""), (out, err)
    assert out.splitlines() == [f"appended 1 record to {jsonl}",
                                f"ingested 1 results (1 new) into sqlite:///{tmp_path / 'r.db'}"], out
    stored = show_json(capsys, f"sqlite:///{tmp_path / 'r.db'}", "--run", "900")
    assert [(r[R.STATUS], r[R.SOURCE_FORMAT]) for r in stored] == [("success", "vllm-serving")]
    assert [json.loads(line)[R.SOURCE_FORMAT] for line in jsonl.read_text().splitlines()] == ["vllm-serving"]


def test_a_placeholder_stored_before_is_filled_once_and_counted_once(tmp_path, capsys):
    """The placeholder stored by an earlier ingest, then the sidecar alone again and the output: the
    fill is the one new result (contracts: a fill is counted as new), the placeholder none."""
    write_job(tmp_path / "part", "res", None, job(run_id="900"))
    assert _ingest(capsys, tmp_path, tmp_path / "part")[0] == 0
    write_job(tmp_path / "whole", "res", vllm_output(4), job(run_id="900"))
    rc, out, err, _ = _ingest(capsys, tmp_path, tmp_path / "part", tmp_path / "whole")
    assert (rc, err) == (0, ""), (out, err)
    assert out.splitlines()[-1] == f"ingested 1 results (1 new) into sqlite:///{tmp_path / 'r.db'}", out
    rc, out, err, _ = _ingest(capsys, tmp_path, tmp_path / "part", tmp_path / "whole")
    assert (rc, err) == (0, "") and out.splitlines()[-1].startswith("ingested 1 results (0 new)"), (out, err)


def test_a_placeholder_alone_is_still_counted_and_warned_of(tmp_path, capsys):
    write_job(tmp_path / "part", "res", None, job(run_id="900"))
    rc, out, err, _ = _ingest(capsys, tmp_path, tmp_path / "part")
    assert rc == 0 and "ingested 1 results (1 new)" in out, (out, err)
    assert "the job says success but left no result file" in err
