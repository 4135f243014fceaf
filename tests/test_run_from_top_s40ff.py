"""s40ff: a file a launcher or benchmark script runs (not sources) by a path from the checkout's top was not hashed.

`python3 shared/tool.py`, `bash shared/helper.sh`, `bash "$GITHUB_WORKSPACE/shared/helper.sh"`, `./tools/run.sh`
(an InferenceX fork runs `python3 utils/bench_serving/benchmark_serving.py` from the top): bash runs the file, but
the run identity read only files beside the script (``Reading.named``), so an edit to it kept the identity and `ci
reuse` could hand the row a stale result. Such a file is now hashed when the checkout tracks it (``Reading.ran``),
from the working folder there (a `cd` moves it); a path naming no file of the checkout (an image's /opt/..., a module
pip installed) changes nothing and makes no row blind.

Each case runs under real bash in a real git checkout: what bash runs is then hashed (an edit changes the identity)."""

from __future__ import annotations

import subprocess

import pytest
from conftest import GitRepo
from test_reuse import M_ROW
from test_unknown_prefix_s39u import _checkout, _identity
from test_variable_paths_s40i import _changes_the_identity, _hashed

from sweepgate.core import identity, shellwords

SCRIPT = identity.script_candidates(M_ROW)[0]
LAUNCHER = identity.launcher_files(M_ROW["runner"], {})[0]
FILES = {path: (f"print('ran:{path}')\n" if path.endswith(".py") else f"echo ran:{path}\n")
         for path in ("shared/tool.py", "shared/helper.sh", "b/x.sh", "x.sh", "tools/run.sh",
                      "utils/bench_serving/benchmark_serving.py")}


def _ran(repo: GitRepo) -> list[str]:
    """What bash runs when the launcher runs from the checkout's top, the workspace being the checkout."""
    out = subprocess.run(["bash", LAUNCHER], cwd=repo.path, capture_output=True, text=True,
                         env={"PATH": "/usr/bin:/bin", "GITHUB_WORKSPACE": str(repo.path)}).stdout
    return [line.split(":", 1)[1] for line in out.splitlines() if line.startswith("ran:")]


# each: the launcher's text, the file bash runs
RUN_FROM_THE_TOP = {
    "python3 shared/tool.py": ("python3 shared/tool.py\n", "shared/tool.py"),
    "bash shared/helper.sh": ("bash shared/helper.sh\n", "shared/helper.sh"),
    "bash -e shared/helper.sh, options": ("bash -e shared/helper.sh --x 1\n", "shared/helper.sh"),
    'bash "$GITHUB_WORKSPACE/shared/helper.sh"': ('bash "$GITHUB_WORKSPACE/shared/helper.sh"\n', "shared/helper.sh"),
    "python3 utils/bench_serving/benchmark_serving.py": (
        "/usr/bin/env python3 -u utils/bench_serving/benchmark_serving.py \\\n  --model m\n",
        "utils/bench_serving/benchmark_serving.py"),
    "sh x.sh (a bare name)": ("sh x.sh\n", "x.sh"),
    "cd b; bash x.sh": ("cd b\nbash x.sh\n", "b/x.sh"),
    "cd b && python3 ../shared/tool.py": ("cd b && python3 ../shared/tool.py\n", "shared/tool.py"),
    "./tools/run.sh, the program itself": ("chmod +x tools/run.sh\n./tools/run.sh\n", "tools/run.sh"),
    "if …; then bash shared/helper.sh; fi": ("if true; then bash shared/helper.sh; fi\n", "shared/helper.sh"),
    # through a variable holding the path (read where it is used, as a `source "$LIB"` is)
    'S=shared/helper.sh; bash "$S"': ('S=shared/helper.sh\nbash "$S"\n', "shared/helper.sh"),
    'T=shared/tool.py; python3 "$T"': ('T=shared/tool.py\npython3 "$T"\n', "shared/tool.py"),
    'S=x.sh; cd b; bash "$S"': ('S=x.sh\ncd b\nbash "$S"\n', "b/x.sh"),
}


@pytest.mark.parametrize("how", RUN_FROM_THE_TOP)
def test_a_tracked_file_run_by_a_path_from_the_working_folder_is_hashed(tmp_path, how):
    text, ran = RUN_FROM_THE_TOP[how]
    repo = _checkout(tmp_path, {LAUNCHER: "#!/usr/bin/env bash\n" + text, **FILES})
    assert _ran(repo) == [ran]
    _changes_the_identity(repo, ran)


def test_a_file_the_benchmark_script_runs_from_the_top_is_hashed(tmp_path):
    """The review's case: the benchmark script itself runs a tool and a helper from the top."""
    repo = _checkout(tmp_path, {SCRIPT: "#!/usr/bin/env bash\npython3 shared/tool.py\nbash shared/helper.sh\n",
                                **FILES})
    for path in ("shared/tool.py", "shared/helper.sh"):
        _changes_the_identity(repo, path)


NOT_THE_CHECKOUTS = {
    "an image's own file": "python3 /opt/tools/serve.py\n",
    "a module pip installed": "python3 -m sglang.launch_server --model m\n",
    "a command string": 'bash -c "echo hi"\n',
    "a path the checkout has not": "python3 bench/missing.py\nbash missing/run.sh\n",
    "an argument, not a program": "echo shared/tool.py\nprintf '%s\\n' shared/helper.sh\n",
}


@pytest.mark.parametrize("how", NOT_THE_CHECKOUTS)
def test_a_path_naming_no_file_of_the_checkout_keeps_the_identity_and_no_row_is_blind(tmp_path, how):
    (tmp_path / "base").mkdir()
    (tmp_path / "run").mkdir()
    base = _checkout(tmp_path / "base", FILES)
    repo = _checkout(tmp_path / "run", {LAUNCHER: "#!/usr/bin/env bash\n" + NOT_THE_CHECKOUTS[how], **FILES})
    first = _identity(repo)
    assert first is not None and _identity(base) is not None
    assert _hashed(repo) == _hashed(base)
    repo.write("shared/tool.py", repo.read("shared/tool.py") + b"# changed\n")
    assert _identity(repo) == first


def test_the_reading_gives_each_file_run_from_the_top():
    text = ("python3 -u shared/tool.py\ncd b\nbash x.sh\npython3 -m pip install x\nbash -c 'source y.sh'\n"
            "echo not/run.sh\n/opt/x/y.sh\n")
    assert [place for _, place in shellwords.reading(text).ran] == [(shellwords.TOP, "shared/tool.py"),
                                                                   (shellwords.TOP, "b/x.sh")]
