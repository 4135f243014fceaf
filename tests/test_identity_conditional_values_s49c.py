"""s49c: a file run by a path whose start is written and whose folder a variable holds that the text set on conditions
to values written out (InferenceX's launch_mi355x-amds.sh: `BENCHMARK_SUBDIR="multi_node"` or
`"single_node/fixed_seq_len"` by the framework, `SCRIPT_NAME="${EXP_NAME%%_*}_${PRECISION}_mi355x_${FRAMEWORK}.sh"`,
then `bash "benchmarks/${BENCHMARK_SUBDIR}/${SCRIPT_NAME}"`) left every row of that launcher with no identity (`runs
"benchmarks/${BENCHMARK_SUBDIR}/${SCRIPT_NAME}"`: 345 of the corpus tip's 1,820 full-sweep rows), though a reader sees
every file it may be: each value the text gave the variable, each expansion in a value a `*`. Such a path is now read
as a path with a written start is, every tracked file it may be; a value the text cannot say (set by `read`, a
computed `export $(…)`) still leaves the row with no identity."""

from __future__ import annotations

import pytest
from test_identity_probe_s43j import _built, _each_edit_changes_the_identity_or_none
from test_unknown_prefix_s39u import _identity

SUBDIR = ('if [[ "$FRAMEWORK" == sglang-disagg ]]; then\n'
          '    if [[ "$SCENARIO_SUBDIR" == agentic/ ]]; then\n'
          '        SUB="multi_node/agentic"\n'
          '    else\n'
          '        SUB="multi_node"\n'
          '    fi\n'
          'else\n'
          '    SUB="single_node/fixed_seq_len"\n'
          'fi\n')
NAME = 'NAME="${EXP_NAME%%_*}_${PRECISION}_mi355x_${FRAMEWORK}.sh"\n'
FILES = {"benchmarks/multi_node/dsr1_fp4_mi355x_sglang-disagg.sh": "echo read:m\nsource shared/y.sh\n",
         "benchmarks/multi_node/agentic/dsr1_fp4_mi355x_sglang-disagg.sh": None,
         "benchmarks/single_node/fixed_seq_len/dsr1_fp4_mi355x_vllm.sh": None,
         "shared/y.sh": None}
READ = ["benchmarks/multi_node/dsr1_fp4_mi355x_sglang-disagg.sh", "shared/y.sh",
        "benchmarks/multi_node/agentic/dsr1_fp4_mi355x_sglang-disagg.sh",
        "benchmarks/single_node/fixed_seq_len/dsr1_fp4_mi355x_vllm.sh"]


@pytest.mark.parametrize("line", [
    SUBDIR + NAME + 'JOB_ID=$(bash "benchmarks/${SUB}/${NAME}")\n',
    SUBDIR + NAME + 'bash "benchmarks/$SUB/$NAME"\n',
    SUBDIR + 'bash "benchmarks/${SUB}/dsr1_fp4_mi355x_${FRAMEWORK}.sh"\n',
])
def test_a_file_run_through_values_set_on_conditions_is_part_of_the_identity(tmp_path, line):
    repo = _built(tmp_path, line, FILES)
    assert _identity(repo) is not None  # (the row was refused: `runs "benchmarks/${SUB}/${NAME}"`)
    _each_edit_changes_the_identity_or_none(repo, READ)


def test_a_value_only_the_run_knows_still_leaves_no_identity(tmp_path):
    """Guard: a value the text set and then lost to a writer only the run reads (`export $(cat .env)`, `read -r`) is
    still one only the run knows (the path's last name a variable: no written end to read instead): no identity, never
    a stale reuse."""
    for lost in ("export $(cat .env)\n", "read -r SUB < sub.txt\n"):
        (tmp_path / str(len(lost))).mkdir()
        repo = _built(tmp_path / str(len(lost)), 'SUB=multi_node/a\nN=x.sh\n' + lost + 'bash "benchmarks/${SUB}/${N}"\n',
                      {"benchmarks/multi_node/a/x.sh": None, "benchmarks/other/b/x.sh": None})
        assert _identity(repo) is None, lost
