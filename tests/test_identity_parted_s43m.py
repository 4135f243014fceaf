"""s43m: a path run or read whose start only the run knows is still passed over (the row keeps its identity), while
one with a written start and a variable part is every tracked file its glob matches, and one through a default, an
array's element or a variable the text set to what it cannot say leaves the row with no identity
(test_identity_probe_s43j's PASSING holds the stale cases this fixed)."""

from __future__ import annotations

import pytest
from test_identity_probe_s43j import _built
from test_unknown_prefix_s39u import _identity

# the run's own files, under a variable only the run knows: passed over, the row keeps an identity
RUN_ONLY = {
    "python3 > $TMP/out.json; cat $TMP/out.json": 'python3 shared/x.py > "$TMP/out.json"\ncat "$TMP/out.json"\n',
    "OUT=$(mktemp -d); cat $OUT/r.json": 'OUT=$(mktemp -d)\npython3 shared/x.py > "$OUT/r.json"\ncat "$OUT/r.json"\n',
    "bash $S (S from the environment)": 'python3 shared/x.py\nbash "$S"\n',
    "cat results/${N}.json (nothing tracked matches)": 'N=x\npython3 shared/x.py\ncat "results/${N}.json"\n',
}


@pytest.mark.parametrize("case", RUN_ONLY)
def test_a_path_only_the_run_knows_keeps_the_identity(tmp_path, case):
    """Each case keeps an identity, and an edit to the script it runs changes it."""
    repo = _built(tmp_path, RUN_ONLY[case], {"shared/x.py": "print('x')\n"})
    first = _identity(repo)
    assert first is not None
    repo.write("shared/x.py", "print('y')\n")
    assert _identity(repo) != first


def test_a_written_start_with_a_variable_part_hashes_each_match_not_others(tmp_path):
    """`bash "shared/${N}.sh"` is every tracked shared/*.sh (shared/z.sh too, which it may run), not shared/c.txt."""
    repo = _built(tmp_path, 'N=x\nbash "shared/${N}.sh"\n',
                  {"shared/x.sh": "echo x\n", "shared/z.sh": "echo z\n", "shared/c.txt": "c\n"})
    first = _identity(repo)
    assert first is not None
    repo.write("shared/c.txt", "d\n")
    assert _identity(repo) == first
    repo.write("shared/z.sh", "echo changed\n")
    assert _identity(repo) != first
