"""`sweepgate validate` without --staged names only the refs it lacks (s47h: `validate --base-ref main` was told
"the following arguments are required: --base-ref, --head-ref", the flag given among them)."""

from __future__ import annotations

import pytest

from sweepgate import cli


@pytest.mark.parametrize("given, missing", [
    ([], "--base-ref, --head-ref"),
    (["--base-ref", "HEAD"], "--head-ref"),
    (["--head-ref", "HEAD"], "--base-ref"),
])
def test_validate_names_only_the_missing_refs(repo_outside_actions, capsys, monkeypatch, given, missing):
    monkeypatch.chdir(repo_outside_actions.path)
    with pytest.raises(SystemExit) as stop:
        cli.main(["validate", *given])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.splitlines()[-1] == ("sweepgate validate: error: the following arguments are required: "
                                    f"{missing} (or --staged to check the working tree)"), err
