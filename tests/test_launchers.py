"""benchmarks/runners/launch_*.sh: script resolution (CONTRACTS section 7) and cluster commands."""

from __future__ import annotations

import hashlib
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RUNNERS = ROOT / "benchmarks" / "runners"
B300 = RUNNERS / "launch_b300-nv.sh"
MI355X = RUNNERS / "launch_mi355x-amds.sh"
sys.path.insert(0, str(ROOT / "utils"))

from sweepgate.core import fields  # noqa: E402

BASE_ENV = {
    "EXP_NAME": "kimik3_tp8_conc4_kvdram-lmcache_spec-mtp",
    "IMAGE": "vllm/vllm-openai:nightly-1a2b@sha256:" + "e" * 64,
    "MODEL": "moonshotai/Kimi-K3",
    "MODEL_PREFIX": "kimik3",
    "PRECISION": "fp4",
    "FRAMEWORK": "vllm",
    "SPEC_DECODING": "none",
    "SCENARIO_TYPE": "fixed-seq-len",
    "RESULT_DIR": "results",
    "RESULT_FILENAME": "kimik3_fp4_vllm_conc4_b300-nv_0_0123456789abcdef",
    "RUNNER_NAME": "b300-nv_0",
    "SWEEPGATE_JOB_ENV_NAMES": "EXP_NAME IMAGE MODEL",
}


def tree(tmp_path, *scripts):
    for rel in scripts:
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("#!/usr/bin/env bash\n")
    return tmp_path


def launch(launcher, cwd, *args, env=None, drop=()):
    full = {"PATH": os.environ["PATH"], "HOME": str(cwd), **BASE_ENV, **(env or {})}
    for name in drop:
        full.pop(name, None)
    return subprocess.run(["bash", str(launcher), *args], cwd=cwd, env=full, capture_output=True, text=True)


def dry_run(launcher, cwd, **env):
    proc = launch(launcher, cwd, "--dry-run", env=env)
    assert proc.returncode == 0, proc.stderr
    script_line, cmd_line = proc.stdout.splitlines()
    assert script_line.startswith("script: ") and cmd_line.startswith("+ ")
    return script_line[len("script: "):], shlex.split(cmd_line[2:])


FIXED = "benchmarks/single_node/fixed_seq_len"
AGENTIC = "benchmarks/single_node/agentic"


@pytest.mark.parametrize("launcher,gpu", [(B300, "b300"), (MI355X, "mi355x")])
@pytest.mark.parametrize("env,present,expected", [
    ({}, ["{d}/kimik3_fp4_{g}_vllm.sh", "{d}/kimik3_fp4_{g}.sh"], "{d}/kimik3_fp4_{g}_vllm.sh"),
    ({}, ["{d}/kimik3_fp4_{g}.sh", "{d}/kimik3_fp4_{g}_sglang.sh"], "{d}/kimik3_fp4_{g}.sh"),
    ({"SPEC_DECODING": "mtp"}, ["{d}/kimik3_fp4_{g}_vllm.sh", "{d}/kimik3_fp4_{g}_mtp.sh"],
     "{d}/kimik3_fp4_{g}_mtp.sh"),
    ({"SPEC_DECODING": "mtp"}, ["{d}/kimik3_fp4_{g}_vllm_mtp.sh", "{d}/kimik3_fp4_{g}_mtp.sh"],
     "{d}/kimik3_fp4_{g}_vllm_mtp.sh"),
    ({"SCENARIO_TYPE": "agentic-coding"}, ["{d}/kimik3_fp4_{g}_vllm.sh", "{a}/kimik3_fp4_{g}.sh"],
     "{a}/kimik3_fp4_{g}.sh"),
    ({"SCENARIO_TYPE": "agentic-coding", "SPEC_DECODING": "mtp"},
     ["{a}/kimik3_fp4_{g}_vllm.sh", "{a}/kimik3_fp4_{g}_vllm_mtp.sh"], "{a}/kimik3_fp4_{g}_vllm_mtp.sh"),
    ({"MULTINODE": "true", "SWEEPGATE_NODES": "2", "SWEEPGATE_GPUS_PER_NODE": "8"}, ["{d}/kimik3_fp4_{g}_vllm.sh", "benchmarks/multi_node/fixed_seq_len/kimik3_fp4_{g}.sh"],
     "benchmarks/multi_node/fixed_seq_len/kimik3_fp4_{g}.sh"),
])
def test_resolution_order(tmp_path, launcher, gpu, env, present, expected):
    fmt = {"d": FIXED, "a": AGENTIC, "g": gpu}
    # the other GPU's scripts must never be picked
    other = "mi355x" if gpu == "b300" else "b300"
    tree(tmp_path, *(p.format(**fmt) for p in present), *(p.format(**{**fmt, "g": other}) for p in present))
    script, cmd = dry_run(launcher, tmp_path, **env)
    assert script == expected.format(**fmt)
    assert cmd[-2:] == ["bash", script]


