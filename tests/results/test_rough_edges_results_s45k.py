"""Rough edges of `results compare` a reviewer found in session 45 (s45k), on the real thing: its headline on a
real terminal (a pty, `script -qc`), ..."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import job, run_cli, vllm_output, write_job

ROOT = Path(__file__).resolve().parents[2]
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _store(tmp_path: Path, capsys) -> str:
    db = f"sqlite:///{tmp_path / 'results.db'}"
    for run_id, ref in (("101", "refs/heads/main"), ("200", "refs/pull/7/head")):
        write_job(tmp_path / "in" / run_id, "res_c4", vllm_output(4), job(run_id=run_id, ref=ref))
        rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path / "in" / run_id))
        assert rc == 0, err
    return db


def _compare(tmp_path: Path, db: str, tty: bool, **env: str) -> str:
    full = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "SWEEPGATE_", "NO_COLOR"))}
    full.pop("COLUMNS", None)
    full.update(PYTHONPATH=str(ROOT / "utils"), TERM="xterm", **({"COLUMNS": "44"} if tty else {}), **env)
    argv = [sys.executable, "-m", "sweepgate", "results", "compare", "--db", db, "--run", "200"]
    if tty:
        import shlex

        argv = ["script", "-qec", shlex.join(argv), "/dev/null"]
    proc = subprocess.run(argv, cwd=tmp_path, env=full, capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout.replace("\r\n", "\n")


def _headline(text: str) -> list[str]:
    lines = ANSI.sub("", text).splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("run 200 against"))
    return lines[first:first + 1] + [line for line in lines[first + 1:first + 4] if line.startswith(" ")]


@pytest.mark.skipif(not shutil.which("script"), reason="util-linux script makes the pty")
def test_the_headline_wrapped_on_a_terminal_reads_as_one_sentence(tmp_path, capsys):
    """Review (s45k): on a terminal the headline's second line began at column 0, as if a line of its own; it
    now goes on two blanks in, as the sentences above it do. NO_COLOR: the same lines without colour; a pipe:
    the headline on one line, as before."""
    db = _store(tmp_path, capsys)
    tty = _compare(tmp_path, db, tty=True)
    assert "\x1b[" in tty, tty  # a real terminal: colour
    lines = ANSI.sub("", tty).splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("run 200 against"))
    assert lines[first + 1].startswith("  ") and not lines[first + 1].startswith("   "), lines[first:first + 3]
    headline = _headline(tty)
    assert len(headline) >= 2 and all(len(line) <= 44 for line in headline), headline
    plain = _compare(tmp_path, db, tty=True, NO_COLOR="1")
    assert "\x1b[" not in plain and _headline(plain) == headline, plain
    piped = _compare(tmp_path, db, tty=False)  # no COLUMNS: a pipe's width is no terminal's
    (one,) = [line for line in piped.splitlines() if line.startswith("run 200 against")]
    assert " ".join(line.strip() for line in headline) == one, (headline, one)


# --- the temporary baseline folder, removed whole under a second Ctrl-C ------------------------------------------

SECOND_SIGNAL = r'''
import os, signal, sys
from pathlib import Path
from sweepgate.core import github
from sweepgate.results import source

made = Path(sys.argv[1])


def download(repository, token, dest, **kw):
    """An artifact read into the folder, then the first Ctrl-C, as a user presses it mid-download."""
    made.write_text(str(dest))
    for i in range(40):
        (Path(dest) / str(i)).mkdir()
        (Path(dest) / str(i) / "records.jsonl").write_text("{}\n")
    os.kill(os.getpid(), signal.SIGINT)
    signal.pause()  # the KeyboardInterrupt is raised here at the latest


github.download_run_artifacts = download
unlink, removed = os.unlink, []


def counted(path, *args, **kw):
    removed.append(path)
    if len(removed) == 5:  # well into the removal: a second Ctrl-C, a real one
        os.kill(os.getpid(), signal.SIGINT)
    return unlink(path, *args, **kw)


os.unlink = counted
try:
    source.records_from_artifacts("o/r", "t", "main", 5)
except KeyboardInterrupt:
    print(f"interrupted after {len(removed)} removals", flush=True)
    raise SystemExit(130)
print("not interrupted")
'''


def test_a_second_ctrl_c_during_the_baseline_folder_s_removal_waits_for_it(tmp_path):
    """Review (s45k): the folder `results compare` reads a baseline's artifacts into was a TemporaryDirectory,
    whose removal a second Ctrl-C cut short: half of it stayed in /tmp. It is now made and removed as the
    rehearsal's work dir is (core ``signals.TemporaryFolder``): the second signal waits, the folder goes whole,
    and the command stops as the first said."""
    made = tmp_path / "made.txt"
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "SWEEPGATE_"))}
    env.update(PYTHONPATH=str(ROOT / "utils"), TMPDIR=str(temp))
    proc = subprocess.run([sys.executable, "-c", SECOND_SIGNAL, str(made)], env=env, capture_output=True, text=True,
                          timeout=120)
    folder = Path(made.read_text())
    assert folder.parent == temp and folder.name.startswith("sweepgate-baseline-"), folder
    assert proc.returncode == 130 and "interrupted after" in proc.stdout, proc.stdout + proc.stderr
    assert int(proc.stdout.split()[2]) >= 40, proc.stdout  # every file removed, the signal notwithstanding
    assert list(temp.iterdir()) == [], list(folder.rglob("*"))
    assert "removing the baseline's artifact folder" in proc.stderr and "one moment" in proc.stderr, proc.stderr
