"""The workflows copied into a fresh benchmark repository, as README's *The workflows in another repository* says
(s51f): `sweepgate ci audit --workflows` names each edit left undone, one line at its place, and is clean once
all are done.

A new user copied the workflows into a repository laid out like InferenceX (its configs, its own
`utils/process_changelog.py`, sweepgate installed from a wheel, never `-e`) and needed about eight hand edits
(every `pip install .`, the three `utils/*.py` calls, `PYTHONPATH: utils`, a host install step and its
PYTHONPATH in each template, the launchers), none of which anything checked: a missed one showed up only when a
GPU job failed. The workflows now read what differs at run time; what is left (the sweepgate requirement, a
launcher per runner, the copied files themselves) the audit checks.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "utils"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from sweepgate.core import fields as F  # noqa: E402

CORPUS = Path("/work/shared/corpus/corpus.git")
PIN = "sweepgate @ git+https://github.com/acme/sweepgate@" + "0123456789abcdef" * 2 + "01234567"
REQUIREMENT = F.SWEEPGATE_REQUIREMENT


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@localhost", "-C", str(repo), *args],
                          check=True, capture_output=True, text=True).stdout


def adopter(tmp_path: Path, *, corpus: bool = False) -> Path:
    """A fresh benchmark repository with every edit done: InferenceX's layout (its own utils/ script, no
    utils/sweepgate), the shipped benchmarks/, the copied workflows and zizmor.yml, the pinned requirement."""
    repo = tmp_path / "bench"
    (repo / "configs").mkdir(parents=True)
    if corpus:  # the reference's own data files at the corpus's last main commit
        for rel in ("perf-changelog.yaml", "configs/nvidia-master.yaml", "configs/amd-master.yaml",
                    F.RUNNERS_FILE):
            (repo / rel).write_bytes(subprocess.run(["git", "--git-dir", str(CORPUS), "show", f"main:{rel}"],
                                                    check=True, capture_output=True).stdout)
    else:
        for rel in ("perf-changelog.yaml", "configs/nvidia-master.yaml", "configs/amd-master.yaml", F.RUNNERS_FILE):
            shutil.copyfile(ROOT / rel, repo / rel)
    shutil.copytree(ROOT / "benchmarks", repo / "benchmarks", symlinks=True,
                    ignore=shutil.ignore_patterns("__pycache__"))
    (repo / "utils").mkdir()
    (repo / "utils" / "process_changelog.py").write_text("# the benchmark repository's own script\n")
    (repo / F.WORKFLOWS_FOLDER).mkdir(parents=True)
    for name in F.COPIED_WORKFLOWS:
        shutil.copyfile(ROOT / F.WORKFLOWS_FOLDER / name, repo / F.WORKFLOWS_FOLDER / name)
    shutil.copyfile(ROOT / F.ZIZMOR_CONFIG, repo / F.ZIZMOR_CONFIG)
    (repo / REQUIREMENT).write_text(f"# the sweepgate the workflows install\n{PIN}\n")
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "bench")
    return repo


def audit(repo: Path, *, actions: bool = False) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "GH_"))}
    env.update(PYTHONPATH=str(ROOT / "utils"), **({"GITHUB_ACTIONS": "true"} if actions else {}))
    return subprocess.run([sys.executable, "-m", "sweepgate", "ci", "audit", "--workflows"], cwd=repo, env=env,
                          capture_output=True, text=True, timeout=120)


def line_of(path: Path, text: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if text in line)



def _audit_repository(repo, stub):
    """`sweepgate ci audit --repository` run in REPO against the GitHub stand-in, no GitHub variables inherited."""
    from github_stub import TOKEN  # noqa: PLC0415
    from test_ci_audit import REPO  # noqa: PLC0415
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "GH_"))}
    env.update(PYTHONPATH=str(ROOT / "utils"), GITHUB_TOKEN=TOKEN)
    return subprocess.run([sys.executable, "-m", "sweepgate", "ci", "audit", "--repository", REPO,
                           "--api-url", stub.url], env=env, capture_output=True, text=True, cwd=repo)

def test_the_copies_with_every_edit_done_are_clean(tmp_path):
    """The shipped workflows need no edit of their own: copied as they are, with the requirement written,
    nothing is left (they ran `pip install .`, `utils/*.py` and `PYTHONPATH: utils`, each a finding here)."""
    proc = audit(adopter(tmp_path))
    assert proc.returncode == 0 and proc.stdout == "", proc.stdout + proc.stderr
    assert proc.stderr == "sweepgate ci audit: 0 edits left undone in the copied workflows\n", proc.stderr


def _requirement(text: str):
    def edit(repo: Path) -> tuple[str, int]:
        (repo / REQUIREMENT).write_text(f"# the sweepgate the workflows install\n{text}\n")
        return REQUIREMENT, 2
    return edit


def _no_requirement(repo: Path) -> tuple[str, int]:
    (repo / REQUIREMENT).unlink()
    return REQUIREMENT, 0


def _no_launcher(repo: Path) -> tuple[str, int]:
    (repo / "benchmarks/runners/launch_mi355x-amds.sh").unlink()
    return F.RUNNERS_FILE, line_of(repo / F.RUNNERS_FILE, "- mi355x-amds_00")


def _no_launcher_library(repo: Path) -> tuple[str, int]:
    (repo / "benchmarks/runners/launch_common.sh").unlink()
    return "benchmarks/runners/launch_common.sh", 0


def _renamed(repo: Path) -> tuple[str, int]:
    (repo / F.WORKFLOWS_FOLDER / F.SWEEP_WORKFLOW).rename(repo / F.WORKFLOWS_FOLDER / "gpu-sweep.yml")
    return f"{F.WORKFLOWS_FOLDER}/{F.SWEEP_WORKFLOW}", 0


def _no_zizmor_config(repo: Path) -> tuple[str, int]:
    (repo / F.ZIZMOR_CONFIG).unlink()
    return F.ZIZMOR_CONFIG, 0


def _old_line(name: str, new: str, old: str):
    """A copy from an older sweepgate: one line as it ran sweepgate from its own tree."""
    def edit(repo: Path) -> tuple[str, int]:
        path = repo / F.WORKFLOWS_FOLDER / name
        text = path.read_text()
        assert new in text, (name, new)
        path.write_text(text.replace(new, old, 1))
        return f"{F.WORKFLOWS_FOLDER}/{name}", line_of(path, old)
    return edit


MISSED = [
    ("no-requirement-file", _no_requirement, "missing: every install step of the workflows installs the sweepgate"),
    ("readme-placeholder", _requirement("sweepgate @ git+https://github.com/<owner>/sweepgate@<full commit SHA>"),
     "still holds a placeholder"),
    ("branch", _requirement("sweepgate @ git+https://github.com/acme/sweepgate@main"),
     "pins 'main', a branch or tag that can move"),
    ("this-checkout", _requirement("."), "'.' installs this checkout, which holds no sweepgate (utils/sweepgate"),
    ("unhashed-wheel", _requirement("https://example.com/sweepgate-0.1.0-py3-none-any.whl"),
     "names a wheel without its #sha256="),
    ("index-version", _requirement("sweepgate==0.1.0"), "is not pinned to a commit"),
    ("no-launcher", _no_launcher, "runner mi355x-amds_00 (cluster:mi355x-amds) has no launcher "
     "benchmarks/runners/launch_mi355x-amds.sh"),
    ("no-launcher-library", _no_launcher_library, "missing: every launcher sources it"),
    ("renamed-workflow", _renamed, "missing: the sweep needs every copied workflow file under its own name"),
    ("no-zizmor-config", _no_zizmor_config, "missing: the sweep needs every copied workflow file"),
    ("old-install", _old_line("run-sweep.yml", f"--quiet -r {REQUIREMENT}", "--quiet ."),
     "installs this checkout as sweepgate, and it holds none"),
    ("old-script", _old_line("pr-sweep.yml", "sweepgate matrix --base-ref", "python utils/process_changelog.py --base-ref"),
     "runs python utils/process_changelog.py, here the repository's own script"),
    ("old-pythonpath", _old_line("benchmark-tmpl.yml", "PYTHONPATH: ${{ runner.temp }}/sweepgate-pkg",
                                 "PYTHONPATH: ${{ runner.temp }}/sweepgate-main/utils"),
     "imports sweepgate from utils/, which holds none here"),
]


@pytest.mark.parametrize("miss,said", [m[1:] for m in MISSED], ids=[m[0] for m in MISSED])
def test_each_edit_left_undone_is_one_line_at_its_place(tmp_path, miss, said):
    repo = adopter(tmp_path)
    path, line = miss(repo)
    proc = audit(repo)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    (found,) = proc.stdout.splitlines()
    where = f"{path}:{line}: " if line else f"{path}: "
    assert found.startswith(where) and said in found and "; " in found, (where, found)
    assert proc.stderr == "sweepgate ci audit: 1 edits left undone in the copied workflows\n", proc.stderr


def test_under_github_actions_each_is_also_an_annotation(tmp_path):
    repo = adopter(tmp_path)
    _no_launcher(repo)
    proc = audit(repo, actions=True)
    assert proc.returncode == 1
    line = line_of(repo / F.RUNNERS_FILE, "- mi355x-amds_00")
    assert f"::error file={F.RUNNERS_FILE},line={line}" in proc.stderr, proc.stderr


def test_the_settings_audit_reports_them_too(tmp_path):
    """`ci audit --repository` in a repository holding the copies: a right setup with an edit left undone still
    exits 1, the edit's line beside the (no) settings findings."""
    from github_stub import TOKEN, GitHubStub  # noqa: PLC0415
    from test_ci_audit import REPO, good_setup  # noqa: PLC0415

    repo = adopter(tmp_path)
    _no_requirement(repo)
    stub = GitHubStub()
    try:
        good_setup(stub)
        proc = _audit_repository(repo, stub)
    finally:
        stub.close()
    assert proc.returncode == 1, proc.stdout + proc.stderr
    (found,) = proc.stdout.splitlines()
    assert found.startswith(f"{REQUIREMENT}: missing"), found
    assert "0 findings, 0 high, 1 edits left undone" in proc.stderr, proc.stderr


