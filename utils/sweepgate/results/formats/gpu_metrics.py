"""``<RESULT_FILENAME>.gpu_metrics.csv`` (or ``gpu_metrics.csv``) from benchmark_lib.sh's GPU
monitor, and the energy it implies.

nvidia-smi writes ``timestamp, index, power.draw [W], ...`` with values like
``2026/07/09 09:15:47.824, 0, 351.20 W``; amd-smi's CSV names its columns
``timestamp``, ``gpu`` and ``socket_power``. Of the columns that name power, the GPUs' draw is read
(``draw_rank``), never a limit or a cap listed before it. Timestamps without a zone are
the runner's local time. Energy is the per-GPU trapezoid integral of power
over the benchmark window (the client's own run where its output states it
beyond doubt, else the job's: ``ingest._window``), summed over GPUs, and only when the samples cover
that window (``covers``); otherwise there is no energy figure (not a guess), which ingest says at the
samples file (``ingest._Uncovered``).
"""

from __future__ import annotations

import csv
import io
import re
from typing import NamedTuple

from sweepgate.core.errors import fail
from sweepgate.results import jsonio
from sweepgate.results import record as R

FILENAME = "gpu_metrics.csv"  # a job's own: <RESULT_FILENAME>.gpu_metrics.csv (benchmarks/lib/evals.sh)
COVER_SLACK_S = 5.0  # samples must start/end within this of the window's edges
_NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?")
# The column naming each row's GPU: nvidia-smi's index, amd-smi's gpu, rocm-smi's device (card0, card1, ...), a
# monitor's own gpu_index; and the other fields nvidia-smi tells every GPU by, for a monitor that queries one of
# them instead of index (a cluster's gpumon: timestamp, name, pci.bus_id, ...), as its header names them (uuid,
# pci.bus_id) or as the query spells them (gpu_uuid, gpu_bus_id); not serial, [N/A] on a GeForce. Of these a
# header names, the GPU's is the one whose values tell the most GPUs apart (a monitor's header has named both gpu,
# 0..7, and index, 0 on every row), the first of them on a tie; without one, every row is one GPU's (unless the
# rows come in rounds, several GPUs' interleaved: refused, ``_rounds``).
GPU_COLUMNS = ("index", "gpu", "gpu_index", "device", "uuid", "gpu_uuid", "pci.bus_id", "gpu_bus_id")
# Without a column naming the GPU, a file's rows are one GPU's unless they come in rounds (``_rounds``): nvidia-smi's
# `--query-gpu=timestamp,power.draw -l 1` on a node of eight writes eight lines a second, each stamped a few ms
# after the one before (a monitor of its own: one time for the round), which line is which GPU's not written. A
# step from one row to the next over ROUND_PAUSE times the rows' lower median step is a pause between rounds;
# rounds they are when there are two pauses or more, at least one every MAX_ROUND steps (a node's GPUs, with room),
# so one GPU's samples that stalled now and then (a 20 Hz monitor's) stay one GPU's. Rounds whose lines each share
# one time written with no fraction of a second (FRACTION: `date '+%F %T'`, `date +%s`) are k GPUs' once a second
# or one GPU's read k times a second (a TP1 job's 4 Hz loop), and nothing in the file tells which; nor does the
# job's GPU count (a TP1 job on one of k: which line is its GPU's is not written): refused too, the warning naming
# both readings and the fix for either (``_ambiguous``; s40x read them as one GPU's, a TP1 job on a node of eight
# given the node's average, s40aa).
ROUND_PAUSE = 10
MAX_ROUND = 32
FRACTION = re.compile(r"\d[.,]\d")  # a time's fraction of a second: 09:15:47.824, 1735725600.25 (dates have none)
# rocm-smi's draw of an MI200's second die (MI250, MI250X: two GCDs a package): only the primary die reads the
# package's power, both dies' (rocm_smi.py's showPower prints this cell, the primary's the total)
SECONDARY_DIE = re.compile(r"n/a\s*\(secondary die\)", re.IGNORECASE)

