"""The benchmark library (and any helper) however a script sources it (s35c), checked against real bash.

1. A script that sources `benchmark_lib.sh` behind a test (`[ -r X ] && . X`, `[[ -f X ]] && source X`,
   `if [ -f X ]; then source X; fi`), by a path built from the script's folder another way
   (`$(realpath "$(dirname "$0")/../..")`, `$(cd "${BASH_SOURCE[0]%/*}/../.." && pwd)`, `$(dirname "$(dirname
   "$0")")`) or through a variable set from another (`ROOT=...; LIB_DIR="$ROOT/benchmarks"; source
   "$LIB_DIR/benchmark_lib.sh"`) was not read as sourcing it: `rehearse` and `preflight` ran bash into `No such
   file or directory` instead of the missing-library hint, and a helper sourced so was left out of the run
   identity (a changed helper was reused as unchanged).
2. The run identity hashes a helper however it is sourced: with arguments after it (`source helper.sh arg`), as
   `./helper.sh`, or in any of the forms of 1 (a change to it changes what the job runs).
"""

from __future__ import annotations

import subprocess

import pytest
from test_gate_cli_s34c import FIXED, LIBRARY_FIX, sweepgate
from test_reuse import assert_each_file_is_part_of_the_identity

from sweepgate.core import identity, recipes

SCRIPT = f"{FIXED}/dsr1_fp4_b300_vllm.sh"
LIB = "benchmarks/benchmark_lib.sh"  # the library, as the oracle tables' scripts name it from the top
# the library says which line of its caller sourced it, as bash counts them
# On stderr: a library sourced inside $( ) has its stdout captured (test_shell_reading_s35g).
LIBRARY = 'echo "library sourced at line ${BASH_LINENO[0]}" >&2\n'
SOURCES_IT = {  # how the script spells it -> its text after the first two lines
    "behind [ -r ] &&": '[ -r "$(dirname "$0")/../../benchmark_lib.sh" ] && . "$(dirname "$0")/../../benchmark_lib.sh"\n',
    "behind [[ -f ]] &&, from the top": '[[ -f benchmarks/benchmark_lib.sh ]] && source benchmarks/benchmark_lib.sh\n',
    "if ...; then source; fi": 'if [ -f benchmarks/benchmark_lib.sh ]; then source benchmarks/benchmark_lib.sh; fi\n',
    "in an if block": 'if true; then\n  source "${BASH_SOURCE[0]%/*}/../../benchmark_lib.sh"\nfi\n',
    "|| after a test": 'test ! -r ./benchmarks/benchmark_lib.sh || . ./benchmarks/benchmark_lib.sh\n',
    "realpath of the folder's parent": 'source "$(realpath "$(dirname "$0")/../..")/benchmark_lib.sh"\n',
    "cd to ${BASH_SOURCE[0]%/*}/../..": 'source "$(cd "${BASH_SOURCE[0]%/*}/../.." && pwd)/benchmark_lib.sh"\n',
    "dirname of dirname": 'source "$(dirname "$(dirname "$(dirname "$0")")")/benchmark_lib.sh"\n',
    "a variable set from another": 'SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"\n'
                                   'ROOT_DIR="$(cd "${SCRIPT_DIR}/../../.." && pwd)"\nLIB_DIR="$ROOT_DIR/benchmarks"\n'
                                   'source "$LIB_DIR/benchmark_lib.sh"\n',
    "a variable holding the file": 'LIB="$(dirname "$0")/../../benchmark_lib.sh"; [ -f "$LIB" ] && source "$LIB"\n',
    "$PWD, the top jobs run from": 'export BENCH_DIR="$PWD/benchmarks"\n. "${BENCH_DIR}/benchmark_lib.sh" --quiet\n',
}
SOURCES_NOTHING = {  # forms that name the library but bash does not source it
    "inside a string": 'echo "or run: [ -f x ] && source benchmarks/benchmark_lib.sh first"\n',
    "in a comment after code": 'echo hi  # then . benchmarks/benchmark_lib.sh\n',
    "a variable set to something else since": 'DIR="$(dirname "$0")"\nDIR=/opt/elsewhere\n'
                                              '[ -f "$DIR/../../benchmark_lib.sh" ] && . "$DIR/../../benchmark_lib.sh"\n',
    "a folder not the script's": 'source "$HOME/../../benchmark_lib.sh" 2>/dev/null || true\n',
    # after an assignment the next command was taken unchecked (final review s35)
    "in a comment after an assignment": "X=1 # if c; then source benchmarks/benchmark_lib.sh; fi\n",
    "in a string after an assignment": 'A=1 echo "x; source benchmarks/benchmark_lib.sh;"\n',
}


def script_text(body: str) -> str:
    return f"#!/usr/bin/env bash\nset -u\n{body}echo serve\n"