@pytest.mark.parametrize("launcher,gpu", [(B300, "b300"), (MI355X, "mi355x")])
def test_missing_script_names_every_path_tried(tmp_path, launcher, gpu):
    tree(tmp_path, f"{FIXED}/kimik3_fp8_{gpu}_vllm.sh", f"{AGENTIC}/kimik3_fp4_{gpu}_vllm.sh")
    proc = launch(launcher, tmp_path, "--dry-run", env={"SPEC_DECODING": "mtp"})
    assert proc.returncode == 1 and proc.stdout == ""
    err = proc.stderr.strip()
    assert len(err.splitlines()) == 1
    assert f"{FIXED}/kimik3_fp4_{gpu}_vllm_mtp.sh" in err and f"{FIXED}/kimik3_fp4_{gpu}_mtp.sh" in err


@pytest.mark.parametrize("launcher", [B300, MI355X])
def test_missing_environment_is_named(tmp_path, launcher):
    proc = launch(launcher, tmp_path, "--dry-run", drop=("IMAGE", "FRAMEWORK"))
    assert proc.returncode == 1
    assert "missing environment: IMAGE FRAMEWORK" in proc.stderr


@pytest.mark.parametrize("launcher", [B300, MI355X])
def test_unknown_argument(tmp_path, launcher):
    proc = launch(launcher, tmp_path, "--bogus")
    assert proc.returncode == 1 and "unknown argument '--bogus'" in proc.stderr


def test_b300_command(tmp_path):
    tree(tmp_path, f"{FIXED}/kimik3_fp4_b300_vllm.sh")
    script, cmd = dry_run(B300, tmp_path, HF_HUB_CACHE="/models", SWEEPGATE_SLURM_PARTITION="gpu-b300")
    srun = cmd.index("srun")
    salloc = cmd[:srun]
    assert salloc[0] == "salloc"
    # One name per run, attempt and row; --time is benchmark-tmpl.yml's default timeout.
    assert {"--partition=gpu-b300", "--nodes=1", "--exclusive", "--time=360",
            f"--job-name=sweepgate-local-1-{BASE_ENV['RESULT_FILENAME']}"} <= set(salloc)
    step = cmd[srun:]
    assert f"--container-image={BASE_ENV['IMAGE']}" in step
    assert f"--container-mounts={tmp_path}:/workspace,/models:/root/.cache/huggingface" in step
    assert "--container-workdir=/workspace" in step and "--export=ALL" in step
    assert step[-2:] == ["bash", f"{FIXED}/kimik3_fp4_b300_vllm.sh"]


@pytest.mark.parametrize("launcher,gpu,accepted", [(B300, "b300", "pyxis none"), (MI355X, "mi355x", "docker none")])
@pytest.mark.parametrize("multinode", [False, True])
def test_an_unsupported_runtime_is_refused_once_up_front(tmp_path, launcher, gpu, accepted, multinode):
    """One list per cluster (LAUNCH_RUNTIMES), single- and multi-node alike: what it lacks is refused before
    anything else, in one line naming the fix; what it holds runs."""
    tree(tmp_path, f"{FIXED}/kimik3_fp4_{gpu}.sh", f"benchmarks/multi_node/fixed_seq_len/kimik3_fp4_{gpu}.sh")
    env = {"MULTINODE": "true", "SWEEPGATE_NODES": "2", "SWEEPGATE_GPUS_PER_NODE": "8"} if multinode else {}
    for runtime in ("pyxis", "docker", "none", "podman", ""):
        runs = runtime in accepted.split() or not runtime  # unset: the first is the default
        # a refused one is reported first and alone, even with IMAGE missing too
        proc = launch(launcher, tmp_path, "--dry-run", env={**env, "SWEEPGATE_CONTAINER_RUNTIME": runtime},
                      drop=() if runs else ("IMAGE",))
        if runs:
            assert proc.returncode == 0, proc.stderr
            continue
        assert proc.returncode == 1 and proc.stdout == "", proc.stdout
        assert proc.stderr == (f"{launcher.name}: SWEEPGATE_CONTAINER_RUNTIME={runtime} is not supported on {gpu}; "
                               f"set it to one of: {accepted} (or unset it for {accepted.split()[0]})\n")
    common = (RUNNERS / "launch_common.sh").read_text()
    assert f'[{gpu}]="{accepted}"' in common
    assert "pyxis | docker" not in common + launcher.read_text()


