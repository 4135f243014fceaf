"""A new user's results path from a wheel (s32e): text from result files printed as it is written."""

from __future__ import annotations

import json

import pytest

from helpers import ROW, run_cli, sweepgate_at, vllm_output


def _ingest_named(capsys, tmp_path, names: list[str], **over) -> str:
    """A store holding one vLLM output per file name (no sidecar: each its own run); its URL."""
    db = f"sqlite:///{tmp_path / 'r.db'}"
    folder = tmp_path / "outs"
    folder.mkdir()
    for n, name in enumerate(names):
        (folder / name).write_text(json.dumps(vllm_output(4, num_prompts=40 + n, **over)), encoding="utf-8")
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(folder))
    assert rc == 0, err
    return db


@pytest.mark.parametrize("names,model", [
    (["out[b].json", "result[rerun].json"], ROW["model"]),  # shown as out.json and result.json
    (["run\\[b].json"], ROW["model"]),  # shown as run[b].json: rich's escape taken
    (["out.json"], "org/model[/b]"),  # a model name from the file's own content
])
def test_results_show_prints_names_with_brackets_as_written(capsys, tmp_path, names, model):
    """`results show` read its cells as rich markup: a result file named `out[b].json` was listed as
    `out.json` (a file that does not exist), `run\\[b].json` as `run[b].json`, and an output whose model is
    `org/model[/b]` stopped it with "internal error: MarkupError", exit 1. Every cell is shown as written."""
    db = _ingest_named(capsys, tmp_path, names, model_id=model)
    proc = sweepgate_at(tmp_path, "results", "show", "--db", db, columns="400")
    assert proc.returncode == 0, proc.stderr
    assert "internal error" not in proc.stderr, proc.stderr
    for name in names:
        assert name in proc.stdout, proc.stdout
    if model != ROW["model"]:
        assert model in proc.stdout, proc.stdout


def test_results_show_on_a_narrow_terminal_escapes_control_characters(capsys, tmp_path):
    """The one-block-per-point layout of a narrow terminal printed a file name's newline raw too, the
    rest of the name at column 0 of a line of its own; it shows it escaped, and brackets as written."""
    db = _ingest_named(capsys, tmp_path, ["two\nlines[b].json"])
    proc = sweepgate_at(tmp_path, "results", "show", "--db", db, columns="60")
    assert proc.returncode == 0, proc.stderr
    assert "two\\nlines[b].json" in proc.stdout, proc.stdout


def test_results_show_escapes_control_characters_from_a_result_file(capsys, tmp_path):
    """A model name with terminal escape sequences (`\\x1b]0;...` sets the window title, `\\x1b[2J` clears
    the screen) and a file name with a newline in it were written raw to the terminal: a PR's output file
    could rewrite the maintainer's terminal, and the newline split the file's table row in two. They are
    shown escaped, as Python writes them (`\\x1b`, `\\n`)."""
    model = "evil\x1b]0;pwned\x07\x1b[2Jmodel"
    db = _ingest_named(capsys, tmp_path, ["two\nlines.json"], model_id=model)
    proc = sweepgate_at(tmp_path, "results", "show", "--db", db, columns="400")
    assert proc.returncode == 0, proc.stderr
    assert "\x1b" not in proc.stdout and "\x07" not in proc.stdout, repr(proc.stdout)
    assert "evil\\x1b]0;pwned\\x07\\x1b[2Jmodel" in proc.stdout, proc.stdout
    assert "two\\nlines.json" in proc.stdout, proc.stdout


def test_the_plan_table_prints_cells_and_title_as_written(capsys):
    """`core.report.print_table`, the table `plan` prints, read its cells and title as rich markup too."""
    import io

    from sweepgate.core import report

    stream = io.StringIO()
    report.print_table(stream, ["exp-name", "image"], [["a[/b]", "img:[red]x"]], title="plan [/x] \x1b[2J")
    text = stream.getvalue()
    assert "a[/b]" in text and "img:[red]x" in text and "plan [/x] \\x1b[2J" in text, text


@pytest.mark.parametrize("text", [
    "x" * 8_000_000,  # no line at all: a file a crash left as one run of bytes
    "\0" * 8_000_000,  # NULs: a file preallocated and never written
    "time,value\n" + "1,2\n" * 2_000_000,  # a CSV of another tool
])
def test_a_large_file_of_the_wrong_kind_is_refused_without_many_copies_of_it(tmp_path, capsys, text):
    """Told what a file that is no client output is, ingest copied it whole several times over: a
    StringIO of the text to ask whether it is a CSV table (4 bytes a character) and a list of its every
    line to ask whether it is InferenceX's dashboard export, when both look at its first lines. A 3 GB
    file of NULs took 5 minutes and 22 GB of memory, all the machine had, to be called "not JSON or CSV";
    a CSV 15 times its size. Its refusal now needs about twice the file's size (its bytes, then its text) and a few MB."""
    import tracemalloc

    (tmp_path / "small.json").write_text(text[:100], encoding="utf-8")  # the modules imported before measuring
    run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(tmp_path / "small.json"))
    path = tmp_path / "big.json"
    path.write_text(text, encoding="utf-8")
    tracemalloc.start()
    try:
        rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(path))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert rc == 1 and f"{path}:1: format: " in err, err
    assert peak < 4 * len(text), f"peak {peak / len(text):.1f} times the file's size"


def test_an_svg_chart_named_for_ingest_is_refused_as_the_image_it_is(tmp_path, capsys):
    """`results ingest charts/*.png` said "an image (a chart?), not a result", but the SVG beside each
    PNG, which `compare --plots` writes too, read "format: not JSON or CSV": the user was not told it was
    a chart. Both are refused alike. The chart is a real one, drawn by `compare --plots`."""
    import synth

    from sweepgate.results import charts
    from sweepgate.results import compare as C

    keys = synth.KEYS[:1]
    drawn = charts.draw_charts(C.compare_records(synth.pr_run(keys=keys), synth.history(keys=keys)), tmp_path)
    for chart in sorted(drawn, key=lambda p: p.suffix):  # .png, then .svg
        rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(chart))
        assert rc == 1, err
        assert err.startswith(f"{chart}:1: an image (a chart?), not a result; "), err


@pytest.mark.parametrize("doc,what", [
    (dict(ROW), "format: a matrix row (as `sweepgate test-config` or `matrix` prints one), not a client's output"),
    ([dict(ROW), dict(ROW, conc=8)], "format: a list of 2 matrix rows (as `sweepgate test-config` prints them), "
                                     "not a client's output"),
])
def test_a_row_file_named_as_a_result_is_told_to_go_to_row(tmp_path, capsys, doc, what):
    """Following the README by hand, `results ingest row.json main-101/result.json` (the row named as a
    result, `--row` forgotten) read "format: unknown JSON output": the user was not told the file is the
    row, nor where it goes. It is refused as the row it is, naming `--row`."""
    (tmp_path / "row.json").write_text(json.dumps(doc, indent=2), encoding="utf-8")
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}",
                           str(tmp_path / "row.json"))
    assert rc == 1, err
    (line,) = [s for s in err.splitlines() if s.startswith(str(tmp_path / "row.json"))]
    assert line.startswith(f"{tmp_path / 'row.json'}:1:1: {what}; "), line
    assert "--row row.json --run-id ID --ref REF OUTPUT" in line, line
