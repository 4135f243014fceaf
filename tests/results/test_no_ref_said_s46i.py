"""s46i: outputs ingested with no sidecar and no --row are stored on no ref (a content-hash run), which
`results compare` never takes into a baseline or compares, and the ingest said nothing of it (exit 0, empty
stderr): the GPU-hours' figures were as good as lost and the user was not told. One note line on stderr per ingest
now counts them and names what to pass (--row FILE --run-id ID --ref REF, or the job's sidecar beside the output);
still exit 0, the results stored as before. An ingest with --row says nothing of it. Real files, real SQLite."""

from __future__ import annotations

import json
import shutil

from helpers import ROW, SAMPLES, run_cli

JSONL = SAMPLES / "sglang" / "sglang0.5.5_qwen2.5-3b_1gpu_in128_out128_c8.jsonl"
NOTE = ("sweepgate results ingest: note: {n} stored on no ref (no .job.json beside the output, no --row), without a "
        "matrix row: no baseline of results compare will hold them; to make them count, ingest the output again with --row FILE "
        "--run-id ID --ref REF (refs/heads/main, or refs/pull/N/head), or with its job's sidecar beside it")


def test_an_ingest_of_outputs_on_no_ref_says_so_in_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "out").mkdir()
    shutil.copy(JSONL, tmp_path / "out" / JSONL.name)
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, "out")
    lines = sum(1 for line in JSONL.read_text(encoding="utf-8").splitlines() if line.strip())
    assert rc == 0 and out.strip() == f"ingested {lines} results ({lines} new) into {db}", out + err
    said = f"{lines} results" if lines > 1 else "1 result"
    assert err.splitlines() == [NOTE.format(n=said)], err


def test_an_ingest_with_a_row_says_nothing_of_refs(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "row.json").write_text(json.dumps({**ROW, "model": "Qwen/Qwen2.5-3B-Instruct", "conc": 8,
                                                   "isl": 128, "osl": 128}), encoding="utf-8")
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, "--row", "row.json", "--run-id", "7",
                           "--ref", "refs/heads/main", str(JSONL))
    assert rc == 0, err
    assert "no ref" not in err, err


def test_compare_with_no_baseline_names_the_runs_stored_on_no_ref(tmp_path, capsys, monkeypatch):
    # main's runs ingested without --row sit on no ref: the PR's compare found no baseline and said only "check
    # --baseline-ref", though the store held them
    monkeypatch.chdir(tmp_path)
    (tmp_path / "row.json").write_text(json.dumps({**ROW, "model": "Qwen/Qwen2.5-3B-Instruct", "conc": 8,
                                                   "isl": 128, "osl": 128}), encoding="utf-8")
    (tmp_path / "main").mkdir()
    shutil.copy(JSONL, tmp_path / "main" / JSONL.name)
    db = f"sqlite:///{tmp_path / 'r.db'}"
    assert run_cli(capsys, "results", "ingest", "--db", db, "main")[0] == 0
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, "--row", "row.json", "--run-id", "200",
                           "--ref", "refs/pull/7/head", str(JSONL))
    assert rc == 0, err
    rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "200")
    assert rc == 0, err
    assert "; the store holds 1 run on no ref (ingested with no .job.json and no --row), which no baseline " \
        "takes: ingest its outputs with --row FILE --run-id ID --ref refs/heads/main" in err, err
