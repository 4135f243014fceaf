"""A rehearsal writes only inside its own work dir (s46d).

A rehearsed script ran on the maintainer's machine with the maintainer's HOME and TMPDIR, from the checkout: its
`echo > "$HOME/x"`, `mktemp`, `cd ..; echo > up.txt` landed in real folders, and `> /workspace/out.json` (InferenceX's
scripts assume the container mounts the checkout there) made /workspace at the root as root. Now HOME and TMPDIR are
the work dir's, the script starts in a view of the checkout inside it, and a write to an absolute path is a problem
at its line, the script not run. Real bash, a real scratch repository.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from test_rehearse import FSL_ROWS, ROOT, _bench_with_script, cli, write_rows

SCRIPT = "benchmarks/single_node/fixed_seq_len/dsr1_fp8_b300_vllm.sh"


def _repo_with_launchers(tmp_path: Path, body: str) -> Path:
    repo, _ = _bench_with_script(tmp_path, body)
    (repo / "benchmarks/runners").mkdir(parents=True)
    for name in ("launch_b300-nv.sh", "launch_common.sh"):
        (repo / "benchmarks/runners" / name).write_text((ROOT / "benchmarks/runners" / name).read_text())
    return repo


def _run(tmp_path: Path, repo: Path, home: Path, tmp: Path):
    home.mkdir(exist_ok=True)
    tmp.mkdir(exist_ok=True)
    return cli(["--row-json", str(write_rows(tmp_path, FSL_ROWS[0])), "--work-dir", str(tmp_path / "w")], cwd=repo,
               env={"HOME": str(home), "TMPDIR": str(tmp), "XDG_CACHE_HOME": str(home / ".cache")})


def test_home_tmpdir_and_the_folder_above_are_the_work_dirs(tmp_path):
    body = ('set -euo pipefail\n'
            'echo hi > "$HOME/x"\n'
            'echo hi > ~/y\n'
            'mktemp > "$RESULT_DIR/made"\n'
            'mkdir -p "${XDG_CACHE_HOME:-$HOME/.cache}/c"\n'
            'echo hi > top.txt\n'
            'test -f benchmarks/single_node/fixed_seq_len/dsr1_fp8_b300_vllm.sh\n'  # the checkout, as the job sees it
            'cd ..\n'
            'echo hi > up.txt\n')
    repo = _repo_with_launchers(tmp_path, body)
    home, tmp, work = tmp_path / "home", tmp_path / "tmp", tmp_path / "w"
    r = _run(tmp_path, repo, home, tmp)
    assert "writes" not in r.stderr, r.stderr  # nothing refused: the script ran
    assert os.listdir(home) == [] and os.listdir(tmp) == [], (os.listdir(home), os.listdir(tmp))
    assert not (tmp_path / "up.txt").exists() and not (repo / "top.txt").exists()
    assert (work / "home" / "x").is_file() and (work / "home" / "y").is_file() and (work / "home/.cache/c").is_dir()
    made = Path((work / "results" / "made").read_text().strip())
    assert made.parent == work / "tmp" and made.is_file()
    assert (work / "workspace" / "top.txt").is_file() and (work / "up.txt").is_file()


def test_a_write_to_an_absolute_path_is_a_problem_at_its_line_and_nothing_runs(tmp_path):
    fixed = f"/tmp/sweepgate-s46d-{os.getpid()}-{tmp_path.name}"
    body = ('set -euo pipefail\n'
            'touch "$HOME/ran"\n'
            'exit 1  # a rehearsal before s46d ran it: what follows must never land, whatever the test finds\n'
            "echo '{}' > /workspace/out.json\n"
            f'echo hi | tee -a {fixed}\n'
            'OUT=/workspace/results\n'
            'vllm bench serve --model m \\\n'
            '  --result-dir "$OUT"\n'
            'mkdir -p /root/.cache/huggingface/hub\n'
            'echo ok > /dev/null 2>&1\n'
            'echo hi > "$RESULT_DIR/fine"\n')
    workspace_before = Path("/workspace").exists()
    repo = _repo_with_launchers(tmp_path, body)
    home, tmp, work = tmp_path / "home", tmp_path / "tmp", tmp_path / "w"
    r = _run(tmp_path, repo, home, tmp)
    assert r.returncode == 1, r.stdout + r.stderr
    said = [line for line in r.stderr.splitlines() if line.startswith(SCRIPT)]
    assert said == [
        f"{SCRIPT}:4: writes /workspace/out.json, outside the rehearsal's work dir, so the script was not run (the "
        "job's container mounts the checkout at /workspace); write into \"$RESULT_DIR\" (results the job uploads) or "
        "a path relative to the checkout's top, where the job starts, not /workspace",
        f"{SCRIPT}:5: writes {fixed}, outside the rehearsal's work dir, so the script was not run; make the file with "
        "mktemp (or mktemp -d), which puts it in $TMPDIR, the rehearsal's own",
        f"{SCRIPT}:7: writes /workspace/results (\"$OUT\"), outside the rehearsal's work dir, so the script was not "
        "run (the job's container mounts the checkout at /workspace); write into \"$RESULT_DIR\" (results the job "
        "uploads) or a path relative to the checkout's top, where the job starts, not /workspace",
        f"{SCRIPT}:9: writes /root/.cache/huggingface/hub, outside the rehearsal's work dir, so the script was not "
        "run (the job's container mounts a host folder there); write into \"$RESULT_DIR\", or a temporary file of "
        "mktemp",
    ], r.stderr
    assert not (work / "home" / "ran").exists() and not (home / "ran").exists()  # not run at all
    assert not Path(fixed).exists() and Path("/workspace").exists() == workspace_before


def test_preflight_refuses_the_script_the_same_way(tmp_path):
    repo = _repo_with_launchers(tmp_path, "set -e\nexit 1\necho '{}' > /workspace/out.json\n")
    subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "utils")}
    r = subprocess.run([sys.executable, "-m", "sweepgate", "preflight", "--config-keys", "dsr1-fp8-b300-vllm"],
                       cwd=repo, env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 1, r.stdout + r.stderr
    assert f"{SCRIPT}:3: writes /workspace/out.json, outside the rehearsal's work dir, so the script was not run" \
        in r.stdout + r.stderr, r.stdout + r.stderr
    # a script it runs starts in its scratch folder's view of the checkout, which goes whole, links and all,
    # and leaves the checkout as it was
    (repo / SCRIPT).write_text("echo hi > top.txt\nexit 0\n")
    before = sorted(str(p.relative_to(repo)) for p in repo.rglob("*") if ".git" not in p.parts)
    r = subprocess.run([sys.executable, "-m", "sweepgate", "preflight", "--config-keys", "dsr1-fp8-b300-vllm"],
                       cwd=repo, env={**env, "TMPDIR": str(tmp_path)}, capture_output=True, text=True, timeout=120)
    assert "writes" not in r.stdout + r.stderr and "Traceback" not in r.stderr, r.stdout + r.stderr
    assert sorted(str(p.relative_to(repo)) for p in repo.rglob("*") if ".git" not in p.parts) == before
    assert not [p for p in tmp_path.iterdir() if p.name.startswith("sweepgate-preflight-")]


def test_the_seed_script_still_passes_with_its_result_where_the_job_uploads_it(tmp_path):
    """The example's own script writes nothing outside: it passes, its result and sidecar in $RESULT_DIR."""
    from test_rehearse import SEED_EXP, SEED_ROW

    home, work = tmp_path / "home", tmp_path / "w"
    home.mkdir()
    r = cli(["--exp-name", SEED_EXP, "--row-json", str(write_rows(tmp_path, SEED_ROW)), "--work-dir", str(work)],
            env={"HOME": str(home)})
    assert r.returncode == 0, r.stdout + r.stderr
    names = sorted(p.name for p in (work / "results").iterdir() if p.suffix == ".json")
    assert any(n.endswith(".job.json") for n in names) and len(names) == 2, names
    assert json.loads((work / "results" / [n for n in names if not n.endswith(".job.json")][0]).read_text())
    assert os.listdir(home) == []


