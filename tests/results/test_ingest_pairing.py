"""`results ingest` refuses an output paired with another job's sidecar where the output states the
point itself and disagrees with the row: real vLLM and SGLang outputs beside a sidecar whose row says
8192/1024 at conc 4. One line naming both values, exit 1, nothing stored."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from helpers import ROW, SAMPLES, job, run_cli, show_json, write_job

# vLLM states its concurrency (max_concurrency 100), not its lengths: 1024/128 is only in the name.
VLLM = SAMPLES / "vllm" / "vllmbench0.1x_qwen3-32b_b200x8_tp8_isl1024_osl128_c100.json"
# SGLang states both (max_concurrency 8, random_input_len/random_output_len 128/128).
SGLANG = SAMPLES / "sglang" / "sglang0.5.5_qwen2.5-3b_1gpu_in128_out128_c8.jsonl"
ROW_8K1K = {**ROW, "isl": 8192, "osl": 1024, "conc": 4, "exp-name": "dsr1_8k1k"}


@pytest.mark.parametrize("sample, row, said", [
    (VLLM, ROW_8K1K, "max_concurrency: the output ran at concurrency 100 but its job's row ({sidecar}) says conc 4"),
    (SGLANG, {**ROW_8K1K, "conc": 8}, "random_input_len: the output used 128 input tokens but its job's row ({sidecar}) says isl 8192"),
    (SGLANG, {**ROW_8K1K, "conc": 8, "isl": 128}, "random_output_len: the output used 128 output tokens but its job's row ({sidecar}) says osl 1024"),
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
    assert out.strip() == f"ingested 0 results (0 new) into {db}; nothing stored"
    assert not (tmp_path / "r.db").exists()


def test_an_output_naming_another_model_is_stored_under_the_row_with_a_warning(tmp_path, capsys, monkeypatch):
    """Review: a Kimi-K2.5 output ingested with a DeepSeek-R1 row was filed as DeepSeek-R1 without a
    word. A served name may differ from the weights' repository, so it is a warning (exit 0), not a
    refusal; a local path (/workspace/qwen3-32b) says nothing and is not compared."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    named = SAMPLES / "vllm" / "vllmbench0.1x_qwen3-32b_h200x8_tp8_isl1024_osl128_c100.json"  # Qwen/Qwen3-32B
    for folder, sample in (("hub", named), ("path", VLLM)):
        write_job(tmp_path / folder, "res", None, job(run_id=folder, row={**ROW, "conc": 100}))
        shutil.copy(sample, tmp_path / folder / "res.json")
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, "hub", "path")
    assert rc == 0 and "ingested 2 results (2 new)" in out, err
    line, annotation = err.strip().splitlines()
    assert line == ("hub/res.json:1:88: warning: model_id: the output benchmarked Qwen/Qwen3-32B but its job's row "
                    f"(hub/res.job.json) says model {ROW['model']}; stored under {ROW['model']}; if the output is "
                    "another job's, pair it with its own .job.json (or --row)")
    # the annotation says its level once: the command is the level (leftover: "::warning ...::warning: model:")
    assert annotation.startswith("::warning file=hub/res.json,line=1::model_id: the output benchmarked Qwen/Qwen3-32B")
    assert {r["model"] for r in show_json(capsys, db)} == {ROW["model"]}
    # the output stored under job 'hub' already: ingested by hand as another run, its bytes would be warned of (s34a)
    named = shutil.copy(named, tmp_path / "by-hand.json")
    Path(named).write_bytes(Path(named).read_bytes() + b"\n")  # the same output, other bytes
    assert run_cli(capsys, "results", "ingest", "--db", db, "--row", str(write_row(tmp_path, "Qwen/qwen3-32b")),
                   "--run-id", "same", "--ref", "refs/heads/main", str(named))[2] == ""  # the same id, any case
    # diff review: with --row the hint named a .job.json the user never had
    err = run_cli(capsys, "results", "ingest", "--db", db, "--row", str(write_row(tmp_path, "Qwen/Qwen3-8B")),
                  "--run-id", "other", "--ref", "refs/heads/main", str(named))[2]
    assert err.splitlines()[0].endswith("; if the row is not the one this output was run with, pass that one "
                                        "as --row"), err


def write_row(tmp_path, model: str):
    import json

    path = tmp_path / f"row-{model.replace('/', '_')}.json"
    path.write_text(json.dumps({**ROW, "conc": 100, "model": model}), encoding="utf-8")
    return path


