"""sweepgate as another repository gets it: built into a wheel, installed into a fresh venv.

The source tree is copied first (tracked and untracked, not ignored files), so the
build sees what `pip install git+…` would and leaves no build/ in the checkout.
Every command then runs in a throwaway repository, from its root and from a
subdirectory, and must give the same answer from both.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SEED_KEY = "kimik3-fp4-b300-vllm-agentic-dspark-lmcache"


# What would have a subprocess import another tree's sweepgate (the checkout's: PYTHONPATH=utils, as the suite is
# run from a worktree) in place of the installed wheel's, or look for its modules elsewhere: left out of each run
CHECKOUT_VARS = ("PYTHONPATH", "PYTHONHOME", "PYTHONUSERBASE", "PYTHONPLATLIBDIR", "PYTHONSTARTUP")


def _run(cmd, cwd, env=None, **kw):
    env = {k: v for k, v in (os.environ if env is None else env).items() if k not in CHECKOUT_VARS}
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=300, env=env, **kw)


@pytest.fixture(scope="module")
def source(tmp_path_factory) -> Path:
    """A copy of the tree as a git URL install gets it; the wheel fixture builds in it (leaving build/)."""
    src = tmp_path_factory.mktemp("src")
    copy_tree(src)
    return src


def copy_tree(dest: Path) -> None:
    """The tree's files into ``dest`` as a git URL install gets them: tracked and untracked ones, not ignored
    ones, uncommitted edits too, symbolic links as links."""
    listed = _run(["git", "ls-files", "-co", "--exclude-standard", "-z"], REPO).stdout.split("\0")
    for rel in filter(None, listed):
        path = REPO / rel
        if not path.exists() and not path.is_symlink():
            continue  # deleted in the work tree
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        if path.is_symlink():
            os.symlink(os.readlink(path), dest / rel)
        else:
            shutil.copy2(path, dest / rel)


def _build(src: Path, out: Path) -> Path:
    proc = _run([sys.executable, "-m", "build", "--wheel", "--outdir", str(out), str(src)], src)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    (found,) = out.glob("sweepgate-*.whl")
    return found


@pytest.fixture(scope="module")
def wheel(source, tmp_path_factory) -> Path:
    return _build(source, tmp_path_factory.mktemp("dist"))


def test_a_rebuild_ships_no_file_the_tree_no_longer_has(wheel, source, tmp_path):
    """Install review: a checkout's leftover build/ put a deleted benchmark script (and module) in the
    next wheel; a user's fleet then ran a script its repository had removed."""
    again = tmp_path / "src"
    shutil.copytree(source, again, symlinks=True)  # with the first build's build/
    assert (again / "build").is_dir()
    script = next(p for p in sorted((again / "benchmarks").rglob("*.sh")) if "single_node" in p.parts)
    script.unlink()
    (again / "utils" / "sweepgate" / "stale_module.py").write_text("")
    first = _build(again, tmp_path / "dist1")
    assert "sweepgate/stale_module.py" in zipfile.ZipFile(first).namelist()
    (again / "utils" / "sweepgate" / "stale_module.py").unlink()
    names = set(zipfile.ZipFile(_build(again, tmp_path / "dist2")).namelist())
    assert f"sweepgate/fleet/{script.relative_to(again).as_posix()}" not in names
    assert "sweepgate/stale_module.py" not in names


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> Path:
    venv = tmp_path_factory.mktemp("venv")
    assert _run([sys.executable, "-m", "venv", str(venv)], venv).returncode == 0
    proc = _run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", str(wheel)], venv)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return venv / "bin" / "sweepgate"


