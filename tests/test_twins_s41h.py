"""Twins made one (s41h), where only one of the two copies had a test.

`rehearse` and the in-process ``runner.rehearse_row`` (what `sweepgate example` rehearses with) each held a row
`ci row-env` refuses (an LMCache arm on a runner label stating no accelerator-runtime) against
``runtime_refused``, in two copies of the same lines; the command's copy is tested
(test_preflight_rehearse_messages_s40u), the in-process one was not. Both now decide in ``runner.runnable``.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from test_preflight_rehearse_messages_s40u import AMD_KEY, FIX, LMCACHE_ROW, RUNNERS, WHAT, _without_runtime
from test_preflight_refs import ENV

from sweepgate.core.errors import SweepgateError
from sweepgate.rehearsal.runner import rehearse_row


def test_rehearse_row_refuses_a_row_ci_row_env_refuses_before_it_runs_anything(tmp_path):
    repo, line = _without_runtime(tmp_path)
    rows = subprocess.run([sys.executable, "-m", "sweepgate", "test-config", "--config-keys", AMD_KEY], cwd=repo,
                          capture_output=True, text=True, env=ENV, check=True).stdout
    row = next(row for row in json.loads(rows) if row["exp-name"] == LMCACHE_ROW)
    work = tmp_path / "w"
    with pytest.raises(SweepgateError) as refused:
        rehearse_row(repo, row, work, timeout=60)
    said = refused.value.diagnostics
    assert len(said) == 1 and said[0].render().startswith(f"{repo / RUNNERS}:{line}:3: {WHAT}{FIX}"), said
    assert not work.exists()  # no work dir, no script run, no sidecar
