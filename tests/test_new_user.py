"""Issue 11: what a new user runs into. Every command, on a real repository, with bad input.

Each test drives the CLI as a separate process in a throwaway git repository
built from the example fleet (before and after the seed change).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "utils"))

from sweepgate.commands import example  # noqa: E402

SEED = example.SEED_KEY
REFS = ["--base-ref", "HEAD~1", "--head-ref", "HEAD"]
GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t.invalid",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t.invalid"}


def sg(cwd: Path, *args: str, env: dict | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    full = {**os.environ, "PYTHONPATH": str(ROOT / "utils"), "SWEEPGATE_REHEARSE_DURATION": "2", **(env or {})}
    full.pop("GITHUB_ACTIONS", None)
    return subprocess.run([sys.executable, "-m", "sweepgate", *args], cwd=cwd, env=full,
                          capture_output=True, text=True, timeout=timeout)


def one_clear_line(proc: subprocess.CompletedProcess, *needles: str) -> str:
    """Exit 1, exactly one line on stderr, no traceback or internal error; return that line."""
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 1, (proc.returncode, proc.stdout[-500:], proc.stderr)
    assert len(lines) == 1, proc.stderr
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr, proc.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True,
                          env={**os.environ, **GIT_ENV}).stdout


@pytest.fixture(scope="module")
def matrix_file(example_fleet, tmp_path_factory) -> Path:
    proc = sg(example_fleet, "matrix", *REFS)
    assert proc.returncode == 0, proc.stderr
    path = tmp_path_factory.mktemp("m") / "matrix.json"
    path.write_text(proc.stdout)
    return path


# --------------------------------------------------------------------------- item 2: crashes


def test_changelog_path_with_a_space_missing_at_one_revision(example_fleet, tmp_path):
    repo = tmp_path / "r"
    repo.mkdir()
    example.build_repo(str(repo))
    (repo / "my log.yaml").write_bytes((repo / "perf-changelog.yaml").read_bytes())
    git(repo, "add", "my log.yaml")
    git(repo, "commit", "-q", "-m", "a log whose name has a space")
    git(repo, "rm", "-q", "my log.yaml")
    git(repo, "commit", "-q", "-m", "log removed")
    # Missing at head: one line naming the file.
    one_clear_line(sg(repo, "matrix", "--changelog-file", "my log.yaml", *REFS), "my log.yaml")
    # Missing at base: a new file, every entry appended.
    new = sg(repo, "matrix", "--changelog-file", "my log.yaml", "--base-ref", "HEAD~2", "--head-ref", "HEAD~1")
    assert new.returncode == 0 and json.loads(new.stdout), new.stderr


def usage_error(proc: subprocess.CompletedProcess, *needles: str) -> str:
    """Exit 2 (argument syntax, README "Exit codes"): the usage, then one error line; return it."""
    assert proc.returncode == 2, (proc.returncode, proc.stdout[-500:], proc.stderr)
    assert proc.stderr.startswith("usage: ") and "Traceback" not in proc.stderr, proc.stderr
    last = proc.stderr.strip().splitlines()[-1]
    assert ": error: " in last and all(n in last for n in needles), last
    return last


@pytest.mark.parametrize("jobs", ["0", "-5", "300"])
def test_ci_split_refuses_chunk_sizes_outside_githubs_limit(example_fleet, matrix_file, jobs):
    proc = sg(example_fleet, "ci", "split", "--matrix", str(matrix_file), "--max-jobs", jobs)
    usage_error(proc, "--max-jobs", "256")
    assert proc.stdout == ""  # no outputs written for a refused split


@pytest.mark.parametrize("argv", [
    ["results", "compare", "--run", "1", "--window", "0"],
    ["results", "compare", "--run", "1", "--window", "1"],  # no interval from one baseline run
    ["results", "compare", "--run", "1", "--threshold", "-1"],
    ["results", "compare", "--run", "1", "--threshold", "5"],  # 5 %: no throughput could ever regress
    ["full-sweep", "--step-size", "0"],
    ["full-sweep", "--max-conc", "-5"],
    ["full-sweep", "--max-tp", "0"],
    ["full-sweep", "--min-conc", "512", "--max-conc", "4"],
    ["full-sweep", "--no-evals", "--all-evals"],
    ["test-config", "--conc", "0", "--config-keys", "x"],
    ["results", "compare", "--run", "1", "--min-samples", "0"],
    ["results", "compare", "--run", "1", "--window", "3", "--min-samples", "4"],
    ["results", "ingest", "--attempt", "0", "x.json"],
    ["results", "ingest", "--run-id", "3", "x.json"],
    ["rehearse", "--duration", "0"],
    ["validate", "--pr-number", "abc"],
    ["results", "comment", "--pr-number", "0", "--body", "b.md"],
    ["results", "compare", "--pr-number", "0", "--run", "1"],
    ["plan", "--pr-number", "0", "--base-ref", "HEAD", "--head-ref", "HEAD"],
    ["ci", "split", "--pr-number", "x1", "--matrix", "m.json"],
])
def test_a_bad_flag_value_is_argument_syntax(example_fleet, argv):
    """Review: out-of-range values and impossible flag combinations exited 1 like bad data, while
    the README gives them 2; the error names the flag the user typed (the first after --run)."""
    flag = next(a for a in argv if a.startswith("--") and a != "--run")
    usage_error(sg(example_fleet, *argv), flag)


def test_ci_split_still_accepts_the_limit_itself(example_fleet, matrix_file):
    assert sg(example_fleet, "ci", "split", "--matrix", str(matrix_file), "--max-jobs", "256").returncode == 0


@pytest.mark.parametrize("args", [["split", "--matrix"], ["row-env", "--row-id", "single_node/0", "--matrix"]])
def test_matrix_that_is_a_directory(example_fleet, tmp_path, args):
    proc = sg(example_fleet, "ci", *args, str(tmp_path))
    one_clear_line(proc, "is a folder")  # polish29: one wording, "folder"


def _seed_row(example_fleet: Path) -> dict:
    proc = sg(example_fleet, "test-config", "--config-keys", SEED)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)[0]


def test_rehearse_work_dir_that_cannot_be_created(example_fleet, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    row = _seed_row(example_fleet)
    proc = sg(example_fleet, "rehearse", "--config-keys", SEED, "--exp-name", row["exp-name"], "--conc", str(row["conc"]),
              "--work-dir", str(blocker / "work"))
    one_clear_line(proc, "--work-dir")


# --------------------------------------------------------------------------- item 4: subdirectories


@pytest.mark.parametrize("args", [["full-sweep"], ["test-config", "--config-keys", SEED], ["matrix", *REFS],
                                  ["plan", *REFS, "--json"], ["validate", *REFS]])
def test_commands_give_the_same_answer_from_a_subdirectory(example_fleet, args):
    top, nested = sg(example_fleet, *args), sg(example_fleet / "configs", *args)
    assert top.returncode == 0, top.stderr
    assert (nested.returncode, nested.stdout) == (top.returncode, top.stdout), nested.stderr


def test_validate_staged_and_changelog_add_from_a_subdirectory(tmp_path):
    repo = tmp_path / "r"
    repo.mkdir()
    example.build_repo(str(repo))
    sub = repo / "configs"
    added = sg(sub, "changelog", "add", "--key", SEED, "--description", "rerun after the driver update")
    assert added.returncode == 0, added.stderr
    assert "rerun after the driver update" in (repo / "perf-changelog.yaml").read_text()
    assert not (sub / "perf-changelog.yaml").exists()
    staged = sg(sub, "validate", "--staged", "--base-ref", "HEAD")
    assert staged.returncode == 0, staged.stderr
    assert "1 appended entry" in staged.stdout


def test_rehearse_from_a_subdirectory(example_fleet, tmp_path):
    row = _seed_row(example_fleet)
    proc = sg(example_fleet / "configs", "rehearse", "--config-keys", SEED, "--exp-name", row["exp-name"],
              "--conc", str(row["conc"]), "--work-dir", str(tmp_path / "work"))
    assert proc.returncode == 0, proc.stdout[-1500:] + proc.stderr[-1500:]


@pytest.mark.parametrize("args", [["matrix", *REFS], ["full-sweep"], ["validate", "--staged"],
                                  ["changelog", "add", "--key", SEED, "--description", "x"]])
def test_outside_a_git_repository_says_so(tmp_path, args):
    proc = sg(tmp_path, *args, env={"GIT_CEILING_DIRECTORIES": str(tmp_path.parent)})
    one_clear_line(proc, "not inside a git repository")
    # new user: "run sweepgate inside (or point it at) a clone" named a way to point it that no command has
    assert proc.stderr.rstrip().endswith("; cd into a clone of your benchmark repository (git clone, or git init "
                                         "and commit) and run sweepgate there"), proc.stderr


# --------------------------------------------------------------------------- item 5: entry points


def entry_points() -> list[str]:
    """Files the README tells people to run by path."""
    listed = subprocess.run(["git", "ls-files", "utils/*.py", ".ci/run", "tests/bench/*.py"], cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout.split()
    return [p for p in listed if "/" not in p.removeprefix("utils/") or p.startswith((".ci/", "tests/bench/"))]


def test_every_entry_point_is_executable_in_git_and_has_a_shebang():
    points = entry_points()
    assert {"utils/process_changelog.py", "utils/generate_sweep_configs.py",
            "utils/validate_perf_changelog.py", ".ci/run"} <= set(points)
    for path in points:
        mode = subprocess.run(["git", "ls-files", "-s", path], cwd=ROOT, capture_output=True, text=True).stdout[:6]
        assert mode == "100755", f"{path} is {mode} in git; git update-index --chmod=+x {path}"
        assert (ROOT / path).read_bytes().startswith(b"#!"), path


@pytest.mark.parametrize("script", ["utils/process_changelog.py", "utils/generate_sweep_configs.py",
                                    "utils/validate_perf_changelog.py"])
def test_scripts_run_by_path(script):
    proc = subprocess.run([str(ROOT / script), "--help"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.startswith("usage:"), proc.stderr


def test_generate_sweep_configs_has_the_reference_s_two_commands_and_needs_one(tmp_path):
    """Not all of sweepgate under another name: bare, it must not start the example (35 s and a
    throwaway repository), and `results` is not its command."""
    script = str(ROOT / "utils" / "generate_sweep_configs.py")
    for argv, said in (([], "name a command: full-sweep or test-config"),
                       (["results", "show"], "invalid choice: 'results'")):
        proc = subprocess.run([sys.executable, script, *argv], cwd=tmp_path, capture_output=True, text=True,
                              timeout=60)
        assert proc.returncode == 2 and said in proc.stderr and not proc.stdout, (proc.stdout, proc.stderr)
        assert "usage: generate_sweep_configs.py" in proc.stderr
    assert list(tmp_path.iterdir()) == []


# --------------------------------------------------------------------------- item 6: README commands


def test_readme_benchmark_commands_name_paths_that_work_from_anywhere():
    readme = (ROOT / "README.md").read_text()
    check = next(line for line in readme.splitlines() if "check.py" in line and "--python" in line)
    python = check.split("--python", 1)[1].split()[0].strip('`"():')
    assert python.startswith("$PWD/"), f"check.py runs --python from another directory: {check}"
    for script in ("gate_corpus.py", "corpus_speed.py"):
        proc = subprocess.run([str(ROOT / "tests" / "bench" / script), "--help"], cwd="/",
                              env={**os.environ, "COLUMNS": "200"}, capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0, proc.stderr
        source = (ROOT / "tests" / "bench" / script).read_text()
        assert '"/tmp/' not in source and "shared\" / \"corpus" in source, script


def test_each_utils_script_in_the_readme_commands_table_names_its_sweepgate_command():
    """New user on a wheel install: the table gave `utils/generate_sweep_configs.py full-sweep|test-config`
    alone, a file an installed sweepgate does not have; `sweepgate full-sweep` was only in --help."""
    readme = (ROOT / "README.md").read_text()
    table = readme.split("## Commands", 1)[1].split("\n\n", 2)[1]
    rows = [line for line in table.splitlines() if line.startswith("| `utils/")]
    assert len(rows) == 3, rows
    for row in rows:
        script = re.match(r"\| `utils/(\w+)\.py", row).group(1)
        assert " / `sweepgate " in row.split(" | ")[0], f"{script}: no sweepgate command beside it: {row}"


def test_ci_run_runs_exactly_the_readmes_second_command():
    """Issue 2: the README gives two commands for a fresh machine, and `.ci/run` calls the
    second; `.github/workflows/ci.yml` calls `.ci/run`. Nothing else kept the three in step."""
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Two commands for a fresh machine", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"^```\n(.*?)\n```$", section, re.M | re.S)
    assert len(blocks) == 2, blocks
    first, second = blocks
    assert first.startswith("python3 -m venv .venv") and "pip install -e" not in first
    assert first.endswith(".venv/bin/sweepgate"), first
    ci_run = (ROOT / ".ci" / "run").read_text().rstrip("\n").splitlines()
    assert ci_run[-1] == second, (ci_run[-1], second)
    assert re.search(r"^\s*run: (bash )?\.ci/run\s*$", (ROOT / ".github/workflows/ci.yml").read_text(), re.M)

# --------------------------------------------------------------------------- item 7: exit codes


@pytest.mark.parametrize("command", ["matrix", "plan", "validate"])
def test_missing_base_ref_is_a_usage_error_everywhere(example_fleet, command):
    proc = sg(example_fleet, command, "--head-ref", "HEAD")
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("usage:") and "--base-ref" in proc.stderr.splitlines()[-1]


@pytest.mark.parametrize("argv", [
    [command, *refs] for command in ("validate", "matrix", "plan", "preflight")
    for refs in (["--base-ref", "nosuch", "--head-ref", "HEAD"], ["--base-ref", "HEAD~1", "--head-ref", "nosuch"])
] + [["validate", "--staged", "--base-ref", "nosuch"], ["ci", "reuse", "--head-ref", "nosuch"]])
def test_a_ref_that_is_not_a_commit_names_the_flag_that_passes_it(example_fleet, matrix_file, tmp_path, argv):
    """hints27: `changelog rebase`/`canonicalize` name the flag of a ref that is no commit here, but
    validate, matrix, plan, preflight and `ci reuse` said only "pass a branch, tag or commit that
    exists here", with two refs given and no word of which one to fix."""
    flag = argv[argv.index("nosuch") - 1]
    if argv[0] == "ci":
        argv = [*argv, "--matrix", str(matrix_file), "--out", str(tmp_path / "rest.json"), "--run-id", "1"]
    line = one_clear_line(sg(example_fleet, *argv), "git: 'nosuch' is not a commit in ")
    assert line.endswith(f"; pass {flag} with a branch, tag or commit that exists here (fetch it first in CI)"), line


