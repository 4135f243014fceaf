"""Command-line leftovers about benchmark scripts and `rehearse` (s34h), each driven as a real process in a real
git repository.

1. `plan`'s "rerun unchanged" note said "... and benchmarks/benchmark_lib.sh unchanged" in a repository that has
   no benchmark library.
2. A script that sources the library through a folder variable (`source "$SCRIPT_DIR/../../benchmark_lib.sh"`),
   with arguments after it, or by `$(dirname -- "$0")`, was not read as sourcing it: no hint, and bash's own
   `No such file or directory`. A comment or an echo that only names the file sources nothing.
3. `rehearse --row-json FILE --conc 4` with one row in FILE said "no row chosen": one row is the choice.
"""

from __future__ import annotations

import json

from conftest import CHANGELOG
from test_changelog_tools import entry
from test_gate_cli_s34c import FIXED, LIBRARY_FIX, own_scripts, sweepgate

from sweepgate.core import recipes
from sweepgate.core.sweep import worktree_keyed_rows

# --- 1. plan's rerun note names only what the repository has ---------------------------------------------


def test_plan_rerun_note_names_no_library_the_repository_lacks(make_repo):
    repo = own_scripts(make_repo)
    base = repo.head()
    head = repo.commit_changelog(CHANGELOG + entry("dsr1-fp4-b300-*", "5"))
    r = sweepgate(["plan", "--base-ref", base, "--head-ref", head], repo.path)
    notes = [line for line in r.stderr.splitlines() if "identical to base" in line]
    assert r.returncode == 0 and len(notes) == 2, r.stderr
    assert all("benchmark_lib.sh unchanged" not in n and "sh unchanged)" in n for n in notes), notes
    # with the library, the note names it again
    fixed = repo.commit({"benchmarks/benchmark_lib.sh": "#!/usr/bin/env bash\n"})
    head = repo.commit_changelog(CHANGELOG + entry("dsr1-fp4-b300-*", "5") + entry("dsr1-fp4-b300-*", "6"))
    r = sweepgate(["plan", "--base-ref", fixed, "--head-ref", head], repo.path)
    notes = [line for line in r.stderr.splitlines() if "identical to base" in line]
    assert len(notes) == 2 and all("and benchmarks/benchmark_lib.sh unchanged)" in n for n in notes), r.stderr


# --- 2. the ways real scripts source the library --------------------------------------------------------

SOURCES_IT = {  # how the line spells it -> the script's text (it sources the library at line 4)
    "folder variable": 'SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"\n'
                       'source "$SCRIPT_DIR/../../benchmark_lib.sh"\n',
    "braced variable, `.`": 'DIR=$(dirname "$0")\n. "${DIR}/../../benchmark_lib.sh"\n',
    "variable of a subfolder": 'TOP="$( cd -- "$( dirname -- "${BASH_SOURCE[0]}" )/../.." &> /dev/null && pwd )"\n'
                               'source "$TOP/benchmark_lib.sh"\n',
    "arguments after it": '\nsource "$(dirname "${BASH_SOURCE[0]}")/../../benchmark_lib.sh" --validation-only\n',
    "dirname --, folder quoted alone": '\nsource "$(dirname -- "$0")"/../../benchmark_lib.sh || exit 1\n',
    "from the top, after ./": '\n. ./benchmarks/benchmark_lib.sh  # shared helpers\n',
}
NAMES_IT = ('# source "$(dirname "$0")/../../benchmark_lib.sh"\n'
            'SCRIPT_DIR="$(dirname "$0")"\necho "source $SCRIPT_DIR/../../benchmark_lib.sh"\n'
            'test -f "$SCRIPT_DIR/../../benchmark_lib.sh.bak" && echo old\n'
            'source "$OTHER/../../benchmark_lib.sh"  # a folder not the script\'s\n')


