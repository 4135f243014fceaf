"""s43c: every line the results commands write to a terminal shows a result's strings as written, not only the
tables' cells (s42k). `results compare` printed its notes with a bare print(): the runs of --baseline-ref that
measured the run's points after it (their run ids, the ref), the run that has no baseline (its id), so a run id
or a ref holding ``\\x1b[2J`` cleared the reader's screen, an OSC 8 sequence made a link and a newline began a
line of its own; `results comment` printed a report's run id so; --markdown wrote them raw onto stdout; and an
argparse refusal echoed a flag's value raw. Now sys.stdout and sys.stderr are ``report.PrintableStream`` while a
results command runs (every control character but a line end and a tab written as an escape,
``errors.printable``; the one console writes beneath it, escaping its own text), each note is one line
(``report.say``: a newline in a run id is ``\\n``), the Markdown escapes control characters where a result's
text enters it, and argparse's messages are escaped where the parser writes them.

The records are stored through the store (``synth``), the commands run for real: piped, on a pseudo-terminal,
under NO_COLOR, and in-process for `results comment` against the fake GitHub."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "utils"))
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "results"))

import synth  # noqa: E402
from test_github_comment import NAME, NUMBER, OWNER, TOKEN, FakeGitHub  # noqa: E402
from test_terminal import on_a_terminal, piped  # noqa: E402

from sweepgate import cli  # noqa: E402
from sweepgate.core.errors import printable  # noqa: E402
from sweepgate.results import record as R  # noqa: E402
from sweepgate.results import render, store  # noqa: E402

CLEAR = "\x1b[2J"
LINK = "\x1b]8;;http://x\x07link\x1b]8;;\x07"
MARKUP = "[bold]markup[/]"
HOSTILE = f"{CLEAR}{LINK}{MARKUP}\nfake"  # a run id, a ref, a config key: any string a job's sidecar states
REF = f"refs/heads/b{HOSTILE}"
KEYS = (f"key{HOSTILE}", "plain-key")
RUN = f"pr{HOSTILE}"
OTHER = "refs/heads/other"  # a ref holding runs of other points only: the run has no baseline there
# a C0 control character but a line end and a tab, or DEL
RAW = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
SGR = re.compile(r"\x1b\[[0-9;]*m")  # rich's own styles on a terminal


def _main_run(run: str) -> str:
    return run if run == "main-0" else f"{run}{HOSTILE}"


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> str:
    """Five runs on REF (all but the first with a hostile id) of KEYS, a PR run RUN, and five runs of another
    config key on OTHER."""
    url = f"sqlite:///{tmp_path_factory.mktemp('hostile') / 'r.db'}"
    with store.open_store(url) as st:
        st.add([dict(r, **{R.RUN_ID: _main_run(r[R.RUN_ID])}) for r in synth.history(keys=KEYS, ref=REF)]
               + synth.pr_run(keys=KEYS, run=RUN)
               + [dict(r, **{R.RUN_ID: f"other-{r[R.RUN_ID]}"}) for r in synth.history(keys=("k",), ref=OTHER)])
    return url


def _plain(text: str) -> str:
    """A terminal's output without rich's styles and the terminal's own line ends."""
    return SGR.sub("", text.replace("\r\n", "\n"))


def _line_with(text: str, start: str) -> str:
    (line,) = [line for line in text.splitlines() if line.startswith(start)]
    return line


LATER = ["results", "compare", "--run", "main-0", "--baseline-ref", REF]
NONE_BEFORE = ["results", "compare", "--run", RUN, "--baseline-ref", OTHER]


@pytest.mark.parametrize("argv, start, named", [
    (LATER, "sweepgate results compare: run main-0 is on", f"main-1{HOSTILE}"),
    (NONE_BEFORE, "sweepgate results compare: no baseline results", RUN),
], ids=["later-runs", "no-baseline"])
def test_compare_s_notes_write_a_run_s_id_and_ref_as_escapes_on_one_line_piped(db, tmp_path, argv, start, named):
    proc = piped(tmp_path, *argv, "--db", db)
    assert proc.returncode == 0, proc.stderr
    for text in (proc.stdout, proc.stderr):
        assert not RAW.search(text), repr(text)
    line = _line_with(proc.stderr, start)  # one line: the newline in a run id is written as \n
    assert printable(named) in line and "every point that measured something is new" in line, repr(line)
    if argv is LATER:
        assert printable(REF) in line, repr(line)


@pytest.mark.parametrize("argv, start", [(LATER, "sweepgate results compare: run main-0 is on"),
                                         (NONE_BEFORE, "sweepgate results compare: no baseline results")],
                         ids=["later-runs", "no-baseline"])
@pytest.mark.parametrize("no_color", [False, True], ids=["colour", "NO_COLOR"])
def test_compare_s_notes_write_control_characters_as_escapes_on_a_terminal(db, tmp_path, argv, start, no_color):
    out = on_a_terminal(tmp_path, *argv, "--db", db, columns=400, **({"NO_COLOR": "1"} if no_color else {}))
    if no_color:  # plain text: no escape code of style either
        assert "\x1b" not in out, repr(out)
    plain = _plain(out)
    assert not RAW.search(plain), repr(plain)
    assert printable(HOSTILE) in _line_with(plain, start), repr(plain)  # its markup as written


@pytest.mark.parametrize("argv", [["results", "show"], ["results", "show", "--ref", REF],
                                  ["results", "compare", "--run", RUN, "--baseline-ref", REF, "--all"]],
                         ids=["show", "show-ref", "compare"])
