#!/usr/bin/env python3
"""Ingest speed: 2,000 result files into SQLite (goal: under 10 s) and into PostgreSQL.

The files are the real vLLM, SGLang and AIPerf samples (tests/data/results-samples),
each copied with a job sidecar under varied identities (config key, runner,
conc, run id, attempt). Prints the figures; run it by hand:

    .venv/bin/python tests/bench/ingest_speed.py [--files 2000] [--pg-url URL]
    .venv/bin/python tests/bench/ingest_speed.py --hashed 400 [--stored 2000] [--runs 5]

Without --pg-url it starts a throwaway PostgreSQL server when the binaries exist.

``--hashed N`` times instead N files without a sidecar (their run id their content's hash), which each
look for their measurement stored before (``store_dedup._stored_alike``): the real SGLang JSONL, its figures
scaled a little per file (runs of one server, each its own measurements), into an empty store and into
one that holds ``--stored`` such files' rows already (a team store's hand ingests); the median of
``--runs`` ingests of each.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "utils"), str(ROOT / "tests" / "results")]

import pgserver  # noqa: E402
from helpers import ROW, job, scaled_sglang_runs  # noqa: E402

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


def hashed(folder: Path, count: int, first: int = 0) -> None:
    """``count`` SGLang JSONLs without sidecars, each run's throughputs and latencies scaled apart."""
    scaled_sglang_runs(folder, count, first, spread=100000)


def hashed_report(name: str, url_of, tmp: Path, count: int, stored: int, runs: int) -> None:
    """The median of ``runs`` ingests of ``count`` hashed files, into an empty store and (with ``stored``)
    into one holding ``stored`` such files' rows; ``url_of(i)``: a fresh store's URL."""
    folder, before = tmp / "hashed", tmp / "hashed-before"
    if not folder.is_dir():
        hashed(folder, count, first=stored)
        if stored:
            hashed(before, stored)
    for held in (0, stored) if stored else (0,):
        times = []
        for i in range(runs):
            url = url_of(f"{held}-{i}")
            if held:
                with store.open_store(url) as st:
                    assert not ingest.ingest([str(before)], st).problems
            started = time.perf_counter()
            with store.open_store(url) as st:
                outcome = ingest.ingest([str(folder)], st)
            times.append(time.perf_counter() - started)
            assert not outcome.problems and outcome.new == count * 7, (outcome.problems[:3], outcome.new)
        print(f"{name}: {count} hashed SGLang JSONLs into a store holding {held * 7} rows: median "
              f"{statistics.median(times):.2f} s of {runs} ({', '.join(f'{t:.2f}' for t in times)})")


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
    parser.add_argument("--hashed", type=int, metavar="N", help="time N files without a sidecar instead")
    parser.add_argument("--stored", type=int, default=0, metavar="M",
                        help="with --hashed: also into a store holding M such files' rows")
    parser.add_argument("--runs", type=int, default=3, help="with --hashed: ingests of each, the median said")
    parser.add_argument("--sqlite-only", action="store_true", help="no PostgreSQL")
    args = parser.parse_args()
    if args.hashed:
        return hashed_main(args)
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


def hashed_main(args) -> int:
    with tempfile.TemporaryDirectory(prefix="sweepgate-ingest-") as tmp:
        hashed_report("SQLite", lambda i: f"sqlite:///{tmp}/h{i}.db", Path(tmp), args.hashed, args.stored, args.runs)
        if args.sqlite_only:
            return 0
        if args.pg_url:
            print("PostgreSQL: --hashed needs a server of its own (each run a fresh database); pass no --pg-url")
        elif pgserver.bindir():
            with pgserver.server(pgserver.bindir()) as server, contextlib.ExitStack() as dbs:
                hashed_report("PostgreSQL", lambda _: dbs.enter_context(pgserver.database(server)), Path(tmp),
                              args.hashed, args.stored, args.runs)
        else:
            print("PostgreSQL: skipped (no server binaries)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
