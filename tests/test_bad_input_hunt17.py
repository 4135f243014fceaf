"""Bad input hunt 17: the commands other than `results` (ci, rehearse, preflight, engines, changelog,
plan, test-config), driven as a user does: the real command line, from a subfolder of a repository."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "bash"))

from benchlib_helpers import kill_quietly, wait_until_dead  # noqa: E402
from test_rehearse import calls, rehearsal_in_replay  # noqa: E402


def sweepgate(args: list[str], cwd: Path, env: dict | None = None, timeout: float = 120, **kw):
    full = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    full.update({"PYTHONPATH": str(ROOT / "utils"), **(env or {})})
    return subprocess.run([sys.executable, "-m", "sweepgate", *args], cwd=cwd, env=full, capture_output=True,
                          text=True, timeout=timeout, **kw)


def test_a_hangup_mid_rehearsal_stops_the_script_and_removes_the_work_dir(tmp_path):
    """Hunt 17: SIGHUP (the terminal or ssh session closed) mid-rehearsal killed sweepgate at once: the
    benchmark script runs in a session of its own, so it and its stand-in vLLM server and replay client
    ran on, orphaned, and /tmp/sweepgate-rehearse-* stayed. It now stops as SIGTERM does, exit 129."""
    temp = tmp_path / "tmp"
    proc = rehearsal_in_replay(tmp_path, temp, ROOT / "configs")
    pids = []
    try:
        pids = [c["pid"] for w in temp.glob("sweepgate-rehearse-*") for c in calls(w)]
        state = _signal_state(proc.pid)  # a failure says whether SIGHUP was ignored, blocked or caught then
        proc.send_signal(signal.SIGHUP)
        _, err = proc.communicate(timeout=60)
        left = wait_until_dead(pids, timeout=5)
    finally:
        proc.kill()
        kill_quietly(pids)
    assert proc.returncode == 129 and "Traceback" not in err, (state, err)
    assert err.rstrip().endswith("sweepgate: hung up"), (state, err)
    assert not left, f"processes left running: {left}"
    assert list(temp.iterdir()) == [], list(temp.iterdir())


def _signal_state(pid: int) -> str:
    """The kernel's view of ``pid``'s signals (ignored, blocked, caught masks) when the test signalled it."""
    with open(f"/proc/{pid}/status") as status:
        return " ".join(line.strip() for line in status if line.startswith(("SigIgn", "SigBlk", "SigCgt")))


@pytest.fixture
def fleet(make_repo):
    """The example fleet with one appended entry, and its matrix (from configs/, a subfolder)."""
    from conftest import CHANGELOG, appended_entry

    repo = make_repo()
    repo.base = repo.head()
    repo.commit_changelog(CHANGELOG + appended_entry("5"))
    made = sweepgate(["matrix", "--base-ref", repo.base, "--head-ref", repo.head()], cwd=repo.path / "configs")
    assert made.returncode == 0, made.stderr
    repo.matrix = repo.write("matrix.json", made.stdout)
    return repo


def test_keys_from_a_folder_that_is_no_repository_says_so(fleet, tmp_path):
    """Hunt 17: `ci split --keys-from DIR --job-context F` with DIR no git repository said "git cat-file
    --batch ended early; check the repository (git fsck)": git had refused the folder at once."""
    nowhere = tmp_path / "not-a-repo"
    nowhere.mkdir()
    r = sweepgate(["ci", "split", "--matrix", str(fleet.matrix), "--keys-from", str(nowhere), "--job-context",
                   str(tmp_path / "context.json"), "--output", str(tmp_path / "out.txt")], cwd=fleet.path / "configs")
    assert r.returncode == 1, r.stderr
    assert r.stderr.startswith(f"{nowhere}: --keys-from: {nowhere} is not inside a git repository; "), r.stderr
    assert "Traceback" not in r.stderr and "cat-file" not in r.stderr, r.stderr
    assert not (tmp_path / "context.json").exists()


def test_canonicalize_says_how_to_fix_a_conflict_marker_with_a_command_that_exists(fleet):
    """Hunt 17: `changelog canonicalize` on a changelog holding a conflict marker said "pass --branch REF
    ...": canonicalize has no --branch (rebase has), so the fix it named was refused as a usage error."""
    fleet.write("perf-changelog.yaml", fleet.read() + b"<<<<<<< HEAD\n")
    r = sweepgate(["changelog", "canonicalize", "--pr-number", "5", "--base", fleet.base], cwd=fleet.path / "configs")
    assert r.returncode == 1, r.stderr
    line = fleet.read().count(b"\n")
    assert r.stderr.startswith(f"perf-changelog.yaml:{line}: merge-conflict marker in the working-tree changelog; "
                               "resolve the conflict: after a merge, `sweepgate changelog rebase --onto main "
                               "--branch ORIG_HEAD`"), r.stderr  # s39q: a branch this repository has
    assert "pass --branch REF" not in r.stderr


