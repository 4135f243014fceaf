"""benchmarks/benchmark_lib.sh (CONTRACTS section 5), driven with real bash processes and signals."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from fractions import Fraction
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "bash"))

from benchlib_helpers import (  # noqa: E402
    LIB, HttpServer, alive, bash, kill_quietly, wait_for_file, wait_until_dead)

FLAG_SETS = ["-eux", "-ux", "-x", "-e", "+eux"]
BENCH_LIB_DIR = LIB.parent / "lib"
LIB_PARTS = [LIB, *sorted(BENCH_LIB_DIR.glob("*.sh"))]


def _rc(out: str, tag: str = "rc") -> int:
    for line in out.splitlines():
        if line.startswith(f"{tag}="):
            return int(line.split("=", 1)[1])
    raise AssertionError(f"no {tag}= line in output:\n{out}")


# --- wait_for_ready ---------------------------------------------------------------------

def test_wait_for_ready_returns_0_against_a_real_http_server():
    with HttpServer(200) as server:
        r = bash(f"""
            sleep 30 & pid=$!
            wait_for_ready --endpoint {server.url} --pid "$pid" --timeout 20 --sleep-interval 0.2
            echo "rc=$?"
            kill "$pid"
        """)
        assert server.hits >= 1
    assert _rc(r.stdout) == 0, r.stderr
    assert "Ready:" in r.stdout


def test_wait_for_ready_returns_1_when_the_pid_dies():
    with HttpServer(503) as server:  # answers, but never 2xx
        r = bash(f"""
            sleep 0.3 & pid=$!
            wait_for_ready --endpoint {server.url} --pid "$pid" --timeout 0 --sleep-interval 0.1
            echo "rc=$?"
            echo still-here
        """, timeout=20)
    assert _rc(r.stdout) == 1
    assert "died" in r.stderr
    assert "still-here" in r.stdout


def test_wait_for_ready_returns_1_on_timeout():
    with HttpServer(503) as server:
        r = bash(f"""
            sleep 30 & pid=$!
            wait_for_ready --endpoint {server.url} --pid "$pid" --timeout 1 --sleep-interval 0.2
            echo "rc=$?"
            kill "$pid"
        """, timeout=20)
    assert _rc(r.stdout) == 1
    assert "timed out" in r.stderr


def test_wait_for_ready_streams_the_process_log(tmp_path):
    log = tmp_path / "server.log"
    with HttpServer(200) as server:
        r = bash(f"""
            (echo "loading weights"; sleep 30) > "{log}" & pid=$!
            sleep 0.2
            wait_for_ready --endpoint {server.url} --pid "$pid" --log "{log}" --timeout 20
            echo "rc=$?"
            kill "$pid"
        """)
    assert _rc(r.stdout) == 0
    assert "loading weights" in r.stdout


@pytest.mark.parametrize("args", [
    "--pid 123",                               # no endpoint
    "--endpoint http://127.0.0.1:1/",          # no pid
    "--endpoint http://127.0.0.1:1/ --pid x",  # pid not a number
    "--endpoint http://127.0.0.1:1/ --pid 1 --timeout -3",
    "--endpoint http://127.0.0.1:1/ --pid 1 --sleep-interval 0",
    "--bogus",
])
def test_wait_for_ready_rejects_bad_arguments_with_1(args):
    r = bash(f"wait_for_ready {args}; echo rc=$?; echo still-here")
    assert _rc(r.stdout) == 1
    assert "still-here" in r.stdout
    assert r.stderr.strip()


@pytest.mark.parametrize("flags", FLAG_SETS)
@pytest.mark.parametrize("case", ["ready", "died", "timeout"])
def test_wait_for_ready_never_exits_and_keeps_shell_options(flags, case):
    status = 200 if case == "ready" else 503
    sleeper = "sleep 0.2" if case == "died" else "sleep 30"
    timeout = 1 if case == "timeout" else 10
    with HttpServer(status) as server:
        r = bash(f"""
            set {flags}
            before="$-"
            {sleeper} & pid=$!
            if wait_for_ready --endpoint {server.url} --pid "$pid" --timeout {timeout} --sleep-interval 0.1; then
              rc=0
            else
              rc=$?
            fi
            after="$-"
            kill "$pid" 2>/dev/null || true
            echo "rc=$rc"
            echo "before=$before"
            echo "after=$after"
        """, timeout=20)
    lines = dict(line.split("=", 1) for line in r.stdout.splitlines() if "=" in line)
    assert lines.get("rc") == ("0" if case == "ready" else "1"), r.stdout + r.stderr
    assert lines["before"] == lines["after"]


def test_wait_for_ready_failure_under_errexit_exits_only_by_the_callers_choice():
    # The library returns 1; it is the caller's `set -e` that ends the script.
    r = bash("""
        set -e
        sleep 0.2 & pid=$!
        wait_for_ready --endpoint http://127.0.0.1:1/ --pid "$pid" --timeout 5 --sleep-interval 0.1
        echo not-reached
    """)
    assert r.returncode == 1
    assert "not-reached" not in r.stdout


def test_wait_for_ready_does_not_turn_xtrace_off_for_the_caller():
    with HttpServer(200) as server:
        r = bash(f"""
            set -x
            sleep 30 & pid=$!
            wait_for_ready --endpoint {server.url} --pid "$pid" --timeout 10
            : marker-after-wait
            kill "$pid"
        """)
    assert "+ : marker-after-wait" in r.stderr


def test_wait_for_server_ready_polls_health_on_the_port():
    with HttpServer(200) as server:
        port = server.url.split(":")[2].split("/")[0]
        r = bash(f"""
            sleep 30 & pid=$!
            wait_for_server_ready --port {port} --server-log /dev/null --server-pid "$pid" --timeout 10
            echo "rc=$?"
            kill "$pid"
        """)
    assert _rc(r.stdout) == 0, r.stderr


def test_readiness_timeout_repeats_the_last_server_log_lines(tmp_path):
    log = tmp_path / "server.log"
    log.write_text("".join(f"line {n}\n" for n in range(100)) + "CUDA out of memory\n")
    with HttpServer(503) as server:
        r = bash(f"""
            sleep 30 & pid=$!
            wait_for_ready --endpoint {server.url} --pid "$pid" --log "{log}" --timeout 1 --sleep-interval 0.2
            echo "rc=$?"
            kill "$pid"
        """, timeout=20)
    assert _rc(r.stdout) == 1
    tail = r.stderr.split("timed out", 1)[1]
    assert "CUDA out of memory" in tail and "line 99" in tail and "line 50" not in tail


def test_a_readiness_poll_runs_no_process_but_the_http_check_and_sleep(tmp_path):
    """With a PATH of only curl and sleep (each recording its call), the log is still streamed, backoff and
    timeout hold and the last lines are repeated: no awk, tail, head or wc, one curl and one sleep per poll."""
    bin_dir, calls = tmp_path / "bin", tmp_path / "calls"
    bin_dir.mkdir()
    for tool in ("curl", "sleep"):
        real = shutil.which(tool)
        assert real, f"{tool} is needed for this test"
        (bin_dir / tool).write_text(f'#!/bin/bash\necho "{tool} ${{*: -1}}" >>"{calls}"\nexec {real} "$@"\n')
        (bin_dir / tool).chmod(0o755)
    log = tmp_path / "server.log"
    sleep = shutil.which("sleep")
    with HttpServer(503) as server:
        r = bash(f"""
            (echo "loading weights"; printf half; {sleep} 0.5; echo " a line"; exec {sleep} 30) >"{log}" &
            pid=$!
            PATH="{bin_dir}"
            wait_for_ready --endpoint {server.url} --pid "$pid" --log "{log}" --timeout 2 --sleep-interval 0.4
            echo "rc=$?"
            kill "$pid"
        """, timeout=20)
        hits = server.hits
    assert _rc(r.stdout) == 1 and "timed out" in r.stderr, r.stderr
    assert "not found" not in r.stderr, r.stderr
    assert "loading weights\nhalf a line\n" in r.stdout
    assert "loading weights\nhalf a line\n--- end" in r.stderr.split("timed out", 1)[1]
    made = calls.read_text().splitlines()
    curls = [c for c in made if c.startswith("curl ")]
    sleeps = [c.split()[1] for c in made if c.startswith("sleep ")]
    assert len(curls) == hits >= 3 and len(curls) + len(sleeps) == len(made)
    assert len(sleeps) == len(curls) - 1  # the last poll times out instead of sleeping
    assert sleeps[0] == "0.200000" and set(sleeps[1:]) == {"0.400000"}  # backs off to the interval


def test_readiness_has_a_finite_default_timeout(tmp_path):
    r = bash(f"""
        unset SERVER_READY_TIMEOUT
        RESULT_DIR="{tmp_path}" PORT=9
        start_server_and_wait bash -c 'exit 3'
        echo "rc=$?"
        sleep 30 & pid=$!
        wait_for_ready --endpoint http://127.0.0.1:9/ --pid "$pid" --sleep-interval 0.1 &
        waiter=$!
        sleep 0.5; kill "$waiter" "$pid"
    """)
    assert _rc(r.stdout) == 1
    assert r.stdout.count("timeout 1800s") == 2, r.stdout


# --- stop_background_process_tree ----------------------------------------------------------

def _tree_script(pids_file: Path, ignore_term: bool = False) -> str:
    trap = 'trap "" TERM; ' if ignore_term else ""
    # root bash -> child sleep, child bash -> grandchild sleep
    return (f"bash -c '{trap}sleep 300 & echo $! >> \"$0\"; "
            f"bash -c \"{trap}sleep 300 & echo \\$! >> \\\"\\$0\\\"; echo \\$\\$ >> \\\"\\$0\\\"; wait\" \"$0\"; wait' "
            f"\"{pids_file}\" &")


def test_stop_background_process_tree_kills_grandchildren(tmp_path):
    pids_file = tmp_path / "pids"
    r = bash(f"""
        {_tree_script(pids_file)}
        root=$!
        echo "root=$root"
        for _ in $(seq 200); do [[ $(wc -l < "{pids_file}" 2>/dev/null || echo 0) -ge 3 ]] && break; sleep 0.05; done
        stop_background_process_tree "$root" "test tree" 5
        echo "rc=$?"
        for p in $root $(cat "{pids_file}"); do
          if kill -0 "$p" 2>/dev/null && [[ $(ps -o stat= -p "$p") != Z* ]]; then echo "alive=$p"; fi
        done
    """)
    pids = [int(p) for p in pids_file.read_text().split()] + [_rc(r.stdout, "root")]
    try:
        assert _rc(r.stdout) == 0, r.stderr
        assert len(pids) == 4
        assert "alive=" not in r.stdout
        assert not [p for p in pids if alive(p)]
    finally:
        kill_quietly(pids)


def test_stop_background_process_tree_kills_what_ignores_term(tmp_path):
    pids_file = tmp_path / "pids"
    r = bash(f"""
        {_tree_script(pids_file, ignore_term=True)}
        root=$!
        echo "root=$root"
        for _ in $(seq 200); do [[ $(wc -l < "{pids_file}" 2>/dev/null || echo 0) -ge 3 ]] && break; sleep 0.05; done
        stop_background_process_tree "$root" "stubborn tree" 1
        echo "rc=$?"
    """)
    pids = [int(p) for p in pids_file.read_text().split()] + [_rc(r.stdout, "root")]
    try:
        assert _rc(r.stdout) == 0, r.stderr
        assert "Force-stopping" in r.stdout
        assert not [p for p in pids if alive(p)]
    finally:
        kill_quietly(pids)


@pytest.mark.parametrize("pid", ["", "not-a-pid", "0", "999999999", "999999"])
def test_stop_background_process_tree_returns_0_for_nothing_to_stop(pid):
    r = bash(f'set -eu; stop_background_process_tree "{pid}"; echo rc=$?')
    assert _rc(r.stdout) == 0
    # contract audit: a gone PID printed "/proc/999999/stat: No such file or directory" (the
    # stderr redirection came after the failing input redirection)
    assert "No such file" not in r.stderr, r.stderr


def test_stop_background_process_tree_reaps_a_dead_child():
    r = bash("""
        set -eux
        before="$-"
        true & pid=$!
        sleep 0.2
        stop_background_process_tree "$pid"
        echo "rc=$?"
        [[ "$-" == "$before" ]] && echo same-flags
    """)
    assert _rc(r.stdout) == 0
    assert "same-flags" in r.stdout


# --- register_cleanup_pid ---------------------------------------------------------------

def _server_script(tmp_path: Path, tail: str) -> Path:
    script = tmp_path / "job.sh"
    script.write_text(textwrap.dedent(f"""\
        set -e
        source "{LIB}"
        bash -c 'sleep 300 & echo $! > "$0"; wait' "{tmp_path}/grandchild" &
        register_cleanup_pid $! "fake server"
        echo $! > "{tmp_path}/server"
        for _ in $(seq 200); do [[ -s "{tmp_path}/grandchild" ]] && break; sleep 0.05; done
        echo ready > "{tmp_path}/ready"
        {tail}
    """))
    return script


def _pids(tmp_path: Path) -> list[int]:
    return [int((tmp_path / name).read_text().split()[0]) for name in ("server", "grandchild")
            if (tmp_path / name).exists() and (tmp_path / name).read_text().strip()]


@pytest.mark.parametrize("sig,status", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_signal_stops_registered_tree_and_exits_128_plus_signal(tmp_path, sig, status):
    script = _server_script(tmp_path, "wait")
    proc = subprocess.Popen(["bash", str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for_file(tmp_path / "ready")
        pids = _pids(tmp_path)
        assert len(pids) == 2 and all(alive(p) for p in pids)
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=20)
        assert proc.returncode == status, err
        assert not wait_until_dead(pids, timeout=5)
        assert "Stopping fake server" in out
    finally:
        proc.kill()
        kill_quietly(_pids(tmp_path))


@pytest.mark.parametrize("tail,status", [("exit 7", 7), ("false", 1), ("true", 0)])
def test_normal_exit_keeps_status_and_stops_the_tree(tmp_path, tail, status):
    script = _server_script(tmp_path, tail)
    try:
        r = subprocess.run(["bash", str(script)], capture_output=True, text=True, timeout=20)
        assert r.returncode == status, r.stderr
        assert not wait_until_dead(_pids(tmp_path), timeout=5)
    finally:
        kill_quietly(_pids(tmp_path))


def test_cleanup_stops_most_recent_first(tmp_path):
    order = tmp_path / "order"
    script = tmp_path / "job.sh"
    script.write_text(textwrap.dedent(f"""\
        source "{LIB}"
        for label in first second third; do
          bash -c 'trap "echo $1 >> \\"$0\\"; exit 0" TERM; touch "$0.$1"; while :; do sleep 0.05; done' \\
            "{order}" "$label" &
          register_cleanup_pid $! "$label"
          for _ in $(seq 200); do [[ -e "{order}.$label" ]] && break; sleep 0.02; done
        done
        exit 3
    """))
    r = subprocess.run(["bash", str(script)], capture_output=True, text=True, timeout=30)
    assert r.returncode == 3, r.stderr
    assert order.read_text().split() == ["third", "second", "first"]


def test_one_handler_for_many_registrations(tmp_path):
    r = bash("""
        sleep 30 & register_cleanup_pid $! a
        first="$(trap -p EXIT; trap -p TERM; trap -p INT)"
        sleep 30 & register_cleanup_pid $! b
        second="$(trap -p EXIT; trap -p TERM; trap -p INT)"
        [[ "$first" == "$second" ]] && echo same-handler
        echo "count=$(grep -c "^trap" <<<"$second")"
    """)
    assert "same-handler" in r.stdout
    assert _rc(r.stdout, "count") == 3


def test_unregistered_pid_is_left_alone(tmp_path):
    r = bash("""
        sleep 30 >/dev/null 2>&1 & keep=$!
        register_cleanup_pid "$keep" keep
        unregister_cleanup_pid "$keep"
        echo "keep=$keep"
    """)
    keep = _rc(r.stdout, "keep")
    try:
        assert alive(keep)
    finally:
        kill_quietly([keep])


@pytest.mark.parametrize("flags", FLAG_SETS)
def test_register_cleanup_pid_keeps_shell_options(flags):
    r = bash(f"""
        set {flags}
        before="$-"
        sleep 30 & register_cleanup_pid $! s
        register_cleanup_pid not-a-pid oops || true
        after="$-"
        [[ "$before" == "$after" ]] && echo same-flags
    """)
    assert "same-flags" in r.stdout, r.stderr
    assert "not a PID" in r.stderr


# --- process sessions and the shared deadline (issue 16) ------------------------------------

def _read_pids(path: Path) -> list[int]:
    return [int(p) for p in path.read_text().split()] if path.exists() else []


def test_a_server_whose_root_dies_during_startup_leaves_no_process(tmp_path):
    pids = tmp_path / "pids"
    server = tmp_path / "server.sh"
    # root -> sleep, root -> bash -> sleep; the root exits while loading.
    server.write_text(textwrap.dedent("""\
        echo $$ >> "$1"
        sleep 300 & echo $! >> "$1"
        bash -c 'sleep 300 & echo $! >> "$0"; wait' "$1" & echo $! >> "$1"
        for _ in $(seq 100); do [[ $(wc -l < "$1") -ge 4 ]] && break; sleep 0.05; done
        echo "loading weights"; exit 3
    """))
    script = tmp_path / "job.sh"
    script.write_text(textwrap.dedent(f"""\
        set -e
        source "{LIB}"
        RESULT_DIR="{tmp_path}/results" PORT=9 SERVER_READY_TIMEOUT=30
        start_server_and_wait bash "{server}" "{pids}" || exit 1
        echo not-reached
    """))
    try:
        r = subprocess.run(["bash", str(script)], capture_output=True, text=True, timeout=60)
        found = _read_pids(pids)
        assert r.returncode == 1, r.stderr
        assert "died before" in r.stderr and "not-reached" not in r.stdout
        assert len(found) == 4
        # Gone when the script returns: no waiting on anyone's kindness.
        assert not [p for p in found if alive(p)], r.stdout + r.stderr
        session = subprocess.run(["pgrep", "-s", str(found[0])], capture_output=True, text=True)
        assert session.stdout.strip() == ""
        assert "has exited" in r.stdout
    finally:
        kill_quietly(_read_pids(pids))


def _stubborn_trees_script(tmp_path: Path, pids: Path, stamp: Path) -> Path:
    script = tmp_path / "job.sh"
    script.write_text(textwrap.dedent(f"""\
        source "{LIB}"
        for label in first second third; do
          start_background_process --label "$label" --log "{tmp_path}/$label.log" -- \\
            bash -c 'trap "" TERM; echo $$ >> "$0"; sleep 300 & echo $! >> "$0"; wait' "{pids}"
        done
        for _ in $(seq 200); do [[ $(wc -l < "{pids}" 2>/dev/null || echo 0) -ge 6 ]] && break; sleep 0.05; done
        date +%s.%N > "{stamp}"
        exit 0
    """))
    return script


# The upper bounds leave a busy host seconds to spare and still fail what they guard against:
# uncapped (a 20 s grace), three graces one after another take 60 s, two take 40; capped at 2 s,
# an ignored cap takes the 20 s grace. A speed goal belongs in tests/bench, not here.
@pytest.mark.parametrize("cap,bound", [(None, 2 * 20.0), ("2", 20.0)])
def test_three_trees_that_ignore_term_are_gone_within_one_shared_deadline(tmp_path, cap, bound):
    pids, stamp = tmp_path / "pids", tmp_path / "exit_at"
    script = _stubborn_trees_script(tmp_path, pids, stamp)
    env = {k: v for k, v in os.environ.items() if k != "SWEEPGATE_CLEANUP_GRACE"}
    if cap:
        env["SWEEPGATE_CLEANUP_GRACE"] = cap
    try:
        r = subprocess.run(["bash", str(script)], env=env, capture_output=True, text=True, timeout=90)
        ended = time.time()
        elapsed = ended - float(stamp.read_text())
        found = _read_pids(pids)
        assert r.returncode == 0, r.stderr
        assert len(found) == 6
        assert not [p for p in found if alive(p)]
        assert r.stdout.count("Force-stopping") == 3
        # One grace for all three (sequential graces would take three times as long),
        # and KILL only after it: the trees really ignored TERM.
        grace = float(cap or 20)
        assert grace - 0.5 <= elapsed < bound, f"cleanup took {elapsed:.1f}s"
        print(f"three stubborn trees stopped in {elapsed:.2f}s (grace {grace:.0f}s)")
    finally:
        kill_quietly(_read_pids(pids))


# --- start_background_process ---------------------------------------------------------------

def test_start_background_process_logs_records_and_registers(tmp_path):
    r = bash(f"""
        set -eu
        start_background_process --label "echo server" --log "{tmp_path}/srv.log" \\
          --command-file "{tmp_path}/cmd.txt" -- bash -c 'echo "hello $0"; sleep 300' "a b"
        echo "pid=$BACKGROUND_PID"
        for _ in $(seq 100); do [[ -s "{tmp_path}/srv.log" ]] && break; sleep 0.05; done
    """)
    pid = _rc(r.stdout, "pid")
    try:
        assert r.returncode == 0, r.stderr
        assert (tmp_path / "srv.log").read_text().strip() == "hello a b"
        assert (tmp_path / "cmd.txt").read_text().startswith("bash -c ")
        assert not wait_until_dead([pid], timeout=5), "registered server outlived the script"
    finally:
        kill_quietly([pid])


# --- start_server_and_wait / vllm_parallel_args ---------------------------------------------

def test_start_server_and_wait_records_starts_and_waits_for_health(tmp_path):
    with HttpServer(200) as server:
        port = server.url.split(":")[2].split("/")[0]
        r = bash(f"""
            set -eux
            RESULT_DIR="{tmp_path}" PORT={port} SERVER_READY_TIMEOUT=10
            start_server_and_wait sleep 300
            echo "rc=$? pid=$SERVER_PID log=$SERVER_LOG flags=$-"
        """)
    assert r.returncode == 0, r.stderr
    line = next(l for l in r.stdout.splitlines() if l.startswith("rc="))
    assert line.startswith("rc=0 ") and f"log={tmp_path}/server.log" in line
    assert set("eux") <= set(line.split("flags=")[1])
    assert (tmp_path / "server_command.txt").read_text().strip() == "sleep 300"
    pid = int(line.split("pid=")[1].split()[0])
    assert not wait_until_dead([pid], timeout=5), "the server outlived the script"


def test_start_server_and_wait_returns_1_when_the_server_dies(tmp_path):
    r = bash(f"""
        RESULT_DIR="{tmp_path}" PORT=9 SERVER_READY_TIMEOUT=30
        start_server_and_wait bash -c 'echo boom; exit 3'
        echo "rc=$?"
    """)
    assert _rc(r.stdout) == 1


@pytest.mark.parametrize("env,expected", [
    ("TP=8", "--tensor-parallel-size 8"),
    ("TP=8 EP_SIZE=8", "--tensor-parallel-size 8 --enable-expert-parallel"),
    ("TP=4 EP_SIZE=4 DP_ATTENTION=true", "--data-parallel-size 4 --tensor-parallel-size 1 --enable-expert-parallel"),
])
def test_vllm_parallel_args_follow_the_row(env, expected):
    r = bash(f"""
        set -u
        {env}
        vllm_parallel_args
        echo "args=${{VLLM_PARALLEL_ARGS[*]}}"
    """)
    assert f"args={expected}" in r.stdout, r.stderr


def test_vllm_parallel_args_refuses_a_missing_tp():
    r = bash("""
        unset TP
        vllm_parallel_args
        echo "rc=$?"
    """)
    assert _rc(r.stdout) == 1 and "TP must be a positive integer" in r.stderr


# --- check_env_vars ----------------------------------------------------------------------

def test_check_env_vars_names_every_missing_variable():
    r = bash("""
        set -u
        PRESENT=1 EMPTY=
        unset ABSENT_ONE ABSENT_TWO
        check_env_vars PRESENT EMPTY ABSENT_ONE ABSENT_TWO
        echo "rc=$?"
    """)
    assert _rc(r.stdout) == 1
    for name in ("EMPTY", "ABSENT_ONE", "ABSENT_TWO"):
        assert f"- {name}" in r.stderr
    assert "- PRESENT" not in r.stderr


def test_check_env_vars_returns_0_when_all_present():
    r = bash("A=1 B=x; check_env_vars A B; echo rc=$?")
    assert _rc(r.stdout) == 0
    assert r.stderr == ""


def test_check_env_vars_reports_bad_names_instead_of_crashing():
    r = bash("set -u; check_env_vars 'NOT A NAME' PATH; echo rc=$?")
    assert _rc(r.stdout) == 1
    assert "not a variable name" in r.stderr


# --- KV offload validators ------------------------------------------------------------------

@pytest.mark.parametrize("offloading,backend,dram,expected", [
    ("dram", "lmcache", "1889", 0),
    ("dram", "lmcache", "1", 0),
    ("none", "", "1889", 1),
    ("none", "lmcache", "1889", 1),
    ("dram", "mooncake", "1889", 1),
    ("dram", "", "1889", 1),
    ("dram", "lmcache", "0", 1),
    ("dram", "lmcache", "", 1),
    ("dram", "lmcache", "1.5", 1),
    ("dram", "lmcache", "-5", 1),
    ("dram", "lmcache", "lots", 1),
    ("DRAM", "lmcache", "1889", 1),
    (None, None, None, 1),
])
def test_require_agentic_kv_offload_backend(offloading, backend, dram, expected):
    env = {k: v for k, v in os.environ.items()
           if k not in ("KV_OFFLOADING", "KV_OFFLOAD_BACKEND", "TOTAL_CPU_DRAM_GB")}
    for name, value in (("KV_OFFLOADING", offloading), ("KV_OFFLOAD_BACKEND", backend),
                        ("TOTAL_CPU_DRAM_GB", dram)):
        if value is not None:
            env[name] = value
    r = subprocess.run(["bash", "-c", f'set -eu; source "{LIB}"; '
                        'if require_agentic_kv_offload_backend lmcache; then echo rc=0; else echo rc=$?; fi'],
                       env=env, capture_output=True, text=True, timeout=10)
    assert _rc(r.stdout) == expected, r.stderr
    if expected:
        assert "Error" in r.stderr  # says what is wrong
    else:
        assert r.stderr == ""


def test_require_agentic_kv_offload_none():
    ok = bash("KV_OFFLOADING=none KV_OFFLOAD_BACKEND= require_agentic_kv_offload_none; echo rc=$?")
    bad = bash("KV_OFFLOADING=dram KV_OFFLOAD_BACKEND=lmcache require_agentic_kv_offload_none; echo rc=$?")
    assert _rc(ok.stdout) == 0
    assert _rc(bad.stdout) == 1 and "KV_OFFLOADING=none" in bad.stderr


@pytest.mark.parametrize("offloading,backend,arm", [
    ("none", "", "none"), ("dram", "lmcache", "lmcache"), ("dram", "vllm-simple", "vllm-simple")])
def test_kv_offload_arm_name(offloading, backend, arm):
    r = bash(f"KV_OFFLOADING={offloading} KV_OFFLOAD_BACKEND={backend} kv_offload_arm_name")
    assert r.stdout.strip() == arm


def test_setup_kv_offload_arm_rejects_an_arm_the_script_does_not_support(tmp_path):
    r = bash(f"""
        export KV_OFFLOADING=dram KV_OFFLOAD_BACKEND=mooncake TOTAL_CPU_DRAM_GB=100 RESULT_DIR="{tmp_path}"
        setup_kv_offload_arm --arms "none lmcache"; echo rc=$?
    """)
    assert _rc(r.stdout) == 1
    assert "not supported" in r.stderr


def test_lmcache_arm_needs_the_version_from_the_config(tmp_path):
    r = bash(f"""
        export KV_OFFLOADING=dram KV_OFFLOAD_BACKEND=lmcache TOTAL_CPU_DRAM_GB=100 RESULT_DIR="{tmp_path}"
        export KV_OFFLOAD_BACKEND_VERSION=
        setup_kv_offload_arm; echo rc=$?
    """)
    assert _rc(r.stdout) == 1
    assert "KV_OFFLOAD_BACKEND_VERSION is empty" in r.stderr


def test_vllm_simple_arm_sizes_offload_from_the_row(tmp_path):
    r = bash(f"""
        export KV_OFFLOADING=dram KV_OFFLOAD_BACKEND=vllm-simple TOTAL_CPU_DRAM_GB=1889 RESULT_DIR="{tmp_path}"
        setup_kv_offload_arm
        printf '%s\\n' "${{KV_OFFLOAD_SERVER_ARGS[@]}}"
    """)
    assert r.stdout.splitlines()[-4:] == ["--kv-offloading-backend", "native",
                                          "--kv-offloading-size", "1759.26"]


# --- the DRAM budget's units (issue 16) ---------------------------------------------------------

SEED_DRAM_BYTES = 1889 * 10**9  # the seed row: total-cpu-dram-gb 1889, decimal GB


def _gib_to_bytes(text: str) -> float:
    """What vLLM (--kv-offloading-size) and LMCache (--l1-size-gb) make of a GiB number."""
    return float(text) * 2**30


def _the_budget(text: str) -> str:
    """A GiB figure as units.sh writes it (``seen`` below): the seed's budget rounded down to hundredths."""
    assert text == "1759.26", text
    assert SEED_DRAM_BYTES - 2**30 / 100 < _gib_to_bytes(text) <= SEED_DRAM_BYTES, text
    return "the budget"


