"""s40c: GPU samples that gave a wrong energy figure, or none, without a word.

- nvidia-smi's ``--query-gpu=timestamp,power.draw --format=csv -l 1`` on a node of eight GPUs writes one line a
  GPU a second, the eight interleaved, with no column naming the GPU: each GPU's line carries the time it was
  read, a few ms after the one before (the public ARCHER2 power script's sample of ``index, timestamp,
  power.draw [W]`` shows GPUs 0-3 at 06.356, .360, .362, .363); a monitor of its own writes one time for all
  of a round's lines. Such a file was read as one GPU's series: a TP8 job had an eighth of its energy, a TP1 job
  the node's average. Which line is which GPU is not written, so no energy is given, said in one warning at
  the file saying to add ``index`` to the query; one GPU's samples (the real 20 Hz file, or 1 s samples with a
  stall) are still one GPU's.
- "samples 8 GPUs, the job ran on 16" was said at each output beside one samples file (a, b and c at three
  concurrencies: three lines); it is said once, at the samples file, as its other warnings are.
- rocm-smi's MI250 samples whose ``N/A (Secondary die)`` rows and readings do not pair up (a monitor on some of
  the node's GCDs) gave a job on fewer GCDs than sampled no energy without a word: a warning at the samples file
  now says so, once. (A secondary die whose draw is read now and then is a secondary die since s40q, its
  readings left out: test_energy_uncovered_s40q.)
"""

from __future__ import annotations

import datetime as dt

import pytest

from helpers import ROOT, ROW, job, run_cli, show_json, vllm_output, write_job
from sweepgate.results import record as R
from test_gpu_metrics_said_s39g import MI250_HEADER, SECONDARY
from test_gpu_power_columns_s38j import _amd_time

REAL_GPU = ROOT / "tests" / "data" / "results-real" / "gpu"
NODE = 8
START = dt.datetime(2026, 1, 1, 11, 57, 30)  # the job ran 11:58:00 .. 12:00:00 (the tests run in UTC)


def _ingest(folder, capsys, samples: str, rows: dict[str, dict]) -> tuple[int, str, list[dict]]:
    """Ingest the outputs ``rows`` (name -> row) of one job beside one plain gpu_metrics.csv holding ``samples``."""
    for name, row in rows.items():
        write_job(folder, name, vllm_output(row["conc"]), job(row=row))
    (folder / "gpu_metrics.csv").write_text(samples)
    db = f"sqlite:///{folder / 'r.db'}"
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(folder))
    return rc, err, show_json(capsys, db)


def _three(**over) -> dict[str, dict]:
    return {name: {**ROW, "conc": conc, **over} for name, conc in (("a", 4), ("b", 8), ("c", 16))}


def _nvidia_smi_no_index(gpus: int = NODE, step_ms: int = 3, seconds: int = 180) -> str:
    """``nvidia-smi --query-gpu=timestamp,power.draw --format=csv -l 1`` on ``gpus`` GPUs: a line a GPU a second,
    each stamped when its GPU was read, ``step_ms`` after the one before (0: a monitor's one time a round)."""
    lines = ["timestamp, power.draw [W]"]
    for second in range(seconds + 1):
        tick = START + dt.timedelta(seconds=second, milliseconds=second % 7)
        lines += [f"{tick + dt.timedelta(milliseconds=gpu * step_ms):%Y/%m/%d %H:%M:%S.%f}"[:-3]
                  + f", {700 if gpu == 0 else 100:.2f} W" for gpu in range(gpus)]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("step_ms", [3, 0])
@pytest.mark.parametrize("tp", [8, 1])
def test_interleaved_gpus_with_no_gpu_column_give_no_energy_and_say_to_add_index(tmp_path, capsys, step_ms, tp):
    rc, err, recs = _ingest(tmp_path, capsys, _nvidia_smi_no_index(step_ms=step_ms), {"a": {**ROW, "tp": tp}})
    assert rc == 0 and R.ENERGY_PER_OUTPUT_TOKEN_J not in recs[0][R.METRICS], err
    (line,) = err.strip().splitlines()
    assert line.startswith(f"{tmp_path / 'gpu_metrics.csv'}:3: warning: no energy per output token: "), line
    assert "no column names the GPU" in line and "8 lines" in line and "index" in line, line


