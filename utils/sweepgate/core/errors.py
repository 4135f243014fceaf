"""Diagnostics: every problem sweepgate reports, with where it is and how to fix it."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable
from contextvars import ContextVar


# Exit codes, the same for every command (README "Exit codes").
EXIT_OK = 0          # success
EXIT_BAD_INPUT = 1   # bad input or a failed check: diagnostics were printed
EXIT_USAGE = 2       # argument syntax only (argparse)
EXIT_FAIL_ON = 3     # a --fail-on-... condition was met; the output itself is complete


MAX_MESSAGE = 600  # characters of a problem's text a line shows; values quoted in it can be any length

# How a diagnostic line says it is not an error (``FILE:LINE: warning: ...``), by severity.
LINE_LABELS = {"warning": "warning: ", "info": "note: "}


def is_a_folder(instead: str = "a file") -> str:
    """How every command says that a path it reads or writes as a file is a folder: ``is a folder, not a
    file`` (``instead``: what it is not, when more is known of it). The README and every message say
    "folder", never "directory" nor the system's "Is a directory" (``os_reason``)."""
    return f"is a folder, not {instead}"


def os_reason(exc: OSError) -> str:
    """Why an OSError stopped a read or a write, after "cannot read:" or "cannot write it:": the
    system's reason, except a folder where a file was wanted, said in ``is_a_folder``'s words, and a
    symbolic link in a loop or to nothing (on the way to the file, or the file itself), said as
    ``link_trouble`` says it ("No such file or directory" of a link that is there misled)."""
    import errno

    if exc.errno == errno.EISDIR:
        return f"it {is_a_folder()}"
    if (trouble := _link_trouble_of(exc)) is not None:
        return trouble.reason(exc.filename)
    return exc.strerror or str(exc)


def os_failure(file: str, doing: str, exc: OSError, hint: str) -> "SweepgateError":
    """``file: DOING: REASON; HINT``, the one line of an OSError (``os_reason``); when a symbolic link is
    why, the fix is the link's (``LINK_FIX``), not ``hint``: no rewriting of a file's content mends it."""
    return fail(file, 0, f"{doing}: {os_reason(exc)}", LINK_FIX if _link_trouble_of(exc) is not None else hint)


# How to mend a symbolic link that loops or points at nothing, wherever one stops a read.
LINK_FIX = "point the link at the file (ln -sfn TARGET LINK) or remove it"
# Links followed this far in a chain before it is taken for a loop (Linux's own limit, MAXSYMLINKS)
_LINK_HOPS = 40


class LinkTrouble:
    """A symbolic link that stops a path from being read: ``link`` (the path itself, or a folder on its
    way), whether its chain of links ``loops``, and ``chain``, ``link`` and the names it leads through as
    each link spells its target (``['d/a', 'b', 'a']`` for a loop, ``['d/a', 'gone.json']`` for a link to
    nothing)."""

    __slots__ = ("link", "loops", "chain")

    def __init__(self, link: str, loops: bool, chain: list[str]):
        self.link, self.loops, self.chain = link, loops, chain

    @property
    def said(self) -> str:
        """What the link is: ``a symbolic link in a loop (a -> b -> a)``, ``a symbolic link to X, which
        does not exist`` (a chain of links by each name: ``to b -> gone.json``)."""
        if self.loops:  # the link by its own name, as its folder's links spell theirs
            return f"a symbolic link in a loop ({' -> '.join([os.path.basename(self.link), *self.chain[1:]])})"
        return f"a symbolic link to {' -> '.join(self.chain[1:])}, which does not exist"

    @property
    def folder_fix(self) -> str:
        """How to mend it where a folder was wanted: point the looping link at one, or make the one it names."""
        return "point the link at a folder (ln -sfn DIR LINK)" if self.loops else "create the folder it points to"

    def reason(self, path) -> str:
        """What is wrong with reading ``path``, after "cannot read:": ``it is …``, or ``LINK (a folder on its
        way) is …``."""
        if os.fspath(path) == self.link:
            return f"it is {self.said}"
        return f"{self.link} (a folder on its way) is {self.said}"