def test_gb_to_gib_is_the_budget_rounded_down_to_hundredths_for_every_budget():
    """s37i: the exact quotient was printed, `--l1-size-gb 1759.268343448638916015625` in every log; now two
    decimals at most, never above the budget and under it by less than 0.01 GiB."""
    budgets = [1, 2, 7, 100, 1000, 1889, 2048, 3000, 999_999, 8_000_000, 1_073_741_824]
    r = bash("for gb in " + " ".join(map(str, budgets)) + "; do _sg_gb_to_gib \"$gb\"; done")
    assert r.returncode == 0, r.stderr
    gibs = r.stdout.split()
    assert gibs[5] == "1759.26" and gibs[4] == "931.32" and gibs[-1] == "1000000000", gibs
    assert all(re.fullmatch(r"[1-9][0-9]*(\.[0-9]?[1-9])?|0\.[0-9]?[1-9]", g) for g in gibs), gibs
    for g, gb in zip(gibs, budgets):
        assert 0 <= gb * 10**9 - Fraction(g) * 2**30 < Fraction(2**30, 100), (g, gb)


def _arm(tmp_path: Path, backend: str, server: HttpServer) -> subprocess.CompletedProcess:
    standin = tmp_path / "standin"
    standin.write_text("#!/usr/bin/env bash\nexec sleep 300\n")
    standin.chmod(0o755)
    port = server.url.split(":")[2].split("/")[0]
    return bash(f"""
        export KV_OFFLOADING=dram KV_OFFLOAD_BACKEND={backend} TOTAL_CPU_DRAM_GB=1889 TP=8
        export KV_OFFLOAD_BACKEND_VERSION=1.0 KV_OFFLOAD_SKIP_INSTALL=1 RESULT_DIR="{tmp_path}"
        export SERVER_STANDIN="{standin}" LMCACHE_HTTP_PORT={port} MOONCAKE_METRICS_PORT={port}
        setup_kv_offload_arm || exit 1
        printf 'arg=%s\\n' "${{KV_OFFLOAD_SERVER_ARGS[@]}}"
        echo "simple=${{VLLM_USE_SIMPLE_KV_OFFLOAD:-}}"
    """, timeout=60)


