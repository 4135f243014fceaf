"""README's *Adopting sweepgate in an existing InferenceX-layout repository* runs as written (s40v).

Its two blocks are taken from README.md and run with bash under `set -e`, with `sweepgate` on PATH:

- the PR's order (changelog add, validate --pr-number N, plan, preflight, rehearse) in the example fleet's
  repository, on a branch of main; and what docs/contracts.md §2 says of `validate` without `--pr-number`
  (the push-to-main rules: the entry's pull/XXX link is refused);
- the capture of an engine manifest inside an image, for a vLLM with no PyPI version. No Docker daemon
  runs here, so `docker` is a stand-in on PATH: it runs the command the README gives it in an "image"
  that is a venv of its own (no sweepgate in it, none of the test's environment) holding a `vllm`
  distribution at a nightly's version, whose parser code is laid out where vLLM's is. The stand-in takes
  only what the block uses of `docker run`, mounts at the same path inside and out, and refuses a
  PYTHONPATH entry no mount puts in the container, so the block must bring sweepgate in itself; an
  `--out` in no writable mount (it would stay in the container) and a `-u` other than the caller's.
  A capture that fails (an image without vLLM) leaves no file, empty or not, in the repository (s45k).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SECTION = "## Adopting sweepgate in an existing InferenceX-layout repository"
KEY = "dsr1-fp8-b300-vllm"  # the example fleet's; one row at conc 64 (1k1k, tp 8)
NIGHTLY = "0.11.2.dev9+gdeadbee"  # a version PyPI has no wheel of
IMAGE = "rocm/vllm-dev:nightly_main_20251120"
TAG = "nightly-20251120"


def _section() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert SECTION in readme, "README has no section on adopting sweepgate in an existing repository"
    return readme.split(SECTION, 1)[1].split("\n## ", 1)[0]


def _blocks() -> tuple[str, str]:
    """(the capture block, the PR-order block) of the section, dedented."""
    blocks = [textwrap.dedent(b) for b in re.findall(r"^ *```\n(.*?)^ *```", _section(), re.S | re.M)]
    (capture,) = [b for b in blocks if "engines capture" in b]
    (order,) = [b for b in blocks if "changelog add" in b]
    return capture, order


def _env(tmp_path: Path) -> dict:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / "sweepgate").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m sweepgate "$@"\n')
    (bin_dir / "sweepgate").chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "PYTHONPATH": str(ROOT / "utils"),
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    for name in ("GITHUB_ACTIONS", "GITHUB_REPOSITORY", "SWEEPGATE_DB", "COLUMNS"):
        env.pop(name, None)
    return env


def _repo(tmp_path: Path) -> Path:
    from sweepgate.commands import example

    repo = tmp_path / "repo"
    repo.mkdir()
    example.build_repo(str(repo))
    return repo


def test_the_pr_order_runs_as_written_and_validate_without_a_pr_number_refuses_xxx(tmp_path):
    _, order = _blocks()
    repo, env = _repo(tmp_path), _env(tmp_path)
    script = "set -e\n" + order.replace("KEY", KEY).replace("--pr-number N", "--pr-number 123")
    script = script.replace("--conc CONC", "--conc 64")
    proc = subprocess.run(["bash", "-c", script], cwd=repo, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    said = proc.stdout + proc.stderr
    assert "perf-changelog.yaml: ok (1 appended entry" in said, said  # validate --pr-number 123
    assert "the push to main will refuse it once PR #123 merges" in said, said
    assert re.search(r"^plan: \d+ benchmark jobs", proc.stdout, re.M), proc.stdout
    assert re.search(r"^preflight: \d+ rows .*, 0 problems", said, re.M), said
    assert "rehearse: OK in" in said and "conc 64" in said, said
    # docs/contracts.md §2: without --pr-number (nor --staged), the rules of a push to main.
    push = subprocess.run(["sweepgate", "validate", "--base-ref", "main", "--head-ref", "HEAD"], cwd=repo, env=env,
                          capture_output=True, text=True, timeout=120)
    assert push.returncode == 1, push.stdout + push.stderr
    assert "pr-link still has the XXX placeholder" in push.stderr, push.stderr


FAKE_VLLM = {
    "vllm/__init__.py": 'print("INFO vllm: imported (a package\'s own chatter on stdout)")\n',
    "vllm/platforms/__init__.py": '''\
        class _Unspecified:
            device_type = ""  # no GPU visible: what vLLM's platform detection leaves

        _current_platform = _Unspecified()


        def __getattr__(name):
            if name == "current_platform":
                return _current_platform
            raise AttributeError(name)
        ''',
    "vllm/platforms/cpu.py": "class CpuPlatform:\n    device_type = 'cpu'\n",
    "vllm/utils/__init__.py": "import argparse\n\n\nclass FlexibleArgumentParser(argparse.ArgumentParser):\n    pass\n",
    "vllm/entrypoints/__init__.py": "",
    "vllm/entrypoints/cli/__init__.py": "",
    "vllm/entrypoints/cli/serve.py": '''\
        class ServeSubcommand:
            def subparser_init(self, subparsers):
                from vllm.platforms import current_platform

                assert current_platform.device_type, "the parser's defaults need a platform"
                parser = subparsers.add_parser("serve")
                parser.add_argument("model_tag", nargs="?")
                parser.add_argument("--tensor-parallel-size", "-tp", type=int, default=1)
                parser.add_argument("--kv-cache-dtype", choices=["auto", "fp8"], default="auto")
                parser.add_argument("--nightly-only-flag", action="store_true")
                return parser
        ''',
    "vllm/entrypoints/cli/benchmark/__init__.py": "",
    "vllm/entrypoints/cli/benchmark/serve.py": '''\
        class BenchmarkServingSubcommand:
            @staticmethod
            def add_cli_args(parser):
                parser.add_argument("--max-concurrency", type=int)
                parser.add_argument("--nightly-bench-flag", action="store_true")
        ''',
}

DOCKER = '''\
#!{python}
"""`docker run` for the README's block: the image is a venv (images.json beside this file), mounts keep
their paths, and the container sees none of the caller's environment but its -e values."""
import json, os, sys
from pathlib import Path

