"""s39d hunt: more real outputs (tests/data/results-real/SOURCES.tsv, "s39d hunt"), each read right; the figures
below were checked by hand against the files.

Two `vllm bench serve` outputs of vLLM-Ascend 0.18 (2026), with the `rtfx` key (0.0 for a text run) beside the
peak keys, a rate-driven run (max_concurrency null) and one with a failed request, and two real GPU power
samples as monitors other than benchmark_lib.sh's write them: nvidia-smi's one GPU at 20 Hz with no column naming
the GPU, and eight GPUs under ``gpu_index`` with the draw in ``power_W`` at ISO times in UTC. None of these needed
a change.

What did: nvidia-smi names a GPU by whichever of its fields the monitor queried, and a monitor that queries
``pci.bus_id`` or ``uuid`` (a cluster's gpumon writes ``timestamp, name, pci.bus_id, ...``) rather than ``index``
had every GPU's rows read as one GPU's: no energy, with a warning that the file samples 1 GPU, or, of a
one-GPU job on a node of eight, the average of all eight taken as the job's."""

from __future__ import annotations

import datetime as dt

import pytest

from helpers import ROOT, ROW, file_records, job, no_ref_said, run_cli, show_json, vllm_output, write_job
from sweepgate.results import record as R
from sweepgate.results.formats import gpu_metrics

REAL = ROOT / "tests" / "data" / "results-real"
FAILED_ONE = "vllm/vllm0.18-ascend_qwen2.5-vl-3b_rr1_199of200_rtfx.json"
ALL_DONE = "vllm/vllm0.18-ascend_qwen3-vl-8b_rr1_200of200_rtfx.json"
ONE_GPU = "gpu/nvidia-smi_1gpu_20hz_no_index_column.csv"
EIGHT_GPUS = "gpu/gpu_metrics_8gpu_gpu_index_power_W_isoZ_trimmed.csv"
EIGHT_GPUS_INDEX_ZERO = "gpu/nvidia-smi_8gpu_gpu_and_index_columns_index_all_zero_iso_tz.csv"


def test_a_vllm_ascend_0_18_rate_driven_run_with_a_failed_request_is_read_as_written():
    (rec,) = file_records(REAL, FAILED_ONE)
    assert (rec[R.SOURCE_FORMAT], rec[R.CONC], rec[R.REQUEST_RATE], rec[R.STATUS], rec[R.MODEL]) == (
        "vllm-serving", None, 1.0, "success", "./Qwen2.5-VL-3B-Instruct")
    m = rec[R.METRICS]
    assert (m[R.COMPLETED], m[R.FAILED], m[R.TOTAL_INPUT_TOKENS], m[R.TOTAL_OUTPUT_TOKENS]) == (199, 1, 39800, 25472)
    assert m[R.SUCCESS_RATE] == pytest.approx(199 / 200)
    assert (m["ttft_p50_ms"], m["tpot_p99_ms"], m["itl_mean_ms"]) == (
        98.94429985433817, 35.01290820802995, 34.434617229796345)
    assert m[R.OUTPUT_THROUGHPUT] == 124.58542994370372 and m[R.DURATION_S] == 204.45408433000557
    assert m[R.INTERACTIVITY] == pytest.approx(1000 / 34.45028747967261)
    assert not any("rtfx" in key for key in m)  # 0.0 of a text run: no figure


def test_the_finished_vllm_ascend_run_is_stored_without_a_word(capsys, tmp_path):
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(REAL / ALL_DONE))
    assert (rc, no_ref_said(err)) == (0, "") and "ingested 1 results (1 new)" in out, (out, err)
    (rec,) = show_json(capsys, f"sqlite:///{tmp_path / 'r.db'}")
    m = rec[R.METRICS]
    assert (m[R.COMPLETED], m[R.FAILED], m[R.SUCCESS_RATE]) == (200, 0, 1)
    assert m[R.INPUT_THROUGHPUT] == pytest.approx(40000 / 203.5104987300001)
    assert (m["ttft_p99_ms"], m["itl_p50_ms"]) == (143.32562107359988, 27.339585009030998)


def _samples(rel: str) -> gpu_metrics.Samples:
    return gpu_metrics.samples((REAL / rel).read_text(encoding="utf-8"), rel)


def test_one_gpu_sampled_at_20_hz_without_a_gpu_column_is_one_series():
    column, series, _ = _samples(ONE_GPU)
    assert (column, list(series), len(series["0"])) == ("power.draw [W]", ["0"], 73)
    assert series["0"][0] == (dt.datetime(2024, 10, 30, 18, 42, 33, 189000, dt.timezone.utc).timestamp(), 22.89)


def test_the_one_gpu_sample_gives_a_one_gpu_job_its_energy(tmp_path, capsys):
    """The real file beside a job of one GPU that ran 18:42:34 .. 18:42:36 (the samples' local time; the tests run
    in UTC): 43.35 J over the two seconds (the trapezoid of its 20 Hz draw, worked out by hand from the rows), over
    the job's 40,960 output tokens."""
    write_job(tmp_path, "res", vllm_output(), job(row={**ROW, "tp": 1}, started="2024-10-30T18:42:34+00:00",
                                                  finished="2024-10-30T18:42:36+00:00"))
    (tmp_path / "res.gpu_metrics.csv").write_bytes((REAL / ONE_GPU).read_bytes())
    m, err = _energy_of(tmp_path, capsys)
    assert err == ""
    assert m[R.ENERGY_PER_OUTPUT_TOKEN_J] == pytest.approx(43.35087647738459 / 40960, rel=1e-9)


