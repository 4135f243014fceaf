"""`results compare`'s terminal evals table on a narrow terminal: real lm-eval outputs at three points
of one run (one with a long task name, one scored on a --limit run against main's full run, so not
judged), ingested with their jobs' sidecars; every score label and figure reads whole at 80 and 120
columns, and the reason a score was not judged is printed once, whole, under the table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import ROOT, ROW, job, run_cli, vllm_output, write_job

LM_EVAL = ROOT / "tests" / "data" / "results-samples" / "lm_eval"
REAL = ROOT / "tests" / "data" / "results-real" / "lm_eval"
EVALS = {4: LM_EVAL / "lmeval0.4.x_gsm8k5shot_llama3-70b-gptq_vllm_a6000x4.json",
         8: REAL / "lmeval0.4.13_gsm8k_platinum_gemma4-26b_trimmed.json",
         16: REAL / "lmeval0.4.3_asdiv_llama3-8b_limit50_trimmed.json"}  # --limit 50 of 2305


def eval_doc(conc: int, main: bool) -> dict:
    doc = json.loads(EVALS[conc].read_text(encoding="utf-8"))
    if conc == 16 and main:  # main ran all 2305 asdiv questions
        doc["n-samples"]["asdiv"]["effective"] = 2305
        doc["results"]["asdiv"]["acc,none"] = 0.70
    return doc


def ingest_run(root: Path, db: str, capsys, run: str, ref: str, day: int) -> None:
    for conc in EVALS:
        side = job(run_id=run, ref=ref, finished=f"2026-01-{day:02d}T12:00:00+00:00", row={**ROW, "conc": conc})
        write_job(root / run, f"res_c{conc}", vllm_output(conc), side)
        (root / run / f"res_c{conc}-eval.json").write_text(json.dumps(eval_doc(conc, run == "1001")), "utf-8")
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(root / run))
    assert rc == 0, err


@pytest.fixture
def db(db, tmp_path, capsys):
    url = db  # conftest's empty store, filled here
    ingest_run(tmp_path, url, capsys, "1001", "refs/heads/main", 1)
    ingest_run(tmp_path, url, capsys, "2002", "refs/pull/7/head", 2)
    return url


@pytest.mark.parametrize("columns", [80, 120])
def test_scores_and_figures_read_whole_and_the_reason_sits_under_the_table(db, capsys, monkeypatch, columns):
    rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "2002", "--json")
    assert rc == 0, err
    evals = json.loads(out)["evals"]
    (skipped,) = [e for e in evals if e["verdict"] == "not-judged"]
    assert skipped["why"].startswith("samples differ (50 in this run, 2305 in baseline run 1001): ")
    monkeypatch.setenv("COLUMNS", str(columns))
    rc, text, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "2002")
    assert rc == 0, err
    table = text[text.index("\nevals\n"):]
    assert max(len(line) for line in table.splitlines()) <= columns
    words = table.split()  # a cell folded inside a word leaves pieces of it, not the word
    for e in evals:
        label = [e["task"], e["metric"]] + ([e["filter"]] if e["filter"] != "none" else [])
        figures = [f"{e[side]['value']:.4f}" for side in ("head", "baseline")]
        figures += [f"\u00b1{e[side]['stderr']:.4f}" for side in ("head", "baseline")]
        for word in label + figures:
            assert word in words, (word, table)
    assert "not-judged [1]" in table and " ".join(table.split()).count(f"[1] {skipped['why']}") == 1
    assert skipped["why"] not in " ".join(table.split()).split("[1] ", 1)[0]  # not in the verdict cell
    rc, md, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "2002", "--markdown")
    assert f"| not-judged: {skipped['why']} |" in md  # the Markdown keeps the reason in its row
