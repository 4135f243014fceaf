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
    assert [r[1] for r in md_rows(unchanged)] == list(synth.PLAIN_METRICS)


def test_the_terminal_table_names_the_recipe_change_on_every_row_of_its_point():
    """The terminal repeats the point on each row; its recipe change is repeated alike, unchanged rows too."""
    pr = synth.pr_run({(KEY, 16): {R.OUTPUT_TPUT_PER_GPU: 0.8}}, keys=(KEY,), concs=(8, 16), image=IMAGE)
    text = render.table_text(C.compare_records(pr, synth.history(keys=(KEY,), concs=(8, 16))))
    rows = [line for line in text.splitlines() if line.startswith(KEY)]
    assert len(rows) == 12 and all(line.rstrip().endswith("image v0.11.0 → v0.12.0") for line in rows), text


NEW_KEY, THIN_KEY = "dsr1-fp8-b300-vllm-lmcache", "dsr1-fp8-b300-trt"


def mixed_run() -> C.Comparison:
    """conc 16 regressed in two metrics, conc 8 improved in one; a config main never ran (5 new points) and
    one main ran twice (too few runs to judge)."""
    pr = synth.pr_run({(KEY, 16): {R.OUTPUT_TPUT_PER_GPU: 0.85, R.INTERACTIVITY: 0.8},
                       (KEY, 8): {R.OUTPUT_TPUT_PER_GPU: 1.2}}, keys=(KEY,))
    pr += synth.pr_run(keys=(NEW_KEY,), seed=3) + synth.pr_run(keys=(THIN_KEY,), concs=(8,))
    base = synth.history(keys=(KEY,)) + synth.history(runs=2, keys=(THIN_KEY,), concs=(8,))
    return C.compare_records(pr, base)


COUNTS = ("1 point regressed (2 metrics), 1 point improved (1 metric), 3 points unchanged, "
          "1 point insufficient-data (6 metrics), 5 points new (30 metrics)")


def test_the_headline_counts_points_and_names_its_metrics_as_the_sections_do():
    """Review: the headline said "2 regressed" above "#### Regressed (2)", whose table listed one point,
    and "#### New (30)" sat over "5 points no main run has measured". Each count names its unit, and
    the headline and the headings count alike."""
    lines = render.markdown(mixed_run()).splitlines()
    assert lines[1] == f"### sweepgate results: run pr-7 against main (last 5 runs; 2\u20135 found): {COUNTS}"
    headings = [line for line in lines if line.startswith(("#### ", "<summary>"))]
    assert headings == ["#### Regressed (1 point, 2 metrics)", "#### Improved (1 point, 1 metric)",
                        "#### New (5 points)",
                        "<summary>Not judged: 1 point insufficient-data (6 metrics); 5 new points listed above</summary>",
                        "<summary>Unchanged: 3 points, 18 metrics; 9 unchanged metrics of 2 other points listed "
                        "above with them</summary>"], headings
    new = lines.index("#### New (5 points)")
    assert lines[new + 2].startswith("5 points no main run has measured")


def test_the_terminal_summary_names_its_units():
    text = render.table_text(mixed_run()).splitlines()
    assert text[-1] == f"run pr-7 against main (last 5 runs; 2\u20135 found): {COUNTS}"
    assert not any("each by its worst verdict" in line for line in text)  # the headline counts each point once (s41o)


def test_a_comment_cut_to_its_limit_counts_a_section_it_cannot_list_in_points():
    comp = mixed_run()
    whole = render.markdown(comp)
    lines = render.markdown(comp, limit=len(whole.encode()) // 2).splitlines()
    assert "Not judged: 1 point insufficient-data (6 metrics) (too many to list here; see `--json`)." in lines
    assert lines[1].endswith(COUNTS)


def comment_of_store(tmp_path, monkeypatch, base: list[dict], pr: list[dict], *extra: str) -> list[str]:
    """The real command's comment file (charts into ``p``), outside a workflow run."""
    from sweepgate import cli
    from sweepgate.results import store

    monkeypatch.chdir(tmp_path)
    for name in ("GITHUB_ACTIONS", "GITHUB_RUN_ID", "GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "SWEEPGATE_DB"):
        monkeypatch.delenv(name, raising=False)
    url = f"sqlite:///{tmp_path / 'r.db'}"
    with store.open_store(url) as st:
        st.add(base + pr)
    assert cli.main(["results", "compare", "--db", url, "--run", "pr-7", "--plots", "p", "--comment-file", "c.md",
                     *extra]) == 0
    return (tmp_path / "c.md").read_text().splitlines()


def test_a_chart_of_points_not_judged_is_not_folded_as_without_a_change(tmp_path, monkeypatch):
    """Review: a chart whose one point fell 20 % against only two main runs (insufficient-data, listed
    open as changed beyond its threshold) was folded among the "charts without a change". A chart is
    "without a change" only when every point on it was judged unchanged; this one is in a fold of its own."""
    base = synth.history(keys=(KEY,), concs=(8,)) + synth.history(runs=2, keys=(KEY,), concs=(8,), isl=2048)
    pr = synth.pr_run(keys=(KEY,), concs=(8,)) + synth.pr_run({(KEY, 8): {R.OUTPUT_TPUT_PER_GPU: 0.8}},
                                                              keys=(KEY,), concs=(8,), isl=2048)
    lines = comment_of_store(tmp_path, monkeypatch, base, pr)
    stem = "DeepSeek-R1-0528_fp8_b300_fixed-seq-len_{}x1024"
    assert "#### Not judged, changed beyond the threshold (1 point, 1 metric)" in lines
    assert lines[lines.index("<details><summary>1 chart with points not judged</summary>") + 2] == f"`{stem.format(2048)}`"
    assert lines[lines.index("<details><summary>1 chart without a change</summary>") + 2] == f"`{stem.format(1024)}`"


def test_the_charts_paragraph_folds_not_judged_charts_apart():
    lines = render.charts_paragraph([("a", True, False, False), ("b", False, True, True), ("c", False, False, True),
                                     ("d", False, False, False)], "plots")
    assert lines[0].endswith("with a change: `a`; with new points: `b`")
    assert lines[2:5] == ["<details><summary>1 chart with points not judged</summary>", "", "`c`"]
    assert lines[8:11] == ["<details><summary>1 chart without a change</summary>", "", "`d`"]


def test_the_new_section_speaks_of_one_point_in_the_singular():
    new = [synth.make("pr-7", "dsr1-fp8-b300-vllm-new", c, synth.curve(c), ref="refs/pull/7/merge", day=28)
           for c in (8, 16)]
    for added, (words, whose) in ((new[:1], ("1 point", "its")), (new, ("2 points", "their"))):
        md = render.markdown(C.compare_records(synth.pr_run(keys=(KEY,)) + added, synth.history(keys=(KEY,))))
        assert (f"{words} no main run has measured (a config key, recipe, sequence length or concurrency this run "
                f"adds): {whose} figures, not judged.") in md, md
