"""The benchmark templates' host install step, run as the templates hold it in a benchmark repository (s38l).

The GPU templates' two host steps (`ci row-env`, `results sidecar`) run from a folder the step fills with
`pip install --no-deps --target`: sweepgate and PyYAML, not sweepgate's whole dependency set (matplotlib,
scipy, SQLAlchemy, ...: seconds of every GPU job). The step's text is taken from benchmark-tmpl.yml and run in a
runner.temp whose main export is a benchmark repository's (no utils/sweepgate) with the requirement file README
tells an adopter to write, its git URL a local repository holding this tree; it runs once with a real python3
and pip (pip's configured index serves PyYAML and the build's setuptools); the two commands then run from that
folder as the templates run them, with the interpreter's own site-packages left off (`-S`, a bare host).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "utils"))

from sweepgate.core.fields import NO_RUN_IDENTITY  # noqa: E402
from sweepgate.workflow import kv  # noqa: E402
from test_host_python_s38b import matrix_file  # noqa: E402
from test_install import copy_tree  # noqa: E402

URL = "git+https://github.com/<owner>/sweepgate@<full commit SHA>"  # README's placeholder URL
TARGET = "sweepgate-pkg"  # the folder the templates' step installs into
TEMPLATE = ROOT / ".github" / "workflows" / "benchmark-tmpl.yml"


def host_step() -> dict:
    """The template's install step for the host: the one that installs into runner.temp/TARGET."""
    steps = yaml.safe_load(TEMPLATE.read_text(encoding="utf-8"))["jobs"]["benchmark"]["steps"]
    (step,) = [s for s in steps if f'--target "${{RUNNER_TEMP}}/{TARGET}"' in s.get("run", "")]
    return step


def readme_requirement() -> str:
    """The requirement line README tells a benchmark repository to write in .github/sweepgate-requirements.txt."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## The workflows in another repository", 1)[1].split("\n## ", 1)[0]
    (line,) = {m for m in re.findall(r"sweepgate @ git\+\S+@<full commit SHA>", section)}
    return line


def pinned(requirement: str) -> str:
    """``NAME==VERSION`` as pyproject.toml pins NAME among sweepgate's dependencies."""
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    (found,) = [d for d in deps if d.lower().startswith(f"{requirement.lower()}==")]
    return found


def test_the_host_step_pins_pyyaml_as_pyproject_does():
    """The host step installs PyYAML itself (`--no-deps` installs none of sweepgate's): at the version
    pyproject.toml pins, the one sweepgate is tested with, which Dependabot moves there."""
    run = host_step()["run"]
    assert "--no-deps" in run.split()
    assert re.findall(r"PyYAML==\S+", run) == [pinned("PyYAML")], run


def _tree_repository(dest: Path) -> str:
    """A git repository holding this tree as a git URL install gets it (tracked and untracked files, not
    ignored ones; uncommitted edits too); its one commit."""
    copy_tree(dest)
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "tree"]):
        subprocess.run(["git", *args], cwd=dest, env=env, check=True, capture_output=True)
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=dest, capture_output=True, text=True,
                          check=True).stdout.strip()


def _python3_dir(tmp: Path) -> Path:
    """A folder holding `python3`: the interpreter running the tests, outside any virtual environment
    (a host's python3, with pip)."""
    folder = tmp / "bin"
    folder.mkdir()
    (folder / "python3").symlink_to(getattr(sys, "_base_executable", None) or sys.executable)
    return folder


