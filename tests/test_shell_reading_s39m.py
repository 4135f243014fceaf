"""s39m: sources the shell reading could not see, so a change to the helper left the run identity as it was and
`ci reuse` handed the row the results of the old code.

1. A `source` inside a command string: `bash -c "source X"`, `bash -c 'source X; run'`, `sh -c ". X"`, `srun ...
   bash -c "..."` (how multi-node launchers start work on each node), `eval "source X"`, `eval 'source X'`: the
   string is read as the code it is, and what it sources is part of the identity.
2. A command substitution that prints nothing before `source` where a command begins (`$(true) source X`,
   `` `true` source X ``): bash sources X.
3. What the reading cannot place: `source <(...)` (a process substitution), `source /dev/stdin`, a path only the
   run knows (`source "$HELPERS/x.sh"` with HELPERS from the environment, `bash -c 'source "$0"' "$LIB"`): the row
   has no run identity (``identity.blind_spots``), and `ci reuse` runs its jobs and says why in one line.
Real bash is the oracle throughout; the reuse test uses a real git repository and a real store.
"""

from __future__ import annotations

import subprocess

import pytest
from test_reuse import (M_ROW, SCRIPTS, SHIPPED, assert_each_file_is_part_of_the_identity, at_main, reuse_at_merge, script,
                        squash_merged, with_support)
from test_sourced_library_s35c import LIB, SCRIPT, oracle_tests, script_text

from sweepgate.core import identity, recipes

SOURCES_IT = {  # read at the line bash sources the library at
    'eval "source X"': f'eval "source {LIB}"\n',
    "eval 'source X'": f"eval 'source {LIB}'\n",
    'eval -- "  . X"': f'eval -- "  . {LIB}"\n',
    'eval "A=1; source X"': f'eval "A=1; source \\"{LIB}\\""\n',
    "eval 'source '\"X\"": f"eval 'source '\"{LIB}\"\n",
    "$(true) source": f"$(true) source {LIB}\n",
    "`true` source": f"`true` source {LIB}\n",
    "$(true) $(:) . , after &&": f"true && $(true) $(:) . {LIB}\n",
    "A=1 $(true) source": f"A=1 $(true) source {LIB}\n",
    "if ...; then $(echo) source": f"if true; then $(echo -n) source {LIB}; fi\n",
}
SOURCES_NOTHING = {
    "echo $(true) source": f"echo $(true) source {LIB}\n",
    '"$(true)" source': f'"$(true)" source {LIB} 2>/dev/null || true\n',
    "echo eval 'source X'": f"echo eval 'source {LIB}'\n",
    "eval 'echo source X'": f"eval 'echo source {LIB}'\n",
    "# eval 'source X'": f"# eval 'source {LIB}'\n",
}

(test_the_line_bash_sources_the_library_at_is_the_line_read,
 test_a_form_bash_does_not_source_the_library_by_is_not_read_as_one) = oracle_tests(SOURCES_IT, SOURCES_NOTHING)

HELPER = "benchmarks/shared/helper.sh"
IN_A_STRING = {  # how the script runs a command string that sources the helper (from the checkout's top)
    "bash -c double-quoted": f'bash -c "source {HELPER}; echo ran"\n',
    "bash -c single-quoted": f"bash -c 'source {HELPER}; echo ran'\n",
    "sh -c": f'sh -c ". ./{HELPER} && echo ran"\n',
    "bash -lc after options": f'bash --norc -o pipefail -ec ". {HELPER}; echo ran"\n',
    "srun ... bash -c, over lines": f'srun() {{ while [[ $1 == -* ]]; do shift; done; "$@"; }}\nsrun --nodes=1 --ntasks=1 \\\n  bash -c "\n    set -e\n'
                                    f'    source \\"{HELPER}\\"\n    echo ran\n  "\n',
    "/bin/bash -c through a variable of the folder": 'D="$(cd "$(dirname "$0")/../../.." && pwd)"\n'
                                                     f'/bin/bash -c "source \\"$D/{HELPER}\\"; echo ran"\n',
    "eval over lines": f'eval "\n  true\n  source {HELPER}\n  echo ran\n"\n',
    "eval in a function": f"run() {{ eval 'source {HELPER}' && echo ran; }}\nrun\n",
    "$(true) source": f"$(true) source {HELPER}\necho ran\n",
    "a heredoc given to bash": f"bash <<'EOF'\nsource {HELPER}\necho ran\nEOF\n",
    "a heredoc piped to sh -s": f"cat <<EOF | sh -s\n  . ./{HELPER}\n  echo ran\nEOF\n",
    "a here-string to bash": f'bash <<< "source {HELPER}; echo ran"\n',
    "echo piped to bash -s": f'echo "source {HELPER}; echo ran" | bash -s\n',
    "printf piped to sh": f"printf '%s\\n' '. {HELPER}' 'echo ran' | sh\n",
}


