"""s40x, then s40aa: samples with no GPU column whose lines come in rounds sharing one time to the whole second.

s40c refuses samples with no column naming the GPU whose rows come in rounds (``gpu_metrics._rounds``):
nvidia-smi's ``--query-gpu=timestamp,power.draw`` on a node of eight. A TP1 job's monitor of its own that samples
one GPU 4 times a second and stamps each line with ``date`` to the whole second (or 2 times a second in Unix
seconds, ``date +%s``) writes rounds too: the lines of one second at one time, the next a second later (the rows'
median step is 0, so every step of a second is a pause). s40c refused them with advice to add ``index`` to a
query of one GPU; s40x read them as one GPU's. But an 8-GPU node's monitor writing its 8 lines a second stamped
by ``date`` to the second looks the same, and a TP1 job on it was then given the node's average (1.17 J/token
where GPU0's was 2.05) without a word (s40aa). Such a file cannot say which it is, and a TP1 job's count cannot
settle it (of k GPUs' lines, which is the job's GPU is not written either): it gives no energy, said in one
warning at the samples file naming both readings and the fix that works for either (add ``index`` to the query,
or stamp each line with milliseconds). Rounds whose lines carry a fraction of a second (nvidia-smi's own, a few
ms apart, or one monitor's time to the ms for all of a round) are several GPUs', refused as before
(test_gpu_samples_left_alone_s40c).
"""

from __future__ import annotations

import calendar
import datetime as dt

import pytest

from helpers import ROW
from sweepgate.results import record as R
from test_gpu_samples_left_alone_s40c import START, _ingest

SECONDS = 180  # 11:57:30 .. 12:00:30; the job ran 11:58:00 .. 12:00:00
WATTS = 700


def _one_gpu(per_second: int, stamp, header: str = "timestamp,power.draw [W]", draw: str = "{} W") -> str:
    """One GPU's draw ``per_second`` lines a second, each line's time ``stamp(second)`` (all of a second's lines
    one time)."""
    lines = [header] + [f"{stamp(second)}, {draw.format(f'{WATTS:.2f}')}"
                        for second in range(SECONDS + 1) for _ in range(per_second)]
    return "\n".join(lines) + "\n"


def _clock(second: int) -> str:  # a shell loop's `date '+%Y/%m/%d %H:%M:%S'`
    return f"{START + dt.timedelta(seconds=second):%Y/%m/%d %H:%M:%S}"


def _iso(second: int) -> str:  # `date -u +%FT%TZ`
    return f"{START + dt.timedelta(seconds=second):%Y-%m-%dT%H:%M:%S}Z"


def _epoch(second: int) -> str:  # `date +%s`
    return str(calendar.timegm(START.timetuple()) + second)


def _said_ambiguous(line: str, size: int) -> None:
    """The one warning for rounds at one whole-second time: both readings, and both fixes."""
    assert "warning: no energy per output token: no column names the GPU" in line, line
    assert f"{size} lines" in line and "whole second" in line, line
    assert f"{size} GPUs" in line and f"one GPU read {size} times a second" in line, line
    assert "add index to the monitor's query" in line and "milliseconds" in line, line


@pytest.mark.parametrize("per_second, stamp, header, draw", [
    (4, _clock, "timestamp,power.draw [W]", "{} W"),
    (2, _clock, "timestamp, power.draw [W]", "{} W"),
    (4, _iso, "timestamp,power.draw [W]", "{} W"),
    (2, _epoch, "timestamp,power_w", "{}"),
], ids=["4hz-date-seconds", "2hz-date-seconds", "4hz-iso-seconds", "2hz-unix-seconds"])
def test_one_gpu_sampled_faster_than_its_clock_reads_is_ambiguous_no_energy_one_warning(tmp_path, capsys,
                                                                                       per_second, stamp,
                                                                                       header, draw):
    """One GPU 4 (or 2) times a second at one whole-second time is k GPUs once a second as well: no energy."""
    rc, err, recs = _ingest(tmp_path, capsys, _one_gpu(per_second, stamp, header, draw), {"a": {**ROW, "tp": 1}})
    assert rc == 0 and R.ENERGY_PER_OUTPUT_TOKEN_J not in recs[0][R.METRICS], err
    (line,) = err.strip().splitlines()
    assert line.startswith(f"{tmp_path / 'gpu_metrics.csv'}:"), line
    _said_ambiguous(line, per_second)


def test_eight_lines_a_round_at_one_unix_time_to_the_ms_are_still_several_gpus(tmp_path, capsys):
    """A monitor's one time for all of a round's lines, written to the ms: a GPU sampled eight times at one ms
    is no GPU, so these are a node's eight GPUs, refused as before."""
    lines = ["timestamp,power_w"] + [f"{calendar.timegm(START.timetuple()) + second}.{second % 900 + 17:03d},"
                                     f"{700 if gpu == 0 else 100}" for second in range(SECONDS + 1) for gpu in range(8)]
    rc, err, recs = _ingest(tmp_path, capsys, "\n".join(lines) + "\n", {"a": {**ROW, "tp": 1}})
    assert rc == 0 and R.ENERGY_PER_OUTPUT_TOKEN_J not in recs[0][R.METRICS], err
    (line,) = err.strip().splitlines()
    assert "no column names the GPU" in line and "8 lines" in line and "index" in line, line
