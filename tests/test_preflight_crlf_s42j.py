"""preflight names a script's CRLF line endings as rehearse does (s42j, a new user's walk).

A benchmark script saved with CRLF line endings failed preflight's fast rehearsal with bash's own words and
the fix "run sweepgate rehearse on the row", where rehearse says the script has CRLF line endings and
`dos2unix PATH`. preflight now says that itself (rehearsal.runner.crlf_fix, one check for both).
"""

from __future__ import annotations

from test_preflight_said_once_s41d import SCRIPT, _preflight
from test_preflight_refs import fleet

CRLF_SAID = ("; the script has CRLF line endings (a Windows editor's), and bash reads each line's carriage return as "
             f"part of its last word: save it with LF line endings (dos2unix {SCRIPT})")


def test_a_script_with_crlf_line_endings_is_told_to_use_lf(tmp_path):
    repo = fleet(tmp_path, "main")
    script = repo / SCRIPT
    script.write_bytes(script.read_bytes().replace(b"\n", b"\r\n"))
    r = _preflight(repo, "dsr1-fp8-b300-vllm")
    said = [line for line in r.stderr.splitlines() if line.startswith(SCRIPT)]
    assert r.returncode == 1 and len(said) == 1, r.stderr
    assert said[0].endswith(CRLF_SAID), said[0]


def test_a_syntax_error_of_crlf_line_endings_is_told_to_use_lf(tmp_path):
    """bash reads `fi\\r` as no keyword: the file ends inside its `if`, a syntax error, said at the file's end."""
    repo = fleet(tmp_path, "main")
    script = repo / SCRIPT
    head, _, rest = script.read_bytes().partition(b"\n")
    script.write_bytes(b"\r\n".join([head, b"if true; then", b"  :", b"fi", *rest.split(b"\n")]))
    r = _preflight(repo, "dsr1-fp8-b300-vllm")
    said = [line for line in r.stderr.splitlines() if line.startswith(SCRIPT)]
    assert r.returncode == 1 and len(said) == 1 and "syntax error" in said[0], r.stderr
    assert said[0].endswith(CRLF_SAID), said[0]
