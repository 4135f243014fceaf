"""s47g, a new maintainer's PR with an lm-eval score beside its throughput: the terminal printed the points'
table, the headline, and then the evals table, ending in its own count (`2 eval scores: 1 regressed, 1
unchanged`), so the run's verdict sat in the middle of the output and `| tail -1` read the evals' count alone,
while docs/results.md says the headline is the terminal's last line. The evals table now comes before the
headline, its count under it, and the headline (with the notes that belong under it) ends the output."""

from __future__ import annotations

from helpers import run_cli
from test_compare_evals import PR_REF, gsm8k, ingest_job


def test_the_headline_ends_the_terminal_report_after_the_evals_table(tmp_path, db, capsys):
    for run, day in (("1001", 1), ("1002", 2), ("1003", 3)):
        ingest_job(tmp_path, db, capsys, run, gsm8k(), day=day)
    ingest_job(tmp_path, db, capsys, "2002", gsm8k(-0.05), ref=PR_REF, day=4)
    rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "2002")
    assert rc == 0, err
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip() == "evals")
    count = lines.index("2 eval scores: 1 regressed, 1 unchanged")
    assert start < count, out
    assert "gsm8k exact_match strict-match" in lines[start + 2] and "regressed" in lines[start + 2], out
    assert lines[-1].startswith("run 2002 against main (") and lines[-1].endswith("; eval scores: 1 regressed, 1 unchanged"), out
    assert count < len(lines) - 1 and lines.index(lines[-1]) > count, out  # the evals' count above the headline
