"""Shared helpers of the results tests (plain functions, no fixtures)."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# Real benchmark outputs from public repositories (tests/data/results-samples/SOURCES.tsv);
# SWEEPGATE_RESULT_SAMPLES points the tests at another folder of real files.
SAMPLES = Path(os.environ.get("SWEEPGATE_RESULT_SAMPLES") or ROOT / "tests" / "data" / "results-samples")
if str(ROOT / "utils") not in sys.path:
    sys.path.insert(0, str(ROOT / "utils"))

from sweepgate import cli  # noqa: E402
from sweepgate.results import record as R  # noqa: E402

ROW = {
    "image": "vllm/vllm-openai:v0.11.0", "model": "deepseek-ai/DeepSeek-R1-0528", "model-prefix": "dsr1",
    "precision": "fp4", "framework": "vllm", "runner": "cluster:b300-nv", "spec-decoding": "none",
    "exp-name": "dsr1_1k1k_tp8", "conc": 4, "tp": 8, "pp": 1, "dcp-size": 1, "pcp-size": 1, "ep": 1,
    "dp-attn": False, "isl": 1024, "osl": 1024, "max-model-len": 2304, "disagg": False, "run-eval": False,
    "recipe-fingerprint": "ab" * 32,
}


def vllm_output(conc: int = 4, **over) -> dict:
    doc = {"date": "20260101-120000", "backend": "vllm", "model_id": ROW["model"], "num_prompts": 40,
           "request_rate": "inf", "max_concurrency": conc, "duration": 100.0, "completed": 40, "failed": 0,
           "total_input_tokens": 40960, "total_output_tokens": 40960, "request_throughput": 0.4,
           "output_throughput": 409.6, "total_token_throughput": 819.2,
           "mean_ttft_ms": 120.0, "median_ttft_ms": 100.0, "p99_ttft_ms": 300.0,
           "mean_tpot_ms": 10.0, "median_tpot_ms": 8.0, "p99_tpot_ms": 12.0,
           "mean_itl_ms": 9.0, "median_itl_ms": 8.5, "p99_itl_ms": 11.0,
           "mean_e2el_ms": 9000.0, "median_e2el_ms": 8800.0, "p99_e2el_ms": 9900.0}
    doc.update(over)
    return doc


def job(run_id: str = "1001", attempt: int = 1, status: str = "success", row: dict | None = None, **over) -> dict:
    j = {"config-key": "dsr1-fp4-b300-vllm", "run-id": run_id, "attempt": attempt, "commit": "c0ffee" * 6 + "abcd",
         "ref": "refs/heads/main", "runner-name": "b300-nv_00", "started": "2026-01-01T11:58:00+00:00",
         "finished": "2026-01-01T12:00:00+00:00", "status": status, "rehearsal": False}
    j.update(over)
    return {"row": row or dict(ROW), "job": j}


def write_job(folder: Path, name: str, output: dict | str | None, sidecar: dict | None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    out = folder / f"{name}.json"
    if output is not None:
        out.write_text(output if isinstance(output, str) else json.dumps(output), encoding="utf-8")
    if sidecar is not None:
        (folder / f"{name}.job.json").write_text(json.dumps(sidecar), encoding="utf-8")
    return out


def run_cli(capsys, *argv) -> tuple[int, str, str]:
    capsys.readouterr()
    rc = cli.main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def show_json(capsys, db: str, *extra) -> list[dict]:
    rc, out, err = run_cli(capsys, "results", "show", "--db", db, "--json", *extra)
    assert rc == 0, err
    return json.loads(out)


# A real rate sweep (1, 10, 20, 30, 35/s, unlimited) of two servers appended to one JSONL: six lines of
# `--metadata framework=vllm`, then six of `framework=sgl` (SOURCES.tsv: nerdalert/vllm-benchmark-graphs).
VLLM_VS_SGLANG = "vllm/vllm0.8_llama3.1-8b_h100_vllm-vs-sglang_qps1-10-inf.jsonl"


def tagged_lines(path: Path, key: str, value: str) -> str:
    """The lines of the real JSONL output ``path`` whose ``--metadata`` ``key`` is ``value``, in order."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    return "".join(line for line in lines if json.loads(line).get(key) == value)