def test_validate_staged_with_head_ref_is_a_usage_error(example_fleet):
    assert sg(example_fleet, "validate", "--staged", "--head-ref", "HEAD").returncode == 2


def test_exit_codes_bad_input_is_1_fail_on_is_3(example_fleet, tmp_path):
    assert sg(example_fleet, "matrix", "--base-ref", "HEAD~1", "--head-ref", "nosuchref").returncode == 1
    repo = tmp_path / "r"
    repo.mkdir()
    example.build_repo(str(repo))
    script = next((repo / "benchmarks" / "single_node").rglob("*.sh"))
    script.write_text(script.read_text() + "\n# touched\n")
    git(repo, "commit", "-q", "-am", "script only")
    plain = sg(repo, "plan", "--base-ref", "HEAD~1", "--head-ref", "HEAD")
    assert plain.returncode == 0 and "changed" in plain.stderr + plain.stdout, plain.stderr
    failing = sg(repo, "plan", "--base-ref", "HEAD~1", "--head-ref", "HEAD", "--fail-on-warning")
    assert failing.returncode == 3 and failing.stdout == plain.stdout


# --------------------------------------------------------------------------- item 10: contracts


def test_every_contracts_reference_points_at_a_section_of_docs_contracts():
    import re

    doc = (ROOT / "docs" / "contracts.md").read_text()
    sections = set(re.findall(r"^## (\d+)\. ", doc, re.M))
    assert sections >= {str(n) for n in range(1, 10)}
    cited = set()
    for path in [ROOT / "README.md", *(ROOT / "utils").rglob("*.py"), *(ROOT / "benchmarks").rglob("*.md")]:
        cited |= set(re.findall(r"CONTRACTS (?:§|section )(\d+)", path.read_text(errors="replace")))
        cited |= set(re.findall(r"contracts\.md §(\d+)", path.read_text(errors="replace")))
    assert cited and cited <= sections, cited - sections
    assert "docs/contracts.md" in sg(ROOT, "--help", env={"COLUMNS": "300"}).stdout


