"""s37c: results leftovers.

- A job's output whose name holds a ``#`` (``c4#b.json``, its sidecar ``c4#b.job.json``) was taken, by the store's
  SQL, for one of the runs of ``c4.json`` (a file of several runs stores them as ``c4#1``, ``c4#2``), while the
  rest of the store takes only ``#<digits>`` for that: the same bytes as ``c4``'s, stored before it, went
  unsaid. One rule (``store.file_of``) says which file a result name is of, everywhere.
- A folder holding only a job's sidecar and its output compressed whole (``c4.job.json``, ``c4.json.gz``) was
  refused as holding "no result files ... only 1 gzipped result file": nothing said the job was there, waiting for
  its output. The line names the sidecars whose outputs are among the compressed files.
- ``results compare`` at 80 columns (COLUMNS=80, or a terminal 80 wide) broke a baseline's interval over two
  lines, ``1,031 [972.6,`` over ``1,106] (n=5)``: rich breaks a folded cell at any blank. A cell breaks between
  its words, an interval one of them, and a column whose header is wider than its cells ("change (threshold)")
  breaks its header first, so the interval's column has room for it.

Real ingests through the CLI into SQLite.
"""

from __future__ import annotations

import gzip
import io
import json
import lzma
import zipfile

import os
import re
import subprocess
import sys

import pytest

import synth
from helpers import ROOT, ROW, drained, job, run_cli, vllm_output, write_job
from sweepgate.core import report
from sweepgate.results import compare as C
from sweepgate.results import record as R
from sweepgate.results import render, store

JOBS_COPY_FIX = ("check the workflow's steps that write or download outputs: one job's output was copied as another's "
                 "(one $RESULT_FILENAME named twice); rerun the job whose output is not its own")


def _db(tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'r.db'}"


def _copy_warning(path, stored: str, sidecar: str) -> str:
    return (f"{path}: warning: the same bytes as run 900's result {stored!r}, stored before; stored under its job "
            f"({sidecar}) all the same, but two benchmark runs never write the same bytes; {JOBS_COPY_FIX}")


def test_a_hash_in_a_jobs_result_name_is_no_run_of_another_file(tmp_path, capsys):
    """Two jobs of run 900, ``c4`` and ``c4#b``, of the same bytes, ingested apart: the later is said to repeat the
    earlier in either order (``c4#b`` first was not said: its name was taken for one of ``c4``'s runs)."""
    for first, later in (("c4#b", "c4"), ("c4", "c4#b")):
        top = tmp_path / f"order{len(first)}"
        db = _db(top)
        top.mkdir()
        write_job(top / "a", first, vllm_output(4), job(run_id="900", row=dict(ROW, tp=4)))
        second = write_job(top / "b", later, vllm_output(4), job(run_id="900"))
        rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(top / "a"))
        assert rc == 0 and err == "", (out, err)
        rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(top / "b"))
        assert rc == 0 and "ingested 1 results (1 new)" in out, (out, err)
        assert err.splitlines() == [_copy_warning(second, first, f"{later}.job.json")], err


def test_a_folder_of_a_jobs_compressed_output_and_its_sidecar_names_the_job(tmp_path, capsys):
    runs = tmp_path / "runs"
    write_job(runs, "c4", None, job(run_id="900"))
    (runs / "c4.json.gz").write_bytes(gzip.compress(json.dumps(vllm_output(4)).encode()))
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", _db(tmp_path), str(runs))
    assert rc == 1 and err.splitlines() == [
        f"{runs}: no result files (.json, .jsonl, .csv) in this folder, only 1 gzipped result file (c4.json.gz), "
        "and 1 job sidecar (c4.job.json) whose output it is; gunzip each (gunzip -k FILE) and ingest the folder"], (
        out, err)
    (runs / "c4.json").write_bytes(gzip.decompress((runs / "c4.json.gz").read_bytes()))  # as the fix says
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", _db(tmp_path), str(runs))
    assert rc == 0 and "ingested 1 results (1 new)" in out and err == "", (out, err)