def link_trouble(path) -> LinkTrouble | None:
    """The symbolic link that loops or points at nothing and so stops ``path`` from being read: the path
    itself, else the nearest folder on its way that is one; None when no link on it is to blame (it
    is there, or it is missing as a plain name is)."""
    name = os.fspath(path)
    here = name
    while here:
        if os.path.islink(here) and not os.path.exists(here):
            return _chain_of(here)
        parent = os.path.dirname(here.rstrip("/") or "/")
        if parent == here:
            return None
        here = parent
    return None


def _chain_of(link: str) -> LinkTrouble:
    """``link``'s chain of links, followed until a name that is no link (missing: a link to nothing) or
    one met before (a loop); ``_LINK_HOPS`` links without either is a loop too, as the system says."""
    chain, seen, here = [link], set(), link
    for _ in range(_LINK_HOPS):
        key = os.path.join(os.path.realpath(os.path.dirname(os.path.abspath(here))), os.path.basename(here))
        if key in seen:
            return LinkTrouble(link, True, chain)
        seen.add(key)
        try:
            target = os.readlink(here)
        except OSError:  # no link (EINVAL) or nothing there (ENOENT): where the chain ends
            return LinkTrouble(link, False, chain)
        chain.append(target)
        here = os.path.join(os.path.dirname(here), target)
    return LinkTrouble(link, True, chain)


def _link_trouble_of(exc: OSError) -> LinkTrouble | None:
    """``link_trouble`` of the file an OSError names, for the errors a link can be behind (no such
    file, too many levels of links)."""
    import errno

    name = exc.filename
    if exc.errno not in (errno.ENOENT, errno.ELOOP) or not isinstance(name, (str, os.PathLike)):
        return None
    return link_trouble(name)


class Diagnostic:
    """One problem at one place. ``line``/``col`` are 1-based; 0 means unknown. ``in_file`` says
    whether the place is a file: False for a URL or a flag's value that only looks like a path
    (``--db x.db``), True for a file whatever its name; None (most places) judges by the name."""

    __slots__ = ("file", "line", "col", "rule", "message", "hint", "severity", "in_file")

    def __init__(self, file: str, line: int = 0, col: int = 0, rule: str = "", message: str = "",
                 hint: str = "", severity: str = "error", *, in_file: bool | None = None):
        self.file, self.line, self.col = file, line, col
        self.rule, self.message, self.hint, self.severity = rule, message, hint, severity
        self.in_file = in_file

    def _key(self) -> tuple:
        return (self.file, self.line, self.col, self.rule, self.message, self.hint, self.severity)

    def __eq__(self, other) -> bool:
        return isinstance(other, Diagnostic) and self._key() == other._key()

    def __lt__(self, other: "Diagnostic") -> bool:
        return self._key() < other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"Diagnostic({self.render()!r}, rule={self.rule!r})"

    def location(self) -> str:
        loc = shown_path(self.file)
        if self.line:
            loc += f":{self.line}"
            if self.col:
                loc += f":{self.col}"
        return loc

    def render(self) -> str:
        """One line, whatever the names in it hold: a newline in a file name or link target would
        start a line of its own, which the runner reads as a workflow command if it starts with '::'."""
        message = self.shown_message()
        label = LINE_LABELS.get(self.severity, "")
        if label and not message.startswith(label):
            # a warning or note printed beside errors, with exit 0, must say it is one
            message = label + message
        text = f"{self.location()}: {message}"
        if self.hint:
            text += f"; {self.hint}"
        return printable(text)

    def shown_message(self) -> str:
        """The message, cut in its middle past MAX_MESSAGE characters: a 20,000-character value
        quoted whole is no line to read (nor an annotation GitHub keeps)."""
        message = self.message
        if len(message) > MAX_MESSAGE:
            cut = len(message) - MAX_MESSAGE + 40
            message = f"{message[:MAX_MESSAGE - 120]} ... ({cut:,} characters left out) ... {message[-80:]}"
        return message

    def names_a_file(self) -> bool:
        """Whether the location is a file, not a flag (``--window``), an environment variable
        (``ROW``), a command or a service (``git``, a database URL) named as where the problem is."""
        if self.in_file is not None:
            return self.in_file
        name = self.file
        return bool(name) and "://" not in name and (os.path.isfile(name) or (  # a URL is a service
            not name.startswith("-") and " " not in name and not _GLOB.intersection(name)  # a glob is many files
            and ("/" in name or "." in name)))

    def annotation(self) -> str:
        """GitHub workflow command for this diagnostic: at its file and line when it names a file,
        else titled by its rule, with its location in the text (GitHub would look for a file named
        ``--window``)."""
        level = {"error": "error", "warning": "warning"}.get(self.severity, "notice")
        # A message that says its level ("warning: model: ...", as the text line shows it) says it once:
        # the annotation's command is its level already.
        message = self.shown_message().removeprefix(f"{level}: ")
        props, body = [], message + (f"; {self.hint}" if self.hint else "")
        placed = workspace_path(self.file) if self.names_a_file() else None
        if placed:
            # Exactly `file=…,line=…` (CONTRACTS §2): tools match the annotation by that form; the
            # column is in the text line, and the message says what the rule's title would.
            props.append(f"file={_escape_property(placed)}")
            if self.line:
                props.append(f"line={self.line}")
        else:
            if self.file:
                body = f"{self.location()}: {body}"
            if self.rule:
                props.append(f"title={_escape_property(self.rule)}")
        return f"::{level}{' ' if props else ''}{','.join(props)}::{_escape_data(body)}"

    def as_dict(self) -> dict:
        return {
            "rule": self.rule,
            "file": self.file,
            "line": self.line,
            "col": self.col,
            "severity": self.severity,
            "message": self.message,
            "hint": self.hint,
        }


