#!/usr/bin/env python3
"""Ingest speed: 2,000 result files into SQLite (goal: under 10 s) and into PostgreSQL.

The files are the real vLLM, SGLang and AIPerf samples (tests/data/results-samples),
each copied with a job sidecar under varied identities (config key, runner,
conc, run id, attempt). Prints the figures; run it by hand:

    .venv/bin/python tests/bench/ingest_speed.py [--files 2000] [--pg-url URL]

Without --pg-url it starts a throwaway PostgreSQL server when the binaries exist.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "utils"), str(ROOT / "tests" / "results")]

import pgserver  # noqa: E402
from helpers import ROW, job  # noqa: E402

from sweepgate.results import ingest, store  # noqa: E402

SAMPLES = ROOT / "tests" / "data" / "results-samples"
# What sweep jobs leave: InferenceX-fork vLLM JSON (most jobs), `vllm bench serve` JSON,
# AIPerf exports of agentic jobs (40 KB) and appended SGLang JSONL (one record per line).
SOURCES = ("vllm/ifx_benchserving_kimik2.5_int4_mi355x_tp8_mtp_1k1k_conc4.json",
           "vllm/ifx_benchserving_gptoss120b_disagg_1p1d_16gpu_1k1k_conc64.json",
           "vllm/vllmbench0.1x_qwen3-32b_b200x8_tp8_isl1024_osl128_c100.json",
           "aiperf/aiperf_kimik2.7_fp4_mi355x_tp4_conc4.json",
           "sglang/sglang_2024-12_llama3.3-70b_h200x4_online.jsonl")
RUNNERS = ("cluster:b300-nv", "cluster:mi355x-amds")


def generate(folder: Path, count: int) -> None:
    """``count`` outputs with sidecars whose rows agree with the outputs."""
    texts = [(SAMPLES / rel).read_text(encoding="utf-8") for rel in SOURCES]
    for i in range(count):
        text, rel = texts[i % len(texts)], SOURCES[i % len(SOURCES)]
        first = json.loads(text.splitlines()[0] if rel.endswith(".jsonl") else text)
        conc = first.get("max_concurrency") or (first.get("input_config", {}).get("loadgen", {}).get("concurrency"))
        row = dict(ROW, conc=conc, runner=RUNNERS[i % 2], tp=(4, 8)[i % 2])
        row.pop("isl"), row.pop("osl")
        if conc is None:  # SGLang's rate sweep ran uncapped (max_concurrency null): its row names no conc
            row.pop("conc")
        side = job(run_id=str(100000 + i // 40), attempt=1 + (i % 3 == 0), row=row,
                   **{"config-key": f"key-{i % 25}"})
        name = f"r{i:05d}"
        suffix = ".jsonl" if rel.endswith(".jsonl") else ".json"
        (folder / f"{name}{suffix}").write_text(text, encoding="utf-8")
        (folder / f"{name}.job.json").write_text(json.dumps(side), encoding="utf-8")


def measure(url: str, folder: Path) -> tuple[float, int, float]:
    started = time.perf_counter()
    with store.open_store(url) as st:
        outcome = ingest.ingest([str(folder)], st)
    first = time.perf_counter() - started
    assert not outcome.problems, outcome.problems[:3]
    started = time.perf_counter()
    with store.open_store(url) as st:
        again = ingest.ingest([str(folder)], st)
    assert again.new == 0
    return first, outcome.new, time.perf_counter() - started


def report(name: str, url: str, folder: Path, count: int) -> None:
    first, new, second = measure(url, folder)
    print(f"{name}: {count} files -> {new} new records in {first:.2f} s ({count / first:.0f} files/s); "
          f"re-ingest (0 new) {second:.2f} s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--pg-url", help="a PostgreSQL URL (default: start a throwaway server)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="sweepgate-ingest-") as tmp:
        folder = Path(tmp) / "results"
        folder.mkdir()
        generate(folder, args.files)
        report("SQLite", f"sqlite:///{tmp}/results.db", folder, args.files)
        if args.pg_url:
            report("PostgreSQL", args.pg_url, folder, args.files)
        elif pgserver.bindir():
            with pgserver.server(pgserver.bindir()) as url:
                report("PostgreSQL", url, folder, args.files)
        else:
            print("PostgreSQL: skipped (no server binaries; pass --pg-url)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
