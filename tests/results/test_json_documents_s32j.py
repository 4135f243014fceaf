"""s32j: how a file of several JSON documents is told.

- Two documents back to back (``{"a":1}{"b":2}``, or a JSONL line holding two) read "not valid JSON: Extra data"
  with the hint "the file is truncated or not a client's output": it is neither cut short nor of another tool,
  and the hint now says what it is and what to write instead (one document, or JSON lines); text after a whole
  document is told to be removed. Beside its job's sidecar such an output is still the job's failure, warned of
  with that same fix, not "its client did not finish the file".
- A JSONL whose lines are ``[]`` read "not valid JSON: Extra data" at its second line, though every line is JSON:
  it holds no results and is said so, as lines of ``{}`` are.

Real processes of the entry point, a real SQLite store.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT, job, vllm_output, write_job

SEVERAL = ("the file holds JSON documents back to back, not one; write one document, or JSON lines (one document "
           "a line)")
TRAILING = "the file goes on after its JSON document ends; remove what follows it, or rerun the benchmark"
NO_RESULTS = "the file holds no results (a result is a run's figures as its client writes them: "


def ingest(tmp_path: Path, *paths: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "SWEEPGATE_"))}
    env["PYTHONPATH"] = str(ROOT / "utils")
    return subprocess.run([sys.executable, "-m", "sweepgate", "results", "ingest", "--db",
                           f"sqlite:///{tmp_path / 'r.db'}", *paths], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=120)


@pytest.mark.parametrize("text, place, hint", [
    ('{"a":1}{"b":2}', "1:8", SEVERAL),
    ('{"a":1}\n\n{"a":1} [2]\n', "3:9", SEVERAL),
    ('{"a":1}\n{"b":2}{"c":3}\n', "2:8", SEVERAL),
    ('{"a":1}}\n', "1:8", TRAILING),
    ('{"a":1} done\n', "1:9", TRAILING),
], ids=["two-objects", "object-then-list", "jsonl-line-of-two", "stray-brace", "trailing-word"])
def test_json_that_goes_on_after_its_document_is_not_called_truncated(tmp_path, text, place, hint):
    (tmp_path / "two.json").write_text(text, encoding="utf-8")
    r = ingest(tmp_path, "two.json")
    assert r.returncode == 1 and r.stderr == f"two.json:{place}: not valid JSON: Extra data; {hint}\n", r.stderr


def test_a_job_output_of_two_documents_is_still_the_job_s_failure_with_that_fix(tmp_path):
    write_job(tmp_path / "res", "job1", json.dumps(vllm_output()) + json.dumps(vllm_output(8)), job())
    write_job(tmp_path / "res", "job2", vllm_output(), job())
    r = ingest(tmp_path, "res")
    assert r.returncode == 0, r.stderr
    assert r.stderr.splitlines() == [f"res/job1.json:1:{len(json.dumps(vllm_output())) + 1}: warning: not valid "
                                     f"JSON: Extra data; the job is stored as failure, with no figures; {SEVERAL}"]


@pytest.mark.parametrize("text, what", [
    ("[]\n[]\n", "2 lines of empty JSON lists ([])"),
    ("[]\n\n{}\n[]\n", "3 lines of empty JSON objects and lists ({}, [])"),
    ("{}\n[]\n", "2 lines of empty JSON objects and lists ({}, [])"),
    ("{}\n{}\n", "2 lines of empty JSON objects ({})"),
], ids=["lists", "list-first-mixed", "object-first-mixed", "objects"])
def test_lines_of_empty_json_lists_hold_no_results(tmp_path, text, what):
    (tmp_path / "h.jsonl").write_text(text, encoding="utf-8")
    r = ingest(tmp_path, "h.jsonl")
    assert r.returncode == 1 and r.stderr.startswith(f"h.jsonl:1:1: format: {what}: {NO_RESULTS}"), r.stderr
    assert len(r.stderr.splitlines()) == 1 and not (tmp_path / "r.db").exists()


def test_a_list_of_outputs_on_a_jsonl_line_is_refused_at_its_line(tmp_path):
    """Its outputs were numbered as a whole file's list is, 1 and on, so they took the names of the file's first
    lines: "already stored for another point". A list of outputs is a whole file's (a multi-node job's)."""
    lines = [json.dumps(vllm_output()), json.dumps([vllm_output(8)])]
    (tmp_path / "ol.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    r = ingest(tmp_path, "ol.jsonl")
    assert r.returncode == 1 and r.stderr.startswith("ol.jsonl:2:1: format: unknown JSON output"), r.stderr
    assert len(r.stderr.splitlines()) == 1 and not (tmp_path / "r.db").exists()
