"""s48e: code a file sets a variable to is an `eval`'s in a command string only where the string's shell gets it.

s47f (``shellwords._code_literals``) reads `eval "$DOCKER_CMD_DETECT"` as running the code the file writes, and s47l
holds that code for a command string run after the assignment (InferenceX's job.slurm exports it, then runs
`srun … bash -lc "… eval …"`). It was held for every command string, also where the string's shell never gets the
variable: one not exported, or a string run by `docker run` (the container's environment is the image's), `sudo`,
`env -i`, `srun --export=NONE`. There the eval runs what that shell's own environment holds, code only the run knows
that may choose the file run, yet the row kept an identity and `ci reuse` could take a result whose inputs changed.
Now the code is held only where the variable is exported and the string's command is a shell or Slurm's handing it
the environment (``shellwords._hands_down``); elsewhere the row has no identity.
"""

from __future__ import annotations

import pytest
from test_identity_probe_s43j import XY, XY_READ, _built, _each_edit_changes_the_identity_or_none
from test_unknown_prefix_s39u import _identity

RUN = "F=shared/x.sh; eval \"$DETECT\"; bash \"$F\""
EXPORTED, PLAIN = "export DETECT='DOCKER_CMD=docker'\n", "DETECT='DOCKER_CMD=docker'\n"


@pytest.mark.parametrize("lines", [
    PLAIN + f"bash -c '{RUN}'\n",  # not exported: the child's DETECT is its environment's
    PLAIN + f"srun -N 1 bash -c '{RUN}'\n",
    EXPORTED + f"docker run --rm -v \"$GITHUB_WORKSPACE\":/workspace -w /workspace img bash -c '{RUN}'\n",
    EXPORTED + f"sudo bash -c '{RUN}'\n",
    EXPORTED + f"env -i bash -c '{RUN}'\n",
    EXPORTED + f"srun --export=NONE bash -c '{RUN}'\n",
])
def test_an_eval_in_a_string_whose_shell_does_not_get_the_code_leaves_no_identity(tmp_path, lines):
    repo = _built(tmp_path, lines, XY)
    assert _identity(repo) is None  # was an identity: the file's code read as the eval's


@pytest.mark.parametrize("lines", [
    EXPORTED + f"bash -c '{RUN}'\n",
    EXPORTED + f"srun -N 1 --export=ALL bash -c '{RUN}'\n",
    PLAIN + "export DETECT\n" + f"srun -N 1 bash -lc '{RUN}'\n",
])
def test_an_eval_in_a_string_whose_shell_gets_the_exported_code_keeps_the_identity(tmp_path, lines):
    repo = _built(tmp_path, lines, XY)
    assert _identity(repo) is not None
    _each_edit_changes_the_identity_or_none(repo, XY_READ)
