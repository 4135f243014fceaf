"""JSON text is split into lines at newlines only. Python's str.splitlines also splits at U+2028,
U+2029 and U+0085, which a JSON string may hold unescaped: lm-eval writes
its samples log with ensure_ascii=False, so a model's answer holding U+2028 cut a sample in two and
ingest refused the whole folder ('not valid JSON: Extra data' at the wrong line)."""

from __future__ import annotations

import json
import shutil

import pytest

import synth
from helpers import SAMPLES, no_ref_said, run_cli
from sweepgate.core.errors import SweepgateError
from sweepgate.results import source

SEPARATORS = ["\u2028", "\u2029", "\u0085"]  # what JSON leaves unescaped (control characters it escapes)


@pytest.mark.parametrize("sep", SEPARATORS, ids=[f"U+{ord(s):04X}" for s in SEPARATORS])
def test_a_samples_log_holding_a_separator_is_passed_over_beside_its_results(tmp_path, capsys, sep):
    shutil.copy(SAMPLES / "lm_eval" / "lmeval0.4.8_gsm8k_granite_limit1_smoketest.json", tmp_path / "results_1.json")
    with open(tmp_path / "samples_gsm8k_1.jsonl", "w", encoding="utf-8") as f:
        for i in range(3):
            f.write(json.dumps({"doc_id": i, "doc": {"q": "x"}, "resps": [[f"first{sep}second"]],
                                "filtered_resps": ["7"]}, ensure_ascii=False) + "\n")
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(tmp_path))
    assert rc == 0 and no_ref_said(err) == "", err
    assert "ingested 1 results (1 new)" in out and "lm-eval samples logs" in out, out


@pytest.mark.parametrize("sep", SEPARATORS, ids=[f"U+{ord(s):04X}" for s in SEPARATORS])
def test_a_jsonl_record_holding_a_separator_is_one_line(tmp_path, sep):
    first, second = synth.pr_run()[:2]
    first["image"] = f"vllm/vllm-openai:v0.11.0{sep}"
    path = tmp_path / "main.jsonl"
    lines = [json.dumps(first, ensure_ascii=False), json.dumps(second)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert [(n, r["image"]) for n, r in source.numbered_records(path)] == [(1, first["image"]), (2, second["image"])]
    path.write_text("\n".join([*lines, "{broken"]) + "\n", encoding="utf-8")
    with pytest.raises(SweepgateError) as info:
        source.numbered_records(path)
    assert info.value.diagnostics[0].line == 3  # the broken line's own number
