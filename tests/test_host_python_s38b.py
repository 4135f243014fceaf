"""New-user walk (s38b) of README's *The workflows in another repository* and `sweepgate ci`.

The GPU host's steps (`ci row-env`, `results sidecar`) on a python3 that has PyYAML and no other
package, as docs/security.md (*What the repository owner must configure*, GPU hosts) says is enough;
the reuse step README names; a list of rows passed where a matrix goes.

`-S` leaves site-packages off the path, as a bare host interpreter has them; a folder holding only
PyYAML stands on PYTHONPATH beside sweepgate's tree; `-P` as the templates run it. The working
directory is a checkout with a valid configs/runners.yaml, which both steps read and check.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "utils"))

from sweepgate.commands import example  # noqa: E402
from sweepgate.core.fields import NO_RUN_IDENTITY  # noqa: E402
from sweepgate.workflow import kv  # noqa: E402


@pytest.fixture(scope="module")
def only_pyyaml(tmp_path_factory) -> Path:
    """A folder holding PyYAML's two packages (``yaml``, ``_yaml``) and nothing else."""
    import yaml

    folder = tmp_path_factory.mktemp("only-pyyaml")
    here = Path(yaml.__file__).resolve().parent
    for name in ("yaml", "_yaml"):
        if (here.parent / name).is_dir():
            (folder / name).symlink_to(here.parent / name, target_is_directory=True)
    return folder


def host_python(cwd: Path, only_pyyaml: Path, *args: str, env: dict) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "SWEEPGATE_"))}
    full.update(PYTHONPATH=os.pathsep.join([str(ROOT / "utils"), str(only_pyyaml)]), **env)
    return subprocess.run([sys.executable, "-S", "-P", "-m", "sweepgate", *args], cwd=cwd, env=full,
                          capture_output=True, text=True, timeout=120)


def matrix_file(example_fleet, tmp_path):
    """The matrix of the checkout's last commit (`sweepgate matrix`, a full install), in a file."""
    made = subprocess.run([sys.executable, "-m", "sweepgate", "matrix", "--base-ref", "HEAD~1", "--head-ref",
                           "HEAD"], cwd=example_fleet, env={**os.environ, "PYTHONPATH": str(ROOT / "utils")},
                          capture_output=True, text=True, timeout=120)
    assert made.returncode == 0, made.stderr
    matrix = tmp_path / "matrix.json"
    matrix.write_text(made.stdout)
    return matrix


def test_row_env_and_the_sidecar_run_on_a_host_python_with_pyyaml_alone(example_fleet, only_pyyaml, tmp_path):
    """New-user walk (s38b): `ci row-env` checked the checkout's configs/runners.yaml with jsonschema
    even when it was valid, so a host python3 with PyYAML alone stopped at `the Python package
    'jsonschema' is missing`; a valid file is now told by the generated validator, no jsonschema."""
    matrix = matrix_file(example_fleet, tmp_path)
    job_env = tmp_path / "job.env"
    common = {"MATRIX_FILE": str(matrix), "ROW_ID": "agentic/0", "RUNNER_NAME": "b300-nv_00",
              "RESULT_DIR": str(tmp_path / "results")}
    proc = host_python(example_fleet, only_pyyaml, "ci", "row-env", "--tools", str(example_fleet),
                       env={**common, "GITHUB_ENV": str(job_env)})
    assert proc.returncode == 0, proc.stderr
    values = kv.parse_kv(job_env.read_text())
    assert values["RESULT_FILENAME"] and values["SWEEPGATE_RUN_IDENTITY"] not in ("", NO_RUN_IDENTITY)

    proc = host_python(example_fleet, only_pyyaml, "results", "sidecar", "--tools", str(example_fleet),
                       env={**common, **values, "JOB_STATUS": "failure", "GITHUB_RUN_ID": "5",
                            "GITHUB_RUN_ATTEMPT": "1", "GITHUB_REF": "refs/heads/main",
                            "GITHUB_SHA": subprocess.run(["git", "-C", str(example_fleet), "rev-parse", "HEAD"],
                                                         capture_output=True, text=True).stdout.strip(),
                            "GITHUB_ENV": str(tmp_path / "after.env")})
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "results" / f"{values['RESULT_FILENAME']}.job.json").is_file()


def test_the_reuse_step_readme_tells_another_repository_to_delete_is_run_sweep_s():
    """README (*The workflows in another repository*) names the reuse step one may delete where the run
    identity cannot see the launchers (reuse is off there by itself); a renamed step would leave the adopter
    looking for it."""
    import re

    import yaml

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## The workflows in another repository", 1)[1].split("\n## ", 1)[0]
    named = re.search(r"`run-sweep\.yml`'s step `([^`]+)`", section)
    assert named, "README no longer names run-sweep.yml's reuse step"
    doc = yaml.safe_load((ROOT / ".github" / "workflows" / "run-sweep.yml").read_text(encoding="utf-8"))
    steps = [s for job in doc["jobs"].values() for s in job.get("steps", [])]
    (step,) = [s for s in steps if s.get("name") == named.group(1)]
    assert "ci reuse" in step["run"]


@pytest.mark.parametrize("command", [
    ("ci", "split", "--output", "-", "--matrix"),
    ("ci", "reuse", "--db", "sqlite:///r.db", "--out", "left.json", "--run-id", "1", "--ref", "refs/heads/main",
     "--matrix"),
    ("ci", "row-env", "--row-id", "fixed/0", "--runner-name", "b300-nv_00", "--output", "-", "--matrix"),
])
def test_a_list_of_rows_given_as_the_matrix_is_said_to_be_one_and_which_file_to_pass(example_fleet, tmp_path, command):
    """New-user walk (s38b): `full-sweep`'s or `test-config`'s output (a list of rows) given to `ci split`,
    `ci reuse` or `ci row-env --matrix` was `matrix is not a JSON object`, its fix `pass the output of
    process_changelog.py` (in an InferenceX checkout the reference's own script), `ci reuse` wording it
    otherwise; each now says what the file is and names `sweepgate matrix`, as for any other non-matrix."""
    full = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_") and k != "SWEEPGATE_DB"}
    full["PYTHONPATH"] = str(ROOT / "utils")
    rows = subprocess.run([sys.executable, "-m", "sweepgate", "test-config", "--config-keys", example.SEED_KEY],
                          cwd=example_fleet, env=full, capture_output=True, text=True, timeout=120)
    assert rows.returncode == 0, rows.stderr
    listed = tmp_path / "rows.json"
    listed.write_text(rows.stdout)
    n = len(__import__("json").loads(rows.stdout))
    proc = subprocess.run([sys.executable, "-m", "sweepgate", *command, str(listed)], cwd=example_fleet, env=full,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1 and proc.stdout == "", (proc.stdout, proc.stderr)
    assert proc.stderr == (f"{listed}:1: not a matrix but a list of {n} rows (as `full-sweep` and `test-config` "
                           "print them): a matrix is a JSON object of buckets; pass the JSON `sweepgate matrix` "
                           "printed\n"), proc.stderr
    assert not (example_fleet / "left.json").exists()
