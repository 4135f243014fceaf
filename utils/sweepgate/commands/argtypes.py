"""Flag value types for argparse: a value out of its range is argument syntax, like a value that
is no number at all, so it exits 2 with the command's usage line (README, "Exit codes")."""

from __future__ import annotations

import argparse
import math
import os
import re


def int_between(low: int, high: int | None = None, why: str = ""):
    """An integer from ``low`` to ``high`` (no upper bound when None); ``why``: the reason for the bounds,
    said after them (``pass a number from 2 to 1000 (an interval needs 2 baseline runs)``)."""
    span = (f"from {low} to {high}" if high is not None else f"{low} or more") + (f" ({why})" if why else "")

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text}' is not a whole number; pass a number {span}") from None
        if value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"{value} is out of range; pass a number {span}")
        return value

    return parse


def utf8_text(text: str) -> str:
    """Text that was UTF-8 on the command line (Python keeps undecodable bytes as lone surrogates)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise argparse.ArgumentTypeError(f"byte {exc.start + 1} is not UTF-8 text; retype the value "
                                         "(or set a UTF-8 locale)") from None
    return text


def description(text: str) -> str:
    """A changelog entry's description line: UTF-8 text that is not blank."""
    from sweepgate.core.changelog_edit import DESCRIPTION_FIX

    if not utf8_text(text).strip():
        raise argparse.ArgumentTypeError(f"{'empty' if not text else 'blank'} value; {DESCRIPTION_FIX}")
    return text


def not_empty(text: str) -> str:
    """A value that is not empty: `--run "$RUN_ID"` with the variable unset must not read as no filter."""
    if not text.strip():
        raise argparse.ArgumentTypeError("empty value (is a variable in the command unset?)")
    return text


def add_db_argument(parser) -> None:
    """``--db URL``, shared by every command that opens the results store (`results ...`, `ci reuse`)."""
    parser.add_argument("--db", metavar="URL", type=not_empty,  # `--db "$DB"` unset: not the default store
                        help="database URL (default: $SWEEPGATE_DB, else sqlite:///<repo>/.sweepgate/results.db; "
                             "postgresql+psycopg://... for PostgreSQL)")


def add_changelog_file_argument(parser, what: str = "the changelog") -> None:
    """``--changelog-file`` (default: the repository's perf-changelog.yaml); ``what`` says what it is to the command."""
    from sweepgate.core.fields import CHANGELOG_FILE

    parser.add_argument("--changelog-file", type=not_empty, default=CHANGELOG_FILE,
                        help=f"{what}, from the current folder or the repository root "
                             "(default: %(default)s, from the root)")


def add_config_arguments(parser, read_at: str = "") -> None:
    """``--config-files`` and ``--runner-config``, the master configs and runners file a command reads
    (``read_at``: where the defaults are read, as `` at HEAD``)."""
    from sweepgate.core.fields import CONFIG_DIR, MASTER_GLOB, RUNNERS_FILE

    parser.add_argument("--config-files", type=not_empty, nargs="+", default=None,
                        help=f"master configs (default: {CONFIG_DIR}/{MASTER_GLOB}{read_at})")
    parser.add_argument("--runner-config", type=not_empty, default=None, help=f"runners file (default: {RUNNERS_FILE})")


def _no_dash(text: str, stream: str, why: str, fix: str) -> str:
    """``text``, not empty and not '-', which a Unix user types for standard input or output but which
    here would be a path: ``why`` it is none here, ``fix`` what to pass instead."""
    from sweepgate.core.outpaths import no_standard_stream

    text = not_empty(text)
    if text.strip() == "-":
        raise argparse.ArgumentTypeError(f"{no_standard_stream(stream, why)}; {fix}")
    return text


def output_file(text: str) -> str:
    """A file a command writes (``--jsonl``, ``--comment-file``, ``--step-summary``, ``--out``,
    ``--job-context``; the ``ci`` commands' ``--output`` takes '-' for standard output): not '-', which
    would name a file called '-' in the current folder, the records or report never reaching the pipe (nu30)."""
    from sweepgate.core.outpaths import NAMES_A_FILE

    return _no_dash(text, "output", NAMES_A_FILE, "pass a file name (./- for a file called '-')")


def output_dir(text: str) -> str:
    """A folder a command draws its charts into (``--plots``, created when missing): not '-', which
    made a folder called '-' in the current folder."""
    return _no_dash(text, "output", "charts go into a folder, and it would name a folder called '-'",
                    "pass a folder (./- for one called '-')")