def test_the_seed_rows_1889_gb_reaches_every_backend_as_its_budget(tmp_path):
    """Mooncake's bytes to the byte; vLLM's and LMCache's GiB figure rounded down to hundredths (units.sh)."""
    seen = {}
    with HttpServer(200) as server:
        for backend in ("vllm-simple", "lmcache", "mooncake"):
            work = tmp_path / backend
            work.mkdir()
            r = _arm(work, backend, server)
            assert r.returncode == 0, r.stderr
            args = [line[4:] for line in r.stdout.splitlines() if line.startswith("arg=")]
            if backend == "vllm-simple":
                seen[backend] = _the_budget(args[args.index("--kv-offloading-size") + 1])
            elif backend == "lmcache":
                argv = shlex.split((work / "lmcache_command.txt").read_text())
                seen[backend] = _the_budget(argv[argv.index("--l1-size-gb") + 1])
            else:
                config = json.loads((work / "mooncake_config.json").read_text())
                assert isinstance(config["global_segment_size"], int)  # bytes, no unit to misread
                seen[backend] = "the budget" if config["global_segment_size"] * 8 == SEED_DRAM_BYTES else config
    assert seen == dict.fromkeys(("vllm-simple", "lmcache", "mooncake"), "the budget"), seen


def test_vllm_simple_records_the_simple_connector(tmp_path):
    with HttpServer(200) as server:
        port = server.url.split(":")[2].split("/")[0]
        r = bash(f"""
            set -eu
            export KV_OFFLOADING=dram KV_OFFLOAD_BACKEND=vllm-simple TOTAL_CPU_DRAM_GB=1889
            RESULT_DIR="{tmp_path}" PORT={port}
            setup_kv_offload_arm
            start_server_and_wait bash -c 'echo "env=$VLLM_USE_SIMPLE_KV_OFFLOAD"; sleep 300'
            for _ in $(seq 100); do [[ -s "$SERVER_LOG" ]] && break; sleep 0.05; done
        """)
    assert r.returncode == 0, r.stderr
    comment, command = (tmp_path / "server_command.txt").read_text().splitlines()
    assert comment == "# kv connector: SimpleCPUOffloadConnector"
    assert shlex.split(command)[:2] == ["VLLM_USE_SIMPLE_KV_OFFLOAD=1", "bash"]
    assert (tmp_path / "server.log").read_text().strip() == "env=1"  # the server really sees it


