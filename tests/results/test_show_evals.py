"""`results show`: a job's eval scores (real lm-eval outputs beside its vLLM output, ingested with
their sidecar) are a line of their own with the first score in an "eval" column, wide or narrow."""

from __future__ import annotations

import shutil
from pathlib import Path

from helpers import ROOT, job, run_cli, show_json, vllm_output, write_job

LM_EVAL = ROOT / "tests" / "data" / "results-samples" / "lm_eval"
GSM8K = LM_EVAL / "lmeval0.4.x_gsm8k5shot_llama3-70b-gptq_vllm_a6000x4.json"
SMOKE = LM_EVAL / "lmeval0.4.8_gsm8k_granite_limit1_smoketest.json"
ASDIV = ROOT / "tests" / "data" / "results-real" / "lm_eval" / "lmeval0.4.3_asdiv_llama3-8b_limit50_trimmed.json"
FIRST = "gsm8k exact_match strict-match 0.8946 ±0.0085 (1 more)"  # not "(+1)": that reads like a change
IFEVAL = LM_EVAL / "lmeval0.4.13_ifeval_gemma4-26b_l40s.json"  # four scores


def ingest(tmp_path: Path, db: str, capsys, evals: Path | None, conc: int = 4, run: str = "1001") -> None:
    folder = tmp_path / f"{run}-{conc}"
    row = {**job()["row"], "conc": conc}
    write_job(folder, f"c{conc}", vllm_output(conc), job(run_id=run, row=row))
    if evals is not None:
        shutil.copy(evals, folder / f"c{conc}-eval.json")
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(folder))
    assert rc == 0, err


def rows(out: str) -> tuple[list[str], list[list[str]]]:
    lines = [line for line in out.splitlines() if "│" in line or "┃" in line]
    cells = [[c.strip() for c in line.strip("│┃ ").split("│" if "│" in line else "┃")] for line in lines]
    header, *body = cells
    return header, body


def test_an_eval_line_shows_its_first_score_and_how_many_more(tmp_path, db, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "300")  # the wide table (its eval cell is 4 past the 240 of a pipe)
    ingest(tmp_path, db, capsys, None, conc=16)  # throughput only: no eval column
    header, _ = rows(run_cli(capsys, "results", "show", "--db", db)[1])
    assert "eval" not in header and "tok/s/GPU" in header
    ingest(tmp_path, db, capsys, GSM8K)
    ingest(tmp_path, db, capsys, ASDIV, conc=8)
    rc, out, err = run_cli(capsys, "results", "show", "--db", db)
    assert rc == 0, err
    header, body = rows(out)
    col = header.index("eval")
    by_result = {r[header.index("result")]: r[col] for r in body}
    assert by_result == {"c4": "", "c4-eval": FIRST, "c16": "",  # the throughput lines stay blank
                         "c8": "", "c8-eval": "asdiv acc 0.9200 ±0.0388"}  # filter none: not shown
    assert "3 points, 3 eval scores" in out.splitlines()[0]  # was "5 points": an eval line is no point
    assert len(show_json(capsys, db, "--run", "1001")) == 5  # --run too: the eval line is not folded away


def test_a_missing_stderr_reads_n_a(tmp_path, db, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "300")  # the whole row on one line (piped, a log's 200 columns fold the eval cell)
    ingest(tmp_path, db, capsys, SMOKE)
    _, out, _ = run_cli(capsys, "results", "show", "--db", db, "--run", "1001")
    header, body = rows(out)
    assert [r[header.index("eval")] for r in body] == ["", "gsm8k exact_match strict-match 1.0000 ±n/a (1 more)"]


def test_more_scores_are_counted_in_words(tmp_path, db, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "300")
    ingest(tmp_path, db, capsys, IFEVAL)
    _, out, _ = run_cli(capsys, "results", "show", "--db", db, "--run", "1001")
    header, body = rows(out)
    assert [r[header.index("eval")] for r in body] == ["", "ifeval prompt_level_strict_acc 0.8872 ±0.0136 (3 more)"]


def test_a_narrow_terminal_shows_the_score_in_the_eval_line_block(tmp_path, db, capsys, monkeypatch):
    ingest(tmp_path, db, capsys, GSM8K)
    monkeypatch.setenv("COLUMNS", "80")
    _, out, _ = run_cli(capsys, "results", "show", "--db", db)
    assert "┃" not in out  # the block layout
    blocks = [b for b in out.split("\n-") if "c4-eval" in b]
    assert len(blocks) == 1 and f"eval {FIRST}" in " ".join(blocks[0].split())
    assert all(len(line) <= 80 for line in out.splitlines())


def test_the_title_counts_points_and_eval_scores_apart(tmp_path, db, capsys):
    """Review: `results show --run ID` said "3 points" for two points and one eval line: an eval line is
    a job's scores at a point it already counts, not a point. The title counts them as compare's report
    does ("2 points, 1 eval score"); a point's lines on two refs are still one point, its score one score."""
    ingest(tmp_path, db, capsys, None, conc=8)
    ingest(tmp_path, db, capsys, ASDIV)  # one score, at conc 4
    rc, out, err = run_cli(capsys, "results", "show", "--db", db, "--run", "1001")
    assert rc == 0, err
    assert out.splitlines()[0] == "run 1001: 2 points, 1 eval score", out
    ingest(tmp_path, db, capsys, GSM8K, conc=16)  # two scores (strict-match, flexible-extract)
    _, out, _ = run_cli(capsys, "results", "show", "--db", db, "--run", "1001")
    assert out.splitlines()[0] == "run 1001: 3 points, 3 eval scores", out
    pr = tmp_path / "pr"  # the same point and score on a PR's ref: two lines each, still one of each
    write_job(pr, "c4", vllm_output(4), job(run_id="2002", row={**job()["row"], "conc": 4}, ref="refs/pull/7/merge",
                                            finished="2026-02-01T12:00:00+00:00"))
    shutil.copy(ASDIV, pr / "c4-eval.json")
    assert run_cli(capsys, "results", "ingest", "--db", db, str(pr))[0] == 0
    _, out, _ = run_cli(capsys, "results", "show", "--db", db, "--key", "dsr1-fp4-b300-vllm")
    assert out.splitlines()[0] == "config key dsr1-fp4-b300-vllm: 3 points, 3 eval scores on 2 refs (7 lines)", out


def test_a_narrow_block_never_breaks_a_score_from_its_stderr_or_a_count_from_its_noun(tmp_path, db, capsys,
                                                                                         monkeypatch):
    """s41l: at COLUMNS 44 to 50 `results show` put "0.8926" at a line's end and "±0.0085 (1 more)" on the next,
    and at 55 to 60 "(1" over "more)": the eval cell broke at any blank, though compare's narrow blocks keep a
    score with its stderr (README). Each width from 40 to 60 keeps both whole."""
    ingest(tmp_path, db, capsys, GSM8K)
    for columns in range(40, 61):
        monkeypatch.setenv("COLUMNS", str(columns))
        _, out, _ = run_cli(capsys, "results", "show", "--db", db, "--run", "1001")
        lines = out.splitlines()
        assert all(len(line) <= columns for line in lines), (columns, lines)
        assert any("0.8946 ±0.0085" in line for line in lines), (columns, lines)
        assert any("(1 more)" in line for line in lines), (columns, lines)
