"""New-user review (newuser26): sweepgate tried from a wheel in a scratch InferenceX-like repository,
every command run from its configs/ folder, as a maintainer new to it would."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def sweepgate(args: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_") and k != "SWEEPGATE_DB"}
    full.update({"PYTHONPATH": str(ROOT / "utils"), **env})
    return subprocess.run([sys.executable, "-m", "sweepgate", *args], cwd=cwd, env=full, capture_output=True,
                          text=True, timeout=120)


@pytest.fixture
def configs_dir(tmp_path) -> Path:
    """The configs/ folder of a git repository holding the example fleet's configs, with one commit."""
    repo = tmp_path / "repo"
    (repo / "configs").mkdir(parents=True)
    for name in ("nvidia-master.yaml", "amd-master.yaml", "runners.yaml"):
        (repo / "configs" / name).write_text((ROOT / "configs" / name).read_text())
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=U", "-c", "user.email=u@x", "commit", "-qm", "fleet"],
                   check=True)
    return repo / "configs"


@pytest.mark.parametrize("argv", [
    ["results", "ingest", "--db", "", "out.json"],
    ["results", "show", "--db", ""],
    ["results", "compare", "--db", "", "--run", "1"],
    ["ci", "reuse", "--db", " ", "--matrix", "m.json", "--out", "r.json"],
    ["plan", "--db", "", "--base-ref", "HEAD", "--head-ref", "HEAD"],
])
def test_an_empty_db_is_a_usage_error_not_the_default_store(configs_dir, tmp_path, argv):
    """`--db "$DB"` with the variable unset read as no --db at all: ingest wrote into $SWEEPGATE_DB's
    store (or the repository's default one) instead of the one meant, and show/compare read it."""
    elsewhere = tmp_path / "team.db"
    (configs_dir / "out.json").write_text(json.dumps({"completed": 1}))
    r = sweepgate(argv, configs_dir, SWEEPGATE_DB=f"sqlite:///{elsewhere}")
    assert "Traceback" not in r.stderr, r.stderr
    assert r.returncode == 2 and r.stderr.rstrip().endswith(
        "argument --db: empty value (is a variable in the command unset?)"), r.stderr
    assert not elsewhere.exists() and not (configs_dir.parent / ".sweepgate").exists()


def test_a_usage_error_is_annotated_under_github_actions(configs_dir):
    """A workflow step's bad flag (`--window 0`, a flag a newer sweepgate has) printed argparse's two
    lines and exit 2, but no `::error` annotation, which every other problem gets under GitHub Actions:
    the run's summary showed nothing of why the step failed. A flag's text cannot start a command."""
    r = sweepgate(["results", "compare", "--run", "1", "--window", "0"], configs_dir, GITHUB_ACTIONS="true")
    said = "sweepgate results compare: argument --window: 0 is out of range; pass a number from 2 to 1000 (an interval needs 2 baseline runs)"
    assert r.returncode == 2 and r.stderr.splitlines()[-1] == f"::error title=usage::{said}", r.stderr
    plain = sweepgate(["results", "compare", "--run", "1", "--window", "0"], configs_dir)
    assert plain.returncode == 2 and "::" not in plain.stderr, plain.stderr
    odd = sweepgate(["results", "ingest", "out.json", "--x\n::add-mask::y"], configs_dir, GITHUB_ACTIONS="true")
    commands = [line for line in odd.stderr.splitlines() if line.startswith("::")]
    assert odd.returncode == 2 and commands == [
        "::error title=usage::sweepgate results ingest: unrecognized arguments: --x\\n::add-mask::y"], odd.stderr
    # (s43c: the refusal writes the value's newline as an escape, `\n`, before the annotation is made of it)


def annotations(r: subprocess.CompletedProcess) -> list[str]:
    return [line for line in r.stderr.splitlines() if line.startswith("::")]


@pytest.mark.parametrize("typed, placed", [("../nope.json", "nope.json"), ("./gone.json", "configs/gone.json"),
                                           ("res/gone.json", "configs/res/gone.json")])
def test_a_missing_path_typed_in_a_subfolder_is_annotated_from_the_top(configs_dir, typed, placed):
    """From configs/, `results ingest ../nope.json` was annotated `file=../nope.json`: GitHub reads the
    path from the workspace's top, so the note named no file of the repository (only a path that
    existed was made relative to the top)."""
    r = sweepgate(["results", "ingest", "--db", "sqlite:///r.db", typed], configs_dir, GITHUB_ACTIONS="true")
    assert r.returncode == 1 and r.stderr.startswith(f"{typed}: no such file or folder"), r.stderr
    assert annotations(r) == [f"::error file={placed}::no such file or folder; pass result files or the "
                              "folders that hold them"], r.stderr


def test_a_path_outside_the_repository_is_annotated_without_a_file(configs_dir, tmp_path):
    """A path that leaves the repository is no file GitHub could show: the place stays in the text."""
    for typed in ("../../elsewhere.json", str(tmp_path / "elsewhere.json")):
        r = sweepgate(["results", "ingest", "--db", "sqlite:///r.db", typed], configs_dir, GITHUB_ACTIONS="true")
        assert r.returncode == 1 and annotations(r) == [
            f"::error::{typed}: no such file or folder; pass result files or the folders that hold them"], r.stderr


