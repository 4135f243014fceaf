"""A new maintainer's first day (s45c): an installed sweepgate on a repository built from the corpus main tip, every
README step followed from the top and from a subfolder. Each test here is something that surprised that user."""

from __future__ import annotations

from conftest import CHANGELOG

from sweepgate import cli

ENTRY = ('- config-keys:\n    - dsr1-fp4-b300-vllm\n  description:\n    - "Bump the vLLM image"\n'
         '  pr-link: https://github.com/acme/bench/pull/5\n')


def _crlf_fixes(repo, capsys, folder: str, *flags: str) -> list[str]:
    """The fixes the gate names for a changelog entry appended with CRLF line endings, run from ``folder``."""
    import os

    name = next((flags[i + 1] for i, flag in enumerate(flags) if flag == "--changelog-file"), "perf-changelog.yaml")
    text = (CHANGELOG + "\n" + ENTRY.replace("\n", "\r\n")).encode()
    head = repo.commit({name: text}, "crlf entry")
    os.chdir(repo.path / folder)
    rc = cli.main(["validate", "--base-ref", repo.base, "--head-ref", head, *flags])
    err = capsys.readouterr().err
    assert rc == 1 and "Traceback" not in err, err
    return [line.rpartition("; ")[2] for line in err.splitlines() if "carriage return" in line]


def test_the_crlf_fix_names_the_changelog_from_the_folder_it_is_run_in(repo_outside_actions, capsys):
    """Run from a subfolder (benchmarks/, configs/), the fix said `dos2unix perf-changelog.yaml`, which there names no
    file: a fix's command is written from the current folder (CONTRACTS, Conventions); the line's place stays from
    the top."""
    fixes = _crlf_fixes(repo_outside_actions, capsys, "configs")
    assert fixes and set(fixes) == {"use LF line endings (dos2unix ../perf-changelog.yaml)"}, fixes


def test_the_crlf_fix_names_the_changelog_the_gate_read(make_repo, monkeypatch, capsys):
    """`--changelog-file history.yaml`: the fix named perf-changelog.yaml, a file the gate never read."""
    for name in ("GITHUB_ACTIONS", "GITHUB_REPOSITORY", "GITHUB_OUTPUT"):
        monkeypatch.delenv(name, raising=False)
    repo = make_repo(files={"history.yaml": CHANGELOG})
    monkeypatch.chdir(repo.path)
    repo.base = repo.head()
    fixes = _crlf_fixes(repo, capsys, ".", "--changelog-file", "history.yaml")
    assert fixes and set(fixes) == {"use LF line endings (dos2unix history.yaml)"}, fixes


def test_the_job_environment_sets_random_range_ratio_as_the_reference_s_workflow_does():
    """InferenceX's benchmark workflow sets RANDOM_RANGE_RATIO (0.8) for every job, and every one of its fixed-seq-len
    scripts requires it (`check_env_vars ... RANDOM_RANGE_RATIO ...`): the job environment had no such variable, so
    such a script, copied over, failed its rehearsal, its preflight and its GPU job alike."""
    from test_rehearse import FSL_ROWS

    from sweepgate.core import fields, jobenv

    env = jobenv.job_env(FSL_ROWS[0], "b300-nv_00", "results")
    assert env["RANDOM_RANGE_RATIO"] == "0.8"
    assert "RANDOM_RANGE_RATIO" in env[jobenv.JOB_ENV_NAMES_VAR].split()  # what a launcher passes to the container
    assert "RANDOM_RANGE_RATIO" in fields.JOB_ENV_NAMES