# Which column is the GPUs' power draw, told by the words of its name; the one place these rules are.
# nvidia-smi lists its limits beside the draw (power.limit, enforced.power.limit, power.default_limit,
# power.min_limit, power.max_limit [W], clocks_event_reasons.sw_power_cap), and from R535 writes
# power.draw.average and power.draw.instant [W] beside power.draw [W] (an average there), `[N/A]` where a
# GPU has no such reading; module.power.* is a Grace module's, its CPU's draw included. amd-smi's `metric -p`
# writes socket_power (its library's current_socket_power, or average_socket_power where that is N/A: on
# MI300X one of the two is N/A on every GPU) and power_management (ENABLED), its `monitor` power_usage, and
# older releases average_socket_power and power_limit; rocm-smi writes Average or Current Socket Graphics
# Package Power (W), and Max Graphics Package Power (W), a cap.
# A name's words: its runs of letters, in lower case (ingest lower-cases a header before reading it, so a
# camelCase PowerDraw(W) is the run powerdraw). A run holding "power" with no separator (powerdraw, maxpower,
# gpupowerlimit) names power too, and a qualifying word is found inside such a run (its "max", "limit", "avg").
_WORD = re.compile(r"[a-z]+")
POWER_WORD = "power"
NOT_DRAW_WORDS = frozenset({"limit", "cap", "max", "min", "default", "enforced", "management", "reasons", "event",
                            "throttle", "brake", "slowdown", "smoothing", "module", "voltage", "energy"})
AVERAGE_WORDS = frozenset({"average", "avg"})
INSTANT_WORDS = frozenset({"instant", "current"})

# The unit of a draw column, from its name, the one place it is read: in brackets or parentheses at the end
# (nvidia-smi's `power.draw [W]`, rocm-smi's `(W)`, an exporter's `PowerDraw(mW)`) or as the last word after a
# `_`, `.`, `-` or space (`power_mw`, `gpu_powerdraw_w`); a name with neither (amd-smi's socket_power,
# power_usage) is in watts. Samples are stored in watts (WATTS_PER); a bracketed unit not here is refused.
WATTS_PER = {"w": 1.0, "watt": 1.0, "watts": 1.0, "mw": 1e-3, "milliwatt": 1e-3, "milliwatts": 1e-3,
             "uw": 1e-6, "\u00b5w": 1e-6, "microwatts": 1e-6, "kw": 1e3, "kilowatt": 1e3, "kilowatts": 1e3}
_BRACKETED_UNIT = re.compile(r"[\[(]\s*([^\[\]()]*?)\s*[\])]\s*$")
_SUFFIX_UNIT = re.compile(r"[_.\s-]([a-z\u00b5]+)\s*$", re.IGNORECASE)


def _words(name: str) -> set[str]:
    """The words of a column's name (``_WORD``), with ``power`` and any qualifier (``draw_rank``'s words) inside a
    run that holds "power" unseparated."""
    runs = set(_WORD.findall(name.lower()))
    joined = [run for run in runs if POWER_WORD in run and run != POWER_WORD]
    qualifiers = NOT_DRAW_WORDS | AVERAGE_WORDS | INSTANT_WORDS
    return runs | {word for word in qualifiers | {POWER_WORD} if any(word in run for run in joined)}


def names_power(name: str) -> bool:
    """Whether a column's name names power (a draw or not: ``power.limit``, ``PowerDraw(W)``, ``maxpower``)."""
    return POWER_WORD in _words(name)


def draw_rank(name: str) -> int | None:
    """How a column named ``name`` ranks as the GPUs' power draw, the lower the better: 0 an average,
    1 a draw its name does not qualify (``power.draw [W]``, ``socket_power``), 2 an instant or current one;
    None for no draw (a limit, a cap, a maximum, a state, a module's power, no power at all)."""
    words = _words(name)
    if POWER_WORD not in words or words & NOT_DRAW_WORDS:
        return None
    return 0 if words & AVERAGE_WORDS else 2 if words & INSTANT_WORDS else 1


def watts_per(name: str) -> float | None:
    """Watts in one of a draw column's units (``WATTS_PER``): 1.0 for a name that states none, None for a
    bracketed unit that is no unit of power (``power.draw [%]``)."""
    if bracketed := _BRACKETED_UNIT.search(name):
        return WATTS_PER.get(bracketed[1].lower())
    suffix = _SUFFIX_UNIT.search(name)
    return WATTS_PER.get(suffix[1].lower(), 1.0) if suffix else 1.0


class Samples(NamedTuple):
    column: str  # the header of the power draw column read, as the monitor wrote it
    by_gpu: dict[str, list[tuple[float, float]]]  # GPU -> [(epoch seconds, watts)], sorted by time
    # GPUs sampled with no reading of their own, their draw in another's (``SECONDARY_DIE`` at any sample): each
    # reading then a package of two
    shared: frozenset[str] = frozenset()


