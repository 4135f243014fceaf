"""A baseline read from files (--baseline-jsonl) is the one the store would give: main's runs from
before the run, not a later main run that merged the change, nor another PR's runs."""

from __future__ import annotations

import json

from helpers import job, run_cli, vllm_output, write_job


def _job(folder, run_id: str, ref: str, day: str, throughput: float):
    sidecar = job(run_id=run_id, ref=ref, finished=f"2026-{day}T12:00:00+00:00")
    write_job(folder / run_id, "res_c4", vllm_output(4, output_throughput=throughput), sidecar)


def _verdict(tmp_path, capsys, *runs) -> str:
    """The output throughput verdict of PR run 777 (-10 %) against a JSONL baseline of ``runs``."""
    main, pr = f"sqlite:///{tmp_path / 'main.db'}", f"sqlite:///{tmp_path / 'pr.db'}"
    jsonl = tmp_path / "main.jsonl"
    for n in range(5):  # main before the PR: 409.6 tok/s within 1 %
        _job(tmp_path / "in", str(100 + n), "refs/heads/main", f"01-0{n + 1}", 409.6 + n)
    for run_id, ref, day, throughput in runs:
        _job(tmp_path / "in", run_id, ref, day, throughput)
    for folder in sorted((tmp_path / "in").iterdir()):
        rc, _, err = run_cli(capsys, "results", "ingest", "--db", main, "--jsonl", str(jsonl), str(folder))
        assert rc == 0, err
    _job(tmp_path / "pr", "777", "refs/pull/7/merge", "02-01", 368.6)
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", pr, str(tmp_path / "pr"))
    assert rc == 0, err
    rc, out, err = run_cli(capsys, "results", "compare", "--db", pr, "--run", "777", "--json",
                           "--baseline-jsonl", str(jsonl))
    assert rc == 0, err
    return next(p["verdict"] for p in json.loads(out)["points"] if p["metric"] == "output_tput_per_gpu")


def test_later_main_runs_in_the_file_do_not_judge_an_earlier_run(tmp_path, capsys):
    # main merged the PR's -10 % after it ran: five later runs at its figure
    later = [(str(200 + n), "refs/heads/main", f"03-0{n + 1}", 368.6 + n) for n in range(5)]
    assert _verdict(tmp_path, capsys, *later) == "regressed"


def test_another_prs_runs_in_the_file_are_not_main(tmp_path, capsys):
    others = [(str(300 + n), "refs/pull/9/merge", f"01-1{n}", 368.6 + n) for n in range(5)]
    assert _verdict(tmp_path, capsys, *others) == "regressed"


def test_a_mistyped_baseline_ref_is_refused_as_the_store_refuses_it(tmp_path, capsys):
    # Held to --baseline-ref, a file whose records are all on refs/heads/main made every point `new`
    # under refs/heads/mian, and --fail-on-regression passed whatever the run measured (exit 0).
    main, pr = f"sqlite:///{tmp_path / 'main.db'}", f"sqlite:///{tmp_path / 'pr.db'}"
    jsonl = tmp_path / "main.jsonl"
    for n in range(5):
        _job(tmp_path / "in", str(100 + n), "refs/heads/main", f"01-0{n + 1}", 409.6 + n)
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", main, "--jsonl", str(jsonl), str(tmp_path / "in"))
    assert rc == 0, err
    _job(tmp_path / "pr", "777", "refs/pull/7/merge", "02-01", 368.6)
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", pr, str(tmp_path / "pr"))
    assert rc == 0, err
    rc, out, err = run_cli(capsys, "results", "compare", "--db", pr, "--run", "777", "--fail-on-regression",
                           "--baseline-jsonl", str(jsonl), "--baseline-ref", "refs/heads/mian")
    assert rc == 1, (out, err)
    assert f"--baseline-ref: no results on 'refs/heads/mian' in {jsonl}, which holds runs on refs/heads/main; " \
           "pass --baseline-ref refs/heads/main" in err
