"""s39a: the rehearsal's python shims hand the SGLang client to its stand-in however CPython's options run into
`-m` (e6ba16bf: `python3 -um MODULE`, `python3 -mMODULE`, `-Im`), but the lines of such a call (the client's line a
timeout stands at, preflight's note, a server's wrong port) were found by `-m MODULE` alone
(``scriptlines.runs_module``), so those spellings stood at the script or its server wait. They are the client's
line now; another word ending in m (`--num`), another module, or a module's name in an echo's string is not.
"""

from __future__ import annotations

import pytest

from sweepgate.core import scriptlines
from sweepgate.rehearsal import runner


@pytest.mark.parametrize("call", ["python3 -um sglang.bench_serving", "python3 -msglang.bench_serving",
                                  "python3 -I -Bm sglang.bench_serving", "python3.11 -u -m  sglang.bench_serving"])
def test_an_interpreter_s_options_run_into_m_still_find_the_client_line(tmp_path, call):
    script = tmp_path / "benchmarks/x.sh"
    script.parent.mkdir(parents=True)
    script.write_text(f'wait_for_server_ready --port "$PORT"\n{call} --model m \\\n  --output-file o.json\n')
    found = scriptlines.first_command(tmp_path, script, (runner.CLIENT_RUNS, runner.SERVER_WAITS))
    assert found == ("benchmarks/x.sh", 2)


@pytest.mark.parametrize("line", ["echo 'python3 -um sglang.bench_serving'", "python3 -um sglang.bench_serving_x",
                                  "tool --num sglang.bench_serving", "python3 -Wm sglang.bench_serving",
                                  "python3 -c 'x' -m sglang.bench_servings"])
def test_no_other_line_is_the_client_s(tmp_path, line):
    script = tmp_path / "benchmarks/x.sh"
    script.parent.mkdir(parents=True)
    script.write_text(line + "\n")
    assert scriptlines.first_command(tmp_path, script, (runner.CLIENT_RUNS,)) is None
