"""s31: `results ingest` read each output whole twice, and hashed one without a sidecar twice.

``records_of`` read an output's bytes and, without a sidecar, hashed them for its content-hash run id; then
``_copy_of`` read the same file again and hashed it again, to tell a copy of a file stored before. A run file
beside a `vllm bench sweep` summary was read a third time: the walk reads it whole to match it against the
summary's entries (``_without_sweep_summaries``). Each output is now read whole once, its bytes hashed once:
the walk hands what it read to the ingest, and the one digest makes the run id and the copy check. The
answers are the same (the same rows, run ids and copy warnings); the walk still peeks at the first 64 bytes
of each JSON file (``_head``), which is no whole read.
"""

from __future__ import annotations

import builtins
import hashlib
import io
import json
import shutil
from pathlib import Path

import pytest

from helpers import ROOT, job, run_cli, scaled_sglang_runs, show_json, vllm_output, write_job

from sweepgate.results import ingest, store

REAL = ROOT / "tests" / "data" / "results-real" / "vllm"
POINT = "SERVE--max_num_seqs=4-BENCH--max_concurrency=2-num_prompts=8"
SWEEP = {"run=0.json": "vllm0.25.1_bench_sweep_run0_opt125m_c2.json",
         "run=1.json": "vllm0.25.1_bench_sweep_run1_opt125m_c2_seqs4.json",
         "summary.json": "vllm0.25.1_bench_sweep_summary_2runs_c2.json"}


class _Counted:
    """A file object that tells ``reads`` how many bytes each read of it returned."""

    def __init__(self, f, key: str, reads: dict[str, list[int]]):
        self._f, self._key, self._reads = f, key, reads

    def read(self, *args):
        data = self._f.read(*args)
        self._reads.setdefault(self._key, []).append(len(data))
        return data

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return self._f.__exit__(*exc)

    def __getattr__(self, name):
        return getattr(self._f, name)


@pytest.fixture
def counted(monkeypatch):
    """(bytes returned by each read of each file opened for reading, by its resolved path; each SHA-256 hashed)."""
    reads: dict[str, list[int]] = {}
    hashed: list[bytes] = []
    real_open, real_sha256 = io.open, hashlib.sha256

    def opening(file, mode="r", *args, **kwargs):
        f = real_open(file, mode, *args, **kwargs)
        if "r" in mode and "+" not in mode and isinstance(file, (str, Path)):
            return _Counted(f, str(Path(file).resolve()), reads)
        return f

    def sha256(data=b"", **kwargs):
        hashed.append(bytes(data))
        return real_sha256(data, **kwargs)

    monkeypatch.setattr(io, "open", opening)
    monkeypatch.setattr(builtins, "open", opening)
    monkeypatch.setattr(hashlib, "sha256", sha256)
    return reads, hashed


def _whole_reads(reads: dict[str, list[int]], path: Path) -> int:
    """How many times ``path`` was read whole (its every byte in one read)."""
    return reads.get(str(path.resolve()), []).count(path.stat().st_size)


def _ingest(folder: Path, db: str) -> ingest.Outcome:
    with store.open_store(db) as st:
        outcome = ingest.ingest([str(folder)], st)
    assert not outcome.problems, outcome.problems
    return outcome


def test_an_output_without_a_sidecar_is_read_and_hashed_once(tmp_path, counted, capsys):
    scaled_sglang_runs(tmp_path / "runs", 3, first=1)
    files = sorted((tmp_path / "runs").iterdir())
    db = f"sqlite:///{tmp_path / 'r.db'}"
    reads, hashed = counted
    outcome = _ingest(tmp_path / "runs", db)
    assert outcome.new == 3 * 7
    for path in files:
        assert _whole_reads(reads, path) == 1, reads.get(str(path.resolve()))  # was 2: records_of, _copy_of
        assert hashed.count(path.read_bytes()) == 1  # was 2: its run id (local_job), the copy check
    runs = {r["result-filename"].partition("#")[0]: r["run-id"] for r in show_json(capsys, db)}
    assert runs == {p.name: f"local-{hashlib.sha256(p.read_bytes()).hexdigest()[:16]}" for p in files}


def test_a_job_s_output_is_read_and_hashed_once(tmp_path, counted):
    out = write_job(tmp_path / "jobs", "res", vllm_output(), job())
    reads, hashed = counted
    assert _ingest(tmp_path / "jobs", f"sqlite:///{tmp_path / 'r.db'}").new == 1
    assert _whole_reads(reads, out) == 1  # was 2
    assert hashed.count(out.read_bytes()) == 1  # the copy check's alone


def test_a_sweep_s_run_files_are_read_once_though_the_walk_matches_them_to_its_summary(tmp_path, counted, capsys):
    point = tmp_path / "experiment" / POINT
    point.mkdir(parents=True)
    for name, real in SWEEP.items():
        shutil.copyfile(REAL / real, point / name)
    reads, hashed = counted
    db = f"sqlite:///{tmp_path / 'r.db'}"
    outcome = _ingest(tmp_path / "experiment", db)
    assert outcome.new == 2
    for name in ("run=0.json", "run=1.json"):
        assert _whole_reads(reads, point / name) == 1, name  # was 3: the walk, records_of, _copy_of
        assert hashed.count((point / name).read_bytes()) == 1, name  # was 2
    assert _whole_reads(reads, point / "summary.json") == 1  # the walk's: every run of it is beside it
    assert sorted(r["result-filename"] for r in show_json(capsys, db)) == ["run=0.json", "run=1.json"]


def test_a_summary_read_for_its_runs_not_beside_it_is_read_once(tmp_path, counted, capsys):
    """run=1.json missing: summary.json is read by the walk (to match its runs) and stored for run 1 alone."""
    point = tmp_path / "experiment" / POINT
    point.mkdir(parents=True)
    for name in ("run=0.json", "summary.json"):
        shutil.copyfile(REAL / SWEEP[name], point / name)
    reads, hashed = counted
    db = f"sqlite:///{tmp_path / 'r.db'}"
    assert _ingest(tmp_path / "experiment", db).new == 2
    for name in ("run=0.json", "summary.json"):
        assert _whole_reads(reads, point / name) == 1, name  # was 3
        assert hashed.count((point / name).read_bytes()) == 1, name  # was 2
    assert sorted(r["result-filename"] for r in show_json(capsys, db)) == ["run=0.json", "summary.json#2"]


def test_a_copy_under_another_name_is_still_told_by_its_one_digest(tmp_path, capsys):
    """The copy check reads the digest made as the file was read: a copy in one ingest is still said and not stored."""
    folder = tmp_path / "runs"
    folder.mkdir()
    text = json.dumps(vllm_output())
    (folder / "a.json").write_text(text, encoding="utf-8")
    (folder / "b.json").write_text(text, encoding="utf-8")
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(folder))
    assert rc == 0 and "a.json, a copy under another name; not stored twice" in err, (out, err)
    assert [r["result-filename"] for r in show_json(capsys, db)] == ["a.json"]