def test_a_write_into_the_work_dir_given_by_its_absolute_path_is_inside(tmp_path):
    """--work-dir DIR is known before the run: a script writing into DIR by its path stays inside, and runs."""
    work = tmp_path / "w"
    repo = _repo_with_launchers(tmp_path, f"set -e\necho hi > {work}/mine\necho hi > {work}/../theirs\n")
    r = _run(tmp_path, repo, tmp_path / "home", tmp_path / "tmp")
    said = [line for line in r.stderr.splitlines() if line.startswith(SCRIPT)]
    assert len(said) == 1 and said[0].startswith(
        f"{SCRIPT}:3: writes {work}/../theirs, outside the rehearsal's work dir, so the script was not run; "), r.stderr
    assert not (work / "mine").exists()  # refused for the other write: nothing ran
    repo.joinpath(SCRIPT).write_text(f"set -e\necho hi > {work}/mine\n")
    r = _run(tmp_path, repo, tmp_path / "home", tmp_path / "tmp")
    assert "writes" not in r.stderr and (work / "mine").is_file(), r.stderr


def test_a_result_written_where_the_job_uploads_it_from_is_found(tmp_path):
    """The job's RESULT_DIR is `results` of its workspace, where the script starts: a script writing its result
    there by that relative path has it uploaded. Its rehearsal finds it too (it looked only at its own
    RESULT_DIR, and the file landed in the checkout's results/)."""
    body = 'set -e\nmkdir -p results\necho "{}" > "results/$RESULT_FILENAME.json"\n'
    repo = _repo_with_launchers(tmp_path, body)
    r = _run(tmp_path, repo, tmp_path / "home", tmp_path / "tmp")
    work = tmp_path / "w"
    assert r.returncode == 1 and "never started `vllm serve`" in r.stderr, r.stderr  # a stand-in script, no server
    assert "no result file" not in r.stderr and not (repo / "results").exists(), r.stderr
    assert [p.name for p in (work / "results").glob("*.json") if not p.name.endswith(".job.json")], r.stderr
