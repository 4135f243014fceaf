"""The PR comment says exactly what happened (comment23): every count names its unit and the headline
and the section headings count alike; a recipe change is shown wherever its point is listed."""

from __future__ import annotations

import synth
from helpers import md_rows
from sweepgate.results import compare as C
from sweepgate.results import record as R
from sweepgate.results import render

KEY = synth.KEYS[0]
IMAGE = "vllm/vllm-openai:v0.12.0"  # main ran v0.11.0: every point of the PR changed its recipe


def fold(md: str, title: str) -> str:
    """The folded section ``title``'s table."""
    return md.split(f"<summary>{title}")[1].split("</details>")[0]


def test_an_unchanged_point_whose_recipe_changed_says_what_changed():
    """Review: a PR bumping the image had its regressed point's row say "image v0.11.0 → v0.12.0", and
    the Unchanged fold, its points measured with the same new image, had no recipe column at all, as
    if their recipe were main's. Every fold names a point's recipe change, in the point's first row."""
    pr = synth.pr_run({(KEY, 16): {R.OUTPUT_TPUT_PER_GPU: 0.8}}, keys=(KEY,), concs=(8, 16), image=IMAGE)
    md = render.markdown(C.compare_records(pr, synth.history(keys=(KEY,), concs=(8, 16))))
    unchanged = fold(md, "Unchanged")
    assert "| recipe change |" in unchanged, unchanged
    rows = [line for line in unchanged.splitlines() if line.startswith(f"| {KEY} ")]
    assert len(rows) == 1 and rows[0].endswith("| image v0.11.0 → v0.12.0 |"), rows
    assert [r[1] for r in md_rows(unchanged)] == list(R.COMPARED_METRICS)


def test_the_terminal_table_names_the_recipe_change_on_every_row_of_its_point():
    """The terminal repeats the point on each row; its recipe change is repeated alike, unchanged rows too."""
    pr = synth.pr_run({(KEY, 16): {R.OUTPUT_TPUT_PER_GPU: 0.8}}, keys=(KEY,), concs=(8, 16), image=IMAGE)
    text = render.table_text(C.compare_records(pr, synth.history(keys=(KEY,), concs=(8, 16))))
    rows = [line for line in text.splitlines() if line.startswith(KEY)]
    assert len(rows) == 12 and all(line.rstrip().endswith("image v0.11.0 → v0.12.0") for line in rows), text
