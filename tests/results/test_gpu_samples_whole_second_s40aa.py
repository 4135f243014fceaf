"""s40aa: a node's GPUs sampled once a second with ``date`` to the whole second and no GPU column got a wrong energy.

An 8-GPU node's monitor writing ``timestamp,power.draw [W]`` 8 lines a second, each stamped by ``date`` to the
second, looks like one GPU read 8 times a second; since s40x it was read as one GPU's series, so a TP1 job on
GPU0 (700 W, the others idle at 100 W) was stored at the node's average, 1.17 J/token where its own was 2.05,
with no warning. The file cannot tell the two readings apart, and the job's GPU count cannot either (a TP1 job
on one of k GPUs: which line is its GPU's is not written; a TP8 job: eight GPUs or one GPU read eight times),
so no energy is given, said in one warning at the samples file naming both readings and the fix for either.
"""

from __future__ import annotations

import pytest

from helpers import ROW
from sweepgate.results import record as R
from test_gpu_samples_coarse_clock_s40x import SECONDS, _clock, _epoch, _said_ambiguous
from test_gpu_samples_left_alone_s40c import _ingest, _three


def _node(gpus: int, stamp=_clock, header: str = "timestamp,power.draw [W]", unit: str = " W",
          sizes=None) -> str:
    """``gpus`` GPUs' lines each second, GPU0 at 700 W and the others at 100 W, all of a second's lines one time
    to the whole second; ``sizes(second)`` lines that second instead, where given."""
    lines = [header]
    for second in range(SECONDS + 1):
        count = sizes(second) if sizes else gpus
        lines += [f"{stamp(second)}, {700 if gpu == 0 else 100}.00{unit}" for gpu in range(count)]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("tp", [1, 2, 8, 16])
def test_eight_gpus_once_a_second_at_whole_seconds_give_no_energy_one_warning(tmp_path, capsys, tp):
    rc, err, recs = _ingest(tmp_path, capsys, _node(8), {"a": {**ROW, "tp": tp}})
    assert rc == 0 and R.ENERGY_PER_OUTPUT_TOKEN_J not in recs[0][R.METRICS], (err, recs[0][R.METRICS])
    (line,) = err.strip().splitlines()
    # at the first round's second line, as the interleaved refusal is said
    assert line.startswith(f"{tmp_path / 'gpu_metrics.csv'}:3: "), line
    _said_ambiguous(line, 8)


def test_in_unix_seconds_too(tmp_path, capsys):
    rc, err, recs = _ingest(tmp_path, capsys, _node(4, _epoch, "timestamp,power_w", ""), {"a": {**ROW, "tp": 1}})
    assert rc == 0 and R.ENERGY_PER_OUTPUT_TOKEN_J not in recs[0][R.METRICS], err
    (line,) = err.strip().splitlines()
    _said_ambiguous(line, 4)


def test_a_loop_that_drifts_writes_rounds_of_several_sizes_still_ambiguous(tmp_path, capsys):
    """A 4 Hz loop's sleep drifts: now and then 3 or 5 lines a second. The usual size is the one named."""
    text = _node(4, sizes=lambda s: 5 if s % 11 == 0 else 3 if s % 13 == 0 else 4)
    rc, err, recs = _ingest(tmp_path, capsys, text, {"a": {**ROW, "tp": 1}})
    assert rc == 0 and R.ENERGY_PER_OUTPUT_TOKEN_J not in recs[0][R.METRICS], err
    (line,) = err.strip().splitlines()
    _said_ambiguous(line, 4)


def test_beside_three_outputs_it_is_said_once(tmp_path, capsys):
    rc, err, recs = _ingest(tmp_path, capsys, _node(8), _three(tp=8))
    assert rc == 0 and len(recs) == 3, err
    assert not any(R.ENERGY_PER_OUTPUT_TOKEN_J in rec[R.METRICS] for rec in recs)
    (line,) = err.strip().splitlines()
    _said_ambiguous(line, 8)


def test_one_gpu_once_a_second_at_whole_seconds_is_still_one_gpu_s_energy(tmp_path, capsys):
    """No rounds (one line a second, each a second after the one before): one GPU's, its energy given."""
    rc, err, recs = _ingest(tmp_path, capsys, _node(1), {"a": {**ROW, "tp": 1}})
    assert (rc, err) == (0, "")
    assert recs[0][R.METRICS][R.ENERGY_PER_OUTPUT_TOKEN_J] == pytest.approx(700 * 120 / 40960)


def test_the_fix_said_works_one_gpu_at_4_hz_stamped_to_the_ms_is_one_gpu_s_energy(tmp_path, capsys):
    """The warning's second fix, `date '+%F %T.%3N'` on each line: a TP1 job's 4 Hz loop is one GPU's again."""
    lines = ["timestamp,power.draw [W]"] + [f"{_clock(s)}.{quarter * 250:03d}, 700.00 W"
                                            for s in range(SECONDS + 1) for quarter in range(4)]
    rc, err, recs = _ingest(tmp_path, capsys, "\n".join(lines) + "\n", {"a": {**ROW, "tp": 1}})
    assert (rc, err) == (0, "")
    assert recs[0][R.METRICS][R.ENERGY_PER_OUTPUT_TOKEN_J] == pytest.approx(700 * 120 / 40960)
