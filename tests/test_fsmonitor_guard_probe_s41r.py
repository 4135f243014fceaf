"""The core.fsmonitor guard of both benchmark templates asks a submodule's git in a throwaway repository in
runner.temp (test_container_identity_s41g.py). That probe commits, so the host's own git config steered it:
a runner whose global config signs commits (commit.gpgsign=true) or runs hooks (core.hooksPath,
init.templateDir) failed the step at `git commit` (rc 128, "gpg failed to sign the data") before its own
check, and the probe folder stayed in runner.temp whenever the step stopped early (s41r). The step, run in
bash as the runner runs it (`bash --noprofile --norc -eo pipefail`), with such a HOME and a RUNNER_TEMP
with a space in it."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from test_workflows import TEMPLATES, load

HOOK = "#!/bin/sh\necho hook ran >&2\nexit 1\n"


def _guard(name: str) -> str:
    (guard,) = [s["run"] for s in load(name)["jobs"]["benchmark"]["steps"]
                if "GIT_CONFIG_KEY_0=core.fsmonitor" in s.get("run", "")]
    return guard


def _host(home: Path, kind: str) -> None:
    """The runner's own ~/.gitconfig: ``kind`` of setting that makes a plain `git commit` fail."""
    home.mkdir()
    hooks = home / "hooks"
    if kind == "gpgsign":  # gpg.program=false: signing fails whether or not this host has a key
        text = "[commit]\n\tgpgsign = true\n[gpg]\n\tprogram = false\n"
    elif kind == "hooksPath":
        text = f"[core]\n\thooksPath = {hooks}\n"
    else:  # init.templateDir: every new repository gets the template's failing hook
        text = f"[init]\n\ttemplateDir = {home / 'template'}\n"
        hooks = home / "template" / "hooks"
    hooks.mkdir(parents=True)
    for hook in ("pre-commit", "commit-msg"):
        (hooks / hook).write_text(HOOK)
        (hooks / hook).chmod(0o755)
    (home / ".gitconfig").write_text(text)


def _run(guard: str, tmp_path: Path, home: Path, path: str | None = None) -> tuple[subprocess.CompletedProcess, Path]:
    work, temp = tmp_path / "work", tmp_path / "runner temp"
    work.mkdir(exist_ok=True)
    temp.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "XDG_"))}
    env.update(HOME=str(home), RUNNER_TEMP=str(temp), GITHUB_ENV=str(tmp_path / "github_env"))
    if path:
        env["PATH"] = path
    proc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", guard], cwd=work,
                          capture_output=True, text=True, env=env)
    return proc, temp


@pytest.mark.parametrize("kind", ["gpgsign", "hooksPath", "templateDir"])
@pytest.mark.parametrize("name", TEMPLATES)
def test_the_probe_does_not_take_the_host_git_config(tmp_path, name, kind):
    home = tmp_path / "home"
    _host(home, kind)
    host = {**{k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "XDG_"))}, "HOME": str(home)}
    plain = tmp_path / "plain"  # the host's config does fail a plain commit
    subprocess.run(["git", "init", "-q", str(plain)], check=True, env=host)
    commit = subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty",
                             "-m", "x"], cwd=plain, capture_output=True, text=True, env=host)
    assert commit.returncode != 0
    proc, temp = _run(_guard(name), tmp_path, home)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "::error::" not in proc.stdout and "hook ran" not in proc.stderr, proc.stdout + proc.stderr
    assert (tmp_path / "github_env").read_text().splitlines()[:3] == [
        "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=core.fsmonitor", "GIT_CONFIG_VALUE_0=false"]
    assert list(temp.iterdir()) == [], "the probe repository was left in runner.temp"


@pytest.mark.parametrize("name", TEMPLATES)
def test_a_probe_that_stops_early_leaves_no_folder_in_runner_temp(tmp_path, name):
    """A git command of the probe that fails stops the step (bash -e) before its `rm -rf`: the folder is
    removed on every exit all the same."""
    stand_in = tmp_path / "bin"
    stand_in.mkdir()
    real = shutil.which("git")
    (stand_in / "git").write_text(f'#!/bin/sh\ncase " $* " in *" update-index "*) exit 7;; esac\nexec {real} "$@"\n')
    (stand_in / "git").chmod(0o755)
    home = tmp_path / "home"
    home.mkdir()
    proc, temp = _run(_guard(name), tmp_path, home, f"{stand_in}{os.pathsep}{os.environ['PATH']}")
    assert proc.returncode == 7, proc.stdout + proc.stderr
    assert "::error::the submodule probe's git failed (exit 7)" in proc.stdout, proc.stdout
    assert list(temp.iterdir()) == [], "the probe repository was left in runner.temp"