def test_every_way_real_scripts_source_the_library_is_read_and_nothing_else():
    script = f"{FIXED}/dsr1_fp4_b300_vllm.sh"
    for how, body in SOURCES_IT.items():
        blobs = {script: f"#!/usr/bin/env bash\nset -e\n{body}echo serve\n".encode()}
        assert recipes.library_lines([script], blobs) == [(script, 4)], how
    blobs = {script: f"#!/usr/bin/env bash\n{NAMES_IT}".encode()}
    assert recipes.library_lines([script], blobs) == [], NAMES_IT


def test_rehearse_and_preflight_hint_at_a_library_sourced_through_a_folder_variable(make_repo):
    script = f"{FIXED}/dsr1_fp4_b300_vllm.sh"
    repo = make_repo(files={script: f"#!/usr/bin/env bash\nset -e\n{SOURCES_IT['folder variable']}echo serve\n"})
    r = sweepgate(["rehearse", "--exp-name", "dsr1_1k1k", "--conc", "4"], repo.path)
    assert r.returncode == 1 and r.stderr.splitlines() == [
        f"{script}:4: sources benchmarks/benchmark_lib.sh, which the repository does not have" + LIBRARY_FIX], r.stderr
    r = sweepgate(["preflight", "--config-keys", "dsr1-fp4-b300-vllm"], repo.path)
    assert r.returncode == 1 and f"{script}:4: sources benchmarks/benchmark_lib.sh" in r.stderr, r.stderr
    assert "No such file" not in r.stdout + r.stderr


# --- 3. one row is the choice ------------------------------------------------------------------------------


def _rows(repo) -> list[dict]:
    return [dict(row) for _, row in worktree_keyed_rows(repo.path, ["dsr1-fp4-b300-vllm"])]


def test_rehearse_takes_the_one_row_of_its_file_and_holds_it_to_conc_and_where(make_repo, tmp_path):
    repo = own_scripts(make_repo)  # no library: a chosen row stops at the hint, before anything runs
    rows = _rows(repo)
    assert [row["conc"] for row in rows] == [4, 8, 16]
    one = tmp_path / "one.json"
    for held in (rows[0], [rows[0]]):  # a row, or a list of one
        one.write_text(json.dumps(held))
        for flags in ([], ["--conc", "4"], ["--where", "tp=8"], ["--conc", "4", "--where", "tp=8"]):
            r = sweepgate(["rehearse", "--row-json", str(one), *flags], repo.path)
            assert r.returncode == 1 and r.stderr.startswith(f"{FIXED}/dsr1_fp4_b300_vllm.sh:4: sources"), \
                (flags, r.stderr)
        r = sweepgate(["rehearse", "--row-json", str(one), "--conc", "8"], repo.path)
        assert r.returncode == 1 and r.stderr.splitlines() == [
            f"{one}: exp-name 'dsr1_1k1k' has no row with conc 8; pick --conc from: 4"], r.stderr
        r = sweepgate(["rehearse", "--row-json", str(one), "--where", "tp=4"], repo.path)
        assert r.returncode == 1 and r.stderr.splitlines() == [
            f"{one}: no row of exp-name 'dsr1_1k1k' has tp=4; its rows have tp 8"], r.stderr


def test_several_rows_without_exp_name_stay_an_error_that_names_the_choice(make_repo, tmp_path):
    repo = make_repo()
    many = tmp_path / "many.json"
    many.write_text(json.dumps(_rows(repo)))
    r = sweepgate(["rehearse", "--row-json", str(many)], repo.path)  # one exp-name: --conc chooses (s35d)
    assert r.returncode == 1 and r.stderr.splitlines() == [
        f"{many}: exp-name 'dsr1_1k1k' matches 3 rows (conc 4, 8, 16); choose one with --conc N"], r.stderr
    empty = tmp_path / "empty.json"
    empty.write_text("[]")
    r = sweepgate(["rehearse", "--row-json", str(empty)], repo.path)
    assert r.returncode == 1 and r.stderr.splitlines() == [
        f"{empty}: holds no rows; write one row object or a list of rows"], r.stderr
