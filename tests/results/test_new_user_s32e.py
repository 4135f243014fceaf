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
