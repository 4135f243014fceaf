"""Shared fixtures. Only add fixtures here; other test modules rely on the existing ones."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import settings

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT / "utils") not in sys.path:
    sys.path.insert(0, str(ROOT / "utils"))

# A time written without a zone (vLLM's `date`, the GPU monitor's samples) is the reading machine's local
# time: the suite's expected values are in UTC wherever it runs, and its subprocesses inherit the zone.
os.environ["TZ"] = "UTC"
time.tzset()

# A suite started in the background (`.ci/run &`, `nohup`) inherits SIGINT and SIGQUIT ignored, and SIGHUP
# under nohup; an ignored signal stays ignored across exec, and sweepgate, as any command should, leaves
# an ignored signal ignored, so the tests' Ctrl-C, hang-up and quit would do nothing. Every process the
# tests start gets the default back, since exec resets a handled signal: SIGINT is Python's own
# KeyboardInterrupt again (the in-process tests' Ctrl-C; a background job gets none from the terminal),
# and a handler that does nothing keeps this process as deaf to a hang-up or quit as it was started (a
# closed terminal still does not stop a nohup run).
for _signum, _handler in ((signal.SIGINT, signal.default_int_handler), (signal.SIGHUP, lambda *_: None),
                          (signal.SIGQUIT, lambda *_: None)):
    if signal.getsignal(_signum) == signal.SIG_IGN:
        signal.signal(_signum, _handler)

# Hypothesis times every example against a 200 ms deadline; that times the machine, not the code: on a loaded
# 2-core host an example that paid a module's first import, or waited for a CPU, failed its test as
# "Unreliable test timings" though its property held. Speed goals are measured in tests/bench; the property
# tests here check properties, without a deadline.
settings.register_profile("sweepgate", deadline=None)
settings.load_profile("sweepgate")

# A minimal example fleet: one single-node fixed-seq-len config, one agentic config on a
# `cluster:` runner, and a runners file with both labels.
FLEET_NVIDIA = """\
dsr1-fp4-b300-vllm:
  image: vllm/vllm-openai:v0.11.0
  model: deepseek-ai/DeepSeek-R1-0528
  model-prefix: dsr1
  runner: b300
  precision: fp4
  framework: vllm
  multinode: false
  scenarios:
    fixed-seq-len:
    - isl: 1024
      osl: 1024
      search-space:
      - { tp: 8, conc-start: 4, conc-end: 16 }

dsr1-fp4-b300-sglang:
  image: lmsysorg/sglang:v0.5.6
  model: deepseek-ai/DeepSeek-R1-0528
  model-prefix: dsr1
  runner: b300
  precision: fp4
  framework: sglang
  multinode: false
  scenarios:
    fixed-seq-len:
    - isl: 8192
      osl: 1024
      search-space:
      - { tp: 4, conc-list: [4, 8] }
"""

FLEET_AMD = """\
kimik3-fp4-mi355x-vllm-agentic:
  image: vllm/vllm-openai-rocm:v0.12.0
  model: moonshotai/Kimi-K3
  model-prefix: kimik3
  runner: cluster:mi355x-amds
  precision: fp4
  framework: vllm
  multinode: false
  scenarios:
    agentic-coding:
    - dram-utilization: 0.80
      search-space:
      - { tp: 8, ep: 1, kv-offloading: none, conc-list: [1, 4, 8] }
"""

RUNNERS = """\
labels:
  b300:
    - b300-nv_00
    - b300-nv_01
  cluster:mi355x-amds:
    - mi355x-amds_00
hardware:
  cluster:mi355x-amds:
    available-cpu-dram-mib: 2063837
    gpus-per-node: 8
"""

EXAMPLE_REPO = "acme/bench"

CHANGELOG = """\
- config-keys:
    - dsr1-fp4-b300-vllm
  description:
    - "Initial DeepSeek-R1 FP4 B300 vLLM recipe"
  pr-link: https://github.com/acme/bench/pull/1

- config-keys:
    - kimik3-fp4-mi355x-vllm-agentic
  scenario-type:
    - agentic-coding
  description:
    - "Initial Kimi-K3 agentic recipe"
  pr-link: https://github.com/acme/bench/pull/2
