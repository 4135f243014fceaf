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
    assert where(lines, "#### Regressed (1 point, 1 metric)") < charts < where(lines, "<details>")
    assert lines[charts - 1] == "" and lines[charts + 1] == ""  # a paragraph of its own, not a table row
    assert where(lines, "<summary>Unchanged") > charts


def test_a_comment_cut_to_its_limit_keeps_the_charts_after_the_changes():
    whole = "\n".join(comment())
    lines = comment(limit=len(whole.encode()) // 2)
    assert not any(line.startswith("<summary>Unchanged") for line in lines)
    assert where(lines, "#### Regressed (1 point, 1 metric)") < where(lines, "1 chart (output throughput per GPU")


def test_the_not_judged_fold_says_what_it_holds_in_the_headline_s_words():
    """Review: the headline said "6 new" and the fold holding them said "Not judged (6)"; a point main
    never measured and one with too few main runs read alike until the fold was opened."""
    new_key, thin_key = "dsr1-fp8-b300-sglang", "dsr1-fp8-b300-trt"
    many = tuple(range(1, render.NEW_SHOWN + 2))  # more new points than are listed open: they stay folded
    pr = synth.pr_run(keys=synth.KEYS[:1]) + synth.pr_run(keys=(new_key,), concs=many)
    pr += synth.pr_run(keys=(thin_key,), concs=(8,))
    base = synth.history(keys=synth.KEYS[:1]) + synth.history(runs=2, keys=(thin_key,), concs=(8,))
    lines = render.markdown(C.compare_records(pr, base)).splitlines()
    assert lines[1].endswith(f", 1 point insufficient-data (6 metrics), {len(many)} points new ({6 * len(many)} metrics)")
    assert f"<summary>Not judged: 1 point insufficient-data (6 metrics), {len(many)} points new ({6 * len(many)} metrics)</summary>" in lines
    assert not any(line.startswith("#### New") for line in lines)
    assert any(line == "<summary>Unchanged: 5 points, 30 metrics</summary>" for line in lines)  # one kind: its count alone


NEW_KEY, THIN_KEY = "dsr1-fp8-b300-vllm-lmcache", "dsr1-fp8-b300-trt"


def new_recipe_comment(**kw) -> tuple[list[dict], list[str]]:
    """A PR that regresses a point of a config main runs, adds a config (5 concurrencies main never
    ran), and runs one main has only 2 runs of."""
    pr = synth.pr_run({(synth.KEYS[0], 16): {R.OUTPUT_TPUT_PER_GPU: 0.85}}, keys=synth.KEYS[:1])
    added = synth.pr_run(keys=(NEW_KEY,), seed=3)
    pr += added + synth.pr_run(keys=(THIN_KEY,), concs=(8,))
    base = synth.history(keys=synth.KEYS[:1]) + synth.history(runs=2, keys=(THIN_KEY,), concs=(8,))
    comp = C.compare_records(pr, base)
    return added, render.markdown(comp, charts=CHARTS, charts_folder="plots", **kw).splitlines()


def test_a_new_recipe_s_points_are_listed_open_with_their_figures():
    """Review: a PR adding a recipe (an LMCache arm) had all its points "new", in the collapsed Not
    judged fold, though they are what the maintainer wants to see. Up to NEW_SHOWN new points are
    listed open, one row each with its measured figures, after the changes and before the charts;
    the fold keeps the insufficient-data rows and says where the new ones went."""
    added, lines = new_recipe_comment()
    assert lines[1].endswith(", 1 point insufficient-data (6 metrics), 5 points new (30 metrics)")  # as the sections count
    new = where(lines, "#### New (5 points)")
    assert where(lines, "#### Regressed (1 point, 1 metric)") < new < where(lines, "1 chart (output throughput per GPU")
    assert lines[new + 2].startswith("5 points no main run has measured")
    assert lines[new + 4] == ("| point | tok/s/GPU | tok/s/user | TTFT p50 ms | TPOT p50 ms | E2EL p50 ms "
                              "| success |")
    rows = lines[new + 6:new + 11]
    assert lines[new + 11] == ""
    for rec, row in zip(added, rows):
        m = rec[R.METRICS]
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert cells == [f"{NEW_KEY} b300 fixed-seq-len 1024/1024 conc {rec[R.CONC]}",
                         *(render.fmt_value(m[k], k) for k in synth.PLAIN_METRICS)], row
    assert "<summary>Not judged: 1 point insufficient-data (6 metrics); 5 new points listed above</summary>" in lines
    fold = lines[where(lines, "<summary>Not judged"):]
    fold = fold[:fold.index("</details>")]
    assert not any(NEW_KEY in line for line in fold) and sum(THIN_KEY in line for line in fold) >= 1


def test_a_comment_over_its_limit_keeps_the_new_points_after_the_changes():
    """GitHub's comment size limit: the folds go first, then rows of every open section, the new
    points' too, which say how many more there are; the comment stays within its limit."""
    whole = "\n".join(new_recipe_comment()[1])
    for limit in (len(whole.encode()) * 2 // 3, 1500):
        lines = new_recipe_comment(limit=limit)[1]
        assert len("\n".join(lines).encode()) <= limit
        assert not any(line.startswith("<summary>") for line in lines)  # no fold left
        assert "Not judged: 1 point insufficient-data (6 metrics) (too many to list here; see `--json`)." in lines  # the new rows not among them
        assert where(lines, "#### Regressed (1 point, 1 metric)") < where(lines, "#### New (5 points)")
    listed = [line for line in lines if line.startswith(f"| {NEW_KEY} ")]
    assert len(listed) < 5 and f"{5 - len(listed)} more new point{'s' if len(listed) < 4 else ''}: see `--json`." in lines


def test_a_point_and_its_recipe_change_are_named_once_in_its_first_row():
    """Review: each row of a Regressed table repeated the point's ~60-character name (6 rows for one
    point), and its recipe change with it. The first row of a point names both; its other rows, their
    cells empty, read as its (helpers.md_rows reads them so)."""
    from helpers import md_rows

    key = synth.KEYS[0]
    pr = synth.pr_run({(key, 16): {R.OUTPUT_TPUT_PER_GPU: 0.8}, (key, 8): {R.OUTPUT_TPUT_PER_GPU: 0.85}},
                      keys=(key,), concs=(8, 16), image="vllm/vllm-openai:v0.12.0")
    md = render.markdown(C.compare_records(pr, synth.history(keys=(key,), concs=(8, 16))))
    table = md.split("#### Regressed (2 points, 2 metrics)")[1].split("\n\n")[1].splitlines()
    assert [line.split(" | ")[0] for line in table[2:]] == (
        [f"| {key} b300 fixed-seq-len 1024/1024 conc 16"] + ["| "] * 5 + [f"| {key} b300 fixed-seq-len 1024/1024 conc 8"]
        + ["| "] * 5)
    assert [line.endswith("| image v0.11.0 → v0.12.0 |") for line in table[2:]] == ([True] + [False] * 5) * 2
    rows = md_rows("\n".join(table))
    assert [(r[0].rsplit(" ", 1)[1], r[1]) for r in rows] == [(c, m) for c in ("16", "8") for m in synth.PLAIN_METRICS]


def test_the_chart_of_a_new_recipe_is_named_not_folded(tmp_path, monkeypatch):
    """Rendering review: a PR adding a config at another isl had its chart (only new points, no
    change) in the folded "charts without a change", though it is the chart of what the PR adds.
    The real command: it is named after the charts with a change, and only the chart without either
    stays folded."""
    from sweepgate import cli
    from sweepgate.results import store

    monkeypatch.chdir(tmp_path)
    for name in ("GITHUB_ACTIONS", "GITHUB_RUN_ID", "GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "SWEEPGATE_DB"):
        monkeypatch.delenv(name, raising=False)
    url = f"sqlite:///{tmp_path / 'r.db'}"
    with store.open_store(url) as st:
        st.add(synth.history(keys=synth.KEYS[:1], concs=(8, 16)) + synth.history(keys=synth.KEYS[:1], concs=(8,), isl=2048))
        st.add(synth.pr_run({(synth.KEYS[0], 16): {R.OUTPUT_TPUT_PER_GPU: 0.8}}, keys=synth.KEYS[:1], concs=(8, 16))
               + synth.pr_run(keys=synth.KEYS[:1], concs=(8,), isl=2048)
               + synth.pr_run(keys=(NEW_KEY,), concs=(8, 16), isl=8192))
    assert cli.main(["results", "compare", "--db", url, "--run", "pr-7", "--plots", "p", "--comment-file", "c.md"]) == 0
    lines = (tmp_path / "c.md").read_text().splitlines()
    stem = "DeepSeek-R1-0528_fp8_b300_fixed-seq-len_{}x1024"
    assert lines[where(lines, "3 charts (")].endswith(
        f"were written to `p`, {render.LOCAL}; with a change: `{stem.format(1024)}`; with new points: `{stem.format(8192)}`")
    assert lines[where(lines, "<details><summary>1 chart without a change")+2] == f"`{stem.format(2048)}`"
