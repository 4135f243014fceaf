"""Runs of one output at one point that name other setups in the client's own keys (follow-up of
test_vllm_metadata30, which covers `--metadata` pairs): another model_id, backend, --label, tokenizer, dataset,
server model or endpoint is another measurement, never a repeat of the first. Each case is a real output whose
repeats are stored as repeats, with one line's key changed (text for text, nothing else of the line touched):
refused in one line at that key, with how to ingest the runs apart; the real files' own repeats are stored."""

from __future__ import annotations

import json

import pytest

from helpers import ROOT, ROW, VLLM_VS_SGLANG, run_cli, show_json, tagged_lines

REAL = ROOT / "tests" / "data" / "results-real"
# vllm bench serve 0.25.1 (label null, endpoint_type vllm), one run at conc 2
BENCH_SERVE = REAL / "vllm/vllm0.25.1_opt125m_c2_specless.json"
# sglang.bench_serving ~0.4.0: lines 4 and 5 are one setup (random 4096/1024, unlimited rate) measured twice
SGLANG_REPEATS = "sglang/sglang_2024-12_llama3.3-70b_h200x4_offline.jsonl"
# SGLang 0.5.5.post3, one line with server_info (model_path, version) and --tag agg_local
SGLANG_SERVER = REAL / "sglang/sglang0.5.5_qwen2.5-3b_tp1_c200_agg_trimmed.jsonl"
AIPERF = "aiperf/aiperf_qwen3-0.6b_rtx6000ada_conc1_plotfixture.json"  # AIPerf ~0.3, conc 1, chat, streamed
GENAI_PERF = "aiperf/genaiperf_nim-llama3-8b_trtllm_isl200_osl50_conc1.json"  # GenAI-Perf, endpoint_type chat
HINT = ("stored together, the two runs would be averaged and judged as repeats of one measurement; split the lines "
        "into one file per {key} and ingest the files, each a run of its own (with --row, under its own --run-id)")


def changed(line: str, old: str, new: str) -> str:
    """``line`` with its one ``old`` text made ``new``: the real line, one key's value changed."""
    assert line.count(old) == 1, (old, line[:200])
    return line.replace(old, new)


def col(line: str, *path: str) -> int:
    """The 1-based column of the last key of ``path`` (each key found after the one before it) in ``line``."""
    at = -1
    for key in path:
        at = line.index(f'"{key}"', at + 1)
    return at + 1


def refusal(capsys, db, path) -> str:
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(path))
    assert rc == 1 and "nothing stored" in out, out + err
    (line,) = err.splitlines()
    return line


def stored(capsys, db, path, n: int) -> None:
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(path))
    assert rc == 0 and f"ingested {n} results ({n} new)" in out, out + err


def rate_sweep_twice(samples) -> list[str]:
    """The real vLLM server's rate sweep (1, 10, 20, 30, 35/s, unlimited) appended twice: 12 lines, 6 points."""
    return tagged_lines(samples / VLLM_VS_SGLANG, "framework", "vllm").splitlines(keepends=True) * 2


@pytest.mark.parametrize("old, new, key, here, there", [
    ('"model_id": "meta-llama/Llama-3.1-8B-Instruct"', '"model_id": "meta-llama/Llama-3.1-70B-Instruct"', "model_id",
     '"meta-llama/Llama-3.1-70B-Instruct"', '"meta-llama/Llama-3.1-8B-Instruct"'),
    ('"backend": "vllm"', '"backend": "openai-chat"', "backend", '"openai-chat"', '"vllm"'),
    ('"tokenizer_id": "meta-llama/Llama-3.1-8B-Instruct"', '"tokenizer_id": "hf-internal-testing/llama-tokenizer"',
     "tokenizer_id", '"hf-internal-testing/llama-tokenizer"', '"meta-llama/Llama-3.1-8B-Instruct"'),
    ('"burstiness": 1.0', '"burstiness": 0.5', "burstiness", "0.5", "1.0"),
])
def test_a_vllm_run_of_another_setup_at_a_rate_of_the_sweep_is_refused(samples, tmp_path, db, capsys, old, new, key,
                                                                      here, there):
    lines = rate_sweep_twice(samples)
    lines[6] = changed(lines[6], old, new)  # the second sweep's first run: rate 1/s, as line 1
    path = tmp_path / "sweep.jsonl"
    path.write_text("".join(lines), encoding="utf-8")
    assert refusal(capsys, db, path) == (f"{path}:7:{col(lines[6], key)}: {key}: {here} here but {there} on line 1, "
                                         f"at the same point (rate 1/s): {HINT.format(key=key)}")