# --------------------------------------------------------------------------- item 8: messages that mislead


def fresh(tmp_path: Path) -> Path:
    repo = tmp_path / "r"
    repo.mkdir()
    example.build_repo(str(repo))
    return repo


def append_entry(repo: Path, description: str, **files: str) -> None:
    with open(repo / "perf-changelog.yaml", "a") as fh:
        fh.write(f"\n- config-keys:\n    - {SEED}\n  description:\n    - {description}\n"
                 "  pr-link: https://github.com/sweepgate/example-fleet/pull/9\n")
    for rel, text in files.items():
        (repo / rel).write_text(text)
    git(repo, "commit", "-q", "-am", "appended")


@pytest.mark.parametrize("description", ["", "   "])
def test_changelog_add_refuses_an_empty_description_at_the_flag(tmp_path, description):
    repo = fresh(tmp_path)
    before = (repo / "perf-changelog.yaml").read_bytes()
    proc = sg(repo, "changelog", "add", "--key", SEED, "--description", description)
    # argument syntax: argparse's usage line, then its one error line (exit 2)
    assert proc.returncode == 2 and proc.stderr.startswith("usage: sweepgate changelog add "), proc.stderr
    assert proc.stderr.strip().splitlines()[-1].startswith("sweepgate changelog add: error: argument --description: "
                                                           f"{'empty' if not description else 'blank'} value; say what")
    assert (repo / "perf-changelog.yaml").read_bytes() == before