def test_other_arms_record_the_bare_server_command(tmp_path):
    with HttpServer(200) as server:
        port = server.url.split(":")[2].split("/")[0]
        r = bash(f"""
            export KV_OFFLOADING=none KV_OFFLOAD_BACKEND=
            RESULT_DIR="{tmp_path}" PORT={port}
            setup_kv_offload_arm && start_server_and_wait sleep 300
            echo "simple=[${{VLLM_USE_SIMPLE_KV_OFFLOAD:-}}]"
        """, env={"VLLM_USE_SIMPLE_KV_OFFLOAD": ""})
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "server_command.txt").read_text() == "sleep 300\n"
    assert "simple=[]" in r.stdout


def test_run_benchmark_serving_refuses_use_chat_template(tmp_path):
    r = bash(f"""
        run_benchmark_serving --model m --port 1 --input-len 1 --output-len 1 --max-concurrency 1 \\
          --result-dir "{tmp_path}" --result-filename r --use-chat-template
        echo "rc=$?"
    """)
    assert _rc(r.stdout) == 1 and "unknown option '--use-chat-template'" in r.stderr
    assert "--use-chat-template" not in (BENCH_LIB_DIR / "clients.sh").read_text().split("(No --use")[1]


# --- write_command / append_command -----------------------------------------------------------

