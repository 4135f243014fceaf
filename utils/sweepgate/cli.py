"""Command-line dispatcher.

Each subcommand lives in its own module, imported only when that subcommand
runs, so `sweepgate matrix` never pays for PyGithub or the plan code. A module
named here exposes ``add_arguments(parser)`` and ``run(args) -> int``.
"""

from __future__ import annotations

import sys

# Nothing but sys is imported before main() runs: a Ctrl-C while argparse and the command's
# modules load is then inside main()'s guard, and says "interrupted" instead of a traceback.

# subcommand -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "example": ("sweepgate.commands.example", "run the built-in seed scenario end to end (default)"),
    "matrix": ("sweepgate.commands.matrix", "changelog diff -> benchmark matrix JSON (process_changelog.py)"),
    "validate": ("sweepgate.commands.validate", "gate perf-changelog.yaml changes (validate_perf_changelog.py)"),
    "full-sweep": ("sweepgate.commands.sweep", "expand every config (generate_sweep_configs.py full-sweep)"),
    "test-config": ("sweepgate.commands.sweep", "expand named configs (generate_sweep_configs.py test-config)"),
    "changelog": ("sweepgate.commands.changelog", "add, rebase or canonicalize changelog entries"),
    "ci": ("sweepgate.commands.ci", "CI helpers: decide what an event runs, split and dispatch the sweep, reuse and collect its jobs"),
    "plan": ("sweepgate.commands.plan", "what a PR will run, what it costs, and what it forgot"),
    "rehearse": ("sweepgate.commands.rehearse", "run one matrix row's benchmark script without a GPU"),
    "results": ("sweepgate.commands.results", "store job outputs, show them, compare with main, comment on the PR"),
    "engines": ("sweepgate.commands.engines", "capture an installed engine's flag manifest"),
    "preflight": ("sweepgate.commands.preflight", "check every command a row runs against its engines' flags"),
}


def _formatter(prog: str):
    """argparse's help formatter, at $COLUMNS, else the terminal's width (help and usage lines were 100
    wide on an 80-column terminal), else 100 when not on one."""
    import argparse
    import os

    try:
        width = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        try:
            width = os.get_terminal_size(sys.stdout.fileno()).columns
        except (AttributeError, OSError, ValueError):  # not a terminal, or no stdout
            width = 100
    return _help_formatter_class()(prog, width=max(width - 2, 40))


def _help_formatter_class():
    """argparse's HelpFormatter, wrapping only at spaces: its textwrap broke words at their hyphens, so help
    showed `--pr-` / `number`, `perf-` / `changelog.yaml`, `dp-` / `attn` on two lines (s47h), which read as
    other words and copy as broken flags and paths; a word longer than the line in a description (the installed
    contracts.md's path) stays whole past the line's end, in an option's help it is cut to fit."""
    import argparse

    # textwrap is imported where help is written: argparse makes a formatter for every parser's usage prefix
    # (add_subparsers), so importing it here cost every matrix and gate run its import (about 3M instructions)
    class SpacesOnly(argparse.HelpFormatter):
        def _split_lines(self, text, width):
            # (an option's help stays inside the terminal: a word longer than its column, such as the default
            # store's URL, is cut, as argparse cut it; a description's keeps whole, below)
            import textwrap

            return textwrap.wrap(self._whitespace_matcher.sub(" ", text).strip(), width, break_on_hyphens=False)

        def _fill_text(self, text, width, indent):
            import textwrap

            return textwrap.fill(self._whitespace_matcher.sub(" ", text).strip(), width, initial_indent=indent,
                                 subsequent_indent=indent, break_on_hyphens=False,
                                 break_long_words=False)

    return SpacesOnly