def job_name_of(tmp_path, **env) -> str:
    tree(tmp_path, f"{FIXED}/kimik3_fp4_b300_vllm.sh")
    _, cmd = dry_run(B300, tmp_path, **env)
    return next(a for a in cmd if a.startswith("--job-name=")).split("=", 1)[1]


def test_job_name_holds_run_attempt_and_result_filename(tmp_path):
    """Unique per run, attempt and row, and findable: the whole RESULT_FILENAME while Slurm takes it;
    a name list's comma or past Slurm's 1024 characters, cut and ended by the filename's digest."""
    fname = BASE_ENV["RESULT_FILENAME"]
    assert job_name_of(tmp_path, GITHUB_RUN_ID="4242", GITHUB_RUN_ATTEMPT="3") == f"sweepgate-4242-3-{fname}"
    long = "x" * 1100
    name = job_name_of(tmp_path, GITHUB_RUN_ID="4242", RESULT_FILENAME=long)
    assert len(name) == 1024 and name.startswith("sweepgate-4242-1-xxx")
    assert name.endswith("-" + hashlib.sha256(long.encode()).hexdigest()[:12])
    odd = job_name_of(tmp_path, RESULT_FILENAME="a,b c")
    assert odd == f"sweepgate-local-1-a-b-c-{hashlib.sha256(b'a,b c').hexdigest()[:12]}"
    assert odd != job_name_of(tmp_path, RESULT_FILENAME="a-b,c")


@pytest.mark.parametrize("image,expected", [
    ("nvcr.io/nvidia/pytorch:25.01-py3", "nvcr.io#nvidia/pytorch:25.01-py3"),
    ("localhost:5000/vllm:dev", "localhost:5000#vllm:dev"),
    ("vllm/vllm-openai:v0.11.0", "vllm/vllm-openai:v0.11.0"),
    ("ubuntu:24.04", "ubuntu:24.04"),
])
def test_b300_pyxis_image(tmp_path, image, expected):
    tree(tmp_path, f"{FIXED}/kimik3_fp4_b300_vllm.sh")
    _, cmd = dry_run(B300, tmp_path, IMAGE=image)
    assert f"--container-image={expected}" in cmd


def test_mi355x_command(tmp_path):
    tree(tmp_path, f"{FIXED}/kimik3_fp4_mi355x.sh")
    script, cmd = dry_run(MI355X, tmp_path, HF_TOKEN="hf_secret_value", RUNNER_NAME="mi355x-amds_3")
    assert cmd[0] == "salloc" and "--partition=mi355x" in cmd
    run = cmd.index("run")
    assert cmd[run - 1] == "docker" and cmd[cmd.index("srun") + 1:run - 1] == ["--nodes=1", "--ntasks=1"]
    docker = cmd[run + 1:]
    assert {"--device=/dev/kfd", "--device=/dev/dri", "--group-add=video", "--rm",
            f"--volume={tmp_path}:/workspace", "--workdir=/workspace"} <= set(docker)
    envs = [a for a in docker if a.startswith("--env=")]
    assert envs == ["--env=EXP_NAME", "--env=IMAGE", "--env=MODEL", "--env=HF_TOKEN"]
    assert docker[-3:] == [BASE_ENV["IMAGE"], "bash", f"{FIXED}/kimik3_fp4_mi355x.sh"]
    # names only: the token's value never reaches the log
    assert "hf_secret_value" not in " ".join(cmd)


def test_mi355x_needs_the_env_name_list(tmp_path):
    tree(tmp_path, f"{FIXED}/kimik3_fp4_mi355x.sh")
    proc = launch(MI355X, tmp_path, "--dry-run", drop=("SWEEPGATE_JOB_ENV_NAMES",))
    assert proc.returncode == 1 and "SWEEPGATE_JOB_ENV_NAMES" in proc.stderr