def input_path(text: str) -> str:
    """A result file or folder to read (``results ingest PATH``): not '-', as standard input is not read
    (a result is told apart by its file's name, and its job by the .job.json beside it)."""
    return _no_dash(text, "input", "results are read from their files, whose names (and .job.json beside them) "
                    "tell them apart", "pass the output files or the folders that hold them (./- for a file called '-')")


class Passed(argparse.Action):
    """Store the value, as the default action does, and note that the flag was passed (its dest in the
    namespace's ``passed``): a default read from the environment is then told apart from the flag."""

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, values)
        namespace.passed = {*getattr(namespace, "passed", ()), self.dest}


def environment_default(args, dest: str, variable: str) -> str | None:
    """Give a ``Passed`` flag left out its environment variable's value (blank counts as unset), and
    return how a refusal names it (``$VARIABLE``; None when the flag was passed). Read after parsing, not
    as argparse's ``default``: argparse checks a default with the flag's type and blames the flag
    (``argument --step-summary: ...``) for a value the user never typed."""
    if dest in getattr(args, "passed", ()):
        return None
    setattr(args, dest, os.environ.get(variable, "").strip() or None)
    return f"${variable}"


def flag_or_variable(args, flag: str, value: str | None, variable: str, fix: str) -> str:
    """A flag a GitHub Actions job's environment fills in: ``value`` (the flag's), else $``variable``; neither is
    a missing argument (``variable_missing``), said as argparse says one (exit 2). A command checks it in its
    ``argument_problems`` too, so that it is said with the command's other missing flags."""
    if problem := variable_missing(flag, value, variable, fix):
        usage_error(args, problem)
    return value or os.environ.get(variable) or ""


def variable_missing(flag: str, value: str | None, variable: str, fix: str) -> str | None:
    """``argument FLAG: required outside GitHub Actions ($VARIABLE is not set); FIX`` when neither ``value`` (the
    flag's) nor $``variable`` is given, else None."""
    if value or os.environ.get(variable):
        return None
    return combination(flag, f"required outside GitHub Actions (${variable} is not set)", fix)


def full_ref(text: str) -> str:
    """A git ref as GitHub names it (refs/heads/main, refs/pull/42/merge): a result stored under
    "main" would be no run of refs/heads/main, the baseline compare reads."""
    from sweepgate.core.jobfile import full_ref_for, is_full_ref, ref_name_problem, ref_without_spaces

    text = not_empty(text)
    if problem := ref_name_problem(text):
        raise argparse.ArgumentTypeError(f"{text!r} is no git ref name ({problem}); pass "
                                         f"{ref_without_spaces(text) or 'the ref as git names it'} "
                                         "(refs/pull/N/head for a PR, as the workflow stores it)")
    if not is_full_ref(text):
        raise argparse.ArgumentTypeError(f"'{text}' is not a full ref; pass {full_ref_for(text)} "
                                         "(refs/pull/N/head for a PR, as the workflow stores it)")
    return text


def commit(text: str) -> str:
    """A commit's full SHA (what a job checks out and its sidecar records): a branch name, an
    abbreviation or a typo would name no commit in the results."""
    from sweepgate.core.fields import COMMIT_SHA, COMMIT_SHA_SAID, NULL_SHA_SAID, null_sha

    text = not_empty(text).strip()
    if not COMMIT_SHA.fullmatch(text.lower()):
        raise argparse.ArgumentTypeError(f"'{text}' is not a full commit SHA; pass the commit's "
                                         f"{COMMIT_SHA_SAID} (git rev-parse HEAD)")
    if null_sha(text):  # GitHub's `before` of a branch's first push: the report would name it
        raise argparse.ArgumentTypeError(f"'{text}' {NULL_SHA_SAID}; pass the commit's "
                                         f"{COMMIT_SHA_SAID} (git rev-parse HEAD)")
    return text.lower()


def resolve_refs(git, args, flags: tuple[str, ...] = ("--base-ref", "--head-ref")) -> None:
    """Look up the revisions ``flags`` pass (those given) before the command's work, so a ref that is
    no commit here is said naming the flag to fix (``pass --head-ref with a branch, ...``); the core's
    own look-ups of them later are answered from ``git``'s cache. All in one git call, as the matrix
    step looks up its two refs (each apart only to name the one that is no commit)."""
    from sweepgate.core.errors import SweepgateError

    given = [(flag, ref) for flag in flags
             if (ref := getattr(args, flag.lstrip("-").replace("-", "_"), None)) is not None]
    try:
        git.resolve_all(*(ref for _, ref in given))
    except SweepgateError:
        for flag, ref in given:  # those found are cached: only the one that is no commit is asked again
            git.resolve(ref, flag)
        raise


