"""s42e: the benchmark library's fix names its paths from the current folder, as every fix does.

A repository without `benchmarks/benchmark_lib.sh` is told where the library comes from (the repository
`sweepgate example --keep --no-rehearse` keeps). Run from a subfolder, that fix said `copy
benchmarks/benchmark_lib.sh and benchmarks/lib/`, paths from the top, on the very line whose other fix said
`create ../benchmarks/single_node/...` from the current folder (CONTRACTS, Conventions: the commands and
files of a fix are written from the current folder). `rehearse`, `preflight` and `plan` now say
`../benchmarks/benchmark_lib.sh and ../benchmarks/lib/` in `configs/`; from the top the line is as it was.
"""

from __future__ import annotations

import json

from conftest import CHANGELOG
from test_changelog_tools import entry
from test_cli_leftovers_s33h import LIBRARY_FIX, sweepgate
from test_cli_leftovers_s33h import LIBRARY_FIX_IN_CONFIGS as FROM_CONFIGS
from test_gate_cli_s34c import own_scripts
from test_rehearse import SEED_EXP, SEED_ROW


def test_rehearse_s_library_fix_is_from_the_current_folder(make_repo, tmp_path):
    repo = make_repo()  # no benchmarks/
    rows = tmp_path / "rows.json"
    rows.write_text(json.dumps(SEED_ROW))
    r = sweepgate(["rehearse", "--exp-name", SEED_EXP, "--row-json", str(rows)], repo.path / "configs")
    assert r.returncode == 1 and "create ../benchmarks/" in r.stderr, r.stderr
    assert r.stderr.rstrip().endswith(FROM_CONFIGS), r.stderr
    r = sweepgate(["rehearse", "--exp-name", SEED_EXP, "--row-json", str(rows)], repo.path)
    assert r.returncode == 1 and r.stderr.rstrip().endswith(LIBRARY_FIX), r.stderr  # from the top, as it was


def test_a_script_sourcing_the_missing_library_is_told_from_the_current_folder(make_repo):
    repo = own_scripts(make_repo)
    (repo.path / "configs" / "deep").mkdir()
    r = sweepgate(["rehearse", "--exp-name", "dsr1_1k1k", "--conc", "4"], repo.path / "configs" / "deep")
    assert r.returncode == 1 and r.stderr.rstrip().endswith(
        LIBRARY_FIX.replace(" benchmarks/", " ../../benchmarks/")), r.stderr
    r = sweepgate(["preflight", "--config-keys", "dsr1-fp4-b300-*"], repo.path / "configs")
    assert r.returncode == 1 and FROM_CONFIGS in r.stderr and LIBRARY_FIX not in r.stderr, r.stderr


def test_preflight_and_plan_say_it_from_the_current_folder(make_repo):
    repo = make_repo(files={"benchmarks/README.md": "# our scripts\n"})  # s50b: its own folder, no library
    r = sweepgate(["preflight", "--config-keys", "dsr1-fp4-b300-vllm"], repo.path / "configs")
    assert r.returncode == 1 and FROM_CONFIGS in r.stderr and LIBRARY_FIX not in r.stderr, r.stderr
    base = repo.head()
    head = repo.commit_changelog(CHANGELOG + entry("dsr1-fp4-b300-vllm", "5"))
    r = sweepgate(["plan", "--base-ref", base, "--head-ref", head], repo.path / "configs")
    assert r.returncode == 0 and FROM_CONFIGS in r.stderr and LIBRARY_FIX not in r.stderr, r.stderr
