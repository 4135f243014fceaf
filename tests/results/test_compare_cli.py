"""`sweepgate results compare` end to end on a real SQLite store: the acceptance scenario,
exit codes, JSON shape (CONTRACTS section 8), markdown, terminal table, charts and bad input."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import synth
from helpers import drained, md_rows
from sweepgate import cli
from sweepgate.core import report
from sweepgate.results import compare as C
from sweepgate.results import record as R
from sweepgate.results import render, store

ROOT = Path(__file__).resolve().parents[2]
DROP, RISE, THIN = (synth.KEYS[0], 16), (synth.KEYS[1], 32), "dsr1-fp8-b300-vllm-thin"
POINT_KEYS = {"config-key", "hardware", "scenario", "isl", "osl", "conc", "topology", "spec-decoding", "kv-offloading",
              "kv-offload-backend", "request-rate", "model", "metric", "head", "baseline", "change", "p-adjusted", "verdict", "threshold"}


def build(path: Path, with_drop: bool = True) -> str:
    """5 main runs with +-2 % noise, a config with only 2 main runs, and PR run pr-7."""
    url = f"sqlite:///{path}"
    scale = {RISE: {R.OUTPUT_TPUT_PER_GPU: 1.15}}
    if with_drop:
        scale[DROP] = {R.OUTPUT_TPUT_PER_GPU: 0.85}
    with store.open_store(url) as st:
        st.add(synth.history(runs=5, noise=0.02) + synth.history(runs=2, keys=(THIN,), concs=(8,), seed=5))
        st.add(synth.pr_run(scale) + synth.pr_run(keys=(THIN,), concs=(8,), seed=6))
    return url


def compare_json(url: str, capsys, *extra) -> tuple[int, dict]:
    code = cli.main(["results", "compare", "--db", url, "--run", "pr-7", "--json", *extra])
    return code, json.loads(capsys.readouterr().out)


def test_acceptance_one_drop_one_rise_rest_unchanged_thin_point_insufficient(env, capsys):
    url = build(env / "r.db")
    code, out = compare_json(url, capsys, "--fail-on-regression")
    assert code == 3
    assert out["run"] == "pr-7" and all(set(p) == POINT_KEYS for p in out["points"])
    verdicts = {(p["config-key"], p["conc"], p["metric"]): p["verdict"] for p in out["points"]}
    changed = {k: v for k, v in verdicts.items() if v not in (C.UNCHANGED,)}
    assert {k: v for k, v in changed.items() if k[0] != THIN} == {
        (*DROP, R.OUTPUT_TPUT_PER_GPU): C.REGRESSED, (*RISE, R.OUTPUT_TPUT_PER_GPU): C.IMPROVED}
    assert {v for k, v in verdicts.items() if k[0] == THIN} == {C.INSUFFICIENT}
    assert out["counts"] == {C.REGRESSED: 1, C.IMPROVED: 1, C.INSUFFICIENT: 6, C.NEW: 0,
                             C.UNCHANGED: len(out["points"]) - 8}
    drop = next(p for p in out["points"] if p["verdict"] == C.REGRESSED)
    assert drop["baseline"]["n"] == 5 and drop["baseline"]["low"] < drop["baseline"]["median"]
    assert drop["change"] == pytest.approx(-0.15, abs=0.04)


def test_without_the_drop_fail_on_regression_exits_0(env, capsys):
    code, out = compare_json(build(env / "r.db", with_drop=False), capsys, "--fail-on-regression")
    assert code == 0 and out["counts"][C.REGRESSED] == 0 and out["counts"][C.IMPROVED] == 1


def test_json_is_written_whole_not_token_by_token(env, monkeypatch):
    """Speed: json.dump wrote each token of the report on its own, about a million writes for
    2,000 points; into a pipe, that put `tests/bench/compare_speed.py` at 5-6 s, past its 5 s goal."""
    url = build(env / "r.db")

    class Counting(io.StringIO):
        writes = 0

        def write(self, text):
            Counting.writes += 1
            return super().write(text)

    out = Counting()
    monkeypatch.setattr(sys, "stdout", out)
    assert cli.main(["results", "compare", "--db", url, "--run", "pr-7", "--json"]) == 0
    assert json.loads(out.getvalue())["run"] == "pr-7"
    assert Counting.writes <= 2, Counting.writes


def test_markdown_lists_regressions_first_and_folds_the_unchanged(env, capsys):
    url = build(env / "r.db")
    summary = env / "summary.md"
    assert cli.main(["results", "compare", "--db", url, "--run", "pr-7", "--markdown", "--plots", "plots",
                     "--step-summary", str(summary)]) == 0
    md = capsys.readouterr().out
    assert md.startswith(render.MARKER)
    reg, imp, det = md.index("#### Regressed (1 point, 1 metric)"), md.index("#### Improved (1 point, 1 metric)"), md.index("<details>")
    assert reg < imp < det and "<summary>Unchanged: " in md and "<summary>Not judged: 1 point insufficient-data (6 metrics)</summary>" in md
    line = next(x for x in md.splitlines() if "| regressed |" in x)
    assert "dsr1-fp8-b300-vllm b300 fixed-seq-len 1024/1024 conc 16" in line and "(n=5)" in line and "%" in line
    assert summary.read_text().strip() == md.strip()
    assert sorted(p.suffix for p in (env / "plots").iterdir()) == [".png", ".svg"]
    assert "REHEARSAL" not in md


def test_the_comment_points_at_a_run_s_artifact_only_inside_a_run(env, capsys, monkeypatch):
    """Leftover: the comment said the charts were in the run's results artifact when no workflow run
    drew them (a local `results compare --plots`), where there is no artifact. Outside GitHub Actions
    it names the folder they were written to; inside, it links the run whose artifact holds them."""
    url = build(env / "r.db")
    argv = ["results", "compare", "--db", url, "--run", "pr-7", "--plots", "my plots", "--comment-file", "c.md"]
    monkeypatch.setenv("GITHUB_RUN_ID", "4242")  # set by hand, outside a run: no run to point at
    assert cli.main(argv) == 0
    (line,) = [x for x in (env / "c.md").read_text().splitlines() if " (output throughput per GPU" in x]
    assert "artifact" not in line and ("1 chart (output throughput per GPU against interactivity, PNG and SVG) was "
                                       f"written to `my plots`, {render.LOCAL}; with a change: `") in line, line
    for name, value in (("GITHUB_ACTIONS", "true"), ("GITHUB_SERVER_URL", "https://github.com"),
                        ("GITHUB_REPOSITORY", "o/r")):
        monkeypatch.setenv(name, value)
    assert cli.main(argv) == 0  # in a run, but not the folder run-sweep.yml uploads (s51h): still a local one
    (line,) = [x for x in (env / "c.md").read_text().splitlines() if " (output throughput per GPU" in x]
    assert "artifact" not in line and f"was written to `my plots`, {render.LOCAL}; with a change" in line, line
    argv[argv.index("my plots")] = "sweepgate-results/charts"  # the workflow's: uploaded as its artifact's charts
    assert cli.main(argv) == 0
    (line,) = [x for x in (env / "c.md").read_text().splitlines() if " (output throughput per GPU" in x]
    assert ("is in the `charts/` folder of the `sweepgate-results` artifact of "
            "[run 4242](https://github.com/o/r/actions/runs/4242#artifacts); with a") in line
    assert "sweepgate-results/charts" not in line and render.LOCAL not in line
    capsys.readouterr()


def test_a_narrow_terminal_keeps_each_count_on_the_line_of_its_noun(env):
    """Leftover: at 40 columns rich broke the headline between a count and its noun ("1\nregressed",
    "(last 5\nruns)"). The real command at COLUMNS=40: every "N word" of the one-line headline is on
    one line, and no line is wider than the terminal."""
    url = build(env / "r.db")
    cmd = [sys.executable, "-m", "sweepgate", "results", "compare", "--db", url, "--run", "pr-7"]
    pyenv = {**os.environ, "PYTHONPATH": str(ROOT / "utils")}
    wide = subprocess.run(cmd, env=pyenv, capture_output=True, text=True, check=True).stdout.splitlines()
    narrow = subprocess.run(cmd, env={**pyenv, "COLUMNS": "40"}, capture_output=True, text=True,
                            check=True).stdout.splitlines()
    headlines = [line for line in wide if line.startswith("run pr-7 against")]  # its counts said once (s41o)
    assert len(headlines) == 1 and all(len(line) > 40 for line in headlines)
    tail = narrow[next(i for i, line in enumerate(narrow) if line.startswith("run pr-7 against")):]
    assert len(tail) > 2 and all(len(line) <= 40 for line in tail), tail
    for pair in (m.group() for line in headlines for m in re.finditer(r"\(?\d[\d,]* [\w-]+", line)):
        assert any(pair in line for line in tail), (pair, tail)
    assert " ".join(" ".join(tail).split()) == " ".join(" ".join(headlines).split())  # nothing lost


def test_terminal_table_has_no_colour_when_piped_or_with_no_color(env):
    url = build(env / "r.db")
    cmd = [sys.executable, "-m", "sweepgate", "results", "compare", "--db", url, "--run", "pr-7"]
    pyenv = {**os.environ, "PYTHONPATH": str(ROOT / "utils")}
    out = subprocess.run(cmd, env=pyenv, capture_output=True, text=True, check=True).stdout
    assert "\x1b[" not in out and "regressed" in out and "1 point regressed (1 metric), 1 point improved (1 metric)" in out.splitlines()[-1]
    # on a terminal: colour, unless NO_COLOR
    import pty

    for no_color, expect in ((None, True), ("1", False)):
        e = {k: v for k, v in pyenv.items() if k != "NO_COLOR"} | ({"NO_COLOR": no_color} if no_color else {})
        e.pop("TERM", None)
        leader, follower = pty.openpty()
        proc = subprocess.Popen(cmd, env={**e, "TERM": "xterm-256color"}, stdout=follower, stderr=subprocess.PIPE)
        os.close(follower)
        data = drained(leader)
        proc.wait(timeout=60)
        proc.stderr.close()
        # colour: a foreground SGR code (30-39, 90-97); under NO_COLOR no style either (polish 23: bold and
        # dim stayed), so no escape code at all
        colour = re.search(rb"\x1b\[(?:[\d;]*;)?(?:3\d|9[0-7])(?:;[\d;]*)?m", data)
        assert proc.returncode == 0 and b"1 point regressed" in data and bool(colour) == expect
        assert expect or b"\x1b[" not in data, data[:600]


def test_rehearsal_figures_are_marked_everywhere(env, capsys):
    url = f"sqlite:///{env / 'r.db'}"
    with store.open_store(url) as st:
        st.add(synth.history(rehearsal=True) + synth.pr_run(rehearsal=True))
    assert cli.main(["results", "compare", "--db", url, "--run", "pr-7", "--markdown"]) == 0
    md = capsys.readouterr().out
    assert render.REHEARSAL_NOTE in md
    rows = [r for r in md_rows(md) if r[0].startswith("dsr1")]
    assert len(rows) == 60 and all("(rehearsal)" in " ".join(r) for r in rows)
    assert cli.main(["results", "compare", "--db", url, "--run", "pr-7"]) == 0
    assert "REHEARSAL" in capsys.readouterr().out


def test_a_rehearsed_run_against_main_s_real_runs_marks_only_its_own_figures(env, capsys):
    """Results review: main's real baseline read `218.6 [210.3, 225.4] (n=5) (rehearsal)` beside a
    rehearsed PR run (one flag for both sides)."""
    url = f"sqlite:///{env / 'r.db'}"
    with store.open_store(url) as st:
        st.add(synth.history() + synth.pr_run(rehearsal=True))
    assert cli.main(["results", "compare", "--db", url, "--run", "pr-7", "--markdown"]) == 0
    rows = [r for r in md_rows(capsys.readouterr().out) if r[0].startswith("dsr1")]
    heads, bases = [r[2] for r in rows], [r[3] for r in rows]
    assert len(rows) == 60 and all(h.endswith("(rehearsal)") for h in heads), heads
    assert all("(n=5)" in b and "rehearsal" not in b for b in bases), bases


@pytest.mark.parametrize("argv, text", [
    (["--run", "nope"], "run 'nope' has no results"),
    (["--run", "pr-7", "--baseline-artifacts"], "needs GITHUB_TOKEN and --repository"),
])
def test_bad_input_is_one_line_and_exit_1(env, capsys, argv, text):
    url = build(env / "r.db")
    assert cli.main(["results", "compare", "--db", url, *argv]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and text in err[0] and "Traceback" not in err[0]


def test_a_bad_threshold_in_the_master_config_is_refused_at_its_line(env, capsys, make_repo):
    url = build(env / "r.db")
    root = make_repo().path
    master = root / "configs" / "nvidia-master.yaml"
    master.write_text(master.read_text().replace("  framework: vllm\n", "  framework: vllm\n  results:\n"
                                                 "    thresholds: {ttft_p50: 0.2}\n", 1))
    os.chdir(root / "configs")
    assert cli.main(["results", "compare", "--db", url, "--run", "pr-7"]) == 1
    err = capsys.readouterr().err
    assert "configs/nvidia-master.yaml:" in err and "unknown metric 'ttft_p50'" in err
    assert cli.main(["validate", "--staged"]) == 1  # the gate checks the same rule
    assert "unknown metric 'ttft_p50'" in capsys.readouterr().err
    master.write_text(master.read_text().replace("ttft_p50:", "ttft_p50_ms:"))
    assert cli.main(["results", "compare", "--db", url, "--run", "pr-7"]) == 0
    master.write_text(master.read_text().replace("ttft_p50_ms: 0.2", "ttft_p50_ms: -1"))
    assert cli.main(["results", "compare", "--db", url, "--run", "pr-7"]) == 1
    assert "configs/nvidia-master.yaml:" in capsys.readouterr().err
    # a latency may be allowed to double; a throughput threshold of 1 or more switches the check off
    master.write_text(master.read_text().replace("ttft_p50_ms: -1", "ttft_p50_ms: 1.5"))
    assert cli.main(["results", "compare", "--db", url, "--run", "pr-7"]) == 0
    capsys.readouterr()
    for block in ("{threshold: 5}", "{thresholds: {output_tput_per_gpu: 2}}"):
        master.write_text(master.read_text().replace("thresholds: {ttft_p50_ms: 1.5}", f"x: {block}")
                          .replace("  results:\n    x: ", "  results: "))
        assert cli.main(["results", "compare", "--db", url, "--run", "pr-7"]) == 1, block
        err = capsys.readouterr().err.strip()
        assert re.match(r"configs/nvidia-master\.yaml:\d+(:\d+)?: .*means no throughput drop could ever count", err), err
        # the gate refuses it first (review: it passed the gate, then broke every later comparison)
        assert cli.main(["validate", "--staged"]) == 1, block
        assert "means no throughput drop could ever count" in capsys.readouterr().err
        master.write_text(master.read_text().replace(f"  results: {block}", "  results:\n    thresholds: {ttft_p50_ms: 1.5}"))


def test_a_baseline_ref_spelled_as_a_branch_name_reads_as_git_reads_it(env, capsys):
    """Review: `--baseline-ref main` found nothing under refs/heads/main, judged every point
    `new` and exited 0, so --fail-on-regression let the 15 % drop through. Then it was refused;
    `results show --ref main` took it. Now both read a branch name as git does."""
    url = build(env / "r.db")
    code = cli.main(["results", "compare", "--db", url, "--run", "pr-7", "--baseline-ref", "main",
                     "--fail-on-regression"])
    out = capsys.readouterr()
    assert code == 3, out.err
    assert "run pr-7 against main (last 5 runs; 2\u20135 found)" in out.out and C.REGRESSED in out.out
    # a ref the store knows nothing like: still judged (a first run on a new branch), with a note
    code = cli.main(["results", "compare", "--db", url, "--run", "pr-7", "--json", "--baseline-ref",
                     "refs/heads/release"])
    out = capsys.readouterr()
    assert code == 0 and {p["verdict"] for p in json.loads(out.out)["points"]} == {C.NEW}
    assert "no baseline results for run pr-7's points on refs/heads/release" in out.err
    # Review: a branch spelt nearly alike (a typo) was "all new" with exit 0 under --fail-on-regression
    code = cli.main(["results", "compare", "--db", url, "--run", "pr-7", "--baseline-ref", "refs/heads/mian",
                     "--fail-on-regression"])
    out = capsys.readouterr()
    assert code == 1 and out.err.strip() == (f"--baseline-ref: no results on 'refs/heads/mian' in {url}, which "
                                             "holds runs on refs/heads/main; pass --baseline-ref refs/heads/main")
    # Review (newuser20): the same typo spelt as a branch name, as `--baseline-ref main` is, still passed
    code = cli.main(["results", "compare", "--db", url, "--run", "pr-7", "--baseline-ref", "mian",
                     "--fail-on-regression"])
    out = capsys.readouterr()
    assert code == 1 and out.err.strip() == (f"--baseline-ref: no results on 'mian' in {url}, which "
                                             "holds runs on refs/heads/main; pass --baseline-ref refs/heads/main")


def test_drawing_a_sweep_s_charts_shows_progress_on_a_terminal_only(env, capsys, monkeypatch):
    """Review at scale: `compare --plots` was silent for 22 s on a terminal. Piped, the drawing says nothing
    but its result line however long it takes (the clock held still: under load it once took over
    report.PIPED_EVERY and printed a progress line, which a piped run then rightly shows)."""
    import pty

    keys = tuple(f"dsr1-fp8-b300-vllm-v{i:02d}" for i in range(20))  # 20 recipes: four charts
    url = f"sqlite:///{env / 'r.db'}"
    with store.open_store(url) as st:
        st.add(synth.history(keys=keys) + synth.pr_run(keys=keys))
    cmd = [sys.executable, "-m", "sweepgate", "results", "compare", "--db", url, "--run", "pr-7", "--json"]
    pyenv = {**os.environ, "PYTHONPATH": str(ROOT / "utils"), "TERM": "xterm-256color", "COLUMNS": "100"}
    leader, follower = pty.openpty()
    proc = subprocess.Popen([*cmd, "--plots", str(env / "tty")], env=pyenv, stdout=subprocess.DEVNULL,
                            stderr=follower)
    os.close(follower)
    data = drained(leader)
    assert proc.wait(timeout=120) == 0 and b"drawing charts" in data, data[-2000:]
    monkeypatch.setattr(report, "CLOCK", lambda: 0.0)
    code = cli.main(["results", "compare", "--db", url, "--run", "pr-7", "--json", "--plots", str(env / "pipe")])
    err = capsys.readouterr().err
    assert code == 0 and err.splitlines() == [
        f"sweepgate results compare: wrote 4 charts (PNG and SVG) into {env / 'pipe'}"], err


@pytest.mark.parametrize("argv", [("results", "show", "--run", ""), ("results", "show", "--key", " "),
                                  ("results", "show", "--ref", ""), ("results", "compare", "--run", ""),
                                  ("results", "compare", "--run", "pr-7", "--baseline-ref", "")])
def test_an_empty_filter_is_argument_syntax_not_no_filter(env, capsys, argv):
    """Review: `show --run "$RUN_ID"` with the variable unset listed the whole store (exit 0), and
    `--key ''` printed an empty table with exit 0 where `--key nope` exits 1."""
    url = build(env / "r.db")
    with pytest.raises(SystemExit) as exc:
        cli.main([*argv, "--db", url])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "empty value" in err and err.startswith("usage: sweepgate results"), err


def test_what_main_measured_and_the_run_did_not_is_said_not_judged(env, capsys):
    """Results review: a concurrency the PR dropped, a metric its output lacked and eval scores main has
    at a point were never mentioned; the run read clean and --fail-on-regression exited 0."""
    url = f"sqlite:///{env / 'r.db'}"
    key = synth.KEYS[0]
    pr = [r for r in synth.pr_run(keys=(key,)) if r[R.CONC] != 64]  # conc 64 dropped
    for r in pr:
        if r[R.CONC] == 8:
            del r[R.METRICS]["ttft_p50_ms"]  # an output without TTFT
    history = synth.history(keys=(key,))
    newest = next(r for r in history if r[R.RUN_ID] == "main-4" and r[R.CONC] == 16)
    scores = {**newest, R.CLIENT: R.EVAL_CLIENT, R.RESULT_FILENAME: newest[R.RESULT_FILENAME] + "-eval",
              R.METRICS: {}, R.EVALS: [{R.EVAL_TASK: "gsm8k", R.EVAL_METRIC: "exact_match", R.EVAL_FILTER: "strict-match",
                                        R.EVAL_VALUE: 0.9, R.EVAL_STDERR: 0.01, R.EVAL_SAMPLES: 1319}]}
    other = synth.history(keys=(synth.KEYS[1],))  # a config key the run did not measure: not listed
    with store.open_store(url) as st:
        st.add(history + [scores] + other)
        st.add(pr)
    code, out = compare_json(url, capsys, "--fail-on-regression")
    assert code == 0, out
    got = [(p["conc"], p["not-measured"], p["baseline-run"]) for p in out["not-measured"]]
    assert got == [(8, "ttft_p50_ms", "main-4"), (16, "eval scores", "main-4"), (64, "point", "main-4")], got
    assert all(p["config-key"] == key for p in out["not-measured"])
    assert cli.main(["results", "compare", "--db", url, "--run", "pr-7", "--markdown"]) == 0
    md = capsys.readouterr().out
    assert ("> Not measured by this run, though main's newest run of the same config keys has them: 1 point, "
            "1 metric of points it measured, eval scores at 1 point (") in md, md
    assert "<summary>Not measured by this run: 1 point, 1 metric, eval scores at 1 point</summary>" in md and "| the whole point | main-4 |" in md
    assert cli.main(["results", "compare", "--db", url, "--run", "pr-7"]) == 0
    assert "Not measured by this run" in capsys.readouterr().out


def test_not_measured_follows_main_s_newest_run_and_the_run_s_own_time(env, capsys):
    """Session review: one past --all-evals main run flagged every later PR's missing eval scores, and a
    run compared again later listed points main measured only after it."""
    url = f"sqlite:///{env / 'r.db'}"
    key = synth.KEYS[0]
    history = synth.history(keys=(key,))
    evals = []
    for r in history:
        if r[R.RUN_ID] == "main-0" or r[R.CONC] == 64:  # main-0 evaluated every point; later runs conc 64 only
            evals.append({**r, R.CLIENT: R.EVAL_CLIENT, R.RESULT_FILENAME: r[R.RESULT_FILENAME] + "-eval",
                          R.METRICS: {}, R.EVALS: [{R.EVAL_TASK: "gsm8k", R.EVAL_METRIC: "exact_match",
                                                    R.EVAL_FILTER: "strict-match", R.EVAL_VALUE: 0.9,
                                                    R.EVAL_STDERR: 0.01, R.EVAL_SAMPLES: 1319}]})
    pr = synth.pr_run(keys=(key,))
    pr += [{**e, R.RUN_ID: "pr-7", R.REF: "refs/pull/7/merge", R.FINISHED: pr[0][R.FINISHED]}
           for e in evals if e[R.RUN_ID] == "main-4"]  # the PR evaluates conc 64, as main does now
    with store.open_store(url) as st:
        st.add(history + evals)
        st.add(pr)
    code, out = compare_json(url, capsys)
    assert code == 0 and out["not-measured"] == [], out["not-measured"]
    later = synth.make("main-9", key, 128, synth.curve(128), day=30)  # main adds conc 128 after the PR ran
    with store.open_store(url) as st:
        st.add([later])
    code, out = compare_json(url, capsys)
    assert out["not-measured"] == [], out["not-measured"]


@pytest.mark.parametrize("flag", ["--step-summary", "--comment-file"])
@pytest.mark.parametrize("gate, code", [(True, 3), (False, 1)])
def test_a_report_that_cannot_be_written_does_not_hide_the_regression_gate(env, capsys, flag, gate, code):
    """Carried from review: a step summary (or comment file) that failed on write (a full disk) turned
    `--fail-on-regression`'s exit 3 into 1, so the workflow learned of the disk, not of the regression.
    The report's one line is still said; without the gate, the failed write is the exit."""
    url = build(env / "r.db")
    rc = cli.main(["results", "compare", "--db", url, "--run", "pr-7", flag, "/dev/full",
                   *(["--fail-on-regression"] if gate else [])])
    out = capsys.readouterr()
    assert rc == code, out.err
    assert C.REGRESSED in out.out  # the report, in full
    (line,) = [x for x in out.err.splitlines() if x.startswith("/dev/full")]
    assert "No space left on device" in line or "space" in line.lower(), line