# A pattern's characters: a place such as ``configs/*-master.yaml`` (every master config) is no one file.
_GLOB = frozenset("*?")

# Control characters written as escapes (\n, \x1b, \x9b, \u202e) in a rendered line; a tab stays. C0 and DEL;
# C1 (U+0080-U+009F: U+009B is a terminal's CSI as ESC [ is); the bidirectional overrides and isolates, which
# show a name's characters in another order than they are (the "Trojan Source" trick).
_BIDI = (*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F, 0x061C)
_CONTROL = {c: ascii(chr(c))[1:-1] for c in (*range(0x20), 0x7F, *range(0x80, 0xA0), *_BIDI) if c != 0x09}


_CONTROL_BUT_LINES = {c: e for c, e in _CONTROL.items() if c != 0x0A}


def printable(text: str, lines: bool = False) -> str:
    """``text`` with its control characters written as escapes: a line of somebody else's text (a
    file name, a script's output) cannot move the cursor, recolour the terminal or end the line.
    ``lines``: its line ends stay (text already laid out in lines)."""
    return text.translate(_CONTROL_BUT_LINES if lines else _CONTROL)


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


class SweepgateError(Exception):
    """Bad input. Carries every diagnostic found, not just the first."""

    def __init__(self, diagnostics: Iterable[Diagnostic] | Diagnostic):
        if isinstance(diagnostics, Diagnostic):
            diagnostics = [diagnostics]
        self.diagnostics = list(diagnostics)
        super().__init__("\n".join(d.render() for d in self.diagnostics))


def json_message(exc) -> str:
    """A ``json.JSONDecodeError``'s message as a whole phrase: "Unterminated string starting at"
    and "Invalid control character at" name a place, so say which column."""
    return f"{exc.msg} column {exc.colno}" if exc.msg.endswith(" at") else exc.msg


def fail(file: str, line: int, message: str, hint: str = "", *, rule: str = "", col: int = 0) -> SweepgateError:
    return SweepgateError(Diagnostic(file, line, col, rule, message, hint))


