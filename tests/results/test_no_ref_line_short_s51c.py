"""s51c: `results ingest`'s line for results stored on no ref fits a terminal.

An output ingested with no sidecar and no --row said it in one line of some 540 characters, a job whose .job.json
names no ref in one of some 600: what was stored, why no baseline takes it, and every way to give it a ref, with
examples of refs and the workflow steps that write them, wrapped over eight lines of an 80-column terminal. The
line now says what was stored and the fix, naming docs/contracts.md §8, which holds the why and each fix in full.
Real `sweepgate` processes, a real SQLite store.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from helpers import ROW, job, vllm_output, write_job

DOC = Path(__file__).resolve().parents[2] / "docs" / "contracts.md"
LONGEST = 125  # a line's text after its place: what was stored and the fix, no more


def _ingest(tmp_path, *paths):
    env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_ACTIONS", "SWEEPGATE_DB")}
    return subprocess.run([sys.executable, "-m", "sweepgate", "results", "ingest", "--db",
                           f"sqlite:///{tmp_path / 'r.db'}", *map(str, paths)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)


def _said(line: str, place: str) -> str:
    assert line.startswith(f"{place}: warning: "), line
    return line.removeprefix(f"{place}: ")


def test_outputs_with_no_sidecar_are_one_short_line(tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    for conc in (4, 8):
        (runs / f"c{conc}.json").write_text(json.dumps(vllm_output(conc)), encoding="utf-8")
    proc = _ingest(tmp_path, runs)
    assert proc.returncode == 0 and len(proc.stderr.splitlines()) == 1, proc.stderr
    said = _said(proc.stderr.strip(), runs / "c4.json")  # at the first read
    assert said == ("warning: 2 results of 2 outputs stored on no ref (no .job.json); pass --row FILE --run-id ID "
                    "--ref REF (docs/contracts.md §8)") and len(said) <= LONGEST, said


def test_a_job_whose_sidecar_names_no_ref_is_one_short_line(tmp_path):
    write_job(tmp_path / "job", "res", vllm_output(4), job(run_id="8", row=dict(ROW, conc=4), ref=None))
    side = tmp_path / "job" / "res.job.json"
    col = side.read_text(encoding="utf-8").index('"ref"') + 1
    proc = _ingest(tmp_path, tmp_path / "job")
    assert proc.returncode == 0 and len(proc.stderr.splitlines()) == 1, proc.stderr
    said = _said(proc.stderr.strip(), f"{side}:1:{col}")
    assert said == ("warning: 1 result stored on no ref (no job.ref in its .job.json); write job.ref, ingest again "
                    "(docs/contracts.md §8)") and len(said) <= LONGEST, said


def test_the_section_the_line_names_explains_both_fixes():
    section = DOC.read_text(encoding="utf-8").split("### Results on no ref", 1)[1].split("\n## ", 1)[0]
    for words in ("No baseline of `results compare` takes", "`--row FILE --run-id ID --ref REF`", "refs/pull/N/head",
                  "`sweepgate results sidecar`", "write `job.ref`", "$JOB_CONTEXT_FILE", "`--fail-on-no-ref`"):
        assert words in section, words
