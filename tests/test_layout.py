"""The package's shape: no import circle, layers that only look down, functions a reader can hold.

Every module of utils/sweepgate is read with ``ast`` (nothing is imported), so
imports inside functions count as much as those at the top of a module. A module
named in a string counts too: ``importlib.import_module("sweepgate.x")``,
``__import__``, an f-string's fixed start (``f"sweepgate.core.validators.{name}"``),
a relative name against ``__name__``/``__package__``, and any string that is exactly
one of our modules' names (a dispatch table such as cli.COMMANDS). A dynamic import
whose module no string names is refused in a layered wing: the check cannot follow it.

- no import circle anywhere in the package;
- ``core`` imports nothing from ``commands``, the wings (``rehearsal``,
  ``results``, ``workflow``) or the top-level modules (``cli``, ``api``); a wing
  imports only ``core`` and itself;
- no command module reaches into another command module's private names: what
  two commands share lives in ``core``;
- no module runs another of ours as a subprocess: a call that starts a process
  (subprocess, os.exec*/spawn*/system, asyncio) names no ``sys.executable``,
  ``__file__``, ``-m``, ``sweepgate`` or ``.py`` in the command it is given (or in
  what the name it is given was assigned in that function), and every other use of
  ``sys.executable`` is one SYS_EXECUTABLE_USES lists, with why;
- a field name of core/fields.py (``exp-name``, ``conc-start``, ``single_node``) is
  written there only: elsewhere no string of one is a key, an index, a ``.get``
  argument, an ``in`` test or a module constant's value (FIELD_NAME_ELSEWHERE lists
  the modules that cannot import it, with why);
- no function is longer than MAX_FUNCTION_LINES lines, unless the comment line
  right above its ``def`` (or decorators), or a docstring line, starts with
  ``whole:`` and says why it must stay in one piece.

Each checker also runs on a small made-up package, to show it can fail.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE_DIR = Path(__file__).resolve().parents[1] / "utils" / "sweepgate"
PACKAGE = "sweepgate"
MAX_FUNCTION_LINES = 50
WINGS = ("core", "commands", "rehearsal", "results", "workflow", "engines")
# wing -> wings it may import (the package root itself, for __version__, is always allowed)
ALLOWED = {
    "core": {"core"},
    "rehearsal": {"core", "rehearsal"},
    "results": {"core", "results"},
    "workflow": {"core", "workflow"},
    "engines": {"core", "engines"},
}
WHOLE_MARKER = "whole:"


# --------------------------------------------------------------------------- reading the package

def modules(root: Path, package: str) -> dict[str, Path]:
    """Dotted module name -> file, for every .py file under ``root``."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        parts = [package, *path.relative_to(root).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _absolute(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    parts = module.split(".")
    if not is_package:
        parts.pop()
    parts = parts[:len(parts) - (node.level - 1)]
    return ".".join(parts + ([node.module] if node.module else []))


