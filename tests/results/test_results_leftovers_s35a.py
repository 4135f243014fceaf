"""s35a: results leftovers a maintainer would trip over.

- A figure read under a key vLLM misspelt (0.8-0.9's ``"request_goodput:"`` with its colon, spring 2024's
  ``"request_inthroughput"``) was refused at the document's first character, naming the corrected key no file
  holds; the refusal names the key as written and stands at it.

Real outputs (tests/data/results-real) and hand-made variants, ingested through the CLI into SQLite.
"""

from __future__ import annotations

import json

from helpers import ROOT, refused_alone, vllm_output

from sweepgate.results import plausible

REAL = ROOT / "tests" / "data" / "results-real"
VLLM_0_8 = REAL / "vllm" / "vllm0.8_openai_backend_rate10_and_conc2_arrays_trimmed.json"


def _place(text: str, needle: str) -> str:
    """``line:col`` of ``needle`` in ``text``, 1-based."""
    at = text.index(needle)
    return f"{text.count(chr(10), 0, at) + 1}:{at - text.rfind(chr(10), 0, at)}"


def _refused(capsys, tmp_path, text: str, name: str = "out.json") -> str:
    made = tmp_path / "made" / name
    made.parent.mkdir()
    made.write_text(text, encoding="utf-8")
    src, lines = refused_alone(capsys, tmp_path, made)
    (line,) = lines
    return line.replace(str(src), "OUT")


def test_a_refused_goodput_stands_at_the_colon_key_vllm_0_8_wrote(tmp_path, capsys):
    doc = json.loads(VLLM_0_8.read_text(encoding="utf-8"))
    assert "request_goodput:" in doc
    doc["request_goodput:"] = -3.5
    text = json.dumps(doc, indent=1)
    line = _refused(capsys, tmp_path, text)
    assert line.startswith(f'OUT:{_place(text, chr(34) + "request_goodput:" + chr(34))}: request_goodput:: '
                           "negative (-3.5); "), line


def test_a_rate_read_under_request_inthroughput_is_refused_at_that_key(tmp_path, capsys):
    doc = vllm_output(4)
    rate = doc.pop("request_throughput") * 10  # 40 requests in 100 s cannot be 4 req/s
    doc = {**doc, "request_inthroughput": rate}
    text = json.dumps(doc, indent=1)
    line = _refused(capsys, tmp_path, text)
    assert line == (f'OUT:{_place(text, chr(34) + "request_inthroughput" + chr(34))}: request_inthroughput: 4 req/s '
                    "for 100 s (duration) is 400 requests, but only 40 completed or failed; " + plausible.CORRUPT)