def _version() -> str:
    """``sweepgate 0.1.0 (/path/to/sweepgate)``: a reinstall of the same version number keeps the old
    files (pip sees nothing to do), so say which copy runs; and, installed from a git URL, its commit
    (pip resolves a new ``@rev`` and still keeps the old files)."""
    from pathlib import Path

    from sweepgate import __version__

    from sweepgate.core.fields import short_sha

    commit = _installed_commit()
    built = f" commit {short_sha(commit)}" if commit else ""
    return f"%(prog)s {__version__}{built} ({Path(__file__).resolve().parent})"


def _version_action():
    """argparse's version action, the text made only when asked for (it reads package metadata)."""
    import argparse

    class VersionAction(argparse.Action):
        def __call__(self, parser, namespace, values, option_string=None):
            sys.stdout.write(_version().replace("%(prog)s", parser.prog) + "\n")
            parser.exit()

    return VersionAction


# argparse's refusal of a command or action that is none of its choices: Python 3.11 quotes each choice,
# 3.12.8+ and 3.13.1+ list them as they are (`choose from example, matrix, ...`)
_INVALID_CHOICE = r"invalid choice: '(?P<word>[^']*)' \(choose from (?P<choices>.*)\)$"


def _nearest_choice(message: str) -> str:
    """argparse's "invalid choice" with the choice most likely meant, as a mistyped flag gets one
    (``sweepgate results shw``: ``did you mean 'show'?``); any other message as it is."""
    import difflib
    import re

    if not (found := re.search(_INVALID_CHOICE, message)):
        return message
    choices = [choice.strip("'") for choice in found["choices"].split(", ")]  # quoted or not
    near = difflib.get_close_matches(found["word"], choices, n=1, cutoff=0.6)
    return f"{message} (did you mean {near[0]!r}?)" if near else message


# argparse's words for required arguments left out, which ``Parser.errors`` says with the rest of a command's problems
REQUIRED = "the following arguments are required: "


def _missing_choice(parser, message: str) -> str:
    """argparse's "the following arguments are required: SUBCOMMAND" with the subcommands to choose from
    (``sweepgate results`` alone said only that one was missing, its usage line ``SUBCOMMAND ...``); any
    other message as it is."""
    import argparse

    missing = message.removeprefix(REQUIRED)
    if missing == message:
        return message
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and (action.metavar or action.dest) in missing.split(", "):
            return f"{message} (choose from {', '.join(action.choices)}; `{parser.prog} --help` says what each does)"
    return message


def _parser_class():
    """argparse's parser, but what --help and --version print reaches stdout or is said: argparse
    drops a failed write of a message, so `--help >/dev/full` printed nothing and exited 0."""
    import argparse

    class Parser(argparse.ArgumentParser):
        def _print_message(self, message, file=None):
            if message:  # a refused value is the user's text (a run id a workflow passed): no escape sequence
                from sweepgate.core.errors import printable

                (file or sys.stderr).write(printable(message, lines=True))

        def exit(self, status=0, message=None):
            if not status:
                sys.stdout.flush()  # a full stdout raises here, inside parse_known_args (``_main``)
            super().exit(status, message)

        def parse_known_args(self, args=None, namespace=None):
            self._given = list(sys.argv[1:] if args is None else args)  # a subcommand's parser: its own words
            return _parse_deferring(self, super().parse_known_args, args, namespace)

        def format_usage(self):
            return _as_declared(self, super().format_usage)

        def format_help(self):
            return _as_declared(self, super().format_help)

        def error(self, message):
            """argparse's usage line and error: ``errors`` of the one message."""
            self.errors([message])

        def errors(self, messages):
            _say_errors(self, messages)
            self.exit(2)

    return Parser


