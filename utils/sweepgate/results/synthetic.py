"""A generated baseline history: pretend runs on the baseline ref, derived from real records.

`sweepgate example` has one rehearsed run and no history; these records stand in
for the last N runs on main at the same points, so `results compare` has
something to judge against. Each copy scales every directed metric by its own
small, seeded noise (the same input gives the same history) and is marked as a
rehearsal: its figures come from the stand-in server too.
"""

from __future__ import annotations

import copy
import random

from sweepgate.results import record as R

RUN_PREFIX = "generated-main-"
DEFAULT_RUNS = 5
DEFAULT_NOISE = 0.02
NOISY_METRICS = tuple(name for name in R.DIRECTION if name != R.SUCCESS_RATE)


def _noisy(metrics: dict, rng: random.Random, noise: float) -> dict:
    out = dict(metrics)
    for name in NOISY_METRICS:
        value = out.get(name)
        if isinstance(value, float) or (isinstance(value, int) and not isinstance(value, bool)):
            out[name] = float(value) * (1 + rng.uniform(-noise, noise))
    return out


def baseline_history(records: list[dict], ref: str, *, runs: int = DEFAULT_RUNS, noise: float = DEFAULT_NOISE,
                     seed: int = 0, finished: str = "2000-01-01T00:00:00+00:00") -> list[dict]:
    """``runs`` copies of every successful throughput record in ``records`` on ``ref`` (run ids
    ``generated-main-1``..N, finished before ``finished`` in run order), metrics within ±``noise``."""
    rng = random.Random(seed)
    day = finished[:10]
    out = []
    for run in range(1, runs + 1):
        for rec in records:
            if rec.get(R.STATUS) != R.SUCCESS or not rec.get(R.METRICS):  # failures, eval scores
                continue
            copied = copy.deepcopy(rec)
            copied.update({R.RUN_ID: f"{RUN_PREFIX}{run}", R.ATTEMPT: 1, R.REF: ref, R.REHEARSAL: True,
                           R.COMMIT: None,
                           R.STARTED: f"{day}T00:{run:02d}:00+00:00", R.FINISHED: f"{day}T00:{run:02d}:30+00:00"})
            copied[R.METRICS] = _noisy(rec[R.METRICS], rng, noise)
            copied.pop(R.OUTPUT_SHA256, None)  # figures of no output file: never one output stored as several runs
            out.append(copied)
    return out