def test_a_repository_file_named_from_the_top_keeps_its_place(configs_dir):
    """A repository-data flag typed from configs/ as `./perf-changelog.yaml` names the changelog from the
    top: its problems are annotated at perf-changelog.yaml, not at configs/perf-changelog.yaml."""
    top = configs_dir.parent
    (top / "perf-changelog.yaml").write_text("- config-keys: [no-such-key]\n  description: [\"x\"]\n"
                                             "  pr-link: https://github.com/acme/bench/pull/1\n")
    subprocess.run(["git", "-C", str(top), "add", "perf-changelog.yaml"], check=True)
    for typed in ("./perf-changelog.yaml", "perf-changelog.yaml"):
        r = sweepgate(["validate", "--staged", "--changelog-file", typed], configs_dir, GITHUB_ACTIONS="true")
        placed = [line for line in annotations(r) if "no-such-key" in line]
        assert r.returncode == 1 and placed and all(
            line.startswith("::error file=perf-changelog.yaml,line=") for line in placed), r.stderr


@pytest.mark.parametrize("argv, env", [
    (["--db", "x.db"], {}),
    (["--db", "sqlite:x.db"], {}),  # a URL missing its slashes, which names no file either
    ([], {"SWEEPGATE_DB": "x.db"}),
])
def test_a_database_url_is_never_annotated_as_a_file(configs_dir, argv, env):
    """`--db x.db` was annotated `::error file=x.db::`: a URL (or text given as one) named as if it were a
    file of the repository, even when a file x.db is there. Its place stays in the annotation's text."""
    (configs_dir / "x.db").write_bytes(b"")
    (configs_dir / "out.json").write_text("{}")
    r = sweepgate(["results", "ingest", *argv, "out.json"], configs_dir, GITHUB_ACTIONS="true", **env)
    (said,) = annotations(r)
    where = env.get("SWEEPGATE_DB") and "$SWEEPGATE_DB: x.db" or argv[-1]
    assert r.returncode == 1 and said.startswith(f"::error title=results-store::{where}: not a database URL"), r.stderr


def test_a_repository_data_flag_refused_from_a_subfolder_is_annotated_at_no_file(configs_dir):
    """From configs/, `--changelog-file ../../perf-changelog.yaml` leaves the repository from there and from its
    top alike (s42j: `../perf-changelog.yaml` is read from there): the problem is the flag's value, so the
    annotation is put on no file."""
    (configs_dir.parent / "perf-changelog.yaml").write_text("")
    r = sweepgate(["validate", "--staged", "--changelog-file", "../../perf-changelog.yaml"], configs_dir,
                  GITHUB_ACTIONS="true")
    (said,) = annotations(r)
    assert r.returncode == 1 and said.startswith("::error title=outside-repository::../../perf-changelog.yaml: "
                                                 "outside the repository"), r.stderr


@pytest.mark.parametrize("argv, flag", [
    (["results", "compare", "--run", "1", "--window", "0"], "--window"),
    (["results", "compare", "--run", "1", "--window", "abc"], "--window"),
    (["results", "compare", "--run", "1", "--threshold", "abc"], "--threshold"),
    (["results", "compare", "--run", "1", "--threshold", "5"], "--threshold"),
    (["results", "compare", "--run", "1", "--min-samples", "0"], "--min-samples"),
    (["results", "compare", "--run", "1", "--window", "3", "--min-samples", "4"], "--min-samples"),
    (["plan", "--base-ref", "HEAD", "--head-ref", "HEAD", "--pr-number", "abc"], "--pr-number"),
    (["ci", "watch", "--until", "collect", "--interval", "-1"], "--interval"),
    (["ci", "reuse", "--matrix", "m.json", "--out", "o.json", "--max-age-days", "-1"], "--max-age-days"),
    (["full-sweep", "--min-conc", "512", "--max-conc", "4"], "--min-conc"),
    (["rehearse", "--exp-name", "x", "--conc", "abc"], "--conc"),
])
def test_every_refused_flag_value_reads_the_same_way(configs_dir, argv, flag):
    """`--threshold abc` read `argument --threshold: ...` (argparse's own words) while `--window 0` read
    `--window: window 0 is below 2 ...` (a check after parsing), and `--window abc` `invalid int value`:
    each refusal is now `PROG: error: argument FLAG: VALUE is ...; what to pass`, exit 2."""
    r = sweepgate(argv, configs_dir)
    last = r.stderr.strip().splitlines()[-1]
    value = argv[argv.index(flag) + 1]
    assert r.returncode == 2 and r.stderr.startswith("usage: "), r.stderr
    assert re.fullmatch(rf"sweepgate [a-z -]+: error: argument {flag}: '?{re.escape(value)}'? is [^;]+; \S.*", last), last
