"""Spend-once review (s45f): a job's result files left in RESULT_DIR by an earlier job are not this job's.

The templates empty the workspace before a job, so the default RESULT_DIR (`results`, in it) starts empty. A
runner host that sets RESULT_DIR itself (a folder outside the workspace, kept between jobs) kept the last job's
files, and the next job of the same row on the same runner writes files of the same names
(`fields.result_filename`: the row, its conc, the runner's name). A benchmark that ended well without writing its
result (a client that wrote nowhere, a script that skipped the point) then had the earlier job's figures uploaded
and stored as its own, under a sidecar saying success: a measurement of other code, reused by `ci reuse` for every
later run of that identity. `ci row-env`, main's step before the benchmark, now removes them, and says so.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "utils"))

from sweepgate.commands.results_sidecar import uploaded_names  # noqa: E402
from sweepgate.workflow import kv  # noqa: E402


def sweepgate(cwd: Path, *args: str, env: dict) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "SWEEPGATE_", "RESULT_"))}
    full.update(PYTHONPATH=str(ROOT / "utils"), **env)
    return subprocess.run([sys.executable, "-P", "-m", "sweepgate", *args], cwd=cwd, env=full,
                          capture_output=True, text=True, timeout=120)


def test_row_env_removes_an_earlier_job_s_result_files_from_a_kept_result_dir(example_fleet, tmp_path):
    made = sweepgate(example_fleet, "matrix", "--base-ref", "HEAD~1", "--head-ref", "HEAD", env={})
    assert made.returncode == 0, made.stderr
    matrix = tmp_path / "matrix.json"
    matrix.write_text(made.stdout)
    kept = tmp_path / "host-results"  # the host's RESULT_DIR, outside any workspace
    kept.mkdir()
    common = {"MATRIX_FILE": str(matrix), "ROW_ID": "agentic/0", "RUNNER_NAME": "b300-nv_00", "RESULT_DIR": str(kept)}
    first = sweepgate(example_fleet, "ci", "row-env", "--output", "-", env=common)
    assert first.returncode == 0, first.stderr
    name = kv.parse_kv(first.stdout)["RESULT_FILENAME"]
    for leftover in uploaded_names(name):  # what the last job of this row on this runner left
        (kept / leftover).write_text("{}\n")
    (kept / "logs").mkdir()
    (kept / "other-row.json").write_text("{}\n")  # another job's: not this one's to remove
    target = tmp_path / "host-file"
    target.write_text("the host's\n")
    (kept / uploaded_names(name)[0]).unlink()
    (kept / uploaded_names(name)[0]).symlink_to(target)  # a link a container left: removed, never followed

    by_hand = sweepgate(example_fleet, "ci", "row-env", "--output", "-", env=common)  # no --tools: no job's step
    assert by_hand.returncode == 0 and len(list(kept.iterdir())) == 6, (by_hand.stderr, sorted(kept.iterdir()))
    job_env = tmp_path / "job.env"
    proc = sweepgate(example_fleet, "ci", "row-env", "--tools", str(example_fleet),
                     env={**common, "GITHUB_ENV": str(job_env)})
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in kept.iterdir()) == ["logs", "other-row.json"], sorted(kept.iterdir())
    assert target.read_text() == "the host's\n"
    said = [line for line in proc.stderr.splitlines() if "earlier job" in line]
    assert said == [f"sweepgate ci row-env: removed {len(uploaded_names(name))} files an earlier job left in "
                    f"{kept} under this job's names ({name}.*), so none is taken for what this job measured"], \
        proc.stderr


def test_row_env_leaves_a_folder_at_a_result_name_for_the_sidecar_to_hold_the_uploads(example_fleet, tmp_path):
    """A folder at one of the job's names is not removed (its contents are not this job's to judge); the
    sidecar holds both uploads when it is still there (test_what_is_no_regular_file_holds_both_uploads)."""
    made = sweepgate(example_fleet, "matrix", "--base-ref", "HEAD~1", "--head-ref", "HEAD", env={})
    matrix = tmp_path / "matrix.json"
    matrix.write_text(made.stdout)
    kept = tmp_path / "host-results"
    kept.mkdir()
    common = {"MATRIX_FILE": str(matrix), "ROW_ID": "agentic/0", "RUNNER_NAME": "b300-nv_00", "RESULT_DIR": str(kept)}
    name = kv.parse_kv(sweepgate(example_fleet, "ci", "row-env", "--output", "-", env=common).stdout)["RESULT_FILENAME"]
    (kept / uploaded_names(name)[0]).mkdir()
    (kept / uploaded_names(name)[0] / "inside").write_text("x\n")
    (kept / uploaded_names(name)[1]).write_text("{}\n")
    proc = sweepgate(example_fleet, "ci", "row-env", "--tools", str(example_fleet), "--output", "-", env=common)
    assert proc.returncode == 0, proc.stderr
    assert (kept / uploaded_names(name)[0] / "inside").is_file()
    assert not (kept / uploaded_names(name)[1]).exists()