args, mounts, writable, env, entry = sys.argv[1:], [], [], {{}}, None
assert args.pop(0) == "run", args
while args[0].startswith("-"):
    flag = args.pop(0)
    if flag == "--rm":
        continue
    value = args.pop(0)
    if flag == "-v":
        src, dst, *mode = value.split(":")
        if src != dst or not os.path.isdir(src):
            sys.exit(f"docker (stand-in): mount {{value}} is not a folder at the same path inside")
        mounts.append(dst)
        if mode != ["ro"]:
            writable.append(dst)
    elif flag == "-u":
        if value != f"{{os.getuid()}}:{{os.getgid()}}":
            sys.exit(f"docker (stand-in): -u {{value}} is not the caller's uid:gid")
    elif flag == "-e":
        name, _, val = value.partition("=")
        env[name] = val
    elif flag == "--entrypoint":
        entry = value
    else:
        sys.exit(f"docker (stand-in): {{flag}} is not taken")
image, command = args[0], args[1:]
for flag, value in zip(command, command[1:]):
    if flag == "--out" and not any(value.startswith(m.rstrip("/") + "/") for m in writable):
        sys.exit(f"docker (stand-in): --out {{value}} is in no writable mount: it would stay in the container")
venv = json.loads((Path(__file__).parent / "images.json").read_text())[image]
for entry_path in env.get("PYTHONPATH", "").split(os.pathsep):
    if entry_path and not any(m == entry_path or m.startswith(entry_path.rstrip("/") + "/") for m in mounts):
        sys.exit(f"docker (stand-in): PYTHONPATH {{entry_path}} is in no mount: the container has no such folder")
