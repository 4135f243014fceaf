"""s38j: energy per output token is integrated from the GPUs' power DRAW, chosen by what a column's name
means, not from the first column whose name holds "power" and not "limit" or "cap". nvidia-smi lists
power.management (Enabled) and the clock-event reasons (sw_power_cap, hw_power_brake_slowdown: Not Active)
among the power columns, and from R535 writes power.draw.instant [W] beside power.draw.average [W], one of
them [N/A] on GPUs without it; amd-smi's library gives current_socket_power and average_socket_power, one
all N/A (MI200: no current, MI300X: no average); rocm-smi names its GPUs' column `device` (card0, ...) and
writes Max Graphics Package Power (W), a cap, beside the draw. Each of these read the wrong column (no
energy, or the sum of a spike) or merged every GPU into one. Now an average draw is read before an
unqualified one and that before an instant or current one, never a limit, cap, maximum or state, a
column with no number is passed over, and the record names the column read (`energy-power-column`).
The headers are as the tools print them (SOURCES: nvidia-smi's --help-query-gpu names, amd-smi's and
rocm-smi's CLI sources, a real B300 gpu_metrics.csv in zianglih/InferenceX)."""

from __future__ import annotations

import datetime as dt

import pytest

from helpers import ROW, job, run_cli, show_json, vllm_output, write_job
from sweepgate.core.errors import SweepgateError
from sweepgate.results import record as R
from sweepgate.results.formats import gpu_metrics

START = dt.datetime(2026, 1, 1, 11, 57, 30, tzinfo=dt.timezone.utc)  # the job ran 11:58:00 .. 12:00:00 UTC
GPUS = 8


def _nvidia_time(at: dt.datetime) -> str:
    return f"{at:%Y/%m/%d %H:%M:%S}.000"  # local time as nvidia-smi writes it (the tests run in UTC)


def _amd_time(at: dt.datetime) -> str:
    return str(int(at.timestamp()))  # amd-smi metric -w writes Unix seconds


def _csv(header: str, cells, stamp=_nvidia_time, sep: str = ", ", blank: bool = False, gpu_name=str) -> str:
    """Samples every 10 s over 3 minutes from START, a row a GPU: ``cells(gpu)`` after the time and the GPU."""
    lines = [header]
    for second in range(0, 181, 10):
        at = stamp(START + dt.timedelta(seconds=second))
        lines += [sep.join([at, gpu_name(gpu), *cells(gpu)]) for gpu in range(GPUS)]
        lines += [""] if blank else []  # amd-smi -w leaves a blank line after each round
    return "\n".join(lines) + "\n"


def _energy(tmp_path, capsys, text: str, warned: str = "") -> dict:
    """The record of a job with ``text`` as its GPU samples; ingest says nothing, or one warning holding ``warned``."""
    write_job(tmp_path, "res", vllm_output(), job(row={**ROW, "tp": GPUS}))
    (tmp_path / "res.gpu_metrics.csv").write_text(text)
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path))
    assert rc == 0 and (warned in err and len(err.splitlines()) == 1 if warned else err == ""), err
    (rec,) = show_json(capsys, db)
    return rec


def _joules_per_token(watts: float) -> float:
    return GPUS * watts * 120 / 40960  # 8 GPUs over the job's 120 s, 40,960 output tokens


def test_nvidia_s_power_management_and_clock_reasons_are_not_the_draw(tmp_path, capsys):
    """power.management and the power-cap / power-brake clock-event reasons come before power.draw: the first
    was read as the draw, it holds no number, and the job had no energy figure."""
    header = ("timestamp, index, power.management, clocks_event_reasons.sw_power_cap, "
              "clocks_event_reasons.hw_power_brake_slowdown, power.limit [W], enforced.power.limit [W], "
              "power.default_limit [W], power.min_limit [W], power.max_limit [W], power.draw [W]")
    text = _csv(header, lambda gpu: ["Enabled", "Not Active", "Not Active", "1000.00 W", "1000.00 W",
                                     "1100.00 W", "200.00 W", "1100.00 W", "500.00 W"])
    rec = _energy(tmp_path, capsys, text)
    assert rec[R.METRICS][R.ENERGY_PER_OUTPUT_TOKEN_J] == pytest.approx(_joules_per_token(500))
    assert rec[R.ENERGY_POWER_COLUMN] == "power.draw [W]"


def test_nvidia_s_average_draw_before_its_instant_one(tmp_path, capsys):
    """R535+: power.draw.instant [W] before power.draw.average [W] (and power.draw, the average there): the
    instant reading, a spike's, was integrated."""
    header = "timestamp, index, power.draw.instant [W], power.draw.average [W], power.draw [W]"
    rec = _energy(tmp_path, capsys, _csv(header, lambda gpu: ["950.00 W", "500.00 W", "500.00 W"]))
    assert rec[R.METRICS][R.ENERGY_PER_OUTPUT_TOKEN_J] == pytest.approx(_joules_per_token(500))
    assert rec[R.ENERGY_POWER_COLUMN] == "power.draw.average [W]"


