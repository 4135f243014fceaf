"""Gate and command-line leftovers (s34c), each driven as a real process in a real git repository.

1. A repository with its own benchmark scripts but no `benchmarks/benchmark_lib.sh`: `rehearse` and
   `preflight` ran bash into `No such file or directory` (preflight once per row, its fix "run sweepgate
   rehearse on the row"), and `plan` said nothing. Each now says it once, at the line that sources the
   library, with the fix that says where the library comes from.
2. `rehearse` with no flag to choose a row by exited 1 ("no row chosen") where `validate` without its refs,
   which also needs one of several flags, is argument syntax (exit 2).
3. A quoted number where a master config wants one (`pp: "1"`, `isl: "1024"`) was told "use a value of type
   integer"; the fix now says what to write (`write 1, not "1"`). The reference refused these too (its model
   takes `pp` strictly, and adds `isl` to a number).
"""

from __future__ import annotations

import re

from conftest import CHANGELOG, FLEET_NVIDIA
from test_changelog_tools import entry
from test_cli_leftovers_s33h import LIBRARY_FIX, sweepgate


# --- 1. scripts that source a benchmark library the repository lacks ---------------------------------

FIXED = "benchmarks/single_node/fixed_seq_len"
VLLM_SCRIPT = (f"{FIXED}/dsr1_fp4_b300_vllm.sh", "#!/usr/bin/env bash\nset -euo pipefail\n"
               "# shellcheck source=benchmarks/benchmark_lib.sh\n"
               'source "$(dirname "${BASH_SOURCE[0]}")/../../benchmark_lib.sh"\necho serve\n')
# the sglang script sources a helper of its own, which sources the library at its line 3
SGLANG_SCRIPT = (f"{FIXED}/dsr1_fp4_b300_sglang.sh", "#!/usr/bin/env bash\n"
                 'source "$(dirname "${BASH_SOURCE[0]}")/common.sh"\necho serve\n')
HELPER = (f"{FIXED}/common.sh", "#!/usr/bin/env bash\n# shared by the sglang scripts\n"
          ". benchmarks/benchmark_lib.sh\n")


def own_scripts(make_repo):
    return make_repo(files=dict([VLLM_SCRIPT, SGLANG_SCRIPT, HELPER]))


def test_rehearse_names_the_line_that_sources_the_missing_library(make_repo):
    repo = own_scripts(make_repo)
    r = sweepgate(["rehearse", "--exp-name", "dsr1_1k1k", "--conc", "4"], repo.path / "benchmarks")
    assert r.returncode == 1 and r.stderr.splitlines() == [  # the fix's paths from benchmarks/ (s42e)
        f"{VLLM_SCRIPT[0]}:4: sources benchmarks/benchmark_lib.sh, which the repository does not have"
        + LIBRARY_FIX.replace(" benchmarks/", " ")], r.stdout + r.stderr
    r = sweepgate(["rehearse", "--exp-name", "dsr1_8k1k", "--conc", "4"], repo.path)
    assert r.returncode == 1 and r.stderr.startswith(f"{HELPER[0]}:3: sources benchmarks/benchmark_lib.sh"), r.stderr
    assert "No such file" not in r.stdout + r.stderr


def test_preflight_says_it_once_for_every_row_and_runs_none_of_them(make_repo):
    repo = own_scripts(make_repo)
    r = sweepgate(["preflight", "--config-keys", "dsr1-fp4-b300-*", "--every-conc"], repo.path)
    problems = [line for line in r.stderr.splitlines() if ": " in line and not line.startswith("preflight:")]
    assert r.returncode == 1 and len(problems) == 1, r.stdout + r.stderr
    assert problems[0].startswith(f"{HELPER[0]}:3: sources benchmarks/benchmark_lib.sh, which the repository does "
                                  f"not have (1 other file sources it too: {VLLM_SCRIPT[0]}) ("), problems
    assert problems[0].endswith(LIBRARY_FIX) and "No such file" not in r.stdout + r.stderr, problems
    # the keys' 5 rows (3 + 2 concurrencies), one line (s51b; --all-rows: a line each)
    assert r.stdout.count("not rehearsed (no benchmark library)") == 1, r.stdout
    assert re.search(r"^preflight: \d config keys \(.*\), 5 rows: not rehearsed \(no benchmark library\), 1 problem ",
                     r.stdout, re.M), r.stdout