def paths_beside(output) -> list:
    """Where an output's GPU samples may be: its job's own file (``stem`` drops only the last
    suffix, so ``qwen3.5_...`` keeps its dot), then a plain gpu_metrics.csv (a result folder of
    one job, as the reference's scripts leave it)."""
    return [output.with_name(f"{output.stem}.{FILENAME}"), output.with_name(FILENAME)]


def detect_text(text: str) -> bool:
    head = jsonio.first_line(text.lstrip("\ufeff")).lower()
    return not head.lstrip().startswith(("{", "[")) and "timestamp" in head and "power" in head


def is_sidecar_text(text: str) -> bool:
    """What InferenceX's GPU monitor writes beside the samples, no samples over time and no result:
    amd-smi's energy-accumulator snapshots at start and stop (``gpu_metrics_energy_start.csv`` /
    ``_end.csv``: ``gpu,total_energy_consumption``), a counter per GPU at one instant, and nvidia-smi's
    list of the GPUs (``gpu_metrics_identity.csv``: ``index, uuid, pci.bus_id, name, driver_version``)."""
    head = [cell.strip().lower() for cell in jsonio.first_line(text.lstrip("\ufeff")).split(",")]
    energy = len(head) >= 2 and head[0] == "gpu" and all("energy" in cell for cell in head[1:])
    return energy or (head[:2] == ["index", "uuid"] and not any("power" in cell for cell in head))


def is_identity_dump(docs: list[tuple[int, object]]) -> bool:
    """amd-smi's ``static --json`` dump (``gpu_metrics_identity.json``, written by InferenceX's
    start_gpu_monitor): the GPUs' make, firmware and limits, ``{"gpu_data": [...]}``, no result."""
    return len(docs) == 1 and isinstance(doc := docs[0][1], dict) and doc.keys() == {"gpu_data"} and isinstance(
        doc["gpu_data"], list)


def _columns(rows: list[list[str]]) -> tuple[int | None, int | None, list[int]]:
    """The timestamp's column (None: none), the GPU's (None: one GPU; of the header's ``GPU_COLUMNS``, the one
    whose values tell the most GPUs apart, the first of them on a tie) and the power draw's, best first
    (``draw_rank``)."""
    names = [h.strip().lower() for h in rows[0]]
    ts = next((i for i, n in enumerate(names) if n.startswith("timestamp")), None)
    named = [i for i, n in enumerate(names) if n in GPU_COLUMNS]
    gpu = max(named, key=lambda i: (len({row[i].strip() for row in rows[1:] if len(row) > i}), -i), default=None)
    draws = sorted((rank, i) for i, n in enumerate(names) if (rank := draw_rank(n)) is not None)
    return ts, gpu, [i for _, i in draws]


def parse_time(text) -> float | None:
    """Epoch seconds of a monitor or ISO timestamp; a time without a zone is local time (None for
    anything else, such as a number where a client writes text)."""
    if not isinstance(text, str):
        return None
    text = text.strip()
    if not text:
        return None
    if _NUMBER.fullmatch(text):
        return float(text)
    return None if (at := R.moment(text)) is None else at.timestamp()


def samples(text: str, path: str) -> Samples:
    """The GPUs' power draw over time, from the best-ranked draw column (``draw_rank``) that holds a number:
    an average before an instant reading, a column all ``N/A`` or ``[N/A]`` passed over; none of them with
    a number is refused, the file's columns named (the caller then has no energy figure), as is a file of the
    header alone (the monitor stopped before its first sample), or samples none of whose times this reads. A GPU
    whose draw is rocm-smi's ``SECONDARY_DIE`` at any sample is in ``Samples.shared``, a reading it has now and
    then left out (its package's draw is its primary die's reading)."""
    reader = csv.reader(io.StringIO(text.lstrip("\ufeff")))
    try:
        rows = list(reader)
    except csv.Error as exc:  # a field over the csv module's 131,072 characters, a NUL: no monitor writes one
        raise fail(path, reader.line_num, f"not a CSV table of samples ({exc})",
                   "write it with benchmark_lib.sh's start_gpu_monitor") from None
    if not rows or not detect_text(",".join(rows[0])):
        raise fail(path, 1, "header: no timestamp and power columns",
                   "write it with benchmark_lib.sh's start_gpu_monitor")
    ts, gpu, draws = _columns(rows)
    if ts is None:
        raise fail(path, 1, f"header: no timestamp column (its columns: {_listed(rows[0])})",
                   "write it with benchmark_lib.sh's start_gpu_monitor")
    if draws and not any(cell.strip() for row in rows[1:] for cell in row):
        raise fail(path, 1, "no samples: the header alone (the GPU monitor stopped before its first sample)",
                   "start the GPU monitor before the server and stop it after the benchmark (benchmark_lib.sh's "
                   "start_gpu_monitor and stop_gpu_monitor), and check the job's log for why it stopped early")
    power = next((i for i in draws if any(len(row) > i and _NUMBER.search(row[i]) for row in rows[1:])), None)
    if power is None:
        named = [h.strip() for h in rows[0] if names_power(h)]
        what = (f"{', '.join(rows[0][i].strip() for i in draws)} {'holds' if len(draws) == 1 else 'hold'} no number"
                if draws else f"{', '.join(named)} {'is' if len(named) == 1 else 'are'} no draw" if named
                else "no column is named power")
        raise fail(path, 1, f"no GPU power draw: {what} (its columns: {_listed(rows[0])})",
                   "sample the GPUs' draw (nvidia-smi's power.draw, amd-smi's socket_power), as benchmark_lib.sh's "
                   "start_gpu_monitor does")
    scale = watts_per(rows[0][power])
    if scale is None:
        raise fail(path, 1, f"power column {rows[0][power].strip()!r}: unknown unit",
                   "write the draw in W, mW or kW and say so in the column's name (nvidia-smi's power.draw [W], "
                   "power_mw)")
    if gpu is None and (rounds := _rounds(rows, ts)):
        raise _interleaved(path, rows, ts, rounds)
    return _read(rows, path, ts, power, gpu, scale)