def test_an_nvidia_column_all_n_a_is_passed_over(tmp_path, capsys):
    """A GPU without an averaged reading writes [N/A] in power.draw.average: its instant draw is read."""
    header = "timestamp, index, power.draw.average [W], power.draw.instant [W], power.limit [W]"
    rec = _energy(tmp_path, capsys, _csv(header, lambda gpu: ["[N/A]", "500.00 W", "1000.00 W"]))
    assert rec[R.METRICS][R.ENERGY_PER_OUTPUT_TOKEN_J] == pytest.approx(_joules_per_token(500))
    assert rec[R.ENERGY_POWER_COLUMN] == "power.draw.instant [W]"


@pytest.mark.parametrize(("gpu_kind", "current", "average", "column"), [
    ("MI200", "N/A", "500", "average_socket_power"),
    ("MI300X", "500", "N/A", "current_socket_power"),
])
def test_amd_smi_s_socket_power_that_has_numbers(tmp_path, capsys, gpu_kind, current, average, column):
    """amdsmi_get_power_info()'s fields as a monitor writes them: MI200 has no current socket power, MI300X no
    average one; the one with numbers is read, the average where both have them."""
    header = "timestamp,gpu,current_socket_power,average_socket_power,gfx_voltage,soc_voltage,mem_voltage,power_limit"
    text = _csv(header, lambda gpu: [current, average, "N/A", "N/A", "N/A", "750"], _amd_time, ",", blank=True)
    rec = _energy(tmp_path, capsys, text)
    assert rec[R.METRICS][R.ENERGY_PER_OUTPUT_TOKEN_J] == pytest.approx(_joules_per_token(500)), gpu_kind
    assert rec[R.ENERGY_POWER_COLUMN] == column


def test_amd_smi_metric_s_own_csv(tmp_path, capsys):
    """`amd-smi metric -p -c -w 1 --csv` as InferenceX's monitor runs it on MI355X (amd-nprotaso/InferenceX's
    gpu_metrics.csv, trimmed to its power columns and a clock): socket_power, then power_management."""
    header = ("timestamp,gpu,socket_power,gfx_voltage,soc_voltage,mem_voltage,throttle_status,power_management,"
              "gfx_0_clk,gfx_0_max_clk")
    text = _csv(header, lambda gpu: ["500", "N/A", "N/A", "N/A", "N/A", "ENABLED", "2385", "2400"], _amd_time, ",",
                blank=True)
    rec = _energy(tmp_path, capsys, text)
    assert rec[R.METRICS][R.ENERGY_PER_OUTPUT_TOKEN_J] == pytest.approx(_joules_per_token(500))
    assert rec[R.ENERGY_POWER_COLUMN] == "socket_power"


def test_rocm_smi_s_gpus_and_its_max_power_cap(tmp_path, capsys):
    """rocm-smi --csv names the GPU column `device` and writes Max Graphics Package Power (W), a cap, beside
    the draw (a monitor prepends the time): every GPU's samples were one series and the GPUs too few."""
    header = "timestamp,device,Max Graphics Package Power (W),Current Socket Graphics Package Power (W)"
    text = _csv(header, lambda gpu: ["750.0", "500.0"], _amd_time, ",", gpu_name=lambda gpu: f"card{gpu}")
    rec = _energy(tmp_path, capsys, text)
    assert rec[R.METRICS][R.ENERGY_PER_OUTPUT_TOKEN_J] == pytest.approx(_joules_per_token(500))
    assert rec[R.ENERGY_POWER_COLUMN] == "Current Socket Graphics Package Power (W)"


def test_samples_with_no_draw_are_refused_in_one_line_and_give_no_energy(tmp_path, capsys):
    """Limits alone, or a draw column of [N/A] only: the samples are refused in one line (it was a bare
    StopIteration for limits alone), and the job's record has no energy figure, as before."""
    limits = _csv("timestamp, index, power.limit [W], enforced.power.limit [W]", lambda gpu: ["1000.00 W"] * 2)
    unread = _csv("timestamp, index, power.draw [W], power.limit [W]", lambda gpu: ["[N/A]", "1000.00 W"])
    with pytest.raises(SweepgateError) as limited:
        gpu_metrics.samples(limits, "g.csv")
    with pytest.raises(SweepgateError) as empty:
        gpu_metrics.samples(unread, "g.csv")
    assert str(limited.value).splitlines() == [
        "g.csv:1: no GPU power draw: power.limit [W], enforced.power.limit [W] are no draw (its columns: timestamp, "
        "index, power.limit [W], enforced.power.limit [W]); sample the GPUs' draw (nvidia-smi's power.draw, "
        "amd-smi's socket_power), as benchmark_lib.sh's start_gpu_monitor does"]
    assert str(empty.value).startswith("g.csv:1: no GPU power draw: power.draw [W] holds no number (its columns: ")
    for name, text in (("limits", limits), ("unread", unread)):  # ingest says so in a warning (s39g)
        rec = _energy(tmp_path / name, capsys, text, warned="no energy per output token: no GPU power draw: ")
        assert R.ENERGY_PER_OUTPUT_TOKEN_J not in rec[R.METRICS]
        assert rec[R.ENERGY_POWER_COLUMN] is None
