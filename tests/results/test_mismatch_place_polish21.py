"""A refusal of an output whose concurrency or lengths contradict its row stands at the output's
own key and names it (new-user walk-through, polish 21: it stood at 1:1 as 'conc')."""

from __future__ import annotations

import json

import pytest

from helpers import ROOT, ROW, SAMPLES, run_cli, vllm_output

AIPERF = SAMPLES / "aiperf" / "aiperf_kimik2.7_fp4_mi355x_tp4_conc1.json"


def _ingest(capsys, tmp_path, output, row: dict) -> str:
    (tmp_path / "row.json").write_text(json.dumps(row), encoding="utf-8")
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", "--row",
                           str(tmp_path / "row.json"), "--run-id", "1", "--ref", "refs/heads/main", str(output))
    assert rc == 1 and "ingested 0 results" in out and err.count("\n") == 1, (out, err)
    assert not (tmp_path / "r.db").exists()
    return err.strip()


def _place(text: str, key: str) -> str:
    """line:col of the only '"key":' in text."""
    at = text.index(f'"{key}":')
    assert text.count(f'"{key}":') == 1
    return f"{text.count(chr(10), 0, at) + 1}:{at - (text.rfind(chr(10), 0, at) + 1) + 1}"


def test_an_aiperf_export_s_concurrency_is_refused_at_its_key_in_input_config(capsys, tmp_path):
    text = AIPERF.read_text(encoding="utf-8")
    err = _ingest(capsys, tmp_path, AIPERF, {**ROW, "conc": 4})
    assert _place(text, "concurrency") == "246:7"
    assert err == (f"{AIPERF}:246:7: input_config.loadgen.concurrency: the output ran at concurrency 1 but its "
                   "job's row (--row) says conc 4; pass the matrix row this output was run with as --row"), err


def test_an_aiperf_export_wrapped_by_a_script_is_refused_at_its_key_too(capsys, tmp_path):
    doc = json.loads(AIPERF.read_text(encoding="utf-8"))
    out = tmp_path / "agentic.json"
    out.write_text(json.dumps({"scenario": "agentic", "aiperf": doc}, indent=2), encoding="utf-8")
    err = _ingest(capsys, tmp_path, out, {**ROW, "conc": 4})
    assert err.startswith(f"{out}:{_place(out.read_text(), 'concurrency')}: input_config.loadgen.concurrency: "), err


def test_a_vllm_output_s_concurrency_and_an_aiperf_length_are_refused_at_their_keys(capsys, tmp_path):
    out = tmp_path / "v.json"
    out.write_text(json.dumps(vllm_output(conc=32), indent=1), encoding="utf-8")
    err = _ingest(capsys, tmp_path, out, {**ROW, "conc": 4})
    assert err.startswith(f"{out}:{_place(out.read_text(), 'max_concurrency')}: max_concurrency: the output ran at "
                          "concurrency 32 but its job's row (--row) says conc 4;"), err
    genai = SAMPLES / "aiperf" / "genaiperf_nim-llama3-8b_trtllm_isl200_osl50_conc10.json"
    err = _ingest(capsys, tmp_path, genai, {**ROW, "conc": 10, "isl": 200, "osl": 1024})
    assert err.startswith(f"{genai}:{_place(genai.read_text(), 'output_tokens_mean')}: "
                          "input_config.output_tokens_mean: the output used 50 output tokens but its job's row (--row) "
                          "says osl 1024;"), err


def test_a_model_warning_stands_at_the_output_s_model_key(capsys, tmp_path):
    out = tmp_path / "m.json"
    out.write_text(json.dumps(vllm_output(model_id="Qwen/Qwen3-32B"), indent=1), encoding="utf-8")
    (tmp_path / "row.json").write_text(json.dumps(ROW), encoding="utf-8")
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", "--row",
                         str(tmp_path / "row.json"), "--run-id", "1", "--ref", "refs/heads/main", str(out))
    assert rc == 0 and err.startswith(f"{out}:{_place(out.read_text(), 'model_id')}: warning: model_id: the output "
                                      f"benchmarked Qwen/Qwen3-32B but its job's row (--row) says model {ROW['model']}"), err


