"""s42k: a result's strings are drawn on a chart as written, never read as matplotlib mathtext. A config key
`a$\\frac{1}{0}$b` (a job's sidecar stated it; ingest stored it as written) was drawn as a fraction in the legend,
and `x$\\undefined$y` or `a$$b` stopped `results compare --plots` with a ParseFatalException, no chart written.
Through `results compare --plots`, read back from the SVG (its text is text: svg.fonttype none) and checked in the
PNG's existence. Since s43a ingest refuses such a key in a sidecar: the keys are a store's records (one filled
before, or by another tool), as the model names are."""

from __future__ import annotations

import html
import re

import pytest

import synth
from helpers import run_cli
from sweepgate.results import record as R
from sweepgate.results import store

NAMES = ["a$\\frac{1}{0}$b", "$$", "x$\\undefined$y", "a\\$b", "one $ alone", "a$^$b", "$x_1$", "_hidden"]


def _svg_texts(path) -> list[str]:
    return [html.unescape(t) for t in re.findall(r"<text[^>]*>([^<]*)</text>", path.read_text(encoding="utf-8"))]


def _charts(folder):
    svgs, pngs = sorted(folder.glob("*.svg")), sorted(folder.glob("*.png"))
    assert len(svgs) == len(pngs) == 1, (svgs, pngs)
    assert pngs[0].read_bytes().startswith(b"\x89PNG") and pngs[0].stat().st_size > 1000
    return svgs[0]


def _stored_with_key(db: str, key: str, runs: int = 2) -> None:
    """Main's ``runs`` runs and PR run pr-7 of one point of config key ``key``, stored as records."""
    with store.open_store(db) as st:
        st.add(synth.history(runs=runs, keys=(key,)) + synth.pr_run(keys=(key,)))


@pytest.mark.parametrize("name", NAMES)
def test_a_config_key_is_drawn_in_the_legend_as_written(name, db, tmp_path, capsys):
    _stored_with_key(db, name)
    rc, _, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "pr-7", "--plots", str(tmp_path / "charts"))
    assert rc == 0 and "Traceback" not in err and "Exception" not in err, err
    assert name in _svg_texts(_charts(tmp_path / "charts"))


@pytest.mark.parametrize("name", NAMES[:4])
def test_a_model_is_drawn_in_the_title_as_written(name, db, tmp_path, capsys):
    """A store's records (a model name no sidecar would pass, read from a store another tool filled)."""
    records = [dict(r, **{R.MODEL: name}) for r in synth.history(runs=3, keys=synth.KEYS[:1])
               + synth.pr_run(keys=synth.KEYS[:1])]
    with store.open_store(db) as st:
        st.add(records)
    rc, _, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "pr-7", "--plots", str(tmp_path / "charts"))
    assert rc == 0 and "Traceback" not in err and "Exception" not in err, err
    texts = _svg_texts(_charts(tmp_path / "charts"))
    assert any(t.startswith(f"{name} fp8 on b300") for t in texts), texts


def test_a_config_key_s_control_characters_are_drawn_as_escapes_and_the_svg_stays_xml(db, tmp_path, capsys):
    """An ESC or a bell is no glyph (matplotlib warned, on stderr, with the character itself) and no XML 1.0
    character: the SVG did not parse, so no viewer showed the chart."""
    import xml.etree.ElementTree as ET

    from sweepgate.core.errors import printable

    name = "a\x1b[2Jb\x07c\rd"
    _stored_with_key(db, name, runs=1)
    rc, _, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "pr-7", "--plots", str(tmp_path / "charts"))
    assert rc == 0 and "Glyph" not in err and "\x1b" not in err, err
    svg = _charts(tmp_path / "charts")
    ET.parse(svg)  # well-formed
    assert printable(name) in _svg_texts(svg)


def test_the_line_naming_a_point_on_no_chart_writes_its_control_characters_as_escapes(db, tmp_path, capsys):
    """The stderr line naming the points no chart could draw printed a config key's ESC as it was."""
    from sweepgate.core.errors import printable

    key = "k\x1b[2Jx\x07"
    pr = synth.pr_run(keys=(key,), concs=(4, 8))
    for rec in pr:
        if rec[R.CONC] == 8:
            rec[R.METRICS].pop(R.INTERACTIVITY)
    with store.open_store(db) as st:
        st.add(pr)
    rc, _, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "pr-7", "--plots", str(tmp_path / "charts"))
    assert rc == 0 and "\x1b" not in err and "\x07" not in err, err
    assert f"1 point is on no chart (the table lists it): {printable(key)} b300" in err, err