def test_wheel_carries_every_subpackage_schemas_and_the_fleet(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    source = REPO / "utils"
    packages = {p.parent.relative_to(source).as_posix() for p in (source / "sweepgate").rglob("__init__.py")}
    for package in packages:
        assert f"{package}/__init__.py" in names, package
    for schema in (source / "sweepgate" / "schemas").glob("*.json"):
        assert f"sweepgate/schemas/{schema.name}" in names
    tracked = _run(["git", "ls-files", "perf-changelog.yaml", "configs/*.yaml", "benchmarks"], REPO).stdout.split()
    wanted = {rel for rel in tracked if rel.endswith((".yaml", ".sh", ".md"))}
    assert {f"sweepgate/fleet/{rel}" for rel in wanted} <= names


def test_packaged_fleet_equals_the_repository(wheel):
    with zipfile.ZipFile(wheel) as whl:
        fleet = [n for n in whl.namelist() if n.startswith("sweepgate/fleet/")]
        assert fleet
        for name in fleet:
            rel = name.removeprefix("sweepgate/fleet/")
            assert whl.read(name) == (REPO / rel).read_bytes(), f"{rel} differs from the repository's"


def test_the_wheel_carries_the_docs_help_cites(wheel, installed, tmp_path):
    """`--help` cited docs/contracts.md, which no install had (the install review's leftover)."""
    with zipfile.ZipFile(wheel) as whl:
        for doc in (REPO / "docs").glob("*.md"):
            assert whl.read(f"sweepgate/docs/{doc.name}") == doc.read_bytes(), doc.name
    helped = _run([str(installed), "--help"], tmp_path, env={**os.environ, "COLUMNS": "1000"})
    cited = helped.stdout.split("Input and output formats: ")[1].split(" (cited as")[0]
    assert Path(cited).is_file() and str(installed.parents[1]) in cited, cited
    assert "## " in Path(cited).read_text(encoding="utf-8")


def test_readme_says_where_an_installed_sweepgate_keeps_the_docs_it_names(wheel):
    """s43e's new-user walk: README said every `docs/` path it names is a file of the sweepgate repository, "not
    of an installed sweepgate", while the wheel carries each (`--help` cites the installed contracts.md). Each
    `docs/X.md` README names is in the wheel, and README's paragraph on them says where (`sweepgate/docs/`)."""
    import re

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    named = set(re.findall(r"\bdocs/([\w.-]+\.md)", readme))
    with zipfile.ZipFile(wheel) as whl:
        carried = set(whl.namelist())
    assert named and {f"sweepgate/docs/{name}" for name in named} <= carried, named
    paragraph = next(p for p in readme.split("\n\n") if p.startswith('"CONTRACTS §N" is a section of'))
    assert "not of an installed sweepgate" not in paragraph and "sweepgate/docs/" in paragraph, paragraph


def test_the_readme_the_installed_docs_cite_is_installed_beside_them(wheel):
    """s50g's adopter walk: the installed docs send the reader to "the README's *Adopting* section", "the README's
    PR block" (docs/getting-started.md, and each other doc), but no install had a README; a maintainer who
    installed sweepgate from a wheel or a git URL had to find the repository online. The wheel carries README.md in
    the package folder, beside docs/, so its `docs/X.md` links resolve there, and README's paragraph on the
    installed docs says so."""
    with zipfile.ZipFile(wheel) as whl:
        assert whl.read("sweepgate/README.md") == (REPO / "README.md").read_bytes()
    cited = [doc.name for doc in (REPO / "docs").glob("*.md") if "README's" in doc.read_text(encoding="utf-8")]
    assert "getting-started.md" in cited, cited
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    paragraph = next(p for p in readme.split("\n\n") if p.startswith('"CONTRACTS §N" is a section of'))
    assert "README.md" in paragraph, paragraph


def test_a_wheel_built_from_the_sdist_carries_the_docs_and_the_fleet(source, tmp_path):
    """Diff review: MANIFEST.in left docs/ out of the sdist, so a wheel built from it (`python -m build`,
    pip installing an sdist) cited a docs/contracts.md no install had."""
    import tarfile

    out = tmp_path / "dist"
    proc = _run([sys.executable, "-m", "build", "--outdir", str(out), str(source)], source)  # sdist, then its wheel
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    (sdist,) = out.glob("sweepgate-*.tar.gz")
    (wheel,) = out.glob("sweepgate-*.whl")
    in_sdist = {name.split("/", 1)[1] for name in tarfile.open(sdist).getnames() if "/" in name}
    in_wheel = set(zipfile.ZipFile(wheel).namelist())
    for doc in (REPO / "docs").glob("*.md"):
        assert f"docs/{doc.name}" in in_sdist and f"sweepgate/docs/{doc.name}" in in_wheel, doc.name
    assert "sweepgate/fleet/configs/runners.yaml" in in_wheel


def _throwaway_repo(sweepgate: Path, tmp_path: Path) -> Path:
    scratch = tmp_path / "scratch"  # --keep leaves the repository and the charts; pytest's folder holds them
    scratch.mkdir()
    proc = _run([str(sweepgate), "example", "--json", "--keep"], tmp_path, env={**os.environ, "TMPDIR": str(scratch)})
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["gate"]["ok"] and result["matrix"]
    return Path(result["scenario"]["repository"])


def _commands(sweepgate: str) -> list[list[str]]:
    refs = ["--base-ref", "HEAD~1", "--head-ref", "HEAD"]
    return [
        [sweepgate, "matrix", *refs],
        [sweepgate, "validate", *refs, "--repository", "sweepgate/example-fleet"],
        [sweepgate, "full-sweep"],
        [sweepgate, "test-config", "--config-keys", SEED_KEY],
        [sweepgate, "plan", *refs, "--json"],
        [sweepgate, "validate", "--staged", "--repository", "sweepgate/example-fleet"],
    ]


def test_every_command_runs_from_an_installed_wheel_at_root_and_in_a_subdirectory(installed, tmp_path):
    repo = _throwaway_repo(installed, tmp_path)
    try:
        sub = repo / "configs"
        for cmd in _commands(str(installed)):
            top, nested = _run(cmd, repo), _run(cmd, sub)
            assert top.returncode == 0, (cmd, top.stderr)
            assert "Traceback" not in top.stderr + nested.stderr
            assert (nested.returncode, nested.stdout) == (top.returncode, top.stdout), (cmd, nested.stderr)

        matrix = repo / "matrix.json"
        matrix.write_text(_run(_commands(str(installed))[0], repo).stdout)
        for cwd in (repo, sub):
            split = _run([str(installed), "ci", "split", "--matrix", str(matrix)], cwd)
            assert split.returncode == 0 and "Traceback" not in split.stderr, split.stderr

        for cwd in (repo, sub):
            add = _run([str(installed), "changelog", "add", "--key", SEED_KEY, "--description", "rerun"], cwd)
            assert add.returncode == 0, add.stderr
            assert "rerun" in (repo / "perf-changelog.yaml").read_text()
            _run(["git", "checkout", "--", "perf-changelog.yaml"], repo)

        listed = _run([str(installed), "--help"], repo)
        names = [n for n in ("example", "matrix", "validate", "full-sweep", "test-config", "changelog", "ci",
                             "plan", "rehearse", "results") if f"    {n} " in listed.stdout]
        assert "rehearse" in names
        for name in names:
            helped = _run([str(installed), name, "--help"], sub)
            assert helped.returncode == 0 and helped.stdout.startswith("usage:"), (name, helped.stderr)
    finally:
        shutil.rmtree(repo, ignore_errors=True)


def test_workflows_install_sweepgate_as_users_do():
    """CI installs the package the way another repository gets it, never as an editable checkout."""
    installs = [line for wf in sorted((REPO / ".github" / "workflows").glob("*.yml"))
                for line in wf.read_text().splitlines() if "pip install" in line]
    assert installs
    for line in installs:
        assert " -e " not in f"{line} " and "--editable" not in line, line