TRICKY_ARGS = ["vllm", "serve", "a b", "it's", 'say "hi"', "$HOME", "*.json", "", "back\\slash",
               "new\nline", '{"kv_connector":"LMCacheMPConnector","x":[1, 2]}', "--shm-name", ""]


def test_write_command_round_trips_arguments(tmp_path):
    cmd_file = tmp_path / "cmd.txt"
    r = subprocess.run(
        ["bash", "-c", f'source "{LIB}"; write_command "$1" "${{@:2}}" && append_command "$1" second "line 2"',
         "bash", str(cmd_file), *TRICKY_ARGS], capture_output=True, text=True, timeout=10)
    assert r.returncode == 0, r.stderr
    records = cmd_file.read_text().splitlines()
    assert len(records) == 2  # %q keeps each record on one line, even with a newline inside an argument
    # Replay each record: bash parses it back into the same words.
    for record, expected in zip(records, (TRICKY_ARGS, ["second", "line 2"])):
        replay_file = tmp_path / "replay.sh"
        replay_file.write_text(f"words=({record})\n")
        replay = subprocess.run(["bash", "-c", f'source "{replay_file}"; printf "%s\\0" "${{words[@]}}"'],
                                capture_output=True, text=True, timeout=10)
        assert replay.stdout.split("\0")[:-1] == expected


