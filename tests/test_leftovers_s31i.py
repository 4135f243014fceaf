"""Reviewer's leftovers (s31i), each run as a real `sweepgate` process in a real git repository:

- `results ingest --jsonl FILE` checked its output path with its own code, so a missing folder was said
  `nodir/x.jsonl: its folder does not exist; pass --jsonl FILE in an existing folder` (the folder unnamed)
  where every other file flag says it in the shared words (``core.outpaths.writable_file``);
- under GITHUB_ACTIONS=true a missing repository-data path typed in a subfolder (`--config-files nope.yaml`
  in configs/, which the tool looked for at the top) was annotated at `configs/nope.yaml`;
- `ci row-env` refused a runner outside the row's pool at `RUNNER_NAME` though the name came from
  `--runner-name`;
- `ci row-env` read a checkout's configs/runners.yaml that is a symbolic link as the text of the name it
  points to: "runners file must be a mapping with 'labels'" at 1:1."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def sweepgate(cwd: Path, *argv: str, **env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items()
             if not k.startswith(("GITHUB_", "RUNNER_")) and k not in ("SWEEPGATE_DB", "ROW", "ROW_ID", "MATRIX_FILE")}
    clean.update({"PYTHONPATH": str(ROOT / "utils"), "NO_COLOR": "1", "SWEEPGATE_NO_CACHE": "1", **env})
    return subprocess.run([sys.executable, "-m", "sweepgate", *argv], cwd=cwd, env=clean, capture_output=True,
                          text=True, timeout=120)


def annotations(proc: subprocess.CompletedProcess) -> list[str]:
    return [line for line in proc.stderr.splitlines() if line.startswith("::")]


# --- 1. results ingest --jsonl: the shared output-path check ------------------------------------

def _a_result(top: Path) -> Path:
    sys.path.insert(0, str(ROOT / "tests" / "results"))
    from helpers import job, vllm_output, write_job

    write_job(top / "run", "res", vllm_output(2), job("1001"))
    return top / "run"


@pytest.mark.parametrize("where, made", [("nodir/x.jsonl", None), ("afile/x.jsonl", "afile")],
                         ids=["missing folder", "folder is a file"])
def test_jsonl_in_no_folder_is_said_as_every_other_output_file_is(make_repo, where, made):
    top = make_repo().path
    _a_result(top)
    if made:
        (top / made).write_text("")
    proc = sweepgate(top, "results", "ingest", "--db", "sqlite:///r.db", "--jsonl", where, "run")
    folder = where.split("/")[0]
    said = (f"{folder} is a file, not a folder; pass --jsonl in an existing folder" if made  # s32c: read naturally
            else f"its folder {folder} does not exist; create the folder first or pass --jsonl in an existing one")
    assert (proc.returncode, proc.stdout) == (1, ""), proc.stderr
    assert proc.stderr == f"{where}: --jsonl: {said}\n"
    assert not (top / "r.db").exists()  # refused before anything is stored
    # the same words as another command's file flag, but for the flag's name
    other = sweepgate(top, "results", "compare", "--db", "sqlite:///r.db", "--run", "1", "--comment-file", where)
    assert other.stderr.replace("--comment-file", "--jsonl") == proc.stderr, other.stderr


def test_jsonl_that_is_a_folder_gets_the_shared_fix(make_repo):
    top = make_repo().path
    _a_result(top)
    (top / "out").mkdir()
    proc = sweepgate(top, "results", "ingest", "--db", "sqlite:///r.db", "--jsonl", "out", "run")
    assert proc.returncode == 1 and proc.stderr == "out: --jsonl: is a folder, not a file; pass --jsonl FILE\n"


# --- 2. annotations at a repository-data path read from the top ---------------------------------

@pytest.mark.parametrize("argv, said", [
    (("full-sweep", "--config-files", "nope.yaml"), "does not exist"),
    (("full-sweep", "--runner-config", "sub/nope.yaml"), "does not exist"),
    (("validate", "--staged", "--changelog-file", "nope.yaml"), "not a file at the base or in the working tree"),
], ids=["config-files", "runner-config", "changelog-file"])
def test_a_missing_repository_path_typed_in_a_subfolder_is_annotated_where_it_was_looked_for(make_repo, argv, said):
    """Looked for at the top (the line says so): annotated at that path, not at configs/<path>."""
    repo = make_repo()
    proc = sweepgate(repo.path / "configs", *argv, GITHUB_ACTIONS="true")
    typed = argv[-1]
    assert proc.returncode == 1 and proc.stderr.startswith(f"{typed}: {said}; "), proc.stderr
    (annotation,) = annotations(proc)
    assert annotation.startswith(f"::error file={typed}::{said}; "), proc.stderr


def test_a_missing_default_runners_file_is_annotated_at_it_from_a_subfolder(make_repo):
    repo = make_repo()
    (repo.path / "configs/runners.yaml").unlink()
    proc = sweepgate(repo.path / "configs", "full-sweep", GITHUB_ACTIONS="true")
    assert proc.returncode == 1 and proc.stderr.startswith("configs/runners.yaml: does not exist; "), proc.stderr
    (annotation,) = annotations(proc)
    assert annotation.startswith("::error file=configs/runners.yaml::does not exist; "), proc.stderr


def test_a_missing_result_path_typed_in_a_subfolder_is_still_annotated_from_there(make_repo):
    """What the tool reads from the current folder keeps its place from there (test_new_user26)."""
    repo = make_repo()
    proc = sweepgate(repo.path / "configs", "results", "ingest", "--db", "sqlite:///r.db", "nope.yaml",
                     GITHUB_ACTIONS="true")
    assert proc.returncode == 1 and annotations(proc) == [
        "::error file=configs/nope.yaml::no such file or folder; pass result files or the folders that hold them"]


# --- 3 and 4. ci row-env: the runner's name at its flag; a linked runners file -----------------

ROW = {"image": "vllm/vllm-openai:v0.11.0", "model": "deepseek-ai/DeepSeek-R1-0528", "model-prefix": "dsr1",
       "precision": "fp4", "framework": "vllm", "runner": "b300", "tp": 8, "pp": 1, "dcp-size": 1, "pcp-size": 1,
       "ep": 1, "dp-attn": False, "spec-decoding": "none", "conc": 4, "isl": 1024, "osl": 1024,
       "max-model-len": 2304, "exp-name": "dsr1_1k1k", "scenario-type": "fixed-seq-len"}
POOL = ("runner 'elsewhere_0' took a row for 'b300', whose pool in configs/runners.yaml is b300-nv_00, b300-nv_01; "
        "its results would be stored as that hardware's; add elsewhere_0 under labels.b300 in configs/runners.yaml, "
        "or take the label off the runner")


@pytest.mark.parametrize("given", ["--runner-name", "RUNNER_NAME"])
@pytest.mark.parametrize("name, said", [
    ("elsewhere_0", POOL),  # a runner outside the row's pool
    ("b300 nv", "runner name 'b300 nv' is not one file name"),  # one that cannot name the job's files
], ids=["outside-the-pool", "no-file-name"])
def test_a_refused_runner_name_is_said_at_where_it_came_from(make_repo, given, name, said):
    top = make_repo().path
    argv = ["ci", "row-env", "--row", json.dumps(ROW), "--output", "env.txt"]
    proc = (sweepgate(top, *argv, "--runner-name", name) if given == "--runner-name"
            else sweepgate(top, *argv, RUNNER_NAME=name))
    assert proc.returncode == 1 and len(proc.stderr.splitlines()) == 1, proc.stderr
    line = proc.stderr.splitlines()[0]
    assert line == f"{given}: {POOL}" if said == POOL else line.startswith(f"{given}: {said}"), proc.stderr
    assert not (top / "env.txt").exists()


@pytest.mark.parametrize("target", ["runners-real.yaml", "gone.yaml", "runners.yaml"],
                         ids=["to a file", "to nothing", "in a loop"])
def test_row_env_says_a_linked_runners_file_is_a_link(make_repo, target):
    """Only the name it points to, as git stores it: whether that is there on the GPU host is not looked at."""
    said = f"a symbolic link to {target}"
    top = make_repo().path
    runners = top / "configs/runners.yaml"
    (top / "configs/runners-real.yaml").write_bytes(runners.read_bytes())
    runners.unlink()
    runners.symlink_to(target)
    proc = sweepgate(top, "ci", "row-env", "--row", json.dumps(ROW), "--runner-name", "b300-nv_00",
                     "--output", "env.txt")
    assert proc.returncode == 1 and proc.stderr.splitlines() == [
        f"configs/runners.yaml: is {said}, and a commit holds a link as the name it points to, not a file to "
        "read; put the file itself in its place"], proc.stderr
    assert not (top / "env.txt").exists()


def test_row_env_says_main_s_linked_runners_file_is_a_link(make_repo):
    """--tools' checkout alike (its runners file names the pools), at that checkout's file."""
    top = make_repo().path
    main = top / "main"
    (main / "configs").mkdir(parents=True)
    (main / "configs/runners-real.yaml").write_bytes((top / "configs/runners.yaml").read_bytes())
    (main / "configs/runners.yaml").symlink_to("runners-real.yaml")
    proc = sweepgate(top, "ci", "row-env", "--row", json.dumps(ROW), "--runner-name", "b300-nv_00",
                     "--output", "env.txt", "--tools", "main")
    assert proc.returncode == 1 and proc.stderr.splitlines() == [
        "main/configs/runners.yaml: is a symbolic link to runners-real.yaml, and a commit holds a link as the name "
        "it points to, not a file to read; put the file itself in its place"], proc.stderr
    assert not (top / "env.txt").exists()
