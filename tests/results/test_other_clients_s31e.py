"""s31e hunt: more saved reports of serving clients sweepgate does not read, refused by name, and where.

Each was refused as "unknown JSON output", a line that names neither the file's client nor that no
client of that name is read. The files are real (tests/data/results-real/SOURCES.tsv) but for
inference-perf's per-request log, which is written below as the client's own writer lays it out."""

from __future__ import annotations

from helpers import ROOT, refused_alone

REAL = ROOT / "tests" / "data" / "results-real"
# openshift-psap/llm-load-test output/output.json (Dec 2023): one line, its results and config
LLM_LOAD_TEST = REAL / "other" / "llm-load-test_output_llama2_c20_1of_results_trimmed.json"


def test_a_refusal_of_what_a_file_is_stands_at_its_start_not_at_a_key_named_format(capsys, tmp_path):
    """llm-load-test keeps its config in its output, and the config names the output's format
    (config.output.format): a refusal opening "format: ..." was placed at that key, column 1156 of the
    one-line file, as if the key were what is wrong."""
    src, lines = refused_alone(capsys, tmp_path, LLM_LOAD_TEST)
    assert len(lines) == 1 and lines[0].startswith(f"{src}:1:1: format: "), lines
    assert '"format": "json"' in LLM_LOAD_TEST.read_text(encoding="utf-8")
