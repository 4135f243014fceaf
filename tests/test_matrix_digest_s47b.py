"""The chunks run the matrix the setup job wrote, not a replaced artifact (s47b).

run-sweep.yml's setup job uploads the run's `matrix` artifact (matrix.json, job-context.json); every benchmark
job downloads it by run id and `ci row-env` turns its row id into the job's environment. A job of the run that
holds the run's Actions runtime token (an approved multi-node script on its host) could replace that artifact
before later jobs download it, and they would run rows (image, model, settings) nobody approved, and record
the ref the replaced job context names. Now `ci split` publishes the artifact's digest as a job output, which
no later job can change; every job calling a template passes it; the template gives it to `ci row-env`, which
refuses an artifact whose digest differs before it writes anything. Real files, real processes, and the
templates' own steps run with real bash.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from test_workflows import AGENTIC_ROW, JOB_ROW, ROOT, TEMPLATES, _origin, benchmark_job_run, load

sys.path.insert(0, str(ROOT / "utils"))

from sweepgate.core import fields, jobfile  # noqa: E402
from sweepgate.workflow import kv  # noqa: E402

DIGEST_INPUT = f"${{{{ needs.setup.outputs.{fields.MATRIX_DIGEST_OUTPUT} }}}}"


def sweepgate(cwd: Path, *argv: str, env: dict | None = None) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items()
            if not k.startswith(("GITHUB_", "RUNNER_")) and k not in ("ROW", "ROW_ID", "MATRIX_FILE",
                                                                    "JOB_CONTEXT_FILE", fields.MATRIX_DIGEST_ENV)}
    full.update({"PYTHONPATH": str(ROOT / "utils"), "NO_COLOR": "1", **(env or {})})
    return subprocess.run([sys.executable, "-m", "sweepgate", *argv], cwd=cwd, env=full, capture_output=True,
                          text=True, timeout=120)


def matrix_doc(row: dict) -> dict:
    return {"single_node": {"agentic": [row]}, "multi_node": {}, "evals": [], "agentic_evals": [],
            "multinode_evals": [], "multinode_agentic_evals": []}


@pytest.fixture
def artifact(tmp_path) -> tuple[Path, Path, str]:
    """The artifact's two files as the setup job's `ci split --job-context` wrote them, and the digest it
    published (its GITHUB_OUTPUT, read back as the runner reads it)."""
    folder = tmp_path / "artifact"
    folder.mkdir()
    matrix, context, out = folder / jobfile.MATRIX_FILE, folder / jobfile.CONTEXT_FILE, tmp_path / "outputs"
    matrix.write_text(json.dumps(matrix_doc(AGENTIC_ROW)))
    proc = sweepgate(ROOT, "ci", "split", "--matrix", str(matrix), "--runners", ".", "--job-context", str(context),
                     "--keys-from", ".", "--pr-number", "7", "--commit", "a" * 40, "--output", str(out))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(context.read_text())[jobfile.REF] == "refs/pull/7/head"
    digest = kv.parse_kv(out.read_text())[fields.MATRIX_DIGEST_OUTPUT]
    assert len(digest) == 64, digest
    return matrix, context, digest


def row_env(tmp_path: Path, matrix: Path, context: Path | None, **env: str) -> tuple[subprocess.CompletedProcess, Path]:
    job_env = tmp_path / "github_env"
    given = {"ROW_ID": "agentic/0", "MATRIX_FILE": str(matrix), "RUNNER_NAME": "b300-nv_00",
             "GITHUB_ENV": str(job_env), "GITHUB_ACTIONS": "true", **env}
    if context is not None:
        given["JOB_CONTEXT_FILE"] = str(context)
    return sweepgate(ROOT, "ci", "row-env", env=given), job_env


def test_row_env_takes_the_row_of_the_artifact_the_setup_job_published_the_digest_of(tmp_path, artifact):
    matrix, context, digest = artifact
    proc, job_env = row_env(tmp_path, matrix, context, **{fields.MATRIX_DIGEST_ENV: digest})
    assert proc.returncode == 0, proc.stderr
    assert kv.parse_kv(job_env.read_text())["EXP_NAME"] == AGENTIC_ROW["exp-name"]
    # the same by flags
    proc = sweepgate(ROOT, "ci", "row-env", "--row-id", "agentic/0", "--matrix", str(matrix), "--job-context",
                     str(context), "--matrix-digest", digest, "--runner-name", "b300-nv_00", "--output", "-")
    assert proc.returncode == 0 and "EXP_NAME=" in proc.stdout, proc.stderr


@pytest.mark.parametrize("replace", ["matrix", "context", "context-gone", "one-byte"])
def test_row_env_refuses_a_replaced_matrix_artifact_before_it_writes_anything(tmp_path, artifact, replace):
    """The artifact a job downloads after another job replaced it: another row (an image no reviewer read),
    a job context claiming main's ref (the sidecar would record the PR's results as main's), no context at
    all, or a byte more. One line naming the file, with the fix, an error annotation; nothing written."""
    matrix, context, digest = artifact
    if replace == "matrix":
        matrix.write_text(json.dumps(matrix_doc({**AGENTIC_ROW, "image": "attacker/vllm:v1"})))
    elif replace == "context":
        doc = json.loads(context.read_text())
        context.write_text(json.dumps({**doc, jobfile.REF: fields.MAIN_REF}, indent=2, sort_keys=True) + "\n")
    elif replace == "context-gone":
        context.unlink()
    else:
        matrix.write_bytes(matrix.read_bytes() + b"\n")
    proc, job_env = row_env(tmp_path, matrix, context, **{fields.MATRIX_DIGEST_ENV: digest})
    assert proc.returncode == 1, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert "Traceback" not in proc.stderr and len([x for x in lines if not x.startswith("::")]) == 1, proc.stderr
    assert f"{matrix}: the matrix artifact's digest is " in proc.stderr, proc.stderr
    assert f"not the {digest[:12]}... the setup job published ({fields.MATRIX_DIGEST_ENV})" in proc.stderr
    assert "re-run the whole workflow" in proc.stderr
    assert any(x.startswith("::error") and str(matrix) in x for x in lines), proc.stderr
    assert not job_env.exists()


@pytest.mark.parametrize("given, said", [
    ("", "is empty"), ("a" * 63, f"'{'a' * 63}' is not a sha256"), ("A" * 64, f"'{'A' * 64}' is not a sha256")])
def test_row_env_refuses_a_row_id_whose_caller_passed_no_digest(tmp_path, artifact, given, said):
    """The templates always set MATRIX_DIGEST: empty is a caller that passed no matrix-digest input, which
    would take the artifact unchecked; it is refused at the variable, with the fix."""
    matrix, context, _ = artifact
    proc, job_env = row_env(tmp_path, matrix, context, **{fields.MATRIX_DIGEST_ENV: given})
    assert proc.returncode == 1 and f"{fields.MATRIX_DIGEST_ENV}: {said}" in proc.stderr, proc.stderr
    assert "a job taking its row from the run's matrix artifact checks the artifact" in proc.stderr
    assert f"pass the setup job's {fields.MATRIX_DIGEST_OUTPUT} output" in proc.stderr
    assert not job_env.exists()


def test_a_row_given_whole_or_looked_up_by_hand_needs_no_digest(tmp_path, artifact):
    """Only a row taken from the matrix artifact is checked: a whole $ROW (the template's `row` input) is
    not read from it, and a row looked up by hand, with no MATRIX_DIGEST in the environment, is the user's."""
    matrix, context, _ = artifact
    proc, _ = row_env(tmp_path, matrix, context, ROW=json.dumps(AGENTIC_ROW), **{fields.MATRIX_DIGEST_ENV: ""})
    assert proc.returncode == 0, proc.stderr
    by_hand = tmp_path / "by-hand"
    by_hand.mkdir()
    proc, _ = row_env(by_hand, matrix, None)
    assert proc.returncode == 0, proc.stderr


def test_every_template_call_passes_the_digest_setup_published(docs_):
    """Every job of run-sweep.yml that calls a template passes setup's digest output, which setup takes from
    the split step that wrote the artifact's files; re-runs keep setup's outputs of the attempt that
    uploaded it. Security: a call without it runs a replaced matrix's rows (row-env then refuses the job)."""
    jobs = docs_["run-sweep.yml"]["jobs"]
    callers = {name: job for name, job in jobs.items() if "uses" in job}
    assert len(callers) >= 13 and all(job["uses"].split("/")[-1] in TEMPLATES for job in callers.values())
    for name, job in callers.items():
        assert job["with"].get(fields.MATRIX_DIGEST_INPUT) == DIGEST_INPUT, f"{name} passes no {DIGEST_INPUT}"
        assert "setup" in job["needs"], name
    setup = jobs["setup"]
    assert setup["outputs"][fields.MATRIX_DIGEST_OUTPUT] == \
        f"${{{{ steps.split.outputs.{fields.MATRIX_DIGEST_OUTPUT} }}}}"
    names = [s.get("id") or s.get("uses", "") for s in setup["steps"]]
    split_at = names.index("split")
    (upload_at,) = [i for i, n in enumerate(names) if "upload-artifact@" in n]
    assert split_at < upload_at  # the digest is of the files as they go up: nothing runs between
    assert all("run" not in s for s in setup["steps"][split_at + 1:upload_at])


@pytest.mark.parametrize("name", TEMPLATES)
def test_each_template_gives_row_env_the_digest_and_the_files_it_covers(docs_, name):
    doc = docs_[name]
    spec = doc["on"]["workflow_call"]["inputs"][fields.MATRIX_DIGEST_INPUT]
    assert spec["type"] == "string" and spec["default"] == ""
    job = doc["jobs"]["benchmark"]
    (fetch,) = [s for s in job["steps"] if "download-artifact@" in s.get("uses", "")]
    (step,) = [s for s in job["steps"] if "sweepgate ci row-env" in s.get("run", "")]
    (sidecar,) = [s for s in job["steps"] if "results sidecar" in s.get("run", "")]
    env = step["env"]
    assert env[fields.MATRIX_DIGEST_ENV] == f"${{{{ inputs.{fields.MATRIX_DIGEST_INPUT} }}}}"
    folder = fetch["with"]["path"]
    assert env["MATRIX_FILE"] == f"{folder}/{jobfile.MATRIX_FILE}" == sidecar["env"]["MATRIX_FILE"]
    # the job context row-env checks is the one the sidecar later reads
    assert env["JOB_CONTEXT_FILE"] == f"{folder}/{jobfile.CONTEXT_FILE}" == sidecar["env"]["JOB_CONTEXT_FILE"]
    # no flag in the run block overrides what the env gives (a PR value never reaches the shell through ${{ }})
    assert "--matrix-digest" not in step["run"] and "${{" not in step["run"]


@pytest.fixture(scope="module")
def docs_():
    return {name: load(name) for name in ("run-sweep.yml", *TEMPLATES)}


@pytest.mark.parametrize("name", TEMPLATES)
def test_a_job_whose_matrix_artifact_was_replaced_stops_before_its_benchmark(docs_, tmp_path, name):
    """Each template's own steps, run with real bash: the artifact the job downloads is not the one setup
    published the digest of (another job replaced matrix.json, its row's image); the job stops at its row-env
    step, its benchmark never starts and no row value reaches its environment."""
    from workflow_job import read_env_file, run_job  # noqa: PLC0415

    marker = tmp_path / "PR-CODE-RAN"
    origin, main_sha, pr_sha = _origin(tmp_path, marker, "plants")
    work, temp, job_run = benchmark_job_run(tmp_path, origin, main_sha, pr_sha, status="success")
    job_run["artifacts"][jobfile.MATRIX_FILE] = json.dumps(
        matrix_doc({**JOB_ROW, "image": "attacker/vllm:v1"})).encode()
    results = run_job(docs_[name]["jobs"]["benchmark"], **job_run)
    log = "\n".join(f"--- {n}: {rc}\n{out}" for n, rc, out in results)
    failed = [(n, out) for n, rc, out in results if rc]
    assert [n for n, _ in failed] == ["Job environment from the row"], log
    assert "the matrix artifact's digest is" in failed[0][1], log
    assert "Benchmark" not in [n for n, _, _ in results], log
    assert not marker.exists(), log
    assert "EXP_NAME" not in read_env_file(temp / "github_env"), log