@pytest.mark.parametrize("value, said", [("5%", "'5%' is a percentage; pass the fraction, e.g. 0.05 for 5 %"),
                                         ("12.5 %", "'12.5 %' is a percentage; pass the fraction, e.g. 0.125 for 12.5 %"),
                                         ("five", "'five' is not a number; pass a fraction, e.g. 0.05 for 5 %")])
def test_a_threshold_typed_as_a_percentage_is_named_as_one(env, capsys, value, said):
    """New-user run: `--threshold 5%` read "invalid float value: '5%'", which does not say what to type."""
    url = build(env / "r.db")
    with pytest.raises(SystemExit) as exc:
        cli.main(["results", "compare", "--db", url, "--run", "pr-7", "--threshold", value])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and err.endswith(f"error: argument --threshold: {said}\n"), err


@pytest.mark.parametrize(("metric", "said"), [
    ("ttft_p90_ms", "'ttft_p90_ms' is a figure results keep but never judged by results compare"),
    ("ttft_p99_9_ms", "'ttft_p99_9_ms' is a figure results keep but never judged by results compare"),
    ("ttft_std_ms", "'ttft_std_ms' is a spread, neither better nor worse, never judged by results compare"),
    ("request_throughput", "'request_throughput' is a figure results keep but never judged"),
    ("ttft_p5_ms", "'ttft_p5_ms' is a figure results keep but never judged by results compare"),  # AIPerf's p5
    ("ttft_p99_99_ms", "'ttft_p99_99_ms' is a figure results keep but never judged"),  # --metric-percentiles 99.99
    ("ttft_p50_s", "unknown metric 'ttft_p50_s'; did you mean 'ttft_p50_ms'?"),
])
def test_a_threshold_compare_would_never_use_is_refused_by_the_gate(capsys, monkeypatch, make_repo, metric, said):
    """review26: a config's threshold on a figure results store but compare never judges (ttft_p90_ms,
    the new ttft_p99_9_ms) was accepted and did nothing, a silent no-op a maintainer would trust; one on
    ttft_std_ms read "unknown metric" though results keep it, with a hint listing forty-odd names. Each is
    refused at its line, saying why, with the metrics compare judges (and the nearest, for a misspelling)."""
    root = make_repo().path
    master = root / "configs" / "nvidia-master.yaml"
    master.write_text(master.read_text().replace("  framework: vllm\n", "  framework: vllm\n  results:\n"
                                                 f"    thresholds: {{{metric}: 0.2}}\n", 1))
    monkeypatch.chdir(root / "configs")  # restored after the test: later tests must not run in this repository
    assert cli.main(["validate", "--staged"]) == 1
    (line,) = [x for x in capsys.readouterr().err.splitlines() if "results-threshold" in x or metric in x]
    assert line.startswith("configs/nvidia-master.yaml:") and said in line, line
    assert "output_tput_per_gpu, interactivity, ttft_p50_ms" in line, line


def test_a_threshold_on_a_judged_metric_is_accepted(capsys, monkeypatch, make_repo):
    root = make_repo().path
    master = root / "configs" / "nvidia-master.yaml"
    master.write_text(master.read_text().replace("  framework: vllm\n", "  framework: vllm\n  results:\n"
                                                 "    thresholds: {ttft_p50_ms: 0.2, success_rate: 0.01}\n", 1))
    monkeypatch.chdir(root / "configs")  # restored after the test: later tests must not run in this repository
    assert cli.main(["validate", "--staged"]) == 0, capsys.readouterr().err