@pytest.mark.skipif(not CORPUS.is_dir(), reason="the reference's history corpus is not on this machine")
def test_the_reference_s_runners_each_need_a_launcher(tmp_path):
    """InferenceX's configs/runners.yaml (the corpus's last main commit) names runner pools the shipped fleet has
    no launcher for: each prefix is one line at its first runner's line, and a launcher for each makes it clean."""
    import yaml  # noqa: PLC0415

    repo = adopter(tmp_path, corpus=True)
    runners = yaml.safe_load((repo / F.RUNNERS_FILE).read_text())
    prefixes = {str(n).split("_", 1)[0] for names in runners["labels"].values() for n in names or []}
    missing = sorted(p for p in prefixes if not (repo / f"benchmarks/runners/launch_{p}.sh").is_file())
    assert len(missing) > 5, missing
    proc = audit(repo)
    assert proc.returncode == 1
    named = sorted(line.split("benchmarks/runners/launch_", 1)[1].split(".sh", 1)[0] for line in proc.stdout.splitlines())
    assert named == missing, proc.stdout
    for line in proc.stdout.splitlines():
        assert line.startswith(f"{F.RUNNERS_FILE}:") and int(line.split(":")[1]) > 0, line
    for prefix in missing:
        shutil.copyfile(repo / "benchmarks/runners/launch_b300-nv.sh", repo / f"benchmarks/runners/launch_{prefix}.sh")
    proc = audit(repo)
    assert proc.returncode == 0 and proc.stdout == "", proc.stdout