def test_write_command_replaces_and_append_command_appends(tmp_path):
    f = tmp_path / "c.txt"
    bash(f'write_command "{f}" one; write_command "{f}" two; append_command "{f}" three')
    assert f.read_text() == "two\nthree\n"


def test_write_command_with_nothing_to_record_returns_1(tmp_path):
    r = bash(f'set -e; write_command "{tmp_path}/c.txt" || echo rc=$?')
    assert _rc(r.stdout) == 1


# --- environment, options, monitor ---------------------------------------------------------------

def test_pythonhashseed_defaults_to_0_and_respects_the_job():
    env = {k: v for k, v in os.environ.items() if k != "PYTHONHASHSEED"}
    r = subprocess.run(["bash", "-c", f'source "{LIB}"; echo "seed=$PYTHONHASHSEED"; '
                        'python3 -c "import os; print(\'child=\' + os.environ[\'PYTHONHASHSEED\'])"'],
                       env=env, capture_output=True, text=True, timeout=10)
    assert "seed=0" in r.stdout and "child=0" in r.stdout
    r = subprocess.run(["bash", "-c", f'source "{LIB}"; echo "seed=$PYTHONHASHSEED"'],
                       env={**env, "PYTHONHASHSEED": "42"}, capture_output=True, text=True, timeout=10)
    assert "seed=42" in r.stdout


@pytest.mark.parametrize("flags", FLAG_SETS)
def test_no_function_changes_shell_options(flags, tmp_path):
    r = bash(f"""
        set {flags}
        before="$-"
        check="$before"
        report() {{ [[ "$-" == "$before" ]] || echo "CHANGED by $1: $before -> $-"; }}
        check_env_vars NOPE_NOT_SET || true; report check_env_vars
        write_command "{tmp_path}/c" a "b c" || true; report write_command
        append_command "{tmp_path}/c" d || true; report append_command
        require_agentic_kv_offload_backend lmcache || true; report require_agentic_kv_offload_backend
        require_agentic_kv_offload_none || true; report require_agentic_kv_offload_none
        stop_background_process_tree 999999999 || true; report stop_background_process_tree
        start_gpu_monitor --output "{tmp_path}/gpu.csv" || true; report start_gpu_monitor
        stop_gpu_monitor || true; report stop_gpu_monitor
        wait_for_ready --endpoint http://127.0.0.1:1/ --pid 999999999 --timeout 1 || true; report wait_for_ready
        kv_offload_arm_name >/dev/null || true; report kv_offload_arm_name
        echo done
    """, env={"PATH": "/usr/bin:/bin"})
    assert "done" in r.stdout, r.stderr
    assert "CHANGED" not in r.stdout


