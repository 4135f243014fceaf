"""What keeps a rehearsed script's files inside its work dir.

A job's script runs in a container of its own: the checkout is mounted at a path of the container (`/workspace`, the
launcher's `-v`/`--container-mounts`, ``core.mounts``), and whatever it writes elsewhere (`$HOME`, `/tmp`, `cd ..`) goes
with the container. A rehearsal runs the same script on the maintainer's machine, where such a write would land in real
folders (as root, over real files) and two rehearsals at once would share them. So, with no privileges needed:

- the script gets a ``HOME`` and a ``TMPDIR`` (``TMP``, ``TEMP``) of its own in the work dir (``XDG_*`` folders unset, so
  they follow ``HOME``): `~/x`, `$HOME/x`, `mktemp` and `mktemp -t` land there;
- it starts in ``workspace/`` of the work dir, which stands for the container's checkout: each top-level entry of the
  checkout is linked there, so it reads the checkout's files as the job does, while a new file it writes at the top
  (`echo > out.txt`) and `cd ..` stay in the work dir; `results` there is the rehearsal's RESULT_DIR, as the job's
  RESULT_DIR is `results` of its workspace;
- a write bash or a tool would make to an absolute path (`> /workspace/out.json`, `tee /tmp/name`, `mkdir -p /x`,
  `--result-dir /workspace/`) cannot be moved without a mount namespace, which a CI runner may not grant: the script is
  read before it runs, and each such write is a problem at its line, with its fix, and the script is not run
  (``outside_writes``), as is each in a file it sources or runs by a path written out (s47f: `source
  benchmark_lib.sh`, `. "$(dirname "$0")/x.sh"`, `bash shared/x.sh`), said at that file's line. A path only the run
  knows (`> "$OUT"` with `OUT` set by a command; a file sourced by such a path) is not seen.
"""

from __future__ import annotations

import os
import posixpath
import re
import shlex
from pathlib import Path

from sweepgate.core import fields, mounts, recipes, scriptlines, shellcode
from sweepgate.core.errors import Diagnostic

REHEARSAL_RULE = "rehearsal"  # the rule a rehearsal's problems carry (runner.py's too)

HOME_DIR, TMP_DIR, WORKSPACE_DIR = "home", "tmp", "workspace"  # folders of the work dir
_TEMP_NAMES = ("TMPDIR", "TMP", "TEMP")
_XDG_NAMES = ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME")


def confine_env(env: dict[str, str], work: Path) -> None:
    """Point the script's ``HOME`` and temporary folder into ``work`` (made here)."""
    home, tmp = work / HOME_DIR, work / TMP_DIR
    home.mkdir(exist_ok=True)
    tmp.mkdir(exist_ok=True)
    env["HOME"] = str(home)
    for name in _TEMP_NAMES:
        env[name] = str(tmp)
    for name in _XDG_NAMES:
        env.pop(name, None)


def workspace_view(work: Path, root: Path, results: Path) -> Path:
    """``work/workspace``, the folder the script starts in: a link to each top-level entry of the checkout at
    ``root`` (the work dir itself, when it is inside the checkout, left out), and at the job's RESULT_DIR there
    (``fields.JOB_RESULT_DIR``) one to ``results``, the rehearsal's, so a result written where the job uploads it
    from is found; a link from a run before in this --work-dir is made again, what the script wrote there is kept."""
    view = work / WORKSPACE_DIR
    view.mkdir(exist_ok=True)
    work_real = work.resolve()
    targets = {entry: root / entry for entry in os.listdir(root)}
    targets[fields.JOB_RESULT_DIR] = results
    for entry, target in sorted(targets.items()):
        if target != results and (work_real == target.resolve() or work_real.is_relative_to(target.resolve())):
            continue
        link = view / entry
        if link.is_symlink():
            link.unlink()
        elif link.exists():
            continue  # the script of a run before wrote it: not ours to remove
        link.symlink_to(target)
    return view


