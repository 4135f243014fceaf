"""Run one job of a workflow file locally, step by step, as a runner would.

Each `run:` goes to real bash (`bash -e`, the runner's default shell) with the step's and the
job's `env:` and what earlier steps wrote to $GITHUB_ENV; a failed step stops the job unless it says
`continue-on-error: true`. `${{ }}` values come from a table the
test gives (an expression it does not know fails the test). Stand-ins for the actions the
benchmark templates use: actions/checkout does what the action does with an existing path
(deletes the contents of a directory without a .git, through a symlink too; reuses a .git
whose remote is the origin, running git in it), download-artifact copies given files,
upload-artifact does nothing. Only the `if:` forms the templates use are understood.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def uploaded(workspace: Path, paths: str) -> list[str]:
    """The files upload-artifact takes for ``path`` lines: globs from the workspace, a folder
    with all below it, following symbolic links (to files and folders) as it does."""
    found = set()
    for line in filter(None, (x.strip() for x in paths.splitlines())):
        for p in workspace.glob(line.rstrip("/")):
            if p.is_file():
                found.add(str(p.relative_to(workspace)))
            elif p.is_dir():
                for below, _, files in os.walk(p, followlinks=True):
                    found.update(str(Path(below, f).relative_to(workspace)) for f in files)
    return sorted(found)


def substitute(text, context: dict) -> str:
    def one(match):
        if match.group(1) not in context:
            raise KeyError(f"the test has no value for ${{{{ {match.group(1)} }}}}")
        return str(context[match.group(1)])

    return EXPR.sub(one, str(text))


def condition(expr: str, context: dict, env: dict, failed: bool) -> bool:
    """`a != ''` and `a == ''` terms joined by `&&`, optionally with always(); anything else
    fails the test (an unset env value is '', as GitHub's null compares)."""
    terms = [t.strip() for t in expr.split("&&")]
    always = "always()" in terms
    for term in (t for t in terms if t != "always()"):
        m = re.fullmatch(r"([\w.-]+) (!=|==) ''", term)
        assert m, f"workflow_job does not understand if: {expr}"
        name, op = m.groups()
        value = env.get(name[4:], "") if name.startswith("env.") else context[name]
        if (value == "") != (op == "=="):
            return False
    return always or not failed


def git(*args, cwd):
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def checkout(workspace: Path, origin: Path, ref: str, path: str | None) -> None:
    target = workspace / (path or ".")
    if os.path.lexists(target) and not os.path.isdir(target):
        target.unlink()
    if os.path.isdir(target) and (target / ".git").is_dir() and \
            subprocess.run(["git", "remote", "get-url", "origin"], cwd=target, capture_output=True,
                           text=True).stdout.strip() == str(origin):
        git("checkout", "--detach", cwd=target)  # the action's prepareExistingDirectory
        git("clean", "-ffdx", cwd=target)
        git("reset", "--hard", "HEAD", cwd=target)
    elif os.path.isdir(target):
        for entry in os.listdir(target):  # readdir follows a symlinked directory, as the action's does
            full = os.path.join(target, entry)
            shutil.rmtree(full) if os.path.isdir(full) and not os.path.islink(full) else os.unlink(full)
    else:
        target.mkdir(parents=True)
    if not (target / ".git").is_dir():
        git("init", "-q", cwd=target)
        git("remote", "add", "origin", str(origin), cwd=target)
    git("fetch", "-q", "--depth", "1", "origin", ref, cwd=target)
    git("checkout", "-q", "--force", ref, cwd=target)


def read_env_file(path: Path) -> dict[str, str]:
    """NAME=value and NAME<<DELIM lines of $GITHUB_ENV."""
    out, lines = {}, path.read_text().splitlines() if path.exists() else []
    i = 0
    while i < len(lines):
        line = lines[i]
        if "<<" in line and "=" not in line.split("<<", 1)[0]:
            name, delim = line.split("<<", 1)
            end = lines.index(delim, i + 1)
            out[name], i = "\n".join(lines[i + 1:end]), end + 1
            continue
        if "=" in line:
            name, value = line.split("=", 1)
            out[name] = value
        i += 1
    return out


def run_job(job: dict, *, workspace: Path, origin: Path, context: dict, base_env: dict,
            artifacts: dict[str, bytes], uploads: dict | None = None) -> list[tuple[str, int, str]]:
    """Each step's (name, exit status, output); a failed step lets only `always()` steps run.
    ``uploads`` gets each uploaded artifact's name -> the files its `path` lines (globs, from
    the workspace) match, as upload-artifact would take them."""
    env_file = Path(base_env["GITHUB_ENV"])
    results, failed, checkouts = [], False, []
    for step in job["steps"]:
        name = step.get("name") or step.get("uses")
        job_env = {k: substitute(v, context) for k, v in (job.get("env") or {}).items()}
        env = {**base_env, **job_env, **read_env_file(env_file)}
        if "if" in step and not condition(step["if"], context, env, failed):
            continue
        if not ("if" in step and "always()" in step["if"]) and failed:
            continue
        context_env = {**context, **{f"env.{n}": v for n, v in env.items()}}
        uses, given = step.get("uses", ""), {k: substitute(v, context_env) for k, v in (step.get("with") or {}).items()}
        if uses.startswith("actions/checkout@"):
            checkout(workspace, origin, given["ref"], given.get("path"))
            checkouts.append(workspace / (given.get("path") or "."))
            results.append((name, 0, ""))
        elif uses.startswith("actions/download-artifact@"):
            folder = workspace / given["path"]  # a relative path is the workspace's, as the action reads it
            folder.mkdir(parents=True, exist_ok=True)
            for file, data in artifacts.items():
                (folder / file).write_bytes(data)
            results.append((name, 0, ""))
        elif uses.startswith("actions/upload-artifact@"):
            if uploads is not None:
                uploads[given["name"]] = uploaded(workspace, given["path"])
            continue
        else:
            assert not uses, f"workflow_job has no stand-in for {uses}"
            env.update({k: substitute(v, context_env) for k, v in (step.get("env") or {}).items()})
            proc = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=workspace, env=env,
                                  capture_output=True, text=True)
            results.append((name, proc.returncode, proc.stdout + proc.stderr))
            # a step that may fail (continue-on-error) lets the job go on as if it had not, as GitHub does
            failed = failed or (proc.returncode != 0 and str(step.get("continue-on-error", False)).lower() != "true")
    post_env = {**base_env, **{k: substitute(v, context) for k, v in (job.get("env") or {}).items()},
                **read_env_file(env_file)}
    for target in reversed(checkouts):  # post steps run last, in reverse, whatever failed
        results.append(("Post " + target.name, *checkout_post(target, post_env)))
    return results


def checkout_post(target: Path, env: dict) -> tuple[int, str]:
    """actions/checkout's post step (cleanup, whatever persist-credentials says): when the checkout
    still holds .git/config it runs git there, `git submodule foreach` among it, which reads the
    index and so runs the command the repository's core.fsmonitor names."""
    if not (target / ".git" / "config").is_file():
        return 0, ""
    key = "http.https://github.com/.extraheader"
    proc = subprocess.run(["git", "submodule", "foreach", "--recursive",
                           f"sh -c \"git config --local --name-only --get-regexp '{key}' "
                           f"&& git config --local --unset-all '{key}' || :\""],
                          cwd=target, env=env, capture_output=True, text=True)
    return proc.returncode, proc.stdout + proc.stderr