def file_records(root: Path, rel: str) -> list[dict]:
    """The normalized records of one output file under ``root``, without a job sidecar."""
    from sweepgate.results import normalize, sidecar, sniff

    content = (root / rel).read_bytes()
    return [normalize.build(m, sidecar.local_job(content), rel, f"{rel}#{m.line}")
            for m in sniff.parse_text(content.decode(), rel)]


def parsed_or_refused(root: Path, rel: str, refused: dict[str, str]) -> list[dict] | None:
    """``rel``'s records, each with figures or scores; or None once its refusal is checked to be
    one diagnostic on the file, giving ``refused[rel]`` as the reason and a fix."""
    import math

    import pytest

    from sweepgate.core.errors import SweepgateError

    if rel in refused:
        with pytest.raises(SweepgateError) as info:
            file_records(root, rel)
        (diag,) = info.value.diagnostics
        assert diag.file == rel and refused[rel] in diag.message and diag.hint
        return None
    recs = file_records(root, rel)
    assert recs
    for rec in recs:
        assert rec[R.METRICS] or rec[R.EVALS]
        assert all(math.isfinite(v) and v >= 0 for v in rec[R.METRICS].values())
    return recs


def job_key_at(sidecar: Path, key: str) -> str:
    """``PATH:LINE:COL`` of ``key`` in a sidecar's ``job`` object, where a refusal of its value is placed."""
    text = sidecar.read_text(encoding="utf-8")
    at = text.index(f'"{key}"', text.index('"job"'))
    return f"{sidecar}:{text.count(chr(10), 0, at) + 1}:{at - (text.rfind(chr(10), 0, at) + 1) + 1}"


@contextlib.contextmanager
def tmpfs(disk: Path, options: str):
    """A real tmpfs mounted at ``disk`` with ``options`` for the block (the test skips where this user
    may mount none), unmounted after it."""
    import pytest

    disk.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(disk)], capture_output=True).returncode:
        pytest.skip("cannot mount a tmpfs here")
    try:
        yield disk
    finally:
        subprocess.run(["umount", "--lazy", str(disk)], check=True)


def md_rows(md: str) -> list[list[str]]:
    """Every body row of the Markdown tables in ``md`` as its cells, read as a maintainer reads them:
    a row whose point cell is empty (a point's later rows; the report names a point once, in its
    first row) belongs to the point of the row above, whose name it gets."""
    lines = md.splitlines()
    out: list[list[str]] = []
    for i, line in enumerate(lines):
        if not line.startswith("| ") or (i + 1 < len(lines) and lines[i + 1].startswith("|---")):
            continue  # not a row, or a header
        cells = [c.strip() for c in line[2:-2].split(" | ")]
        if not cells[0]:
            assert out and not lines[i - 1].startswith("|---"), f"a table's first row names no point: {line}"
            cells[0] = out[-1][0]
        out.append(cells)
    return out


def drawn(comparison):
    """(figure, items) of the comparison's one chart, as `results compare --plots` plans and draws it."""
    from sweepgate.results import charts

    ((_stem, group, items, part),) = charts.planned(comparison)
    return charts.draw_chart(group, items, comparison.run, part), items


def legend_texts(fig) -> list[str]:
    """Every text of the figure's legends, in order."""
    return [t.get_text() for legend in fig.legends for t in legend.get_texts()]


