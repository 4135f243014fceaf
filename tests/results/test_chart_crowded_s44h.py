"""s44h: a chart of many points, as a new user read it. At 40 points over 5 recipes (a real gpt-oss-120b vLLM sweep,
conc 4 to 512, each recipe and run its figures scaled in a temporary folder) the figure stayed 880x687 pixels however
many points it drew, the concurrency labels' leader lines crossed other recipes' fronts, and in a chart of a recipe
main never ran, main's context points had no concurrency labels. Measured on matplotlib's objects (sizes, pixel
boxes and segments), never on the image's pixels."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from helpers import ROW, SAMPLES, job, run_cli, write_job
from sweepgate.results import charts
from sweepgate.results import compare as C
from sweepgate.results import record as R
from sweepgate.results import store_adapter

REAL = "vllm/ifx_benchserving_gptoss120b_disagg_1p1d_16gpu_1k1k_conc{}.json"
REAL_CONCS = (4, 8, 16, 32, 64, 128, 512)  # the real sweep's
CONCS = (*REAL_CONCS[:-1], 256, 512)  # conc 256: 128's output scaled (``_scaled``)
KEYS = {"gptoss-fp4-mi355x-vllm": (1.0, 1.0), "gptoss-fp4-mi355x-vllm-mtp": (1.12, 0.9),
        "gptoss-fp4-mi355x-sglang": (0.93, 1.04), "gptoss-fp4-mi355x-atom": (1.05, 1.08),
        "gptoss-fp4-mi355x-vllm-lmcache": (0.86, 0.97)}  # recipe -> (throughput, TPOT) factors
NEW_KEY = "gptoss-fp4-mi355x-vllm-new"


def _scaled(conc: int, tput: float, tpot: float) -> dict:
    """The real output of ``conc`` (of the nearest real conc below it, its requests and tokens as many times more,
    its throughput r**0.8 and TPOT r**0.15 times as large), its throughputs ``tput`` times and its TPOT and ITL
    ``tpot`` times as large (its duration to match, so its requests per second still add up)."""
    real = max(c for c in REAL_CONCS if c <= conc)
    doc = json.loads((SAMPLES / REAL.format(real)).read_text(encoding="utf-8"))
    r = conc / real
    tput, tpot = tput * r ** 0.8, tpot * r ** 0.15
    doc["max_concurrency"] = conc
    for name in ("num_prompts", "completed", "total_input_tokens", "total_output_tokens"):
        doc[name] = int(doc[name] * r)
    doc["duration"] *= r / tput
    for name in ("request_throughput", "output_throughput", "total_token_throughput"):
        doc[name] *= tput
    for name, value in list(doc.items()):
        if ("tpot" in name or "itl" in name) and isinstance(value, float):
            doc[name] = value * tpot
    return doc


def _records(tmp, capsys, main_keys, pr_keys, concs=CONCS, runs: int = 3) -> list[dict]:
    """Every record of ``runs`` main runs of ``main_keys`` and a PR run of ``pr_keys`` (its first recipe's middle
    conc 15 % down, its second's last up), each job's output a real file scaled, as `results ingest` stores them."""
    out = tmp / "all.jsonl"
    moves = {(pr_keys[0], concs[len(concs) // 2]): 0.85, (pr_keys[-1], concs[-1]): 1.15}
    for n in range(runs + 1):
        run, ref, keys = (f"1{n}", "refs/heads/main", main_keys) if n < runs else ("21", "refs/pull/7/merge", pr_keys)
        for k, key in enumerate(keys):
            tput, tpot = KEYS.get(key, (1.1, 0.95))
            for conc in concs:
                noise = 1 + 0.015 * math.sin(7 * n + 3 * k + conc)
                doc = _scaled(conc, tput * noise * (moves.get((key, conc), 1) if run == "21" else 1), tpot / noise)
                doc["date"] = f"2026010{n + 1}-12{k:02d}{concs.index(conc):02d}"
                row = {**ROW, "model": "openai/gpt-oss-120b", "model-prefix": "gptoss", "runner": "cluster:mi355x-amd",
                       "conc": conc, "exp-name": f"gptoss_1k1k_{key}"}
                side = job(run_id=run, ref=ref, row=row, finished=f"2026-01-0{n + 1}T12:00:00+00:00",
                           **{"config-key": key})
                write_job(tmp / run / key, f"{key}-c{conc}", doc, side)
        rc, _, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp / 'r.db'}", "--jsonl", str(out),
                             str(tmp / run))
        assert rc == 0, err
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]


def _split(records: list[dict]) -> tuple[list[dict], list[dict]]:
    return ([r for r in records if r[R.REF].startswith("refs/pull/")],
            [r for r in records if not r[R.REF].startswith("refs/pull/")])


@pytest.fixture(scope="module")
def forty(tmp_path_factory) -> C.Comparison:
    """The new user's chart: 40 points, 5 recipes of 8 concurrencies (the real 7 and 256, from 128's scaled)."""
    return _comparison(tmp_path_factory.mktemp("forty"), list(KEYS), list(KEYS))


class _Quiet:
    """A stand-in for pytest's capsys in a module-scoped fixture: run_cli's output goes to the test's log."""

    def readouterr(self):
        return "", ""


def _comparison(tmp, main_keys, pr_keys, concs=CONCS) -> C.Comparison:
    pr, base = _split(_records(tmp, _Quiet(), main_keys, pr_keys, concs))
    return C.compare_records(pr, base, run="21")


