"""A newcomer's wrong file for a JSON-lines input (new-user28, second pass): `results compare --baseline-jsonl`
given an AIPerf export, or the records pretty-printed by `jq .`, said "not JSON: Expecting property name
enclosed in double quotes at column 2" of a file that is JSON; so did `results ingest --jsonl` given a client's
output as the file to append to. One JSON document spread over lines is now named as what it is, with the fix.
Real processes, real files."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

import synth
from helpers import ROOT, SAMPLES
from sweepgate.results import store

AIPERF = SAMPLES / "aiperf" / "aiperf_kimik2.7_fp4_mi355x_tp4_conc1.json"


def sweepgate(cwd, *argv: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "COLUMNS")}
    env.update({"PYTHONPATH": str(ROOT / "utils"), "NO_COLOR": "1"})
    return subprocess.run([sys.executable, "-m", "sweepgate", *argv], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=120)


@pytest.fixture
def db(tmp_path):
    url = f"sqlite:///{tmp_path / 'r.db'}"
    with store.open_store(url) as st:
        st.add(synth.history(keys=synth.KEYS[:1]) + synth.pr_run(keys=synth.KEYS[:1]))
    return url


def test_a_client_output_as_the_baseline_jsonl_is_named_so(tmp_path, db):
    shutil.copy(AIPERF, tmp_path / "profile_export_aiperf.json")
    proc = sweepgate(tmp_path, "results", "compare", "--db", db, "--run", "pr-7",
                     "--baseline-jsonl", "profile_export_aiperf.json")
    assert proc.returncode == 1 and proc.stdout == "", proc.stdout + proc.stderr
    (line,) = proc.stderr.splitlines()
    assert line.startswith("profile_export_aiperf.json:1: one JSON document over "), line
    assert "not JSON:" not in line and "not JSON lines" in line and "`sweepgate results ingest --jsonl FILE`" in line


def test_records_pretty_printed_by_jq_are_told_to_be_one_a_line(tmp_path, db):
    rec = synth.history(runs=1, keys=synth.KEYS[:1])[0]
    (tmp_path / "pretty.jsonl").write_text(json.dumps(rec, indent=2) + "\n")
    proc = sweepgate(tmp_path, "results", "compare", "--db", db, "--run", "pr-7", "--baseline-jsonl", "pretty.jsonl")
    assert proc.returncode == 1 and proc.stdout == "", proc.stdout + proc.stderr
    (line,) = proc.stderr.splitlines()
    assert line.startswith("pretty.jsonl:1: one normalized result record over "), line
    assert "jq -c" in line, line


def test_ingest_appending_to_a_client_output_says_what_the_jsonl_file_is(tmp_path):
    shutil.copy(AIPERF, tmp_path / "result.json")
    before = (tmp_path / "result.json").read_bytes()
    proc = sweepgate(tmp_path, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", "--jsonl", "result.json",
                     "result.json")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "result.json:1: one JSON document over " in proc.stderr and "not JSON:" not in proc.stderr, proc.stderr
    assert (tmp_path / "result.json").read_bytes() == before


def test_a_one_line_client_output_is_still_no_normalized_record(tmp_path, db):
    """A client output on one line (vLLM writes it so) is a JSON line: it is no record, as before; not
    "one JSON document over 1 lines"."""
    (tmp_path / "vllm.json").write_text(json.dumps({"date": "20260101-000000", "completed": 10}) + "\n")
    proc = sweepgate(tmp_path, "results", "compare", "--db", db, "--run", "pr-7", "--baseline-jsonl", "vllm.json")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    (line,) = proc.stderr.splitlines()
    assert line.startswith("vllm.json:1: not a normalized result record (needs 'run-id' and 'metrics')"), line


def test_several_records_pretty_printed_by_jq_are_told_to_be_one_a_line(tmp_path, db):
    """review28: `jq . a.jsonl > b.jsonl` makes several documents over lines: it still read 'not JSON'."""
    recs = synth.history(runs=2, keys=synth.KEYS[:1])[:2]
    (tmp_path / "pretty.jsonl").write_text("".join(json.dumps(r, indent=2) + "\n" for r in recs))
    proc = sweepgate(tmp_path, "results", "compare", "--db", db, "--run", "pr-7", "--baseline-jsonl", "pretty.jsonl")
    assert proc.returncode == 1 and proc.stdout == "", proc.stdout + proc.stderr
    (line,) = proc.stderr.splitlines()
    assert line.startswith("pretty.jsonl:1: 2 normalized result records pretty-printed over "), line
    assert "jq -c" in line, line