def compare_main_and_pr(capsys, folder: Path, db: str, doc_of, row: dict) -> tuple[dict, str, str]:
    """Three main runs (11-13) and a PR run (21, refs/pull/7/merge) of ``doc_of(tail)`` (tail 1 for
    main's, 10 for the PR's: what a test scales) ingested into ``db``; returns the PR's record as
    `results show --json` gives it, and `results compare`'s --json and --markdown outputs."""
    for run, ref, day, tail in (("11", "refs/heads/main", 1, 1), ("12", "refs/heads/main", 2, 1),
                                ("13", "refs/heads/main", 3, 1), ("21", "refs/pull/7/merge", 5, 10)):
        side = job(run_id=run, ref=ref, row=row, finished=f"2026-01-0{day}T12:00:00+00:00")
        doc = doc_of(tail)
        if isinstance(doc, dict) and "date" in doc:  # each job's own output (else compare names the copies):
            doc = {**doc, "date": f"2026010{day}-120000"}  # vLLM's date, AIPerf's benchmark id
        elif isinstance(doc, dict) and "benchmark_id" in doc:
            doc = {**doc, "benchmark_id": f"{doc['benchmark_id']}-{run}"}
        path = write_job(folder / run, "res", doc, side)
        rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(path))
        assert rc == 0, err
    (pr,) = show_json(capsys, db, "--run", "21")
    outputs = []
    for fmt in ("--json", "--markdown"):
        rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "21", fmt)
        assert rc == 0, err
        outputs.append(out)
    return pr, outputs[0], outputs[1]


def stored(capsys, tmp_path, *paths, db_name: str = "r.db") -> dict:
    """The metrics `results show --json` returns for the one output ingested from ``paths``."""
    db = f"sqlite:///{tmp_path / db_name}"
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, *map(str, paths))
    assert rc == 0, err
    (rec,) = show_json(capsys, db)
    return rec[R.METRICS]


# The one line `results ingest` says on stderr when it stored results of outputs with no sidecar and no --row (a raw
# sample's content-hash run, on no ref: ``commands.results_ingest._no_ref_warning``), as it renders it.
NO_REF_LINE = re.compile(r".+: warning: \d+ results? (of \d+ outputs )?stored (before )?on no ref(, \d+ of them "
                         r"before)? \(no \.job\.json\); pass --row FILE --run-id ID --ref REF \(docs/contracts\.md §8\)\n?")


def no_ref_said(err: str, out: str | None = None, verbose: bool = False) -> str:
    """``err`` of an ingest that stored outputs with no sidecar and no --row less its no-ref line (``NO_REF_LINE``),
    which must be there, once: the rest, which the caller checks as it checked the whole before ("" for an ingest
    that says nothing else: no traceback, no warning). Given its stdout ``out``, the line must be there only when the
    ingest's last line counts results new (an ingest of raw outputs stored before stores and does not say it), or,
    of an ingest with --verbose (``verbose``), any results (it says it of those stored before too, s48a)."""
    lines = err.splitlines(keepends=True)
    said = [line for line in lines if NO_REF_LINE.fullmatch(line)]
    last = "" if out is None else out.splitlines()[-1]
    new = out is None or not re.search(r"^ingested 0 results" if verbose else r"^ingested \d+ results \(0 new\)", last)
    assert len(said) == (1 if new else 0), f"expected {'one' if new else 'no'} no-ref line on stderr:\n{err}"
    return "".join(line for line in lines if not NO_REF_LINE.fullmatch(line))


def ingested_verbose(capsys, tmp_path, path) -> tuple[str, str]:
    """(the store, the output) of `results ingest --verbose PATH` into a new store under ``tmp_path``, of outputs
    with no sidecar, which must succeed with nothing on stderr but the line that says they are on no ref: its
    skipped lines are what the caller checks."""
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, out, err = run_cli(capsys, "results", "ingest", "--verbose", "--db", db, str(path))
    assert rc == 0 and no_ref_said(err) == "", err
    return db, out


def sweepgate_at(cwd, *argv: str, columns: str | None = None) -> subprocess.CompletedProcess:
    """`python -m sweepgate ARGV` in ``cwd`` as a real process: the source tree's package, no colour, no
    Actions variables, and COLUMNS only when ``columns`` is given (a pipe's width otherwise)."""
    env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "COLUMNS")}
    env.update({"PYTHONPATH": str(ROOT / "utils"), "NO_COLOR": "1", **({"COLUMNS": columns} if columns else {})})
    return subprocess.run([sys.executable, "-m", "sweepgate", *argv], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=120)