"""


def appended_entry(pr: str = "5") -> str:
    """One entry a PR appends to CHANGELOG (the vLLM config; pr-link to pull ``pr``, or XXX)."""
    return ("\n- config-keys:\n    - dsr1-fp4-b300-vllm\n  description:\n    - \"Bump\"\n"
            f"  pr-link: https://github.com/acme/bench/pull/{pr}\n")


class GitRepo:
    """A throwaway git repository holding a small example fleet."""

    def __init__(self, path: Path):
        self.path = path

    def git(self, *args: str, input: bytes | None = None) -> str:
        env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
               "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com",
               "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
        proc = subprocess.run(["git", "-C", str(self.path), *args], capture_output=True, input=input,
                              env=env, check=True)
        return proc.stdout.decode()

    def write(self, rel: str, content: str | bytes) -> Path:
        target = self.path / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content.encode() if isinstance(content, str) else content)
        return target

    def read(self, rel: str = "perf-changelog.yaml") -> bytes:
        return (self.path / rel).read_bytes()

    def commit(self, files: dict[str, str | bytes] | None = None, message: str = "change") -> str:
        for rel, content in (files or {}).items():
            self.write(rel, content)
        self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "-m", message)
        return self.head()

    def head(self) -> str:
        return self.git("rev-parse", "HEAD").strip()

    def commit_changelog(self, content: str | bytes, message: str = "changelog") -> str:
        return self.commit({"perf-changelog.yaml": content}, message)


@pytest.fixture(autouse=True)
def _working_directory_kept():
    """Fail a test that leaves the working directory elsewhere (a bare os.chdir): the tests after it would
    run inside its repository, reading its configs (a leaked `results.thresholds` changed another test's
    verdicts). monkeypatch.chdir is undone before this check runs."""
    before = os.getcwd()
    yield
    after = os.getcwd()
    if after != before:
        os.chdir(before)
        pytest.fail(f"the test left the working directory at {after}; use monkeypatch.chdir", pytrace=False)


@pytest.fixture(scope="module")
def example_fleet(tmp_path_factory) -> Path:
    """`sweepgate example`'s repository (the example fleet and its seed change), built once for a test module;
    its tests read it (one that changes it builds its own)."""
    from sweepgate.commands import example

    repo = tmp_path_factory.mktemp("fleet")
    example.build_repo(str(repo))
    return repo


@pytest.fixture(scope="session")
def piped_example(tmp_path_factory):
    """`sweepgate` with no arguments (the README's first command), run once for the session with its stdout and
    stderr piped, in an empty folder outside any checkout, $TERM a colour terminal's (a pipe must stay plain
    whatever it says) and no COLUMNS, NO_COLOR, FORCE_COLOR or GitHub setting: ``(proc, cwd, tmp)``, ``tmp`` its
    $TMPDIR (where its charts folder is kept). A whole example takes most of a minute, so the tests that only
    read what this run printed and left share it (test_example, test_terminal); they must not change ``tmp``
    or ``cwd``. Removed at the session's end."""
    import shutil

    top = tmp_path_factory.mktemp("piped-example")
    cwd, tmp = top / "cwd", top / "tmp"
    cwd.mkdir()
    tmp.mkdir()
    env = {k: v for k, v in os.environ.items()
           if k not in ("COLUMNS", "NO_COLOR", "FORCE_COLOR") and not k.startswith("GITHUB_")}
    env.update(PYTHONPATH=str(ROOT / "utils"), TERM="xterm-256color", TMPDIR=str(tmp))
    proc = subprocess.run([sys.executable, "-m", "sweepgate"], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=900)
    yield proc, cwd, tmp
    shutil.rmtree(top, ignore_errors=True)


@pytest.fixture
def make_repo(tmp_path):
    """make_repo(changelog=CHANGELOG, files=None) -> GitRepo with one commit on branch main."""
    counter = {"n": 0}

    def make(changelog: str | bytes = CHANGELOG, files: dict[str, str | bytes] | None = None) -> GitRepo:
        counter["n"] += 1
        path = tmp_path / f"repo{counter['n']}"
        path.mkdir()
        repo = GitRepo(path)
        repo.git("init", "-q", "-b", "main")
        base_files = {
            "configs/nvidia-master.yaml": FLEET_NVIDIA,
            "configs/amd-master.yaml": FLEET_AMD,
            "configs/runners.yaml": RUNNERS,
            "perf-changelog.yaml": changelog,
        }
        base_files.update(files or {})
        repo.commit(base_files, "initial fleet")
        return repo

    return make


@pytest.fixture
def repo_outside_actions(make_repo, monkeypatch):
    """The example fleet's repository as the working directory, outside GitHub Actions (no
    GITHUB_ACTIONS, GITHUB_REPOSITORY or GITHUB_OUTPUT), its first commit as ``base``."""
    for name in ("GITHUB_ACTIONS", "GITHUB_REPOSITORY", "GITHUB_OUTPUT"):
        monkeypatch.delenv(name, raising=False)
    r = make_repo()
    monkeypatch.chdir(r.path)
    r.base = r.head()
    return r