def test_an_agentic_job_s_output_naming_another_model_is_warned_of_too(tmp_path, capsys, monkeypatch):
    """Audit: benchmark_lib's agentic output ({"aiperf": {...}}, the model as input_config.model, a
    string) filed under another row's model without the warning a vLLM output gets."""
    import json

    monkeypatch.chdir(tmp_path)
    doc = json.loads((SAMPLES / "aiperf" / "aiperf_kimik2.7_fp4_mi355x_tp4_conc1.json").read_text())
    doc["input_config"] = {"model": "moonshotai/Kimi-K3", "concurrency": 1}
    write_job(tmp_path / "run", "res", {"aiperf": doc}, job(row={**ROW, "conc": 1, "model": "other/Model-X"}))
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", "run")
    assert rc == 0 and "warning: input_config.model: the output benchmarked moonshotai/Kimi-K3 but its job's row" in err, err


def test_an_eval_of_an_adapter_is_warned_of_even_on_its_base_model_s_row(tmp_path, capsys, monkeypatch):
    """Hunt 8: lm-eval with peft= scored an adapter; filed under the row's plain model without a word."""
    from helpers import ROOT

    monkeypatch.chdir(tmp_path)
    base = "meta-llama/Meta-Llama-3-8B-Instruct"
    peft = ROOT / "tests/data/results-real/lm_eval/lmeval0.4.3_asdiv_cot_llama_peft_relpath_limit512float_8shot.json"
    write_job(tmp_path / "run", "res", None, job(row={**ROW, "model": base, "run-eval": True}))
    shutil.copy(peft, tmp_path / "run" / "res-eval.json")
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, "run")
    assert rc == 0 and "ingested 1 results" in out, err
    (line,) = err.strip().splitlines()
    assert line.startswith(f"run/res-eval.json:154:5: warning: config.model_args: the output benchmarked {base} with adapter "
                           "../prompt-pursuit/"), line
    assert line.endswith(f"says model {base}; stored under {base}; if the output is another job's, pair it with its "
                         "own .job.json (or --row)"), line


def test_an_adapter_eval_on_a_row_without_a_model_is_stored_as_named(tmp_path, capsys, monkeypatch):
    """Session review: the adapter check read row["model"] of a row that had none: internal error."""
    from helpers import ROOT

    monkeypatch.chdir(tmp_path)
    peft = ROOT / "tests/data/results-real/lm_eval/lmeval0.4.3_asdiv_cot_llama_peft_relpath_limit512float_8shot.json"
    row = {k: v for k, v in ROW.items() if k != "model"}
    write_job(tmp_path / "run", "res", None, job(row={**row, "run-eval": True}))
    shutil.copy(peft, tmp_path / "run" / "res-eval.json")
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, "run")
    assert rc == 0 and "ingested 1 results" in out and err == "", err


def test_a_row_given_by_hand_that_disagrees_says_to_pass_the_right_row(tmp_path, capsys, monkeypatch):
    """Hunt 7: with --row, the fix named a .job.json the user never had."""
    monkeypatch.chdir(tmp_path)
    row = tmp_path / "row.json"
    row.write_text(json.dumps({**ROW_8K1K, "conc": 8}), encoding="utf-8")
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, "--row", str(row), "--run-id", "1",
                         "--ref", "refs/heads/main", str(SGLANG))
    (line,) = err.strip().splitlines()
    assert rc == 1 and "random_input_len: the output used 128 input tokens but its job's row (--row) says isl 8192" in line, line
    assert line.endswith("; pass the matrix row this output was run with as --row"), line


IFX_HUB_CACHE = SAMPLES / "vllm" / "ifx_benchserving_gptoss120b_disagg_1p1d_16gpu_1k1k_conc4.json"


@pytest.mark.parametrize("model, warned", [("openai/gpt-oss-120b", False), ("OpenAI/GPT-OSS-120B", False),
                                           (ROW["model"], True)])
def test_a_model_served_from_a_hub_cache_path_is_compared_by_its_repository(tmp_path, capsys, monkeypatch,
                                                                             model, warned):
    """New user (newuser24): a real InferenceX output names its model as a hub cache path
    (/models/models--openai--gpt-oss-120b/snapshots/<hash>/), which names the repository as surely as
    openai/gpt-oss-120b; it was taken for a local path, so filed under a DeepSeek row without a word."""
    monkeypatch.chdir(tmp_path)
    write_job(tmp_path / "run", "res", None, job(row={**ROW, "conc": 4, "model": model}))
    shutil.copy(IFX_HUB_CACHE, tmp_path / "run" / "res.json")
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", "run")
    assert rc == 0 and "ingested 1 result" in out, err
    if warned:
        (line,) = err.strip().splitlines()
        assert "warning: model_id: the output benchmarked /models/models--openai--gpt-oss-120b/snapshots/" in line
        assert f"says model {model}; stored under {model}" in line
    else:
        assert err == ""
