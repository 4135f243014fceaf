"""A Ctrl-C while `sweepgate` starts is "interrupted", exit 130, never a traceback (cli23).

Real processes and real SIGINTs. The entry script is the one pip writes for the console script
(`from sweepgate.cli import main; sys.exit(main())`). What Python does before sweepgate's first
line (its own startup, site, the entry script's `import re`, finding the package) is Python's: a
SIGINT before Python has installed its handler ends the process by the signal (-2, nothing said),
and one after it, in Python's code, prints Python's traceback. From the package's first line on
(``sweepgate/__init__.py``), an interrupt anywhere before main()'s own guard is said in one line.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ENTRY = "import re\nimport sys\nfrom sweepgate.cli import main\nif __name__ == '__main__':\n    sys.exit(main())\n"
# Holds the import of one module (%r: its name): says so, then waits for the SIGINT.
HOLD = """\
import sys, time
class _Hold:
    def find_spec(self, name, path=None, target=None):
        if name == %r:
            sys.stderr.write("holding\\n"); sys.stderr.flush(); time.sleep(30)
        return None
sys.meta_path.insert(0, _Hold())
"""


def entry(tmp_path: Path) -> Path:
    script = tmp_path / "bin" / "sweepgate"
    script.parent.mkdir(exist_ok=True)
    script.write_text(ENTRY)
    return script


def env(*paths: Path) -> dict:
    return {**os.environ, "PYTHONPATH": os.pathsep.join(str(p) for p in (*paths, ROOT / "utils"))}


# Each moment a module loads after our first line (`-X importtime` of `sweepgate --help`): the entry
# script's import of sweepgate.cli (the package's hook), then argparse and, for the help text, textwrap
# (main()'s guard). Held there, never at a moment picked by a timer: a SIGINT sent after a sleep lands
# in Python's own startup or shutdown as often as in ours (a traceback of its zipimport, -2 from its
# finalization), and such a test fails on no fault of sweepgate's.
@pytest.mark.parametrize("module", ["sweepgate.cli", "argparse", "textwrap"])
def test_an_interrupt_while_the_command_s_modules_load_is_one_line_and_130(tmp_path, module):
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "sitecustomize.py").write_text(HOLD % module)
    proc = subprocess.Popen([sys.executable, str(entry(tmp_path)), "--help"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, env=env(tmp_path / "site"))
    assert proc.stderr.readline() == "holding\n"
    proc.send_signal(signal.SIGINT)
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == 130 and err == "sweepgate: interrupted\n", err


@pytest.mark.parametrize(("signum", "said", "code"),
                         [(15, "terminated", 143), (1, "hung up", 129), (None, "interrupted", 130)])
def test_a_stop_that_reaches_main_s_own_guard_is_said_as_its_signal(monkeypatch, capsys, signum, said, code):
    """polish25: main()'s guard for a stop outside the command body printed "interrupted" and 130 by
    hand, so a SIGTERM reaching it (sweepgate's handler is in place from run_guarded's first line, before
    its own guard, and until its last: a signal in that window leaves it) read as a Ctrl-C. It says
    what stopped it and exits with that signal's code, as every other guard does (errors.stopped)."""
    from sweepgate import cli
    from sweepgate.core import errors

    def stop(*_args, **_kwargs):
        raise KeyboardInterrupt if signum is None else errors.Terminated(signum)

    monkeypatch.setattr(cli, "build_parser", stop)
    assert cli.main(["matrix", "--help"]) == code
    assert capsys.readouterr().err == f"sweepgate: {said}\n"


@pytest.mark.parametrize("module", ["sweepgate.cli", "argparse"])
@pytest.mark.parametrize(("signum", "said", "code"), [(signal.SIGTERM, "terminated", 143),
                                                      (signal.SIGHUP, "hung up", 129)])
def test_a_sigterm_or_sighup_while_the_command_s_modules_load_is_one_line_and_its_code(
        tmp_path, module, signum, said, code):
    """A SIGTERM (a cancelled CI job) or SIGHUP while the entry script imports sweepgate.cli, or while
    main() loads argparse, ended the process by the signal with nothing said: only Ctrl-C had an early
    hook. From the package's first line, both say what stopped the command and exit with its code, as
    they do once the command runs."""
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "sitecustomize.py").write_text(HOLD % module)
    proc = subprocess.Popen([sys.executable, str(entry(tmp_path)), "--help"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, env=env(tmp_path / "site"))
    assert proc.stderr.readline() == "holding\n"
    proc.send_signal(signum)
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == code and err == f"sweepgate: {said}\n", err


def test_after_main_returns_sigterm_has_its_default_action_again(tmp_path):
    """The early SIGTERM handler is the command's, not the interpreter shutdown's: once main() has
    returned, SIGTERM and SIGHUP end the process by the signal again, as a finished command should."""
    script = tmp_path / "bin" / "sweepgate"
    script.parent.mkdir()
    script.write_text("import signal, sys\nfrom sweepgate.cli import main\n"
                      "during = signal.getsignal(signal.SIGTERM)\n"
                      "try:\n    code = main(['--version'])\nexcept SystemExit as exc:\n    code = exc.code\n"
                      "print(during is not signal.SIG_DFL, signal.getsignal(signal.SIGTERM) is signal.SIG_DFL,"
                      " signal.getsignal(signal.SIGHUP) is signal.SIG_DFL)\n"
                      "sys.exit(code)\n")
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env())
    assert proc.returncode == 0 and proc.stdout.splitlines()[-1] == "True True True", proc


