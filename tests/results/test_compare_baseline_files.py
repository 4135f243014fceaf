"""A baseline read from files (--baseline-jsonl) is the one the store would give: main's runs from
before the run, not a later main run that merged the change, nor another PR's runs."""

from __future__ import annotations

import json

import pytest

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


def _pr_run(tmp_path, capsys) -> str:
    """A PR run 777 in its own store; its URL."""
    pr = f"sqlite:///{tmp_path / 'pr.db'}"
    _job(tmp_path / "pr", "777", "refs/pull/7/merge", "02-01", 368.6)
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", pr, str(tmp_path / "pr"))
    assert rc == 0, err
    return pr


@pytest.mark.parametrize("text,how", [("", "an empty file"), ("  \n\n\t\n", "only blank lines")])
def test_an_empty_baseline_file_is_said_on_stderr_and_in_the_report(tmp_path, capsys, monkeypatch, text, how):
    """gate27: a zero-byte or blank --baseline-jsonl (a failed artifact download) judged every point
    `new` and --fail-on-regression passed, saying only "no baseline results ... check --baseline-ref"
    and, in the report, that no main run had measured the points. Still exit 0 (`results ingest
    --allow-empty --jsonl` writes such a file for a main run whose every job was reused), but the
    file is named as empty in a warning line and its annotation, and the report says nothing was
    compared."""
    pr = _pr_run(tmp_path, capsys)
    empty = tmp_path / "main.jsonl"
    empty.write_text(text, encoding="utf-8")
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    rc, out, err = run_cli(capsys, "results", "compare", "--db", pr, "--run", "777", "--fail-on-regression",
                           "--markdown", "--baseline-jsonl", str(empty))
    assert rc == 0, err
    said = f"holds no baseline records ({how}), so nothing of it is compared: every point of run 777 is new"
    lines = err.splitlines()
    assert lines[0].startswith(f"{empty}: warning: {said}; pass the results.jsonl"), err
    assert any(line.startswith("::warning ") and said in line for line in lines), err  # outside the repository: title=
    assert "no baseline results for run" not in err  # the generic line, which sent the user to --baseline-ref
    assert f"> **No baseline was compared: {empty} held no records" in out, out
    rc, out, _ = run_cli(capsys, "results", "compare", "--db", pr, "--run", "777", "--baseline-jsonl", str(empty))
    assert rc == 0 and f"No baseline was compared: {empty} held no records" in out, out


def test_an_empty_file_beside_a_baseline_is_warned_of_and_the_rest_compared(tmp_path, capsys):
    main, pr = f"sqlite:///{tmp_path / 'main.db'}", _pr_run(tmp_path, capsys)
    jsonl, empty = tmp_path / "main.jsonl", tmp_path / "reused.jsonl"
    for n in range(5):
        _job(tmp_path / "in", str(100 + n), "refs/heads/main", f"01-0{n + 1}", 409.6 + n)
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", main, "--jsonl", str(jsonl), str(tmp_path / "in"))
    assert rc == 0, err
    empty.write_bytes(b"")
    rc, out, err = run_cli(capsys, "results", "compare", "--db", pr, "--run", "777", "--fail-on-regression",
                           "--markdown", "--baseline-jsonl", str(jsonl), str(empty))
    assert rc == 3, err  # judged against main.jsonl: -10 %
    assert err.splitlines()[0] == (f"{empty}: warning: holds no baseline records (an empty file), so nothing of it "
                                   "is compared; pass the results.jsonl `results ingest --jsonl` wrote on the "
                                   "baseline ref; a failed or partial download leaves it empty, and so does a run "
                                   "whose every job was reused"), err
    assert "No baseline was compared" not in out


def test_an_empty_baseline_named_with_brackets_is_shown_as_named(tmp_path, capsys):
    """review27: the terminal report's "No baseline was compared: PATHS ..." note was printed as rich
    markup, so `base[main].jsonl` read `base.jsonl`, and a folder `q[/b]` stopped compare with
    "internal error: MarkupError". The note is text: the paths read as the user gave them."""
    pr = _pr_run(tmp_path, capsys)
    named, folder = tmp_path / "base[main].jsonl", tmp_path / "q[/b]"
    named.write_bytes(b"")
    folder.mkdir(parents=True)  # q[ holding b]
    (folder / "e.jsonl").write_bytes(b"")
    rc, out, err = run_cli(capsys, "results", "compare", "--db", pr, "--run", "777",
                           "--baseline-jsonl", str(named), str(folder))
    assert rc == 0 and "internal error" not in err, err
    assert f"No baseline was compared: {named}, {folder} held no records" in " ".join(out.split()), out
