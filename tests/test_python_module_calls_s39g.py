"""s39g: an interpreter running a module is read the same wherever sweepgate reads one.

`python3 -m MODULE` was known as `python`/`python3` and `-m MODULE` alone in preflight's engine calls
(`python3.11 -m vllm.entrypoints.openai.api_server`, `python3 -u -m ...` went unchecked, and no note said so),
in the multi-node and SGLang server checks (a worker started as `python3.11 -m sglang.launch_server` was "never
started"), in SERVER_STANDIN (`python3 -u -m sglang.launch_server` was an "unknown shim", exit 127) and in the
script lines a problem is placed at (`python3 -um sglang.bench_serving` was no client line). One definition
(core/pythoncall.py) now says what an interpreter's name is (python, python3, python3.N, by any path) and which of
its options come before -m; the shims' bash reads the same."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sweepgate.core import fields, pythoncall, scriptlines
from sweepgate.engines.preflight import engine_call
from sweepgate.rehearsal import multinode, runner

SERVER, CLIENT, VLLM = fields.SGLANG_SERVER_MODULE, fields.SGLANG_CLIENT_MODULE, fields.VLLM_SERVER_MODULE

# (interpreter, its words before the module's arguments)
RUNS = [
    ("python3.11", ["-m", SERVER]),
    ("python3.12", ["-m", SERVER]),
    ("/usr/bin/python3", ["-m", SERVER]),
    ("python3", ["-um", SERVER]),
    ("python3", ["-u", "-m", SERVER]),
    ("python3", ["-Xdev", "-m", SERVER]),
    ("python3", ["-X", "dev", "-m", SERVER]),
    ("python", ["-I", "-m", SERVER]),
    ("python3", ["-W", "ignore", "-m", SERVER]),
    ("python3", ["-m" + SERVER]),
    ("python3", ["--check-hash-based-pycs", "never", "-m", SERVER]),
]
# calls that run no module: -c's program, a file, stdin, or no interpreter at all
NOT_RUNS = [
    ("python3", ["-c", "print(1)", "-m", SERVER]),
    ("python3", ["-uc", "print(1)", "-m", SERVER]),
    ("python3", ["-X", "-m", SERVER]),  # -X takes `-m` as its value; SERVER is then a script's name
    ("python3", ["script.py", "-m", SERVER]),
    ("python3", ["-", "-m", SERVER]),
    ("python3.11-config", ["-m", SERVER]),
    ("pythonista", ["-m", SERVER]),
]


@pytest.mark.parametrize("tool, words", RUNS)
def test_preflight_checks_each_spelling_of_an_interpreter_running_an_engine(tool, words):
    assert engine_call({"tool": tool, "argv": [*words, "--port", "8000"]}) == ("sglang", ["--port", "8000"])


@pytest.mark.parametrize("tool, words", NOT_RUNS)
def test_a_call_that_runs_no_module_is_no_engine_call(tool, words):
    assert engine_call({"tool": tool, "argv": [*words, "--port", "8000"]}) is None


@pytest.mark.parametrize("tool, words", RUNS)
def test_the_multinode_and_sglang_checks_see_the_worker_started(tool, words):
    call = {"tool": tool.rsplit("/", 1)[-1], "argv": [*words, "--port", "1"]}
    assert multinode._modules([call], SERVER) == [["--port", "1"]]
    assert runner._starts_sglang(call)


def _script(tmp_path: Path, line: str) -> tuple[Path, Path]:
    root = tmp_path / "repo"
    script = root / "benchmarks" / "single_node" / "run.sh"
    script.parent.mkdir(parents=True)
    script.write_text(f"#!/usr/bin/env bash\nset -e\necho start\n{line} --port 8000\n")
    return root, script


@pytest.mark.parametrize("tool, words", RUNS)
def test_the_line_that_runs_it_is_found_however_the_interpreter_is_written(tmp_path, tool, words):
    root, script = _script(tmp_path, " ".join([tool, *words]))
    assert scriptlines.first_command(root, script, (scriptlines.runs_module([SERVER]),)) == (
        "benchmarks/single_node/run.sh", 4)
    assert runner.SGLANG_SERVER.search(" ".join([tool, *words]))


@pytest.mark.parametrize("line", ["python3 -c 'import x' -m sglang.launch_serverx", "python3 -cm sglang.launch_server",
                                  "python3 -m sglang.launch_server_x", "python3 -um sglang.launch_server.x"])
def test_a_line_that_runs_no_such_module_is_not_found(tmp_path, line):
    root, script = _script(tmp_path, line)
    assert scriptlines.first_command(root, script, (scriptlines.runs_module([SERVER]),)) is None


def test_the_client_line_a_timeout_stands_at_is_found_for_um(tmp_path):
    root, script = _script(tmp_path, f"python3 -um {CLIENT}")
    assert scriptlines.first_command(root, script, (runner.CLIENT_RUNS,)) == ("benchmarks/single_node/run.sh", 4)


def _standin(tmp_path: Path, tool: str, words: list[str]) -> tuple[subprocess.CompletedProcess, list[dict]]:
    shims, log = tmp_path / "shims", tmp_path / "calls.jsonl"
    runner.write_shims(shims)
    env = {**os.environ, "SWEEPGATE_REHEARSE_LOG": str(log)}
    r = subprocess.run([str(shims / runner.STANDIN), tool, *words], env=env, capture_output=True, text=True,
                       timeout=60)
    return r, [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


@pytest.mark.parametrize("tool, words", RUNS)
def test_server_standin_hands_the_stand_in_the_module_whatever_comes_before_m(tmp_path, tool, words):
    """The router's stand-in with no workers refuses in its own words (exit 1): it was reached."""
    words = [w.replace(SERVER, fields.SGLANG_ROUTER_MODULE) for w in words]
    r, calls = _standin(tmp_path, tool, [*words, "--port", "1"])
    assert r.returncode == 1 and "workers not healthy" in r.stderr, r.stderr
    assert calls[-1]["tool"] == tool.rsplit("/", 1)[-1]
    assert calls[-1]["argv"] == ["-m", fields.SGLANG_ROUTER_MODULE, "--port", "1"]


@pytest.mark.parametrize("words", [w for _, w in RUNS + NOT_RUNS] + [["-Bum", SERVER, "-u"], ["-m"], ["-u"], [],
                                                                     ["--", "-m", SERVER], ["-W"], ["-bX", "x"]])
def test_the_shims_bash_reads_the_options_as_python_does(tmp_path, words):
    """The one reading, twice written: bash in the shims (no interpreter started per call), Python elsewhere."""
    r, calls = _standin(tmp_path, "python3", words)
    found = pythoncall.module_call(words)
    assert calls, r.stderr
    assert calls[-1]["argv"] == (["-m", found[0], *found[1]] if found else words), (words, found)


def test_an_interpreter_s_name():
    assert [n for n in ("python", "python3", "python3.11", "/usr/bin/python3.12", "python2", "python3.11-config",
                        "ipython", "python3.", "pythonw") if pythoncall.is_interpreter(n)] == [
        "python", "python3", "python3.11", "/usr/bin/python3.12"]
    assert sys.executable  # the suite's own interpreter runs the stand-in
