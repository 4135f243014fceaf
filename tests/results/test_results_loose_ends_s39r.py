"""s39r: loose ends of reading results.

- A plain gpu_metrics.csv beside several outputs (a/b/c.json at conc 4/8/16, one job folder) that gives no energy
  was warned of once per output, the same line three times: now once per samples file.
- An MI250 job on an odd number of GCDs (tp=1, tp=3) with rocm-smi's 'N/A (Secondary die)' rows got no energy
  without a word (a package's reading is two GCDs', which part is the job's is not known): now one warning at the
  samples file says so.
- A header-only gpu_metrics.csv (the monitor stopped before its first sample) was warned of as a draw column that
  "holds no number", with the hint to sample the GPUs' draw: it now says the file has no samples, and how to fix.
"""

from __future__ import annotations

from helpers import ROW, job, run_cli, show_json, vllm_output, write_job
from sweepgate.results import record as R
from test_gpu_metrics_said_s39g import MI250_HEADER, _mi250
from test_gpu_power_columns_s38j import _amd_time, _csv


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