def test_gate_refuses_a_whitespace_only_description(tmp_path):
    repo = fresh(tmp_path)
    append_entry(repo, '"   "')
    proc = sg(repo, "validate", *REFS)
    assert proc.returncode == 1
    assert "perf-changelog.yaml:45:7: description[0]" in proc.stderr and "visible text" in proc.stderr


def test_matrix_with_a_changelog_file_that_does_not_exist(example_fleet):
    line = one_clear_line(sg(example_fleet, "matrix", *REFS, "--changelog-file", "nosuch.yaml"), "nosuch.yaml: not a file at ")
    assert line.count("nosuch.yaml") == 1, line  # msgs27: "nosuch.yaml: nosuch.yaml is not a file at ..."


def test_validate_names_a_commit_by_the_short_form_matrix_and_plan_use(tmp_path):
    """hints27: validate said 'not a file at the base or at <40 hex digits>', 'does not exist at <40>'
    and 'no configs/*-master.yaml at <40>' where matrix and plan say a commit's first 12 digits (or,
    for the configs, the full 40 too). Every command names it by the one short form now."""
    repo = tmp_path / "r"
    repo.mkdir()
    example.build_repo(str(repo))
    head = seed = git(repo, "rev-parse", "HEAD").strip()
    for argv in (["validate", *REFS], ["matrix", *REFS], ["plan", *REFS]):
        line = one_clear_line(sg(repo, *argv, "--changelog-file", "nosuch.yaml"), "nosuch.yaml: not a file at ")
        assert f" at {head[:12]}; " in line and head not in line, line
    git(repo, "rm", "-q", "perf-changelog.yaml")
    git(repo, "commit", "-qm", "deleted")
    head = git(repo, "rev-parse", "HEAD").strip()
    for argv in (["validate", *REFS], ["matrix", *REFS], ["plan", *REFS]):
        # matrix and plan said "not a file at SHA; pass the changelog's path ... with --changelog-file",
        # blaming a right path for a deleted file; all three say what validate says
        line = one_clear_line(sg(repo, *argv), "perf-changelog.yaml: does not exist at ")
        assert f" at {head[:12]}; restore the changelog" in line and head not in line, (argv, line)
    git(repo, "checkout", "-q", "HEAD~1", "--", "perf-changelog.yaml")
    with (repo / "perf-changelog.yaml").open("a") as f:
        f.write(f"\n- config-keys:\n    - {SEED}\n  description:\n    - \"x\"\n"
                "  pr-link: https://github.com/sweepgate/example-fleet/pull/7\n")
    git(repo, "rm", "-q", "-r", "configs")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "no configs")
    head = git(repo, "rev-parse", "HEAD").strip()
    for command in ("validate", "matrix", "plan"):
        line = one_clear_line(sg(repo, command, "--base-ref", seed, "--head-ref", "HEAD"),
                              "configs: no configs/*-master.yaml at ")
        assert f" at {head[:12]}; " in line and head not in line, (command, line)


