"""s50d: a recipe change named in a chart's legend (s49e, ``charts.legend_labels``) made the entry as long as the two
images it names, and InferenceX's are long (``rocm/atom:rocm7.2.3_ubuntu24.04_py3.12_pytorch_release_2.10.0_atom…``):
the one-column layout and the smallest font did not make it fit, and the legend was cut off at both edges of the PNG
(the series' marker and key at the left, the new image at the right). A long entry is now broken over lines, each
kept inside the figure, with nothing of the change lost, each line an entry of its own, and the figure reserves
the lines it takes."""

from __future__ import annotations

import synth
from sweepgate.results import charts
from sweepgate.results import compare as C
from sweepgate.results import record as R

CHANGED, _KEPT = synth.KEYS
OLD = "rocm/atom:rocm7.2.3_ubuntu24.04_py3.12_pytorch_release_2.10.0_atom20260511"
NEW = "rocm/atom:rocm7.2.4_ubuntu24.04_py3.12_pytorch_release_2.10.0_atom0.1.3"


def _with(records: list[dict], image: str) -> list[dict]:
    for rec in records:
        if rec[R.CONFIG_KEY] == CHANGED:
            rec[R.IMAGE] = image
            rec[R.RECIPE_FINGERPRINT] = f"fp-{CHANGED}-{image}"
    return records


def _drawn():
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    comp = C.compare_records(_with(synth.pr_run(), NEW), _with(synth.history(), OLD))
    ((_stem, group, items, part),) = charts.planned(comp)
    fig = charts.draw_chart(group, items, comp.run, part)
    FigureCanvasAgg(fig).draw()
    return fig, items


def test_a_long_change_stays_inside_the_figure():
    fig, _items = _drawn()
    (legend,) = fig.legends
    box = legend.get_window_extent(fig.canvas.get_renderer())
    assert box.x0 >= 0 and box.x1 <= fig.bbox.width, (box, fig.bbox.width)  # was -93 .. 973 of 880
    said = "".join("".join(t.get_text().split()) for t in legend.get_texts())  # its lines joined, blanks dropped
    for part in (CHANGED, "rocm7.2.3_ubuntu24.04_py3.12_pytorch_release_2.10.0_atom20260511",
                 "rocm7.2.4_ubuntu24.04_py3.12_pytorch_release_2.10.0_atom0.1.3"):
        assert part in said, said  # nothing of the change lost
    assert not any("\\n" in t.get_text() for t in legend.get_texts())  # lines, never an escape


def _plot_height(old: str, new: str) -> float:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    comp = C.compare_records(_with(synth.pr_run(), new), _with(synth.history(), old))
    ((_stem, group, items, part),) = charts.planned(comp)
    fig = charts.draw_chart(group, items, comp.run, part)
    FigureCanvasAgg(fig).draw()
    return fig.axes[0].get_window_extent().height


def test_the_figure_reserves_the_lines_a_broken_entry_takes():
    """``legend_rows`` counts each line of an entry: the plot keeps the height it has beside a change on one line
    (one column both), the figure grown by the legend's lines instead."""
    _fig, items = _drawn()
    assert any("\n" in label for label in charts.legend_labels(items).values())  # broken: 3 lines
    one_line = _plot_height("vllm/vllm-openai:v0.11.0", "vllm/vllm-openai:v0.12.0rc1-cu130-nightly")
    broken = _plot_height(OLD, NEW)
    assert broken >= one_line - 1, (broken, one_line)  # 28 px shorter when the two more lines were not reserved