def test_the_sweep_s_repeats_alike_are_stored_and_burstiness_is_nothing_at_an_unlimited_rate(samples, tmp_path, db,
                                                                                            capsys):
    """At an unlimited rate every request is sent at once: the arrival's burstiness shapes nothing."""
    lines = rate_sweep_twice(samples)
    assert json.loads(lines[11])["request_rate"] == "inf"
    lines[11] = changed(lines[11], '"burstiness": 1.0', '"burstiness": 0.5')
    path = tmp_path / "sweep.jsonl"
    path.write_text("".join(lines), encoding="utf-8")
    stored(capsys, db, path, 12)


def test_another_model_is_refused_under_a_row_too(samples, tmp_path, db, capsys):
    """Under a job's row both runs would be filed under the row's model, and averaged all the same."""
    lines = rate_sweep_twice(samples)
    lines[6] = changed(lines[6], '"model_id": "meta-llama/Llama-3.1-8B-Instruct"',
                       '"model_id": "meta-llama/Llama-3.1-70B-Instruct"')
    path = tmp_path / "sweep.jsonl"
    path.write_text("".join(lines), encoding="utf-8")
    row = {**{k: v for k, v in ROW.items() if k != "conc"}, "model": "meta-llama/Llama-3.1-8B-Instruct"}
    (tmp_path / "row.json").write_text(json.dumps(row), encoding="utf-8")
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, "--row", str(tmp_path / "row.json"),
                           "--run-id", "1", "--ref", "refs/heads/main", str(path))
    assert rc == 1 and "nothing stored" in out, out + err
    assert f"{path}:7:{col(lines[6], 'model_id')}: model_id: \"meta-llama/Llama-3.1-70B-Instruct\" here but " \
           "\"meta-llama/Llama-3.1-8B-Instruct\" on line 1, at the same point (rate 1/s)" in err, err


def test_a_vllm_bench_serve_run_of_another_label_is_refused_and_one_of_none_is_a_repeat(tmp_path, db, capsys):
    run = json.dumps(json.loads(BENCH_SERVE.read_text(encoding="utf-8")))  # the real run, as one JSONL line
    path = tmp_path / "runs.jsonl"
    path.write_text(run + "\n" + run + "\n", encoding="utf-8")
    stored(capsys, db, path, 2)
    other = changed(run, '"label": null', '"label": "eager"')
    path.write_text(run + "\n" + other + "\n", encoding="utf-8")
    assert refusal(capsys, f"sqlite:///{tmp_path / 'other.db'}", path) == (
        f"{path}:2:{col(other, 'label')}: label: \"eager\" here but no label on line 1, at the same point (rate ∞, "
        "conc 2): "
        + HINT.format(key="label"))


@pytest.mark.parametrize("old, new, key, here, there", [
    ('"backend": "sglang"', '"backend": "vllm"', "backend", '"vllm"', '"sglang"'),
    ('"dataset_name": "random"', '"dataset_name": "random-ids"', "dataset_name", '"random-ids"', '"random"'),
    ('"random_range_ratio": 0.0', '"random_range_ratio": 0.5', "random_range_ratio", "0.5", "0.0"),
])
def test_an_sglang_line_of_another_setup_beside_a_repeat_is_refused(samples, tmp_path, db, capsys, old, new, key, here,
                                                                     there):
    lines = (samples / SGLANG_REPEATS).read_text(encoding="utf-8").splitlines(keepends=True)
    workload = [{k: v for k, v in json.loads(line).items() if k.startswith(("dataset", "random"))} for line in lines]
    assert workload[3] == workload[4] == {"dataset_name": "random", "random_input_len": 4096, "random_output_len": 1024,
                                          "random_range_ratio": 0.0}
    lines[4] = changed(lines[4], old, new)
    path = tmp_path / "offline.jsonl"
    path.write_text("".join(lines), encoding="utf-8")
    assert refusal(capsys, db, path) == (f"{path}:5:{col(lines[4], key)}: {key}: {here} here but {there} on line 4, "
                                         f"at the same point (rate ∞): {HINT.format(key=key)}")