def container_mounts(root: Path, row: dict) -> list[tuple[str, str]]:
    """(source as written, target) of each mount the container of ``row``'s job has: the options of the launchers
    its runner pool may run (``identity.launcher_files``, read by ``mounts.view``) that the checkout at ``root``
    holds; none for a launcher it does not hold, or one that cannot be read."""
    from sweepgate.core.identity import launcher_files
    from sweepgate.core.placement import runners_at

    found: list[tuple[str, str]] = []
    for rel in launcher_files(str(row.get(fields.RUNNER) or ""), runners_at(str(root))):
        try:
            words = shlex.split(scriptlines.uncommented((root / rel).read_text(encoding="utf-8")), posix=False)
        except (OSError, UnicodeDecodeError, ValueError):
            continue
        view = mounts.view(words)
        found += [m for m in (view.mounts if view else ()) if m not in found]
    return found


# --- writes the rehearsal cannot move --------------------------------------------------------

# commands whose every operand is a file they write; those whose last operand is; mktemp's template
_ALL_WRITTEN = ("tee", "touch", "mkdir", "truncate")
_LAST_WRITTEN = ("cp", "mv", "ln", "install", "rsync")
# a client's option naming where it writes (vLLM `bench serve`, SGLang `bench_serving`, AIPerf, lm-eval)
_OUTPUT_OPTIONS = ("--result-dir", "--output-file", "--output-artifact-dir", "--artifact-dir", "--output_path",
                   "--output-path")
_REDIRECT = re.compile(r"(?<![<>&])(?:&>>?|\d*>>?\|?)(?!&|\()")
_COMMAND = re.compile(r"(?:^|(?<=[\s;&|(]))(" + "|".join((*_ALL_WRITTEN, *_LAST_WRITTEN, "mktemp")) + r")(?=\s)")
_OPTION = re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, _OUTPUT_OPTIONS)) + r")(?==|[ \t])")
_ASSIGNED = re.compile(r"^\s*(?:export\s+|readonly\s+|local\s+|declare\s+(?:-\w+\s+)*)?([A-Za-z_]\w*)=(\S+)",
                       re.MULTILINE)
_VARIABLE = re.compile(r"^\$(?:\{([A-Za-z_]\w*)\}|([A-Za-z_]\w*))")
# absolute paths a write to leaves no file behind: devices and the kernel's own folders (`echo 3 >
# /proc/sys/vm/drop_caches` is a job's to make; /dev/shm holds files, and is no such folder)
_NO_FILE = ("/dev/", "/proc/", "/sys/")
_FILES_THERE = ("/dev/shm/",)
_BREAK = re.compile(r"[;|&()\n]")


def outside_writes(root: Path, script: Path, container_paths: list[tuple[str, str]],
                   work: Path | str | None = None) -> list[Diagnostic]:
    """Each write of ``script``, and of each shell file it sources or runs (``sourced_or_run``), to an absolute path
    outside the work dir, as written (a literal path, or a variable the file or the script sets to one), at its
    file's line: a redirection's target, an operand of `tee`, `touch`, `mkdir`, `truncate`, the last of `cp`, `mv`,
    `ln`, `install`, `rsync`, `mktemp`'s template, a client's output option. ``container_paths``: (source, target) of
    the job's container mounts, which say what such a path is in the job; ``work``: the work dir, when it is known
    before the run (a --work-dir), a path inside which is no such write."""
    try:
        script_text = script.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    rel = str(script.relative_to(root))
    known = _assigned(script_text)
    inside = {str(Path(work).absolute()), os.path.realpath(work)} if work else set()
    out = []
    for path in [rel, *(other for other in sourced_or_run(root, rel) if other != rel)]:
        try:
            text = script_text if path == rel else (root / path).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue  # (one that cannot be read: bash says so at its `source`)
        out += _writes_in(root, path, text, {**known, **_assigned(text)}, inside, container_paths)
    return out