def test_show_and_compare_tables_write_a_ref_and_run_ids_as_escapes(db, tmp_path, argv):
    proc = piped(tmp_path, *argv, "--db", db)
    assert proc.returncode == 0, proc.stderr
    for text in (proc.stdout, proc.stderr):
        assert not RAW.search(text) and "\x1b" not in text, repr(text)
    assert printable(HOSTILE) in proc.stdout, proc.stdout
    plain = _plain(on_a_terminal(tmp_path, *argv, "--db", db, columns=400))
    assert not RAW.search(plain), repr(plain)
    assert printable(HOSTILE) in plain, repr(plain)


def test_compare_s_markdown_writes_control_characters_as_escapes(db, tmp_path):
    """On stdout and in the --comment-file alike; the line break in a run id is a blank there, as before."""
    body = tmp_path / "c.md"
    proc = piped(tmp_path, "results", "compare", "--run", RUN, "--baseline-ref", REF, "--markdown",
                 "--comment-file", str(body), "--db", db)
    assert proc.returncode == 0, proc.stderr
    written = body.read_text(encoding="utf-8")
    for text in (proc.stdout, proc.stderr, written):
        assert not RAW.search(text), repr(text)
    headline = f"### sweepgate results: run pr\\\\x1b[2J\\\\x1b]8;;http:{render.WORD_JOINER}//x\\\\x07link"
    assert _line_with(proc.stdout, headline) == _line_with(written, headline)  # a backslash as Markdown escapes it


def test_an_argparse_refusal_writes_the_value_s_control_characters_as_escapes(tmp_path):
    proc = piped(tmp_path, "results", "compare", "--run", RUN, "--window", f"x{HOSTILE}")
    assert proc.returncode == 2, proc.stderr
    assert not RAW.search(proc.stderr), repr(proc.stderr)
    assert f"'x{printable(HOSTILE)}' is not a whole number" in proc.stderr, proc.stderr


@pytest.fixture
def gh():
    server = FakeGitHub()
    yield server
    server.close()


def test_comment_s_note_writes_the_report_s_run_id_as_escapes(db, gh, tmp_path, monkeypatch, capsys):
    """A run on a branch names no PR; posted on one, the note names its run as the report's second line does."""
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    body = tmp_path / "comment.md"
    assert cli.main(["results", "compare", "--db", db, "--run", "main-4" + HOSTILE, "--baseline-ref", REF,
                     "--comment-file", str(body)]) == 0
    assert render.about_of(body.read_text(encoding="utf-8")) == (None, "main-4" + HOSTILE)
    capsys.readouterr()
    assert cli.main(["results", "comment", "--body", str(body), "--pr-number", str(NUMBER),
                     "--repository", f"{OWNER}/{NAME}", "--github-api-url", gh.url]) == 0
    err = capsys.readouterr().err
    assert not RAW.search(err), repr(err)
    note = _line_with(err, f"{body}: note:")
    assert f"(run main-4{printable(HOSTILE)}); posted on PR {NUMBER} unchecked" in note, err
    (comment,) = gh.comments.values()
    assert not RAW.search(comment["body"].split("\n", 2)[2]), comment["body"]  # its text, past the about line


def test_any_line_a_results_command_prints_writes_escape_sequences_as_escapes(tmp_path):
    """The net under every line (``report.PrintableStream``): `results ingest --verbose` names a helper output it
    skips with a bare print(); a file name holding an escape sequence no longer reaches the terminal as one."""
    from helpers import job, vllm_output, write_job

    folder = tmp_path / "in"
    write_job(folder, "res", vllm_output(), job())
    name = f"helper{CLEAR}\x1b]8;;x\x07link\x1b]8;;\x07.json"  # a link to x: a file name holds no slash
    helper = folder / name  # no sidecar beside it: skipped, named with --verbose
    helper.write_text("{}", encoding="utf-8")
    proc = piped(tmp_path, "results", "ingest", "--verbose", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(folder))
    assert proc.returncode == 0, proc.stderr
    for text in (proc.stdout, proc.stderr):
        assert not RAW.search(text), repr(text)
    assert f"skipped {folder / printable(name)}" in proc.stdout.splitlines(), proc.stdout


def test_c1_controls_and_bidi_overrides_are_written_as_escapes():
    """Review (s43c's left-alone): `printable` escaped C0 and DEL only, so U+009B (a terminal's CSI, as ESC [
    is) and the bidirectional overrides (a key shown in another order than it is) passed to the terminal and
    the comment; ordinary non-ASCII text still passes as it is."""
    from sweepgate.core.errors import printable

    assert printable("a\x9b2Jb") == "a\\x9b2Jb"
    assert printable("key\u202egpj.exe") == "key\\u202egpj.exe"
    assert printable("x\u2066y\u2069z\u200f") == "x\\u2066y\\u2069z\\u200f"
    assert printable("DeepSeek-R1 · 1k1k → tp=8 é 中文") == "DeepSeek-R1 · 1k1k → tp=8 é 中文"


def test_ingest_verbose_names_a_file_with_a_newline_on_one_line(tmp_path):
    """s43c's left-alone: `results ingest --verbose` wrote a skipped file's name with print(), so a newline in the
    name began a line of its own (the net keeps line ends); it is written by report.say, one line."""
    from helpers import job, vllm_output, write_job

    folder = tmp_path / "in"
    write_job(folder, "res", vllm_output(), job())
    name = "helper\nreplaced everything by nothing.json"
    (folder / name).write_text("{}", encoding="utf-8")
    proc = piped(tmp_path, "results", "ingest", "--verbose", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(folder))
    assert proc.returncode == 0, proc.stderr
    assert f"skipped {folder}/helper\\nreplaced everything by nothing.json" in proc.stdout.splitlines(), proc.stdout
    assert not any(line.startswith("replaced everything") for line in proc.stdout.splitlines()), proc.stdout