def test_plan_warns_once_at_the_line_and_the_library_silences_it(make_repo):
    repo = own_scripts(make_repo)
    base = repo.head()
    head = repo.commit_changelog(CHANGELOG + entry("dsr1-fp4-b300-*", "5"))
    r = sweepgate(["plan", "--base-ref", base, "--head-ref", head, "--fail-on-warning"], repo.path)
    said = [line for line in r.stderr.splitlines() if "sources benchmarks" in line]
    assert r.returncode == 3 and said == [
        f"{HELPER[0]}:3: warning: sources benchmarks/benchmark_lib.sh, which the head revision does not have "
        f"(1 other file sources it too: {VLLM_SCRIPT[0]})" + LIBRARY_FIX], r.stderr
    fixed = repo.commit({"benchmarks/benchmark_lib.sh": "#!/usr/bin/env bash\n"})
    r = sweepgate(["plan", "--base-ref", base, "--head-ref", fixed, "--json"], repo.path)
    assert r.returncode == 0 and "missing-library" not in r.stdout and "sources benchmarks" not in r.stderr, r.stderr


# --- 2. `rehearse` with nothing to choose a row by ------------------------------------------------------


def test_rehearse_with_no_row_named_is_argument_syntax_as_validate_without_refs_is(make_repo, tmp_path):
    """`rehearse` alone exited 1 ("no row chosen") after reading every config, while `validate` alone, which
    also needs one of several flags, is argparse's usage line and exit 2: a missing flag is argument syntax."""
    repo = make_repo()
    for command in (["rehearse"], ["rehearse", "--conc", "4", "--timeout", "5"], ["validate"]):
        r = sweepgate(command, repo.path)
        assert r.returncode == 2 and r.stderr.startswith(f"usage: sweepgate {command[0]} "), r.stderr
        assert f"sweepgate {command[0]}: error: the following arguments are required: " in r.stderr, r.stderr
    r = sweepgate(["rehearse"], tmp_path)  # said before the repository is looked for, as validate's is
    # s41d: --config-keys alone chooses a row too (its one row, or with --conc/--where), and help says so
    assert r.returncode == 2 and "required: --exp-name (or --config-keys KEY or --row-json FILE holding the row)" \
        in r.stderr, r.stderr
    # what chooses a row from data stays the data's: several rows and no --exp-name is bad input (exit 1)
    r = sweepgate(["rehearse", "--config-keys", "dsr1-fp4-b300-vllm"], repo.path)
    assert r.returncode == 1 and "choose one with --conc N" in r.stderr and "usage:" not in r.stderr, r.stderr


# --- 3. a quoted number in a master config ----------------------------------------------------------------


def test_a_quoted_number_in_a_master_config_is_told_to_lose_its_quotes_at_its_line(make_repo):
    repo = make_repo()
    base = repo.head()
    quoted = (FLEET_NVIDIA.replace("{ tp: 8, conc-start: 4, conc-end: 16 }", '{ tp: 8, pp: "1", conc-start: 4, conc-end: 16 }')
              .replace("    - isl: 1024\n", '    - isl: "1024"\n', 1))
    assert quoted.count('"1"') == 1 and quoted.count('"1024"') == 1
    head = repo.commit({"configs/nvidia-master.yaml": quoted, "perf-changelog.yaml": CHANGELOG + entry("dsr1-fp4-b300-vllm", "5")})
    lines = quoted.splitlines()
    isl = next(n for n, line in enumerate(lines, 1) if '"1024"' in line)
    pp = next(n for n, line in enumerate(lines, 1) if '"1"' in line)
    for command in (["matrix"], ["validate", "--pr-number", "5"]):
        r = sweepgate([*command, "--base-ref", base, "--head-ref", head], repo.path)
        said = [line for line in r.stderr.splitlines() if line.startswith("configs/nvidia-master.yaml:")]
        assert r.returncode == 1 and len(said) == 2, r.stderr
        assert said[0].startswith(f"configs/nvidia-master.yaml:{isl}:") and said[0].endswith('; write 1024, not "1024"')
        assert said[1].startswith(f"configs/nvidia-master.yaml:{pp}:") and said[1].endswith('; write 1, not "1"'), said
