"""s43l: the run identity hashes the tracked Python modules a Python file the job runs imports (``core.pyimports``):
`python3 utils/bench_serving/benchmark_serving.py` runs its sibling backend_request_func.py too, so an edit to that
module must change the row's identity, or `ci reuse` hands back a stale result.

Each case is run by real python from real bash in a real git checkout (``_each_read_is_hashed``: what the run read
says so on its output, exactly those files), then each file read is edited: the identity changes. No mocks."""

from __future__ import annotations

import subprocess

from test_identity_reads_s42b import LAUNCHER, _each_read_is_hashed, _says
from test_unknown_prefix_s39u import _checkout, _identity

from sweepgate.core import pyimports


def _py(path: str, *lines: str) -> str:
    """A module that imports ``lines`` and says it was read."""
    return "".join(f"{line}\n" for line in lines) + _says(path)


def test_relative_imports_of_a_module_run_by_dash_m_are_hashed(tmp_path):
    files = {"shared/__init__.py": "", "shared/pkg/__init__.py": "",
             "shared/pkg/run.py": _py("shared/pkg/run.py", "from . import helper", "from .sub.deep import x",
                                      "from .. import top"),
             "shared/pkg/helper.py": None, "shared/pkg/sub/__init__.py": "", "shared/pkg/sub/deep.py": "x = 1\n"
             + _says("shared/pkg/sub/deep.py"), "shared/top.py": None}
    _each_read_is_hashed(tmp_path, "python3 -m shared.pkg.run\n", files,
                         ["shared/pkg/helper.py", "shared/pkg/sub/deep.py", "shared/top.py", "shared/pkg/run.py"])


def test_a_packages_init_is_hashed_with_its_module(tmp_path):
    files = {"shared/bench.py": _py("shared/bench.py", "from lib import common"),
             "shared/lib/__init__.py": None, "shared/lib/common.py": None}
    _each_read_is_hashed(tmp_path, "python3 shared/bench.py\n", files,
                         ["shared/lib/__init__.py", "shared/lib/common.py", "shared/bench.py"])


def test_a_dash_m_package_runs_its_main(tmp_path):
    files = {"shared/__init__.py": "", "shared/tool/__init__.py": "", "shared/tool/__main__.py": None}
    _each_read_is_hashed(tmp_path, "python3 -m shared.tool\n", files, ["shared/tool/__main__.py"])


def test_an_import_cycle_is_followed_once(tmp_path):
    files = {"shared/run.py": _py("shared/run.py", "import a"), "shared/a.py": _py("shared/a.py", "import b"),
             "shared/b.py": _py("shared/b.py", "import a")}
    _each_read_is_hashed(tmp_path, "python3 shared/run.py\n", files, ["shared/b.py", "shared/a.py", "shared/run.py"])


def test_importlib_and_dunder_import_of_a_literal_are_hashed(tmp_path):
    files = {"shared/run.py": _py("shared/run.py", "import importlib", "importlib.import_module('m1')",
                                  "__import__('m2')"), "shared/m1.py": None, "shared/m2.py": None}
    _each_read_is_hashed(tmp_path, "python3 shared/run.py\n", files, ["shared/m1.py", "shared/m2.py", "shared/run.py"])


def test_a_tracked_module_named_as_the_standard_librarys_beside_the_script_is_hashed(tmp_path):
    """Python puts the script's folder (sys.path[0]) before the standard library: the tracked json.py is imported."""
    files = {"shared/run.py": _py("shared/run.py", "import json"), "shared/json.py": None}
    _each_read_is_hashed(tmp_path, "python3 shared/run.py\n", files, ["shared/json.py", "shared/run.py"])


def test_a_pythonpath_assigned_on_the_command_is_searched(tmp_path):
    files = {"shared/run.py": _py("shared/run.py", "import tool"), "utils/tool.py": None}
    _each_read_is_hashed(tmp_path, 'PYTHONPATH="utils:$PYTHONPATH" python3 shared/run.py\n', files,
                         ["utils/tool.py", "shared/run.py"])


def test_sys_path_insert_beside_file_and_a_dash_c_import(tmp_path):
    files = {"shared/run.py": _py("shared/run.py", "import os, sys",
                                  "sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'lib'))",
                                  "import m"),
             "lib/m.py": None, "shared/c.py": None}
    _each_read_is_hashed(tmp_path, "python3 shared/run.py\ncd shared\npython3 -c 'import c'\n", files,
                         ["lib/m.py", "shared/run.py", "shared/c.py"])