# Calls that import (or run) the module their first argument names.
IMPORTING_CALLS = {"import_module", "__import__", "run_module", "find_spec"}
DYNAMIC = "<dynamic import>"  # the target of an importing call whose module no string names


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def _called_name(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def _anchor(module: str, is_package: bool, node: ast.AST | None) -> str | None:
    """The package a relative name in an importing call is resolved against."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name) and node.id in ("__name__", "__package__"):
        return module if is_package or node.id == "__name__" else module.rsplit(".", 1)[0]
    return None


def _named_by_call(module: str, is_package: bool, call: ast.Call, known: set[str]) -> str | None:
    """The module of ours an importing call names, DYNAMIC when no string says which, None when not ours."""
    arg = call.args[0] if call.args else None
    partial = isinstance(arg, ast.JoinedStr)
    if partial:
        arg = arg.values[0] if arg.values else None
    if not (isinstance(arg, ast.Constant) and isinstance(arg.value, str)):
        return DYNAMIC
    name = arg.value
    if partial:  # f"sweepgate.core.validators.{name}": up to its last dot, what its fixed start names
        name = name[:name.rfind(".") + 1]
    if name.startswith("."):
        package = call.args[1] if len(call.args) > 1 else next(
            (k.value for k in call.keywords if k.arg == "package"), None)
        anchor = _anchor(module, is_package, package)
        if anchor is None:
            return DYNAMIC
        level = len(name) - len(name.lstrip("."))
        parts = anchor.split(".")
        parts = parts[:len(parts) - (level - 1)]
        name = ".".join(parts + [name.lstrip(".")])
    name = name.rstrip(".")
    while name and name not in known and "." in name:
        name = name.rsplit(".", 1)[0]
    if name in known:
        return name
    return DYNAMIC if partial and not name else None


def imports_of(module: str, path: Path, known: set[str]) -> list[tuple[str, list[str], int]]:
    """(imported module, names taken from it, line) for every import in the file, at any depth,
    and for every module of ours a string names (``DYNAMIC`` where an importing call's names none)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    is_package = path.name == "__init__.py"
    docstrings = _docstrings(tree)
    calls = IMPORTING_CALLS | {alias.asname for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                               for alias in node.names if alias.name in IMPORTING_CALLS and alias.asname}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _called_name(node) in calls:
            target = _named_by_call(module, is_package, node, known)
            if target is not None:
                out.append((target, [], node.lineno))
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value != PACKAGE
              and node.value in known and id(node) not in docstrings):
            out.append((node.value, [], node.lineno))
        if isinstance(node, ast.Import):
            out += [(alias.name, [], node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(module, is_package, node)
            names = []
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                if sub in known:  # `from pkg import module`
                    out.append((sub, [], node.lineno))
                else:
                    names.append(alias.name)
            if names:
                out.append((base, names, node.lineno))
    seen = set()  # an importing call's literal is also a string naming the module: once
    return [(target, names, line) for target, names, line in out
            if (target in (PACKAGE, DYNAMIC) or target.startswith(PACKAGE + "."))
            and not ((target, tuple(names), line) in seen or seen.add((target, tuple(names), line)))]


def import_graph(mods: dict[str, Path]) -> dict[str, set[str]]:
    known = set(mods)
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for module, path in mods.items():
        for target, _, _ in imports_of(module, path, known):
            while target not in known and "." in target:
                target = target.rsplit(".", 1)[0]
            if target in known and target != module:
                graph[module].add(target)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle as [a, b, ..., a], or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def wing(module: str) -> str:
    """The wing a module is in; a wing's own package (``sweepgate.core``) is in that wing."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in WINGS else "top"


def layer_violations(mods: dict[str, Path]) -> list[str]:
    known = set(mods)
    problems = []
    for module, path in mods.items():
        allowed = ALLOWED.get(wing(module))
        for target, names, line in imports_of(module, path, known):
            if target == PACKAGE and names == ["__version__"]:
                continue
            if target == DYNAMIC:
                if allowed is not None:
                    problems.append(f"{path.name}:{line}: {module} ({wing(module)}) imports a module no string "
                                    "names; name it in a literal, so that the layering can be checked")
                continue
            if allowed is not None and wing(target) not in allowed:
                problems.append(f"{path.name}:{line}: {module} ({wing(module)}) imports {target} ({wing(target)})")
            if wing(module) == wing(target) == "commands" and target != module:
                private = [n for n in names if n.startswith("_")]
                if private:
                    problems.append(f"{path.name}:{line}: {module} imports private {', '.join(private)} "
                                    f"of {target}; move what commands share into core")
        problems += _private_attributes(module, path, known)
    return problems


def _private_attributes(module: str, path: Path, known: set[str]) -> list[str]:
    """`from sweepgate.commands import other` followed by `other._name`."""
    if wing(module) != "commands":
        return []
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    aliases = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = _absolute(module, path.name == "__init__.py", node)
            for alias in node.names:
                target = f"{base}.{alias.name}"
                if target in known and wing(target) == "commands" and target != module:
                    aliases[alias.asname or alias.name] = target
    return [f"{path.name}:{node.lineno}: {module} uses private {aliases[node.value.id]}.{node.attr}"
            for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
            and node.value.id in aliases and node.attr.startswith("_")]


# --------------------------------------------------------------------------- no subprocess of ours

PROCESS_CALLS = {"run", "Popen", "call", "check_call", "check_output", "system", "execv", "execve", "execvp",
                 "execvpe", "execl", "execle", "execlp", "execlpe", "spawnv", "spawnve", "spawnvp", "spawnvpe",
                 "spawnl", "spawnle", "posix_spawn", "posix_spawnp", "create_subprocess_exec",
                 "create_subprocess_shell", "spawn"}
PROCESS_MODULES = {"subprocess", "os", "asyncio", "pty"}
# module -> why it may use sys.executable (none of them starts sweepgate itself)
SYS_EXECUTABLE_USES = {
    "sweepgate.rehearsal.runner": "the stand-in shims a rehearsed script runs in place of vllm, curl or "
                                  "`python3 -m CLIENT`: a fake outside program (standin.py, standard library only), "
                                  "started by the user's bash script, not by us",
    "sweepgate.rehearsal.record": "the rehearsal's python3 for the user's script's own inline Python",
    "sweepgate.core.errors": "names the interpreter in the message of a missing dependency",
}


def _ours_in(node: ast.AST) -> list[str]:
    """What in this part of a command would run a module of ours."""
    found = []
    for sub in ast.walk(node):
        if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) and \
                (sub.value.id, sub.attr) == ("sys", "executable"):
            found.append("sys.executable")
        elif isinstance(sub, ast.Name) and sub.id == "__file__":
            found.append("__file__")
        elif isinstance(sub, ast.Constant) and isinstance(sub.value, str):
            if any(word == "-m" or word.startswith(PACKAGE) or word.endswith(".py") for word in sub.value.split()):
                found.append(repr(sub.value))
    return found


def _process_call(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
        return False
    return node.func.attr in PROCESS_CALLS and isinstance(node.func.value, ast.Name) \
        and node.func.value.id in PROCESS_MODULES


def _assigned(nodes) -> dict[str, list[ast.AST]]:
    """name -> the values these statements assign to it."""
    out: dict[str, list[ast.AST]] = {}
    for node in nodes:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    out.setdefault(target.id, []).append(node.value)
    return out


def subprocesses_of_ours(mods: dict[str, Path]) -> list[str]:
    problems = []
    for module, path in mods.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        top = _assigned(tree.body)
        scopes = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))] + [tree]
        for scope in scopes:
            assigned = {**top, **_assigned(ast.walk(scope))} if scope is not tree else top
            for node in ast.walk(scope):
                if not _process_call(node):
                    continue
                command = [*node.args, *(k.value for k in node.keywords if k.arg in ("args", "argv", "cmd"))]
                parts = [*command, *(v for arg in command for n in ast.walk(arg) if isinstance(n, ast.Name)
                                     for v in assigned.get(n.id, []))]
                found = sorted({f for part in parts for f in _ours_in(part)})
                if found:
                    problems.append(f"{path.name}:{node.lineno}: {module} starts a process with {', '.join(found)}"
                                    "; call the code of ours in this process instead")
        if module not in SYS_EXECUTABLE_USES:
            problems += [f"{path.name}:{n.lineno}: {module} uses sys.executable; run nothing of ours in a new "
                         "process (or list the use, with why, in SYS_EXECUTABLE_USES)"
                         for n in ast.walk(tree) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
                         and (n.value.id, n.attr) == ("sys", "executable")]
    return sorted(set(problems))


# --------------------------------------------------------------------------- field names in one place

FIELDS_MODULE = f"{PACKAGE}.core.fields"
# module (or package) -> why it spells field names itself
FIELD_NAME_ELSEWHERE = {
    f"{PACKAGE}.core.validators": "generated from the JSON schemas (python -m sweepgate.core.validators)",
    f"{PACKAGE}.rehearsal.standin": "runs as a stand-alone script under python -I -S: it imports nothing of ours",
    f"{PACKAGE}.results.migrations": "frozen database history: a migration never changes once released",
    f"{PACKAGE}.results.record": "the result record's own schema (result.schema.json); normalize.ROW_FIELDS maps "
                                 "the row's fields onto it",
    f"{PACKAGE}.core.jobfile": "the job context's own key for its row-id -> config-key map (CONTEXT_CONFIG_KEYS)",
}


def field_names(fields_path: Path) -> dict[str, str]:
    """value -> constant, for every field name core/fields.py states (a word joined by - or _, not a rule title)."""
    tree = ast.parse(fields_path.read_text(encoding="utf-8"), str(fields_path))
    out = {}
    for node in tree.body:
        if not isinstance(node, ast.Assign):
            continue
        target = node.targets[0]
        pairs = (zip(target.elts, node.value.elts) if isinstance(target, ast.Tuple)
                 and isinstance(node.value, ast.Tuple) else [(target, node.value)])
        for name, value in pairs:
            if (isinstance(name, ast.Name) and not name.id.endswith("_RULE") and isinstance(value, ast.Constant)
                    and isinstance(value.value, str) and re.fullmatch(r"[a-z0-9]+([-_][a-z0-9]+)+", value.value)):
                out.setdefault(value.value, name.id)
    return out


def _field_spots(tree: ast.Module):
    """The strings in the places a field name is used as one."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript):
            yield node.slice
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args \
                and node.func.attr in ("get", "pop", "setdefault"):
            yield node.args[0]
        elif isinstance(node, ast.Dict):
            yield from (key for key in node.keys if key is not None)
        elif isinstance(node, ast.Compare) and any(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops):
            yield node.left
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            yield node.value


def field_names_elsewhere(mods: dict[str, Path], names: dict[str, str]) -> list[str]:
    problems = []
    for module, path in mods.items():
        if module == FIELDS_MODULE or any(module == m or module.startswith(m + ".") for m in FIELD_NAME_ELSEWHERE):
            continue
        for spot in _field_spots(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(spot, ast.Constant) and isinstance(spot.value, str) and spot.value in names:
                problems.append(f"{path.name}:{spot.lineno}: {module} writes the field name {spot.value!r}; "
                                f"use fields.{names[spot.value]}")
    return problems


def long_functions(mods: dict[str, Path], limit: int = MAX_FUNCTION_LINES) -> list[str]:
    problems = []
    for module, path in mods.items():
        lines = path.read_text(encoding="utf-8").split("\n")
        tree = ast.parse("\n".join(lines), str(path))
        for node in ast.walk(tree):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            length = node.end_lineno - node.lineno + 1
            if length > limit and not _says_whole(node, lines):
                problems.append(f"{module}:{node.lineno}: {node.name} has "
                                f"{length} lines (limit {limit}); split it, or say why it stays whole")
    return problems


def _says_whole(node: ast.FunctionDef, lines: list[str]) -> bool:
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    above = lines[first - 2].strip() if first >= 2 else ""
    if above.startswith("#") and above.lstrip("# ").lower().startswith(WHOLE_MARKER):
        return len(above) > len(WHOLE_MARKER) + 12  # a reason, not just the marker
    doc = ast.get_docstring(node) or ""
    return any(line.strip().lower().startswith(WHOLE_MARKER) and len(line.strip()) > len(WHOLE_MARKER) + 10
               for line in doc.splitlines())


# --------------------------------------------------------------------------- the package

MODULES = modules(PACKAGE_DIR, PACKAGE)


def test_the_walk_sees_every_wing():
    assert {wing(m) for m in MODULES} >= {"core", "commands", "rehearsal", "top"}
    graph = import_graph(MODULES)
    assert "sweepgate.core.load" in graph["sweepgate.core.select"]  # top-level import
    assert "sweepgate.core.select" in graph["sweepgate.commands.matrix"]  # import inside a function


def test_no_import_circle():
    cycle = find_cycle(import_graph(MODULES))
    assert cycle is None, "import circle: " + " -> ".join(cycle)


def test_layers_only_look_down():
    problems = layer_violations(MODULES)
    assert not problems, "\n".join(problems)


def test_no_module_runs_ours_as_a_subprocess():
    problems = subprocesses_of_ours(MODULES)
    assert not problems, "\n".join(problems)
    assert set(SYS_EXECUTABLE_USES) <= set(MODULES), "SYS_EXECUTABLE_USES names a module that is gone"


def test_field_names_are_written_in_fields_py_only():
    names = field_names(MODULES[FIELDS_MODULE])
    assert {"exp-name", "conc-start", "single_node", "base_ref"} <= set(names)
    problems = field_names_elsewhere(MODULES, names)
    assert not problems, "\n".join(problems)
    assert all(m in MODULES or any(k.startswith(m + ".") for k in MODULES) for m in FIELD_NAME_ELSEWHERE)


def test_functions_are_short():
    problems = long_functions(MODULES)
    assert not problems, "\n".join(problems)


# --------------------------------------------------------------------------- the checkers can fail

def _fake_package(tmp_path: Path, files: dict[str, str]) -> dict[str, Path]:
    root = tmp_path / PACKAGE
    for name, text in {"__init__.py": "", "core/__init__.py": "", "commands/__init__.py": "",
                       "rehearsal/__init__.py": "", **files}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return modules(root, PACKAGE)


def test_a_circle_through_a_function_level_import_is_found(tmp_path):
    mods = _fake_package(tmp_path, {
        "core/a.py": "from sweepgate.core import b\n",
        "core/b.py": "def f():\n    from . import c\n",
        "core/c.py": "def g():\n    import sweepgate.core.a\n",
    })
    cycle = find_cycle(import_graph(mods))
    assert cycle and cycle[0] == cycle[-1] and set(cycle) == {"sweepgate.core.a", "sweepgate.core.b",
                                                              "sweepgate.core.c"}


@pytest.mark.parametrize("files, expected", [
    ({"core/a.py": "def f():\n    from sweepgate.commands import x\n", "commands/x.py": ""}, "core/a"),
    ({"rehearsal/r.py": "import sweepgate.api\n", "api.py": ""}, "imports sweepgate.api"),
    ({"commands/x.py": "_helper = 1\n", "commands/y.py": "from sweepgate.commands.x import _helper\n"},
     "private _helper"),
    ({"commands/x.py": "_helper = 1\n", "commands/y.py": "from sweepgate.commands import x\nx._helper\n"},
     "private sweepgate.commands.x._helper"),
    # a module named in a string: importlib, __import__, an f-string's fixed start, a relative name, a table
    ({"core/a.py": "import importlib\ndef f():\n    return importlib.import_module('sweepgate.commands.x')\n",
      "commands/x.py": ""}, "imports sweepgate.commands.x"),
    ({"core/a.py": "def f(n):\n    return __import__(f'sweepgate.commands.{n}')\n"}, "imports sweepgate.commands"),
    ({"core/a.py": "from importlib import import_module as im\ndef f():\n    return im('..commands.x', __package__)\n",
      "commands/x.py": ""}, "imports sweepgate.commands.x"),
    ({"core/a.py": "TABLE = {'x': 'sweepgate.commands.x'}\n", "commands/x.py": ""}, "imports sweepgate.commands.x"),
    # a lazy import in a wing's __init__ whose module no string names
    ({"core/__init__.py": "def __getattr__(name):\n    import importlib\n"
      "    return importlib.import_module('sweepgate.commands.' + name)\n"}, "imports a module no string names"),
])
def test_a_layer_violation_is_found(tmp_path, files, expected):
    problems = layer_violations(_fake_package(tmp_path, files))
    assert any(expected in p or expected.replace("/", ".") in p for p in problems), problems


def test_imports_a_string_names_within_the_wing_are_no_violation(tmp_path):
    mods = _fake_package(tmp_path, {
        "rehearsal/__init__.py": "def __getattr__(name):\n    import importlib\n"
                                 "    return importlib.import_module(f'.{name}', __name__)\n",
        "core/a.py": "import importlib\ndef f(n):\n    importlib.import_module(f'sweepgate.core.{n}')\n"
                     "    importlib.import_module('yaml')\n    return __import__(n.lower(), fromlist=['x'])\n",
    })
    problems = layer_violations(mods)
    assert [p for p in problems if "a.py:5" in p and "no string names" in p] and len(problems) == 1, problems


def test_a_circle_through_a_dispatch_table_is_found(tmp_path):
    """commands/results.py's table named its subcommands by string; one imported it back (s45g)."""
    mods = _fake_package(tmp_path, {
        "commands/t.py": "import importlib\nTABLE = ('sweepgate.commands.u',)\n"
                         "def load():\n    return [importlib.import_module(m) for m in TABLE]\n",
        "commands/u.py": "def f():\n    from sweepgate.commands.t import load\n",
    })
    cycle = find_cycle(import_graph(mods))
    assert cycle and set(cycle) == {"sweepgate.commands.t", "sweepgate.commands.u"}


@pytest.mark.parametrize("code, expected", [
    ("import subprocess, sys\ndef f():\n    subprocess.run([sys.executable, '-m', 'sweepgate', 'matrix'])\n",
     "'-m', 'sweepgate', sys.executable"),
    ("import subprocess\ndef f(args):\n    cmd = ['sweepgate', *args]\n    return subprocess.Popen(cmd)\n",
     "'sweepgate'"),
    ("import os, sys\ndef f():\n    os.execv(sys.executable, [sys.executable, 'utils/process_changelog.py'])\n",
     "'utils/process_changelog.py', sys.executable"),
    ("import subprocess\nfrom pathlib import Path\nSCRIPT = Path(__file__).parent / 'gate.py'\n"
     "def f():\n    subprocess.run(['python3', str(SCRIPT)])\n", "'gate.py', __file__"),
    ("import subprocess\ndef f():\n    subprocess.run('python3 -m sweepgate validate', shell=True)\n",
     "'python3 -m sweepgate validate'"),
])
def test_a_subprocess_of_ours_is_found(tmp_path, code, expected):
    problems = subprocesses_of_ours(_fake_package(tmp_path, {"core/a.py": code}))
    assert any(f"starts a process with {expected}" in p or expected in p for p in problems), problems


def test_git_bash_and_an_engine_are_no_subprocess_of_ours(tmp_path):
    mods = _fake_package(tmp_path, {"core/a.py": (
        "import subprocess\ndef f(binary, script):\n    subprocess.run(['git', 'rev-parse', 'HEAD'])\n"
        "    subprocess.Popen(['bash', str(script)])\n    subprocess.Popen([binary, '--helpfull'])\n")})
    assert subprocesses_of_ours(mods) == []


@pytest.mark.parametrize("code", [
    "def f(row):\n    return row.get('exp-name')\n",
    "def f(row):\n    return row['conc-start']\n",
    "def f(bucket):\n    return {'single_node': bucket}\n",
    "def f(row):\n    return 'kv-offload-backend' in row\n",
    "EXP_NAME = 'exp-name'\n",
])
def test_a_field_name_written_again_is_found(tmp_path, code):
    mods = _fake_package(tmp_path, {"core/fields.py": "EXP_NAME = 'exp-name'\nCONC_START = 'conc-start'\n"
                                    "SINGLE_NODE, MULTI_NODE = 'single_node', 'multi_node'\n"
                                    "KV_OFFLOAD_BACKEND = 'kv-offload-backend'\nTAB_RULE = 'no-tab'\n",
                                    "commands/x.py": code})
    names = field_names(mods[FIELDS_MODULE])
    assert set(names) == {"exp-name", "conc-start", "single_node", "multi_node", "kv-offload-backend"}
    problems = field_names_elsewhere(mods, names)
    assert len(problems) == 1 and problems[0].startswith("x.py:"), problems


def test_a_field_name_in_a_message_is_no_second_home(tmp_path):
    mods = _fake_package(tmp_path, {"core/fields.py": "EXP_NAME = 'exp-name'\n", "commands/x.py": (
        "def f(row):\n    print('exp-name', row)\n    raise ValueError('exp-name')\n")})
    assert field_names_elsewhere(mods, field_names(mods[FIELDS_MODULE])) == []


def test_a_long_function_needs_its_reason(tmp_path):
    body = "".join(f"    x{i} = {i}\n" for i in range(MAX_FUNCTION_LINES))
    mods = _fake_package(tmp_path, {
        "core/long.py": f"def long():\n{body}",
        "core/kept.py": f"# whole: one state machine over the event stream\ndef kept():\n{body}",
        "core/bare.py": f"# whole:\ndef bare():\n{body}",
        "core/doc.py": f'def doc():\n    """Doc.\n\n    Whole: the table reads top to bottom.\n    """\n{body}',
    })
    problems = long_functions(mods)
    assert [p.split(": ", 1)[1].split(" ")[0] for p in problems] == ["bare", "long"]


# --------------------------------------------------------------------------- the README's map

def _readme_layout() -> str:
    readme = (PACKAGE_DIR.parents[1] / "README.md").read_text(encoding="utf-8")
    return readme.split("\n## Layout\n", 1)[1].split("\n## ", 1)[0]


def test_the_readme_layout_names_every_package_folder_and_only_real_ones():
    """Issue 10: the README's Layout section is the package's map, one line per folder.
    Sub-folders added later (validators, result formats, migrations) went unnamed."""
    layout = _readme_layout()
    folders = sorted(p.relative_to(PACKAGE_DIR).as_posix() for p in PACKAGE_DIR.rglob("*")
                     if p.is_dir() and "__pycache__" not in p.parts)
    missing = [f for f in folders if f"utils/sweepgate/{f}/" not in layout and f not in layout]
    assert not missing, f"README Layout names no line for utils/sweepgate/{missing}"
    named = re.findall(r"`utils/sweepgate/([\w/]+)/`", layout)
    assert named and all((PACKAGE_DIR / n).is_dir() for n in named), named