@pytest.mark.parametrize("old, new, path_keys, here, there", [
    ('"tag": "agg_local"', '"tag": "agg_radix_off"', ("tag",), '"agg_radix_off"', '"agg_local"'),
    ('"version": "0.5.5.post3"', '"version": "0.5.6"', ("server_info", "version"), '"0.5.6"', '"0.5.5.post3"'),
    ('"server_info": {"model_path": "Qwen/Qwen2.5-3B-Instruct"',
     '"server_info": {"model_path": "Qwen/Qwen2.5-7B-Instruct"', ("server_info", "model_path"),
     '"Qwen/Qwen2.5-7B-Instruct"', '"Qwen/Qwen2.5-3B-Instruct"'),
])
def test_an_sglang_server_s_other_setup_at_one_concurrency_is_refused(tmp_path, db, capsys, old, new, path_keys,
                                                                      here, there):
    line = SGLANG_SERVER.read_text(encoding="utf-8").rstrip("\n")
    path = tmp_path / "agg.jsonl"
    other = changed(line, old, new)
    path.write_text(line + "\n" + other + "\n", encoding="utf-8")
    key = ".".join(path_keys)
    assert refusal(capsys, db, path) == (f"{path}:2:{col(other, *path_keys)}: {key}: {here} here but {there} on "
                                         f"line 1, at the same point (rate ∞, conc 200): {HINT.format(key=key)}")


def test_an_sglang_line_measured_twice_alike_is_stored(tmp_path, db, capsys):
    line = SGLANG_SERVER.read_text(encoding="utf-8").rstrip("\n")
    path = tmp_path / "agg.jsonl"
    path.write_text(line + "\n" + line + "\n", encoding="utf-8")
    stored(capsys, db, path, 2)


@pytest.mark.parametrize("sample, old, new, path_keys, here, there", [
    (AIPERF, '"type": "chat"', '"type": "completions"', ("input_config", "endpoint", "type"), '"completions"',
     '"chat"'),
    (AIPERF, '"streaming": true', '"streaming": false', ("input_config", "endpoint", "streaming"), "false", "true"),
    (AIPERF, '"model_names": ["Qwen/Qwen3-0.6B"]', '"model_names": ["Qwen/Qwen3-1.7B"]',
     ("input_config", "endpoint", "model_names"), '["Qwen/Qwen3-1.7B"]', '["Qwen/Qwen3-0.6B"]'),
    (GENAI_PERF, '"endpoint_type": "chat"', '"endpoint_type": "completions"', ("input_config", "endpoint_type"),
     '"completions"', '"chat"'),
])
def test_an_aiperf_export_of_another_setup_beside_one_of_its_concurrency_is_refused(samples, tmp_path, db, capsys,
                                                                                    sample, old, new, path_keys,
                                                                                    here, there):
    export = json.dumps(json.loads((samples / sample).read_text(encoding="utf-8")))  # the real export, one line
    path = tmp_path / "exports.jsonl"
    path.write_text(export + "\n" + export + "\n", encoding="utf-8")
    stored(capsys, db, path, 2)
    other = changed(export, old, new)
    path.write_text(export + "\n" + other + "\n", encoding="utf-8")
    key = ".".join(path_keys)
    assert refusal(capsys, f"sqlite:///{tmp_path / 'other.db'}", path) == (
        f"{path}:2:{col(other, *path_keys)}: {key}: {here} here but {there} on line 1, at the same point (conc 1): "
        + HINT.format(key=key))


@pytest.mark.parametrize("root, rel, n", [
    (None, SGLANG_REPEATS, 7),  # lines 4 and 5: one setup measured twice
    (REAL, "sglang/sglang_2024-11_dlora_nodataset_rr0_100prompts.jsonl", 2),  # one setup measured twice
    (None, "vllm/vllmbench0.25.1_opt125m_sweep_summary_list.json", 2),  # a sweep point's two runs
])
def test_the_real_outputs_whose_runs_repeat_a_point_are_still_stored(samples, tmp_path, db, capsys, root, rel, n):
    stored(capsys, db, (root or samples) / rel, n)
    assert len(show_json(capsys, db)) == n