def test_eight_gpus_under_gpu_index_with_power_w_at_utc_times():
    column, series, _ = _samples(EIGHT_GPUS)
    assert (column, sorted(series), {len(points) for points in series.values()}) == (
        "power_W", [str(g) for g in range(8)], {6})
    start = dt.datetime(2025, 9, 24, 3, 48, 33, 493000, dt.timezone.utc).timestamp()
    assert series["1"][:2] == [(start, 422.55), (start + 0.295, 422.73)]
    # over one second from 0.2 s in: every GPU's draw, and the one that drew the most (GPU 1, ~423 W)
    assert gpu_metrics.energy_j(series, start + 0.2, start + 1.2) == pytest.approx(3083.65, abs=0.01)
    assert gpu_metrics.energy_j(series, start + 0.2, start + 1.2, 1) == pytest.approx(422.87, abs=0.01)


def test_a_header_naming_gpu_and_index_reads_the_column_that_tells_the_gpus_apart():
    """A monitor's header names ``gpu`` (0..7) and ``index`` (0 on every row, whatever the monitor meant by it):
    the GPUs are the eight that ``gpu`` names, not one GPU ``0`` of all the rows. Over 17:26:51 .. 17:26:56 at
    +08:00, whole seconds on which every GPU has a sample: 2936.575 J, worked out by hand from the rows."""
    column, series, _ = _samples(EIGHT_GPUS_INDEX_ZERO)
    assert (column, sorted(series)) == ("power.draw", [str(g) for g in range(8)])
    assert [len(series[str(g)]) for g in range(8)] == [6, 6, 6, 5, 5, 5, 5, 5]
    start = dt.datetime(2025, 9, 8, 9, 26, 51, tzinfo=dt.timezone.utc).timestamp()
    assert series["0"][1] == (start, 74.06)
    assert gpu_metrics.energy_j(series, start, start + 5) == pytest.approx(2936.575, rel=1e-12)


# nvidia-smi's own names of the fields a monitor may tell GPUs apart by (nvidia-smi --help-query-gpu)
BUSES = ["00000000:18:00.0", "00000000:2A:00.0", "00000000:3A:00.0", "00000000:5D:00.0",
         "00000000:9A:00.0", "00000000:AB:00.0", "00000000:BA:00.0", "00000000:DB:00.0"]
UUIDS = [f"GPU-5117a00{g}-0000-4000-8000-000000000000" for g in range(8)]


def _nvidia_smi(header: str, name_of, watts_of) -> str:
    """Samples every 10 s from 11:57:30 to 12:00:30 (local time: the tests run in UTC), eight GPUs, each
    a few ms after the last as nvidia-smi writes them, ``header`` naming the columns."""
    lines = [header]
    for second in range(0, 181, 10):
        for gpu in range(8):
            at = dt.datetime(2026, 1, 1, 11, 57, 30) + dt.timedelta(seconds=second, milliseconds=8 * gpu)
            lines.append(f"{at:%Y/%m/%d %H:%M:%S.%f}"[:-3] + f", NVIDIA H100 80GB HBM3, {name_of(gpu)}, "
                         f"{watts_of(gpu):.2f} W, 700.00 W")
    return "\n".join(lines) + "\n"


def _energy(tmp_path, capsys, text: str, tp: int) -> tuple[dict, str]:
    write_job(tmp_path, "res", vllm_output(), job(row={**ROW, "tp": tp}))
    (tmp_path / "res.gpu_metrics.csv").write_text(text)
    return _energy_of(tmp_path, capsys)


def _energy_of(tmp_path, capsys) -> tuple[dict, str]:
    """The metrics of the one job in ``tmp_path`` as ingested, and what ingest wrote to stderr."""
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path))
    assert rc == 0, err
    (rec,) = show_json(capsys, db)
    return rec[R.METRICS], err


@pytest.mark.parametrize("column, names", [("pci.bus_id", BUSES), ("uuid", UUIDS)])
def test_gpus_told_apart_by_bus_id_or_uuid_are_each_a_gpu(tmp_path, capsys, column, names):
    text = _nvidia_smi(f"timestamp, name, {column}, power.draw [W], power.limit [W]", names.__getitem__,
                       lambda gpu: 500.0)
    m, err = _energy(tmp_path, capsys, text, 8)
    assert err == ""
    assert m[R.ENERGY_PER_OUTPUT_TOKEN_J] == pytest.approx(8 * 500 * 120 / 40960)  # 8 GPUs, 120 s, 40,960 tokens


def test_a_one_gpu_job_on_a_node_told_by_bus_id_is_its_own_gpu_s_draw(tmp_path, capsys):
    """The job on GPU 3 at 650 W, the node's other seven idle at 70 W: the job's GPU is the one that drew the
    most, not the eight's rows averaged as one GPU's."""
    text = _nvidia_smi("timestamp, name, pci.bus_id, power.draw [W], power.limit [W]", BUSES.__getitem__,
                       lambda gpu: 650.0 if gpu == 3 else 70.0)
    m, err = _energy(tmp_path, capsys, text, 1)
    assert err == ""
    assert m[R.ENERGY_PER_OUTPUT_TOKEN_J] == pytest.approx(650 * 120 / 40960)
