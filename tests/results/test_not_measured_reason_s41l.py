"""New user s41l: a PR run that measured every point but left out the eval scores main has at one was told
"Not judged: a trimmed sweep runs fewer concurrencies", a reason about dropped points, not about missing scores.
The note gives that reason only where a whole point is missing. Real SQLite store, the real CLI."""

from __future__ import annotations

import synth
from sweepgate import cli
from sweepgate.results import record as R
from sweepgate.results import store

TRIMMED = "a trimmed sweep runs fewer concurrencies"


def build(tmp_path, drop_point: bool) -> str:
    url = f"sqlite:///{tmp_path / 'r.db'}"
    key = synth.KEYS[0]
    history = synth.history(keys=(key,))
    newest = next(r for r in history if r[R.RUN_ID] == "main-4" and r[R.CONC] == 16)
    scores = {**newest, R.CLIENT: R.EVAL_CLIENT, R.RESULT_FILENAME: newest[R.RESULT_FILENAME] + "-eval",
              R.METRICS: {}, R.EVALS: [{R.EVAL_TASK: "gsm8k", R.EVAL_METRIC: "exact_match",
                                        R.EVAL_FILTER: "strict-match", R.EVAL_VALUE: 0.9, R.EVAL_STDERR: 0.01,
                                        R.EVAL_SAMPLES: 1319}]}
    pr = [r for r in synth.pr_run(keys=(key,)) if not (drop_point and r[R.CONC] == 64)]
    with store.open_store(url) as st:
        st.add(history + [scores])
        st.add(pr)
    return url


def note(tmp_path, capsys, drop_point: bool) -> str:
    url = build(tmp_path, drop_point)
    assert cli.main(["results", "compare", "--db", url, "--run", "pr-7", "--markdown"]) == 0
    (line,) = [line for line in capsys.readouterr().out.splitlines() if line.startswith("> Not measured")]
    return line


def test_missing_eval_scores_alone_are_not_called_a_trimmed_sweep(tmp_path, capsys):
    line = note(tmp_path, capsys, drop_point=False)
    assert "eval scores at 1 point" in line and TRIMMED not in line, line
    assert "check that none was dropped by mistake" in line, line


def test_a_dropped_point_still_names_a_trimmed_sweep(tmp_path, capsys):
    line = note(tmp_path, capsys, drop_point=True)
    assert "1 point, eval scores at 1 point" in line and TRIMMED in line, line
