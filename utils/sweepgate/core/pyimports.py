"""The tracked Python modules a Python file the job runs imports, and theirs (CONTRACTS section 9).

`python3 utils/bench_serving/benchmark_serving.py` runs that file and the modules it imports: its sibling
backend_request_func.py (on sys.path[0], the script's own folder) is code the run depends on as much as the script. The
run identity hashes each tracked module a file it runs imports, followed recursively (each once: a cycle ends).

Read, never run (``ast``): `import a.b`, `from a import b` (b a module or a name), `from . import x` and any relative
import, `importlib.import_module("lit")`, `__import__("lit")`; each resolved against the folders the import may search
(``roots``: the script's folder, the working folder of `-m`/`-c`/standard input, a PYTHONPATH the shell reading knows)
and any folder a literal `sys.path.insert/append(...)` in the file adds (a relative string: from the working folders; a
path built on `__file__`: from the file's folder). Every folder's match is taken, not the first alone (a wider
identity costs a re-run at most): a tracked `json.py` beside the script is hashed, as Python, which puts sys.path[0]
first, imports it. A module that resolves to no tracked file (the standard library's, a package installed) is passed
over. A path built on `__file__` naming a tracked file or folder beside the file (`open(os.path.join(os.path.dirname(
__file__), 'cfg.txt'))`, `Path(__file__).parent / 'cfg.txt'`) is read too. A file Python cannot parse: every tracked
`.py` file in its folder stands for what it imports (``UNPARSED``).

Standard library only: no layer of sweepgate is imported here."""

from __future__ import annotations

import ast
import functools
import posixpath
import re
from dataclasses import dataclass, field
from typing import Callable, Iterable

from sweepgate.core.shellwords import PYTHON_NAME

FILE, CWD = "file", "cwd"  # a folder spelled from the file's own folder, or from the working folder
UNPARSED = "every tracked .py file in the folder of one Python cannot parse"


@dataclass
class Names:
    """What a Python text names: its imports as (level, dotted module, names imported from it), the folders it adds
    to sys.path and the paths it builds on `__file__` (each a (FILE|CWD, relative path) pair)."""
    imports: list[tuple[int, str, tuple[str, ...]]] = field(default_factory=list)
    path_added: list[tuple[str, str]] = field(default_factory=list)
    beside: list[str] = field(default_factory=list)
    # the relative paths it spells from the working folder (a string, `os.path.join("a", "b")`: `open('cfg.txt')`),
    # and the folders `os.chdir` moves it to (a (FILE|CWD, path) pair; None: one only the run knows)
    opened: list[str] = field(default_factory=list)
    chdirs: list[tuple[str, str] | None] = field(default_factory=list)


