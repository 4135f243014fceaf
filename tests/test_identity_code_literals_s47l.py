"""s47l: code a file sets a variable to is read as an `eval`'s only where the eval's shell holds it (239aaae7).

``shellwords._code_literals`` took `eval "$DOCKER_CMD_DETECT"` to run the code the file writes where the file assigns
it once, unconditionally, quoted whole. Three such assignments leave the eval's shell without that code, so the eval
runs what the environment holds (code only the run knows, which may set which file runs), yet the row kept an
identity, and `ci reuse` could take a result whose inputs changed:

- in a subshell, `( export V='…' )`: the parent's V is untouched;
- before a command's word, `V='…' true`: the command's environment only, never the shell's variable;
- removed after, `unset V`: the eval runs nothing of it, and what it would have set is the environment's.

Each now leaves the row with no identity, as other code only the run knows does; the job.slurm case keeps one
(tests/test_identity_leftovers_s47f.py).
"""

from __future__ import annotations

import pytest
from test_identity_leftovers_s47f import DETECT, _built, _identity, _job

ELSEWHERE = {"shared/env.sh": "DOCKER_CMD_DETECT='RUN_FILE_FULL=/elsewhere/z.sh'\n"}


@pytest.mark.parametrize("detect", [
    "( export DOCKER_CMD_DETECT='DOCKER_CMD=docker' )\n",
    "(true; DOCKER_CMD_DETECT='DOCKER_CMD=docker')\n",
    "DOCKER_CMD_DETECT='DOCKER_CMD=docker' true\n",
    "DOCKER_CMD_DETECT='DOCKER_CMD=docker' \\\n  true\n",
    DETECT + "unset DOCKER_CMD_DETECT\n",
    DETECT + "unset -v X DOCKER_CMD_DETECT\n",
    DETECT + "unset \"$GONE\"\n",
    DETECT + "unset 'DOCKER_CMD_DETECT'\n",
], ids=["subshell", "subshell-after-a-command", "prefix", "prefix-continued", "unset", "unset-among-others",
        "unset-a-name-the-run-gives", "unset-quoted"])
def test_code_the_eval_s_shell_does_not_hold_leaves_no_identity(tmp_path, detect):
    repo = _built(tmp_path, "cd shared\nbash submit.sh\n", {**_job(detect), **ELSEWHERE})
    assert _identity(repo) is None  # was an identity: the code read as the eval's


@pytest.mark.parametrize("detect", [
    DETECT,
    "export DOCKER_CMD_DETECT='DOCKER_CMD=docker'; true\n",
    "export DOCKER_CMD_DETECT='DOCKER_CMD=docker' && true\n",
    "export DOCKER_CMD_DETECT='DOCKER_CMD=docker'  # the node's docker\n",
], ids=["job.slurm", "then-a-command", "and-a-command", "a-comment"])
def test_an_assignment_of_the_shell_s_own_keeps_the_identity(tmp_path, detect):
    repo = _built(tmp_path, "cd shared\nbash submit.sh\n", {**_job(detect), **ELSEWHERE})
    assert _identity(repo) is not None
