"""s42c: a recipe the PR adds (a config key main never ran) got a chart of its points alone, each ringed "new",
with nothing of main's to read it against, and nothing saying why. Where main measured a recipe of the same model
on the same hardware, its newest figures of the nearest such recipe (nearest in the fields the charts group by:
precision, scenario, sequence lengths; then in its recipe) are drawn thin, dotted and grey, and the legend names
them as context, not compared; where main measured none, the chart's title says there is no baseline to compare.
Through `results compare --plots`, from a store and from --baseline-jsonl, read back from the SVGs."""

from __future__ import annotations

import html
import json
import re

import pytest

import synth
from sweepgate import cli
from sweepgate.results import record as R
from sweepgate.results import store

NEW = "dsr1-fp8-b300-vllm-mtp"  # the recipe the PR adds
MAIN_KEY, FAR_KEY = synth.KEYS  # main's recipe at the PR's sequence lengths; another at 8192/1024 only
B300 = "DeepSeek-R1-0528_fp8_b300_fixed-seq-len_1024x1024"
H200 = "DeepSeek-R1-0528_fp8_h200_fixed-seq-len_1024x1024"


def _records() -> tuple[list[dict], list[dict]]:
    """(main's runs, the PR run): main ran MAIN_KEY at 1024/1024 and FAR_KEY at 8192/1024 on b300, nothing on h200;
    the PR ran NEW on b300 and on h200, 25 % faster than main's MAIN_KEY."""
    main = synth.history(keys=(MAIN_KEY,)) + synth.history(keys=(FAR_KEY,), isl=8192, seed=3)
    faster = {(NEW, c): {R.OUTPUT_TPUT_PER_GPU: 1.25} for c in synth.CONCS}
    pr = synth.pr_run(faster, keys=(NEW,)) + synth.pr_run(faster, keys=(NEW,), hardware="h200")
    return main, pr


def _svg_texts(path) -> list[str]:
    return [html.unescape(t) for t in re.findall(r"<text[^>]*>([^<]*)</text>", path.read_text(encoding="utf-8"))]


def _context_points(path) -> int:
    """How many points the chart's context line passes through (0: no context drawn)."""
    found = re.search(r'<g id="context-recipe">\s*<path d="([^"]*)"', path.read_text(encoding="utf-8"))
    return 0 if found is None else len(re.findall(r"[ML]", found.group(1)))


@pytest.mark.parametrize("source", ["store", "baseline-jsonl", "postgresql"])
def test_a_new_recipe_s_chart_shows_main_s_nearest_recipe_or_says_it_has_no_baseline(env, source, request):
    main, pr = _records()
    url = request.getfixturevalue("pg_url") if source == "postgresql" else f"sqlite:///{env / 'r.db'}"
    with store.open_store(url) as st:
        st.add(pr if source == "baseline-jsonl" else pr + main)
    (env / "main.jsonl").write_text("".join(json.dumps(r) + "\n" for r in main), encoding="utf-8")
    extra = ["--baseline-jsonl", str(env / "main.jsonl")] if source == "baseline-jsonl" else []
    assert cli.main(["results", "compare", "--db", url, "--run", "pr-7", "--plots", str(env / "charts"), *extra]) == 0
    b300, h200 = env / "charts" / f"{B300}.svg", env / "charts" / f"{H200}.svg"
    assert _context_points(b300) == len(synth.CONCS)  # main's MAIN_KEY, its newest figure at each conc
    assert f"context, not compared: main's newest {MAIN_KEY}" in _svg_texts(b300)
    assert not any(t.startswith("no baseline to compare") for t in _svg_texts(b300))
    assert _context_points(h200) == 0
    assert "no baseline to compare: main never ran this model on h200" in _svg_texts(h200)


def test_only_another_sequence_length_is_named_as_such(env):
    """Main's only recipe of the model on b300 ran at 8192/1024: it is the context, its sequence lengths named."""
    main, pr = _records()
    url = f"sqlite:///{env / 'r.db'}"
    with store.open_store(url) as st:
        st.add(pr + [r for r in main if r[R.CONFIG_KEY] == FAR_KEY])
    assert cli.main(["results", "compare", "--db", url, "--run", "pr-7", "--plots", str(env / "charts")]) == 0
    b300 = env / "charts" / f"{B300}.svg"
    assert _context_points(b300) == len(synth.CONCS)
    assert f"context, not compared: main's newest {FAR_KEY} · 8192/1024" in _svg_texts(b300)


def test_a_chart_with_a_baseline_gets_no_context_and_no_such_title(env):
    main, _ = _records()
    url = f"sqlite:///{env / 'r.db'}"
    with store.open_store(url) as st:
        st.add(main + synth.pr_run(keys=(MAIN_KEY, NEW)))
    assert cli.main(["results", "compare", "--db", url, "--run", "pr-7", "--plots", str(env / "charts")]) == 0
    (chart,) = (env / "charts").glob("*.svg")
    texts = _svg_texts(chart)
    assert _context_points(chart) == 0 and not any(t.startswith(("context", "no baseline to compare")) for t in texts)