@functools.lru_cache(maxsize=1024)
def names(text: str) -> Names | None:
    """The ``Names`` of the Python ``text``; None when it does not parse. Once per text (``tail_files`` asks again
    each round; nothing changes a ``Names`` once made)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    found = Names()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.imports += [(0, alias.name, ()) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            found.imports.append((node.level or 0, node.module or "", tuple(alias.name for alias in node.names)))
        elif isinstance(node, ast.Call):
            _call(node, found)
        if isinstance(node, (ast.Call, ast.BinOp)) and (place := _place(node)) and place[0] == FILE and place[1]:
            found.beside.append(place[1])
        _from_cwd(node, found)
    return found


_PATH_LIKE = re.compile(r'[\w.+-]+(?:/[\w.+-]+)*/?')  # a string that may be a relative path (no blank, no `$`)


def _from_cwd(node: ast.AST, found: Names) -> None:
    """A relative path ``node`` spells from the working folder (``Names.opened``: a string, a join of strings), or a
    folder `os.chdir` moves it to (``Names.chdirs``)."""
    if isinstance(node, ast.Call) and _dotted(node.func) in ("os.chdir", "chdir") and node.args:
        found.chdirs.append(_place(node.args[0]))
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and _PATH_LIKE.fullmatch(node.value):
        found.opened.append(posixpath.normpath(node.value))
    elif isinstance(node, (ast.Call, ast.BinOp)) and (place := _place(node)) and place[0] == CWD and place[1]:
        found.opened.append(place[1])


def _call(node: ast.Call, found: Names) -> None:
    name = _dotted(node.func)
    if name in ("importlib.import_module", "import_module", "__import__") and node.args and isinstance(
            lit := node.args[0], ast.Constant) and isinstance(lit.value, str):
        module = lit.value
        found.imports.append((len(module) - len(module.lstrip(".")), module.lstrip("."), ()))
    elif name in ("sys.path.insert", "sys.path.append", "sys.path.extend", "site.addsitedir"):
        args = node.args[1:] if name.endswith("insert") else node.args
        for arg in args:
            for each in arg.elts if isinstance(arg, (ast.List, ast.Tuple)) else [arg]:
                if (place := _place(each)) is not None:
                    found.path_added.append(place)


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return ""


_WRAPPERS = ("str", "os.fspath", "os.path.abspath", "os.path.realpath", "os.path.normpath", "Path", "pathlib.Path",
             "PurePath")


def _place(node: ast.AST) -> tuple[str, str] | None:
    """The folder or file an expression spells, as (FILE|CWD, relative path), when it is literal: a relative string
    (from the working folder), `__file__`'s folder (`os.path.dirname(__file__)`, `Path(__file__).parent`,
    `.resolve().parent`, `.parents[n]`), `os.path.join(...)` and `/` of these and strings."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return None if node.value.startswith(("/", "~")) else (CWD, posixpath.normpath(node.value or "."))
    if isinstance(node, ast.Name) and node.id == "__file__":
        return FILE, "__file__"
    if isinstance(node, ast.Call):
        name = _dotted(node.func)
        if name in _WRAPPERS and len(node.args) == 1:
            return _place(node.args[0])
        if name in ("os.path.dirname", "dirname") and len(node.args) == 1:
            return _up(_place(node.args[0]), 1)
        if name in ("os.path.join", "join", "Path", "pathlib.Path") and node.args:
            return _joined([_place(arg) for arg in node.args])
        if isinstance(node.func, ast.Attribute) and node.func.attr in ("resolve", "absolute") and not node.args:
            return _place(node.func.value)
        if isinstance(node.func, ast.Attribute) and node.func.attr == "joinpath":
            return _joined([_place(node.func.value), *(_place(arg) for arg in node.args)])
    if isinstance(node, ast.Attribute) and node.attr == "parent":
        return _up(_place(node.value), 1)
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "parents" and (
            isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, int)):
        return _up(_place(node.value.value), node.slice.value + 1)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        return _joined([_place(node.left), _place(node.right)])
    return None


def _up(place: tuple[str, str] | None, times: int) -> tuple[str, str] | None:
    if place is None:
        return None
    kind, path = place
    for _ in range(times):
        path = "" if path == "__file__" else posixpath.normpath(posixpath.join(path or ".", ".."))
    return kind, "" if path == "." else path


def _joined(places: list[tuple[str, str] | None]) -> tuple[str, str] | None:
    if not places or places[0] is None or any(p is None or p[0] != CWD for p in places[1:]):
        return None  # (a later absolute part, or one only the run knows: none)
    kind, path = places[0]
    if path == "__file__":
        return None
    path = posixpath.normpath(posixpath.join(path or ".", *(p[1] for p in places[1:])))
    return kind, "" if path == "." else path


def within(folder: str, rest: str) -> str:
    """``rest`` from the checkout folder ``folder``, normalized (the top is "")."""
    path = posixpath.normpath(posixpath.join(folder or ".", rest))
    return "" if path == "." else path


def _module_files(root: str, dotted: str) -> list[str]:
    """The files importing ``dotted`` from ``root`` may run: each package's `__init__.py` on its way, the module's
    own `x.py` or `x/__init__.py`."""
    parts = [part for part in dotted.split(".") if part]
    out = []
    for k in range(1, len(parts) + 1):
        stem = within(root, "/".join(parts[:k]))
        out += [f"{stem}/__init__.py"] + ([f"{stem}.py"] if k == len(parts) else [])
    return out


