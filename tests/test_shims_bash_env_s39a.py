"""s39a: the rehearsal's shims are bash scripts, and bash reads `$BASH_ENV` (the job's own, which the rehearsal puts
back for the script) and takes `$SHELLOPTS` (a script's `export SHELLOPTS`) before their first line; a real
`python3` does neither. So under a job's BASH_ENV that prints, `v=$(python3 -c 'print(42)')` held that print too,
and after `set -x; export SHELLOPTS` each python3 call traced the shim's own lines on the script's stderr. The
shims now run in bash's privileged mode (`-p`: no BASH_ENV, no SHELLOPTS from the environment). Real bash, a real
python3 behind the shim, the script's output compared without and with the shims on PATH.
"""

from __future__ import annotations

import subprocess

from test_standin_fixes_s38u import _interp_dir

from sweepgate.rehearsal import runner

SCRIPT = ("v=$(python3 -c 'print(42)'); echo \"v=[$v]\"\npython3 -c 'import sys; print(sys.argv[1:])' a 'b c'\n"
          "set -x\nexport SHELLOPTS\npython3 -c 'print(1)'\nset +x\necho end\n")


def test_a_python3_call_through_the_shim_prints_and_traces_what_the_real_one_does(tmp_path, monkeypatch):
    other, shims = _interp_dir(tmp_path, "python3"), tmp_path / "shims"
    monkeypatch.setenv("PATH", str(other))
    runner.write_shims(shims)
    (tmp_path / "job_env.sh").write_text('echo "job env loaded"\n')
    (tmp_path / "s.sh").write_text(SCRIPT)

    def run(path: str) -> tuple[int, str, str]:
        r = subprocess.run([str(other / "bash"), "s.sh"], cwd=tmp_path, capture_output=True, text=True, timeout=60,
                           env={"PATH": path, "BASH_ENV": str(tmp_path / "job_env.sh")})
        return r.returncode, r.stdout, r.stderr

    plain = run(str(other))
    assert plain[1].startswith("job env loaded\nv=[42]\n['a', 'b c']\n1\n"), plain
    assert run(f"{shims}:{other}") == plain
