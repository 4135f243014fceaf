"""A new maintainer's mistakes on the results path (newuser20), each placed where it is."""

from __future__ import annotations

import json

import pytest

from helpers import job, run_cli, vllm_output


@pytest.mark.parametrize("key,value,said", [
    ("status", "ok", "job.status: expected one of success, failure, cancelled, got 'ok'"),
    ("attempt", "1", "job.attempt: expected an integer >= 1, got '1'"),
    ("ref", "main", "job.ref: 'main' is not a full ref"),
    ("finished", "2025-01-01T00:00:00Z", "job.finished: '2025-01-01T00:00:00Z' is before job.started"),
])
def test_a_hand_edited_sidecar_s_bad_value_is_placed_at_its_key(tmp_path, capsys, key, value, said):
    """A sidecar written by hand (indented, as an editor leaves it) with one wrong value was refused
    as `x.job.json: job.status: ...`, with no line: the rule is path:line:col where it is known."""
    side = job(**{key: value})
    (tmp_path / "x.json").write_text(json.dumps(vllm_output()), encoding="utf-8")
    text = json.dumps(side, indent=2)
    (tmp_path / "x.job.json").write_text(text, encoding="utf-8")
    line = next(n for n, s in enumerate(text.splitlines(), 1) if s.strip().startswith(f'"{key}"'))
    col = text.splitlines()[line - 1].index(f'"{key}"') + 1
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(tmp_path))
    assert rc == 1, err
    (first,) = err.strip().splitlines()
    assert first.startswith(f"{tmp_path / 'x.job.json'}:{line}:{col}: {said}"), first
