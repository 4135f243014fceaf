"""s39p: the shims run in bash's privileged mode (s39a: their own bash reads no job BASH_ENV and takes no exported
SHELLOPTS). But a bash in privileged mode hands on an environment it changed: SHELLOPTS (when the script exported
it) with its own value, `privileged` among its options, and BASHOPTS, PS4 and others its own. The real python3 a
shim ran saw that, and a bash it started ran privileged: no job BASH_ENV read, and the script's `set -e` lost
(`false; echo continued past false`, rc 0 where plain bash stops with 1). A shim now runs a real program with the
environment it was given. Real bash, a real python3 behind the shim, the script's output compared without and with
the shims on PATH.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from test_standin_fixes_s38u import _interp_dir

from sweepgate.rehearsal import runner

CHILD_BASH = ("set -e\nexport SHELLOPTS\n"
              "python3 -c 'import subprocess; r = subprocess.run([\"bash\", \"-c\", \"false; echo continued past false\"]);"
              " print(\"child rc\", r.returncode)'\n")
# What python3 was given, but `_` (bash sets it to the path it ran: the shim's, not the real python3's) and PATH (the
# shims' folder on it or not).
ENV_DUMP = ("set -o pipefail\nexport SHELLOPTS BASHOPTS\nshopt -s extglob\nf() { echo from f; }\nexport -f f\n"
            "export PS4='@@ ' GLOBIGNORE='*.x' CDPATH=/tmp\n"
            "python3 -c 'import os; [print(repr(k), repr(v)) for k, v in sorted(os.environ.items()) if k not in (\"_\", \"PATH\")]'\n"
            "python3 -c 'import subprocess; subprocess.run([\"bash\", \"-c\", \"echo $SHELLOPTS; shopt extglob; f\"])'\n")


def _run(tmp_path, bash, path: str, script: str, extra: dict | None = None) -> tuple[int, str, str]:
    (tmp_path / "s.sh").write_text(script)
    r = subprocess.run([str(bash), "s.sh"], cwd=tmp_path, capture_output=True, text=True, timeout=60,
                       env={"PATH": path, "BASH_ENV": str(tmp_path / "job_env.sh"), **(extra or {})})
    return r.returncode, r.stdout, r.stderr


@pytest.fixture
def dirs(tmp_path, monkeypatch):
    other, shims = _interp_dir(tmp_path, "python3"), tmp_path / "shims"
    monkeypatch.setenv("PATH", str(other))
    runner.write_shims(shims)
    (tmp_path / "job_env.sh").write_text('echo "job env loaded"\n')
    return other, shims


def test_a_bash_the_real_python3_starts_keeps_the_scripts_errexit_and_reads_the_job_env(tmp_path, dirs):
    other, shims = dirs
    plain = _run(tmp_path, other / "bash", str(other), CHILD_BASH)
    assert plain[:2] == (0, "job env loaded\njob env loaded\nchild rc 1\n"), plain
    assert _run(tmp_path, other / "bash", f"{shims}:{other}", CHILD_BASH) == plain


def test_the_real_python3_is_given_the_environment_the_shim_was_given(tmp_path, dirs):
    other, shims = dirs
    plain = _run(tmp_path, other / "bash", str(other), ENV_DUMP)
    assert "'SHELLOPTS' 'braceexpand:hashall:interactive-comments:pipefail'" in plain[1], plain
    assert "from f" in plain[1], plain
    assert _run(tmp_path, other / "bash", f"{shims}:{other}", ENV_DUMP) == plain


def test_the_preflight_python3_is_given_the_environment_the_shim_was_given(tmp_path, dirs):
    other, shims = dirs
    extra = {runner.THIS_PYTHON_ENV: sys.executable}
    plain = _run(tmp_path, other / "bash", str(other), ENV_DUMP, extra)
    assert _run(tmp_path, other / "bash", f"{shims}:{other}", ENV_DUMP, extra) == plain


def test_nothing_exported_by_the_script_is_nothing_the_real_python3_sees(tmp_path, dirs):
    other, shims = dirs
    script = "python3 -c 'import os; print(sorted(k for k in os.environ if k != \"_\"))'\n"
    plain = _run(tmp_path, other / "bash", str(other), script)
    assert "SHELLOPTS" not in plain[1] and "BASHOPTS" not in plain[1], plain
    assert _run(tmp_path, other / "bash", f"{shims}:{other}", script) == plain
