"""A new user's review: every README command with bad input, as a separate process.

Each case was a defect found by driving an installed sweepgate by hand: an internal
error, a silent exit 0, a file written after the database committed, or processes left
running after Ctrl-C. The contract: one line ``path:line: what; fix``, exit 1.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "utils"))

from sweepgate.commands import example  # noqa: E402

GARBAGE = bytes(range(0x80, 0x100)) * 3


def sg(cwd: Path, *args: str, env: dict | None = None, timeout: float = 180) -> subprocess.CompletedProcess:
    full = {**os.environ, "PYTHONPATH": str(ROOT / "utils"), **(env or {})}
    for name in ("GITHUB_ACTIONS", "SWEEPGATE_DB", "GITHUB_RUN_ID"):
        full.pop(name, None)
    return subprocess.run([sys.executable, "-m", "sweepgate", *args], cwd=cwd, env=full,
                          capture_output=True, text=True, timeout=timeout)


def one_line(proc: subprocess.CompletedProcess, *needles: str) -> str:
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 1, (proc.returncode, proc.stdout[-400:], proc.stderr)
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr, proc.stderr
    assert len(lines) == 1, proc.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


@pytest.fixture(scope="module")
def fleet(tmp_path_factory) -> Path:
    repo = tmp_path_factory.mktemp("fleet")
    example.build_repo(str(repo))
    (repo / "sub").mkdir()
    return repo


@pytest.fixture(scope="module")
def matrix_file(fleet, tmp_path_factory) -> Path:
    proc = sg(fleet, "matrix", "--base-ref", "HEAD~1", "--head-ref", "HEAD")
    assert proc.returncode == 0, proc.stderr
    path = tmp_path_factory.mktemp("m") / "matrix.json"
    path.write_text(proc.stdout)
    return path


# --------------------------------------------------------------------------- sweepgate [example flags]

def test_example_flags_without_the_command_name_run_the_example(fleet):
    proc = sg(fleet / "sub", "--no-rehearse")
    assert proc.returncode == 0, proc.stderr
    assert "matrix: 7 rows" in proc.stdout


# --------------------------------------------------------------------------- changelog

@pytest.mark.parametrize("action", [["add", "--key", example.SEED_KEY, "--description", "x"],
                                    ["canonicalize", "--pr-number", "7", "--base", "HEAD~1"],
                                    ["rebase", "--onto", "HEAD~1"]])
def test_changelog_file_that_is_a_directory(fleet, action):
    one_line(sg(fleet / "sub", "changelog", *action, "--changelog-file", "configs"),
             "configs", "this is a folder")


# --------------------------------------------------------------------------- ci reuse

@pytest.mark.parametrize("doc", [{"single_node": 5}, {"single_node": {"1k1k": 3}}, {"evals": [1]}])
def test_ci_reuse_matrix_of_the_wrong_shape(fleet, tmp_path, doc):
    matrix = tmp_path / "m.json"
    matrix.write_text(json.dumps(doc))
    out = tmp_path / "out.json"
    one_line(sg(fleet / "sub", "ci", "reuse", "--matrix", str(matrix), "--out", str(out), "--run-id", "1",
                "--db", f"sqlite:///{tmp_path}/r.db"), str(matrix))
    assert not out.exists()


@pytest.mark.parametrize("where", ["dir", "missing"])
def test_ci_reuse_out_that_cannot_be_written(fleet, tmp_path, matrix_file, where):
    out = tmp_path if where == "dir" else tmp_path / "no" / "out.json"
    one_line(sg(fleet / "sub", "ci", "reuse", "--matrix", str(matrix_file), "--out", str(out), "--run-id", "1",
                "--db", f"sqlite:///{tmp_path}/r.db"), str(out))
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


# --------------------------------------------------------------------------- rehearse

def test_rehearse_multi_node_exp_name_lists_its_concurrencies(fleet):
    # dsr1_1k1k is a multi-node row on two runners; its conc is a list.
    one_line(sg(fleet / "sub", "rehearse", "--exp-name", "dsr1_1k1k"), "--conc", "256", "64")


def test_rehearse_conc_not_in_any_row(fleet):
    one_line(sg(fleet / "sub", "rehearse", "--exp-name", "dsr1_1k1k", "--conc", "999"), "conc 999", "256")


def test_rehearse_row_json_that_is_binary(fleet, tmp_path):
    bad = tmp_path / "row.json"
    bad.write_bytes(GARBAGE)
    one_line(sg(fleet / "sub", "rehearse", "--row-json", str(bad)), str(bad), "UTF-8")


# --------------------------------------------------------------------------- results ingest / show

@pytest.fixture(scope="module")
def outputs(fleet, tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("rehearsal")
    proc = sg(fleet, "rehearse", "--exp-name", "dsr1_8k1k", "--conc", "4", "--config-keys", "dsr1-fp8-b300-vllm",
              "--work-dir", str(work))
    assert proc.returncode == 0, proc.stderr[-2000:]
    return work / "results"


def _rows(db: Path) -> int:
    if not db.exists():
        return 0
    with sqlite3.connect(db) as con:
        tables = [t for (t,) in con.execute("select name from sqlite_master where type='table'")]
        return con.execute("select count(*) from results").fetchone()[0] if "results" in tables else 0


@pytest.mark.parametrize("where", ["dir", "missing"])
def test_ingest_jsonl_that_cannot_be_written_stores_nothing(fleet, tmp_path, outputs, where):
    jsonl = tmp_path if where == "dir" else tmp_path / "no" / "r.jsonl"
    db = tmp_path / "r.db"
    one_line(sg(fleet / "sub", "results", "ingest", str(outputs), "--db", f"sqlite:///{db}", "--jsonl", str(jsonl)),
             str(jsonl))
    assert _rows(db) == 0


def test_ingest_row_file_that_is_binary(fleet, tmp_path, outputs):
    bad = tmp_path / "row.json"
    bad.write_bytes(GARBAGE)
    one_line(sg(fleet / "sub", "results", "ingest", str(outputs), "--db", f"sqlite:///{tmp_path}/r.db",
                "--row", str(bad), "--run-id", "1", "--ref", "refs/heads/main"), str(bad), "UTF-8")


def test_ingest_of_a_folder_with_no_results(fleet, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    one_line(sg(fleet / "sub", "results", "ingest", str(empty), "--db", f"sqlite:///{tmp_path}/r.db"),
             str(empty), "no result files")


def test_ingest_allow_empty_for_a_sweep_whose_rows_were_all_reused(fleet, tmp_path):
    """The collect job passes --allow-empty: nothing to ingest is then not an error."""
    empty = tmp_path / "empty"
    empty.mkdir()
    proc = sg(fleet / "sub", "results", "ingest", "--allow-empty", str(empty), "--db", f"sqlite:///{tmp_path}/r.db")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == (f"ingested 0 results (0 new) into sqlite:///{tmp_path}/r.db; "
                                                    "nothing stored")
    run_sweep = (ROOT / ".github/workflows/run-sweep.yml").read_text()
    assert "sweepgate results ingest --allow-empty" in run_sweep


def test_show_of_an_unknown_run(fleet, tmp_path, outputs):
    db = f"sqlite:///{tmp_path}/r.db"
    assert sg(fleet, "results", "ingest", str(outputs), "--db", db).returncode == 0
    one_line(sg(fleet / "sub", "results", "show", "--run", "nope", "--db", db), "nope", "no results")
    one_line(sg(fleet / "sub", "results", "show", "--run", "nope", "--json", "--db", db), "nope")
    # review: an unknown --key printed an empty table and exit 0, as if the key had no points yet
    one_line(sg(fleet / "sub", "results", "show", "--key", "nope", "--db", db), "--key", "'nope' has no results")
    # review: `rehearse` wrote "config-key": null, so its results had no key to show or compare by
    shown = sg(fleet / "sub", "results", "show", "--key", "dsr1-fp8-b300-vllm", "--json", "--db", db)
    assert shown.returncode == 0, shown.stderr
    assert [r["config-key"] for r in json.loads(shown.stdout)] == ["dsr1-fp8-b300-vllm"]


# --------------------------------------------------------------------------- Ctrl-C

def _work_cmdlines(marker: str) -> dict[str, bytes]:
    """PID -> argv (NUL-separated) of the live processes whose environment holds ``marker`` (every
    descendant of the command inherits it); zombies are dead and left out."""
    found = {}
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and marker.encode() in (proc / "environ").read_bytes():
                stat = (proc / "stat").read_text()
                if stat.rsplit(")", 1)[1].split()[0] != "Z":
                    found[proc.name] = (proc / "cmdline").read_bytes()
        except OSError:
            continue
    return found


def _work_processes(marker: str) -> list[str]:
    return [f"{pid} {cmdline[:120]!r}" for pid, cmdline in _work_cmdlines(marker).items()]


def _standins(cmdlines: dict[str, bytes], module: bytes) -> list[str]:
    """The stand-in processes serving ``python3 -m MODULE``."""
    return [pid for pid, c in cmdlines.items() if b"standin.py\0shim\0" in c and b"\0-m\0" + module + b"\0" in c]


# When to press Ctrl-C: a condition on the live processes, never a count (the script's `$(...)`
# subshells, `sleep`s and health-check `curl`s come and go: a count of 8 held for one snapshot
# and 7 the next, 7 of 40 runs beside two busy CPUs).
PHASES = {
    # the first worker's stand-in server runs; the other workers are still being started
    "workers starting": lambda c: bool(_standins(c, b"sglang.launch_server")),
    # the router runs: disagg_head.sh starts it only once every worker answered /health
    "benchmark running": lambda c: bool(_standins(c, b"sglang_router.launch_router")) and len(c) >= 8,
}


def _wait_for_phase(proc: subprocess.Popen, marker: str, phase: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not PHASES[phase](_work_cmdlines(marker)):
        if proc.poll() is not None:
            pytest.fail(f"the rehearsal ended (exit {proc.returncode}) before '{phase}': "
                        f"{proc.stderr.read()[-1000:]}")
        if time.monotonic() > deadline:
            pytest.fail(f"no '{phase}' within {timeout}s: {_work_processes(marker)}")
        time.sleep(0.05)


@pytest.mark.parametrize("phase", list(PHASES))
def test_ctrl_c_during_a_rehearsal_leaves_no_process(fleet, tmp_path, phase):
    """SIGINT to the process group (Ctrl-C): exit 130, one line, nothing of the row left running."""
    work = tmp_path / "w"
    marker = f"SWEEPGATE_REVIEW_MARK={tmp_path}"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "utils"), "SWEEPGATE_REVIEW_MARK": str(tmp_path)}
    proc = subprocess.Popen([sys.executable, "-m", "sweepgate", "rehearse", "--exp-name", "dsr1_1k1k",
                             "--conc", "256", "--work-dir", str(work)], cwd=fleet / "sub", env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        _wait_for_phase(proc, marker, phase)
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=90)
    finally:
        if proc.poll() is None:  # the test failed before its Ctrl-C: still stop the row
            os.killpg(proc.pid, signal.SIGINT)
            proc.communicate(timeout=90)
    assert proc.returncode == 130, err[-1000:]
    assert "Traceback" not in err
    assert _work_processes(marker) == []


# --------------------------------------------------------------------------- final review

def test_ci_split_with_an_unwritable_github_output_is_one_line(fleet, tmp_path):
    """$GITHUB_OUTPUT (here --output) pointing at a directory: one line, exit 1, not an internal error."""
    matrix = tmp_path / "m.json"
    matrix.write_text(json.dumps({"single_node": {}, "multi_node": {}}))
    one_line(sg(fleet / "sub", "ci", "split", "--matrix", str(matrix), "--output", str(tmp_path)),
             f"{tmp_path}: --output: is a folder, not a file")  # polish29: was the system's "cannot append to it: Is a directory"


def test_ci_split_with_a_row_that_is_not_an_object(fleet, tmp_path):
    matrix = tmp_path / "m.json"
    matrix.write_text(json.dumps({"single_node": {"1k1k": [5]}, "multi_node": {}}))
    one_line(sg(fleet / "sub", "ci", "split", "--matrix", str(matrix)), str(matrix), "not a row")


def test_default_store_folder_is_made_for_any_repository_root(tmp_path):
    from sweepgate.results import store

    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    with store.open_store(store.default_url(root)) as st:
        assert st.url.endswith("/.sweepgate/results.db")
    assert (root / ".sweepgate" / "results.db").is_file()


# --------------------------------------------------------------------------- results show on a terminal

class _Tty(__import__("io").StringIO):
    def isatty(self) -> bool:
        return True


def _point(conc: int, **extra) -> dict:
    from sweepgate.results import record as R

    return {R.CONFIG_KEY: "qwen3.5-fp8-mi355x-sglang", R.HARDWARE: "mi355x", R.CONC: conc, R.ISL: 8192,
            R.OSL: 1024, R.TOPOLOGY: "tp4-pp1-dcp1-pcp1-ep1-dpafalse", R.STATUS: "success", R.RUN_ID: "pr-1",
            R.RESULT_FILENAME: f"qwen3.5_8k1k_conc{conc}", R.ATTEMPT: 1,
            R.METRICS: {R.OUTPUT_TPUT_PER_GPU: 14.9, R.INTERACTIVITY: 3.66, "ttft_p50_ms": 1784.5,
                        "tpot_p50_ms": 273.07, "e2el_p50_ms": 212141.0, R.SUCCESS_RATE: 1.0}, **extra}


@pytest.mark.parametrize("width", [60, 80])
def test_show_on_a_narrow_terminal_prints_every_figure(monkeypatch, width):
    """Review: on an 80-column terminal the 14-column table squeezed every figure to `…`."""
    from sweepgate.results import show

    monkeypatch.setenv("COLUMNS", str(width))
    monkeypatch.setenv("NO_COLOR", "1")
    out = _Tty()
    show.table([_point(16), _point(32)], out, "run pr-1: 2 points")
    text = __import__("re").sub(r"\x1b\[[0-9;]*m", "", out.getvalue())  # NO_COLOR keeps dim/italic
    lines = text.splitlines()
    assert all(len(line) <= width for line in lines), text
    assert "…" not in text
    for figure in ("14.9", "3.66", "1,784", "273.1", "212,141", "100.0%", "recipe tp4",  # as compare writes them
                   "qwen3.5_8k1k_conc32", "conc 16", "TTFT p50 ms 1,784"):
        assert figure in text, (figure, text)


def test_show_drops_columns_no_record_fills_and_keeps_the_table_when_it_fits(monkeypatch):
    from sweepgate.results import record as R
    from sweepgate.results import show

    monkeypatch.setenv("COLUMNS", "250")
    bare = _point(4, **{R.CONFIG_KEY: None, R.HARDWARE: None, R.TOPOLOGY: None})
    out = _Tty()
    show.table([bare], out, "all points: 1 points")
    header = [line for line in out.getvalue().splitlines() if "conc" in line][0]
    assert "┃" in header and "config key" not in header and "topology" not in header and " hw " not in header


def test_compare_table_on_a_narrow_terminal_never_cuts_a_config_key(monkeypatch):
    """Review: at 80 columns `qwen3.5-fp8-mi355x-sglang` and `…-sglang-mtp` both read
    `qwen3.5-fp8-mi35…`, so the table did not say which config regressed."""
    import re

    from sweepgate.results import compare as C
    from sweepgate.results import record as R
    from sweepgate.results import render

    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("NO_COLOR", "1")
    keys = ("qwen3.5-fp8-mi355x-sglang", "qwen3.5-fp8-mi355x-sglang-mtp")
    pr = [_point(16, **{R.CONFIG_KEY: k, R.SCENARIO: "fixed-seq-len"}) for k in keys]
    out = _Tty()
    render.table(C.compare_records(pr, [], run="pr-1"), out)
    text = re.sub(r"\x1b\[[0-9;]*m", "", out.getvalue())
    assert "…" not in text and all(len(line) <= 80 for line in text.splitlines()), text
    labels = [line for line in text.splitlines() if line.strip() and not line.startswith(" ")]  # rows: indented
    assert any(line.startswith(keys[1] + " ") for line in labels), text
    assert any(line.startswith(keys[0] + " ") for line in labels), text


def test_the_default_store_is_invisible_to_git(tmp_path, outputs):
    """Review: after the README's first `results ingest`, `git status` listed `.sweepgate/`
    (a 200 KB SQLite file one `git add -A` away from being committed)."""
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "benchmarks").mkdir()
    proc = sg(repo / "benchmarks", "results", "ingest", str(outputs))
    assert proc.returncode == 0, proc.stderr
    assert (repo / ".sweepgate" / "results.db").is_file()
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=repo,
                            capture_output=True, text=True, check=True).stdout
    assert status == "", status