home = Path(venv) / "home"
home.mkdir(exist_ok=True)
env = {{"PATH": f"{{venv}}/bin:/usr/bin:/bin", "HOME": str(home), **env}}
os.chdir(home)
os.execvpe(entry, [entry, *command], env)
'''


def _image(tmp_path: Path) -> Path:
    """A venv holding only the fake vLLM, at the nightly's version, as an image would."""
    venv = tmp_path / "image"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    (site,) = (venv / "lib").glob("python3*/site-packages")
    for rel, text in FAKE_VLLM.items():
        (site / rel).parent.mkdir(parents=True, exist_ok=True)
        (site / rel).write_text(textwrap.dedent(text), encoding="utf-8")
    info = site / f"vllm-{NIGHTLY}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: vllm\nVersion: {NIGHTLY}\n", encoding="utf-8")
    return venv


def test_the_capture_inside_an_image_runs_as_written_for_a_vllm_with_no_pypi_version(tmp_path):
    capture, _ = _blocks()
    repo, env = _repo(tmp_path), _env(tmp_path)
    venv = _image(tmp_path)
    stand_in = tmp_path / "bin" / "docker"
    stand_in.write_text(DOCKER.format(python=sys.executable), encoding="utf-8")
    stand_in.chmod(0o755)
    (stand_in.parent / "images.json").write_text(json.dumps({IMAGE: str(venv)}), encoding="utf-8")
    script = "set -e\n" + capture.replace("IMAGE", IMAGE).replace("TAG", TAG)
    proc = subprocess.run(["bash", "-c", script], cwd=repo, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "(a package's own chatter on stdout)" in proc.stderr, proc.stderr  # kept out of the manifest
    for engine, flag in (("vllm", "--nightly-only-flag"), ("vllm-bench", "--nightly-bench-flag")):
        manifest = json.loads((repo / "configs" / "engines" / f"{engine}-{TAG}.json").read_text(encoding="utf-8"))
        assert manifest["engine"] == engine and manifest["version"] == NIGHTLY, manifest
        assert any(flag in option["flags"] for option in manifest["options"]), manifest["options"]
        assert not (repo / f"{engine}.json").exists()
    assert manifest["captured-with-stubs"] and "CpuPlatform" in manifest["captured-with-stubs"][0], manifest


def test_a_capture_that_fails_leaves_no_file_behind(tmp_path):
    """Review (s45k): the block redirected the manifest (`> "$engine.json"`), and the shell made the file before
    the capture ran: an image whose capture fails left an empty vllm.json in the current folder. The block
    now has the capture write it (`--out`, a temporary file renamed once whole)."""
    capture, _ = _blocks()
    repo, env = _repo(tmp_path), _env(tmp_path)
    venv = tmp_path / "image"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)  # no vLLM
    stand_in = tmp_path / "bin" / "docker"
    stand_in.write_text(DOCKER.format(python=sys.executable), encoding="utf-8")
    stand_in.chmod(0o755)
    (stand_in.parent / "images.json").write_text(json.dumps({IMAGE: str(venv)}), encoding="utf-8")
    before = subprocess.run(["git", "status", "--porcelain", "--ignored", "--untracked-files=all"], cwd=repo,
                            env=env, capture_output=True, text=True, check=True).stdout
    script = capture.replace("IMAGE", IMAGE).replace("TAG", TAG)
    proc = subprocess.run(["bash", "-c", script], cwd=repo, env=env, capture_output=True, text=True, timeout=300)
    assert "vllm" in proc.stderr and "Traceback" not in proc.stderr, proc.stderr  # the capture said why
    after = subprocess.run(["git", "status", "--porcelain", "--ignored", "--untracked-files=all"], cwd=repo,
                           env=env, capture_output=True, text=True, check=True).stdout
    assert after == before, after
