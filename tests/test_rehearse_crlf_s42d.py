"""A benchmark script saved with CRLF line endings is told so (s42d, a new user's walk).

A script a Windows editor saved (or a checkout under core.autocrlf=true of a file committed so) failed its
rehearsal with bash's own words, `set: pipefail\\r: invalid option name` and `$'\\r': command not found`,
and the fix "its output ... says why", which it does not: nothing named the line endings. The problem now says
the script has CRLF line endings and how to save it, as the changelog gate says of its file.
"""

from __future__ import annotations

from test_rehearse import FSL_ROWS, _bench_with_script, cli, write_rows

B300_SCRIPT = "benchmarks/single_node/fixed_seq_len/dsr1_fp8_b300_vllm.sh"


def _rehearse(tmp_path, body: str):
    repo, script = _bench_with_script(tmp_path, body)
    r = cli(["--row-json", str(write_rows(tmp_path, FSL_ROWS[0])), "--work-dir", str(tmp_path / "w")], cwd=repo)
    said = [line for line in r.stderr.split("--- last lines of ")[0].splitlines() if line.startswith(B300_SCRIPT)]
    return r, said


def test_a_script_with_crlf_line_endings_is_told_to_use_lf(tmp_path):
    r, said = _rehearse(tmp_path, "#!/usr/bin/env bash\r\n\r\nset -eo pipefail\r\necho hi\r\n")
    assert r.returncode == 1 and len(said) == 1, r.stderr
    assert said[0].startswith(f"{B300_SCRIPT}:3: the script exited "), said[0]
    assert said[0].endswith("; the script has CRLF line endings (a Windows editor's), and bash reads each line's "
                            f"carriage return as part of its last word: save it with LF line endings (dos2unix "
                            f"{B300_SCRIPT})"), said[0]


def test_a_failing_script_with_lf_line_endings_is_not_told_of_them(tmp_path):
    r, said = _rehearse(tmp_path, "set -eo pipefail\necho 'Error: TP=8 only' >&2\nexit 1\n")
    assert r.returncode == 1 and len(said) == 1 and "CRLF" not in r.stderr, r.stderr
