"""A master config or configs/runners.yaml saved as UTF-16 or UTF-32 (PowerShell 5's `Out-File` and `>` write UTF-16
with a mark; an editor's "Save with encoding" without one) was refused as a NUL 'not allowed in YAML' with 'remove it
(a control character pasted with the text?)' for its fix, or as 'not valid UTF-8 (byte 0xff)', where the changelog's
readers name the encoding and the iconv that saves it as UTF-8 (s47h, s48f): every YAML input now says it so."""

from __future__ import annotations

import pytest

from conftest import CHANGELOG, FLEET_NVIDIA, RUNNERS, appended_entry

from sweepgate import cli  # noqa: E402


@pytest.mark.parametrize("path, text", [("configs/nvidia-master.yaml", FLEET_NVIDIA),
                                        ("configs/runners.yaml", RUNNERS)])
@pytest.mark.parametrize("codec, name, iconv", [("utf-16-le", "UTF-16", "UTF-16LE"), ("utf-16", "UTF-16", "UTF-16"),
                                                ("utf-32-be", "UTF-32", "UTF-32BE")])
def test_a_wide_config_is_named_with_its_encoding(repo_outside_actions, capsys, path, text, codec, name, iconv):
    repo = repo_outside_actions
    repo.commit({path: text.encode(codec), "perf-changelog.yaml": CHANGELOG + appended_entry("5")})
    rc = cli.main(["validate", "--base-ref", repo.base, "--head-ref", repo.head(), "--pr-number", "5"])
    out, err = capsys.readouterr()
    assert rc == 1, out + err
    said = (f"{path}:1: file is {name} text, not UTF-8; save it as UTF-8 without a byte-order mark "
            f"(e.g. iconv -f {iconv}")
    assert said in err, err
    assert "#x0000" not in err and "byte 0xff" not in err and "byte 0xfe" not in err, err