def _parse_deferring(parser, parse, args, namespace):
    """argparse's ``parse(args, namespace)``, but a required flag left out is not refused there, alone: it is kept
    in the namespace's ``_missing`` (``REQUIRED``), said with every other problem of the command's flags
    (``argument_problems``), as a flag that is required only with another one is."""
    import argparse

    deferred = [a for a in parser._actions if a.required and not isinstance(a, argparse._SubParsersAction)]
    parser._deferred = deferred
    for action in deferred:
        action.required = False
    try:
        namespace, extra = parse(args, namespace)
    finally:
        for action in deferred:
            action.required = True
        parser._deferred = []
    missing = [argparse._get_action_name(a) for a in deferred if getattr(namespace, a.dest, None) is a.default]
    if missing:  # a subcommand's: copied into its command's namespace
        namespace._missing = [*getattr(namespace, "_missing", []), *missing]
    return namespace, extra


def _as_declared(parser, format_text):
    """``format_text()`` with the required flags shown required (`--help` is answered while they are not, in
    ``_parse_deferring``)."""
    deferred = getattr(parser, "_deferred", [])
    for action in deferred:
        action.required = True
    try:
        return format_text()
    finally:
        for action in deferred:
            action.required = False


def _say_errors(parser, messages):
    """Every problem of a command's flags at once: argparse's usage line, then one ``PROG: error: ...`` line for
    each, and under GitHub Actions an annotation for each too, as every other problem has (CONTRACTS, Problems): a
    workflow's bad flag was in the log only. A required flag missing because it was mistyped (``--head-rf``) names
    the typo first: argparse says only that the flag meant is missing, and never reaches the unknown one."""
    import argparse
    import os

    from sweepgate.core.errors import printable

    if getattr(parser, "_deferred", None) and not any(m.startswith(REQUIRED) for m in messages):
        # a value refused while the words are read (argparse stops there): the required flags not among them are
        # said too, not once the value is put right
        given = _flags_given(getattr(parser, "_given", []))
        if left := [argparse._get_action_name(a) for a in parser._deferred if a.option_strings and not any(
                flag in a.option_strings or _abbreviates(parser, flag, a) for flag in given)]:
            messages = [*messages, REQUIRED + ", ".join(left)]
    said = []
    for message in messages:
        if message.startswith(REQUIRED) and (
                unknown := [w for w in _flags_given(getattr(parser, "_given", [])) if not _known_flag(parser, w)]):
            message = f"{unrecognized(parser, unknown)}; {message}"
        said.append(printable(_missing_choice(parser, _nearest_choice(message))))  # one line, whatever it held
    parser.print_usage(sys.stderr)
    for message in said:
        parser._print_message(f"{parser.prog}: error: {message}\n", sys.stderr)
    if os.environ.get("GITHUB_ACTIONS") == "true":
        from sweepgate.core.errors import Diagnostic
        from sweepgate.core.runnerlog import write_command

        for message in said:
            write_command(Diagnostic("", rule="usage", message=f"{parser.prog}: {message}").annotation(), sys.stderr)


def _flags_given(words: list[str]) -> list[str]:
    """The long flags among a command's words (``--name=value`` by its name), up to a ``--``."""
    flags = []
    for word in words:
        if word == "--":
            break
        if word.startswith("--"):
            flags.append(word.split("=", 1)[0])
    return flags


def _abbreviates(parser, flag: str, action) -> bool:
    """Whether ``flag`` is the abbreviation argparse takes for one of ``action``'s long flags."""
    names = [name for name in parser._option_string_actions if name.startswith("--") and name.startswith(flag)]
    return len(names) == 1 and names[0] in action.option_strings


def _known_flag(parser, flag: str) -> bool:
    """Whether ``parser`` takes ``flag``, whole or as the one flag it abbreviates (argparse's allow_abbrev)."""
    names = [name for name in parser._option_string_actions if name.startswith("--")]
    return flag in names or len([name for name in names if name.startswith(flag)]) == 1


