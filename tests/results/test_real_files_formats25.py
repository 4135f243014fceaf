"""formats25: vLLM's max_concurrency null means the client ran uncapped (its benchmark_serving.py and
`vllm bench serve` make no semaphore when --max-concurrency is left at its default, None), so such an
output is no point at the conc its row names: refused in one line at its key. An older output with no
max_concurrency key at all states nothing about a cap and is filed under its row's conc, as before."""

from __future__ import annotations

import json
import shutil

from helpers import ROW, SAMPLES, job, run_cli, show_json

# vllm-project/llm-d sweep (SOURCES.tsv): request rates 10/s, 30/s and inf, "max_concurrency": null
LLMD = SAMPLES / "vllm" / "vllm0.9_llama3.2-3b_l40sx4_llmd_qps10-30-inf.jsonl"
# LambdaLabsML/vllm-benchmark results/prompt_10/1xH100-80GB-SXM/Mistral-7B-Instruct-v0.3_tp1_len2048.json
# (benchmark_serving.py of Sep 2024: best_of/use_beam_search, no max_concurrency key)
NO_KEY = SAMPLES / "vllm" / "vllm0.5-0.6_mistral7b_h100_tp1_len2048_lambda.json"
LLAMA_ROW = {**ROW, "model": "meta-llama/Llama-3.2-3B-Instruct", "tp": 1}


def _ingest(capsys, tmp_path, output, *extra):
    db = tmp_path / "r.db"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{db}", *extra, str(output))
    return rc, out, err, db


def _col(line: str, key: str) -> int:
    return line.index(f'"{key}"') + 1


def test_an_uncapped_vllm_output_is_refused_under_a_row_naming_a_conc(capsys, tmp_path):
    out = tmp_path / "llmd.jsonl"
    first = LLMD.read_text(encoding="utf-8").splitlines()[0]
    out.write_text(first + "\n", encoding="utf-8")
    (tmp_path / "row.json").write_text(json.dumps({**LLAMA_ROW, "conc": 4}), encoding="utf-8")
    rc, stdout, err, db = _ingest(capsys, tmp_path, out, "--row", str(tmp_path / "row.json"), "--run-id", "1",
                                  "--ref", "refs/heads/main")
    assert rc == 1 and "ingested 0 results" in stdout and not db.exists()
    assert err.splitlines() == [
        f"{out}:1:{_col(first, 'max_concurrency')}: max_concurrency: the output ran without a concurrency cap (null) "
        "but its job's row (--row) says conc 4; rerun the point with --max-concurrency 4, or pass the matrix row "
        "this output was run with as --row"]


def test_an_uncapped_vllm_output_beside_its_sidecar_is_refused_naming_the_sidecar(capsys, tmp_path):
    out = tmp_path / "res.jsonl"
    shutil.copyfile(LLMD, out)
    side = tmp_path / "res.job.json"
    side.write_text(json.dumps(job(row={**LLAMA_ROW, "conc": 8})), encoding="utf-8")
    rc, _, err, db = _ingest(capsys, tmp_path, tmp_path)
    assert rc == 1 and not db.exists()
    (line,) = err.splitlines()
    assert line.startswith(f"{out}:1:") and (f"max_concurrency: the output ran without a concurrency cap (null) but "
                                             f"its job's row ({side}) says conc 8; rerun the point with "
                                             "--max-concurrency 8, or pair the output with its own job's .job.json"
                                             ) in line, line


def test_an_uncapped_vllm_output_under_a_row_without_conc_is_stored_with_none(capsys, tmp_path):
    row = {k: v for k, v in LLAMA_ROW.items() if k != "conc"}
    (tmp_path / "row.json").write_text(json.dumps(row), encoding="utf-8")
    rc, _, err, db = _ingest(capsys, tmp_path, LLMD, "--row", str(tmp_path / "row.json"), "--run-id", "1",
                             "--ref", "refs/heads/main")
    assert rc == 0, err
    recs = show_json(capsys, f"sqlite:///{db}")
    assert len(recs) == 9 and {r["conc"] for r in recs} == {None}


def test_an_older_vllm_output_without_the_key_is_still_filed_under_its_row_s_conc(capsys, tmp_path):
    assert "max_concurrency" not in json.loads(NO_KEY.read_text(encoding="utf-8"))
    row = {**ROW, "model": "mistralai/Mistral-7B-Instruct-v0.3", "tp": 1, "conc": 4}
    (tmp_path / "row.json").write_text(json.dumps(row), encoding="utf-8")
    rc, _, err, db = _ingest(capsys, tmp_path, NO_KEY, "--row", str(tmp_path / "row.json"), "--run-id", "1",
                             "--ref", "refs/heads/main")
    assert rc == 0, err
    (rec,) = show_json(capsys, f"sqlite:///{db}")
    assert rec["conc"] == 4