def bash_sourced_at(tmp_path, body: str) -> list[int]:
    """The lines at which real bash, run as a job runs it (from the checkout's top), sources the library."""
    (tmp_path / FIXED).mkdir(parents=True, exist_ok=True)
    (tmp_path / LIB).write_text(LIBRARY)
    (tmp_path / SCRIPT).write_text(script_text(body))
    r = subprocess.run(["bash", SCRIPT], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert "serve" in r.stdout, r.stdout + r.stderr
    return [int(line.rsplit(" ", 1)[1]) for line in r.stderr.splitlines() if line.startswith("library sourced")]


def read_where_bash_sources_it(tmp_path, body: str) -> None:
    """Real bash sources the library once, at one line, and that is the line read (``recipes.library_lines``)."""
    (line,) = bash_sourced_at(tmp_path, body)
    assert recipes.library_lines([SCRIPT], {SCRIPT: script_text(body).encode()}) == [(SCRIPT, line)], body


def read_as_bash_reads_no_source(tmp_path, body: str) -> None:
    """Real bash does not source the library, and nothing is read as sourcing it."""
    assert bash_sourced_at(tmp_path, body) == [], body
    assert recipes.library_lines([SCRIPT], {SCRIPT: script_text(body).encode()}) == [], body


def oracle_tests(sources_it: dict, sources_nothing: dict) -> tuple:
    """The two tests of a table of forms against real bash: each of ``sources_it`` is read at the line bash
    sources the library at; none of ``sources_nothing`` (which bash does not source it by) is read as one."""

    @pytest.mark.parametrize("how", sources_it)
    def test_the_line_bash_sources_the_library_at_is_the_line_read(tmp_path, how):
        read_where_bash_sources_it(tmp_path, sources_it[how])

    @pytest.mark.parametrize("how", sources_nothing)
    def test_a_form_bash_does_not_source_the_library_by_is_not_read_as_one(tmp_path, how):
        read_as_bash_reads_no_source(tmp_path, sources_nothing[how])

    return test_the_line_bash_sources_the_library_at_is_the_line_read, \
        test_a_form_bash_does_not_source_the_library_by_is_not_read_as_one


(test_the_line_bash_sources_the_library_at_is_the_line_read,
 test_a_form_bash_does_not_source_the_library_by_is_not_read_as_one) = oracle_tests(SOURCES_IT, SOURCES_NOTHING)


@pytest.mark.parametrize("how", ["behind [ -r ] &&", "if ...; then source; fi", "a variable set from another"])
def test_rehearse_and_preflight_give_the_hint_at_the_line_not_bash_s_error(make_repo, how):
    repo = make_repo(files={SCRIPT: script_text(SOURCES_IT[how])})
    line = recipes.library_lines([SCRIPT], {SCRIPT: script_text(SOURCES_IT[how]).encode()})[0][1]
    r = sweepgate(["rehearse", "--exp-name", "dsr1_1k1k", "--conc", "4"], repo.path)
    assert r.returncode == 1 and r.stderr.splitlines() == [
        f"{SCRIPT}:{line}: sources benchmarks/benchmark_lib.sh, which the repository does not have" + LIBRARY_FIX], r.stderr
    r = sweepgate(["preflight", "--config-keys", "dsr1-fp4-b300-vllm"], repo.path, GITHUB_ACTIONS="true")
    assert r.returncode == 1 and f"{SCRIPT}:{line}: sources benchmarks/benchmark_lib.sh" in r.stderr, r.stderr
    assert f"::error file={SCRIPT},line={line}::" in r.stdout + r.stderr
    assert "No such file" not in r.stdout + r.stderr


# --- 2. a helper however it is sourced is part of the run identity ----------------------------------------

HELPERS = {  # how the script sources the helper -> the helper's path
    'source benchmarks/shared/args.sh --fast\n': "benchmarks/shared/args.sh",
    '. ./benchmarks/shared/dot.sh\n': "benchmarks/shared/dot.sh",
    '[ -r benchmarks/shared/test.sh ] && . benchmarks/shared/test.sh\n': "benchmarks/shared/test.sh",
    'if [ -f benchmarks/shared/if.sh ]; then source benchmarks/shared/if.sh; fi\n': "benchmarks/shared/if.sh",
    'TOP="$(cd "$(dirname "$0")/../../.." && pwd)"\nSHARED="$TOP/benchmarks/shared"\nsource "$SHARED/var.sh" a\n':
        "benchmarks/shared/var.sh",
}


def test_a_helper_sourced_any_of_these_ways_is_part_of_the_run_identity(tmp_path):
    body = "".join(HELPERS)
    tree = {SCRIPT: script_text(f'source "$(dirname "$0")/../../benchmark_lib.sh"\n{body}').encode(),
            **{path: f"echo {path}\n".encode() for path in HELPERS.values()}}
    assert set(HELPERS.values()) <= set(identity.sourced_helpers(SCRIPT, tree))
    assert_each_file_is_part_of_the_identity(tree, HELPERS.values())
    # bash sources every one of them, from the checkout's top
    for path, blob in tree.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_bytes(blob)
    (tmp_path / LIB).write_text(LIBRARY)
    r = subprocess.run(["bash", SCRIPT], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert [line for line in r.stdout.splitlines() if "/shared/" in line] == list(HELPERS.values()), r.stdout + r.stderr


def test_a_word_nested_beyond_reason_is_no_place_and_no_traceback():
    """A `$(dirname ...)` nested thousands deep would recurse past Python's limit: it is followed no further."""
    deep = 'source "' + '$(dirname "' * 3000 + "$0" + '")' * 3000 + '/../../benchmark_lib.sh"\n'
    assert recipes.library_lines([SCRIPT], {SCRIPT: script_text(deep).encode()}) == []
    shallow = 'source "' + '$(dirname "' * 3 + "$0" + '")' * 3 + '/benchmark_lib.sh"\n'
    assert recipes.library_lines([SCRIPT], {SCRIPT: script_text(shallow).encode()}) == [(SCRIPT, 3)]