# The paths the running command reads from the repository's top wherever it runs (``read_from_the_top``):
# a set of its own for each command ``run_guarded`` runs, gone when it ends; None outside one.
_FROM_THE_TOP: ContextVar[set[str] | None] = ContextVar("sweepgate_read_from_the_top", default=None)


def read_from_the_top(paths: Iterable[str]) -> None:
    """Say which paths the running command reads from the repository's top wherever it runs (the
    repository-data flags' values and default files: ``repopaths.check_repo_paths``; the files it read at
    a revision: ``load.load_revision``), so that one missing from the top and from the current folder
    alike is annotated where it was looked for, not read as typed from a subfolder (``workspace_path``).
    They hold until the command ends (``run_guarded``), never into the next one in this process; outside
    a command (a library call) nothing is kept."""
    held = _FROM_THE_TOP.get()
    if held is not None:
        held.update(os.path.normpath(p) for p in paths)


# A repository-data flag's path the user typed otherwise than from the top (``../configs/x.yaml`` in benchmarks/):
# its path from the top, which the command reads, -> the path as typed, which its lines say (``typed_as``).
_TYPED_AS: ContextVar[dict[str, str] | None] = ContextVar("sweepgate_typed_as", default=None)


def typed_as(paths: dict[str, str]) -> None:
    """Say how the user typed the repository files the running command reads by their paths from the top
    (``repopaths.check_repo_paths``): a line at one names it as typed, from where the user stands; an
    annotation keeps the path from the top (``workspace_path``). Held until the command ends, as
    ``read_from_the_top``'s paths are; outside a command nothing is kept."""
    held = _TYPED_AS.get()
    if held is not None:
        held.update(paths)


def shown_path(name: str) -> str:
    """``name`` as a line says it: as the user typed it when it is a path from the top ``typed_as`` was told."""
    return (_TYPED_AS.get() or {}).get(name, name)


def workspace_path(name: str) -> str | None:
    """A file as GitHub places an annotation: relative to the workspace (the repository's top), or
    None for a file outside it (GitHub could link no such file: the annotation keeps the place in its
    text). A repository file named from the top (``configs/x.yaml``, read at a ref; a path this command
    reads from the top, ``read_from_the_top``, whether or not it is there) stays as it is; a path the
    user typed from a subfolder (``res/out.json`` or ``../nope.json`` run in ``configs/``) is made
    relative to the top whether or not the file is there, an absolute one too. Without a workspace or
    a repository, the current folder is the top (a step's default one)."""
    from sweepgate.core.worktop import WORKSPACE, enclosing_top

    here = os.getcwd()
    top = os.path.realpath(os.environ.get(WORKSPACE) or enclosing_top() or here)
    full = _typed_path(name, here, top)
    if full is None:
        return name
    relative = os.path.relpath(full, top).replace(os.sep, "/")
    return None if relative == ".." or relative.startswith("../") else relative


def _typed_path(name: str, here: str, top: str) -> str | None:
    """``name``'s absolute path when it names a file from the current folder ``here`` (or is absolute),
    its folder's links resolved as ``top``'s are; None when it is a path from the top already."""
    if not os.path.isabs(name):
        if os.path.normpath(name) in (_FROM_THE_TOP.get() or ()):
            return None  # looked for at the top (`--config-files nope.yaml` in configs/): its place is there
        from_here = name.startswith(("./", "../")) or os.path.exists(name) or (
            os.path.realpath(here) != top and not os.path.exists(os.path.join(top, name)))
        if not from_here:
            return None
        name = os.path.join(here, name)
    name = os.path.normpath(name)
    return os.path.join(os.path.realpath(os.path.dirname(name)), os.path.basename(name))


