"""The PR comment as a maintainer reads it on GitHub: the changes first, then where their charts are,
then the folded lists (review: the charts of a regression were the comment's last line, below the
folded Unchanged rows)."""

from __future__ import annotations

import synth
from sweepgate.results import compare as C
from sweepgate.results import record as R
from sweepgate.results import render

CHARTS = [("DeepSeek-R1-0528_fp8_b300_fixed-seq-len_1024x1024", True)]


def comment(**kw) -> list[str]:
    comp = C.compare_records(synth.pr_run({(synth.KEYS[0], 16): {R.OUTPUT_TPUT_PER_GPU: 0.85}}), synth.history())
    return render.markdown(comp, charts=CHARTS, charts_folder="plots", **kw).splitlines()


def where(lines: list[str], start: str) -> int:
    return next(i for i, line in enumerate(lines) if line.startswith(start))


def test_the_charts_follow_the_changes_and_come_before_the_folds():
    lines = comment()
    charts = where(lines, "1 chart (output throughput per GPU")
    assert where(lines, "#### Regressed (1)") < charts < where(lines, "<details>")
    assert lines[charts - 1] == "" and lines[charts + 1] == ""  # a paragraph of its own, not a table row
    assert where(lines, "<summary>Unchanged") > charts


def test_a_comment_cut_to_its_limit_keeps_the_charts_after_the_changes():
    whole = "\n".join(comment())
    lines = comment(limit=len(whole.encode()) // 2)
    assert not any(line.startswith("<summary>Unchanged") for line in lines)
    assert where(lines, "#### Regressed (1)") < where(lines, "1 chart (output throughput per GPU")


def test_the_not_judged_fold_says_what_it_holds_in_the_headline_s_words():
    """Review: the headline said "6 new" and the fold holding them said "Not judged (6)"; a point main
    never measured and one with too few main runs read alike until the fold was opened."""
    new_key, thin_key = "dsr1-fp8-b300-sglang", "dsr1-fp8-b300-trt"
    pr = synth.pr_run(keys=synth.KEYS[:1]) + synth.pr_run(keys=(new_key,), concs=(8,))
    pr += synth.pr_run(keys=(thin_key,), concs=(8,))
    base = synth.history(keys=synth.KEYS[:1]) + synth.history(runs=2, keys=(thin_key,), concs=(8,))
    lines = render.markdown(C.compare_records(pr, base)).splitlines()
    assert lines[1].endswith(", 6 insufficient-data, 6 new")
    assert "<summary>Not judged (6 insufficient-data, 6 new)</summary>" in lines
    assert any(line.startswith("<summary>Unchanged (30)") for line in lines)  # one kind: its count alone