def main_runs_by_hand(tmp_path, runs: dict[str, float]) -> str:
    """Main runs ingested by hand (`--row ROW --run-id ID --ref refs/heads/main`), one vLLM output each of one
    `date` (so of one time), its output rate scaled by the run's factor, into a store and ``main.jsonl``; the
    store's URL."""
    db = f"sqlite:///{tmp_path / 'r.db'}"
    (tmp_path / "row.json").write_text(json.dumps(ROW), encoding="utf-8")
    for run, factor in runs.items():
        out = tmp_path / f"o{run}.json"
        out.write_text(json.dumps(vllm_output(4, output_throughput=409.6 * factor)), encoding="utf-8")
        proc = sweepgate_at(tmp_path, "results", "ingest", "--db", db, "--row", "row.json", "--run-id", run,
                            "--ref", "refs/heads/main", "--jsonl", "main.jsonl", out.name)
        assert proc.returncode == 0, proc.stderr
    return db


def compared_json(tmp_path, db: str, run: str, *extra: str) -> tuple[dict, str]:
    """(`results compare --run RUN --json`'s document, its stderr), as a real process in ``tmp_path``."""
    proc = sweepgate_at(tmp_path, "results", "compare", "--db", db, "--run", run, "--json", *extra)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout), proc.stderr


def refused_alone(capsys, tmp_path, source: Path) -> tuple[Path, str]:
    """(the copy, its stderr lines) of ingesting a copy of ``source`` alone into a new store: it must be
    refused (exit 1), nothing stored and no store made."""
    src = tmp_path / "in" / source.name
    src.parent.mkdir()
    shutil.copyfile(source, src)
    db = tmp_path / "results.db"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{db}", str(src))
    assert rc == 1
    assert out.strip() == f"ingested 0 results (0 new) into sqlite:///{db}; nothing stored"
    assert not db.exists()
    return src, err.splitlines()


# A real SGLang bench_serving JSONL (one run a line): the runs of one server that the stored-once look-up
# (store_dedup._stored_alike) is tested and timed with.
SGLANG_RUNS = SAMPLES / "sglang" / "sglang_2024-12_llama3.3-70b_h200x4_online.jsonl"


def scaled_sglang_runs(folder: Path, count: int, first: int = 0, spread: int = 1000) -> None:
    """``count`` JSONLs without sidecars (``run00000.jsonl``, ...), each the lines of ``SGLANG_RUNS`` with its
    latencies and throughputs scaled by 1 + i / ``spread``, so no two files hold the same measurement."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = [json.loads(line) for line in SGLANG_RUNS.read_text(encoding="utf-8").splitlines() if line.strip()]
    for i in range(first, first + count):
        scale = 1 + i / spread
        out = [{k: v * scale if isinstance(v, float) and ("throughput" in k or k.endswith("_ms")) else v
                for k, v in doc.items()} for doc in lines]
        (folder / f"run{i:05d}.jsonl").write_text("".join(json.dumps(d) + "\n" for d in out), encoding="utf-8")


def drained(leader: int) -> bytes:
    """What a pseudo-terminal's child wrote, read while it writes (a pty holds little) until it closes its
    end (EIO); ``leader`` is closed."""
    data = b""
    try:
        while chunk := os.read(leader, 65536):
            data += chunk
    except OSError:  # EIO: the child closed its end
        pass
    os.close(leader)
    return data


def sweepgate_on_path(tmp_path) -> dict:
    """An environment whose PATH runs `sweepgate` as an installed user would type it (this checkout's package, the
    interpreter running the tests), with nothing of a CI job's or a user's store or terminal width in it."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "sweepgate").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m sweepgate "$@"\n')
    (bin_dir / "sweepgate").chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "PYTHONPATH": str(ROOT / "utils")}
    for name in ("GITHUB_ACTIONS", "SWEEPGATE_DB", "COLUMNS"):
        env.pop(name, None)
    return env
