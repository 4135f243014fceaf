"""s39f: the shell reading's cases still misread, each checked against real bash.

1. A line that runs a command recorded (``scriptlines.command_line``, a leftover's or a problem's words) and the
   line preflight says writes a refused flag (``preflight.locate``) were found in the text of each line, a
   trailing comment's too: `echo start  # python3 -m vllm... --port 8000` on a line before the one that runs it
   was that line. ``scriptlines.script_lines`` now gives each line with its comment blank (strings kept).
2. A word that runs the next as a command (`builtin`, `command`, `eval`) spelled with quotes or a `\\`
   (`"eval" source X`, `\\builtin source X`, `'command' source X`, `e"val" source X`), which bash runs as the word
   unquoted, read as an unknown program's: no source, so a helper sourced so dropped out of the run identity (a
   changed helper was reused as unchanged). Such a word is now read as `source` itself was: unquoted. `time`
   quoted stays a program (bash runs `/usr/bin/time`, which cannot run `source`).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from test_sourced_library_s35c import LIB, SCRIPT, oracle_tests, script_text

from sweepgate.core import identity, scriptlines
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


QUOTED_LEADS = {  # the script's text after its first two lines; bash sources the library once, at the line read
    '"eval" source': f'"eval" source {LIB}\n',
    '"builtin" source': f'"builtin" source {LIB}\n',
    "\\builtin source": f"\\builtin source {LIB}\n",
    "\\eval source": f"\\eval source {LIB}\n",
    "'command' source": f"'command' source {LIB}\n",
    '"command" -p .': f'"command" -p . {LIB}\n',
    'e"val" source': f'e"val" source {LIB}\n',
    "$'builtin' source": f"$'builtin' source {LIB}\n",
    'after ;, "eval" "builtin" source': f'true; "eval" "builtin" source {LIB}\n',
    'S=; ${S} "builtin" source': f'S=; ${{S}} "builtin" source {LIB}\n',
    'if ...; then \\command source': f"if true; then \\command source {LIB}; fi\n",
}
QUOTED_NOTHING = {  # bash runs another command: a program `time`, `xeval`, `eval ` (with its blank)
    '"time" source': f'"time" source {LIB} 2>/dev/null || true\n',
    "\\time source": f"\\time source {LIB} 2>/dev/null || true\n",
    'x"eval" source': f'x"eval" source {LIB} 2>/dev/null || true\n',
    '"eval " source': f'"eval " source {LIB} 2>/dev/null || true\n',
    'echo "eval" source': f'echo "eval" source {LIB}\n',
}

(test_a_quoted_word_that_runs_a_source_is_read_as_its_source,
 test_a_quoted_word_that_runs_another_command_reads_no_source) = oracle_tests(QUOTED_LEADS, QUOTED_NOTHING)


def test_a_helper_sourced_after_a_quoted_eval_or_builtin_is_part_of_the_run_identity():
    helpers = {"benchmarks/shared/eval.sh": '"eval" source {}\n', "benchmarks/shared/builtin.sh": "\\builtin . ./{}\n"}
    body = "".join(text.format(path) for path, text in helpers.items())
    tree = {SCRIPT: script_text(body).encode(), **{path: b"echo helper\n" for path in helpers}}
    assert sorted(identity.sourced_helpers(SCRIPT, tree)) == sorted(helpers)
