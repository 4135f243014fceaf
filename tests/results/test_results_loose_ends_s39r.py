"""s39r: loose ends of reading results.

- A plain gpu_metrics.csv beside several outputs (a/b/c.json at conc 4/8/16, one job folder) that gives no energy
  was warned of once per output, the same line three times: now once per samples file.
- An MI250 job on an odd number of GCDs (tp=1, tp=3) with rocm-smi's 'N/A (Secondary die)' rows got no energy
  without a word (a package's reading is two GCDs', which part is the job's is not known): now one warning at the
  samples file says so.
- A header-only gpu_metrics.csv (the monitor stopped before its first sample) was warned of as a draw column that
  "holds no number", with the hint to sample the GPUs' draw: it now says the file has no samples, and how to fix.
- `results compare --baseline-jsonl /dev/stdin` fed a zip (or gzip) through a pipe read it twice (its text, then
  its first bytes again to tell what it is: nothing, from a pipe) and said "not UTF-8 text (byte 12)": it is read
  once, and refused as the archive it is; blank lines piped in were "an empty file" (a pipe's size is 0).
"""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

from helpers import ROW, job, run_cli, show_json, vllm_output, write_job
from sweepgate.results import record as R
from test_gpu_metrics_said_s39g import MI250_HEADER, _mi250
from test_gpu_power_columns_s38j import _amd_time, _csv

WORKTREE_UTILS = Path(__file__).resolve().parents[2] / "utils"


def _ingest(tmp_path, capsys, samples: str, jobs: dict[str, dict]) -> tuple[int, str, list[dict]]:
    """Ingest the outputs ``jobs`` (name -> row) beside one plain gpu_metrics.csv holding ``samples``."""
    for name, row in jobs.items():
        write_job(tmp_path, name, vllm_output(row["conc"]), job(run_id="1001", row=row))
    (tmp_path / "gpu_metrics.csv").write_text(samples)
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path))
    return rc, err, show_json(capsys, db)


def _three(**over) -> dict[str, dict]:
    return {name: {**ROW, "conc": conc, **over} for name, conc in (("a", 4), ("b", 8), ("c", 16))}


def test_one_samples_file_beside_three_outputs_is_warned_of_once(tmp_path, capsys):
    text = "timestamp, index, power.limit [W]\n2026/01/01 11:57:30.000, 0, 1000.00 W\n"
    rc, err, recs = _ingest(tmp_path, capsys, text, _three())
    assert rc == 0 and len(recs) == 3, err
    assert all(R.ENERGY_PER_OUTPUT_TOKEN_J not in rec[R.METRICS] for rec in recs)
    (line,) = err.strip().splitlines()
    assert line.startswith(f"{tmp_path / 'gpu_metrics.csv'}:1: warning: no energy per output token: "), line


def _mi250_node() -> str:
    return _csv(MI250_HEADER, _mi250, _amd_time, ",", gpu_name=lambda g: f"card{g}")


def test_an_mi250_job_on_an_odd_number_of_gcds_says_why_it_has_no_energy(tmp_path, capsys):
    for tp in (1, 3):
        folder = tmp_path / f"tp{tp}"
        rc, err, recs = _ingest(folder, capsys, _mi250_node(), {"a": {**ROW, "tp": tp}})
        assert rc == 0 and R.ENERGY_PER_OUTPUT_TOKEN_J not in recs[0][R.METRICS], err
        (line,) = err.strip().splitlines()
        assert line.startswith(f"{folder / 'gpu_metrics.csv'}:1: warning: no energy per output token: "), line
        assert "two GCDs" in line and f"the job ran on {tp}" in line, line


def test_three_odd_mi250_jobs_beside_one_samples_file_are_one_line(tmp_path, capsys):
    rc, err, _ = _ingest(tmp_path, capsys, _mi250_node(), _three(tp=1))
    assert rc == 0 and len(err.strip().splitlines()) == 1, err


