"""New-user review (s33h): four leftovers of the command line, each driven as a real process.

1. A repository without `benchmarks/` was told "no benchmark script" with no word of where the
   library the scripts source (`benchmark_lib.sh`, `lib/`) comes from: the repository `sweepgate
   example --keep` keeps holds them, and the fix says so.
2. `results compare --plots charts --comment-file /tmp/x.md` from `benchmarks/` named the charts from
   /tmp (`repo/benchmarks/charts`); charts inside the repository are named from its top.
3. `changelog rebase` during a merge conflict said one identical line per marker (3 for one conflict).
4. A `--runner-name` the row's pool does not list was annotated `::error::` with no title.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "results"))

import synth  # noqa: E402
from conftest import CHANGELOG  # noqa: E402
from test_changelog_tools import entry, repo_env  # noqa: E402
from test_rehearse import SEED_EXP, SEED_ROW  # noqa: E402

from sweepgate.results import render, store  # noqa: E402


def sweepgate(args: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_") and k != "SWEEPGATE_DB"}
    full.update({"PYTHONPATH": str(ROOT / "utils"), "SWEEPGATE_REHEARSE_DURATION": "1", **env})
    return subprocess.run([sys.executable, "-m", "sweepgate", *args], cwd=cwd, env=full, capture_output=True,
                          text=True, timeout=300)


# --- 1. where the benchmark library comes from ----------------------------------------------

# s50b: from the copy the package ships (here the checkout's own: the tests run the package from it)
LIBRARY_FIX = ("; copy benchmarks/benchmark_lib.sh and benchmarks/lib/, which the scripts source, "
               f"from {ROOT}/benchmarks/, where sweepgate ships them")
# the same fix said in configs/: its paths from the current folder, as every fix's (s42e)
LIBRARY_FIX_IN_CONFIGS = LIBRARY_FIX.replace(" benchmarks/", " ../benchmarks/")


def test_a_missing_script_s_fix_says_where_the_benchmark_library_comes_from_and_it_is_there(make_repo, tmp_path):
    repo = make_repo()  # configs and changelog, no benchmarks/ (as a clone of the corpus)
    rows = tmp_path / "rows.json"
    rows.write_text(json.dumps(SEED_ROW))
    r = sweepgate(["rehearse", "--exp-name", SEED_EXP, "--row-json", str(rows)], repo.path / "configs")
    assert r.returncode == 1 and "no benchmark script" in r.stderr and LIBRARY_FIX_IN_CONFIGS in r.stderr, r.stderr
    # s50b: a repository with no benchmarks/ at all is told so once (test_new_user_s50b); one with its own
    # scripts but no library is told of each script it lacks
    own = make_repo(files={"benchmarks/README.md": "# our scripts\n"})
    r = sweepgate(["preflight", "--config-keys", "dsr1-fp4-b300-vllm"], own.path)
    problems = [line for line in r.stdout.splitlines() + r.stderr.splitlines() if "resolves to no benchmark script" in line]
    assert r.returncode == 1 and problems and all(LIBRARY_FIX in line for line in problems), r.stdout + r.stderr
    # a repository that has the library is not told to copy it
    has_lib = make_repo(files={"benchmarks/benchmark_lib.sh": "#!/usr/bin/env bash\n"})
    r = sweepgate(["rehearse", "--exp-name", SEED_EXP, "--row-json", str(rows)], has_lib.path)
    assert r.returncode == 1 and "no benchmark script" in r.stderr and "sweepgate ships" not in r.stderr, r.stderr
    # the fix works as written: the folder it names holds the library
    shipped = Path(LIBRARY_FIX.split(" from ", 1)[1].split(", where", 1)[0])
    assert (shipped / "benchmark_lib.sh").is_file() and (shipped / "lib" / "core.sh").is_file(), shipped


# --- 2. the comment's chart path ------------------------------------------------------------

SAID = " (output throughput per GPU against interactivity, PNG and SVG) was written to "


def test_charts_inside_the_repository_are_named_from_its_top_in_a_comment_file_outside_it(tmp_path):
    db = tmp_path / "r.db"
    with store.open_store(f"sqlite:///{db}") as st:
        st.add(synth.history(keys=synth.KEYS[:1], concs=(4,)) + synth.pr_run(keys=synth.KEYS[:1], concs=(4,)))
    repo = tmp_path / "s33h-repo"
    (repo / "benchmarks").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    base = ["results", "compare", "--db", f"sqlite:///{db}", "--run", "pr-7", "--plots", "charts"]
    r = sweepgate([*base, "--comment-file", str(tmp_path / "x.md")], repo / "benchmarks")
    assert r.returncode == 0, r.stderr
    (line,) = [x for x in (tmp_path / "x.md").read_text().splitlines() if SAID in x]
    assert line.endswith(f"{SAID}`benchmarks/charts` (from the repository's top), {render.LOCAL}."), line
    # a comment file whose folder holds the charts (both in the repository) still names them from there
    r = sweepgate([*base, "--comment-file", "x.md"], repo / "benchmarks")
    assert r.returncode == 0, r.stderr
    (line,) = [x for x in (repo / "benchmarks" / "x.md").read_text().splitlines() if SAID in x]
    assert line.endswith(f"{SAID}`charts`, {render.LOCAL}."), line


# --- 3. one line per merge conflict -----------------------------------------------------------

def test_rebase_during_a_merge_conflict_says_each_conflict_once_with_its_marker_count(make_repo):
    repo = make_repo()
    repo.git("checkout", "-q", "-b", "side")
    repo.commit_changelog(CHANGELOG + entry("dsr1-fp4-b300-sglang", "XXX"))
    repo.git("checkout", "-q", "main")
    repo.commit_changelog(CHANGELOG + entry("dsr1-fp4-b300-vllm", "3"))
    repo.git("checkout", "-q", "side")
    merge = subprocess.run(["git", "merge", "-q", "main"], cwd=repo.path, capture_output=True, env=repo_env())
    assert merge.returncode == 1 and b"<<<<<<<" in repo.read()
    before = repo.read()
    markers = [n for n, ln in enumerate(before.split(b"\n"), 1) if ln.startswith((b"<<<<<<<", b"=======", b">>>>>>>"))]
    first, last = markers[0], markers[-1]
    assert len(markers) == 3, before
    r = sweepgate(["changelog", "rebase", "--onto", "main"], repo.path / "configs")
    lines = r.stderr.splitlines()
    assert r.returncode == 1 and len(lines) == 1 and repo.read() == before, r.stderr
    assert lines[0].startswith(f"perf-changelog.yaml:{first}: merge conflict in the working-tree changelog "
                               f"(3 markers, lines {first}-{last}); a merge is in progress: `sweepgate changelog rebase "
                               "--onto main --branch ORIG_HEAD`"), r.stderr


def test_conflicts_are_grouped_from_their_opening_to_their_closing_marker():
    from sweepgate.core.history import conflicts

    text = b"a\n<<<<<<< HEAD\nb\n|||||||\n=======\nc\n>>>>>>> main\nd\n=======\n<<<<<<< x\n>>>>>>> y\n"
    assert conflicts(enumerate(text.split(b"\n"), 1)) == [[2, 4, 5, 7], [9], [10, 11]]


# --- 4. the runner-pool refusal's title ---------------------------------------------------------

def test_a_runner_outside_the_row_s_pool_is_titled_unknown_runner_under_actions(tmp_path):
    repo = tmp_path / "bench"
    shutil.copytree(ROOT / "configs", repo / "configs", symlinks=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    rows = tmp_path / "rows.json"
    rows.write_text(json.dumps(SEED_ROW))
    r = sweepgate(["rehearse", "--exp-name", SEED_EXP, "--row-json", str(rows), "--runner-name", "x_01"],
                  repo / "configs", GITHUB_ACTIONS="true")
    assert r.returncode == 1 and "::error title=unknown-runner::--runner-name: runner 'x_01'" in r.stderr, r.stderr
    r = sweepgate(["ci", "row-env", "--row", json.dumps(SEED_ROW), "--runner-name", "x_01", "--output", "-"], repo,
                  GITHUB_ACTIONS="true")
    assert r.returncode == 1 and "::error title=unknown-runner::--runner-name: runner 'x_01'" in r.stderr, r.stderr


def test_preflight_tells_where_the_library_comes_from_once_not_on_every_missing_script(make_repo):
    # s34: a clone of the corpus (no benchmarks/) had the same long fix on each of ~200 problem lines
    from sweepgate.commands.preflight import LIBRARY_LATER

    repo = make_repo(files={"benchmarks/README.md": "# our scripts\n"})  # s50b: its own folder, no library
    r = sweepgate(["preflight"], repo.path / "configs")
    problems = [line for line in r.stderr.splitlines() if "resolve" in line and "to no benchmark script" in line]
    assert r.returncode == 1 and len(problems) > 1, r.stderr
    assert problems[0].endswith(LIBRARY_FIX_IN_CONFIGS), problems[0]
    assert all(line.endswith(f"; {LIBRARY_LATER}") for line in problems[1:]), problems
