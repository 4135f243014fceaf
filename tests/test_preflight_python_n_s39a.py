"""s39a: preflight named a script's `python3 -m sglang.bench_serving` in its note (0ff4205e), and the rehearsal stands
in for it as `python3.N -m` too (e6ba16bf, a shim for each python3.N on PATH), but preflight's engine_call took a
`python -m`/`python3 -m` call alone: the same client run as `python3.11 -m sglang.bench_serving` was recorded under
its shim's name and passed over in silence (no note), as was an SGLang server the library started as
`python3.11 -m sglang.launch_server` (the rehearsal's own check of that server takes any `python*` name). Now any
interpreter the shims stand for (python, python3, python3.N) is read alike. Real bash through the real shim, its
call log read as preflight reads it.
"""

from __future__ import annotations

import os
import subprocess

from test_standin_fixes_s38u import _interp_dir

from sweepgate.core import fields
from sweepgate.engines.preflight import check_row
from sweepgate.rehearsal import runner, standin


def test_a_client_run_as_python3_n_gets_preflight_s_note_at_its_line(tmp_path, monkeypatch):
    other, shims = _interp_dir(tmp_path, "python3.99"), tmp_path / "shims"
    monkeypatch.setenv("PATH", str(other))
    runner.write_shims(shims)
    script = tmp_path / "benchmarks/single_node/fixed_seq_len/x.sh"
    script.parent.mkdir(parents=True)
    script.write_text("echo go\npython3.99 -u -m sglang.bench_serving --model m --base-url http://127.0.0.1:9 \\\n"
                      "  --num-prompts 1 --output-file out.jsonl || true\n")
    log = tmp_path / "calls.jsonl"
    env = {k: v for k, v in os.environ.items() if k != standin.FAST_ENV}
    env.update(PATH=f"{shims}:{other}", SWEEPGATE_REHEARSE_LOG=str(log))
    subprocess.run([str(other / "bash"), str(script)], cwd=tmp_path, env=env, capture_output=True, timeout=120)
    calls, unreadable = runner._logged_calls(log)
    assert unreadable is None and [c["argv"][:2] for c in calls] == [["-m", fields.SGLANG_CLIENT_MODULE]], calls
    (note,) = check_row({"image": "vllm/vllm-openai:v0.11.0"}, calls, tmp_path, script)
    assert (note.severity, note.rule, note.line) == ("info", "engine-unchecked", 2), note