def unrecognized(parser, words: list[str]) -> str:
    """argparse's ``unrecognized arguments: ...``, with the flag of ``parser`` a lone mistyped one
    was most likely meant to be (``--head-rf``: ``did you mean --head-ref?``)."""
    import difflib

    said = f"unrecognized arguments: {' '.join(words)}"
    flags = [w for w in words if w.startswith("--")]
    if len(flags) == 1 and (other := _sibling_taking(parser, flags[0].split("=", 1)[0])):
        (prefix, name), flag = parser.prog.rsplit(" ", 1), flags[0].split("=", 1)[0]
        return said + f" (did you mean `{prefix} {other} {flag}`? {flag} is {other}'s flag, not {name}'s)"
    if len(flags) == 1:
        names = [name for name in parser._option_string_actions if name.startswith("--")]
        near = difflib.get_close_matches(flags[0].split("=", 1)[0], names, n=1, cutoff=0.6)
        if near:
            said += f" (did you mean {near[0]}?)"
    return said


def _sibling_taking(parser, flag: str) -> str | None:
    """The command of ``parser``'s module beside its own (full-sweep and test-config share one) that takes
    ``flag`` as it is written: the other command meant, not a typo of one of this one's flags
    (`full-sweep --config-keys` is test-config's, not a misspelt --config-files)."""
    import argparse

    module, words = parser.get_default("_module"), parser.prog.rsplit(" ", 1)
    if module is None or len(words) < 2 or words[1] not in COMMANDS:  # a top-level command's parser only
        return None
    for other, (path, _) in COMMANDS.items():
        if other == words[1] or path != module.__name__:
            continue
        probe = argparse.ArgumentParser(add_help=False)
        _add_arguments(module, probe, other)
        if flag in probe._option_string_actions:
            return other
    return None


def _add_arguments(module, parser, name: str) -> None:
    """Declare command ``name``'s flags on ``parser`` (the sweep module declares both of its commands')."""
    module.add_arguments(parser) if name not in ("full-sweep", "test-config") else module.add_arguments(parser, name)


def _installed_commit() -> str | None:
    """The commit pip recorded for a git-URL install (PEP 610 direct_url.json), else None."""
    import json
    from importlib import metadata
    from pathlib import Path

    try:
        dist = metadata.distribution("sweepgate")
        if Path(dist.locate_file("sweepgate/cli.py")).resolve() != Path(__file__).resolve():
            return None  # another install's record: this copy runs from a checkout or another venv
        info = json.loads(dist.read_text("direct_url.json") or "null")
    except (metadata.PackageNotFoundError, ValueError, OSError):
        return None
    vcs = info.get("vcs_info") if isinstance(info, dict) else None
    commit = vcs.get("commit_id") if isinstance(vcs, dict) else None
    return commit if isinstance(commit, str) else None


def contracts_doc() -> str:
    """Where the contracts document is: the copy a wheel carries (sweepgate/docs/, put there by
    setup.py), else the checkout's docs/ (an editable install)."""
    import os

    package = os.path.dirname(os.path.abspath(__file__))
    for candidate in (os.path.join(package, "docs", "contracts.md"),
                      os.path.join(os.path.dirname(os.path.dirname(package)), "docs", "contracts.md")):
        if os.path.isfile(candidate):
            return candidate
    return "docs/contracts.md"


