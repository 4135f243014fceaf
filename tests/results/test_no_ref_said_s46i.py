"""s46i: outputs ingested with no sidecar and no --row are stored on no ref (a content-hash run), which no
baseline of `results compare` takes. A PR run compared against such a main found no baseline and its line said only
"check --baseline-ref": it now counts the store's runs on no ref and names what to pass (--row FILE --run-id ID
--ref REF). Real files, real SQLite."""

from __future__ import annotations

import json
import shutil

from helpers import ROW, SAMPLES, run_cli

JSONL = SAMPLES / "sglang" / "sglang0.5.5_qwen2.5-3b_1gpu_in128_out128_c8.jsonl"


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