def _bash_runs(tmp_path, body: str, **env: str) -> str:
    """What real bash prints running the script with ``body`` as a job runs it (from the checkout's top)."""
    for path, text in {SCRIPT: script_text(body), LIB: "", HELPER: "echo helper sourced\n"}.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    r = subprocess.run(["bash", SCRIPT], cwd=tmp_path, capture_output=True, text=True, timeout=60,
                       env={"PATH": "/usr/bin:/bin", **env})
    return r.stdout + r.stderr


@pytest.mark.parametrize("how", IN_A_STRING)
def test_a_helper_a_command_string_sources_is_part_of_the_run_identity(tmp_path, how):
    body = f'source "$(dirname "$0")/../../benchmark_lib.sh"\n{IN_A_STRING[how]}'
    said = _bash_runs(tmp_path, body)
    assert "helper sourced" in said and "ran" in said, said  # bash sources it
    tree = {SCRIPT: script_text(body).encode(), HELPER: b"echo helper sourced\n"}
    assert HELPER in identity.sourced_helpers(SCRIPT, tree)
    assert_each_file_is_part_of_the_identity(tree, [HELPER])


def test_a_helper_sourced_by_its_bare_name_from_the_top_is_part_of_the_run_identity(tmp_path):
    """`source helpers` (no `/`): bash looks on the PATH, then in the folder it runs from, the checkout's top."""
    body = f'source "$(dirname "$0")/../../benchmark_lib.sh"\nsource top_helpers.sh\nsource top_env\necho ran\n'
    for path in ("top_helpers.sh", "top_env"):
        (tmp_path / path).write_text(f"echo {path} sourced\n")
    said = _bash_runs(tmp_path, body)
    assert "top_helpers.sh sourced" in said and "top_env sourced" in said, said
    tree = {SCRIPT: script_text(body).encode(), "top_helpers.sh": b"1\n", "top_env": b"2\n"}
    assert {"top_helpers.sh", "top_env"} <= set(identity.sourced_helpers(SCRIPT, tree))
    assert_each_file_is_part_of_the_identity(tree, ["top_helpers.sh", "top_env"])


MOVED = {  # a `cd` before a `source` of a relative path: bash sources it from where the `cd` went
    "cd to the script's folder": 'cd "$(dirname "$0")" && source ../../../benchmarks/shared/helper.sh\n',
    "cd -P -- into benchmarks, then ./": "cd -P -- benchmarks && . ./shared/helper.sh\n",
    "pushd, relative twice": "pushd benchmarks >/dev/null\ncd shared\nsource helper.sh\n",
    "cd in a subshell leaves the top": "(cd benchmarks/shared && source helper.sh)\nsource benchmarks/shared/helper.sh\n",
}


@pytest.mark.parametrize("how", MOVED)
def test_a_helper_sourced_by_a_relative_path_after_a_cd_is_the_file_from_where_it_went(tmp_path, how):
    body = f'source "$(dirname "$0")/../../benchmark_lib.sh"\n{MOVED[how]}echo ran\n'
    said = _bash_runs(tmp_path, body)
    assert "helper sourced" in said and "ran" in said, said
    tree = {SCRIPT: script_text(body).encode(), HELPER: b"echo helper sourced\n"}
    assert HELPER in identity.sourced_helpers(SCRIPT, tree)
    assert_each_file_is_part_of_the_identity(tree, [HELPER])


UNSEEN = {  # what the script sources -> the word said
    "source <(...)": ("source <(cat benchmarks/shared/helper.sh)\n", "<(...)"),
    ". <(...) after &&": ("true && . <(cat benchmarks/shared/helper.sh)\n", "<(...)"),
    "source /dev/stdin": ("source /dev/stdin < benchmarks/shared/helper.sh\n", "/dev/stdin"),
    "bash -c with $0 its argument": ('bash -c \'source "$0"\' benchmarks/shared/helper.sh\n', '"$0"'),
    "a variable from the environment, alone": ('source "$F"\n', '"$F"'),
}
# s39u: a path whose start only the run knows but whose end is written reads every tracked file ending so
TAILS = {  # what the script sources -> the written end of its path
    "a variable from the environment": ('source "$HELPERS/helper.sh"\n', "helper.sh"),
    "eval of a variable's path": ('eval "source $HELPERS/helper.sh"\n', "helper.sh"),
    "a relative path after a cd only the run knows": ('cd "$HELPERS"; source helper.sh\n', "helper.sh"),
    "a relative path after a popd": ('pushd "$HELPERS" >/dev/null; popd >/dev/null; . benchmarks/shared/helper.sh\n',
                                     "benchmarks/shared/helper.sh"),
}


