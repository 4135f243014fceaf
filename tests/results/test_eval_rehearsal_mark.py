"""Eval scores measured against `sweepgate rehearse`'s stand-in server are marked as figures are: the
stand-in answers nonsense, so a rehearsed gsm8k of 0.0000 read as a real score in the evals table."""

from __future__ import annotations

import json

import pytest

from helpers import ROW, job, run_cli, vllm_output, write_job
from test_compare_evals_table import eval_doc


def ingest(root, db, capsys, run, ref, day, rehearsal):
    side = job(run_id=run, ref=ref, finished=f"2026-01-{day:02d}T12:00:00+00:00", row={**ROW, "conc": 4},
               rehearsal=rehearsal)
    write_job(root / run, "res_c4", vllm_output(4), side)
    doc = eval_doc(4, False)
    if run != "1001":  # the run's scores a little off main's, so that each figure is told apart
        for scores in doc["results"].values():
            scores.update({k: v - 0.001 for k, v in scores.items() if "stderr" not in k and isinstance(v, float)})
    (root / run / "res_c4-eval.json").write_text(json.dumps(doc), "utf-8")
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(root / run))
    assert rc == 0, err


@pytest.mark.parametrize("rehearsed", [True, False])
def test_a_rehearsed_runs_eval_scores_say_rehearsal(db, tmp_path, capsys, monkeypatch, rehearsed):
    ingest(tmp_path, db, capsys, "1001", "refs/heads/main", 1, False)
    ingest(tmp_path, db, capsys, "2002", "refs/pull/7/head", 2, rehearsed)
    rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "2002", "--json")
    assert rc == 0, err
    evals = json.loads(out)["evals"]
    assert evals and all(e.get("rehearsal", False) is rehearsed for e in evals)
    monkeypatch.setenv("COLUMNS", "200")
    for extra in ([], ["--markdown"]):
        rc, text, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "2002", *extra)
        assert rc == 0, err
        table = text[text.index("vals"):]
        head = f"{evals[0]['head']['value']:.4f} \u00b1{evals[0]['head']['stderr']:.4f}"
        base = f"{evals[0]['baseline']['value']:.4f} \u00b1{evals[0]['baseline']['stderr']:.4f}"
        assert (f"{head} (rehearsal)" in table) is rehearsed, table
        assert f"{base} (rehearsal)" not in table  # main's real scores are no rehearsal