def imported(path: str, found: Names, roots: Iterable[str]) -> list[str]:
    """The candidate files (tracked or not) the imports of ``found`` (read from the file ``path``) may run, from
    ``roots`` (checkout folders the import searches) and the folders the file itself adds to sys.path."""
    folder = posixpath.dirname(path)
    roots = list(dict.fromkeys([*roots, *added(path, found, roots)]))
    out: list[str] = []
    for level, module, froms in found.imports:
        if level:  # from the file's own package, up level-1 folders
            bases = [within(folder, "/".join([".."] * (level - 1)) or ".")]
            if bases[0] == ".." or bases[0].startswith("../"):
                continue
            out += [f"{bases[0]}/__init__.py" if bases[0] else "__init__.py"]
        else:
            bases = roots
        for base in bases:
            out += _module_files(base, module) if module else []
            for name in froms:  # `from a import b`: b may be a module of package a
                if name != "*":
                    out += _module_files(base, f"{module}.{name}" if module else name)
    return [p for p in dict.fromkeys(out) if not p.startswith("../")]


def added(path: str, found: Names, cwds: Iterable[str]) -> list[str]:
    """The checkout folders ``found`` (read from ``path``) adds to sys.path: from the file's folder, or from each of
    ``cwds`` for a relative string."""
    folder, out = posixpath.dirname(path), []
    for kind, rest in found.path_added:
        out += [within(folder, rest)] if kind == FILE else [within(cwd, rest) for cwd in cwds]
    return [p for p in out if p != ".." and not p.startswith("../")]


def opened(path: str, found: Names, cwds: list[str | None], holds: Callable[[str], bool],
           ending: Callable[[str], list[str]]) -> list[str]:
    """The tracked files the relative paths of ``found`` (read from ``path``, ``Names.opened``) name from each working
    folder the Python may run in: ``cwds`` (checkout folders; None where only the run knows it) and each an `os.chdir`
    of it moves to (from the file's folder, or from those), every tracked file ending in the path from one only the
    run knows (``ending``). A path that names no tracked file (a word, a model's name, an output) adds nothing."""
    folder, here = posixpath.dirname(path), list(cwds)
    for place in found.chdirs:
        here += [None] if place is None else [within(folder, place[1])] if place[0] == FILE else [
            None if cwd is None else within(cwd, place[1]) for cwd in cwds]
    out: list[str] = []
    for rest in found.opened:
        if rest == ".." or rest.startswith("../"):
            continue
        for cwd in dict.fromkeys(here):
            out += ending(rest) if cwd is None else [each] if holds(each := within(cwd, rest)) else []
    return list(dict.fromkeys(out))


def followed(starts: list[tuple], text_of: Callable[[str], str | None],
             holds: Callable[[str], bool], under: Callable[[str], list[str]],
             ending: Callable[[str], list[str]] | None = None) -> list[str]:
    """The tracked files the Python in ``starts`` imports or builds on `__file__`, and theirs, each file read once (a
    cycle ends). Each start: (its path, or a folder's path + "/-" for code given on `-c` or standard input; its text,
    None to read it by ``text_of``; the folders its imports search, sys.path; and, when given, the working folders it
    may run in, for the files it names from there, ``opened``, None for one only the run knows: the tracked files
    ending so, ``ending``). ``holds``: whether the checkout tracks a path; ``under``: the tracked files in a folder. A
    module imported searches the folders of the file that imports it, its own folder too (a package's sibling: more
    than Python searches at most), and runs in its working folders."""
    out: dict[str, None] = {}
    todo = [(start[0], start[1], list(start[2]), list(start[3]) if len(start) > 3 else []) for start in starts]
    seen: set[str] = set()
    while todo:
        path, text, roots, cwds = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        text = text_of(path) if text is None else text
        if text is None:
            continue
        found = names(text)
        if found is None:  # ``UNPARSED``
            folder = posixpath.dirname(path)
            more = [p for p in under(folder) if p.endswith(".py") and posixpath.dirname(p) == folder]
        else:
            folder = posixpath.dirname(path)
            more = [p for p in imported(path, found, roots) if holds(p)]
            roots = list(dict.fromkeys([*roots, *added(path, found, roots)]))
            for rest in found.beside:
                beside = within(folder, rest)
                more += [beside] if holds(beside) else under(beside) if beside and not beside.startswith("..") else []
            more += opened(path, found, cwds, holds, ending or (lambda rest: []))
        for each in more:
            if each not in out:
                out[each] = None
            if each.endswith(".py") and each not in seen:
                todo.append((each, None, list(dict.fromkeys([*roots, posixpath.dirname(each)])), cwds))
    return list(out)