def test_a_sweepgate_program_s_early_handlers_load_no_module(tmp_path):
    """review26: setting the early SIGTERM/SIGHUP handlers imported `signal` and `sweepgate.core.errors`
    (and with it collections.abc) from the package's first line, three modules more for every `--help` and
    usage error of a cold start-up (`process_changelog.py --help`). As a sweepgate program, whose package
    sets them, `from sweepgate.cli import main` loads what it did before they were set, and main()'s
    release of them loads nothing either; both signals are still held while it loads."""
    script = tmp_path / "bin" / "sweepgate"
    script.parent.mkdir()
    script.write_text("import sys\nbefore = set(sys.modules)\nfrom sweepgate.cli import main\n"
                      "loaded = set(sys.modules) - before\n"
                      "import signal\nheld = [signal.getsignal(s) not in (signal.SIG_DFL, None)"
                      " for s in (signal.SIGTERM, signal.SIGHUP)]\n"
                      "from sweepgate import release_stop_signals\nbefore = set(sys.modules)\nrelease_stop_signals()\n"
                      "print(' '.join(sorted(loaded | (set(sys.modules) - before))), held)\n")
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env())
    loaded, held = proc.stdout.rsplit(" [", 1) if proc.returncode == 0 else ("", "")
    assert proc.returncode == 0 and held.strip() == "True, True]", proc
    assert set(loaded.split()) <= {"sweepgate", "sweepgate.cli", "__future__"}, loaded


def test_the_early_handlers_cover_the_signals_run_guarded_turns_into_terminated():
    """The package names the stop signals itself (setting them loads no module): the same ones as
    core.errors, whose handler run_guarded sets once the command runs."""
    import sweepgate
    from sweepgate.core import errors

    assert sweepgate._STOP_SIGNALS == errors.STOP_SIGNALS


def test_main_run_in_a_worker_thread_of_a_sweepgate_program_returns_its_code(tmp_path):
    """review26: main()'s release of the early handlers set them back from whatever thread it ran in, and
    only the main thread may: `main(['--version'])` in a worker thread of a sweepgate program raised
    "ValueError: signal only works in main thread" instead of its SystemExit(0). The handlers stay then
    (the main thread's to release), and main() ends as it would have."""
    script = tmp_path / "bin" / "sweepgate"
    script.parent.mkdir()
    script.write_text("import threading\nfrom sweepgate.cli import main\nout = []\n"
                      "def run():\n    try:\n        out.append(main(['--version']))\n"
                      "    except BaseException as exc:\n        out.append(repr(exc))\n"
                      "t = threading.Thread(target=run)\nt.start()\nt.join()\nprint(out)\n")
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env())
    assert proc.returncode == 0 and proc.stdout.splitlines()[-1] == "['SystemExit(0)']", proc


# Holds collections.abc's import while sweepgate.core.errors is half loaded (its first lines import it,
# before its Terminated class exists): says so, then waits for the signal.
HOLD_IN_ERRORS = """\
import sys, time
class _Hold:
    def find_spec(self, name, path=None, target=None):
        if name == "collections.abc" and "sweepgate.core.errors" in sys.modules:
            sys.stderr.write("holding\\n"); sys.stderr.flush(); time.sleep(30)
        return None
sys.meta_path.insert(0, _Hold())
"""


def test_a_sigterm_while_the_errors_module_itself_loads_is_still_one_line(tmp_path):
    """review26: the early handler takes its Terminated from sweepgate.core.errors when the signal comes
    (so that setting it loads no module). A SIGTERM landing while that module's own first lines run found
    it half loaded and raised "ImportError: cannot import name 'Terminated' from partially initialized
    module", a traceback. It ends as the hook does then: `terminated`, 143."""
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "sitecustomize.py").write_text(HOLD_IN_ERRORS)
    script = tmp_path / "bin" / "sweepgate"
    script.parent.mkdir()
    script.write_text("import sweepgate\nimport sweepgate.core.errors\n")
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True, env=env(tmp_path / "site"))
    assert proc.stderr.readline() == "holding\n"
    proc.send_signal(signal.SIGTERM)
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == 143 and err == "sweepgate: terminated\n", err
