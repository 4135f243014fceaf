"""polish29: a folder given where a command reads or writes a file is said in one wording, from one place
(``core.errors.is_a_folder``): "is a folder, not a file", the README's word. `results ingest --jsonl DIR` said
"is a directory", `ci split --job-context DIR` "is a directory, not a file", `ci split --output DIR` and
`results comment --body DIR` the system's "Is a directory", beside `results compare --comment-file DIR`'s "is a
folder, not a file".

Every flag that names a file a command writes (``argtypes.output_file``) is found by walking the parsers, so
a new one is held to this too."""

from __future__ import annotations

import argparse
import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sweepgate import cli
from sweepgate.commands import argtypes

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "utils" / "sweepgate"
D = "a-folder"  # the folder passed for a file, in the repository the commands run in

OUTPUT_FILES = {  # (command path, flag) -> the command line that passes D for it
    (("results", "ingest"), "--jsonl"): ["results", "ingest", "--db", "{db}", "--jsonl", D, "run"],
    (("results", "compare"), "--comment-file"): ["results", "compare", "--db", "{db}", "--run", "1001",
                                                 "--comment-file", D],
    (("results", "compare"), "--step-summary"): ["results", "compare", "--db", "{db}", "--run", "1001",
                                                 "--step-summary", D],
    (("plan",), "--step-summary"): ["plan", "--base-ref", "HEAD", "--head-ref", "HEAD", "--step-summary", D],
    (("ci", "reuse"), "--out"): ["ci", "reuse", "--matrix", "m.json", "--out", D, "--db", "{db}", "--run-id", "5",
                                 "--head-ref", "HEAD"],
    (("ci", "collect"), "--note"): ["ci", "collect", "--results", "run", "--note", D],  # s46a
    (("ci", "split"), "--job-context"): ["ci", "split", "--matrix", "m.json", "--job-context", D],
    (("engines", "capture"), "--out"): ["engines", "capture", "--engine", "vllm", "--out", D],
}
OTHERS = {  # files written that are no output_file flag's, and files read
    "ci split --output (appended to)": ["ci", "split", "--matrix", "m.json", "--output", D],
    "ci decide --output (appended to)": ["ci", "decide", "--event-name", "push", "--event-path", "event.json",
                                         "--output", D],
    "results comment --body (read)": ["results", "comment", "--body", D, "--pr", "1", "--repository", "a/b"],
    "results ingest --row (read)": ["results", "ingest", "--db", "{db}", "--row", D, "--run-id", "1", "--ref",
                                    "refs/heads/main", "run/res.json"],
    "ci split --matrix (read)": ["ci", "split", "--matrix", D],
}


def _output_file_flags() -> set[tuple[tuple[str, ...], str]]:
    found = set()

    def walk(parser: argparse.ArgumentParser, path: tuple[str, ...]) -> None:
        for action in parser._actions:
            if action.type is argtypes.output_file:
                found.update((path, flag) for flag in action.option_strings)
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, (*path, name))

    for name in cli.COMMANDS:
        walk(cli.build_parser([name]), ())
    return {(path[1:] if path[:1] == ("sweepgate",) else path, flag) for path, flag in found}


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    """A git repository with a commit, a store holding run 1001, an empty matrix, and D."""
    top = tmp_path_factory.mktemp("repo")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q", str(top)], check=True)
    subprocess.run([*git, "-C", str(top), "commit", "-q", "--allow-empty", "-m", "start"], check=True)
    sys.path.insert(0, str(ROOT / "tests" / "results"))
    from helpers import job, vllm_output, write_job

    write_job(top / "run", "res", vllm_output(4), job("1001"))
    (top / "m.json").write_text("{}", encoding="utf-8")
    (top / "event.json").write_text('{"ref": "refs/heads/feature"}', encoding="utf-8")  # a push decide skips
    (top / D).mkdir()
    assert _sweepgate(top, "results", "ingest", "--db", _db(top), "run").returncode == 0
    (top / "run" / "res.job.json").unlink()  # the output alone, for --row
    return top


def _db(top: Path) -> str:
    return f"sqlite:///{top / 'r.db'}"


def _sweepgate(cwd: Path, *argv: str, env: dict | None = None) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items()
             if not k.startswith("GITHUB_") and k not in ("SWEEPGATE_DB", "COLUMNS")}
    clean.update({"PYTHONPATH": str(ROOT / "utils"), **(env or {})})
    return subprocess.run([sys.executable, "-m", "sweepgate", *argv], capture_output=True, text=True, cwd=cwd,
                          env=clean, timeout=120)


def _said_of_a_folder(proc: subprocess.CompletedProcess, top: Path) -> str:
    assert proc.returncode == 1, (proc.returncode, proc.stderr)
    (line,) = proc.stderr.strip().splitlines()
    assert line.startswith(f"{D}: ") and "is a folder, not " in line, line
    assert "director" not in line.lower(), line
    assert not any((top / D).iterdir()), "nothing was written into the folder"
    return line


def test_every_output_file_flag_is_tried():
    assert _output_file_flags() == set(OUTPUT_FILES)


@pytest.mark.parametrize("which", sorted(OUTPUT_FILES), ids=lambda w: " ".join((*w[0], w[1])))
def test_an_output_file_that_is_a_folder_is_said_alike(repo, which):
    argv = [a.format(db=_db(repo)) for a in OUTPUT_FILES[which]]
    line = _said_of_a_folder(_sweepgate(repo, *argv), repo)
    assert f"{which[1]}: is a folder, not a file; pass {which[1]} FILE" in line, line


def test_the_step_summary_variable_that_names_a_folder_is_said_alike(repo):
    proc = _sweepgate(repo, "results", "compare", "--db", _db(repo), "--run", "1001", env={"GITHUB_STEP_SUMMARY": D})
    assert "$GITHUB_STEP_SUMMARY (the default of --step-summary): is a folder, not a file" in \
        _said_of_a_folder(proc, repo)


@pytest.mark.parametrize("name", sorted(OTHERS))
def test_other_files_read_or_written_that_are_a_folder_are_said_alike(repo, name):
    _said_of_a_folder(_sweepgate(repo, *[a.format(db=_db(repo)) for a in OTHERS[name]]), repo)


def test_the_wording_is_in_one_place():
    """No message of the package spells it: each calls ``is_a_folder`` (or ``os_reason``, for the system's
    'Is a directory')."""
    spelt = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and not path.name == "errors.py":
                text = node.value.lower()
                if "is a directory" in text or "a folder, not" in text:
                    spelt.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: {node.value[:60]!r}")
    assert not spelt, spelt