def build_parser(argv: list[str], only: tuple[str, ...] | None = None, prog: str = "sweepgate"
                 ) -> argparse.ArgumentParser:
    """The parser of every command, or of ``only`` these (a reference entry point's own)."""
    import argparse
    import importlib

    parser = _parser_class()(
        formatter_class=_formatter,
        prog=prog,
        description=f"Commands: {', '.join(only)} (sweepgate's, under the reference's name)." if only else
        "Gate the perf changelog, expand the benchmark matrix, plan and send GPU sweeps, and report "
        "their results. "
        "With no command, runs the built-in example. Input and output formats: "
        f"{contracts_doc()} (cited as CONTRACTS §N).")
    parser.add_argument("--version", action=_version_action(), nargs=0,
                        help="print the installed version and where it is installed from, then exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    wanted = argv[0] if argv and not argv[0].startswith("-") else None
    for name, (module, help_text) in COMMANDS.items():
        if only and name not in only:
            continue
        # A reference entry point of one command is that command: its usage line names the script.
        named = {"prog": prog} if only == (name,) else {}
        p = sub.add_parser(name, help=help_text, description=help_text, formatter_class=_formatter, **named)
        # Only the chosen subcommand's module is imported.
        if name == wanted:
            mod = importlib.import_module(module)
            _add_arguments(mod, p, name)
            p.set_defaults(_module=mod, _parser=p)  # _parser.error(): exit 2 for flag combinations
            _describe_subcommands(p)
    return parser


def _describe_subcommands(parser: argparse.ArgumentParser) -> None:
    """`sweepgate ci split --help` opens with what it does (its one-line help), as `sweepgate plan
    --help` does, at the same width: argparse gives a subcommand neither unless told."""
    import argparse

    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            said = {choice.dest: choice.help for choice in action._choices_actions}
            for name, sub in action.choices.items():
                sub.description = sub.description or said.get(name)
                sub.formatter_class = _formatter
                sub.set_defaults(_parser=sub)  # a refusal after parsing shows `ci reuse`'s usage, not `ci`'s
                _describe_subcommands(sub)


def _deepest(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.ArgumentParser:
    """The parser of the (sub)command ``argv`` names (``results compare`` -> compare's)."""
    import argparse

    for word in argv:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs or word not in subs[0].choices:
            if not word.startswith("-") and subs:
                break
            continue
        parser = subs[0].choices[word]
    return parser


def main(argv: list[str] | None = None, only: tuple[str, ...] | None = None, prog: str = "sweepgate") -> int:
    """Run the command argv names; ``only``: the commands a reference entry point has (``prog``), one
    of which must be named (no example by default)."""
    if sys.stdout is None:  # started with stdout closed (>&-): every line it printed would be lost
        print(f"{prog}: standard output is closed; open it (>/dev/null to discard the output)", file=sys.stderr)
        return 1
    if hasattr(sys.stdout, "reconfigure") and (sys.stdout.encoding or "").replace("-", "").lower() != "utf8":
        sys.stdout.reconfigure(errors="backslashreplace")  # an ASCII terminal: "\xb1", not a crash
    sys.stdout = ReaderMayLeave.around(sys.stdout)  # `| head -1` ends the output, not the command
    try:
        import os  # loaded with the interpreter: free

        if os.environ.get("GITHUB_ACTIONS") != "true":
            return _main(argv, only, prog)
        from sweepgate.core.runnerlog import command_safe_streams  # threading and unicodedata: only in Actions

        with command_safe_streams():  # no PR text printed becomes a workflow command
            return _main(argv, only, prog)
    except KeyboardInterrupt as exc:  # Ctrl-C while the command's modules load or its flags are read, or a
        from sweepgate.core.errors import stopped  # SIGTERM/SIGHUP as run_guarded sets or restores its handler

        return stopped(exc, prog)
    except Exception as exc:
        from sweepgate.core.errors import interruption, stopped

        if interruption(exc) is None:
            raise
        return stopped(interruption(exc), prog)
    finally:
        if isinstance(sys.stdout, ReaderMayLeave):
            sys.stdout = sys.stdout.wrapped
        from sweepgate import release_stop_signals

        release_stop_signals()


class ReaderMayLeave:
    """sys.stdout while main() runs: a reader who leaves (`sweepgate results show | head -1`, a pager quit:
    a write fails with EPIPE) ends the output, never the command. What is written after that goes to
    /dev/null (file descriptor 1 becomes it), and the command does the rest of its work as it would have:
    a command that only prints ends 0, one with files to write, a comment to post or a check to finish
    does them and keeps its exit code (`plan --fail-on-warning | head -1` is still 3). Nothing is said:
    no traceback, no "Exception ignored" at the interpreter's exit (its last flush goes to /dev/null).
    ``reader_left`` is True from then on (``core.report.reader_left``: what was printed may be unread)."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        self.reader_left = False

    @classmethod
    def around(cls, stream):
        """``stream`` wrapped, when it is a file descriptor's (a stream without one, a test's capture, never
        meets a reader who left) and not wrapped already."""
        if isinstance(stream, cls):
            return stream
        try:
            stream.fileno()
        except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is both of the last two
            return stream
        return cls(stream)

    def write(self, text: str) -> int:
        try:
            return self.wrapped.write(text)
        except BrokenPipeError:
            self._reader_left()
            return len(text)

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        try:
            self.wrapped.flush()
        except BrokenPipeError:
            self._reader_left()

    def _reader_left(self) -> None:
        import os

        self.reader_left = True
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, self.wrapped.fileno())
        finally:
            os.close(null)
        self.wrapped.flush()  # what its buffer still held goes there too

    def __getattr__(self, name):  # fileno, isatty, encoding, buffer, ...: the stream's own
        return getattr(self.wrapped, name)


def _main(argv: list[str] | None, only: tuple[str, ...] | None, prog: str) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    defaulted = not only and (not argv or (argv[0].startswith("-") and argv[0] not in ("-h", "--help", "--version")))
    if defaulted:
        argv = ["example", *argv]  # `sweepgate --no-rehearse` is `sweepgate example --no-rehearse`
    parser = build_parser(argv, only, prog)
    try:
        args, extra = parser.parse_known_args(argv)
    except BrokenPipeError:  # `--help 2>&1 | true`: stderr's reader left (stdout's is ReaderMayLeave's)
        return 1
    except OSError as exc:  # --help or --version to a stdout that cannot take it (>/dev/full)
        from sweepgate.core.errors import cannot_write

        if not cannot_write(exc):
            raise
        return 1
    if extra and defaulted:  # `sweepgate --nope`: no command was named, so not example's fault alone
        parser.error(f"unrecognized arguments: {' '.join(extra)} (with no command, {prog} runs `example`; "
                     f"`{prog} --help` lists the commands)")
    missing = getattr(args, "_missing", None)
    if extra:  # said by the (sub)command's own parser, with its usage line, not the top one's
        deepest = _deepest(parser, argv)
        # a flag left out beside an unknown one: said as one (``Parser.errors``: the typo, then what is missing);
        # no other check of the flags, which the typo may have been meant to pass
        deepest.error(REQUIRED + ", ".join(missing) if missing else unrecognized(deepest, extra))
    if not getattr(args, "_module", None):
        if only:
            parser.error(f"name a command: {' or '.join(only)}")
        parser.print_help()
        return 2
    from sweepgate.core.errors import run_guarded

    return run_guarded(lambda: _run(args))


def _run(args) -> int:
    from sweepgate.core.repopaths import check_repo_paths

    argument_problems(args)  # argument syntax (exit 2), all of it at once, before anything is read
    check_repo_paths(args)  # repository-data paths outside the repository: one line, up front
    return args._module.run(args)


def argument_problems(args) -> None:
    """Every problem of the command's flags, said at once (``Parser.errors``, exit 2): the required flags left out
    (``_missing``) and what the (sub)command's ``argument_problems(args)`` finds (a flag that needs another, flags
    that cannot go together), so that a second one is never said only once the first is put right. A command's
    module declares its check as ``argument_problems``; a subcommand's parser as its ``_argument_problems`` default."""
    problems = [REQUIRED + ", ".join(args._missing)] if getattr(args, "_missing", None) else []
    check = getattr(args, "_argument_problems", None) or getattr(args._module, "argument_problems", None)
    problems += check(args) if check else []
    if problems:
        args._parser.errors(problems)


if __name__ == "__main__":
    raise SystemExit(main())