def _writes_in(root: Path, rel: str, text: str, known: dict[str, str | None], inside: set[str],
               container_paths: list[tuple[str, str]]) -> list[Diagnostic]:
    """``outside_writes`` of the file ``rel`` of the checkout at ``root``, its ``text`` (``known``: the variables it
    may read a literal of)."""
    code = shellcode.code(text)[0]
    out, seen = [], set()
    for at, word, how in sorted(_written_words(text, code)):  # in the order of the file's lines
        path = _literal(word, known)
        if path is None or not _leaves_a_file_outside(path, inside):
            continue
        line = text.count("\n", 0, at) + 1
        if (line, path) in seen:
            continue
        seen.add((line, path))
        line = scriptlines.command_start(scriptlines.file_lines(root / rel), line)
        out.append(Diagnostic(rel, line, 0, REHEARSAL_RULE, *_said(path, word, how, container_paths), in_file=True))
    return out


_SHELL_ENDINGS = (".sh", ".bash")


def sourced_or_run(root: Path, script: str) -> list[str]:
    """The shell files of the checkout at ``root`` that ``script`` (its path there) sources or runs by a path known
    before the run, and theirs (``recipes.helper_folders``: `source "$(dirname "$0")/x.sh"`, `bash shared/x.sh`; not
    one only the run knows, nor one read as data or run by another interpreter), with the benchmark library and its
    parts when one of them sources it (``fields.BENCHMARK_LIB_FILES``), in the order met: in the rehearsal they run
    as the script does. A file that cannot be read is left out."""
    blobs: dict[str, bytes | None] = {}

    def read(paths: list[str]) -> dict[str, bytes | None]:
        found = {}
        for path in paths:
            try:
                found[path] = (root / path).read_bytes() if (root / path).is_file() else None
            except OSError:
                found[path] = None
        return found

    blobs.update(read([script]))
    recipes.read_helpers([script], blobs, read)
    helpers = recipes.helper_folders(script, blobs)
    files = [path for path in recipes.shell_files(helpers, helpers)
             if blobs.get(path) is not None and _is_shell(path, blobs[path])]
    if recipes.library_lines([script], blobs):
        files += [path for path in fields.BENCHMARK_LIB_FILES if (root / path).is_file()]
    return list(dict.fromkeys(files))


def _is_shell(path: str, blob: bytes) -> bool:
    """Whether a file run or sourced is bash's to read: a shell file's ending, or none and a `#!` naming a shell."""
    if path.endswith(_SHELL_ENDINGS):
        return True
    first = blob.split(b"\n", 1)[0]
    return ("." not in posixpath.basename(path) and first.startswith(b"#!")
            and re.search(rb"\b(?:ba)?sh\b", first) is not None)


def _leaves_a_file_outside(path: str, inside: set[str]) -> bool:
    """Whether a write to ``path`` may leave a file outside the folders ``inside``: an absolute path, but a
    device's or the kernel's (``_NO_FILE``), or a top folder itself (`mkdir -p /tmp`)."""
    if not path.startswith("/") or path.startswith(_NO_FILE) and not path.startswith(_FILES_THERE):
        return False
    if path in ("/", "/dev", "/proc", "/sys", "/tmp"):
        return False
    return not any(path == folder or path.startswith(folder.rstrip("/") + "/") for folder in inside)


def _said(path: str, word: str, how: str, container_paths: list[tuple[str, str]]) -> tuple[str, str]:
    """What is wrong with a write to ``path`` (``word`` as written, by ``how``: a command's name, `>`, an option)
    and how to fix it."""
    bare = _unquoted(word) or word
    named = bare if "$" not in bare else f"{path} ({word})"  # a literal as written, a variable's with its value
    what = f"writes {named}, outside the rehearsal's work dir, so the script was not run"
    held = mounts.View(tuple(container_paths)).holding(path)
    if held is not None and _is_checkout(held[0]):
        target = path[:len(path) - len(held[1])].rstrip("/") or "/"
        return (f"{what} (the job's container mounts the checkout at {target})",
                f"write into \"$RESULT_DIR\" (results the job uploads) or a path relative to the checkout's top, "
                f"where the job starts, not {target}")
    if held is not None:
        return f"{what} (the job's container mounts a host folder there)", \
            "write into \"$RESULT_DIR\", or a temporary file of mktemp"
    if how == "mktemp":
        return what, (f"give mktemp the name alone with --tmpdir (mktemp --tmpdir {posixpath.basename(path)}), "
                      "which puts it in $TMPDIR, the rehearsal's own")
    if path.startswith("/tmp/"):
        return what, "make the file with mktemp (or mktemp -d), which puts it in $TMPDIR, the rehearsal's own"
    return what, "write into \"$RESULT_DIR\", $HOME or a temporary file of mktemp, which the rehearsal gives the script"


