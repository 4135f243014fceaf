"""s48f review: a changelog saved as UTF-16 without a byte-order mark is valid UTF-8 to a decoder (its ASCII text
and NUL bytes), so `sweepgate matrix` and `changelog add`, which named UTF-16 only where UTF-8 decoding failed
(s47h), told it otherwise than the gate does; each now says the gate's one line."""

from __future__ import annotations

from conftest import CHANGELOG  # noqa: F401
from test_gate import entry, repo  # noqa: F401  (fixtures)

LINE = ("perf-changelog.yaml:1: file is UTF-16 text, not UTF-8; save it as UTF-8 without a byte-order mark "
        "(e.g. iconv -f UTF-16LE -t UTF-8)")


def test_matrix_and_changelog_add_name_utf16_without_a_mark(repo, capsys):  # noqa: F811
    from sweepgate import cli

    data = (CHANGELOG + "\n" + entry()).encode("utf-16-le")
    head = repo.commit_changelog(data)
    assert cli.main(["matrix", "--base-ref", repo.base, "--head-ref", head]) == 1
    assert capsys.readouterr().err.splitlines() == [LINE]
    assert cli.main(["changelog", "add", "--key", "dsr1-fp4-b300-vllm", "--description", "x"]) == 1
    assert capsys.readouterr().err.splitlines() == [LINE]
    assert (repo.path / "perf-changelog.yaml").read_bytes() == data
