"""s49g: `results compare` and the PR comment named no image (a point label holds the config key and recipe, never
the image; only a point whose image changed from main's said so, in its recipe change): a sweep of two engines' configs
said nothing of which image each ran. `results show` names each line's image where its lines ran more
than one (``labels.image_labels``); the compare table and the Markdown report now do the same: an "image" column
after the point, only where the compared points ran more than one image, each named by what tells it from the
others, and in the Markdown once per point (its other rows' cells empty, as the point's), keeping the comment
compact."""

from __future__ import annotations

from helpers import ROW, job, md_rows, run_cli, vllm_output, write_job

PR_REF = "refs/pull/7/head"
SGLANG = {**ROW, "image": "lmsysorg/sglang:v0.5.5-cu129", "framework": "sglang"}


def _run(tmp_path, capsys, db: str, run: str, day: int, rows: dict, ref: str = "refs/heads/main") -> None:
    folder = tmp_path / run
    for name, (key, row) in rows.items():
        write_job(folder, name, {**vllm_output(row["conc"]), "date": f"2026010{day}-120000"},
                  job(run_id=run, ref=ref, row=row, **{"config-key": key},
                      finished=f"2026-01-0{day}T12:00:00+00:00"))
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(folder))
    assert rc == 0, out + err


def _compared(tmp_path, capsys, db: str, rows: dict, *flags: str) -> str:
    for day, run in enumerate(("101", "102", "103"), start=1):
        _run(tmp_path, capsys, db, run, day, rows)
    _run(tmp_path, capsys, db, "200", 5, rows, ref=PR_REF)
    rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "200", *flags)
    assert rc == 0, err
    return out


TWO_IMAGES = {"vllm": ("dsr1-fp4-b300-vllm", ROW), "sglang": ("dsr1-fp4-b300-sglang", SGLANG)}


def test_the_markdown_names_each_point_s_image_once_where_the_points_ran_two(tmp_path, capsys, db):
    md = _compared(tmp_path, capsys, db, TWO_IMAGES, "--markdown")
    header = next(line for line in md.splitlines() if line.startswith("| point |"))
    assert header.startswith("| point | image | metric | PR |"), header  # was "| point | metric | PR |"
    rows = md_rows(md)
    images = {row[0].split()[0]: {r[1] for r in rows if r[0] == row[0]} for row in rows}
    # each point's first row names its image, by what tells it from the other: repository and tag
    assert images == {"dsr1-fp4-b300-sglang": {"sglang:v0.5.5-cu129", ""},
                      "dsr1-fp4-b300-vllm": {"vllm-openai:v0.11.0", ""}}, images
    named = [line for line in md.splitlines() if "v0.11.0" in line]
    assert len(named) == 1, named  # once per point, not on each of its metric rows


def test_the_terminal_table_has_the_column_too(tmp_path, capsys, db, monkeypatch):
    monkeypatch.setenv("COLUMNS", "250")
    out = _compared(tmp_path, capsys, db, TWO_IMAGES)
    header = next(line for line in out.splitlines() if line.lstrip().startswith("point"))
    assert header.split()[:3] == ["point", "image", "metric"], header
    assert any("sglang:v0.5.5-cu129" in line and "dsr1-fp4-b300-sglang" in line for line in out.splitlines()), out


def test_one_image_needs_no_column(tmp_path, capsys, db):
    md = _compared(tmp_path, capsys, db, {"a": ("dsr1-fp4-b300-vllm", ROW),
                                          "b": ("dsr1-fp4-b300-vllm", {**ROW, "conc": 8})}, "--markdown")
    header = next(line for line in md.splitlines() if line.startswith("| point |"))
    assert header.startswith("| point | metric | PR |"), header
    assert "v0.11.0" not in md


def test_the_new_points_table_names_their_images_too(tmp_path, capsys, db):
    """Points no main run measured (a PR adding an engine's config): one row a point, the image beside it."""
    _run(tmp_path, capsys, db, "101", 1, {"vllm": TWO_IMAGES["vllm"]})
    _run(tmp_path, capsys, db, "200", 5, TWO_IMAGES, ref=PR_REF)
    rc, md, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "200", "--markdown")
    assert rc == 0, err
    new = md[md.index("#### New"):]
    header = next(line for line in new.splitlines() if line.startswith("| point |"))
    assert header.startswith("| point | image | tok/s/GPU"), header
    assert "| sglang:v0.5.5-cu129 |" in new, new


def test_a_narrow_terminal_says_the_image_once_with_the_point(tmp_path, capsys, db, monkeypatch):
    """Too narrow for one row a verdict: each point's label once, its metric rows under it; the image goes with the
    label, not on each of its rows."""
    monkeypatch.setenv("COLUMNS", "80")
    out = _compared(tmp_path, capsys, db, TWO_IMAGES)
    assert out.count("sglang:v0.5.5-cu129") == 1, out
    assert "image sglang:v0.5.5-cu129" in out, out