@pytest.mark.parametrize("argv, said", [
    (["plan", *REFS, "--changelog-file", "nosuch.yaml"], "nosuch.yaml: not a file at "),
    (["validate", *REFS, "--changelog-file", "nosuch.yaml"], "nosuch.yaml: not a file at the base or at "),
    (["validate", "--staged", "--changelog-file", "nosuch.yaml"],
     "nosuch.yaml: not a file at the base or in the working tree; "),
    (["full-sweep", "--config-files", "nosuch.yaml"], "nosuch.yaml: does not exist; "),
])
def test_a_file_that_is_not_there_is_named_once(example_fleet, argv, said):
    """New-user review (msgs27): the missing file was named twice, as the line's place and again
    in its message ("nosuch.yaml: nosuch.yaml is not a file at ..."); every such line names it once."""
    line = one_clear_line(sg(example_fleet, *argv), said)
    assert line.startswith(said) and line.count("nosuch.yaml") == 1, line


def test_a_quoted_boolean_is_one_line(tmp_path):
    repo = fresh(tmp_path)
    path = repo / "configs" / "nvidia-master.yaml"
    path.write_text(path.read_text().replace("multinode: false", 'multinode: "no"', 1))
    line = one_clear_line(sg(repo, "full-sweep"), "multinode", "true or false")
    assert line.startswith("configs/nvidia-master.yaml:")


def test_config_problems_are_totalled_under_their_own_file(tmp_path):
    repo = fresh(tmp_path)
    master = (repo / "configs" / "nvidia-master.yaml").read_text().replace("multinode: false", 'multinode: "no"', 1)
    append_entry(repo, '"rerun"', **{"configs/nvidia-master.yaml": master})
    proc = sg(repo, "validate", *REFS)
    assert proc.returncode == 1
    assert "configs/nvidia-master.yaml: 1 problem; fix it and rerun" in proc.stdout, proc.stdout
    # stderr: one line per problem and nothing else (CONTRACTS §2: "prints every problem, one per line")
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and re.match(r"configs/nvidia-master\.yaml:\d+:\d+: ", lines[0]), proc.stderr
    assert "perf-changelog.yaml: 1 problem" not in proc.stderr


def test_an_unclosed_quote_is_reported_where_it_opens(tmp_path):
    repo = fresh(tmp_path)
    append_entry(repo, '"unclosed')
    proc = sg(repo, "matrix", *REFS)
    one_clear_line(proc, "perf-changelog.yaml:45:7:", "never closed")


@pytest.mark.parametrize("tail, where, said", [
    ("\n- config-keys: [a\n", ":2:16:", "a flow sequence starting here is never closed"),
    # Review: an empty '[' at the end was placed past the file's end (its line count + 1, column 1).
    ("\n- config-keys: [\n", ":2:16:", "never closed"),
    ("\n- config-keys:\n    - a\x00\n  description: x\n", ":3:8:", ""),
])
def test_a_broken_appended_entry_is_reported_at_its_line_in_the_file(tmp_path, tail, where, said):
    """Review: an unclosed '[' at the end of the appended text was reported at line 3 (counted from
    the appended text, not the file), and a NUL byte as two lines without a line number."""
    repo = fresh(tmp_path)
    lines = len((repo / "perf-changelog.yaml").read_text().splitlines())
    with open(repo / "perf-changelog.yaml", "a") as fh:
        fh.write(tail)
    git(repo, "commit", "-q", "-am", "appended")
    line, col, _ = where[1:].split(":")
    for command in ("matrix", "validate"):
        proc = sg(repo, command, *REFS)
        assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
        first = proc.stderr.splitlines()[0]
        assert not any(ln.startswith(" ") for ln in proc.stderr.splitlines()), proc.stderr  # one line each
        assert first.startswith(f"perf-changelog.yaml:{lines + int(line)}:{col}:") and said in first, first


def test_plan_text_counts_in_the_singular():
    from sweepgate.core import report

    plan = {"jobs": 1, "gpu_hours": 1.0, "eval_jobs": 1, "eval_gpu_hours": 0.5, "diff": {},
            "by_runner": {"b300": {"jobs": 1, "gpu_hours": 1.0, "gpu_hours_estimated": 0,
                                   "eval_jobs": 1, "eval_gpu_hours": 0.5}}}
    text = report.plan_text(plan)
    assert "1 jobs" not in text and "1 eval jobs" not in text and "b300: 1 job, " in text, text


