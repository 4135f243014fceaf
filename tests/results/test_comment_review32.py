"""What a maintainer reads in the PR comment and the terminal (comment review 32), from real lm-eval
output (llama3-70b gsm8k) ingested with its jobs' sidecars."""

from __future__ import annotations

from helpers import run_cli
from test_compare_evals import PR_REF, STRICT, gsm8k, ingest_job


def one_score(delta: float = 0.0) -> dict:
    """The gsm8k results with one score only (strict-match): a task scored by one metric and filter."""
    out = gsm8k(delta)
    for key in [k for k in out["results"]["gsm8k"] if k.endswith(",flexible-extract")]:
        del out["results"]["gsm8k"][key]
    return out


def test_one_eval_score_is_counted_in_the_singular(tmp_path, db, capsys):
    """Review: a run with one eval score headed its Evals section "1 eval scores: 1 regressed", in the
    Markdown and under the terminal's evals table alike."""
    for run, day in (("1001", 1), ("1002", 2), ("1003", 3)):
        ingest_job(tmp_path, db, capsys, run, one_score(), day=day)
    ingest_job(tmp_path, db, capsys, "2002", one_score(-0.1), ref=PR_REF, day=4)
    rc, md, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "2002", "--markdown")
    assert rc == 0, err
    assert f"gsm8k exact_match {STRICT}" in md
    assert "#### Evals (1 eval score: 1 regressed)" in md, md
    rc, text, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "2002")
    assert rc == 0, err
    assert "1 eval score: 1 regressed" in text and "1 eval scores" not in text, text


def test_the_comment_says_the_unit_of_a_metric_whose_name_does_not():
    """Review: a regressed point's rows read "output_tput_per_gpu 92.9" and "interactivity 98.2" with no
    unit anywhere in the comment (the `_ms` metrics name theirs, success_rate is a percentage; only the New
    table's headers, tok/s/GPU and tok/s/user, said it). One line under the tables says it, with the
    units `results show` heads those columns with; a comment whose tables hold neither metric has none."""
    import synth
    from sweepgate.results import compare as C
    from sweepgate.results import record as R
    from sweepgate.results import render, show

    key = synth.KEYS[0]
    pr = synth.pr_run({(key, 16): {R.OUTPUT_TPUT_PER_GPU: 0.8}}, keys=(key,), concs=(8, 16))
    md = render.markdown(C.compare_records(pr, synth.history(keys=(key,), concs=(8, 16))))
    names = {metric: header for header, metric in show.COLUMNS}
    line = next((ln for ln in md.splitlines() if ln.startswith("Units: ")), None)
    assert line == (f"Units: `{R.OUTPUT_TPUT_PER_GPU}` {names[R.OUTPUT_TPUT_PER_GPU]}, "
                    f"`{R.INTERACTIVITY}` {names[R.INTERACTIVITY]}; `_ms` metrics in milliseconds."), md
    assert md.index("#### Regressed") < md.index(line) < md.index("<summary>Unchanged"), md
    new_only = render.markdown(C.compare_records(pr, []))  # every point new: the New table's headers say it
    assert "Units: " not in new_only, new_only
