"""New-user review (s32g): the machine a rehearsal plays is one its row's pool lists.

In a repository whose configs/runners.yaml lists `b300-nv_01`... under `cluster:b300-nv` (InferenceX's
own file has no `_00`), `sweepgate rehearse` and `preflight` ran the row as `b300-nv_00`, a runner
`ci row-env` refuses for that label: the rehearsed RESULT_FILENAME and RUNNER_NAME were no real job's.
A mistyped `--runner-name` was taken as a GPU family and told to create a script named after it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "utils"))

from sweepgate.rehearsal import runner  # noqa: E402

from test_rehearse import SEED_EXP, SEED_ROW  # noqa: E402


def _repo(tmp_path: Path, pool: list[str], runtime: bool = True) -> Path:
    """A git repository with the example benchmarks and configs, the B300 pool being ``pool``."""
    repo = tmp_path / "bench"
    for part in ("benchmarks", "configs"):
        shutil.copytree(ROOT / part, repo / part, symlinks=True)
    path = repo / "configs" / "runners.yaml"
    runners = yaml.safe_load(path.read_text())
    runners["labels"]["cluster:b300-nv"] = pool
    if not runtime:
        del runners["hardware"]["cluster:b300-nv"]["accelerator-runtime"]
    path.write_text(yaml.safe_dump(runners))
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    return repo


def _rehearse(repo: Path, tmp_path: Path, *extra: str) -> subprocess.CompletedProcess:
    rows = tmp_path / "rows.json"
    rows.write_text(json.dumps(SEED_ROW))
    env = {**os.environ, "PYTHONPATH": str(ROOT / "utils"), "SWEEPGATE_REHEARSE_DURATION": "1"}
    return subprocess.run([sys.executable, "-m", "sweepgate", "rehearse", "--exp-name", SEED_EXP,
                           "--row-json", str(rows), *extra], cwd=repo / "configs", env=env,
                          capture_output=True, text=True, timeout=120)


def test_the_default_runner_is_the_first_of_the_row_s_pool(tmp_path):
    repo = _repo(tmp_path, ["b300-nv_01", "b300-nv_02"])
    work = tmp_path / "work"
    r = _rehearse(repo, tmp_path, "--work-dir", str(work))
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"{SEED_EXP} conc 4 on b300-nv_01 ->" in r.stdout, r.stdout
    sidecar, = (work / "results").glob("*.job.json")
    assert "_b300-nv_01_" in sidecar.name
    assert json.loads(sidecar.read_text())["job"]["runner-name"] == "b300-nv_01"


def test_without_a_pool_the_default_runner_is_the_label_s_00():
    assert runner.default_runner_name(SEED_ROW) == "b300-nv_00"
    assert runner.default_runner_name(SEED_ROW, {"labels": {"cluster:mi355x-amds": ["m_01"]}}) == "b300-nv_00"
    assert runner.default_runner_name(SEED_ROW, {"labels": {"cluster:b300-nv": ["b300-nv_07"]}}) == "b300-nv_07"
    assert runner.default_runner_name(SEED_ROW, {"labels": "junk"}) == "b300-nv_00"


def test_a_runner_name_outside_the_row_s_pool_is_refused_as_ci_row_env_refuses_it(tmp_path):
    repo = _repo(tmp_path, ["b300-nv_01", "b300-nv_02"])
    r = _rehearse(repo, tmp_path, "--runner-name", "b30-nv_01", "--work-dir", str(tmp_path / "work"))
    assert r.returncode == 1, r.stdout + r.stderr
    assert r.stderr.startswith("--runner-name: runner 'b30-nv_01' took a row for 'cluster:b300-nv', whose pool "
                               "in configs/runners.yaml is b300-nv_01, b300-nv_02;"), r.stderr
    # the name is the rehearsal's to choose (s33c): `ci row-env`'s fix, adding it to the pool, misled
    assert r.stderr.endswith("; pass one of the listed names (b300-nv_01, b300-nv_02)\n"), r.stderr
    assert "add b30-nv_01 under labels" not in r.stderr
    assert "create benchmarks" not in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "work").exists() and r.stdout == ""


def test_a_runner_without_an_accelerator_runtime_is_told_at_its_label(tmp_path):
    """The arm named the machine (`for b300-nv_00 in configs/runners.yaml`), whose facts the file keys by label.
    Since s40u the row is refused before its script runs, as `ci row-env` refuses its job: at the label's hardware
    entry (line 2 of the file yaml.safe_dump writes), from the top though run in configs/."""
    repo = _repo(tmp_path, ["b300-nv_01"], runtime=False)
    r = _rehearse(repo, tmp_path, "--work-dir", str(tmp_path / "work"))
    assert r.returncode == 1, r.stdout + r.stderr
    assert r.stderr.startswith("configs/runners.yaml:2:3: the row's KV-offload arm installs lmcache, whose build it "
                               "picks by the runner's accelerator-runtime, and 'cluster:b300-nv' states none in "
                               "configs/runners.yaml; add accelerator-runtime (cuda or rocm) under "
                               "hardware['cluster:b300-nv']"), r.stderr
    assert "b300-nv_01" not in r.stderr and not (tmp_path / "work").exists(), r.stderr


def test_a_problem_at_every_master_config_is_no_file_for_an_annotation():
    """Under GITHUB_ACTIONS=true from configs/, `rehearse --exp-name nope` annotated
    `::error file=configs/configs/*-master.yaml::`: a glob, taken for a file typed from the subfolder.
    Since s42e the line is said of the flag, which no config holds the value of: an annotation at no file."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "utils"), "GITHUB_ACTIONS": "true"}
    env.pop("GITHUB_WORKSPACE", None)
    r = subprocess.run([sys.executable, "-m", "sweepgate", "rehearse", "--exp-name", "nope"], cwd=ROOT / "configs",
                       env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 1, r.stderr
    line, annotation = r.stderr.splitlines()
    assert line.startswith("--exp-name: no row has exp-name 'nope'; pick one of: "), line
    assert annotation == f"::error::{line}", annotation


def test_a_work_dir_that_is_a_file_is_said_so(tmp_path):
    """`--work-dir FILE` said the system's `cannot use as --work-dir: File exists` (and `Not a directory`
    for `FILE/sub`): the file is there, the folder is what it is not."""
    (tmp_path / "afile").write_text("x")
    repo = _repo(tmp_path, ["b300-nv_00"])
    for given, told in (("afile", "afile"), ("afile/sub", "afile")):
        r = _rehearse(repo, tmp_path, "--work-dir", str(tmp_path / given))
        assert r.returncode == 1 and r.stdout == "", r.stdout + r.stderr
        assert r.stderr == (f"{tmp_path / given}: cannot use as --work-dir: {tmp_path / told} is a file, not a "
                            "folder; pass a folder you can write to, or leave --work-dir out for a temporary "
                            "one\n"), r.stderr


def test_a_mistyped_exp_name_is_told_the_nearest_ones(tmp_path):
    """`--exp-name kimik3_tp8_conc4_kvdram-lmcach_spec-mtp` in the corpus was told the first 8 exp-names in
    alphabetical order (`dsr1_8k1k, dsv4_8k1k, ...`), none near the one meant."""
    rows = [dict(SEED_ROW, **{"exp-name": name}) for name in
            ("aaa_1k1k", "bbb_1k1k", "ccc_1k1k", "ddd_1k1k", "eee_1k1k", "fff_1k1k", "ggg_1k1k", "hhh_1k1k",
             "iii_1k1k", SEED_EXP)]
    try:
        runner.select_row(rows, "rows.json", "kimik3_tp8_conc4_kvdram-lmcach_spec-mtp", None)
    except runner.SweepgateError as exc:
        line = str(exc)
    assert line == ("rows.json: no row has exp-name 'kimik3_tp8_conc4_kvdram-lmcach_spec-mtp'; did you mean "
                    f"{SEED_EXP}?"), line


def test_a_where_field_no_row_has_is_named_as_no_field():
    """`--where nofield=1` said `its rows have nofield null`, as if the field were there and empty."""
    rows = [SEED_ROW, dict(SEED_ROW, tp=4)]
    try:
        runner.select_row(rows, "rows.json", SEED_EXP, None, ["tpp=4"])
    except runner.SweepgateError as exc:
        line = str(exc)
    assert line.startswith(f"rows.json: no row of exp-name '{SEED_EXP}' has a field 'tpp'; did you mean pp or tp? "
                           "(its fields: "), line  # as close, both named (s41i)
