"""s39f: the shell reading's cases still misread, each checked against real bash.

1. A line that runs a command recorded (``scriptlines.command_line``, a leftover's or a problem's words) and the
   line preflight says writes a refused flag (``preflight.locate``) were found in the text of each line, a
   trailing comment's too: `echo start  # python3 -m vllm... --port 8000` on a line before the one that runs it
   was that line. ``scriptlines.script_lines`` now gives each line with its comment blank (strings kept).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from sweepgate.core import scriptlines
from sweepgate.engines import preflight

SERVE = ["python3", "-m", "vllm.entrypoints.openai.api_server", "--port", "8000"]


def traced(path: Path, word: str) -> list[int]:
    """The lines real bash runs a command named ``word`` at (``set -x``, each trace line led by ``$LINENO``; bash
    takes no PS4 from the environment as root)."""
    r = subprocess.run(["bash", "-c", 'PS4="+\\${LINENO}: "; set -x; . "$0"', str(path)], capture_output=True,
                       text=True, timeout=60)
    return [int(m[1]) for m in re.finditer(rf"^\++(\d+): {re.escape(word)}(?: |$)", r.stderr, re.MULTILINE)]


def test_a_command_or_flag_in_a_trailing_comment_is_not_where_it_runs(tmp_path):
    script = tmp_path / "benchmarks" / "x.sh"
    script.parent.mkdir()
    script.write_text("#!/usr/bin/env bash\npython3() { :; }\n"
                      f"echo start  # {' '.join(SERVE)}\n"
                      f"echo '# kept'; {' '.join(SERVE)}  # then # more\n")
    (line,) = traced(script, "python3")
    assert line == 4
    assert scriptlines.command_line(tmp_path, script, SERVE) == ("benchmarks/x.sh", line)
    assert preflight.locate(tmp_path, script, "--port", "8000") == ("benchmarks/x.sh", line)
    assert preflight.locate(tmp_path, script, "--port") == ("benchmarks/x.sh", line)
