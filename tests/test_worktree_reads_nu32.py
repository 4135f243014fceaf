"""New-user review (nu32): a work-tree file sweepgate reads that cannot be read, or a path that runs
through a file, was an internal error. A master config, `configs/runners.yaml` or the changelog the
user cannot read (mode 000 for another user; here a symbolic link that loops, which stops root too)
printed `sweepgate: internal error: PermissionError` (`OSError`) from `full-sweep`, `test-config`,
`validate --staged`, `preflight`, `rehearse` and `results compare`, and `results ingest --config-key`
stopped on it instead of ingesting; `--config-files configs/amd-master.yaml/x` (a path under a file)
was `internal error: NotADirectoryError`. Now each is one line at the file, exit 1 (a path under a
file reads as missing, as any missing path does), and ingest stores the result, the key unchecked.
Real processes in a real git repository."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def sweepgate(cwd: Path, *argv: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_") and k != "SWEEPGATE_DB"}
    env.update({"PYTHONPATH": str(ROOT / "utils"), "NO_COLOR": "1", "SWEEPGATE_NO_CACHE": "1"})
    return subprocess.run([sys.executable, "-m", "sweepgate", *argv], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)


def loop(repo, rel: str) -> None:
    """Make ``rel`` a symbolic link to itself: it is listed, and reading it fails (ELOOP) for any user. Since
    s31g an input that is a symbolic link is refused as one before it is read (a commit holds a link as the
    name it points to: tests/test_linked_inputs_s31g.py), in one line at it, which ``looped`` is."""
    path = repo.path / rel
    path.unlink(missing_ok=True)
    path.symlink_to(path.name)


def looped(rel: str) -> str:
    """The line of ``rel`` made a link to itself (``loop``)."""
    name = rel.rsplit("/", 1)[-1]
    return (f"{rel}: is a symbolic link in a loop ({name} -> {name}), and a commit holds a link as the name it "
            "points to, not a file to read; put the file itself in its place")


def no_internal_error(proc: subprocess.CompletedProcess) -> None:
    assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr, proc.stderr


READERS = [
    ("full-sweep",),
    ("test-config", "--config-keys", "dsr1-fp4-b300-vllm"),
    ("validate", "--staged"),
    ("preflight", "--config-keys", "dsr1-fp4-b300-vllm"),
    ("rehearse", "--exp-name", "dsr1_1k1k", "--conc", "4", "--config-keys", "dsr1-fp4-b300-vllm"),
]


@pytest.mark.parametrize("argv", READERS, ids=lambda a: a[0])
@pytest.mark.parametrize("rel", ["configs/amd-master.yaml", "configs/runners.yaml"])
def test_an_unreadable_config_is_one_line_at_it(make_repo, argv, rel):
    repo = make_repo()
    loop(repo, rel)
    (repo.path / "benchmarks").mkdir()
    r = sweepgate(repo.path / "benchmarks", *argv)  # from a subdirectory, as a user in benchmarks/ runs it
    no_internal_error(r)
    assert r.returncode == 1, (r.returncode, r.stderr)
    assert looped(rel) in r.stderr.splitlines(), r.stderr


def test_an_unreadable_changelog_is_one_line_at_it_under_validate_staged(make_repo):
    repo = make_repo()
    loop(repo, "perf-changelog.yaml")
    r = sweepgate(repo.path, "validate", "--staged")
    no_internal_error(r)
    assert r.returncode == 1
    assert r.stderr.startswith(looped("perf-changelog.yaml") + "\n"), r.stderr


@pytest.mark.parametrize("argv, said", [
    (("full-sweep", "--config-files", "configs/amd-master.yaml/x"), "configs/amd-master.yaml/x: does not exist; "),
    (("full-sweep", "--runner-config", "configs/runners.yaml/x"), "configs/runners.yaml/x: does not exist; "),
    (("validate", "--staged", "--changelog-file", "perf-changelog.yaml/x"),
     "perf-changelog.yaml/x: not a file at the base or in the working tree; "),
], ids=["config-files", "runner-config", "changelog-file"])
def test_a_path_under_a_file_reads_as_missing(make_repo, argv, said):
    repo = make_repo()
    r = sweepgate(repo.path, *argv)
    no_internal_error(r)
    assert r.returncode == 1 and r.stderr.startswith(said) and len(r.stderr.splitlines()) == 1, r.stderr


def test_compare_refuses_at_the_unreadable_config_whose_thresholds_it_needs(make_repo):
    repo = make_repo()
    loop(repo, "configs/amd-master.yaml")
    r = sweepgate(repo.path, "results", "compare", "--db", f"sqlite:///{repo.path}/r.db", "--run", "1")
    no_internal_error(r)
    assert r.returncode == 1 and looped("configs/amd-master.yaml") in r.stderr.splitlines(), r.stderr


def test_ingest_with_a_config_key_stores_the_result_when_a_config_cannot_be_read(make_repo):
    """The key's check (a typo warning) needs every master config; one unreadable leaves the key
    unchecked, as outside a repository, and the result is stored."""
    repo = make_repo()
    loop(repo, "configs/amd-master.yaml")
    row = {"exp-name": "dsr1_1k1k", "runner": "b300", "model": "deepseek-ai/DeepSeek-R1-0528",
           "model-prefix": "dsr1", "precision": "fp4", "framework": "vllm", "image": "vllm/vllm-openai:v0.11.0",
           "tp": 8, "ep": 1, "dp-attn": False, "conc": 4, "isl": 1024, "osl": 1024, "max-model-len": 2248,
           "spec-decoding": "none", "disagg": False}
    (repo.path / "row.json").write_text(json.dumps(row))
    (repo.path / "out.json").write_text(json.dumps({
        "date": "20260101-120000", "backend": "vllm", "model_id": row["model"], "num_prompts": 40,
        "request_rate": "inf", "max_concurrency": 4, "duration": 100.0, "completed": 40, "failed": 0,
        "total_input_tokens": 40960, "total_output_tokens": 40960, "request_throughput": 0.4,
        "output_throughput": 409.6, "total_token_throughput": 819.2, "median_ttft_ms": 100.0,
        "median_tpot_ms": 8.0, "median_itl_ms": 8.5, "median_e2el_ms": 8800.0}))
    r = sweepgate(repo.path, "results", "ingest", "--db", f"sqlite:///{repo.path}/r.db", "--row", "row.json",
                  "--run-id", "7", "--ref", "refs/heads/main", "--config-key", "dsr1-fp4-b300-vlm", "out.json")
    no_internal_error(r)
    assert r.returncode == 0 and r.stdout.splitlines()[-1].startswith("ingested 1 results (1 new)"), (r.stdout,
                                                                                                      r.stderr)
    # ... and says the key went unchecked, and why (it was stored without a word)
    said, fix = looped("configs/amd-master.yaml").split("; ")
    assert (f"--config-key: warning: config key 'dsr1-fp4-b300-vlm' not checked: {said}; stored all the same; "
            f"{fix}") in r.stderr.splitlines(), r.stderr


@pytest.mark.parametrize("argv", [("full-sweep",), ("validate", "--staged")], ids=lambda a: a[0])
@pytest.mark.parametrize("rel", ["configs/amd-master.yaml", "configs/runners.yaml"])
def test_a_fifo_in_a_config_s_place_is_one_line_at_it_never_waited_on(make_repo, argv, rel):
    """s31: a FIFO where a work-tree input is read was opened and read, and the command waited on it for good
    (no writer ever comes). It is one line at it, exit 1, at once."""
    repo = make_repo()
    (repo.path / rel).unlink()
    os.mkfifo(repo.path / rel)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    env.update({"PYTHONPATH": str(ROOT / "utils"), "NO_COLOR": "1", "SWEEPGATE_NO_CACHE": "1"})
    r = subprocess.run([sys.executable, "-m", "sweepgate", *argv], cwd=repo.path, env=env, capture_output=True,
                       text=True, timeout=30)  # before the fix: killed here
    no_internal_error(r)
    assert r.returncode == 1, (r.returncode, r.stderr)
    assert (f"{rel}: cannot read: not a regular file (a FIFO, socket or device); make it a file this user can "
            "read (its mode, a folder's on its way), or put the file itself in its place") in r.stderr.splitlines(), \
        r.stderr