# --- what a shell text gives python to run beside a file: `-m MOD`, `-c CODE`, a heredoc on standard input ----------
_PYTHON = r'(?<![\w./-])(?:[\w.-]*/)*' + PYTHON_NAME
_MODULE = re.compile(_PYTHON + r'(?:[ \t]+-[A-Za-z]+)*?[ \t]+-m[ \t]*[\'"]?(?P<module>[\w.]+)')
_COMMAND = re.compile(_PYTHON + r'(?:[ \t]+-[A-Za-z]+)*?[ \t]+-c[ \t]*(?:\'(?P<single>[^\']*)\'|"(?P<double>[^"]*)")')
# (python's options alone before it, or `-`: `python3 x.py <<EOF` gives x.py data, not code)
_HEREDOC = re.compile(_PYTHON + r'(?:[ \t]+-[A-Za-z]*)*[ \t]*<<(?P<dash>-?)[ \t]*(?P<q>[\'"]?)(?P<end>\w+)(?P=q)[^\n]*\n')


# an assignment of PYTHONPATH (`export PYTHONPATH=utils:$PYTHONPATH`, `PYTHONPATH="$PWD/utils" cmd`), its value
_PYTHONPATH = re.compile(r'(?<![\w$])PYTHONPATH\+?=["\']?(?P<value>[^\s;&|"\']*)')
# a start of a part of it that is the working folder (or the workspace, the checkout's top where the job starts)
_HERE = re.compile(r'\A(?:\$PWD|\$\{PWD\}|\$\(pwd\)|`pwd`|\$GITHUB_WORKSPACE|\$\{GITHUB_WORKSPACE\}|\.)(?:/|\Z)')


def shell_python(text: str) -> tuple[list[str], list[str], list[str]]:
    """The modules `python -m MOD` runs in the shell ``text``, the code it gives python on `-c` or on standard
    input (`python3 - <<'EOF'`, `python3 <<EOF`), in order, and each relative folder a PYTHONPATH it assigns names
    (`utils` for `PYTHONPATH="$PWD/utils:$PYTHONPATH"`; a part that starts where only the run knows: none)."""
    modules = [m["module"] for m in _MODULE.finditer(text)]
    folders = [within("", _HERE.sub("", part)) for m in _PYTHONPATH.finditer(text) for part in m["value"].split(":")
               if part and "$" not in _HERE.sub("", part) and "`" not in _HERE.sub("", part)
               and not part.startswith(("/", "~"))]
    codes = [m["single"] if m["single"] is not None else m["double"] for m in _COMMAND.finditer(text)]
    for m in _HEREDOC.finditer(text):
        end = re.compile(rf'^[ \t]*{re.escape(m["end"])}[ \t]*$', re.MULTILINE).search(text, m.end())
        body = text[m.end():end.start() if end else len(text)]
        codes.append(re.sub(r'(?m)^\t+', "", body) if m["dash"] else body)  # (`<<-` strips leading tabs)
    return modules, codes, [folder for folder in folders if folder != ".." and not folder.startswith("../")]