def test_rehearse_lists_concurrencies_in_numeric_order():
    from sweepgate.core.errors import SweepgateError
    from sweepgate.rehearsal import runner

    rows = [{"exp-name": "x", "conc": c, "recipe-fingerprint": "f"} for c in (64, 4, 128, 16)]
    with pytest.raises(SweepgateError) as exc:
        runner.select_row(rows, "rows.json", "x", None)
    assert "conc 4, 16, 64, 128" in str(exc.value)
    with pytest.raises(SweepgateError) as exc:
        runner.select_row(rows, "rows.json", "x", 5)
    assert "4, 16, 64, 128" in str(exc.value)


# --------------------------------------------------------------------------- item 9: recipes that cannot run


@pytest.mark.parametrize("old,new,needle", [
    ("conc-list: [16, 32]", "conc-list: [16, 100000000000000000000000]", "1,000,000"),
    ("- { tp: 8, ep: 1, conc-start: 4, conc-end: 64 }", "- { tp: 100000000000000000000, ep: 1, conc-start: 4, conc-end: 64 }",
     "1 to 1024"),
])
def test_absurd_integers_are_refused_at_their_line(tmp_path, old, new, needle):
    repo = fresh(tmp_path)
    path = repo / "configs" / "nvidia-master.yaml"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    line = one_clear_line(sg(repo, "full-sweep"), needle)
    number = text[:text.index(old)].count("\n") + 1
    assert line.startswith(f"configs/nvidia-master.yaml:{number}:"), line


# --------------------------------------------------------------------------- item 10: terminal


def test_matrix_pretty_is_the_same_json_indented(example_fleet):
    plain, pretty = sg(example_fleet, "matrix", *REFS), sg(example_fleet, "matrix", *REFS, "--pretty")
    assert pretty.returncode == 0 and json.loads(pretty.stdout) == json.loads(plain.stdout)
    assert pretty.stdout.count("\n") > 10 and plain.stdout.count("\n") == 1


def test_changelog_add_help_describes_every_flag():
    import argparse

    from sweepgate.commands import changelog

    parser = argparse.ArgumentParser()
    changelog.add_arguments(parser)
    add = parser._subparsers._group_actions[0].choices["add"]
    for action in add._actions:
        assert action.help, f"changelog add {'/'.join(action.option_strings)} has no help"


def _command_parsers(parser, name: str):
    """(name, parser) of ``parser`` and of every subcommand below it, depth first."""
    import argparse

    yield name, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for word, sub in action.choices.items():
                yield from _command_parsers(sub, f"{name} {word}")


@pytest.mark.parametrize("command", sorted(__import__("sweepgate.cli", fromlist=["COMMANDS"]).COMMANDS))
def test_every_command_s_help_says_what_it_does_and_what_each_flag_does(command):
    """`sweepgate X Y --help` opens with what Y does, as `sweepgate X --help` does, and explains every
    flag: `--changelog-file`, full-sweep's filters and `ci split` and the like printed bare."""
    import argparse

    from sweepgate import cli

    top = cli.build_parser([command])
    bare = []
    for name, parser in _command_parsers(top._subparsers._group_actions[0].choices[command], command):
        if not parser.description:
            bare.append(f"{name}: no description")
        bare += [f"{name} {'/'.join(a.option_strings)}: no help" for a in parser._actions
                 if a.option_strings and not a.help]
        # review24: `--pr-number PR_NUMBER` where every other number reads N
        bare += [f"{name} --pr-number: shown as {a.metavar}" for a in parser._actions
                 if "--pr-number" in a.option_strings and a.metavar != "N"]
        assert parser.formatter_class is cli._formatter, f"{name}: --help at another width than its command's"
    assert not bare, bare


@pytest.mark.parametrize("new", ["- { tp: 16, ep: 1, conc-start: 4, conc-end: 64 }",
                                 "- { tp: 8, ep: 1, pp: 2, conc-start: 4, conc-end: 64 }",
                                 "- { tp: 8, ep: 16, conc-start: 4, conc-end: 64 }"])
def test_a_single_node_point_wider_than_the_node_is_refused_at_its_line(tmp_path, new):
    repo = fresh(tmp_path)
    path = repo / "configs" / "nvidia-master.yaml"
    text = path.read_text()
    old = "- { tp: 8, ep: 1, conc-start: 4, conc-end: 64 }"
    path.write_text(text.replace(old, new, 1))
    line = one_clear_line(sg(repo, "full-sweep"), "16", "8 GPUs", "cluster:b300-nv")
    number = text[:text.index(old)].count("\n") + 1
    assert line.startswith(f"configs/nvidia-master.yaml:{number}:"), line


def test_a_row_whose_dram_budget_is_above_the_hosts_dram_is_refused(example_fleet, tmp_path):
    row = _seed_row(example_fleet)
    assert 0 < row["total-cpu-dram-gb"] <= 3108  # cluster:b300-nv: 2,964,436 MiB = 3,108 GB
    (tmp_path / "row.json").write_text(json.dumps({**row, "total-cpu-dram-gb": 3109}))
    proc = sg(example_fleet, "rehearse", "--row-json", str(tmp_path / "row.json"), "--work-dir", str(tmp_path / "w"))
    one_clear_line(proc, "row.json", "total-cpu-dram-gb=3109", "3108 GB", "cluster:b300-nv")
    assert not (tmp_path / "w").exists()


