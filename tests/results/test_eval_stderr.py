"""An lm-eval score's stderr: lm-eval's own "N/A" (or none written) means "no stderr"; anything else
that is not a finite number >= 0 is refused at ingest, one line, as a bad score is. Real lm-eval
outputs, ingested with their jobs' sidecars by `results ingest`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import SAMPLES, job, run_cli, show_json, vllm_output, write_job

GSM8K = SAMPLES / "lm_eval" / "lmeval0.4.x_gsm8k5shot_llama3-70b-gptq_vllm_a6000x4.json"
STDERR = "exact_match_stderr,strict-match"
LEFT_OUT = object()


def gsm8k(*stderr) -> dict:
    """The real llama3-70b gsm8k results, its strict-match stderr set to ``stderr`` (or left out)."""
    doc = json.loads(GSM8K.read_text(encoding="utf-8"))
    for value in stderr:
        if value is LEFT_OUT:
            del doc["results"]["gsm8k"][STDERR]
        else:
            doc["results"]["gsm8k"][STDERR] = value
    return doc


def write_run(root: Path, run: str, eval_doc: dict, ref: str = "refs/heads/main", day: int = 1) -> Path:
    folder = root / run
    write_job(folder, "res", vllm_output(), job(run_id=run, ref=ref, finished=f"2026-01-0{day}T12:00:00+00:00"))
    (folder / "res-eval.json").write_text(json.dumps(eval_doc), encoding="utf-8")
    return folder


@pytest.mark.parametrize("bad", ["abc", -0.0085, "", None, [0.0085]])
def test_a_stderr_that_is_not_one_is_refused_in_one_line(tmp_path, db, capsys, bad):
    folder = write_run(tmp_path, "1001", gsm8k(bad))
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(folder))
    assert rc == 1
    (line,) = err.strip().splitlines()
    col = (folder / "res-eval.json").read_text().index(f'"{STDERR}"') + 1  # the key itself, in a one-line file
    assert line.startswith(f"{folder / 'res-eval.json'}:1:{col}: results.gsm8k.{STDERR}: "), line
    assert "expected a standard error" in line and "; " in line and "Traceback" not in err
    assert not [r for r in show_json(capsys, db) if r.get("evals")]  # the eval is not stored with a null stderr


def test_a_stderr_lm_eval_left_out_is_not_judged_and_the_reason_says_so(tmp_path, db, capsys):
    for folder in (write_run(tmp_path, "1001", gsm8k()),
                   write_run(tmp_path, "2002", gsm8k(LEFT_OUT), ref="refs/pull/7/head", day=2)):
        rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(folder))
        assert rc == 0, err
    rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "2002", "--json")
    assert rc == 0, err
    (strict,) = [e for e in json.loads(out)["evals"] if e["filter"] == "strict-match"]
    assert strict["verdict"] == "not-judged" and strict["head"]["stderr"] is None
    assert strict["why"] == 'no stderr for this run\'s score (lm-eval wrote "N/A" or NaN, or left it out)'
