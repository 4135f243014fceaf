"""s38i: request counts and figures no run can have are refused at ingest, and read as none where an older
sweepgate stored them, never a traceback or a wrong rate.

- A vLLM output with ``completed: 1e308, failed: 1e308`` was stored; its success rate came out 0 % (the sum
  overflowed to infinity) and `results compare` against main stopped with an internal OverflowError. A run
  said to have sent more than ``record.MAX_RUN_REQUESTS`` requests is refused, one line at its count.
- A throughput or latency of 1e308 was stored, and two such baseline runs made compare's interval overflow
  (``math.exp``). A figure above ``record.MAX_FIGURE`` is refused, one line at its key.
- Records an older sweepgate stored so: their counts are none (no request test, no "N of M completed"), their
  success rate derived from them none, and their figures above the cap none, in compare and `results show`.

Real vLLM-shaped outputs and job sidecars written under tmp dirs, a real SQLite store, the real CLI.
"""

from __future__ import annotations

import json

import pytest
from helpers import compare_main_and_pr, job, refused_alone, run_cli, show_json, vllm_output, write_job
from synth import history, pr_run

from sweepgate.results import compare as C
from sweepgate.results import plausible
from sweepgate.results import record as R
from sweepgate.results import store

CAP = f"{R.MAX_RUN_REQUESTS:,}"


def _refused_line(capsys, tmp_path, **over) -> str:
    made = tmp_path / "made" / "out.json"
    made.parent.mkdir()
    made.write_text(json.dumps(vllm_output(4, **over), indent=1), encoding="utf-8")
    src, lines = refused_alone(capsys, tmp_path, made)
    assert len(lines) == 1, lines
    assert "Traceback" not in lines[0]
    return lines[0].replace(str(src), "OUT")


def _key_place(text: str, key: str) -> str:
    at = text.index(f'"{key}"')
    return f"{text.count(chr(10), 0, at) + 1}:{at - (text.rfind(chr(10), 0, at) + 1) + 1}"


def test_counts_whose_sum_overflows_are_refused_at_the_completed_count(capsys, tmp_path):
    line = _refused_line(capsys, tmp_path, completed=1e308, failed=1e308)
    text = (tmp_path / "in" / "out.json").read_text()
    assert line == (f"OUT:{_key_place(text, 'completed')}: completed: 1e+308 requests, more than a run sends (at most "
                    f"{CAP}, completed and failed together); {plausible.CORRUPT}")


def test_a_failed_count_past_any_run_is_refused_at_its_key(capsys, tmp_path):
    line = _refused_line(capsys, tmp_path, failed=1e308)
    text = (tmp_path / "in" / "out.json").read_text()
    assert line.startswith(f"OUT:{_key_place(text, 'failed')}: failed: 1e+308 requests, more than a run sends")


def test_two_counts_each_within_the_cap_but_not_together_are_refused(capsys, tmp_path):
    line = _refused_line(capsys, tmp_path, completed=600_000_000, failed=600_000_000,
                          num_prompts=1_200_000_000)
    text = (tmp_path / "in" / "out.json").read_text()
    assert line == (f"OUT:{_key_place(text, 'completed')}: completed: 6e+08 and failed: 6e+08 requests, 1.2e+09 "
                    f"together, more than a run sends (at most {CAP}, completed and failed together); "
                    f"{plausible.CORRUPT}")


@pytest.mark.parametrize("over, key", [
    ({"output_throughput": 1e308, "total_token_throughput": 1e308}, "output_throughput"),
    ({"mean_ttft_ms": 1e308, "median_ttft_ms": 1e308, "p99_ttft_ms": 1e308}, "mean_ttft_ms"),
    ({"total_input_tokens": 1e300}, "total_input_tokens"),
    ({"duration": 1e308}, "duration"),
])
def test_a_figure_past_any_measurement_is_refused_at_its_key(capsys, tmp_path, over, key):
    """duration 1e308 was refused as "0.4 req/s for 1e+308 s is 4000000...(300 digits) requests"."""
    line = _refused_line(capsys, tmp_path, **over)
    text = (tmp_path / "in" / "out.json").read_text()
    value = f"{over[key]:g}"
    assert line == (f"OUT:{_key_place(text, key)}: {key}: {value} is beyond any measurement (at most 1e+15, in any "
                    f"unit); {plausible.CORRUPT}")