@pytest.fixture(scope="module")
def host(tmp_path_factory) -> dict:
    """The templates' step, run once in a benchmark repository's runner.temp: the runner's temp folder it filled, the python3 it ran, the commit."""
    tmp = tmp_path_factory.mktemp("host")
    src = tmp / "sweepgate"
    src.mkdir()
    sha = _tree_repository(src)
    run = host_step()["run"]
    requirement = readme_requirement()
    assert requirement == f"sweepgate @ {URL}", requirement
    temp = tmp / "runner-temp"  # ${{ runner.temp }}, holding main's export as the templates make it
    (temp / "sweepgate-main" / ".github").mkdir(parents=True)
    (temp / "sweepgate-main" / "utils").mkdir()  # a benchmark repository's utils/: its own scripts, no sweepgate
    (temp / "sweepgate-main" / ".github" / "sweepgate-requirements.txt").write_text(
        "# pinned\n" + requirement.replace(URL, f"git+file://localhost{src}@{sha}") + "\n")
    bin_dir = _python3_dir(tmp)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env["PATH"] = os.pathsep.join([str(bin_dir), env.get("PATH", "")])
    env["RUNNER_TEMP"] = str(temp)
    work = tmp / "workspace"  # the approved commit's tree, the step's working directory
    work.mkdir()
    proc = subprocess.run(["bash", "-e", "-c", run], cwd=work, env=env, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return {"target": temp / TARGET, "python3": bin_dir / "python3", "sha": sha}


def test_the_host_step_installs_sweepgate_and_pyyaml_and_nothing_else(host):
    target = host["target"]
    names = {dist.metadata["Name"].lower() for dist in metadata.distributions(path=[str(target)])}
    assert names == {"sweepgate", "pyyaml"}, names
    recorded = set()
    for dist in metadata.distributions(path=[str(target)]):
        recorded |= {os.path.normpath(target / str(f)).removeprefix(f"{target}{os.sep}").split(os.sep)[0]
                     for f in dist.files or []}
    # bin/: sweepgate's console script, which its RECORD names as pip's --target moved it (../../bin/)
    assert sorted(p.name for p in target.iterdir() if p.name not in recorded) == ["bin"], recorded
    assert sorted(p.name for p in (target / "bin").iterdir()) == ["sweepgate"]


def test_the_console_script_runs_from_what_the_host_step_installed(host, tmp_path):
    full = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    proc = subprocess.run([str(host["python3"]), "-S", str(host["target"] / "bin" / "sweepgate"), "--version"],
                          cwd=tmp_path, env={**full, "PYTHONPATH": str(host["target"])}, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout.startswith("sweepgate "), proc.stdout + proc.stderr


def on_host(host: dict, cwd: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """`python3 -P -m sweepgate ARGS` as a template's host step runs it (PYTHONPATH: the installed folder),
    its site-packages left off (-S): a host python3 with nothing installed."""
    full = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "SWEEPGATE_"))
            and k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    full.update(PYTHONPATH=str(host["target"]), GITHUB_ACTIONS="true", **(env or {}))
    return subprocess.run([str(host["python3"]), "-S", "-P", "-m", "sweepgate", *args], cwd=cwd, env=full,
                          capture_output=True, text=True, timeout=120)


def test_the_installed_sweepgate_says_its_version_and_commit(host, tmp_path):
    proc = on_host(host, tmp_path, "--version")
    assert proc.returncode == 0, proc.stderr
    assert f"commit {host['sha'][:12]}" in proc.stdout or f"commit {host['sha'][:7]}" in proc.stdout, proc.stdout
    assert str(host["target"]) in proc.stdout


@pytest.mark.parametrize("row_id", ["agentic/0", "multinode/0"])
def test_row_env_and_the_sidecar_run_from_what_the_host_step_installed(host, example_fleet, tmp_path, row_id):
    """Both host steps, a single-node and a multi-node row, a job that left a result and one that left
    none; then refusals, each said in its own words (no package found missing)."""
    matrix = matrix_file(example_fleet, tmp_path)
    results = tmp_path / "results"
    common = {"MATRIX_FILE": str(matrix), "ROW_ID": row_id, "RUNNER_NAME": "b300-nv_00",
              "RESULT_DIR": str(results)}
    job_env = tmp_path / "job.env"
    proc = on_host(host, example_fleet, "ci", "row-env", "--tools", str(example_fleet),
                   env={**common, "GITHUB_ENV": str(job_env)})
    assert proc.returncode == 0, proc.stderr
    values = kv.parse_kv(job_env.read_text())
    assert values["SWEEPGATE_RUN_IDENTITY"] not in ("", NO_RUN_IDENTITY)
    assert values.get("MULTINODE") == ("true" if row_id.startswith("multinode") else None), values

    sha = subprocess.run(["git", "-C", str(example_fleet), "rev-parse", "HEAD"], capture_output=True,
                         text=True).stdout.strip()
    github = {"GITHUB_RUN_ID": "5", "GITHUB_RUN_ATTEMPT": "1", "GITHUB_REF": "refs/heads/main", "GITHUB_SHA": sha,
              "GITHUB_ENV": str(tmp_path / "after.env")}
    sidecar = results / f"{values['RESULT_FILENAME']}.job.json"
    for status, left in (("failure", False), ("success", True)):
        if left:
            results.mkdir(exist_ok=True)
            (results / f"{values['RESULT_FILENAME']}.json").write_text("{}\n")
        proc = on_host(host, example_fleet, "results", "sidecar", "--tools", str(example_fleet),
                       env={**common, **values, **github, "JOB_STATUS": status})
        assert proc.returncode == 0, proc.stderr
        assert json.loads(sidecar.read_text())["job"]["status"] == status

    refused = [
        (on_host(host, example_fleet, "ci", "row-env", "--tools", str(example_fleet), "--output", "-",
                 env={**common, "ROW_ID": "agentic/99"}), "no row 'agentic/99' in the matrix"),
        (on_host(host, example_fleet, "ci", "row-env", "--tools", str(example_fleet), "--output", "-",
                 env={**common, "RUNNER_NAME": "elsewhere_00"}), "runner 'elsewhere_00' took a row"),
        (on_host(host, example_fleet, "results", "sidecar", "--tools", str(example_fleet),
                 env={**common, **values, **github, "JOB_STATUS": "maybe"}), "'maybe' is not a job status"),
    ]
    for proc, said in refused:
        assert proc.returncode == 1 and said in proc.stderr, proc.stderr
        assert "is missing" not in proc.stderr and "Traceback" not in proc.stderr, proc.stderr


@pytest.mark.parametrize("text", ["labels:\n  cluster:b300-nv: [b300-nv_00]\nhardwre: {}\n", "labels: 3\n"])
def test_a_refused_runners_file_on_the_host_is_one_line_that_says_where_to_see_why(host, example_fleet, tmp_path, text):
    """A configs/runners.yaml its schema refuses, on the host (sweepgate and PyYAML alone), stopped `ci row-env`
    at "the Python package 'jsonschema' is missing; install sweepgate's dependencies" (as if the install were
    broken). It is one line at the file, with its annotation, saying the file is refused and where to see each
    problem; a full install still says each at its line."""
    repo = tmp_path / "repo"
    shutil.copytree(example_fleet, repo, symlinks=True)
    (repo / "configs" / "runners.yaml").write_text(text)
    row = {"ROW": json.dumps({"exp-name": "x"}), "RUNNER_NAME": "b300-nv_00"}
    proc = on_host(host, repo, "ci", "row-env", "--tools", str(repo), "--output", "-", env=row)
    assert proc.returncode == 1, proc.stderr
    assert "is missing" not in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.splitlines()
    said = [line for line in lines if not line.startswith("::")]
    assert len(said) == 1 and said[0].startswith("configs/runners.yaml:1: does not follow its schema"), lines
    assert "sweepgate plan" in said[0], said
    assert any(line.startswith("::error file=configs/runners.yaml,line=1") for line in lines), lines
    full = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "SWEEPGATE_"))}
    whole = subprocess.run([sys.executable, "-P", "-m", "sweepgate", "ci", "row-env", "--tools", str(repo),
                            "--output", "-"], cwd=repo, capture_output=True, text=True, timeout=120,
                           env={**full, **row, "PYTHONPATH": str(ROOT / "utils")})
    assert whole.returncode == 1 and "does not follow its schema" not in whole.stderr, whole.stderr
    assert "configs/runners.yaml:" in whole.stderr, whole.stderr