def _read(rows: list[list[str]], path: str, ts: int, power: int, gpu: int | None, scale: float) -> Samples:
    """``samples``' rows read: each GPU's (time, watts), and its secondary dies (``SECONDARY_DIE``); refused when
    no GPU has a reading of its own with a time."""
    series: dict[str, list[tuple[float, float]]] = {}
    secondary: set[str] = set()
    untimed = None  # the first sample's line and time whose time is none this reads
    for line, row in enumerate(rows[1:], 2):
        if len(row) <= max(ts, power, gpu or 0):
            continue  # the monitor was killed mid-line
        when, watts = parse_time(row[ts]), _NUMBER.search(row[power])
        name = row[gpu].strip() if gpu is not None else "0"
        if watts is None and SECONDARY_DIE.fullmatch(row[power].strip()):
            secondary.add(name)
        if when is None and watts is not None and untimed is None:
            untimed = line, row[ts].strip()
        if when is None or watts is None:
            continue
        series.setdefault(name, []).append((when, float(watts[0]) * scale))
    # a secondary die's reading now and then is no draw of its own: its package's is its primary's reading (s40q:
    # a job on every GCD had card7's readings counted on top of its package's)
    kept = {k: sorted(v) for k, v in series.items() if k not in secondary}
    if not kept and untimed is not None:
        raise fail(path, untimed[0], f"{rows[0][ts].strip()}: no sample has a time this reads ({untimed[1]!r} is "
                   "no time)", "write the time as nvidia-smi does (2026/07/09 09:15:47.824), in ISO 8601 "
                   "(2026-07-09T09:15:47Z) or in Unix seconds (date +%s)")
    if not kept:
        raise fail(path, 1, f"{rows[0][power].strip()}: no GPU has a reading of its own (rows cut short, or only "
                   "rocm-smi's 'N/A (Secondary die)')", "sample every GPU's draw with its time, as benchmark_lib.sh's "
                   "start_gpu_monitor does")
    return Samples(rows[0][power].strip(), kept, frozenset(secondary))