def test_no_function_calls_exit_except_the_cleanup_handler():
    exits = {}
    for path in LIB_PARTS:
        function = None
        for number, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#", 1)[0] if not line.lstrip().startswith("#") else ""
            header = re.match(r"^([A-Za-z_][A-Za-z0-9_:]*)\(\)\s*\{", code)
            if header:
                function = header.group(1)
            if re.search(r"(^|[;&|{(]|\bthen|\belse|\bdo)\s*exit\b", code.strip()):
                exits.setdefault(function, []).append(f"{path.name}:{number}")
    assert set(exits) == {"_sg_cleanup_on_exit", "_sg_cleanup_on_signal"}, exits


def test_gpu_monitor_tolerates_absent_tools(tmp_path):
    empty_bin = tmp_path / "bin"
    empty_bin.mkdir()
    path = f"{empty_bin}:/usr/bin:/bin"
    if any(Path(d, tool).exists() for d in ("/usr/bin", "/bin") for tool in ("nvidia-smi", "amd-smi")):
        pytest.skip("this machine has a GPU tool in /usr/bin or /bin")
    r = bash(f'set -eu; start_gpu_monitor --output "{tmp_path}/gpu.csv"; echo "pid=[$GPU_MONITOR_PID]"; '
             "stop_gpu_monitor; echo rc=$?", env={"PATH": path})
    assert r.returncode == 0, r.stderr
    assert "pid=[]" in r.stdout
    assert "not sampling" in r.stdout


def test_gpu_monitor_samples_with_a_tool_and_stops(tmp_path):
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    tool = fake_bin / "nvidia-smi"
    tool.write_text("#!/usr/bin/env bash\necho header\nwhile :; do echo sample; sleep 0.05; done\n")
    tool.chmod(0o755)
    r = bash(f"""
        set -eu
        start_gpu_monitor --output "{tmp_path}/gpu.csv"
        echo "pid=$GPU_MONITOR_PID"
        sleep 0.3
        stop_gpu_monitor
    """, env={"PATH": f"{fake_bin}:{os.environ['PATH']}"})
    pid = _rc(r.stdout, "pid")
    assert r.returncode == 0, r.stderr
    assert not alive(pid)
    assert (tmp_path / "gpu.csv").read_text().startswith("header\nsample")


def test_gpu_monitor_writes_the_file_the_workflow_uploads_unless_told_otherwise(tmp_path):
    """A job's default is RESULT_DIR/RESULT_FILENAME.gpu_metrics.csv, the exact name the benchmark
    templates upload; outside a job (no RESULT_FILENAME) it is gpu_metrics.csv here."""
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    tool = fake_bin / "nvidia-smi"
    tool.write_text("#!/usr/bin/env bash\necho header\nwhile :; do echo sample; sleep 0.05; done\n")
    tool.chmod(0o755)
    for env, written in (({"RESULT_DIR": str(tmp_path / "r"), "RESULT_FILENAME": "job1"},
                          tmp_path / "r" / "job1.gpu_metrics.csv"), ({}, tmp_path / "gpu_metrics.csv")):
        r = bash(f'set -eu; cd "{tmp_path}"; start_gpu_monitor; sleep 0.2; stop_gpu_monitor',
                 env={"PATH": f"{fake_bin}:{os.environ['PATH']}", **env})
        assert r.returncode == 0, r.stderr
        assert written.read_text().startswith("header\n"), written


# --- the library's shape (issue 10) -------------------------------------------------------------

def test_the_entry_point_sources_every_part_relative_to_itself():
    text = LIB.read_text()
    sourced = re.findall(r'^source "\$\{SWEEPGATE_BENCHMARK_DIR\}/(lib/[a-z_]+\.sh)"$', text, re.M)
    assert sorted(sourced) == sorted(str(p.relative_to(LIB.parent)) for p in LIB_PARTS[1:])
    assert len(LIB_PARTS) > 5
    # The package knows the same list, in the same order (plan: a change to any part is a lib change).
    sys.path.insert(0, str(LIB.parents[1] / "utils"))
    from sweepgate.core import fields  # noqa: PLC0415
    assert list(fields.BENCHMARK_LIB_PARTS) == [f"benchmarks/{p}" for p in sourced]


def test_sourcing_the_library_twice_keeps_its_state(tmp_path):
    r = bash(f"""
        set -eu
        sleep 30 & register_cleanup_pid $! first
        source "{LIB}"
        echo "count=${{#_SG_CLEANUP_PIDS[@]}}"
    """)
    assert r.returncode == 0, r.stderr
    assert _rc(r.stdout, "count") == 1


@pytest.mark.parametrize("path", LIB_PARTS, ids=lambda p: p.name)
def test_library_lines_fit_in_80_columns(path):
    long = [n for n, line in enumerate(path.read_text().splitlines(), 1) if len(line) > 80]
    assert not long, f"{path.name}: lines over 80 columns: {long}"


def test_the_option_loop_is_written_once():
    loops = [f"{p.name}:{n}" for p in LIB_PARTS
             for n, line in enumerate(p.read_text().splitlines(), 1) if "while (($# > 0))" in line]
    assert len(loops) == 1 and loops[0].startswith("args.sh:"), loops


@pytest.mark.parametrize("args,message", [
    ("--endpoint", "option '--endpoint' needs a value"),
    ("--endpoint http://127.0.0.1:1/ --pid", "option '--pid' needs a value"),
    ("--endpoint http://127.0.0.1:1/ --pid 1 -- extra", "unknown option '--'"),
])
def test_option_parser_names_the_problem(args, message):
    r = bash(f"wait_for_ready {args}; echo rc=$?")
    assert _rc(r.stdout) == 1
    assert message in r.stderr


def test_a_value_may_look_like_an_option(tmp_path):
    r = bash(f"""
        start_background_process --label --log --log "{tmp_path}/a.log" -- true
        echo "rc=$?"
    """)
    assert _rc(r.stdout) == 0, r.stderr
    assert "Starting --log: true" in r.stdout


# --- evals (lib/evals.sh) -----------------------------------------------------------------

def test_run_requested_evals_is_a_no_op_for_a_row_without_evals(tmp_path):
    r = bash('RUN_EVAL=false EVAL_ONLY=false run_requested_evals; echo "rc=$?"; '
                'is_eval_only || echo not-eval-only; EVAL_ONLY=true is_eval_only && echo eval-only')
    assert "rc=0" in r.stdout and "not-eval-only" in r.stdout and "eval-only\n" in r.stdout
    assert "lm_eval" not in r.stdout + r.stderr