def test_a_path_under_file_parent_is_read(tmp_path):
    files = {"shared/r.py": "from pathlib import Path\nprint((Path(__file__).resolve().parent / 'cfg.txt')"
                            ".read_text())\n", "shared/cfg.txt": None}
    _each_read_is_hashed(tmp_path, "python3 shared/r.py\n", files, ["shared/cfg.txt"])


def test_a_script_python_cannot_parse_hashes_every_python_file_in_its_folder(tmp_path):
    """Blind to what it imports: every tracked .py beside it stands for it (a wider identity costs a re-run)."""
    repo = _checkout(tmp_path, {LAUNCHER: "#!/usr/bin/env bash\npython3 shared/run.py\n",
                                "shared/run.py": "import helper\nprint 'py2'\n", "shared/helper.py": "x = 1\n",
                                "shared/deeper/other.py": "y = 1\n"})
    first = _identity(repo)
    assert first is not None
    repo.write("shared/helper.py", "x = 2\n")
    second = _identity(repo)
    assert second != first
    repo.write("shared/deeper/other.py", "y = 2\n")  # not in the folder: not imported by a name of it
    assert _identity(repo) == second


def test_a_module_that_resolves_to_nothing_tracked_changes_nothing(tmp_path):
    """`import os` and `import numpy` are the image's: a tracked os.py elsewhere, not on sys.path, is not hashed;
    nor is a module beside the script it does not import."""
    repo = _checkout(tmp_path, {LAUNCHER: "#!/usr/bin/env bash\npython3 shared/run.py\n",
                                "shared/run.py": "import os\nimport numpy\n", "shared/unused.py": "x = 1\n",
                                "other/os.py": "x = 1\n"})
    first = _identity(repo)
    assert first is not None
    for path in ("shared/unused.py", "other/os.py"):
        repo.write(path, "x = 2\n")
        assert _identity(repo) == first, path


def test_the_sibling_really_is_opened_by_python(tmp_path):
    """The premise, by the kernel: python running the script opens the sibling module (strace, when present)."""
    import shutil

    import pytest
    if shutil.which("strace") is None or shutil.which("python3") is None:
        pytest.skip("no strace")
    repo = _checkout(tmp_path, {"shared/run.py": "import helper\n", "shared/helper.py": "x = 1\n"})
    out = subprocess.run(["strace", "-f", "-e", "trace=openat", "python3", "-B", "shared/run.py"], cwd=repo.path,
                         capture_output=True, text=True, timeout=60)
    assert any("shared/helper.py" in line and "= -1" not in line for line in out.stderr.splitlines()), out.stderr
    assert pyimports.followed([("shared/run.py", None, ["shared"])], lambda p: repo.read(p).decode(),
                              lambda p: (repo.path / p).is_file(), lambda folder: []) == ["shared/helper.py"]


def test_a_tab_stripped_heredoc_on_pythons_input_is_its_code(tmp_path):
    files = {"shared/m.py": None}
    _each_read_is_hashed(tmp_path, "cd shared\npython3 - <<-EOF\n\timport m\n\tEOF\n", files, ["shared/m.py"])


def test_a_heredoc_given_to_a_script_is_its_data_not_code(tmp_path):
    """`python3 x.py <<EOF` feeds x.py text: not read as Python (nor, unparsed, as every .py of the folder)."""
    repo = _checkout(tmp_path, {LAUNCHER: "#!/usr/bin/env bash\npython3 shared/run.py <<EOF\nnot python at all\nEOF\n",
                                "shared/run.py": "import sys\nsys.stdin.read()\n", "top.py": "x = 1\n"})
    first = _identity(repo)
    assert first is not None
    repo.write("top.py", "x = 2\n")
    assert _identity(repo) == first


def test_a_script_at_the_top_python_cannot_parse_hashes_the_tops_python_files(tmp_path):
    repo = _checkout(tmp_path, {LAUNCHER: "#!/usr/bin/env bash\npython3 run.py\n",
                                "run.py": "import helper\nprint 'py2'\n", "helper.py": "x = 1\n"})
    first = _identity(repo)
    repo.write("helper.py", "x = 2\n")
    assert first is not None and _identity(repo) != first