def test_an_aiperf_phase_s_concurrency_is_refused_at_the_measured_phase_not_its_warmup(capsys, tmp_path):
    """AIPerf 0.10+ keeps the load in ``phases``: a warmup phase (excluded from results) before the
    profiling one has a concurrency of its own; the refusal stood at the warmup's."""
    out = ROOT / "tests/data/results-real/aiperf/aiperf0.10_qwen3.6-nvfp4_rtx5090_agent_c16.json"
    text = out.read_text(encoding="utf-8")
    err = _ingest(capsys, tmp_path, out, {**ROW, "conc": 4})
    profiling = text.index('"concurrency":', text.index('"name": "profiling"'))
    line, col = text.count("\n", 0, profiling) + 1, profiling - text.rfind("\n", 0, profiling)
    assert err.startswith(f"{out}:{line}:{col}: input_config.phases[1].concurrency: the output ran at concurrency 16 "
                          "but its job's row (--row) says conc 4;"), err


def test_a_dotted_key_with_an_index_stands_in_that_element_of_the_array():
    from sweepgate.core.jsontext import key_place

    text = '{"p": [\n {"c": 1, "s": "[,]"},\n {"x": [1, 2], "c": 2},\n {"c": 3}\n]}'
    assert key_place(text, "p[0].c") == (2, 3)
    assert key_place(text, "p[1].c") == (3, 16)
    assert key_place(text, "p[2].c") == (4, 3)
    assert key_place(text, "p[3].c") == (1, 1)  # no such element: where the document starts


def _nth(text: str, key: str, n: int) -> str:
    """line:col of the nth '"key":' in text."""
    at = -1
    for _ in range(n):
        at = text.index(f'"{key}":', at + 1)
    return f"{text.count(chr(10), 0, at) + 1}:{at - (text.rfind(chr(10), 0, at) + 1) + 1}"


@pytest.mark.parametrize("indent", [2, None])
def test_a_multi_node_job_s_list_of_outputs_is_refused_at_the_key_of_the_output_at_fault(capsys, tmp_path, indent):
    """A multi-node job writes one output per concurrency in a JSON list, whose outputs are numbered
    from 1 as JSONL lines are: a refusal of the second stood at "path:2", line 2 of the file (the first
    output's second key), or a line a one-line list does not have."""
    out = tmp_path / "multi.json"
    out.write_text(json.dumps([vllm_output(conc=4), vllm_output(conc=16)], indent=indent), encoding="utf-8")
    err = _ingest(capsys, tmp_path, out, {**ROW, "conc": [4, 8]})
    assert err.startswith(f"{out}:{_nth(out.read_text(), 'max_concurrency', 2)}: max_concurrency: the output ran at "
                          "concurrency 16 but its job's row (--row) says conc [4, 8];"), err
    out.write_text(json.dumps([vllm_output(conc=4), dict(vllm_output(conc=8), completed="many")], indent=indent),
                   encoding="utf-8")
    err = _ingest(capsys, tmp_path, out, {**ROW, "conc": [4, 8]})
    assert err.startswith(f"{out}:{_nth(out.read_text(), 'completed', 2)}: completed: expected a number"), err


def test_a_key_missing_from_the_output_at_fault_is_not_looked_for_in_the_next_one():
    from sweepgate.results import jsonio

    text = '[{"a": 1},\n {"b": 2},\n {"a": 3}]'
    assert jsonio._output_place(text, 2, "a") == (2, 2)  # the second output's start, not the third's "a"
    assert jsonio._output_place(text, 3, "a") == (3, 3)
    assert jsonio._output_place(text, 4, "a") is None and jsonio._output_place("[[1]]", 1, None) is None
