"""`sweepgate ci audit --workflows`: what a repository that copied sweepgate's workflows must still give them.

The copied workflows read the rest at run time: the repository and its refs from the GitHub context, the runner
labels and hardware from configs/runners.yaml, the benchmark scripts from benchmarks/. What no run can find out is
the repository's own, and each of these is one line `path[:line]: what; how to fix` when it is missing:

- every copied workflow file, under its own name, and .github/zizmor.yml beside them;
- .github/sweepgate-requirements.txt, the sweepgate every install step installs, pinned to a commit (or `.` in a
  checkout that carries sweepgate's own package, utils/sweepgate: sweepgate's repository);
- a launcher, benchmarks/runners/launch_<prefix>.sh, for each runner name configs/runners.yaml lists (the
  benchmark templates run the one of the runner that took the job), and launch_common.sh;
- a line a copy from an older sweepgate kept that runs sweepgate from the checkout's utils/ (`pip install .`,
  `utils/process_changelog.py`, `PYTHONPATH: utils`) where utils/ holds no sweepgate.
"""

from __future__ import annotations

import os
import re

from sweepgate.core import fields as F
from sweepgate.core.errors import Diagnostic
from sweepgate.core.identity import LAUNCHER_DIR, LAUNCHER_LIB, launcher_files

RULE = "adoption"
OWN_PACKAGE = "utils/sweepgate/__init__.py"  # a checkout carrying sweepgate itself (its repository, or a vendored copy)
PIN_EXAMPLE = "sweepgate @ git+https://github.com/<owner>/sweepgate@<full commit SHA>"
PIN_FIX = (f"write one line, {PIN_EXAMPLE}, naming the sweepgate repository and the commit you copied the "
           "workflows from (or a wheel's URL ending #sha256=<its sha256>)")
COPY_AGAIN = "copy the workflow again from the sweepgate commit your requirement pins"
# The three entry points of sweepgate's own tree and the command each is in an installed sweepgate.
SCRIPTS = {"process_changelog": "sweepgate matrix", "validate_perf_changelog": "sweepgate validate",
           "generate_sweep_configs": "sweepgate full-sweep"}
SCRIPT = re.compile(r"(?:python3?\s+(?:-\S+\s+)*)?utils/(" + "|".join(SCRIPTS) + r")\.py")
INSTALLS_CHECKOUT = re.compile(r"\bpip3?\s+install\b[^\n#]*?\s(?:-e\s+|--editable[ =])?\.(?:\[[^\]]*\])?(?=\s|$|[\"'])")
UTILS_PATH = re.compile(r"^\s*PYTHONPATH:\s*[\"']?(?:.*/)?utils/?[\"']?\s*$")
GIT_PIN = re.compile(r"^sweepgate\s*@\s*git\+\S+@([0-9a-fA-F]{40}|[0-9a-fA-F]{64})(?:#\S*)?$")
WHEEL_PIN = re.compile(r"^(?:sweepgate\s*@\s*)?\S+/sweepgate-[^/\s]+\.whl#sha256=[0-9a-fA-F]{64}$")


def _text(root: str, rel: str) -> str | None:
    try:
        with open(os.path.join(root, rel), encoding="utf-8") as fh:
            return fh.read()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None
    except (OSError, UnicodeDecodeError):
        return ""


def own_package(root: str) -> bool:
    return os.path.isfile(os.path.join(root, OWN_PACKAGE))


def missing_files(root: str) -> list[Diagnostic]:
    out = []
    for rel in (*(f"{F.WORKFLOWS_FOLDER}/{name}" for name in F.COPIED_WORKFLOWS), F.ZIZMOR_CONFIG):
        if not os.path.isfile(os.path.join(root, rel)):
            out.append(Diagnostic(rel, rule=RULE, message="missing: the sweep needs every copied workflow file "
                                  "under its own name, and zizmor's configuration beside them",
                                  hint=f"copy it from .github/ of the sweepgate commit your requirement pins"))
    return out


def requirement_findings(root: str) -> list[Diagnostic]:
    """.github/sweepgate-requirements.txt: one requirement, sweepgate pinned to a commit."""
    rel = F.SWEEPGATE_REQUIREMENT
    text = _text(root, rel)
    if text is None:
        return [Diagnostic(rel, rule=RULE, message="missing: every install step of the workflows installs the "
                           "sweepgate it names", hint=PIN_FIX)]
    lines = [(n, line.split(" #", 1)[0].strip()) for n, line in enumerate(text.splitlines(), 1)]
    lines = [(n, line) for n, line in lines if line and not line.startswith("#")]
    if not lines:
        return [Diagnostic(rel, 1, rule=RULE, message="names no requirement", hint=PIN_FIX)]
    out = [Diagnostic(rel, n, rule=RULE, message=f"a second requirement ({line}): the benchmark templates "
                      "install sweepgate alone, with --no-deps", hint="keep the one line that names sweepgate")
           for n, line in lines[1:]]
    n, line = lines[0]
    problem = _pin_problem(line, own_package(root))
    if problem:
        out.insert(0, Diagnostic(rel, n, rule=RULE, message=problem, hint=PIN_FIX))
    return out