def test_a_script_requiring_random_range_ratio_passes_preflight(tmp_path):
    """The walk's script in InferenceX's shape, which checks RANDOM_RANGE_RATIO and passes it to the client as it is:
    preflight said `the script exited 1 (Error: required environment variables are not set: RANDOM_RANGE_RATIO)`."""
    import subprocess
    import sys

    from test_preflight_refs import ENV, SCRIPT, fleet

    repo = fleet(tmp_path, "main")
    script = repo / SCRIPT
    text = script.read_text()
    for old, new in (("check_env_vars MODEL TP CONC ISL OSL MAX_MODEL_LEN ",
                      "check_env_vars MODEL TP CONC ISL OSL MAX_MODEL_LEN RANDOM_RANGE_RATIO "),
                     ('"${RANDOM_RANGE_RATIO:-0.8}"', '"$RANDOM_RANGE_RATIO"')):
        assert old in text, old
        text = text.replace(old, new, 1)
    script.write_text(text)
    env = {k: v for k, v in ENV.items() if k not in ("GITHUB_ACTIONS", "GITHUB_WORKSPACE", "RANDOM_RANGE_RATIO")}
    r = subprocess.run([sys.executable, "-m", "sweepgate", "preflight", "--config-keys", "dsr1-fp8-b300-vllm"],
                       cwd=repo, capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0 and "RANDOM_RANGE_RATIO" not in r.stderr, r.stderr


def test_the_plan_reads_the_files_of_each_kind_of_job_once(tmp_path, monkeypatch):
    """`plan` took 6-12 s on a repository of the corpus tip's 208 recipes and two scripts, printing nothing meanwhile:
    for each of its rows it read again every file the job runs (the launchers, the library, what they source), the
    same for every row of one runner and script. Rows whose jobs run the same script and support files share one
    reading now, and each row is given what it would have been given alone."""
    import json
    import subprocess
    import sys

    import yaml
    from test_preflight_refs import ENV, fleet

    from sweepgate.core import identity
    from sweepgate.core.load import Git

    repo = fleet(tmp_path, "main")
    rows = json.loads(subprocess.run([sys.executable, "-m", "sweepgate", "full-sweep"], cwd=repo, env=ENV,
                                     capture_output=True, text=True, check=True).stdout)
    runners = yaml.safe_load((repo / "configs/runners.yaml").read_text())
    git = Git(str(repo))
    real, calls = identity.executed_files, []

    def counted(*args, **kwargs):
        calls.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(identity, "executed_files", counted)
    blobs, shared = identity.recipe_files(rows, runners, git, "HEAD")
    kinds = {(identity.resolve_script(identity.script_candidates(row), blobs),
              tuple(identity.support_files(row, runners))) for row in rows}
    assert len(rows) > len(kinds) and len(calls) == len(kinds), (len(rows), len(kinds), len(calls))
    monkeypatch.setattr(identity, "executed_files", real)
    for row, files in zip(rows, shared):
        script = identity.resolve_script(identity.script_candidates(row), blobs)
        own = ({script, *identity.sourced_helpers(script, blobs)} - set(identity.support_files(row, runners))
               if script else set())
        alone = [path for path in real(row, runners, blobs, identity._tracked(identity.read_git(git, "HEAD"), {}),
                                       as_run=True) if path not in own]
        assert files == alone, row


def test_run_identities_read_the_files_of_each_kind_of_job_once(tmp_path, monkeypatch):
    """`ci reuse` (and the blind spots it names) read every row's files anew as the plan did: rows alike in script and
    support files share one reading now, and each row keeps the identity it had alone."""
    import json
    import subprocess
    import sys

    import yaml
    from test_preflight_refs import ENV, fleet

    from sweepgate.core import identity
    from sweepgate.core.load import Git

    repo = fleet(tmp_path, "main")
    rows = json.loads(subprocess.run([sys.executable, "-m", "sweepgate", "full-sweep"], cwd=repo, env=ENV,
                                     capture_output=True, text=True, check=True).stdout)
    runners = yaml.safe_load((repo / "configs/runners.yaml").read_text())
    git = Git(str(repo))
    real, calls = identity.executed_files, []

    def counted(*args, **kwargs):
        calls.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(identity, "executed_files", counted)
    shared, _ = identity.identities_and_blind(rows, runners, identity.read_git(git, "HEAD"))
    assert len(rows) > len(calls), (len(rows), len(calls))
    monkeypatch.setattr(identity, "executed_files", real)
    alone = [identity.identities_and_blind([row], runners, identity.read_git(git, "HEAD"))[0][0] for row in rows]
    assert shared == alone and any(alone)


# The walk's script wrote to /workspace, which a rehearsal refuses before the run since s46d (its line and fix are
# tests/test_rehearse_confined_s46d.py's): a folder that is not there under the script's own $HOME fails alike.
SERVER_LOG_AT_WORKSPACE = """#!/usr/bin/env bash
SERVER_LOG=$HOME/s45c-none/server.log
echo "starting the server"
sleep 0 > "$SERVER_LOG" 2>&1 &
wait
echo "Error: benchmark client failed with status 1" >&2
exit 1
"""


def test_a_failed_rehearsal_stands_at_the_line_bash_named_when_its_last_error_names_none(tmp_path):
    """The walk's script in InferenceX's shape wrote its server log to /workspace: bash said `line 14:
    /workspace/server.log: No such file or directory`, the server never started, and the rehearsal's problem, "the
    script exited 1 (Error: benchmark client failed with status 1)", stood at the script with no line. It stands at
    the line bash named now, the last one it named in the script's output."""
    from test_rehearse import FSL_ROWS, _bench_with_script, cli, write_rows

    repo, script = _bench_with_script(tmp_path, SERVER_LOG_AT_WORKSPACE)
    r = cli(["--row-json", str(write_rows(tmp_path, FSL_ROWS[0])), "--work-dir", str(tmp_path / "w")], cwd=repo)
    rel = str(script.relative_to(repo))
    said = [line for line in r.stderr.splitlines() if "the script exited 1" in line]
    assert r.returncode == 1 and len(said) == 1, r.stderr
    assert said[0].startswith(f"{rel}:4: the script exited 1 (Error: benchmark client failed with status 1)"), said


def test_preflight_s_failed_script_stands_at_the_line_bash_named_too(tmp_path):
    import subprocess
    import sys

    from test_preflight_refs import ENV, SCRIPT, fleet

    repo = fleet(tmp_path, "main")
    (repo / SCRIPT).write_text(SERVER_LOG_AT_WORKSPACE)
    env = {k: v for k, v in ENV.items() if k not in ("GITHUB_ACTIONS", "GITHUB_WORKSPACE")}
    r = subprocess.run([sys.executable, "-m", "sweepgate", "preflight", "--config-keys", "dsr1-fp8-b300-vllm"],
                       cwd=repo, capture_output=True, text=True, env=env, timeout=300)
    said = [line for line in r.stderr.splitlines() if "the script exited 1" in line]
    assert r.returncode == 1 and len(said) == 1, r.stderr
    assert said[0].startswith(f"{SCRIPT}:4: the script exited 1 in the fast rehearsal (Error: benchmark client "
                              "failed with status 1)"), said


SGLANG_STARTED_BARE = """#!/usr/bin/env bash
source "$(dirname "$0")/../../benchmark_lib.sh"
check_env_vars MODEL TP CONC ISL OSL RANDOM_RANGE_RATIO RESULT_DIR RESULT_FILENAME || exit 1
mkdir -p "$RESULT_DIR"
python3 -m sglang.launch_server --model-path "$MODEL" --host 0.0.0.0 --port "$PORT" \\
    --tensor-parallel-size "$TP" > "$RESULT_DIR/server.log" 2>&1 &
SERVER_PID=$!
wait_for_server_ready --port "$PORT" --server-log "$RESULT_DIR/server.log" --server-pid "$SERVER_PID" || exit 1
run_benchmark_serving --model "$MODEL" --port "$PORT" --input-len "$ISL" --output-len "$OSL" \\
    --random-range-ratio "$RANDOM_RANGE_RATIO" --num-prompts "$((CONC * 10))" --max-concurrency "$CONC" \\
    --result-filename "$RESULT_FILENAME" --result-dir "$RESULT_DIR" || exit 1
"""


def test_an_sglang_server_started_as_the_reference_starts_it_is_stood_in_and_said_left_running(tmp_path):
    """InferenceX's SGLang scripts start the server themselves, `python3 -m sglang.launch_server ... &`. `vllm serve
    ... &` is stood in and then said left running ("start background work with start_background_process"), but the
    SGLang module ran the real interpreter: `No module named 'sglang'`, the server died, and the rehearsal's one
    problem was the client's `Error: benchmark client failed`, far from the fix. The python shims stand in for the
    engines' server modules too now, as the `vllm` shim stands in for `vllm serve`."""
    import json
    import subprocess
    import sys

    from test_preflight_refs import ENV, fleet
    from test_rehearse import FSL_ROWS

    repo = fleet(tmp_path, "main")
    script = repo / "benchmarks/single_node/fixed_seq_len/dsr1_fp8_b300_sglang.sh"
    script.write_text(SGLANG_STARTED_BARE)
    row = {**FSL_ROWS[0], "framework": "sglang"}
    (tmp_path / "row.json").write_text(json.dumps(row))
    env = {k: v for k, v in ENV.items() if k not in ("GITHUB_ACTIONS", "GITHUB_WORKSPACE")}
    r = subprocess.run([sys.executable, "-m", "sweepgate", "rehearse", "--row-json", str(tmp_path / "row.json"),
                        "--work-dir", str(tmp_path / "w")], cwd=repo, capture_output=True, text=True, env={
                            **env, "SWEEPGATE_REHEARSE_DURATION": "2"}, timeout=300)
    rel = str(script.relative_to(repo))
    assert r.returncode == 1 and "No module named" not in r.stderr, r.stderr
    (said,) = [line for line in r.stderr.splitlines() if "left running" in line]
    assert said.startswith(f"{rel}:5: the script left running: python3 -m sglang.launch_server"), said
    assert "start_background_process" in said and "no result file" not in r.stderr, r.stderr