def _is_checkout(source: str) -> bool:
    """Whether a mount's source, as written, is the folder the launcher runs in: the checkout."""
    return source.rstrip("/") in ("${PWD}", "$PWD", "$(pwd)", ".", "${GITHUB_WORKSPACE}", "$GITHUB_WORKSPACE")


def _written_words(text: str, code: str):
    """(offset, word as written, how: `>`, the option or the command's name) of each word ``text`` writes to
    (``code``: its code, strings and comments blank)."""
    for m in _REDIRECT.finditer(code):
        if word := _word_at(text, _skip_blanks(text, m.end())):
            yield m.start(), word, ">"
    for m in _OPTION.finditer(code):  # (the code's blanks may be a string's: the word is read from the text)
        if word := _word_at(text, _skip_blanks(text, m.end() + 1)):
            yield m.start(), word, m.group(1)
    for m in _COMMAND.finditer(code):
        words, i = [], m.end()
        stop = _BREAK.search(code, i)
        end = stop.start() if stop else len(code)
        while (i := _skip_blanks(text, i)) < end:
            word = _word_at(text, i)
            if not word or code[i] in "<>" or re.match(r"\d*[<>]", code[i:i + 2]):
                break
            words.append((i, word))
            i += len(word)
        operands = [(at, w) for at, w in words if not w.startswith("-")]
        name = m.group(1)
        if name == "mktemp" or name in _LAST_WRITTEN:
            operands = operands[-1:]
        yield from ((m.start(), w, name) for _, w in operands)


def _skip_blanks(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t":
        i += 1
    return i


def _word_at(text: str, i: int) -> str:
    """The shell word starting at ``text[i]``: up to a blank or an operator outside quotes ('' when none)."""
    j, quote = i, None
    while j < len(text):
        c = text[j]
        if quote:
            if c == quote:
                quote = None
            elif c == "\\" and quote == '"':
                j += 1
        elif c in "'\"":
            quote = c
        elif c == "\\":
            j += 1
        elif c in " \t\n;|&<>()":
            break
        j += 1
    return text[i:j]


def _assigned(text: str) -> dict[str, str | None]:
    """Each variable the script sets, to its literal value; None for one set to several values or one not known
    before the run."""
    known: dict[str, str | None] = {}
    for m in _ASSIGNED.finditer(scriptlines.uncommented(text)):
        name, value = m.group(1), _unquoted(m.group(2))
        value = value if value is not None and "$" not in value and "`" not in value else None
        known[name] = value if known.get(name, value) == value else None
    return known


def _literal(word: str, known: dict[str, str | None]) -> str | None:
    """The path ``word`` names, when it is known before the run: a literal, or one starting with a variable
    ``known`` holds a literal of; None otherwise."""
    bare = _unquoted(word)
    if bare is None:
        return None
    if m := _VARIABLE.match(bare):
        value = known.get(m.group(1) or m.group(2))
        if value is None:
            return None
        bare = value + bare[m.end():]
    if "$" in bare or "`" in bare or bare.startswith("~"):
        return None
    return posixpath.normpath(bare) if bare.startswith("/") else bare


def _unquoted(word: str) -> str | None:
    try:
        parts = shlex.split(word, posix=True)
    except ValueError:
        return None
    return parts[0] if len(parts) == 1 else None