def _pin_problem(line: str, own: bool) -> str:
    if line in (".", "./") or line.startswith(("-e", "--editable", "./", "/", "file:")):
        if own and line in (".", "./"):
            return ""
        return (f"{line!r} installs this checkout, which holds no sweepgate ({OWN_PACKAGE})" if not own else
                f"{line!r} is a local path; sweepgate's own repository names `.`")
    if "<" in line or ">" in line:
        return f"{line!r} still holds a placeholder"
    if GIT_PIN.match(line) or WHEEL_PIN.match(line):
        return ""
    ref = re.match(r"^sweepgate\s*@\s*git\+\S+@([^#\s]+)", line)
    if ref:
        return (f"{line!r} pins {ref.group(1)!r}, a branch or tag that can move: each run would install "
                "whatever it names then, on the GPU side too")
    if re.search(r"\.whl\b", line):
        return f"{line!r} names a wheel without its #sha256=, so another file at that URL would be installed"
    if not re.match(r"^sweepgate\b", line, re.I) and not re.search(r"/sweepgate\b", line):
        return f"{line!r} does not name sweepgate"
    return f"{line!r} is not pinned to a commit: an index or branch can serve another sweepgate later"


def stale_lines(root: str) -> list[Diagnostic]:
    """Lines of the copied workflows that run sweepgate from the checkout's utils/, where it holds none."""
    if own_package(root):
        return []
    out = []
    for name in F.COPIED_WORKFLOWS:
        rel = f"{F.WORKFLOWS_FOLDER}/{name}"
        for n, line in enumerate((_text(root, rel) or "").splitlines(), 1):
            code = line.split(" #", 1)[0] if not line.lstrip().startswith("#") else ""
            found = _stale(code)
            if found:
                out.append(Diagnostic(rel, n, rule=RULE, message=found[0], hint=found[1]))
    return out


def _stale(code: str) -> tuple[str, str] | None:
    script = SCRIPT.search(code)
    if script:
        return (f"runs {script.group(0)}, here the repository's own script (or none), not sweepgate's",
                f"run `{SCRIPTS[script.group(1)]}` (the same flags), or {COPY_AGAIN}")
    if INSTALLS_CHECKOUT.search(code):
        return (f"installs this checkout as sweepgate, and it holds none ({OWN_PACKAGE})",
                f"install with `python -m pip install --quiet -r {F.SWEEPGATE_REQUIREMENT}`, or {COPY_AGAIN}")
    if UTILS_PATH.match(code):
        return (f"imports sweepgate from utils/, which holds none here ({OWN_PACKAGE})", COPY_AGAIN)
    return None


def launcher_findings(root: str, runners: dict) -> list[Diagnostic]:
    """A launcher for each runner name configs/runners.yaml lists, and their library."""
    labels = runners.get(F.LABELS) if isinstance(runners, dict) else None
    if not isinstance(labels, dict):
        return []
    text = _text(root, F.RUNNERS_FILE) or ""
    out, seen = [], set()
    for label in labels:
        for path in launcher_files(str(label), runners):
            if path in seen or os.path.isfile(os.path.join(root, path)):
                continue
            seen.add(path)
            if path == LAUNCHER_LIB:
                out.append(Diagnostic(path, rule=RULE, message="missing: every launcher sources it",
                                      hint=f"copy benchmarks/runners/ from the installed sweepgate's fleet "
                                      f"(sweepgate --version names its folder: …/sweepgate/fleet/{LAUNCHER_DIR})"))
                continue
            prefix = path.rsplit("/launch_", 1)[1][:-3]
            names = [str(x) for x in labels.get(label) or [] if str(x).split("_", 1)[0] == prefix] or [prefix]
            out.append(Diagnostic(F.RUNNERS_FILE, _line_of(text, names[0]), rule=RULE,
                                  message=f"runner {names[0]} ({label}) has no launcher {path}, which the benchmark "
                                  "templates run on it", hint=f"write {path} (benchmarks/README.md; the installed "
                                  f"sweepgate's fleet/{LAUNCHER_DIR} holds two to start from)"))
    return out


def _line_of(text: str, word: str) -> int:
    pattern = re.compile(rf"(?:^|[\s\[,'\"-]){re.escape(word)}(?:$|[\s\],'\":])")
    return next((n for n, line in enumerate(text.splitlines(), 1) if pattern.search(line.split("#", 1)[0])), 0)


def adopted(root: str) -> bool:
    """Whether the checkout holds any of the copied workflows (`ci audit` then checks them with the settings)."""
    return any(os.path.isfile(os.path.join(root, F.WORKFLOWS_FOLDER, name)) for name in F.COPIED_WORKFLOWS)


def findings(root: str, runners: dict) -> list[Diagnostic]:
    return missing_files(root) + requirement_findings(root) + stale_lines(root) + launcher_findings(root, runners)
