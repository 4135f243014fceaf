"""A line in the sglang.benchmark package's token names that lacks one of them is refused for what it lacks (s37n).

A summary with ``total_input`` and ``total_output`` but no ``total_output_retokenized`` is no bench_serving line
of any layout read here (the package and 0.2 write the three together), and it is refused as another script's
output; the refusal said it was "without total_input_tokens or total_output_tokens (every bench_serving line
holds ... or the sglang.benchmark package's and 0.2's total_input and total_output)", which it holds. It now
names what the line holds and what it lacks.
"""

from __future__ import annotations

from helpers import refused_alone
from test_sglang_layouts_s37g import _package_line, _write

HINT_OTHER = "ingest sglang.bench_serving's --output-file JSONL, a serving run at a concurrency"
OTHER = "another script's output, its figures no bench_serving run's"
TOGETHER = ("(the sglang.benchmark package and bench_serving 0.2 write total_input, total_output and "
            "total_output_retokenized together, every other bench_serving total_input_tokens and total_output_tokens)")


def _refusal(capsys, tmp_path, *dropped: str) -> list[str]:
    line = _package_line()
    for key in dropped:
        del line[key]
    src = _write(tmp_path, "partial.jsonl", line)
    return refused_alone(capsys, tmp_path, src)[1]


def test_a_line_with_the_package_s_totals_but_not_its_retokenized_one_is_refused_naming_that(tmp_path, capsys):
    lines = _refusal(capsys, tmp_path, "total_output_retokenized")
    assert lines == [f"{tmp_path / 'in' / 'partial.jsonl'}:1:1: format: a serving summary in SGLang bench_serving's "
                     f"key names with total_input and total_output but without total_output_retokenized {TOGETHER}: "
                     f"{OTHER}; {HINT_OTHER}"]


def test_a_line_with_one_of_the_package_s_totals_names_the_two_it_lacks(tmp_path, capsys):
    lines = _refusal(capsys, tmp_path, "total_output", "total_output_retokenized")
    assert lines == [f"{tmp_path / 'in' / 'partial.jsonl'}:1:1: format: a serving summary in SGLang bench_serving's "
                     f"key names with total_input but without total_output or total_output_retokenized {TOGETHER}: "
                     f"{OTHER}; {HINT_OTHER}"]
