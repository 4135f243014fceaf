"""README's word on what the GPU side widens and on what an adopter must run, held to the files that do it (s42a).

- The MI355X launcher runs the single-node container with host networking and IPC, ptrace and no seccomp
  filter; README and docs/security.md said nothing of it. They now name those flags, and the flags are read
  from what the launcher really passes (its `--dry-run`), so neither can drift from the other.
- README's adopter steps said nothing of the host git the templates' `core.fsmonitor` guard needs, nor of
  linting the copied workflows and keeping their pins current. The git version is read from the guard,
  the linters' commands from `ci.yml` and the tests, the Dependabot cadence from `.github/dependabot.yml`.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import yaml

from lint_tools import tool
from test_launchers import FIXED, MI355X, dry_run, tree
from test_workflows import TEMPLATES, actionlint, copy_what_readme_says_to_copy, load

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
SECURITY = (ROOT / "docs" / "security.md").read_text(encoding="utf-8")
# A docker flag that gives a container more of the host than docker's default: a host namespace, a
# capability, a changed security profile, every device's cgroup rule, or everything at once.
WIDENS = re.compile(r"--(?:network|net|ipc|pid|uts|userns|cgroupns)=host|--cap-add=\S+|--security-opt=\S+"
                    r"|--privileged(?:=true)?|--device-cgroup-rule=\S+")


def _mi355x_paragraph(text: str) -> str:
    """The one README bullet or docs/security.md paragraph that names the MI355X container's flags."""
    (found,) = [p for p in re.split(r"\n(?=- )|\n\n", text) if "MI355X" in p and "--network=host" in p]
    return " ".join(found.split())


def _widening_flags_the_mi355x_launcher_passes(tmp_path: Path) -> set[str]:
    tree(tmp_path, f"{FIXED}/kimik3_fp4_mi355x.sh")
    _, cmd = dry_run(MI355X, tmp_path, RUNNER_NAME="mi355x-amds_3")
    docker = cmd[cmd.index("run") + 1:]
    return {arg for arg in docker if WIDENS.fullmatch(arg)}


def test_the_flags_that_widen_the_mi355x_container_are_the_ones_readme_names(tmp_path):
    """Every flag of the MI355X single-node `docker run` that widens the container is named in README's security
    bullet and in docs/security.md's *What this does not protect*, and they name no other; a multi-node docker
    worker (disagg_lib.sh) gets none they do not name."""
    passed = _widening_flags_the_mi355x_launcher_passes(tmp_path)
    assert {"--network=host", "--ipc=host"} <= passed, passed  # the launcher read is the real one
    section = README.split("## Workflows and security", 1)[1].split("\n## ", 1)[0]
    unprotected = SECURITY.split("## What this does not protect", 1)[1]
    for where, text in (("README.md", section), ("docs/security.md", unprotected)):
        named = set(re.findall(r"`(--[^`]+)`", _mi355x_paragraph(text)))
        assert named == passed, (where, sorted(named), sorted(passed))
    workers = {m.group() for path in (ROOT / "benchmarks" / "multi_node").rglob("*.sh")
               for m in WIDENS.finditer(path.read_text())}
    assert workers and workers <= passed, workers


def _guard_version() -> str:
    """The git version the templates' core.fsmonitor guard needs: the newest its refusals name."""
    guards = [s["run"] for name in TEMPLATES for s in load(name)["jobs"]["benchmark"]["steps"]
              if "GIT_CONFIG_KEY_0=core.fsmonitor" in s.get("run", "")]
    assert len(guards) == len(TEMPLATES) and len(set(guards)) == 1, "the templates' guards differ"
    versions = re.findall(r"\(git (\d+\.\d+) or newer needed\)", guards[0])
    assert versions, guards[0]
    return max(versions, key=lambda v: tuple(map(int, v.split("."))))


def _adopting_paragraph() -> str:
    section = README.split("## The workflows in another repository", 1)[1].split("\n## ", 1)[0]
    (found,) = [p for p in section.split("\n\n") if "actionlint" in p and "Dependabot" in p]
    return " ".join(found.split())


def test_readme_s_adopter_lint_and_git_advice_is_what_ci_and_the_templates_do(tmp_path):
    """README's adopter paragraph: the host git version is the guard's (README and docs/security.md say no
    other); the zizmor command is the one ci.yml's online job runs, and the copies pass it and actionlint as
    written (offline here); the tests it names run both; the Dependabot cadence is that of dependabot.yml."""
    text = _adopting_paragraph()
    version = _guard_version()
    assert f"git must be {version} or newer" in text, text
    for where, doc in (("README.md", README), ("docs/security.md", SECURITY)):
        said = set(re.findall(r"\bgit (?:must be )?(\d+\.\d+) or newer", doc))
        assert said == {version}, (where, said, version)
    commands = re.findall(r"`((?:actionlint|zizmor)\b[^`]*)`", text)
    assert [c.split()[0] for c in commands] == ["actionlint", "zizmor"], commands
    ci = yaml.safe_load((ROOT / ".github" / "workflows" / "ci.yml").read_text())
    online = [s["run"] for s in ci["jobs"]["online-audits"]["steps"] if s.get("run", "").startswith("zizmor")]
    assert [run.replace(" --no-ignores", "") for run in online] == [commands[1]], (online, commands)
    assert "GH_TOKEN" in text and "GH_TOKEN" in json.dumps(ci["jobs"]["online-audits"])
    tests = (ROOT / "tests" / "test_workflows.py").read_text()
    for name in re.findall(r"`(test_\w+)`", text.split("Keep the SHA pins", 1)[0]):
        assert f"def {name}(" in tests, name
    # the copies README lists, linted with the commands it gives (zizmor offline: no network here)
    assert "run-sweep.yml" in copy_what_readme_says_to_copy(tmp_path)
    assert commands[0] == "actionlint" and actionlint(tmp_path).returncode == 0
    zizmor = subprocess.run([tool("zizmor"), "--offline", *commands[1].split()[1:]], cwd=tmp_path,
                            capture_output=True, text=True)
    assert zizmor.returncode == 0, zizmor.stdout + zizmor.stderr
    config = yaml.safe_load((ROOT / ".github" / "dependabot.yml").read_text())
    (actions,) = [u for u in config["updates"] if u["package-ecosystem"] == "github-actions"]
    assert f"({actions['schedule']['interval']}, {actions['cooldown']['default-days']}-day cooldown)" in text, text
