"""What a new user (new-user29) met comparing a PR run with main's runs by hand and reading its report."""

from __future__ import annotations

from helpers import job, sweepgate_at, vllm_output, write_job

RULE = "How to read a verdict:"


def _runs(folder, db: str, pr_factor: float) -> None:
    """Five main runs of one point, with a little noise, and a PR run (42, refs/pull/7/head) whose
    throughput is ``pr_factor`` of theirs, each ingested as a real process."""
    runs = [(str(run), "refs/heads/main", day, factor)
            for run, day, factor in zip(range(11, 16), range(1, 6), (1.0, 1.02, 0.99, 1.01, 0.98))]
    for run, ref, day, factor in [*runs, ("42", "refs/pull/7/head", 9, pr_factor)]:
        output = vllm_output(4, output_throughput=409.6 * factor, total_token_throughput=819.2 * factor,
                             median_tpot_ms=8.0 / factor, median_e2el_ms=8800.0 / factor)
        path = write_job(folder / run, "res", output, job(run_id=run, ref=ref, finished=f"2026-01-0{day}T12:00:00+00:00"))
        proc = sweepgate_at(folder, "results", "ingest", "--db", db, str(path))
        assert proc.returncode == 0, proc.stderr


def test_a_report_with_intervals_says_how_a_verdict_is_read(tmp_path):
    """A PR comment read "ttft_p50_ms 345.6 | 292.8 [240.3, 361.2] (n=3) | +18.1% (±5%) | unchanged" under
    four regressed rows of the same point, and nothing in the comment or on the terminal said what the
    interval is or that a verdict needs the figure outside it as well as the threshold: an 18 % move
    called unchanged read as a bug. One line under the tables now says it, in the Markdown report and
    on the terminal, and names whose figure it is (the PR's)."""
    db = f"sqlite:///{tmp_path / 'r.db'}"
    _runs(tmp_path, db, 0.8)
    md = sweepgate_at(tmp_path, "results", "compare", "--db", db, "--run", "42", "--markdown")
    assert md.returncode == 0, md.stderr
    (line,) = [line for line in md.stdout.splitlines() if line.startswith(RULE)]
    assert "`regressed` or `improved` only when the PR's figure is outside its interval" in line, line
    assert "changed by more than its threshold" in line and "`unchanged`" in line, line
    text = sweepgate_at(tmp_path, "results", "compare", "--db", db, "--run", "42")
    assert text.returncode == 0, text.stderr
    said = " ".join(text.stdout.split())
    assert f"{RULE} a metric is regressed or improved only when the PR's figure is outside its interval" in said, \
        text.stdout
    assert said.index(RULE) > said.index("Units:"), text.stdout  # under the table, beside the units


def test_a_report_with_no_interval_says_nothing_of_one(tmp_path):
    """A run whose every point is new has no interval to explain: no such line."""
    db = f"sqlite:///{tmp_path / 'r.db'}"
    path = write_job(tmp_path / "42", "res", vllm_output(4), job(run_id="42", ref="refs/pull/7/head"))
    assert sweepgate_at(tmp_path, "results", "ingest", "--db", db, str(path)).returncode == 0
    for extra in ((), ("--markdown",)):
        proc = sweepgate_at(tmp_path, "results", "compare", "--db", db, "--run", "42", *extra)
        assert proc.returncode == 0 and "new" in proc.stdout, proc.stderr
        assert RULE not in proc.stdout, proc.stdout
