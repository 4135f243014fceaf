"""`sweepgate results show | head -1`: the reader leaving a command that only prints is no failure. It
exited 1 (the table's rich console, and --json's print, met a pipe whose reader had gone); it ends 0 with
nothing on stderr, no traceback and no "Exception ignored" line at the interpreter's exit. `results ingest`,
whose output follows its work, keeps its own exit code: 0 when everything was stored. Real processes, a real
`| head -1` in bash (the table and the JSON are longer than a pipe holds, so the reader leaves mid-output)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

import synth
from helpers import ROOT, job, vllm_output, write_job
from sweepgate.results import store


def env() -> dict:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_") and k != "COLUMNS"}
    return {**clean, "PYTHONPATH": str(ROOT / "utils")}


def piped_to_head(tmp_path, *argv: str) -> tuple[int, str, str]:
    """``sweepgate ARGV | head -1`` in bash: sweepgate's PIPESTATUS, the line head kept, sweepgate's stderr."""
    err = tmp_path / "err.txt"
    words = " ".join("'" + w.replace("'", "'\\''") + "'" for w in (sys.executable, "-m", "sweepgate", *argv))
    proc = subprocess.run(["bash", "-c", f'{words} 2>"$ERR" | head -1; echo "status=${{PIPESTATUS[0]}}"'],
                          capture_output=True, text=True, cwd=tmp_path, env={**env(), "ERR": str(err)}, timeout=120)
    *kept, status = proc.stdout.splitlines()
    return int(status.removeprefix("status=")), "\n".join(kept), err.read_text()


@pytest.fixture
def big_store(tmp_path) -> str:
    """300 points of one run: a table of about 100 KB, a JSON of about 1 MB (a pipe holds 64 KB)."""
    url = f"sqlite:///{tmp_path / 'r.db'}"
    with store.open_store(url) as st:
        st.add(synth.history(runs=1, concs=tuple(range(1, 151))))
    return url


@pytest.mark.parametrize("fmt", [[], ["--json"]], ids=["table", "json"])
def test_show_piped_to_head_ends_0_and_says_nothing(tmp_path, big_store, fmt):
    status, kept, err = piped_to_head(tmp_path, "results", "show", "--db", big_store, *fmt)
    assert (status, err) == (0, ""), err
    assert kept == ("[" if fmt else "all points: 300 points"), kept


def test_ingest_to_a_reader_gone_stores_appends_and_ends_0(tmp_path):
    """Its lines (skipped files, the JSONL count, the last line) follow its work: the reader leaving loses
    them, never the stored results, the appended JSONL, or the exit code (it was 1)."""
    folder = tmp_path / "in"
    write_job(folder, "res", vllm_output(4), job())
    (folder / "part.json").write_text("{}")  # a helper output beside a job: skipped, and said so
    jsonl = tmp_path / "baseline.jsonl"
    db = f"sqlite:///{tmp_path / 'r.db'}"
    read, write = os.pipe()
    os.close(read)
    try:
        proc = subprocess.run([sys.executable, "-m", "sweepgate", "results", "ingest", "--db", db, "--verbose",
                               "--jsonl", str(jsonl), str(folder)], stdout=write, stderr=subprocess.PIPE, text=True,
                              cwd=tmp_path, env=env(), timeout=120)
    finally:
        os.close(write)
    assert (proc.returncode, proc.stderr) == (0, ""), proc
    assert len(jsonl.read_text().splitlines()) == 1
    with store.open_store(db, must_exist=True) as st:
        assert len(st.run_results("1001")) == 1
