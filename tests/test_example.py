"""The main job: `sweepgate` with no arguments runs the seed scenario on the built-in example fleet."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import ROOT


# A guard against a hang only, not a speed goal (tests/bench/example_speed.py times the example): the whole
# example, seven real rehearsals, takes about 50 s on an idle 2-core host and passed 120 s beside other work.
HANG_S = 900


def sweepgate(*args: str, cwd=None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "utils")}
    return subprocess.run([sys.executable, "-m", "sweepgate", *args], capture_output=True, text=True, env=env,
                          cwd=cwd or ROOT, timeout=HANG_S)


SEED = "kimik3-fp4-b300-vllm-agentic-dspark-lmcache"


@pytest.fixture(scope="module")
def json_into_a_used_plots_folder(tmp_path_factory):
    """`sweepgate --json --plots DIR`, run once for two tests that only read what it printed and left: DIR
    already holds a chart an earlier compare drew (named as none of the example's) and a user's own file.
    ``(proc, plots)``. A whole example takes most of a minute; the tests below each read one part of it."""
    sys.path.insert(0, str(ROOT / "tests" / "results"))
    import synth

    from sweepgate.results import charts
    from sweepgate.results import compare as C

    top = tmp_path_factory.mktemp("json-plots")
    plots, elsewhere = top / "plots", top / "elsewhere"
    (written, *_) = charts.draw_charts(C.compare_records(synth.pr_run(), synth.history()), elsewhere, formats=("png",))
    plots.mkdir()
    shutil.copyfile(written, plots / "an-earlier-compare.png")
    (plots / "notes.txt").write_text("mine")
    return sweepgate("--json", "--plots", str(plots), cwd=top), plots


# What the seed change runs: 4 agentic LMCache rows, 2 multi-node baselines (2 concs each), 1 eval row.
REHEARSED_ROWS = 7
COMPARED_POINTS = 4 + 2 * 2   # the eval row's scores share conc 16's point and are not a throughput point


def charts_printed(stdout: str) -> list[Path]:
    """The chart paths the example printed: under its heading, one a line (review: they were one
    comma-joined line), as many as the heading counts."""
    lines = stdout.splitlines()
    (at,) = [i for i, line in enumerate(lines) if line.startswith("charts (rehearsal figures), ")]
    n = int(lines[at].split(", ")[1].split()[0])
    paths = [line[2:] for line in lines[at + 1:at + 1 + n]]
    assert all(line.startswith("  /") and "," not in line for line in lines[at + 1:at + 1 + n]), lines[at:at + n + 1]
    return [Path(p) for p in paths]


def test_no_arguments_runs_the_seed_scenario_to_the_comparison(piped_example):
    # the README's first command, outside any checkout (the repository is a temp dir): conftest's one run,
    # which test_terminal reads too; its charts folder is removed at the session's end
    proc, cwd, tmp = piped_example
    charts = charts_printed(proc.stdout)
    plots = charts[0].parent if charts else tmp / "none"
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert plots.parent == tmp  # the temporary charts folder is made in $TMPDIR
    assert "gate: PASS" in proc.stdout
    for conc in (4, 8, 10, 16):
        assert f"kimik3_tp8_conc{conc}_kvdram-lmcache_spec-mtp" in proc.stdout
    assert "1889" in proc.stdout and "lmcache@0.5.4rc2" in proc.stdout
    # the rehearsal: every row, in-process, each line saying how it went
    assert proc.stdout.count(" ok\n") == REHEARSED_ROWS, proc.stdout
    assert "agentic rows send 2 s of load" in proc.stdout
    # the comparison table: every figure marked, the generated history said to be generated
    assert "REHEARSAL" in proc.stdout and "GENERATED history of 5 runs" in proc.stdout
    lines = proc.stdout.splitlines()  # piped: the whole grid, the point's label in every row
    table = [line for line in lines if line.startswith(SEED + " ") and "output_tput_per_gpu" in line]
    assert len(table) == 4 and all(line.count("(rehearsal)") == 2 for line in table), table
    assert "nothing failed, regressed or improved; 8 points unchanged" in proc.stdout  # no zero counted (s38f)
    # review: the store's path was printed, then deleted with the throwaway repository
    assert "sqlite:" not in proc.stdout and "store (removed on exit; --keep keeps it)" in proc.stdout
    # charts: one PNG and one SVG per chart group, the seed key's among them
    names = sorted(p.name for p in plots.iterdir())
    assert names == sorted(p.name for p in charts) and plots.name.startswith("sweepgate-example-charts-")
    assert "Kimi-K3_fp4_b300_agentic-coding.png" in names and len(names) == 6, names
    assert all((plots / n).stat().st_size > 0 for n in names)
    assert list(cwd.iterdir()) == []  # nothing written where it ran


def test_json_output_is_the_matrix_contract_and_the_comparison(json_into_a_used_plots_folder):
    proc, plots = json_into_a_used_plots_folder
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["gate"] == {"ok": True, "problems": []}
    rows = out["matrix"]["single_node"]["agentic"]
    assert [r["conc"] for r in rows] == [4, 8, 10, 16]
    assert {r["total-cpu-dram-gb"] for r in rows} == {1889}
    assert out["matrix"]["changelog_metadata"]["entries"][0]["config-keys"] == [out["scenario"]["seed_key"]]
    stage = out["rehearsal"]
    assert stage["rehearsal"] is True and len(stage["rows"]) == REHEARSED_ROWS
    assert stage["results"]["db"] is None  # removed on exit (without --keep): no path to a deleted file
    assert all(r["ok"] for r in stage["rows"]), stage["rows"]
    assert stage["results"]["generated_baseline"] == {"ref": "refs/heads/main", "runs": 5,
                                                      "records": 5 * COMPARED_POINTS, "rehearsal": True}
    comparison = stage["comparison"]
    assert comparison["rehearsal"] is True and all(p["rehearsal"] for p in comparison["points"])
    points = {(p["config-key"], p["conc"]) for p in comparison["points"]}
    assert len(points) == COMPARED_POINTS and {(SEED, c) for c in (4, 8, 10, 16)} <= points
    assert None not in {key for key, _ in points}  # every row's sidecar named its config key
    assert set(comparison["counts"]) >= {"regressed", "improved", "unchanged"}
    assert comparison["counts"]["new"] == 0 and comparison["counts"]["insufficient-data"] == 0
    svgs = [p for p in stage["charts"] if p.endswith(".svg")]
    assert svgs and all("REHEARSAL" in open(p, encoding="utf-8").read() for p in svgs)
    assert {Path(p).parent for p in stage["charts"]} == {plots}  # drawn where --plots says


def test_a_bad_plots_folder_is_refused_before_the_rehearsal(tmp_path):
    """Review: `--plots /etc/passwd` rehearsed every row for a minute, then failed at the charts
    and printed no results."""
    (tmp_path / "a-file").write_text("x")
    started = time.monotonic()
    proc = sweepgate("--plots", str(tmp_path / "a-file"), cwd=tmp_path)
    assert proc.returncode == 1 and proc.stdout == "", proc.stdout
    assert proc.stderr.strip() == f"{tmp_path / 'a-file'}: --plots: is a file; pass --plots DIR, a folder or a path under one"
    assert time.monotonic() - started < 20


@pytest.mark.parametrize("kind", ["dangling link", "cannot be created"])
def test_a_plots_folder_no_chart_could_be_written_to_is_refused_before_the_gate(tmp_path, kind):
    """New-user review: `--plots` at a symbolic link to nothing, or under /proc, passed the first
    check and failed after the gate, the matrix and seven rehearsals (35 s), with no results shown."""
    if kind == "dangling link":
        given = tmp_path / "plots"
        given.symlink_to(tmp_path / "gone")
        said = f"{given}: is a symbolic link to {tmp_path / 'gone'}, which does not exist; "
    else:
        given = Path("/proc/sweepgate-plots")
        said = f"{given}: --plots: cannot be created in /proc ("
    proc = sweepgate("--plots", str(given), cwd=tmp_path)
    assert proc.returncode == 1 and proc.stdout == "", proc.stdout
    (line,) = proc.stderr.splitlines()
    assert line.startswith(said), line


def test_no_rehearse_stops_after_the_matrix(tmp_path):
    proc = sweepgate("--json", "--no-rehearse", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert "rehearsal" not in out and out["gate"]["ok"]


def test_json_help_says_what_the_document_holds():
    """New user: `sweepgate example --help` said --json prints "the gate verdict and matrix", and the
    document also holds the rehearsal, results, comparison and charts (the README: "prints it all")."""
    import argparse

    from sweepgate.commands import example

    parser = argparse.ArgumentParser()
    example.add_arguments(parser)
    (said,) = [a.help for a in parser._actions if "--json" in a.option_strings]
    assert all(word in said for word in ("gate", "matrix", "rehearsal", "comparison", "charts")), said


def test_the_example_repository_plans_6_jobs_and_68_gpu_hours(tmp_path):
    # 4 LMCache single-node jobs + their eval on B300, and the two multi-node
    # disaggregated baselines appended after the seed entry (one per GPU family),
    # charged the shipped estimates (multi-node 8k1k: 45 minutes; it was 56 GPU-hours
    # when the built-in defaults lacked the multi-node buckets the fleet's file has).
    from sweepgate.commands.example import build_repo
    from sweepgate.core.load import Git
    from sweepgate.core.plan import make_plan

    base, head = build_repo(str(tmp_path))
    plan = make_plan(Git(tmp_path), base, head)
    assert plan["jobs"] == 6 and plan["gpu_hours"] == 68.0
    assert plan["by_runner"]["cluster:b300-nv"]["jobs"] == 5
    assert plan["by_runner"]["cluster:mi355x-amds"]["jobs"] == 1
    assert plan["warnings"] == []


def test_sigterm_removes_the_throwaway_repository_and_stops_the_rehearsal(tmp_path):
    """Contracts review: a killed `sweepgate example` (exit 143) left /tmp/sweepgate-example-* behind,
    though the README says the repository is removed on exit unless --keep."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "utils"), "TMPDIR": str(tmp_path)}
    proc = subprocess.Popen([sys.executable, "-m", "sweepgate", "example"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path, start_new_session=True)
    deadline = time.monotonic() + 60
    while not list(tmp_path.glob("sweepgate-example-*/.git")) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert list(tmp_path.glob("sweepgate-example-*")), "the example made no repository"

    def scripts() -> list[str]:  # the rehearsal's benchmark scripts run in sessions of their own
        return subprocess.run(["pgrep", "-f", f"bash .*{tmp_path}"], capture_output=True, text=True).stdout.split()

    while not scripts() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert scripts(), "no benchmark script was rehearsed"
    proc.terminate()
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143 and "sweepgate: terminated" in err and "Traceback" not in err, err
    assert not list(tmp_path.glob("sweepgate-example-*")), list(tmp_path.iterdir())
    time.sleep(1)
    left = subprocess.run(["pgrep", "-f", str(tmp_path)], capture_output=True, text=True).stdout.split()
    assert not left, f"processes of the example still run: {left}"


def test_the_example_stops_when_its_ingest_was_stopped(tmp_path, monkeypatch):
    """Diff review: the ingest now reports what stopped it instead of raising; the example went on
    to compare and exited 0 after SIGTERM or a failing store."""
    sys.path.insert(0, str(ROOT / "utils"))
    from sweepgate.commands import example
    from sweepgate.core.errors import Terminated
    from sweepgate.results import ingest

    for stop in (Terminated(), ingest.StoreError(ingest.Diagnostic("db", 0, 0, "r", "database: full"))):
        monkeypatch.setattr(ingest, "ingest", lambda paths, st, stop=stop: ingest.Outcome(stopped_by=stop))
        with pytest.raises(type(stop)):
            example.compare_with_history(str(tmp_path), [], str(tmp_path / "plots"))


def test_the_example_compares_its_eval_row_s_scores_too(tmp_path):
    """New-user run: the example rehearses an eval row (7/7) and stores its gsm8k scores, but its
    comparison had no evals table nor "evals:" in the headline; `results compare --run
    example-seed-change` on the kept store showed both."""
    import io

    sys.path.insert(0, str(ROOT / "utils"))
    from sweepgate.commands import example

    repo = tmp_path / "repo"
    repo.mkdir()
    _, head, ok, problems, matrix = example.gate_and_matrix(str(repo))
    assert ok, problems
    evals_only = {"agentic_evals": matrix["agentic_evals"]}  # the one eval row, rehearsed for real (about 1 s)
    said = []
    rehearsals = example.rehearse_matrix(str(repo), head, evals_only, said.append)
    assert [r.problems for r in rehearsals] == [[]]
    # its progress line says it is the eval row (it read like a second conc 16 throughput row)
    assert said[0].startswith("  1/1 eval kimik3_tp8_conc16_kvdram-lmcache_spec-mtp conc 16 ("), said
    stage = example.compare_with_history(str(repo), rehearsals, str(tmp_path / "plots"))
    scores = stage["comparison"].as_json()["evals"]
    assert {e["task"] for e in scores} == {"gsm8k"} and {e["verdict"] for e in scores} == {"new"}, scores
    out = io.StringIO()
    example._print_stage(out, {**stage, "rehearsals": rehearsals, "seconds": 1.0}, kept=False)
    assert "; eval scores: 2 new" in out.getvalue(), out.getvalue()


def test_a_plots_folder_a_compare_drew_into_is_told_what_the_example_removes(json_into_a_used_plots_folder):
    """Review (review25): the example's --plots removed the charts an earlier sweepgate run wrote there (a
    compare's, into the same folder) without a word, where compare says it in one line. Now it says it too,
    and a user's own file there stays. (The run is --json's: the line goes to stderr in either mode.)"""
    proc, plots = json_into_a_used_plots_folder
    assert proc.returncode == 0, proc.stderr
    assert not (plots / "an-earlier-compare.png").exists() and (plots / "notes.txt").read_text() == "mine"
    assert (f"sweepgate example: removed 1 chart file an earlier run wrote into {plots} that this run does not "
            "draw") in proc.stderr.splitlines(), proc.stderr