@pytest.mark.parametrize("action", [["add", "--key", "dsr1-fp4-b300-vllm", "--description", "Bump"],
                                    ["canonicalize", "--pr-number", "5"], ["rebase"]])
def test_a_changelog_that_is_no_utf8_is_refused_at_its_line_not_edited(fleet, action):
    """Hunt 17: `changelog add` appended an entry to a working-tree changelog holding a byte that is no
    UTF-8 (a Latin-1 editor's save), said "appended entry" and exited 0: the file every gate then refuses."""
    broken = fleet.read() + b"# caf\xe9\n"
    fleet.write("perf-changelog.yaml", broken)
    extra = ["--base", fleet.base] if action[0] == "canonicalize" else ["--onto", fleet.base] if action[0] == "rebase" \
        else []
    r = sweepgate(["changelog", *action, *extra], cwd=fleet.path / "configs")
    assert r.returncode == 1, r.stdout + r.stderr
    line = broken.count(b"\n")
    assert r.stderr == f"perf-changelog.yaml:{line}: not UTF-8 text (byte {len(broken) - 2}); save the changelog as UTF-8\n"
    assert fleet.read() == broken


def test_canonicalize_without_an_upstream_names_its_own_flag(fleet):
    """Hunt 17: with no origin/main (or the other defaults), canonicalize said to pass the branch with
    '--onto/--base'; it has only --base."""
    subprocess.run(["git", "checkout", "-q", "-b", "feature"], cwd=fleet.path, check=True)
    for branch in ("main", "master"):
        subprocess.run(["git", "branch", "-q", "-D", branch], cwd=fleet.path, capture_output=True)
    r = sweepgate(["changelog", "canonicalize", "--pr-number", "5"], cwd=fleet.path / "configs")
    assert r.returncode == 1, r.stderr
    assert r.stderr.rstrip().endswith("; pass the branch this one will merge into (--base BRANCH)"), r.stderr


@pytest.mark.parametrize("matrix", [{"single_node": {"1k1k": {"row": 1}}}, {"evals": {"row": 1}}])
def test_a_matrix_bucket_that_is_no_list_says_how_to_fix_it(tmp_path, matrix):
    """Hunt 17: "'evals' is not a list of rows" ended without its fix."""
    (tmp_path / "m.json").write_text(json.dumps(matrix))
    r = sweepgate(["ci", "split", "--matrix", str(tmp_path / "m.json"), "--output", str(tmp_path / "o.txt")],
                  cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    assert "is not a list of rows; pass the JSON `sweepgate matrix` printed" in r.stderr, r.stderr


@pytest.mark.parametrize("read", ["objects", "info"])
def test_a_folder_that_is_no_repository_is_said_however_many_paths_are_asked(tmp_path, read):
    """`ci split --keys-from DIR` exited 1 with nothing said now and then: git quits at once in a folder
    that is no repository, and a request it never read met a broken pipe, which was taken for a closed
    stdout. Asked for more paths than a pipe holds, the write always meets it; `info` also read the
    dead process's silence as every object missing."""
    from sweepgate.core.errors import SweepgateError
    from sweepgate.core.load import Git

    git = Git(str(tmp_path))
    try:
        with pytest.raises(SweepgateError) as exc:
            getattr(git, read)([f"HEAD:configs/{i:06d}/nvidia-master.yaml" for i in range(20000)])
    finally:
        git.close()
    (said,) = exc.value.diagnostics
    assert said.render().startswith(f"{tmp_path}: {tmp_path} is not inside a git repository; "), said.render()


def test_info_in_a_folder_that_is_no_repository_is_not_every_object_missing(tmp_path):
    from sweepgate.core.errors import SweepgateError
    from sweepgate.core.load import Git

    git = Git(str(tmp_path))
    try:
        with pytest.raises(SweepgateError):
            git.info(["HEAD:perf-changelog.yaml"])
    finally:
        git.close()


def test_thousands_of_paths_asked_at_once_are_answered(make_repo):
    """Review 18: `Git.info`/`objects` wrote every request before reading any answer; past a pipe's
    worth (6,000 paths) git stopped reading while its answers filled the other pipe, and both waited
    for ever. Requests now go in runs that fit the pipe (a child process, so a hang fails the test)."""
    repo = make_repo()
    code = ("import sys; sys.path.insert(0, sys.argv[1]); from sweepgate.core.load import Git\n"
            "g = Git(sys.argv[2]); specs = [f'HEAD:configs/{i:06d}/x.yaml' for i in range(6000)]\n"
            "specs.append('HEAD:perf-changelog.yaml'); a, b = g.info(specs), g.objects(specs); g.close()\n"
            "print(len(a), a[-1][1], len(b), b[-1][1], sum(x[1] == 'missing' for x in b))")
    proc = subprocess.run([sys.executable, "-c", code, str(ROOT / "utils"), str(repo.path)], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout.split() == ["6001", "blob", "6001", "blob", "6000"], proc.stderr