def _draw(comp: C.Comparison, context=None, sought=False):
    """(figure, items) of the comparison's chart, drawn as `results compare --plots` draws it (its rc STYLE)."""
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    ((_stem, group, items, part),) = charts.planned(comp)
    with matplotlib.rc_context(charts.STYLE):
        fig = charts.draw_chart(group, items, comp.run, part, context=context, sought=sought)
        FigureCanvasAgg(fig).draw()
    return fig, items


def _segments(ax, lines) -> list:
    out = []
    for line in lines:
        xy = ax.transData.transform(line.get_xydata())
        out += [(line.get_gid(), tuple(a), tuple(b)) for a, b in zip(xy, xy[1:])]
    return out


def test_the_figure_grows_with_its_points_within_bounds(forty):
    few = charts.figure_size(1)
    assert few == charts.figure_size(charts.ROOMY_POINTS) == charts.FIGURE_SIZE  # the chart a PR comment links
    sizes = [charts.figure_size(n) for n in (1, 2, 7, 20, 40, 80, 2000)]
    assert sizes == sorted(sizes) and sizes[3] > sizes[2] and sizes[4] > sizes[3]
    largest = tuple(v * charts.MAX_GROWTH for v in charts.FIGURE_SIZE)
    assert all(w <= largest[0] + 1e-9 and h <= largest[1] + 1e-9 for w, h in sizes) and sizes[-1] == largest
    fig, items = _draw(forty)
    assert len(items) == 40
    assert fig.bbox.width > 880 * 1.3 and fig.bbox.height > 687 * 1.3, fig.bbox.size  # s44h: 880x687


def test_forty_points_labels_sit_off_each_other_and_their_leaders_cross_no_other_line(forty):
    """Every point is labelled (40 spots: no two points of a recipe at one spot), no two labels' boxes overlap,
    and no leader crosses a front, a baseline link or another leader (s44h: 40 crossings)."""
    fig, items = _draw(forty)
    ax, renderer = fig.axes[0], fig.canvas.get_renderer()
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in ax.texts]
    assert len(boxes) == 40, [t for t, _ in boxes]
    for i, (text, box) in enumerate(boxes):
        assert ax.bbox.contains(box.x0, box.y0) and ax.bbox.contains(box.x1, box.y1), text
        for other, box2 in boxes[i + 1:]:
            assert not box.overlaps(box2), (text, other)
    leaders = [ln for ln in ax.get_lines() if (ln.get_gid() or "").startswith(charts.LEADER_GID)]
    drawn = [ln for ln in ax.get_lines() if ln.get_linestyle() != "None"]
    crossed = [(gid, other) for gid, *leader in _segments(ax, leaders)
               for other, *seg in _segments(ax, drawn) if other != gid and charts._crosses(leader, seg)]
    assert not crossed, crossed


def test_a_label_on_a_line_is_drawn_on_the_background_and_few_are(forty):
    """A label's box stays clear of every line's stroke, or, where its point lies inside a bundle of fronts (its
    leader may cross none), sits on a patch of the background, the line faint beneath it (s44h: "64" in a
    dashed front's ink sat on that front, unreadable)."""
    fig, items = _draw(forty)
    ax, renderer = fig.axes[0], fig.canvas.get_renderer()
    px = fig.dpi / 72
    lines = [ln for ln in ax.get_lines() if ln.get_linestyle() != "None"
             and not (ln.get_gid() or "").startswith(charts.LEADER_GID)]
    over = []
    for text in ax.texts:
        x0, y0, x1, y1 = text.get_window_extent(renderer).extents
        for line in lines:
            half = line.get_linewidth() / 2 * px
            xy = ax.transData.transform(line.get_xydata())
            hits = False
            for a, b in zip(xy, xy[1:]):
                p = a + (b - a) * np.linspace(0, 1, max(2, int(np.hypot(*(b - a)))))[:, None]
                hits |= bool(((p[:, 0] > x0 - half) & (p[:, 0] < x1 + half) & (p[:, 1] > y0 - half)
                              & (p[:, 1] < y1 + half)).any())
            if hits:
                over.append(text)
                break
    assert len(over) <= len(ax.texts) // 4, [t.get_text() for t in over]
    for text in over:
        patch = text.get_bbox_patch()
        assert patch is not None and patch.get_facecolor()[:3] == (1.0, 1.0, 1.0), text.get_text()
        assert patch.get_alpha() >= 0.8


def test_a_new_recipe_s_context_points_are_labelled_with_their_concurrency(tmp_path):
    """A chart of a recipe main never ran draws main's nearest recipe as context: its points say their
    concurrency too (s44h: eight grey dots and no number), in the context's grey, clear of every other label."""
    pr, base = _split(_records(tmp_path, _Quiet(), ["gptoss-fp4-mi355x-vllm"], [NEW_KEY]))
    comp = C.compare_records(pr, base, run="21")
    ((_stem, group, _items, _part),) = charts.planned(comp)
    context = charts.contexts(comp, store_adapter.context_of_files(base, pr, C.DEFAULT_BASELINE_REF))[group]
    fig, items = _draw(comp, context, sought=True)
    ax, renderer = fig.axes[0], fig.canvas.get_renderer()
    grey = [t for t in ax.texts if t.get_gid() == charts.CONTEXT_LABEL_GID]
    assert sorted(int(t.get_text()) for t in grey) == sorted(CONCS)
    assert all(charts.contrast(t.get_color()[:3]) >= charts.LABEL_CONTRAST for t in grey)
    assert len(ax.texts) == len(grey) + len(items)  # the PR points keep theirs
    boxes = [t.get_window_extent(renderer) for t in ax.texts]
    assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])