@pytest.mark.parametrize("utilization", ["1.5", "100"])
def test_a_dram_utilization_above_the_whole_host_is_refused_at_its_line(tmp_path, utilization):
    repo = fresh(tmp_path)
    path = repo / "configs" / "nvidia-master.yaml"
    text = path.read_text()
    old = "dram-utilization: 0.63"
    assert old in text
    path.write_text(text.replace(old, f"dram-utilization: {utilization}", 1))
    line = one_clear_line(sg(repo, "full-sweep"), "dram-utilization")
    number = text[:text.index(old)].count("\n") + 1
    assert line.startswith(f"configs/nvidia-master.yaml:{number}:"), line


def test_no_budget_generated_from_a_config_exceeds_the_hosts_dram():
    from hypothesis import given, strategies as st

    from sweepgate.core import expand

    @given(mib=st.integers(1, 10**9), utilization=st.floats(0.01, 1.0), tp=st.sampled_from([1, 2, 4, 8]),
           gpn=st.sampled_from([4, 8]))
    def check(mib, utilization, tp, gpn):
        facts = {"available-cpu-dram-mib": mib, "gpus-per-node": gpn}
        runners = {"hardware": {"r": facts}}
        point = {"tp": min(tp, gpn), "kv-offloading": "dram"}
        budget = expand.dram_budget_gb({"dram-utilization": utilization}, point, "r", runners, None)
        assert 0 <= budget <= expand.host_dram_gb(facts)

    check()


def test_a_host_python_without_pyyaml_gets_one_line_naming_the_package(matrix_file, tmp_path):
    """Adoption review: a GPU host's python3 without PyYAML ran `ci row-env` into "internal error:
    ModuleNotFoundError ... report it". `-S` leaves site-packages (and PyYAML) off the path, as a
    bare host interpreter has them; `-P` as the templates run it."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "utils")}
    out = tmp_path / "row.env"
    proc = subprocess.run([sys.executable, "-S", "-P", "-m", "sweepgate", "ci", "row-env", "--row-id", "agentic/0",
                           "--matrix", str(matrix_file), "--runner-name", "b300-nv_0", "--output", str(out)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and not out.exists(), proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert "the Python package 'yaml' is missing" in line and "PyYAML" in line and "internal error" not in line


def test_plan_markdown_counts_a_bucket_s_one_row_in_the_singular():
    """Review (CI path): the plan comment said "1k1k: 1 rows"."""
    from sweepgate.core import report

    row = {"exp-name": "x", "runner": "b300", "conc": 4, "isl": 1024, "osl": 1024, "framework": "vllm"}
    plan = {"jobs": 1, "gpu_hours": 1.0, "by_runner": {}, "warnings": [], "diff": {}, "base_ref": "a", "head_ref": "b",
            "matrix": {"single_node": {"1k1k": [row]}, "multi_node": {},
                       "changelog_metadata": {"entries": [], "base_ref": "a" * 40, "head_ref": "b" * 40}}}
    md = report.plan_markdown(plan)
    assert "1k1k: 1 row," in md and "1 rows" not in md, md


def test_row_env_output_dash_is_standard_output(tmp_path, capsys, monkeypatch):
    """Review (CI path): `ci row-env --output -` wrote a file named "-"."""
    from sweepgate import cli

    monkeypatch.chdir(tmp_path)
    row = {"exp-name": "x_1k1k", "runner": "b300", "precision": "fp8", "framework": "vllm", "image": "i",
           "conc": 4, "model": "m", "isl": 1024, "osl": 1024, "tp": 8}
    assert cli.main(["ci", "row-env", "--row", json.dumps(row), "--runner-name", "b300_0", "--output", "-"]) == 0
    assert "RESULT_FILENAME=" in capsys.readouterr().out and not (tmp_path / "-").exists()


def test_a_misspelt_runner_of_an_agentic_config_is_named_at_its_runner_line(tmp_path):
    # A dram-offload row needs its runner's host DRAM: a typo in `runner:` used to read as a missing
    # hardware fact at the config key's line ("add hardware['cluster:b300-vn']...").
    repo = fresh(tmp_path)
    path = repo / "configs" / "nvidia-master.yaml"
    text = path.read_text()
    start = text.index("kimik3-fp4-b300-vllm-agentic-dspark:\n")
    old = "runner: cluster:b300-nv"
    at = text.index(old, start)
    path.write_text(text[:at] + "runner: cluster:b300-vn" + text[at + len(old):])
    line = one_clear_line(sg(repo, "full-sweep"), "'cluster:b300-vn' has no hardware entry",
                          "did you mean 'cluster:b300-nv'?")
    number = text[:at].count("\n") + 1
    assert line.startswith(f"configs/nvidia-master.yaml:{number}:"), line


def test_a_listed_pool_without_hardware_facts_is_not_told_another_label_is_meant(tmp_path):
    # Review: a new pool listed under labels (cluster:b200-nv) but not yet under hardware was told
    # "did you mean 'cluster:b300-nv'? Fix the config's runner": its runner is right, its facts are missing.
    repo = fresh(tmp_path)
    path = repo / "configs" / "nvidia-master.yaml"
    text = path.read_text()
    old = "runner: cluster:b300-nv"
    at = text.index(old, text.index("kimik3-fp4-b300-vllm-agentic-dspark:\n"))
    path.write_text(text[:at] + "runner: cluster:b200-nv" + text[at + len(old):])
    runners = repo / "configs" / "runners.yaml"
    runners.write_text(runners.read_text().replace("labels:\n", "labels:\n  cluster:b200-nv:\n    - b200-nv_00\n", 1))
    line = one_clear_line(sg(repo, "full-sweep"), "'cluster:b200-nv' has no hardware entry",
                          "add available-cpu-dram-mib under hardware['cluster:b200-nv'] in configs/runners.yaml")
    assert "did you mean" not in line and "Fix the config's runner" not in line, line


# --------------------------------------------------------------------------- warnings say they are warnings


def test_a_warning_line_says_it_is_a_warning(tmp_path):
    """A check that passes with a warning (exit 0) prints its line on stderr beside nothing else that
    would tell it from an error: the line itself says `warning:` after its place, as `full-sweep`'s
    filter warnings and ingest's do, and a note says `note:`."""
    repo = tmp_path / "r"
    repo.mkdir()
    example.build_repo(str(repo))
    added = sg(repo / "configs", "changelog", "add", "--key", SEED, "--description", "rerun after the driver update")
    assert added.returncode == 0, added.stderr
    git(repo, "commit", "-q", "-am", "entry with the XXX placeholder")
    proc = sg(repo / "configs", "validate", *REFS, "--pr-number", "7")
    assert proc.returncode == 0, proc.stderr
    (line,) = [x for x in proc.stderr.splitlines() if "XXX placeholder" in x]
    assert re.match(r"perf-changelog\.yaml:\d+:12: warning: pr-link still has the XXX placeholder; ", line), line


