"""Security hardening (sec28): a multi-node worker's `additional-settings` never set a variable that
changes which code programs load, or how a shell, git, the Actions runner or sweepgate runs
(docs/security.md, "Config settings").

Each NAME=VALUE of a config's additional-settings allowed any NAME: an approved config could carry
LD_PRELOAD, BASH_ENV, PYTHONPATH, GITHUB_ENV, ... to a GPU runner. The master schema refuses them
(the check, so `validate`, `matrix` and `test-config` alike), and `ci row-env` refuses a row that
carries one before it writes anything (a row that never went through the check: a hand-written
--row, an edited matrix artifact).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "utils"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

# The names the security review named, and one or more of every family the schema refuses.
DENIED = [
    "LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "DYLD_INSERT_LIBRARIES", "GCONV_PATH",
    "BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "PS4", "PROMPT_COMMAND", "IFS", "CDPATH", "GLOBIGNORE",
    "SHELL", "PATH", "HOME", "XDG_CONFIG_HOME",
    "PYTHONPATH", "PYTHONSTARTUP", "PYTHONHOME", "PYTHONUSERBASE", "PYTHONWARNINGS", "PYTHONUNBUFFEREDX", "NODE_OPTIONS", "NODE_PATH", "PERL5OPT",
    "PERL5LIB", "RUBYOPT", "RUBYLIB", "JAVA_TOOL_OPTIONS", "PIP_INDEX_URL",
    "GITHUB_ENV", "GITHUB_PATH", "GITHUB_OUTPUT", "ACTIONS_RUNNER_DEBUG", "RUNNER_TEMP",
    "GIT_CONFIG_COUNT", "GIT_SSH_COMMAND", "SWEEPGATE_CONTAINER_RUNTIME",
    # security audit (s39h): the GPU stack's own loaders, which every engine process runs: the CUDA driver
    # loads the library CUDA_INJECTION64_PATH names, NCCL (and RCCL) the plugins its *_PLUGIN variables name,
    # ROCm's runtime HSA_TOOLS_LIB, OpenSSL the engines and providers its configuration names; all passed
    "CUDA_INJECTION64_PATH", "CUDA_INJECTION32_PATH", "NCCL_NET_PLUGIN", "NCCL_TUNER_PLUGIN",
    "NCCL_PROFILER_PLUGIN", "HSA_TOOLS_LIB", "OPENSSL_CONF", "OPENSSL_ENGINES", "OPENSSL_MODULES",
]
# Names of the kinds real recipes set (engine, NCCL, Slurm and recipe knobs), and names that only
# start or end like a refused one: all must still pass.
ALLOWED = [
    "DECODE_NODES=2", "PREFILL_NODES=1", "CONFIG_FILE=recipes/dsr1.yaml", "NCCL_DEBUG=INFO",
    "HF_HUB_CACHE=/models/hub", "SLURM_PARTITION=batch", "MAX_MODEL_LEN=9472", "NODE_RANK=0",
    "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True", "VLLM_ENGINE_READY_TIMEOUT_S=1800",
    "LDFLAGS=-O2", "MY_PATH=/x", "PATHS=1", "ENV_FILE=a.env", "HOMEDIR=/h", "IFS_MODE=1", "GITLAB=1",
    "SGLANG_ENABLE_JIT_DEEPGEMM=0", "LMCACHE_MAX_WORKERS=4", "NCCL_IB_DISABLE=1", "NCCL_DEBUG_SUBSYS=INIT",
    "CUDA_VISIBLE_DEVICES=0,1", "HSA_NO_SCRATCH_RECLAIM=1", "NCCL_PLUGIN_P2P=1",
    # interpreter settings that load no code and change no path
    "PYTHONUNBUFFERED=1", "PYTHONHASHSEED=0", "PYTHONFAULTHANDLER=1", "PYTHONDONTWRITEBYTECODE=1",
    "PYTHONIOENCODING=utf-8", "PYTHONUTF8=1",
]


def master(prefill: list[str], decode: list[str]) -> str:
    """A multi-node config whose workers carry these settings, one a line (item i of prefill on
    line PREFILL_LINE + i)."""
    def block(items):
        return "".join(f"          - \"{s}\"\n" for s in items)

    return ("dsr1-fp4-b300-disagg:\n"
            "  image: lmsysorg/sglang:v0.5.6-cu130\n"
            "  model: nvidia/DeepSeek-R1-0528-FP4-v2\n"
            "  model-prefix: dsr1\n"
            "  runner: b300\n"
            "  precision: fp4\n"
            "  framework: sglang-disagg\n"
            "  multinode: true\n"
            "  disagg: true\n"
            "  kv-p2p-transfer: nixl\n"
            "  scenarios:\n"
            "    fixed-seq-len:\n"
            "    - isl: 1024\n"
            "      osl: 1024\n"
            "      search-space:\n"
            "      - conc-list: [64]\n"
            "        prefill:\n"
            "          num-worker: 1\n"
            "          tp: 8\n"
            "          ep: 1\n"
            "          dp-attn: false\n"
            "          additional-settings:\n"
            + block(prefill)
            + "        decode:\n"
            "          num-worker: 1\n"
            "          tp: 8\n"
            "          ep: 1\n"
            "          dp-attn: false\n"
            "          additional-settings:\n"
            + block(decode))


PREFILL_LINE = 23  # the line of prefill's first setting in master()
WHY = "sets a variable that changes which code programs load"  # the start of what a refusal says


def sweepgate(args: list[str], cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    full.update({"PYTHONPATH": str(ROOT / "utils"), **(env or {})})
    return subprocess.run([sys.executable, "-m", "sweepgate", *args], cwd=cwd, env=full, capture_output=True,
                          text=True, timeout=120)


def test_a_config_setting_a_code_loading_or_shell_variable_is_refused_at_its_line(make_repo):
    """One line per refused setting, `file:line:col: what; how to fix`, at the setting's own line;
    the allowed ones beside them say nothing."""
    settings = [f"{name}=/tmp/x" for name in DENIED]
    repo = make_repo(files={"configs/nvidia-master.yaml": master(settings, ALLOWED)})
    r = sweepgate(["test-config", "--config-keys", "dsr1-fp4-b300-disagg"], repo.path)
    assert r.returncode == 1, r.stderr
    assert "Traceback" not in r.stderr and r.stdout == ""
    lines = r.stderr.strip().splitlines()
    refused = [line for line in lines if "additional-settings[" in line]
    assert len(refused) == len(DENIED), r.stderr
    for i, (name, line) in enumerate(zip(DENIED, refused)):
        assert line.startswith(f"configs/nvidia-master.yaml:{PREFILL_LINE + i}:"), line
        assert f"prefill.additional-settings[{i}]: '{name}=/tmp/x' {WHY}" in line, line
        assert "; remove it" in line and "docs/security.md" in line, line
    assert not [line for line in lines if "decode.additional-settings" in line], r.stderr


def test_the_settings_real_configs_use_still_pass(make_repo):
    repo = make_repo(files={"configs/nvidia-master.yaml": master(ALLOWED, ALLOWED)})
    r = sweepgate(["test-config", "--config-keys", "dsr1-fp4-b300-disagg"], repo.path)
    assert r.returncode == 0, r.stderr
    rows = [row for rows in json.loads(r.stdout).values() for row in rows] if isinstance(
        json.loads(r.stdout), dict) else json.loads(r.stdout)
    assert rows and rows[0]["prefill"]["additional-settings"] == ALLOWED


def test_the_schema_and_its_generated_validator_agree_on_every_refused_name():
    """The check's yes/no (the committed fastjsonschema module) and its diagnostics (jsonschema) read
    one schema: neither lets a refused name through."""
    from sweepgate.core.check import fast_validator, validator

    def config(setting):
        return {"k": {"image": "i", "model": "m", "model-prefix": "p", "runner": "r", "precision": "fp4",
                      "framework": "f", "multinode": True, "scenarios": {"fixed-seq-len": [
                          {"isl": 1, "osl": 1, "search-space": [
                              {"conc-list": [1], "prefill": {"num-worker": 1, "tp": 1, "ep": 1, "dp-attn": False,
                                                             "additional-settings": [setting]},
                               "decode": {"num-worker": 1, "tp": 1, "ep": 1, "dp-attn": False}}]}]}}}

    fast, full = fast_validator("master"), validator("master")
    assert fast(config("DECODE_NODES=2")) and full.is_valid(config("DECODE_NODES=2"))
    for name in DENIED:
        assert not fast(config(f"{name}=1")), name
        assert not full.is_valid(config(f"{name}=1")), name


# --- the point of use: `ci row-env` ---------------------------------------------------------------

SIDE = {"num-worker": 1, "tp": 8, "ep": 1, "dp-attn": False, "pp": 1, "dcp-size": 1, "pcp-size": 1,
        "additional-settings": ["DECODE_NODES=1"]}
ROW = {"image": "lmsysorg/sglang:v0.5.6-cu130", "model": "m", "model-prefix": "dsr1", "precision": "fp4",
       "framework": "sglang-disagg", "runner": "b300", "isl": 1024, "osl": 1024, "spec-decoding": "none",
       "prefill": SIDE, "decode": SIDE, "conc": [64], "disagg": True, "kv-p2p-transfer": "nixl",
       "max-model-len": 2304, "exp-name": "dsr1_1k1k_mn", "recipe-fingerprint": "f" * 64}


def row_env(tmp_path: Path, row: dict) -> tuple[subprocess.CompletedProcess, Path]:
    out = tmp_path / "github_env"
    r = sweepgate(["ci", "row-env", "--row", json.dumps(row)], ROOT,
                  env={"GITHUB_ENV": str(out), "RUNNER_NAME": "b300-nv_00"})
    return r, out


def test_row_env_writes_a_rows_allowed_settings(tmp_path):
    r, out = row_env(tmp_path, {**ROW, "prefill": {**SIDE, "additional-settings": ALLOWED}})
    assert r.returncode == 0, r.stderr
    assert f"PREFILL_ADDITIONAL_SETTINGS={json.dumps(ALLOWED, separators=(',', ':'))}\n" in out.read_text()


@pytest.mark.parametrize("side", ["prefill", "decode"])
@pytest.mark.parametrize("settings,said", [
    (["DECODE_NODES=1", "LD_PRELOAD=/tmp/x.so"], f"additional-settings[1] \"LD_PRELOAD=/tmp/x.so\" {WHY}"),
    (["BASH_ENV=/tmp/x"], f"additional-settings[0] \"BASH_ENV=/tmp/x\" {WHY}"),
    (["GITHUB_PATH=/tmp"], f"additional-settings[0] \"GITHUB_PATH=/tmp\" {WHY}"),
    (["X=$(touch /tmp/p)"], "additional-settings[0] \"X=$(touch /tmp/p)\" is not NAME=VALUE"),
    (["X"], "additional-settings[0] \"X\" is not NAME=VALUE"),
    ([7], "additional-settings[0] 7 is not NAME=VALUE"),
    ("LD_PRELOAD=/tmp/x.so", "additional-settings \"LD_PRELOAD=/tmp/x.so\" is not a list"),
])
def test_row_env_refuses_a_row_whose_settings_bypassed_the_check(tmp_path, side, settings, said):
    """One line, exit 1, and nothing written to $GITHUB_ENV: not the settings, not the rest of the row."""
    r, out = row_env(tmp_path, {**ROW, side: {**SIDE, "additional-settings": settings}})
    assert r.returncode == 1, r.stderr
    assert "Traceback" not in r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ROW:1: ") and f"row's {side}.{said}" in lines[0], r.stderr
    assert "; " in lines[0]
    assert not out.exists()


def test_the_multinode_rehearsal_refuses_them_too(tmp_path):
    """`rehearse` builds its job environment with the same function as row-env (core.jobenv.job_env)."""
    from sweepgate.core.errors import SweepgateError
    from sweepgate.core.jobenv import job_env

    with pytest.raises(SweepgateError) as caught:
        job_env({**ROW, "decode": {**SIDE, "additional-settings": ["PYTHONPATH=/tmp"]}}, "b300-nv_00", "results",
                source="row")
    assert f"row's decode.additional-settings[0] \"PYTHONPATH=/tmp\" {WHY}" in str(caught.value)


def test_the_split_refuses_such_a_row_before_any_job_starts(tmp_path):
    """`ci split` checks every row as row-env will (check_row for a job): one line at the matrix file,
    nothing written."""
    matrix = {"single_node": {}, "multi_node": {"1k1k": [ROW, {**ROW, "decode": {
        **SIDE, "additional-settings": ["LD_AUDIT=/tmp/a.so"]}}]}, "evals": [], "agentic_evals": [],
        "multinode_evals": [], "multinode_agentic_evals": []}
    path = tmp_path / "matrix.json"
    path.write_text(json.dumps(matrix))
    out = tmp_path / "out"
    r = sweepgate(["ci", "split", "--matrix", str(path), "--output", str(out)], tmp_path)
    assert r.returncode == 1 and not out.exists(), r.stderr
    assert r.stderr.splitlines() == [
        f"{path}:1: multinode/1: row's decode.additional-settings[0] \"LD_AUDIT=/tmp/a.so\" {WHY}, or how a shell, git, "
        "the Actions runner or sweepgate runs; remove it from the config's additional-settings (docs/security.md, "
        "Config settings)"], r.stderr


def test_every_code_loading_variable_the_workflow_checks_know_is_refused():
    """tests/test_workflows.py keeps privileged jobs from pointing CODE_ENV into a PR's tree; a config's
    settings may set none of them at all."""
    import re

    from sweepgate.core.schemas import schema_definition
    from test_workflows import CODE_ENV

    refused = schema_definition("envSetting")["not"]["pattern"]
    assert [name for name in sorted(CODE_ENV) if not re.search(refused, f"{name}=x")] == []


@pytest.mark.parametrize("side", ["prefill", "decode"])
@pytest.mark.parametrize("key", ["a b", "LD_PRELOAD", "x=y"])
def test_row_env_refuses_a_worker_field_no_config_has(tmp_path, side, key):
    """Each worker field becomes a variable (PREFILL_<FIELD>): one no schema allows ("a b" made an
    internal error, LD_PRELOAD a PREFILL_LD_PRELOAD) is one line, exit 1, nothing written."""
    r, out = row_env(tmp_path, {**ROW, side: {**SIDE, key: 1}})
    assert r.returncode == 1, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"ROW:1: row's {side} has \"{key}\", no worker field"), r.stderr
    assert "internal error" not in r.stderr and not out.exists()