def _rounds(rows: list[list[str]], ts: int) -> list[list[tuple[int, float]]] | None:
    """The timed rows (line, epoch seconds) in the rounds they come in, or None for rows that are one GPU's
    (``ROUND_PAUSE``)."""
    timed = [(line, when) for line, row in enumerate(rows[1:], 2)
             if len(row) > ts and (when := parse_time(row[ts])) is not None]
    steps = [b - a for (_, a), (_, b) in zip(timed, timed[1:])]
    if len(steps) < 2:
        return None
    within = sorted(steps)[(len(steps) - 1) // 2]
    pauses = [i for i, step in enumerate(steps) if step > ROUND_PAUSE * within]
    if len(pauses) < 2 or len(pauses) * MAX_ROUND < len(steps):
        return None
    cuts = [0, *(i + 1 for i in pauses), len(timed)]
    return [timed[a:b] for a, b in zip(cuts, cuts[1:])]


def _usual(rounds: list[list[tuple[int, float]]]):
    """The first round of the usual size, and the round after it (None at the end)."""
    sizes = [len(r) for r in rounds]
    size = max(sizes, key=sizes.count)
    at = next(i for i, r in enumerate(rounds) if len(r) == size)
    return rounds[at], rounds[at + 1] if at + 1 < len(rounds) else None


def _interleaved(path: str, rows: list[list[str]], ts: int, rounds: list[list[tuple[int, float]]]):
    """The refusal of samples whose rows come in rounds, several GPUs' interleaved (``_rounds``), shown by the
    first round of the usual size; rounds each at one time written to the whole second are ``_ambiguous``."""
    if (all(r[0][1] == r[-1][1] for r in rounds)
            and not any(FRACTION.search(rows[line - 1][ts]) for r in rounds for line, _ in r)):
        return _ambiguous(path, rows, ts, rounds)
    first, nxt = _usual(rounds)
    size = len(first)
    span = f"within {(first[-1][1] - first[0][1]) * 1000:.0f} ms" if first[-1][1] > first[0][1] else "at one time"
    then = f", the next {nxt[0][1] - first[-1][1]:.3g} s later" if nxt else ""
    return fail(path, first[1][0], f"no column names the GPU, and its rows come {size} lines at a time (lines "
                f"{first[0][0]}-{first[-1][0]} {span}{then}): several GPUs' rows interleaved, and which line is "
                "which GPU's is not written", "add index to the monitor's query (nvidia-smi "
                "--query-gpu=timestamp,index,power.draw ...), as benchmark_lib.sh's start_gpu_monitor does")


def _ambiguous(path: str, rows: list[list[str]], ts: int, rounds: list[list[tuple[int, float]]]):
    """The refusal of rounds whose lines each share one time written to the whole second (``FRACTION``): k GPUs'
    lines once a second, or one GPU's read k times a second, which the file does not say."""
    first, nxt = _usual(rounds)
    size = len(first)
    then = f", the next {nxt[0][1] - first[-1][1]:.3g} s later" if nxt else ""
    return fail(path, first[1][0], f"no column names the GPU, and its rows come {size} lines to each time, written "
                f"to the whole second (lines {first[0][0]}-{first[-1][0]} at {rows[first[0][0] - 1][ts].strip()}"
                f"{then}): {size} GPUs read once a second, or one GPU read {size} times a second, and which is not "
                "written", "add index to the monitor's query (nvidia-smi --query-gpu=timestamp,index,power.draw "
                "...), or stamp each line with milliseconds (date '+%F %T.%3N')")


def _listed(header: list[str]) -> str:
    return ", ".join(h.strip() for h in header)


def _integral(points: list[tuple[float, float]], start: float, end: float) -> float:
    total = 0.0
    for (t0, p0), (t1, p1) in zip(points, points[1:]):
        a, b = max(t0, start), min(t1, end)
        if b <= a or t1 == t0:
            continue
        pa = p0 + (p1 - p0) * (a - t0) / (t1 - t0)
        pb = p0 + (p1 - p0) * (b - t0) / (t1 - t0)
        total += (pa + pb) / 2 * (b - a)
    return total


def covers(series: dict[str, list[tuple[float, float]]], start: float, end: float) -> bool:
    """Whether every GPU's samples cover [start, end] (to within COVER_SLACK_S of each edge)."""
    return all(len(points) >= 2 and points[0][0] <= start + COVER_SLACK_S and points[-1][0] >= end - COVER_SLACK_S
               for points in series.values())


def energy_j(series: dict[str, list[tuple[float, float]]], start: float, end: float,
             gpus: int | None = None, shared: int = 0) -> float | None:
    """Joules the GPUs drew in [start, end], or None when a GPU's samples do not cover it. With
    ``gpus`` fewer than the GPUs sampled (the monitor samples every GPU of an exclusive node; a TP4
    job on eight uses four), the ``gpus`` that drew the most: the job's, the others idle. ``shared``: GPUs
    sampled with no reading of their own (``Samples.shared``), one a reading, each reading a package of two;
    the job's are then the packages that drew the most, two GPUs each (None for an odd count of fewer GPUs
    than sampled, or readings not all of two: which part of a package's draw is the job's is not known)."""
    if end <= start or not series or not covers(series, start, end):
        return None
    drawn = sorted((_integral(points, start, end) for points in series.values()), reverse=True)
    if not gpus or gpus >= len(series) + shared:
        return sum(drawn)
    if not shared:
        return sum(drawn[:gpus])
    return sum(drawn[:gpus // 2]) if shared == len(series) and gpus % 2 == 0 else None