def test_the_sidecars_beside_other_archives_are_named_as_of_some_of_the_files(tmp_path, capsys):
    """Two jobs' outputs, one xz-compressed, beside a zip archive of results (an artifact not yet unzipped)."""
    runs = tmp_path / "runs"
    write_job(runs, "c4", None, job(run_id="900"))
    (runs / "c4.json.gz").write_bytes(gzip.compress(json.dumps(vllm_output(4)).encode()))
    write_job(runs, "c16", None, job(run_id="900", row=dict(ROW, conc=16)))
    (runs / "c16.json.xz").write_bytes(lzma.compress(json.dumps(vllm_output(16)).encode()))
    with zipfile.ZipFile(runs / "bmk_c8.zip", "w") as archive:
        archive.writestr("c8.json", json.dumps(vllm_output(8)))
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", _db(tmp_path), str(runs))
    assert rc == 1 and err.splitlines() == [
        f"{runs}: no result files (.json, .jsonl, .csv) in this folder, only 1 zip archive (bmk_c8.zip), "
        "1 gzipped result file (c4.json.gz) and 1 xz-compressed result file (c16.json.xz), and 2 job sidecars "
        "(c16.job.json, c4.job.json) whose outputs are among them; unzip each zip archive (unzip FILE -d DIR), "
        "gunzip each gzipped result file (gunzip -k FILE), decompress each xz-compressed result file (xz -dk FILE) "
        "and ingest the folders"], (out, err)


def _intervals(comp: C.Comparison) -> list[str]:
    """Each verdict's baseline interval as its cell writes it, ``[972.6, 1,106]``."""
    found = [re.search(r"\[[^\]]*\]", render.cells(v)[3]) for v in comp.verdicts]
    return [m.group(0) for m in found if m]


def _whole_on_a_line(text: str, comp: C.Comparison, width: int) -> None:
    lines = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text).replace("\r", "").splitlines()
    intervals = _intervals(comp)
    assert len(intervals) == len(comp.verdicts) == 60, intervals
    assert all(len(line) <= width for line in lines), "\n".join(lines)
    for interval in intervals:
        assert any(interval in line for line in lines), (interval, "\n".join(lines))
    assert not any(re.search(r"\[[^\]]*$", line) for line in lines), "\n".join(lines)  # no interval left open


@pytest.mark.parametrize("width", [80, 120])
def test_each_baseline_interval_stays_on_one_line(monkeypatch, width):
    """At 80 columns the table is one block a point and its interval column folds; at 120 it need not."""
    comp = C.compare_records(synth.pr_run({(synth.KEYS[0], 16): {R.OUTPUT_TPUT_PER_GPU: 0.8}}), synth.history())
    monkeypatch.setenv("COLUMNS", str(width))
    monkeypatch.setenv("NO_COLOR", "1")
    out = io.StringIO()
    assert report.console(out).width == width
    render.table(comp, out)
    _whole_on_a_line(out.getvalue(), comp, width)
    lines = out.getvalue().splitlines()
    head = " ".join(lines[:next(i for i, line in enumerate(lines) if line.startswith(synth.KEYS[0]))]).split()
    assert sorted(head) == sorted(w for h in render.HEADERS[1:-1] for w in h.split()), head  # every header's words


def test_each_baseline_interval_stays_on_one_line_on_an_80_column_terminal(tmp_path):
    """The command itself on a pseudo-terminal 80 columns wide, COLUMNS unset: rich asks the terminal."""
    import fcntl
    import pty
    import struct
    import termios

    url = f"sqlite:///{tmp_path / 'r.db'}"
    history, pr = synth.history(), synth.pr_run({(synth.KEYS[0], 16): {R.OUTPUT_TPUT_PER_GPU: 0.8}})
    with store.open_store(url) as st:
        st.add(history + pr)
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "NO_COLOR", "GITHUB_ACTIONS")}
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    proc = subprocess.Popen([sys.executable, "-m", "sweepgate", "results", "compare", "--db", url, "--run", "pr-7"],
                            env={**env, "PYTHONPATH": str(ROOT / "utils"), "TERM": "xterm-256color"},
                            stdin=follower, stdout=follower, stderr=follower, close_fds=True)
    os.close(follower)
    data = drained(leader)
    assert proc.wait(timeout=120) == 0, data[-2000:]
    _whole_on_a_line(data.decode(), C.compare_records(pr, history), 80)
