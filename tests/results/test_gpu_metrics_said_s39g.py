"""s39g: GPU samples that give no energy figure say why, and rocm-smi's MI200 secondary dies are GPUs.

A job's gpu_metrics.csv with no power-draw column holding a number (limits alone, a draw all [N/A]) left the
record without energy and said nothing: ingest now warns in one line at the file, naming the columns it
has (the run's results are stored all the same, exit 0). rocm-smi writes `N/A (Secondary die)` as the draw of
an MI250's second die (its primary's reading is the package's, both dies'; rocm_smi.py's showPower): that
cell was passed over like a cut line, so an eight-GCD node read as four GPUs and a TP8 job had no energy
("samples 4 GPUs, the job ran on 8"). Such a GPU is sampled with no reading of its own; the package readings
are the energy."""

from __future__ import annotations

import pytest

from helpers import ROW, job, run_cli, show_json, vllm_output, write_job
from sweepgate.results import record as R
from sweepgate.results.formats import gpu_metrics
from test_gpu_power_columns_s38j import GPUS, _amd_time, _csv, _joules_per_token

SECONDARY = "N/A (Secondary die)"  # rocm-smi's cell, as its showPower prints it


def _ingest(tmp_path, capsys, text: str, tp: int = GPUS) -> tuple[int, str, dict]:
    write_job(tmp_path, "res", vllm_output(), job(row={**ROW, "tp": tp}))
    (tmp_path / "res.gpu_metrics.csv").write_text(text)
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path))
    (rec,) = show_json(capsys, db)
    return rc, err, rec


@pytest.mark.parametrize("header, cells, said", [
    ("timestamp, index, power.limit [W], enforced.power.limit [W]", ["1000.00 W"] * 2,
     "power.limit [W], enforced.power.limit [W] are no draw"),
    ("timestamp, index, power.draw [W], power.limit [W]", ["[N/A]", "1000.00 W"], "power.draw [W] holds no number"),
    ("timestamp, index, temperature.gpu, power.limit [W]", ["40", "1000.00 W"], "power.limit [W] is no draw"),
])
def test_samples_with_no_draw_say_so_in_one_warning_at_the_file(tmp_path, capsys, header, cells, said):
    rc, err, rec = _ingest(tmp_path, capsys, _csv(header, lambda gpu: cells))
    assert rc == 0 and R.ENERGY_PER_OUTPUT_TOKEN_J not in rec[R.METRICS], err
    (line,) = err.strip().splitlines()
    columns = ", ".join(h.strip() for h in header.split(","))
    assert line.startswith(f"{tmp_path / 'res.gpu_metrics.csv'}:1: warning: no energy per output token: "), line
    assert said in line and f"its columns: {columns}" in line, line


def _mi250(gpu: int) -> list[str]:
    return [SECONDARY if gpu % 2 else "500.0"]  # card0, card2, ...: the package's draw, both dies'


MI250_HEADER = "timestamp,device,Average Graphics Package Power (W)"


def test_a_secondary_die_is_a_gpu_with_no_reading_of_its_own():
    read = gpu_metrics.samples(_csv(MI250_HEADER, _mi250, _amd_time, ",", gpu_name=lambda g: f"card{g}"), "g.csv")
    assert sorted(read.by_gpu) == ["card0", "card2", "card4", "card6"]
    assert read.shared == frozenset({"card1", "card3", "card5", "card7"})


def test_an_mi250_node_s_secondary_dies_count_and_the_package_readings_are_its_energy(tmp_path, capsys):
    text = _csv(MI250_HEADER, _mi250, _amd_time, ",", gpu_name=lambda g: f"card{g}")
    rc, err, rec = _ingest(tmp_path, capsys, text)
    assert (rc, err) == (0, "")
    # four package readings of 500 W over the job's 120 s: as eight GPUs of 250 W
    assert rec[R.METRICS][R.ENERGY_PER_OUTPUT_TOKEN_J] == pytest.approx(_joules_per_token(250))


def test_a_job_on_half_an_mi250_node_takes_the_packages_that_drew_the_most(tmp_path, capsys):
    busy = lambda gpu: [SECONDARY if gpu % 2 else ("600.0" if gpu < 4 else "100.0")]  # noqa: E731
    rc, err, rec = _ingest(tmp_path, capsys, _csv(MI250_HEADER, busy, _amd_time, ",", gpu_name=lambda g: f"card{g}"),
                           tp=4)
    assert (rc, err) == (0, "")
    assert rec[R.METRICS][R.ENERGY_PER_OUTPUT_TOKEN_J] == pytest.approx(2 * 600 * 120 / 40960)