def fake_bin(tmp_path):
    """salloc/srun/docker stand-ins: drop their own options, run the rest."""
    bin_dir = tmp_path / "fakebin"
    bin_dir.mkdir()
    skip_opts = '''while [[ "${1:-}" == -* ]]; do shift; done\n'''
    (bin_dir / "salloc").write_text("#!/usr/bin/env bash\n" + skip_opts + 'exec "$@"\n')
    (bin_dir / "srun").write_text("#!/usr/bin/env bash\n" + skip_opts + 'exec "$@"\n')
    # docker run: keep only --env=NAME variables (as the container would), drop the image.
    (bin_dir / "docker").write_text('''#!/usr/bin/env bash
[[ "$1" == run ]] || exit 97
shift
keep=(PATH="$PATH")
while [[ "$1" == -* ]]; do
  case "$1" in
    --env=*) name="${1#--env=}"; keep+=("${name}=${!name}") ;;
  esac
  shift
done
shift  # image
exec env -i "${keep[@]}" "$@"
''')
    for f in bin_dir.iterdir():
        f.chmod(0o755)
    return bin_dir


@pytest.mark.parametrize("launcher,gpu", [(B300, "b300"), (MI355X, "mi355x")])
def test_real_run_passes_status_and_logs(tmp_path, launcher, gpu):
    script = tmp_path / FIXED / f"kimik3_fp4_{gpu}.sh"
    script.parent.mkdir(parents=True)
    script.write_text('echo "running $EXP_NAME"\nexit 3\n')
    bin_dir = fake_bin(tmp_path)
    proc = launch(launcher, tmp_path, env={"PATH": f"{bin_dir}:{os.environ['PATH']}"})
    assert proc.returncode == 3, proc.stderr
    log = tmp_path / "results" / "logs" / f"{BASE_ENV['RESULT_FILENAME']}.log"
    assert f"running {BASE_ENV['EXP_NAME']}" in log.read_text()


def test_job_env_names_come_from_fields():
    # The launchers never spell the section 6 names; row-env hands them over.
    text = MI355X.read_text() + (RUNNERS / "launch_common.sh").read_text()
    assert "KV_OFFLOAD_BACKEND_VERSION" not in text and "TOTAL_CPU_DRAM_GB" not in text
    assert set(fields.JOB_ENV_NAMES) >= {"EXP_NAME", "IMAGE", "RESULT_FILENAME", "RUNNER_NAME"}


def test_shellcheck_clean():
    shellcheck = Path(sys.executable).parent / "shellcheck"
    exe = str(shellcheck) if shellcheck.exists() else "shellcheck"
    scripts = sorted(str(p) for p in RUNNERS.glob("launch_*.sh"))
    proc = subprocess.run([exe, "-x", *scripts], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_launchers_share_the_helper():
    common = RUNNERS / "launch_common.sh"
    for launcher in (B300, MI355X):
        text = launcher.read_text()
        assert 'source "$(dirname "${BASH_SOURCE[0]}")/launch_common.sh"' in text
        assert "resolve_script" not in text  # resolution lives only in the helper
        assert os.access(launcher, os.X_OK)
    assert "launch::resolve_script()" in common.read_text()


@pytest.mark.parametrize("launcher,gpu", [(B300, "b300"), (MI355X, "mi355x")])
def test_a_launcher_run_from_a_subfolder_says_where_it_looked(tmp_path, launcher, gpu):
    """New-user review (s32g): run from `configs/`, the launcher said `tried: benchmarks/...; add one of
    them` of scripts that exist at the checkout's top: its paths are from the working directory."""
    tree(tmp_path, f"{FIXED}/kimik3_fp4_{gpu}_vllm.sh")
    (tmp_path / "configs").mkdir()
    proc = launch(launcher, tmp_path / "configs", "--dry-run")
    assert proc.returncode == 1 and proc.stdout == ""
    (line,) = proc.stderr.splitlines()
    assert line.endswith(f"; {tmp_path / 'configs'} has no benchmarks/ folder: run the launcher from the "
                         "checkout's top"), line
    assert "add one of them" not in line
    assert launch(launcher, tmp_path, "--dry-run").returncode == 0
