"""lm-eval's ``bypass`` metric is a placeholder, not a score: ``lm_eval --predict_only`` (and a task
scored outside lm-eval) writes ``"bypass,none": 999`` (its aggregation, ``bypass_agg``, always returns
999) with a stderr of "N/A". Hunt 12: such a results file was stored as a successful eval scoring 999."""

from __future__ import annotations

import json

from helpers import SAMPLES, run_cli, show_json
from sweepgate.results import record as R

GSM8K = SAMPLES / "lm_eval" / "lmeval0.4.x_gsm8k5shot_llama3-70b-gptq_vllm_a6000x4.json"


def predict_only(**more_tasks) -> dict:
    """The real llama3-70b gsm8k results file as `--predict_only` writes it: gsm8k's scores replaced
    by the bypass placeholder; ``more_tasks`` (loglikelihood tasks keep their scores) added."""
    doc = json.loads(GSM8K.read_text(encoding="utf-8"))
    doc["results"]["gsm8k"] = {"alias": "gsm8k", "bypass,none": 999, "bypass_stderr,none": "N/A"}
    doc["higher_is_better"]["gsm8k"] = {"bypass": True}
    doc["results"].update(more_tasks)
    return doc


def test_a_predict_only_results_file_is_refused_not_stored_as_a_score_of_999(tmp_path, capsys):
    out = tmp_path / "results_2024-09-25T00-18-34.json"
    out.write_text(json.dumps(predict_only(), indent=2), encoding="utf-8")
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, stdout, err = run_cli(capsys, "results", "ingest", "--db", db, str(out))
    (line,) = err.splitlines()
    assert rc == 1 and "nothing stored" in stdout, (stdout, err)
    assert line.startswith(f"{out}:2:") and "only lm-eval's bypass placeholder (999), no scores" in line
    assert "--predict_only" in line


def test_the_placeholder_beside_real_scores_is_left_out_with_a_warning(tmp_path, capsys):
    arc = {"alias": "arc_easy", "acc,none": 0.8, "acc_stderr,none": 0.008}
    out = tmp_path / "results.json"
    out.write_text(json.dumps(predict_only(arc_easy=arc), indent=2), encoding="utf-8")
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(out))
    assert rc == 0 and "warning: results.gsm8k.bypass,none: lm-eval's placeholder (999" in err, err
    (rec,) = show_json(capsys, db)
    assert [(e[R.EVAL_TASK], e[R.EVAL_METRIC], e[R.EVAL_VALUE]) for e in rec[R.EVALS]] == [("arc_easy", "acc", 0.8)]