@pytest.mark.parametrize("how", UNSEEN)
def test_a_source_the_reading_cannot_place_leaves_the_row_without_a_run_identity(tmp_path, how):
    line, word = UNSEEN[how]
    body = f'source "$(dirname "$0")/../../benchmark_lib.sh"\n{line}'
    tree = with_support({SCRIPT: script_text(body).encode(), HELPER: b"echo helper sourced\n"})
    number = script_text(body).split("\n").index(line.rstrip("\n")) + 1
    assert recipes.unseen_sources([SCRIPT], tree) == [(SCRIPT, number, word)]
    (cause,) = identity.blind_spots(M_ROW, {}, tree)
    assert cause == f"{SCRIPT}:{number}: sources {word}"
    assert identity.run_identity(M_ROW, {}, tree) is None
    (said,) = identity.blind_lines({cause: [M_ROW]})
    assert said == f"1 job not reused, no run identity: {cause}, {identity.UNSEEN_WHY}"
    assert "helper sourced" in _bash_runs(tmp_path, body, HELPERS="benchmarks/shared",
                                          F="benchmarks/shared/helper.sh")  # bash sources the helper


@pytest.mark.parametrize("how", TAILS)
def test_a_source_whose_path_ends_in_written_names_hashes_each_tracked_file_ending_so(tmp_path, how):
    line, rest = TAILS[how]
    body = f'source "$(dirname "$0")/../../benchmark_lib.sh"\n{line}'
    tree = with_support({SCRIPT: script_text(body).encode(), HELPER: b"echo helper sourced\n"})
    number = script_text(body).split("\n").index(line.rstrip("\n")) + 1
    assert recipes.unseen_sources([SCRIPT], tree) == []
    assert recipes.tail_sources([SCRIPT], tree) == [(SCRIPT, number, rest)]
    assert identity.blind_spots(M_ROW, {}, tree) == []
    assert_each_file_is_part_of_the_identity(tree, [HELPER])
    assert "helper sourced" in _bash_runs(tmp_path, body, HELPERS="benchmarks/shared")  # bash sources the helper


@pytest.mark.parametrize("line", ['source "$HOME/.bashrc.d/x.sh" 2>/dev/null || true\n',
                                  "source /opt/venv/bin/activate 2>/dev/null || true\n",
                                  "source ~/x.sh 2>/dev/null || true\n",
                                  "source activate 2>/dev/null || true\n"])
def test_a_source_outside_the_checkout_leaves_the_identity(line):
    """A file outside the checkout (the image's, the runner's home) is no part of what the repository runs."""
    body = f'source "$(dirname "$0")/../../benchmark_lib.sh"\n{line}'
    tree = with_support({SCRIPT: script_text(body).encode()})
    assert identity.blind_spots(M_ROW, {}, tree) == []


def test_reuse_runs_the_jobs_of_a_script_sourcing_a_process_substitution_and_says_why(make_repo, tmp_path):
    """The vllm key's script sources its helper through `<(cat ...)`; the helper changes after the PR's sweep: its
    jobs are run, not reused, and `ci reuse` says why once; the sglang key's jobs are reused as before."""
    from test_blind_identity_s38k import ROOT

    vllm = SCRIPTS["dsr1-fp4-b300-vllm"]
    files = {rel: (ROOT / rel).read_text() for rel in SHIPPED}
    files.update({path: script(key) for key, path in SCRIPTS.items()})
    files[vllm] = files[vllm].replace("echo run\n", "source <(cat benchmarks/shared/helper.sh)\necho run\n")
    files[HELPER] = "MAX_BATCH=8\n"
    repo, db = make_repo(files=files), f"sqlite:///{tmp_path / 'results.db'}"
    _main, merged = squash_merged(repo, tmp_path, db, {HELPER: "MAX_BATCH=16\n"})
    proc = reuse_at_merge(repo, tmp_path, db, *at_main(merged))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "reused 2 of 5 jobs (≥ 4 GPU-hours saved)"
    said = [line for line in proc.stderr.splitlines() if "no run identity" in line]
    assert said == [f"sweepgate ci reuse: 3 jobs not reused, no run identity: {vllm}:4: sources <(...), "
                    f"{identity.UNSEEN_WHY}"], proc.stderr
