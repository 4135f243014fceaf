"""Synthetic normalized records: a baseline history on main and a PR run (shared by results tests)."""

from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "utils"))

from sweepgate.results import record as R  # noqa: E402

MAIN = "refs/heads/main"
CONCS = (4, 8, 16, 32, 64)
# The compared metrics every client's point has (no accept_length, which only speculative decoding has, nor the
# busiest second's output, which only newer vLLM and SGLang clients count): every synthetic point's.
PLAIN_METRICS = tuple(m for m in R.COMPARED_METRICS if m not in (R.ACCEPT_LENGTH, R.MAX_OUTPUT_TOKENS_PER_S))
KEYS = ("dsr1-fp8-b300-vllm", "dsr1-fp8-b300-vllm-lmcache")


def curve(conc: int, key_index: int = 0) -> dict:
    """A plausible throughput/interactivity pair at one concurrency."""
    interactivity = 120.0 / (1 + conc / 12) * (1 + 0.05 * key_index)
    tput = 2600.0 * conc / (conc + 24) * (1 + 0.08 * key_index)
    return {R.OUTPUT_TPUT_PER_GPU: tput, R.INTERACTIVITY: interactivity,
            "ttft_p50_ms": 80.0 + 6 * conc, "tpot_p50_ms": 1000.0 / interactivity,
            "e2el_p50_ms": 1024 * 1000.0 / interactivity, R.SUCCESS_RATE: 1.0}


def make(run: str, key: str, conc: int, metrics: dict, *, ref: str = MAIN, day: int = 1, isl: int = 1024,
         image: str = "vllm/vllm-openai:v0.11.0", hardware: str = "b300", rehearsal: bool = False) -> dict:
    return {R.CONFIG_KEY: key, R.HARDWARE: hardware, R.SCENARIO: "fixed-seq-len", R.ISL: isl, R.OSL: 1024,
            R.CONC: conc, R.MODEL: "deepseek-ai/DeepSeek-R1-0528", R.PRECISION: "fp8", R.FRAMEWORK: "vllm",
            R.IMAGE: image, R.TP: 8, R.EP: 1, R.RECIPE_FINGERPRINT: f"fp-{key}-{image}",
            R.RESULT_FILENAME: f"{key}_{hardware}_isl{isl}_conc{conc}", R.RUN_ID: run, R.ATTEMPT: 1, R.REF: ref, R.FINISHED: f"2026-11-{day:02d}T12:00:00Z",
            R.STATUS: "success", R.REHEARSAL: rehearsal, R.METRICS: dict(metrics)}


def noisy(metrics: dict, rng: random.Random, noise: float) -> dict:
    return {k: v * (1 + rng.uniform(-noise, noise)) if k != R.SUCCESS_RATE else v for k, v in metrics.items()}


def history(runs: int = 5, noise: float = 0.02, seed: int = 0, keys=KEYS, concs=CONCS, **kw) -> list[dict]:
    rng = random.Random(seed)
    return [make(f"main-{r}", key, conc, noisy(curve(conc, i), rng, noise), day=r + 1, **kw)
            for r in range(runs) for i, key in enumerate(keys) for conc in concs]


def pr_run(scale: dict | None = None, noise: float = 0.02, seed: int = 99, keys=KEYS, concs=CONCS,
           run: str = "pr-7", ref: str = "refs/pull/7/merge", **kw) -> list[dict]:
    """The PR run; ``scale`` maps (key, conc) -> {metric: factor}."""
    rng, scale = random.Random(seed), scale or {}
    out = []
    for i, key in enumerate(keys):
        for conc in concs:
            metrics = noisy(curve(conc, i), rng, noise)
            for metric, factor in scale.get((key, conc), {}).items():
                metrics[metric] *= factor
            out.append(make(run, key, conc, metrics, ref=ref, day=28, **kw))
    return out