def test_a_note_line_says_it_is_a_note():
    from sweepgate.core.errors import Diagnostic

    info = Diagnostic("configs/x.yaml", 3, 0, "rerun", "'k' is selected again", "drop the entry", severity="info")
    assert info.render() == "configs/x.yaml:3: note: 'k' is selected again; drop the entry"
    said = Diagnostic("f.json", 1, 1, "r", "warning: model: other", "", severity="warning")
    assert said.render() == "f.json:1:1: warning: model: other"  # said once
    warned = Diagnostic("f.json", 1, 1, "r", "model: other", "", severity="warning")
    assert warned.annotation() == "::warning file=f.json,line=1::model: other"  # the command is the level
    assert Diagnostic("f", 2, 0, "r", "bad", "fix it").render() == "f:2: bad; fix it"  # an error is as it was


def test_the_matrix_step_says_when_main_moved_under_the_branch(tmp_path):
    """A branch behind main, planned against main (`sweepgate plan --base-ref main`): the entries main
    gained read as edits of history, and the matrix step (matrix, plan, preflight) said only
    "restore it byte for byte", which the author never broke; the gate's base-moved line says why."""
    repo = tmp_path / "r"
    repo.mkdir()
    example.build_repo(str(repo))
    git(repo, "checkout", "-q", "-B", "main")
    git(repo, "checkout", "-q", "-b", "mine")
    assert sg(repo, "changelog", "add", "--key", SEED, "--description", "mine", "--pr-number", "8").returncode == 0
    git(repo, "commit", "-q", "-am", "my entry")
    git(repo, "checkout", "-q", "main")
    assert sg(repo, "changelog", "add", "--key", SEED, "--description", "main's", "--pr-number", "9").returncode == 0
    git(repo, "commit", "-q", "-am", "main moves")
    git(repo, "checkout", "-q", "mine")
    for command in ("matrix", "plan"):
        proc = sg(repo / "configs", command, "--base-ref", "main", "--head-ref", "HEAD")
        assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
        lines = proc.stderr.splitlines()
        assert any("history line" in x and "edited" in x for x in lines), proc.stderr
        (moved,) = [x for x in lines if "not based on" in x]
        assert re.match(r"perf-changelog\.yaml:\d+: main has commits this change is not based on: ", moved), moved
        assert "sweepgate changelog rebase --onto main" in moved, moved
    gate = sg(repo, "validate", "--base-ref", "main", "--head-ref", "HEAD")
    assert gate.returncode == 1 and sum("not based on" in x for x in gate.stderr.splitlines()) == 1, gate.stderr
    # descended from the base: no such line
    ok = sg(repo, "matrix", "--base-ref", "main~1", "--head-ref", "HEAD")
    assert ok.returncode == 0 and "not based on" not in ok.stderr, ok.stderr


@pytest.mark.parametrize("script", ["process_changelog.py", "validate_perf_changelog.py"])
def test_a_reference_entry_point_s_usage_names_the_script(script):
    """New-user review: `utils/process_changelog.py --help` printed `usage: sweepgate matrix ...`, and
    its argument errors were said by "sweepgate matrix", a command the user never typed."""
    import subprocess
    import sys

    path = str(Path(__file__).resolve().parents[1] / "utils" / script)
    shown = subprocess.run([sys.executable, path, "--help"], capture_output=True, text=True)
    wrong = subprocess.run([sys.executable, path, "--bogus"], capture_output=True, text=True)
    assert shown.returncode == 0 and shown.stdout.startswith(f"usage: {script} [-h] "), shown.stdout
    assert wrong.returncode == 2 and wrong.stderr.strip().splitlines()[-1].startswith(f"{script}: error: "), wrong.stderr
