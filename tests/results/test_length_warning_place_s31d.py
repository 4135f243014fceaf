"""s31d: a warning about a run's output length stands at the output's own key of that length.

A run whose responses averaged far more (GenAI-Perf 24.12's miscounted streamed tokens) or far less (a
server over its context limit) than the output length it fixed was warned of as ``osl: ...``, a name no
client writes, so the warning stood where the file starts (``:1:1``) rather than at the key that fixed
the length; a refusal of the same length against its row (``check_agreement``) already stood at that key
and named it. Both warnings now name the output's own key and stand there."""

from __future__ import annotations

from helpers import ROOT, SAMPLES, run_cli

REAL = ROOT / "tests" / "data" / "results-real"


def _place(text: str, key: str, start: int = 0) -> str:
    """line:col of the first '"key":' in text from ``start``."""
    at = text.index(f'"{key}":', start)
    return f"{text.count(chr(10), 0, at) + 1}:{at - (text.rfind(chr(10), 0, at) + 1) + 1}"


def _warnings(capsys, tmp_path, path) -> list[str]:
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(path))
    assert rc == 0 and "ingested 1 results (1 new)" in out, (out, err)
    return err.strip().splitlines()


def test_a_genai_perf_run_that_miscounted_its_tokens_is_warned_of_at_its_output_tokens_mean(capsys, tmp_path):
    path = REAL / "aiperf" / "genaiperf24.12_trtllm_kserve_streaming_c100_issue298.json"
    (line,) = [w for w in _warnings(capsys, tmp_path, path) if "averaged" in w]
    place = _place(path.read_text(encoding="utf-8"), "output_tokens_mean")
    assert place == "105:5"
    assert line.startswith(f"{path}:{place}: warning: input_config.output_tokens_mean: the run fixed 500 output "
                           "tokens per request but its responses averaged 2565.9;"), line


def test_an_sglang_run_whose_outputs_stopped_short_is_warned_of_at_its_random_output_len(capsys, tmp_path):
    path = SAMPLES / "sglang" / "sglang0.5.9_glm5_over_context_short_outputs_c1_trimmed.jsonl"
    (line,) = [w for w in _warnings(capsys, tmp_path, path) if "averaged" in w]
    assert line.startswith(f"{path}:{_place(path.read_text(encoding='utf-8'), 'random_output_len')}: warning: "
                           "random_output_len: the output asked for 1024 output tokens per request but its 100 "
                           "completed requests averaged 31.7;"), line