def test_a_run_within_the_caps_is_stored(capsys, tmp_path):
    """A run of a million requests at its rate is a run: counts and figures below the caps are stored."""
    db = f"sqlite:///{tmp_path / 'r.db'}"
    out = write_job(tmp_path / "o", "res", vllm_output(4, num_prompts=10**6, completed=999_000, failed=1000,
                                                       duration=10_000.0,
                                                       request_throughput=100.0, total_output_tokens=10**9,
                                                       output_throughput=10**5, total_token_throughput=2 * 10**5),
                    job(run_id="31"))
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(out))
    assert rc == 0, err
    (rec,) = show_json(capsys, db)
    assert rec[R.METRICS][R.SUCCESS_RATE] == 0.999


def _stored_by_an_older_version(base: list[dict], pr: list[dict], **metrics) -> None:
    for rec in base:
        rec[R.METRICS].update({R.COMPLETED: 320, R.FAILED: 0, R.SUCCESS_RATE: 1.0})
    for rec in pr:
        rec[R.METRICS].update(metrics)


def test_compare_reads_counts_past_any_run_as_none_and_their_rate_too():
    """The reviewer's records: head 1e308 completed and 1e308 failed, its success rate stored as 0 (the sum
    overflowed): an OverflowError in compare; now the head has no counts and no success rate to judge."""
    base, pr = history(), pr_run()
    _stored_by_an_older_version(base, pr, **{R.COMPLETED: 1e308, R.FAILED: 1e308, R.SUCCESS_RATE: 0.0})
    comparison = C.compare_records(pr, base)
    assert comparison.verdicts
    assert not [v for v in comparison.verdicts if v.metric == R.SUCCESS_RATE]


def test_a_baseline_run_whose_counts_are_past_any_run_is_left_out_of_the_rate():
    base, pr = history(), pr_run()
    _stored_by_an_older_version(base, pr, **{R.COMPLETED: 320, R.FAILED: 0, R.SUCCESS_RATE: 1.0})
    for rec in base[:5]:  # one main run's points
        rec[R.METRICS].update({R.COMPLETED: 1e308, R.FAILED: 1e308, R.SUCCESS_RATE: 0.0})
    rates = [v for v in C.compare_records(pr, base).verdicts if v.metric == R.SUCCESS_RATE]
    assert rates and all(v.median == 1.0 and v.verdict == C.UNCHANGED for v in rates)
    assert 4 in {v.n for v in rates}  # the run of 1e308 each is left out of the window's rates


def test_figures_past_any_measurement_an_older_version_stored_are_none_in_compare():
    """Baseline TTFTs of 1e308 and 1.7e308: the noise test's interval overflowed (math.exp) in an internal
    error; the figures are none, so the head's TTFT has no baseline values and is judged as new."""
    base, pr = history(), pr_run()
    metric = R.latency_name("ttft", "p50")
    for i, rec in enumerate(base):
        rec[R.METRICS][metric] = (1.7e308, 1.7e308, 1e308, 1e308)[i % 4]
    ttft = [v for v in C.compare_records(pr, base).verdicts if v.metric == metric]
    assert ttft and all(v.median is None and v.n == 0 for v in ttft)


def test_show_and_compare_of_a_store_an_older_version_wrote_with_such_counts(capsys, tmp_path):
    """A store holding a PR record an older sweepgate wrote (1e308 completed and failed, success 0.0):
    `results show` left its rate at 0.0 %, and compare (table, JSON, Markdown, charts) stopped with an internal
    OverflowError. Now the rate is none in both, and the other figures are judged."""
    db = f"sqlite:///{tmp_path / 'r.db'}"
    compare_main_and_pr(capsys, tmp_path / "out", db, lambda tail: vllm_output(4), None)
    (pr,) = show_json(capsys, db, "--run", "21")
    old = {**pr, R.RUN_ID: "22", R.OUTPUT_SHA256: None,
           R.METRICS: {**pr[R.METRICS], R.COMPLETED: 1e308, R.FAILED: 1e308, R.SUCCESS_RATE: 0.0}}
    with store.open_store(db) as st:
        assert st.add([old]) == 1
    rc, out, err = run_cli(capsys, "results", "show", "--db", db, "--run", "22")
    assert rc == 0, err
    assert "0.0%" not in out and "100.0%" not in out
    for fmt in ([], ["--json"], ["--markdown", "--plots", str(tmp_path / "plots"),
                                 "--comment-file", str(tmp_path / "c.md")]):
        rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "22", *fmt)
        assert rc == 0, err
        assert "internal error" not in err
    points = json.loads(run_cli(capsys, "results", "compare", "--db", db, "--run", "22", "--json")[1])["points"]
    assert points and not [p for p in points if p["metric"] == R.SUCCESS_RATE]
