"""s47f: the job-identity leftovers the s46 closing notes named, each a real git checkout whose launcher's lines are
read as the job's: an edit to a file the job runs or reads must change the row's identity, or the row must have none
(a blind row is never reused: a re-run, never a wrong reuse)."""

from __future__ import annotations

import pytest
from test_identity_probe_s43j import XY, XY_READ, _built, _each_edit_changes_the_identity_or_none
from test_unknown_prefix_s39u import _identity

RUN = {"tools/run": "#!/bin/bash\nbash shared/x.sh\n", **XY}


# a batch script with no script's ending, after an option that takes no value: the option was read as taking the
# script's word as its value (as `-o logs/%j.out`), so tools/run and what it runs were in no identity
@pytest.mark.parametrize("line", ["sbatch --parsable tools/run\n",
                                  "sbatch -N 2 --wait tools/run arg\n",
                                  "srun -l --exclusive tools/run\n",
                                  "sbatch -o logs/%j.out --parsable tools/run\n"])
def test_a_batch_script_after_an_option_that_takes_no_value_is_part_of_the_identity(tmp_path, line):
    repo = _built(tmp_path, line, RUN)
    assert _identity(repo) is not None
    _each_edit_changes_the_identity_or_none(repo, ["tools/run", *XY_READ])
