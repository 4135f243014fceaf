"""The `sglang.bench_serving` stand-in and the python shims, after a review (s38u).

1. A client run where no request succeeded passed its rehearsal ("completed": 0, exit 0): the stand-in now sends
   bench_serving's warm-up request first and exits 1 when it fails, as the real client raises; and a run whose
   every request failed exits 1 without writing a line.
2. A `python` shim was written where the machine has no `python`, so `command -v python` said yes and the script
   then died with "python: command not found": a shim is written only for a name found on PATH.
3. The shim knew only `python3 -m`: `python3 -u -m`, `-I`, `-X opt`, `-W arg`, `-um`, `-mMODULE` and
   `python3.N` reached the real interpreter ("No module named 'sglang'").
4. An option the stand-in does not know (a newer SGLang's) is passed over with a note, as the vLLM stand-in does.
Real bash, real files, real requests.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from sweepgate.core import fields  # noqa: E402
from sweepgate.rehearsal import runner, standin  # noqa: E402
from test_rehearse import SGLANG_ROW, cli, write_rows  # noqa: E402
from test_standin_sglang_bench_s38s import CLIENT, _sglang_repo, server  # noqa: E402,F401 - server: a fixture

MODULE = fields.SGLANG_CLIENT_MODULE


def _client(argv: list[str], tmp_path: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != standin.FAST_ENV}
    env["SWEEPGATE_REHEARSE_LOG"] = str(tmp_path / "calls.jsonl")
    return subprocess.run([sys.executable, str(Path(standin.__file__)), "shim", "python3", "-m", MODULE, *argv],
                          env=env, capture_output=True, text=True, timeout=120)


def test_a_rehearsal_whose_client_reaches_no_server_fails_saying_the_client_s_error(tmp_path):
    client = CLIENT.replace('--port "${PORT}"', "--port 1")
    repo, work = _sglang_repo(tmp_path, client), tmp_path / "w"
    r = cli(["--exp-name", "dsr1_1k1k", "--row-json", str(write_rows(tmp_path, SGLANG_ROW)), "--work-dir", str(work)],
            cwd=repo / "configs", timeout=120)
    out = r.stdout + r.stderr
    assert r.returncode == 1 and "FAILED" in out and "Warmup failed" in out, out
    script = "benchmarks/single_node/fixed_seq_len/dsr1_fp8_b300_sglang.sh"
    # the client's exit is the script's, said once with the client's own words (s41d: no "no result file" after it)
    assert f"{script}: the script exited 1 (sglang.bench_serving (fake): Warmup failed" in out, out
    assert "no result file" not in out, out
    assert not [p for p in (work / "results").glob("*.json") if not p.name.endswith(".job.json")]


@pytest.mark.parametrize("status", [404, 400])
def test_an_error_answer_to_the_warm_up_exits_1_and_writes_no_line(tmp_path, server, status):
    out = tmp_path / "out.jsonl"
    base = f"http://127.0.0.1:{server.server_address[1]}"
    # the stand-in server answers 404 for a route it does not serve, 400 for a body it cannot read
    argv = ["--backend", "sglang", "--base-url", base + ("/nosuch" if status == 404 else ""), "--model", "m",
            "--num-prompts", "2",
            "--random-input-len", "4", "--random-output-len", "2", "--output-file", str(out)]
    if status == 400:
        argv += ["--extra-request-body", '{"sampling_params": 7}']
    r = _client(argv, tmp_path)
    assert r.returncode == 1 and "Warmup failed" in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert not out.exists()


def test_with_no_warm_up_a_run_whose_every_request_failed_exits_1(tmp_path):
    out = tmp_path / "out.jsonl"
    r = _client(["--host", "127.0.0.1", "--port", "1", "--model", "m", "--warmup-requests", "0", "--num-prompts",
                 "2", "--output-file", str(out)], tmp_path)
    assert r.returncode == 1 and "All requests failed" in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert not out.exists()


def test_an_option_it_does_not_know_is_passed_over_with_a_note(tmp_path, server):
    out = tmp_path / "out.jsonl"
    r = _client(["--base-url", f"http://127.0.0.1:{server.server_address[1]}", "--num-prompts", "2",
                 "--random-input-len", "4", "--random-output-len", "2", "--a-newer-option", "3", "--output-file",
                 str(out)], tmp_path)
    assert r.returncode == 0, r.stderr
    assert "--a-newer-option 3" in r.stderr and json.loads(out.read_text())["completed"] == 2


def _interp_dir(tmp_path: Path, *names: str) -> Path:
    """A folder on PATH holding bash (the shims' interpreter) and ``names``, each this Python."""
    other = tmp_path / "bin"
    other.mkdir(exist_ok=True)
    (other / "bash").symlink_to(shutil.which("bash"))
    for name in names:
        (other / name).symlink_to(sys.executable)
    return other


def test_no_python_shim_where_the_machine_has_no_python(tmp_path, monkeypatch):
    other, shims = _interp_dir(tmp_path, "python3"), tmp_path / "shims"
    monkeypatch.setenv("PATH", str(other))
    runner.write_shims(shims)
    assert (shims / "python3").is_file() and not (shims / "python").exists()
    script = 'if command -v python >/dev/null 2>&1; then PY=python; else PY=python3; fi\n"$PY" -c "print(1)"\n'
    r = subprocess.run(["/bin/bash", "-c", script], env={"PATH": f"{shims}:{other}"}, capture_output=True, text=True,
                       timeout=60)
    assert (r.returncode, r.stdout) == (0, "1\n"), r.stderr


@pytest.mark.parametrize("before", [["-u"], ["-I"], ["-X", "dev"], ["-Xdev"], ["-W", "ignore"], ["-Wignore"],
                                    ["-u", "-B"], ["-uB"], ["--check-hash-based-pycs", "never"]])
def test_the_interpreters_own_options_before_m_reach_the_stand_in(tmp_path, monkeypatch, server, before):
    other, shims = _interp_dir(tmp_path, "python3"), tmp_path / "shims"
    monkeypatch.setenv("PATH", str(other))
    runner.write_shims(shims)
    out = tmp_path / "out.jsonl"
    argv = ["--base-url", f"http://127.0.0.1:{server.server_address[1]}", "--num-prompts", "1",
            "--random-input-len", "4", "--random-output-len", "2", "--output-file", str(out)]
    env = {**os.environ, "PATH": f"{shims}:{other}"}
    env.pop(standin.FAST_ENV, None)
    r = subprocess.run(["python3", *before, "-m", MODULE, *argv], env=env, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0 and json.loads(out.read_text())["completed"] == 1, r.stderr


@pytest.mark.parametrize("call", [["-um", MODULE], ["-m" + MODULE], ["-u", "-m" + MODULE]])
def test_m_joined_to_its_module_or_to_other_flags_reaches_the_stand_in(tmp_path, monkeypatch, server, call):
    other, shims = _interp_dir(tmp_path, "python3"), tmp_path / "shims"
    monkeypatch.setenv("PATH", str(other))
    runner.write_shims(shims)
    out = tmp_path / "out.jsonl"
    env = {**os.environ, "PATH": f"{shims}:{other}"}
    env.pop(standin.FAST_ENV, None)
    r = subprocess.run(["python3", *call, "--base-url", f"http://127.0.0.1:{server.server_address[1]}",
                        "--num-prompts", "1", "--random-input-len", "4", "--random-output-len", "2", "--output-file",
                        str(out)], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and out.is_file(), r.stderr


@pytest.mark.parametrize("call", [["-c", "import sys; print(sys.argv[1:])", "-m", MODULE],
                                  ["-X", "dev", "-c", "import sys; print(sys.argv[1:])", "-m", MODULE],
                                  ["-uc", "import sys; print(sys.argv[1:])", "-m", MODULE]])
def test_what_follows_c_is_the_programs_and_runs_the_real_python(tmp_path, monkeypatch, call):
    other, shims = _interp_dir(tmp_path, "python3"), tmp_path / "shims"
    monkeypatch.setenv("PATH", str(other))
    runner.write_shims(shims)
    r = subprocess.run(["python3", *call], env={**os.environ, "PATH": f"{shims}:{other}"}, capture_output=True,
                       text=True, timeout=60)
    assert (r.returncode, r.stdout) == (0, f"['-m', '{MODULE}']\n"), r.stderr


def test_a_python3_n_on_path_gets_a_shim_too(tmp_path, monkeypatch, server):
    other, shims = _interp_dir(tmp_path, "python3.99", "python3.99-config"), tmp_path / "shims"
    monkeypatch.setenv("PATH", str(other))
    runner.write_shims(shims)
    assert (shims / "python3.99").is_file() and not (shims / "python3").exists()
    assert not (shims / "python3.99-config").exists()
    out = tmp_path / "out.jsonl"
    env = {**os.environ, "PATH": f"{shims}:{other}"}
    env.pop(standin.FAST_ENV, None)
    r = subprocess.run(["python3.99", "-u", "-m", MODULE, "--base-url", f"http://127.0.0.1:{server.server_address[1]}",
                        "--num-prompts", "1", "--random-input-len", "4", "--random-output-len", "2", "--output-file",
                        str(out)], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and out.is_file(), r.stderr
    r = subprocess.run(["python3.99", "-c", "print(2)"], env=env, capture_output=True, text=True, timeout=60)
    assert (r.returncode, r.stdout) == (0, "2\n"), r.stderr


def test_preflight_s_python3_calls_run_this_interpreter_through_the_shim(tmp_path, monkeypatch):
    """Preflight ran the library's inline Python on this interpreter by linking python3 to it in the shim folder;
    since the folder holds a python3 shim (the client stand-in), that link was skipped and every other python3
    call ran whatever python3 came next on PATH (a version manager's shim costs a tenth of a second a call).
    record._this_python_first now names this interpreter to the shim, which runs it for any other call."""
    from sweepgate.rehearsal import record

    other = _interp_dir(tmp_path)
    (other / "python3").write_text("#!/bin/sh\necho next-on-path\n")
    (other / "python3").chmod(0o755)
    shims = tmp_path / "shims"
    monkeypatch.setenv("PATH", str(other))
    runner.write_shims(shims)
    env = {"PATH": f"{shims}:{other}"}
    record._this_python_first(shims, env)
    probe = ["python3", "-c", "import sys; print(sys.executable)"]
    r = subprocess.run(probe, env=env, capture_output=True, text=True, timeout=60)
    assert (r.returncode, r.stdout) == (0, f"{sys.executable}\n"), r.stderr
    plain = subprocess.run(probe, env={"PATH": f"{shims}:{other}"}, capture_output=True, text=True, timeout=60)
    assert plain.stdout == "next-on-path\n", plain.stderr  # a rehearsal runs the job's own python3
