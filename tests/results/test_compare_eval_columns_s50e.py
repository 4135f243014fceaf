"""s50e: the evals table of `results compare` (terminal, `--markdown`, the PR comment) had neither the image column
the tables of points got in s49g where the run's points ran more than one image, nor their recipe change column: a
sweep of two engines' configs scored each engine's gsm8k without saying which image scored what, and a PR that bumped
the image of an eval row said so beside the row's throughput and not beside its scores. The evals table now takes both
from where the points' tables do (``render.point_images``, ``render._point_columns``): the image after the point,
where the run's points, throughput and eval alike, ran more than one image, said once a point in the Markdown; the
recipe change last, where a score's run ran otherwise than its baseline run. Real lm-eval results (gsm8k, two
scores: strict-match and flexible-extract), ingested with their jobs' sidecars."""

from __future__ import annotations

import json

from helpers import ROW, SAMPLES, job, md_rows, run_cli, vllm_output, write_job

GSM8K = SAMPLES / "lm_eval" / "lmeval0.4.x_gsm8k5shot_llama3-70b-gptq_vllm_a6000x4.json"
PR_REF = "refs/pull/7/head"
VLLM = ("dsr1-fp4-b300-vllm", ROW)
SGLANG = ("dsr1-fp4-b300-sglang", {**ROW, "image": "lmsysorg/sglang:v0.5.5-cu129", "framework": "sglang"})
BUMPED = ("dsr1-fp4-b300-vllm", {**ROW, "image": "vllm/vllm-openai:v0.12.0", "recipe-fingerprint": "cd" * 32})


def _run(tmp_path, capsys, db: str, run: str, day: int, rows: list, ref: str = "refs/heads/main",
         throughput: bool = True) -> None:
    """One run: each (config key, row)'s job, its throughput output (unless not ``throughput``: an eval-only job)
    and the real lm-eval results beside it."""
    folder = tmp_path / run
    for key, row in rows:
        side = job(run_id=run, ref=ref, row=row, finished=f"2026-01-0{day}T12:00:00+00:00", **{"config-key": key})
        name = key.rsplit("-", 1)[1]
        if throughput:
            write_job(folder, name, {**vllm_output(row["conc"]), "date": f"2026010{day}-120000"}, side)
            (folder / f"{name}-eval.json").write_bytes(GSM8K.read_bytes())
        else:
            write_job(folder, name, GSM8K.read_text(encoding="utf-8"), side)
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(folder))
    assert rc == 0, out + err


def _compared(tmp_path, capsys, db: str, main: list, pr: list, *flags: str, throughput: bool = True) -> str:
    for day, run in enumerate(("101", "102", "103"), start=1):
        _run(tmp_path, capsys, db, run, day, main, throughput=throughput)
    _run(tmp_path, capsys, db, "200", 5, pr, ref=PR_REF, throughput=throughput)
    rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "200", *flags)
    assert rc == 0, err
    return out


def _evals(md: str) -> tuple[str, list[list[str]]]:
    """The `#### Evals` table's header line and rows (its lines up to the first that is not a row)."""
    lines = md[md.index("#### Evals"):].splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| point |"))
    end = next((i for i in range(start, len(lines)) if not lines[i].startswith("|")), len(lines))
    return lines[start], md_rows("\n".join(lines[start:end]))


def test_the_evals_table_names_each_point_s_image_once_where_the_run_ran_two(tmp_path, capsys, db):
    md = _compared(tmp_path, capsys, db, [VLLM, SGLANG], [VLLM, SGLANG], "--markdown")
    header, rows = _evals(md)
    assert header.startswith("| point | image | score | PR | baseline |"), header  # was "| point | score | PR |"
    assert "recipe change" not in header, header  # nothing changed: no such column
    images: dict = {}
    for row in rows:  # md_rows gives a point's later rows its name
        images.setdefault(row[0].split()[0], []).append(row[1])
    # the points' first rows name their images as the points' table does; their other score's row leaves it empty
    assert images == {"dsr1-fp4-b300-sglang": ["sglang:v0.5.5-cu129", ""],
                      "dsr1-fp4-b300-vllm": ["vllm-openai:v0.11.0", ""]}, images
    points_header = next(line for line in md.splitlines() if line.startswith("| point | image | metric |"))
    assert points_header, md  # the points' tables name them alike (s49g)


def test_the_terminal_s_evals_table_has_the_image_column_too(tmp_path, capsys, db, monkeypatch):
    monkeypatch.setenv("COLUMNS", "250")
    out = _compared(tmp_path, capsys, db, [VLLM, SGLANG], [VLLM, SGLANG])
    table = out[out.index("\nevals\n"):]
    header = next(line for line in table.splitlines() if line.lstrip().startswith("point"))
    assert header.split()[:3] == ["point", "image", "score"], header
    assert any("sglang:v0.5.5-cu129" in line and "strict-match" in line for line in table.splitlines()), table


def test_a_narrow_terminal_says_a_score_s_image_once_with_its_point(tmp_path, capsys, db, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    out = _compared(tmp_path, capsys, db, [VLLM, SGLANG], [VLLM, SGLANG])
    table = out[out.index("\nevals\n"):]
    assert table.count("image sglang:v0.5.5-cu129") == 1, table
    assert max(len(line) for line in table.splitlines()) <= 80, table


def test_an_eval_only_run_of_two_images_names_them(tmp_path, capsys, db):
    """No throughput point at all (an evals-only sweep): the eval scores' images are the run's."""
    md = _compared(tmp_path, capsys, db, [VLLM, SGLANG], [VLLM, SGLANG], "--markdown", throughput=False)
    header, rows = _evals(md)
    assert header.startswith("| point | image | score |"), header
    assert {row[1] for row in rows} == {"sglang:v0.5.5-cu129", "vllm-openai:v0.11.0", ""}, rows


def test_a_score_whose_run_bumped_the_image_names_the_change(tmp_path, capsys, db, monkeypatch):
    """One config, its image bumped by the PR: one image in the run, so no image column; the recipe change beside
    the scores, once a point in the Markdown, as beside the point's throughput."""
    md = _compared(tmp_path, capsys, db, [VLLM], [BUMPED], "--markdown")
    header, rows = _evals(md)
    assert header.startswith("| point | score |") and header.endswith("| verdict | recipe change |"), header
    assert [row[-1] for row in rows] == ["image v0.11.0 \u2192 v0.12.0", ""], rows
    points = next(row for row in md_rows(md) if row[1] == "output_tput_per_gpu")  # the unchanged fold's first row
    assert points[-1] == rows[0][-1], points  # the same words as the point's throughput rows
    monkeypatch.setenv("COLUMNS", "250")
    rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "200")
    assert rc == 0, err
    table = out[out.index("\nevals\n"):]
    header = next(line for line in table.splitlines() if line.lstrip().startswith("point"))
    assert header.split()[-2:] == ["recipe", "change"], header
    assert table.count("image v0.11.0 \u2192 v0.12.0") == 2, table  # each score's row on a terminal


def test_one_image_and_no_change_keep_the_evals_table_as_it_was(tmp_path, capsys, db):
    md = _compared(tmp_path, capsys, db, [VLLM], [VLLM], "--markdown")
    header, _ = _evals(md)
    assert header == "| point | score | PR | baseline | main run | change (margin) | verdict |", header
    rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "200", "--json")
    assert rc == 0, err
    assert len(json.loads(out)["evals"]) == 2
