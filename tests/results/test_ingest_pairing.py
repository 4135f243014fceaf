"""`results ingest` refuses an output paired with another job's sidecar where the output states the
point itself and disagrees with the row: real vLLM and SGLang outputs beside a sidecar whose row says
8192/1024 at conc 4. One line naming both values, exit 1, nothing stored."""

from __future__ import annotations

import shutil

import pytest

from helpers import ROW, SAMPLES, job, run_cli, show_json, write_job

# vLLM states its concurrency (max_concurrency 100), not its lengths: 1024/128 is only in the name.
VLLM = SAMPLES / "vllm" / "vllmbench0.1x_qwen3-32b_b200x8_tp8_isl1024_osl128_c100.json"
# SGLang states both (max_concurrency 8, random_input_len/random_output_len 128/128).
SGLANG = SAMPLES / "sglang" / "sglang0.5.5_qwen2.5-3b_1gpu_in128_out128_c8.jsonl"
ROW_8K1K = {**ROW, "isl": 8192, "osl": 1024, "conc": 4, "exp-name": "dsr1_8k1k"}


@pytest.mark.parametrize("sample, row, said", [
    (VLLM, ROW_8K1K, "conc: the output ran at concurrency 100 but its job's row ({sidecar}) says 4"),
    (SGLANG, {**ROW_8K1K, "conc": 8}, "isl: the output used 128 but its job's row ({sidecar}) says 8192"),
    (SGLANG, {**ROW_8K1K, "conc": 8, "isl": 128}, "osl: the output used 128 but its job's row ({sidecar}) says 1024"),
])
def test_an_output_paired_with_another_jobs_row_is_refused(tmp_path, capsys, monkeypatch, sample, row, said):
    monkeypatch.chdir(tmp_path)
    output = tmp_path / "run" / f"res{sample.suffix}"
    write_job(output.parent, "res", None, job(row=row))
    shutil.copy(sample, output)
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, "run")
    assert rc == 1 and "Traceback" not in err
    (line,) = err.strip().splitlines()
    assert line.startswith(f"{output.relative_to(tmp_path)}") and said.format(sidecar="run/res.job.json") in line
    assert line.endswith("; pair the output with its own job's .job.json")
    assert "ingested 0 results" in out and show_json(capsys, db) == []