def emit(diagnostics: Iterable[Diagnostic], stream=None) -> None:
    """Print diagnostics one per line, plus annotations under GitHub Actions."""
    stream = stream or sys.stderr
    diagnostics = list(diagnostics)
    for d in diagnostics:
        # its newline in the same write: print() writes it apart, and a Ctrl-C between glued the stop's own
        # line to this one (`... (or --row)sweepgate: interrupted`, s39o)
        stream.write(f"{d.render()}\n")
    if os.environ.get("GITHUB_ACTIONS") == "true":
        # On stderr, never stdout: stdout is data (matrix JSON, --json, a step output) that
        # workflows redirect into files. The runner reads workflow commands from both streams
        # (actions/runner ScriptHandler gives stdout and stderr each an OutputManager).
        from sweepgate.core.runnerlog import write_command

        for d in diagnostics:
            write_command(d.annotation(), sys.stderr)  # past the CLI's CommandSafeStream, the one way
    stream.flush()
    sys.stderr.flush()


class Terminated(KeyboardInterrupt):
    """SIGTERM (a cancelled CI job, `kill`) or SIGHUP (the terminal or ssh session closed), raised where
    the command is, so that what cleans up after Ctrl-C (temporary files and repositories, child
    processes, a store's transaction) runs too."""

    def __init__(self, signum: int = 15):
        super().__init__(signum)
        self.signum = signum

    @property
    def said(self) -> str:
        return "hung up" if self.signum == _SIGHUP else "terminated"

    @property
    def exit_code(self) -> int:
        return 128 + self.signum  # as the shell reports a command the signal ended: 143, 129


# The signals that end a command as SIGTERM does (SIGHUP: none on Windows).
_SIGHUP = 1
STOP_SIGNALS = ("SIGTERM", "SIGHUP")


def written_past_the_gate(gate_tripped: bool, write: Callable[[], None]) -> None:
    """Write one report (a step summary, a comment file, a PR comment). When that fails and a
    ``--fail-on-...`` gate tripped, its one line is said and the caller goes on to exit 3: the workflow
    learns what the gate found, not only that a report could not be written."""
    try:
        write()
    except SweepgateError as exc:
        if not gate_tripped:
            raise
        emit(exc.diagnostics)


def _terminated(signum, frame):
    raise Terminated(signum)


def _on_sigterm() -> dict:
    """Turn SIGTERM and SIGHUP into ``Terminated`` while a command runs (main thread, default
    disposition only: a ``nohup`` keeps ignoring SIGHUP); returns {signal: handler} to restore."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return {}
    numbers = [getattr(signal, name) for name in STOP_SIGNALS if hasattr(signal, name)]
    return {number: signal.signal(number, _terminated) for number in numbers
            if signal.getsignal(number) is signal.SIG_DFL}


def interrupted(exc: BaseException | None) -> bool:
    """Whether ``exc`` wraps a Ctrl-C (or a SIGTERM, a SIGHUP: ``interruption``)."""
    return interruption(exc) is not None


def interruption(exc: BaseException | None) -> KeyboardInterrupt | None:
    """The Ctrl-C (or ``Terminated``) that ``exc`` is or wraps, the nearest in its chain, else None: Python
    turns a KeyboardInterrupt raised while a class is made (``__set_name__``, as a module loads) into a
    RuntimeError caused by it, and a cleanup that raises after a SIGTERM has the ``Terminated`` as context."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return exc
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return None


def stopped(exc: KeyboardInterrupt, prog: str = "sweepgate") -> int:
    """Say how the command was stopped (``prog: interrupted``, ``terminated``, ``hung up``) and return the
    exit code of its signal: 130 for Ctrl-C, 143 for SIGTERM, 129 for SIGHUP."""
    if isinstance(exc, Terminated):
        print(f"{prog}: {exc.said}", file=sys.stderr)
        return exc.exit_code
    print(f"{prog}: interrupted", file=sys.stderr)
    return 130


# Ctrl-Cs (and ``Terminated``) Python could not raise where the signal's handler ran: in a callback the
# garbage collector calls (a weakref's, such as SQLAlchemy's ``_collection_gced``; a ``__del__``), where
# an exception goes to ``sys.unraisablehook``, printed as "Exception ignored" and dropped (newuser27).
_SWALLOWED: list[KeyboardInterrupt] = []