def test_an_even_mi250_job_still_has_its_energy_and_no_warning(tmp_path, capsys):
    rc, err, recs = _ingest(tmp_path, capsys, _mi250_node(), {"a": {**ROW, "tp": 2}})
    assert (rc, err) == (0, "") and R.ENERGY_PER_OUTPUT_TOKEN_J in recs[0][R.METRICS]


def test_a_header_only_samples_file_says_it_has_no_samples(tmp_path, capsys):
    rc, err, recs = _ingest(tmp_path, capsys, "timestamp, index, power.draw [W]\n", {"a": dict(ROW)})
    assert rc == 0 and R.ENERGY_PER_OUTPUT_TOKEN_J not in recs[0][R.METRICS], err
    (line,) = err.strip().splitlines()
    assert line.startswith(f"{tmp_path / 'gpu_metrics.csv'}:1: warning: no energy per output token: "), line
    assert "no samples" in line and "before its first sample" in line, line
    assert "holds no number" not in line and "sample the GPUs' draw" not in line, line


def test_a_zip_piped_as_baseline_jsonl_is_read_once_and_refused_as_a_zip(tmp_path, capsys):
    write_job(tmp_path / "in", "res_c4", vllm_output(4), job(run_id="200", ref="refs/pull/7/head"))
    db = f"sqlite:///{tmp_path / 'ci.db'}"
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path / "in"))
    assert rc == 0, err
    packed = tmp_path / "main.zip"
    with zipfile.ZipFile(packed, "w") as z:
        z.writestr("results.jsonl", "{}\n")
    env = {**os.environ, "PYTHONPATH": str(WORKTREE_UTILS)}
    with packed.open("rb") as zipped:  # a real pipe: cat main.zip | sweepgate ... --baseline-jsonl /dev/stdin
        cat = subprocess.Popen(["cat"], stdin=zipped, stdout=subprocess.PIPE)
        done = subprocess.run([sys.executable, "-m", "sweepgate", "results", "compare", "--db", db, "--run", "200",
                               "--baseline-jsonl", "/dev/stdin"], stdin=cat.stdout, capture_output=True, text=True,
                              env=env, cwd=tmp_path)
        cat.stdout.close()
        cat.wait()
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("/dev/stdin:1: a zip archive"), line


def test_blank_lines_piped_as_baseline_jsonl_are_not_called_an_empty_file(tmp_path, capsys):
    """A pipe's size is 0 whatever went through it: blank lines piped in were called "an empty file"."""
    write_job(tmp_path / "in", "res_c4", vllm_output(4), job(run_id="200", ref="refs/pull/7/head"))
    db = f"sqlite:///{tmp_path / 'ci.db'}"
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path / "in"))
    assert rc == 0, err
    env = {**os.environ, "PYTHONPATH": str(WORKTREE_UTILS)}
    done = subprocess.run([sys.executable, "-m", "sweepgate", "results", "compare", "--db", db, "--run", "200",
                           "--baseline-jsonl", "/dev/stdin"], input="\n\n", capture_output=True, text=True,
                          env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "/dev/stdin: warning: holds no baseline records (" in done.stderr, done.stderr
    assert "an empty file" not in done.stderr, done.stderr


def test_one_samples_file_beside_three_outputs_is_read_once(tmp_path, capsys, monkeypatch):
    """Before-stop read (s39): a plain gpu_metrics.csv beside three outputs was read and parsed once per output
    (a node's samples over hours are large); it is read once while it stays as it was. The parses are counted."""
    from sweepgate.results import ingest
    from sweepgate.results.formats import gpu_metrics

    parsed = []
    real = gpu_metrics.samples
    monkeypatch.setattr(gpu_metrics, "samples", lambda text, path: parsed.append(path) or real(text, path))
    ingest._samples_of.cache_clear()
    rc, err, recs = _ingest(tmp_path, capsys, _mi250_node(), _three(tp=2))
    assert rc == 0 and len(recs) == 3, err
    assert all(R.ENERGY_PER_OUTPUT_TOKEN_J in rec[R.METRICS] for rec in recs)
    assert parsed == [str(tmp_path / "gpu_metrics.csv")]