def config_key(text: str) -> str:
    """A config key as the gate takes one (``keypatterns.config_key_problem``: the master-config schema's pattern)."""
    from sweepgate.core.fields import CONFIG_DIR, MASTER_GLOB
    from sweepgate.core.keypatterns import config_key_problem

    if problem := config_key_problem(not_empty(text)):  # empty: said so, as an unset variable makes it
        raise argparse.ArgumentTypeError(f"{problem}; pass the key of a config in {CONFIG_DIR}/{MASTER_GLOB}")
    return text


def field_value(text: str) -> str:
    """FIELD=VALUE, a row field and the value it must have."""
    name, sep, _ = text.partition("=")
    if not sep or not name.strip():
        raise argparse.ArgumentTypeError(f"'{text}' is not FIELD=VALUE (e.g. tp=4)")
    return text


def digits(text: str) -> str:
    """A positive whole number kept as text (a GitHub run id or attempt)."""
    return str(int_between(1)(text))


def number_above(low: float, *, inclusive: bool = False):
    """A finite number above ``low`` (or equal to it when ``inclusive``)."""
    span = f"{'from' if inclusive else 'above'} {low:g}"

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text}' is not a number; pass a number {span}") from None
        if not math.isfinite(value) or value < low or (value == low and not inclusive):
            raise argparse.ArgumentTypeError(f"{text} is out of range; pass a number {span}")
        return value

    return parse


def relative(text: str) -> float:
    """A relative change as a fraction (0.05); a percentage (``5%``) is named as one, with its fraction.
    The range is the command's to check (results compare: 0 to below 1)."""
    try:
        return float(text)
    except ValueError:
        pass
    from sweepgate.core.metrics import fraction_example

    number = text.strip()
    try:
        percent = float(number[:-1]) if number.endswith("%") else None  # float() takes "12.5 " too
    except ValueError:
        percent = None
    what = "is not a number; pass a fraction" if percent is None else "is a percentage; pass the fraction"
    raise argparse.ArgumentTypeError(f"'{text}' {what}, e.g. {fraction_example(5 if percent is None else percent)}")


def pull_request(text: str) -> int:
    """A pull-request number (``#`` allowed in front)."""
    text = text.strip().lstrip("#")
    if not re.fullmatch(r"[1-9][0-9]*", text):
        raise argparse.ArgumentTypeError(f"'{text}' is not a pull-request number; pass its number (42 or #42)")
    return int(text)


def pull_request_or_none(text: str) -> int | None:
    """A pull-request number, or None for an empty value (a push: e.g.
    `${{ github.event.pull_request.number }}` outside a pull request)."""
    return pull_request(text) if text.strip().lstrip("#") else None


def combination_error(args, flag: str, problem: str, fix: str) -> None:
    """``combination``, said after the usage line, exit 2 (and ``::error title=usage::`` under GitHub Actions,
    as ``usage_error``): for a check made once the command runs. Those that need only the flags are a command's
    ``argument_problems``, said together (cli.argument_problems)."""
    usage_error(args, combination(flag, problem, fix))


def combination(flag: str, problem: str, fix: str) -> str:
    """Flags that cannot go together (or one that needs another), in the shape argparse gives a refused value and
    its own mutually exclusive groups: ``argument FLAG: PROBLEM; FIX``."""
    return f"argument {flag}: {problem}; {fix}"


def usage_error(args, message: str) -> None:
    """A flag combination that cannot work: argparse's usage line and exit 2 (the command's parser,
    which cli.build_parser puts in ``args._parser``); without one (a caller's own namespace) a
    ``SweepgateError``, exit 1, titled ``flags`` under GitHub Actions: ``usage`` is exit 2's."""
    usage_errors(args, [message])


def usage_errors(args, messages: list[str]) -> None:
    """``usage_error`` of each of ``messages``, all said at once, one line each."""
    parser = getattr(args, "_parser", None)
    if parser is None:
        from sweepgate.core.errors import Diagnostic, SweepgateError

        raise SweepgateError([Diagnostic("sweepgate", 0, 0, "flags", message) for message in messages])
    parser.errors(messages)