def _keep_stops(previous):
    """An unraisable hook that keeps a Ctrl-C or stop signal for ``run_guarded`` to end the command
    with, and passes every other error to ``previous`` (Python's report of it)."""
    def hook(unraisable) -> None:
        if isinstance(unraisable.exc_value, KeyboardInterrupt):
            _SWALLOWED.append(unraisable.exc_value)
            return
        previous(unraisable)
    return hook


def run_guarded(fn: Callable[[], int]) -> int:
    """Run a command body: bad input -> diagnostics and exit 1, never a traceback. A Ctrl-C or stop
    signal whose KeyboardInterrupt Python dropped (``_SWALLOWED``) ends it as the signal says, once the
    body is done: its output is whole, and the exit code is the signal's. The paths the command says it
    reads from the top (``read_from_the_top``) are its own, and end with it."""
    import signal
    import threading

    previous = _on_sigterm()
    main = threading.current_thread() is threading.main_thread()  # a hook is the process's: main() only
    hook, seen = sys.unraisablehook, len(_SWALLOWED)
    if main:
        sys.unraisablehook = _keep_stops(hook)
    from_the_top = _FROM_THE_TOP.set(set())  # this command's own, its diagnostics' too (``read_from_the_top``)
    typed = _TYPED_AS.set({})
    try:
        code = _guarded(fn)
        late = _SWALLOWED[seen:]
        return stopped(late[0]) if late and code not in _SIGNAL_CODES else code
    finally:
        _FROM_THE_TOP.reset(from_the_top)
        _TYPED_AS.reset(typed)
        if main:
            sys.unraisablehook = hook
        for number, handler in previous.items():
            signal.signal(number, handler)


_SIGNAL_CODES = (130, 128 + 15, 128 + _SIGHUP)  # a command that said how a signal stopped it already


def _guarded(fn: Callable[[], int]) -> int:
    try:
        code = int(fn() or 0)
        sys.stdout.flush()  # a full stdout (>/dev/full) is said here, not at the interpreter's exit
        return code
    except SweepgateError as exc:
        emit(exc.diagnostics)  # after a signal, a cleanup's refusal is said, and the code stays the signal's
        return 1 if interruption(exc) is None else stopped(interruption(exc))
    except KeyboardInterrupt as exc:  # Ctrl-C, or sweepgate's Terminated (SIGTERM, SIGHUP)
        return stopped(exc)
    except BrokenPipeError:  # stderr's reader left (`2>&1 | head`); stdout's leaving is cli.ReaderMayLeave's
        return 1
    except ModuleNotFoundError as exc:  # an interpreter without sweepgate's dependencies (a GPU host's python3)
        if os.environ.get("SWEEPGATE_DEBUG"):
            raise
        print(f"{sys.executable}: the Python package '{exc.name}' is missing; install sweepgate's dependencies "
              "for this interpreter (pip install sweepgate does; a GPU runner's python3 needs PyYAML, "
              "docs/security.md)", file=sys.stderr)
        return 1
    except Exception as exc:  # noqa: BLE001 - the contract is: no tracebacks
        if interrupted(exc):  # a cleanup after the signal raised: the command still ends as the signal said
            return stopped(interruption(exc))
        if os.environ.get("SWEEPGATE_DEBUG"):
            raise
        if cannot_write(exc):
            return 1
        print(f"sweepgate: internal error: {type(exc).__name__}: {exc}; "
              "rerun with SWEEPGATE_DEBUG=1 for a traceback and report it", file=sys.stderr)
        return 1


def cannot_write(exc: Exception) -> bool:
    """A full disk, a quota, an I/O error while writing (``>/dev/full``): one line, not an internal error."""
    import errno

    if not isinstance(exc, OSError) or exc.errno not in (errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.EFBIG):
        return False
    where = exc.filename or "standard output"  # no name: a stream, most often stdout
    print(f"{where}: cannot write: {exc.strerror}; free space or write the output elsewhere", file=sys.stderr)
    return True