SETTINGS = [
    ("default-branch-master", lambda s, base: s.routes[("GET", base)][1].update(default_branch="master"),
     "medium: the default branch is 'master', but the workflows trust main only"),
    ("no-gpu-environment", lambda s, base: s.route("GET", f"{base}/environments",
                                                    {"total_count": 0, "environments": []}),
     "medium: no environment 'gpu-sweep': the first GPU job creates it with no deployment branch rule and no HF_TOKEN"),
    ("no-hf-token", lambda s, base: s.route("GET", f"{base}/environments/gpu-sweep/secrets",
                                             {"total_count": 0, "secrets": []}),
     "medium: environment 'gpu-sweep' holds no HF_TOKEN"),
]


@pytest.mark.parametrize("break_it,said", [m[1:] for m in SETTINGS], ids=[m[0] for m in SETTINGS])
def test_the_settings_the_copies_need_are_each_one_line(tmp_path, break_it, said):
    """The copies' settings: a default branch other than main (every sweep starts from main), and the
    environment the GPU jobs deploy to, holding HF_TOKEN (the first job would create it bare). Each is one
    medium line of the settings audit; a right setup (test_ci_audit.py's) says none."""
    from github_stub import TOKEN, GitHubStub  # noqa: PLC0415
    from test_ci_audit import BASE, REPO, good_setup  # noqa: PLC0415

    repo = adopter(tmp_path)
    stub = GitHubStub()
    try:
        good_setup(stub)
        stub.routes[("GET", BASE)][1].update(default_branch="main")
        break_it(stub, BASE)
        proc = _audit_repository(repo, stub)
    finally:
        stub.close()
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (found,) = proc.stdout.splitlines()
    assert found.startswith(f"{REPO}: {said}") and "; " in found, found