@pytest.mark.parametrize("args,message", [
    ("--port 1 --result-dir D --result-filename F", "--model"),
    ("--model m --port 1 --result-dir D --result-filename F --limit 0", "bad --limit"),
    ("--model m --port 1 --result-dir D --result-filename F --concurrency x", "bad eval concurrency"),
])
def test_run_lm_eval_refuses_bad_arguments_before_installing(args, message):
    r = bash(f'pip() {{ echo PIP "$@"; }}; run_lm_eval {args}; echo "rc=$?"')
    assert "rc=1" in r.stdout and message in r.stderr, r.stderr
    assert "PIP" not in r.stdout


def test_run_lm_eval_fails_when_lm_eval_writes_no_results(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "lm_eval").write_text("#!/usr/bin/env bash\necho ran\n")
    (bin_dir / "lm_eval").chmod(0o755)
    r = bash(f'pip() {{ :; }}; run_lm_eval --model m --port 1 --result-dir {tmp_path} --result-filename F; '
             'echo "rc=$?"', env={"PATH": f"{bin_dir}:{os.environ['PATH']}"})
    assert "rc=1" in r.stdout and "wrote no results_" in r.stderr, r.stderr


THROUGHPUT_STUBS = """
    _sg_start_gpu_monitor() { echo "MONITOR on $*"; }
    _sg_stop_gpu_monitor() { echo "MONITOR off"; }
    _sg_run_benchmark_serving() { echo "CLIENT $*"; return "${CLIENT_RC:-0}"; }
    _sg_run_lm_eval() { echo "EVAL $*"; }
    RESULT_DIR=/r RESULT_FILENAME=f SERVER_PID=42 MODEL=m PORT=1
"""


@pytest.mark.parametrize("env,expected", [
    ({}, ["MONITOR on --output /r/f.gpu_metrics.csv", "CLIENT --model m", "MONITOR off", "Result: /r/f.json"]),
    ({"RUN_EVAL": "true"}, ["MONITOR on --output /r/f.gpu_metrics.csv", "CLIENT --model m", "MONITOR off",
                            "Result: /r/f.json", "Running evals", "EVAL --model m"]),
    ({"EVAL_ONLY": "true"}, ["Running evals", "EVAL --model m"]),
    ({"RUN_EVAL": "true", "CLIENT_RC": "3"}, ["MONITOR on --output /r/f.gpu_metrics.csv", "CLIENT --model m",
                                             "MONITOR off"]),
])
def test_run_throughput_and_evals_is_the_recipes_one_tail(env, expected):
    """Benchmark under the GPU monitor unless eval-only, then the evals asked for; a failed client stops it."""
    r = bash(THROUGHPUT_STUBS + 'set -e; run_throughput_and_evals run_benchmark_serving --model m || echo "rc=$?"',
             env={"RUN_EVAL": "false", "EVAL_ONLY": "false", **env})
    lines = [line for line in r.stdout.splitlines() if not line.startswith("rc=")]
    assert [line[:len(want)] for line, want in zip(lines, expected)] == expected and len(lines) == len(expected)
    assert ("rc=1" in r.stdout) == ("CLIENT_RC" in env), r.stdout + r.stderr
    if "EVAL --model m" in expected:
        assert "--server-pid 42" in r.stdout


def test_run_throughput_and_evals_refuses_another_client():
    r = bash(THROUGHPUT_STUBS + 'run_throughput_and_evals vllm bench; echo "rc=$?"')
    assert "rc=1" in r.stdout and "CLIENT" not in r.stdout and "MONITOR" not in r.stdout
    assert "must be one of run_benchmark_serving run_agentic_trace_replay; got 'vllm'" in r.stderr


def test_every_single_node_recipe_ends_with_the_one_tail():
    scripts = sorted((LIB.parent / "single_node").glob("*/*.sh"))
    assert scripts
    for script in scripts:
        text = script.read_text()
        assert text.count("run_throughput_and_evals run_") == 1, script.name
        for spelled_out in ("is_eval_only", "run_requested_evals", "gpu_monitor"):
            assert spelled_out not in text, f"{script.name} repeats {spelled_out}"


@pytest.mark.parametrize("backend", ["lmcache", "mooncake"])
def test_a_double_forked_daemon_of_an_arm_is_stopped_with_its_session(tmp_path, backend):
    """The arm's server forks a daemon that outlives its parent (reparented, same session):
    the one cleanup handler still finds it through the session and stops it."""
    standin = tmp_path / "standin"
    standin.write_text("#!/usr/bin/env bash\n"
                       f"( sleep 300 & echo $! >'{tmp_path}/daemon.pid' )\n"
                       "exec sleep 300\n")
    standin.chmod(0o755)
    with HttpServer(200) as server:
        port = server.url.split(":")[2].split("/")[0]
        r = bash(f"""
            export KV_OFFLOADING=dram KV_OFFLOAD_BACKEND={backend} TOTAL_CPU_DRAM_GB=1889 TP=8
            export KV_OFFLOAD_BACKEND_VERSION=1.0 KV_OFFLOAD_SKIP_INSTALL=1 RESULT_DIR="{tmp_path}"
            export SERVER_STANDIN="{standin}" LMCACHE_HTTP_PORT={port} MOONCAKE_METRICS_PORT={port}
            setup_kv_offload_arm || exit 1
            for _ in $(seq 50); do [[ -s "{tmp_path}/daemon.pid" ]] && break; sleep 0.1; done
            echo "daemon=$(cat "{tmp_path}/daemon.pid")"
        """, timeout=60)
    assert r.returncode == 0, r.stderr
    daemon = int(r.stdout.split("daemon=")[1].split()[0])
    try:
        assert not wait_until_dead([daemon], 10), f"the {backend} daemon {daemon} survived the script"
    finally:
        kill_quietly([daemon])


def test_a_client_option_is_found_in_real_argparse_help(tmp_path):
    """The feature test behind --num-warmups never matched: its bracket expressions held a literal
    backslash (ERE), so "  --num-warmups NUM_WARMUPS" and "[--num-warmups NUM_WARMUPS]" both failed."""
    import argparse

    parser = argparse.ArgumentParser(prog="vllm bench serve")
    parser.add_argument("--num-warmups", type=int)
    parser.add_argument("--seed", type=int)
    parser.add_argument("-x", "--num-prompts-extra", action="store_true")
    help_file = tmp_path / "help.txt"
    help_file.write_text(parser.format_help())
    client = tmp_path / "client"
    client.write_text(f'#!/usr/bin/env bash\ncat "{help_file}"\n')
    client.chmod(0o755)
    for option, found in (("--num-warmups", True), ("--seed", True), ("--num-prompts-extra", True),
                          ("--num-warm", False), ("--num-prompts", False), ("--warmups", False)):
        proc = bash(f'_sg_client_has_option {option} "{client}" && echo yes || echo no')
        assert proc.stdout.strip() == ("yes" if found else "no"), (option, proc.stderr)