def test_interleaved_gpus_beside_three_outputs_are_one_line(tmp_path, capsys):
    rc, err, recs = _ingest(tmp_path, capsys, _nvidia_smi_no_index(gpus=4), _three(tp=4))
    assert rc == 0 and len(recs) == 3 and len(err.strip().splitlines()) == 1, err
    assert "4 lines" in err, err


def test_one_gpu_at_1_s_with_a_stall_is_still_one_gpu_s_energy(tmp_path, capsys):
    """A monitor that stalled once (20 s without a line) and whose times wander by a few ms is one GPU's."""
    text = _nvidia_smi_no_index(gpus=1)
    lines = text.splitlines()
    text = "\n".join(lines[:40] + lines[60:]) + "\n"  # 11:58:08 .. 11:58:28 lost
    rc, err, recs = _ingest(tmp_path, capsys, text, {"a": {**ROW, "tp": 1}})
    assert (rc, err) == (0, "")
    assert recs[0][R.METRICS][R.ENERGY_PER_OUTPUT_TOKEN_J] == pytest.approx(700 * 120 / 40960)


def test_the_real_one_gpu_20_hz_file_is_not_taken_for_several(tmp_path, capsys):
    write_job(tmp_path, "res", vllm_output(), job(row={**ROW, "tp": 1}, started="2024-10-30T18:42:34+00:00",
                                                  finished="2024-10-30T18:42:36+00:00"))
    (tmp_path / "res.gpu_metrics.csv").write_bytes((REAL_GPU / "nvidia-smi_1gpu_20hz_no_index_column.csv").read_bytes())
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path))
    assert (rc, err) == (0, "")
    assert R.ENERGY_PER_OUTPUT_TOKEN_J in show_json(capsys, db)[0][R.METRICS]


def _node_samples(gpus: int = NODE) -> str:
    """nvidia-smi's ``timestamp, index, power.draw [W]`` of a node, every 10 s."""
    lines = ["timestamp, index, power.draw [W]"]
    for second in range(0, 181, 10):
        at = f"{START + dt.timedelta(seconds=second):%Y/%m/%d %H:%M:%S}.000"
        lines += [f"{at}, {gpu}, 500.00 W" for gpu in range(gpus)]
    return "\n".join(lines) + "\n"


def test_samples_of_fewer_gpus_than_the_job_s_are_said_once_at_the_samples_file(tmp_path, capsys):
    rc, err, recs = _ingest(tmp_path, capsys, _node_samples(), _three(tp=8, pp=2))
    assert rc == 0 and len(recs) == 3 and all(R.ENERGY_PER_OUTPUT_TOKEN_J not in r[R.METRICS] for r in recs)
    (line,) = err.strip().splitlines()
    assert line.startswith(f"{tmp_path / 'gpu_metrics.csv'}:1: warning: no energy per output token: "), line
    assert "8 GPUs" in line and "the job ran on 16" in line, line


def _rocm_smi(cards: int, cell) -> str:
    """A monitor's rocm-smi ``--showpower --csv`` every 10 s of cards 0 .. ``cards`` - 1, the time before each
    line: ``cell(card, second)`` the draw."""
    lines = [MI250_HEADER]
    for second in range(0, 181, 10):
        at = _amd_time((START + dt.timedelta(seconds=second)).replace(tzinfo=dt.timezone.utc))
        lines += [f"{at},card{card},{cell(card, second)}" for card in range(cards)]
    return "\n".join(lines) + "\n"


def _some_gcds(card: int, second: int) -> str:
    return SECONDARY if card % 2 else "500.0"


@pytest.mark.parametrize("samples, tp", [(_rocm_smi(3, _some_gcds), 2)])  # rocm-smi -d 0 1 2
def test_mi250_readings_that_do_not_pair_with_secondary_dies_say_why_there_is_no_energy(tmp_path, capsys,
                                                                                        samples, tp):
    rc, err, recs = _ingest(tmp_path, capsys, samples, _three(tp=tp))
    assert rc == 0 and all(R.ENERGY_PER_OUTPUT_TOKEN_J not in r[R.METRICS] for r in recs), err
    (line,) = err.strip().splitlines()
    assert line.startswith(f"{tmp_path / 'gpu_metrics.csv'}:1: warning: no energy per output token: "), line
    assert "Secondary die" in line and f"the job ran on {tp}" in line, line
