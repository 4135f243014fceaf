"""`sweepgate rehearse`: real benchmark scripts against the fake server, no GPU."""

from __future__ import annotations

import argparse
import json
import os
import signal
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "utils"))
sys.path.insert(0, str(ROOT / "tests" / "bash"))

from benchlib_helpers import alive, kill_quietly, wait_until_dead  # noqa: E402
from sweepgate.core import fields as F  # noqa: E402
from sweepgate.rehearsal import runner as rehearse  # noqa: E402
from sweepgate.core.errors import SweepgateError  # noqa: E402

SEED_EXP = "kimik3_tp8_conc4_kvdram-lmcache_spec-mtp"
SEED_ROW = {
    "image": "moonshotai/Kimi-K3", "model": "moonshotai/Kimi-K3", "model-prefix": "kimik3",
    "precision": "fp4", "framework": "vllm", "runner": "cluster:b300-nv", "tp": 8, "ep": 1, "pp": 1,
    "dcp-size": 1, "pcp-size": 1, "dp-attn": False, "spec-decoding": "mtp", "conc": 4,
    "kv-offloading": "dram", "kv-offload-backend": {"name": "lmcache", "version": "0.5.4rc2"},
    "total-cpu-dram-gb": 1889, "duration": 3600, "scenario-type": "agentic-coding",
    "exp-name": SEED_EXP, "recipe-fingerprint": "5eed" * 16,
}


def cli(args: list[str], env: dict | None = None, timeout: float = 60, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    full_env = {**os.environ, "PYTHONPATH": str(ROOT / "utils"), "SWEEPGATE_REHEARSE_DURATION": "2", **(env or {})}
    return subprocess.run([sys.executable, "-m", "sweepgate", "rehearse", *args], cwd=cwd, env=full_env,
                          capture_output=True, text=True, timeout=timeout)


def write_rows(tmp_path: Path, rows) -> Path:
    path = tmp_path / "rows.json"
    path.write_text(json.dumps(rows))
    return path


def calls(work: Path) -> list[dict]:
    return [json.loads(line) for line in (work / "calls.jsonl").read_text().splitlines()]


def value(argv: list[str], name: str):
    return argv[argv.index(name) + 1] if name in argv else None


def test_a_relative_work_dir_is_read_from_where_the_command_runs(tmp_path):
    """New-user review: `--work-dir ../../rh` from configs/ failed (`hf: command not found`):
    the shims' folder was put on PATH as given, relative, and the script runs from the top."""
    work = tmp_path / "rel-work"
    relative = os.path.relpath(work, ROOT / "configs")
    r = cli(["--exp-name", SEED_EXP, "--row-json", str(write_rows(tmp_path, SEED_ROW)), "--work-dir", relative],
            cwd=ROOT / "configs")
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"work dir {work}" in r.stdout and list((work / "results").glob("*.job.json"))


def test_seed_row_rehearses_end_to_end(tmp_path):
    work = tmp_path / "work"
    r = cli(["--exp-name", SEED_EXP, "--row-json", str(write_rows(tmp_path, SEED_ROW)),
             "--work-dir", str(work)])
    assert r.returncode == 0, r.stdout + r.stderr
    env = F.row_env(SEED_ROW, "b300-nv_00", str(work / "results"))
    result_file = work / "results" / f"{env['RESULT_FILENAME']}.json"
    result = json.loads(result_file.read_text())
    assert result["exp_name"] == SEED_EXP
    assert result["kv_offload_backend"] == "lmcache" and result["kv_offload_backend_version"] == "0.5.4rc2"
    assert result["runner_name"] == "b300-nv_00" and result["pythonhashseed"] == "0"
    assert result["duration"] == "2"  # the rehearsal override, not the row's 3600
    assert result["aiperf"]["request_count"]["avg"] >= 1
    side = json.loads((work / "results" / f"{env['RESULT_FILENAME']}.job.json").read_text())
    assert side["job"]["rehearsal"] is True and side["job"]["status"] == "success"
    assert side["row"]["exp-name"] == SEED_EXP
    # What the script actually ran:
    seen = calls(work)
    pip = [c["argv"] for c in seen if c["tool"] == "pip"]
    assert any("lmcache==0.5.4rc2" in argv for argv in pip)
    lm = [c["argv"] for c in seen if c["tool"] == "lmcache"]
    assert len(lm) == 1 and value(lm[0], "--shm-name") == ""
    assert value(lm[0], "--l1-size-gb") == "1759.26"  # the 1889 decimal GB budget in GiB, rounded down (units.sh)
    serve = [c["argv"] for c in seen if c["tool"] == "vllm" and c["argv"][0] == "serve"][0]
    assert "LMCacheMPConnector" in value(serve, "--kv-transfer-config")
    spec = json.loads(value(serve, "--speculative-config"))
    assert spec["method"] == "dspark"
    assert value(serve, "--tensor-parallel-size") == "8"
    # Every process the script started is gone.
    assert not [c for c in seen if alive(c["pid"])]
    assert (work / "results" / "server_command.txt").read_text().startswith("vllm serve ")


def _bench_with_script(tmp_path: Path, text: str) -> tuple[Path, Path]:
    """A git repository with the example configs and the first FSL row's benchmark script reading ``text``."""
    repo = tmp_path / "bench"
    shutil.copytree(ROOT / "configs", repo / "configs", symlinks=True)
    script = repo / "benchmarks/single_node/fixed_seq_len/dsr1_fp8_b300_vllm.sh"
    script.parent.mkdir(parents=True)
    script.write_text(text)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    return repo, script


def _rows_from_configs() -> list[dict]:
    """One representative row per (config key, KV arm / seq len), built from the example configs."""
    rows = []
    for path in sorted((ROOT / F.CONFIG_DIR).glob(F.MASTER_GLOB)):
        for key, config in (yaml.safe_load(path.read_text()) or {}).items():
            if not isinstance(config, dict) or config.get(F.MULTINODE):
                continue
            ident = {f: config[f] for f in (F.IMAGE, F.MODEL, F.MODEL_PREFIX, F.PRECISION, F.FRAMEWORK, F.RUNNER)}
            for scenario, entries in (config.get(F.SCENARIOS) or {}).items():
                for entry in entries or []:
                    seen_arms = set()
                    for point in entry.get(F.SEARCH_SPACE) or []:
                        conc = (point.get(F.CONC_LIST) or [point.get(F.CONC_START, 4)])[0]
                        row = {**ident, F.TP: point[F.TP], F.EP: point.get(F.EP, 1), F.PP: 1, F.DCP_SIZE: 1,
                               F.PCP_SIZE: 1, F.DP_ATTN: bool(point.get(F.DP_ATTN, False)),
                               F.SPEC_DECODING: point.get(F.SPEC_DECODING, "none"), F.CONC: conc,
                               F.RECIPE_FINGERPRINT: "f" * 64}
                        if scenario == F.AGENTIC_CODING:
                            backend = point.get(F.KV_OFFLOAD_BACKEND)
                            arm = (backend or {}).get("name", "none")
                            if arm in seen_arms:
                                continue
                            seen_arms.add(arm)
                            row.update({F.SCENARIO_TYPE: F.AGENTIC_CODING, F.DURATION: 3600,
                                        F.KV_OFFLOADING: point.get(F.KV_OFFLOADING, "none"),
                                        F.TOTAL_CPU_DRAM_GB: 1000, F.EXP_NAME: f"{key}-{arm}"})
                            if backend:
                                row[F.KV_OFFLOAD_BACKEND] = backend
                        else:
                            isl, osl = entry[F.ISL], entry[F.OSL]
                            # keep the fake requests small; the script is what is rehearsed
                            row.update({F.ISL: min(isl, 64), F.OSL: min(osl, 16),
                                        F.MAX_MODEL_LEN: isl + osl + 256, F.EXP_NAME: f"{key}-{isl}-{osl}"})
                            if rows and rows[-1][F.EXP_NAME].startswith(key):
                                continue  # one fixed-seq-len row per key is enough
                        rows.append(row)
    return rows


CONFIG_ROWS = _rows_from_configs()


@pytest.mark.parametrize("row", CONFIG_ROWS, ids=[r[F.EXP_NAME] for r in CONFIG_ROWS])
def test_every_example_config_script_rehearses(tmp_path, row):
    work = tmp_path / "work"
    r = cli(["--exp-name", row[F.EXP_NAME], "--row-json", str(write_rows(tmp_path, [row])),
             "--work-dir", str(work)])
    assert r.returncode == 0, r.stdout + r.stderr
    assert list((work / "results").glob("*.json"))


def test_cancelled_job_leaves_no_server_behind(tmp_path):
    """TERM mid-replay: exit 143, the LMCache server and vLLM are both gone."""
    work = tmp_path / "work"
    shim_dir, log = work / "shims", work / "calls.jsonl"
    rehearse.write_shims(shim_dir)
    rehearse.write_trace(work / "trace.jsonl")
    env = rehearse.build_env(SEED_ROW, "b300-nv_00", work / "results", shim_dir, log, work / "trace.jsonl", 60)
    script = ROOT / "benchmarks/single_node/agentic/kimik3_fp4_b300_vllm_mtp.sh"
    proc = subprocess.Popen(["bash", str(script)], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    pids = []
    try:
        deadline = time.monotonic() + 20
        while not (log.exists() and any(c["tool"] == "aiperf" for c in calls(work))):
            assert proc.poll() is None, proc.stdout.read()
            assert time.monotonic() < deadline, "the replay never started"
            time.sleep(0.05)
        pids = [c["pid"] for c in calls(work) if c["tool"] in ("vllm", "lmcache", "aiperf")]
        assert len(pids) == 3 and all(alive(p) for p in pids)
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=30)
        assert proc.returncode == 143, out
        assert not wait_until_dead(pids, timeout=5)
        assert "Stopping LMCache server" in out and "Stopping vLLM server" in out
        # most recent first: client, then vLLM, then LMCache
        order = [line for line in out.splitlines() if line.startswith("Stopping ")]
        assert [o.split(" (")[0] for o in order] == [
            "Stopping agentic replay client", "Stopping vLLM server", "Stopping LMCache server"]
    finally:
        proc.kill()
        kill_quietly(pids)


def test_failing_script_is_reported_with_its_log(tmp_path):
    row = {**SEED_ROW, F.TP: 4}  # the Kimi script refuses TP4
    r = cli(["--exp-name", SEED_EXP, "--row-json", str(write_rows(tmp_path, row)), "--work-dir", str(tmp_path / "w")])
    assert r.returncode == 1
    assert "the script exited 1" in r.stderr
    assert "TP=8" in r.stderr  # the script's own message, from the log tail
    assert "Traceback" not in r.stderr


# --- finding the row and the script -------------------------------------------------------------

FSL_ROWS = [{**{k: v for k, v in SEED_ROW.items() if k not in ("kv-offload-backend", "scenario-type", "duration")},
             "model-prefix": "dsr1", "precision": "fp8", "spec-decoding": "none", "kv-offloading": "none",
             "exp-name": "dsr1_1k1k", "conc": c, "isl": 1024, "osl": 1024, "max-model-len": 2304}
            for c in (4, 8)]


def test_repeated_exp_name_needs_conc():
    with pytest.raises(SweepgateError, match="--conc"):
        rehearse.select_row(FSL_ROWS, "rows.json", "dsr1_1k1k", None)
    assert rehearse.select_row(FSL_ROWS, "rows.json", "dsr1_1k1k", 8)[F.CONC] == 8


def test_rows_alike_but_for_tp_are_told_apart_with_where():
    """New-user review: tp4 and tp8 rows of one config key (same exp-name and conc) were "narrow
    with --config-keys KEY", already given; with --conc given it still said "choose one with
    --conc N" for rows whose conc lists overlap."""
    rows = [{**FSL_ROWS[0], "tp": 4}, {**FSL_ROWS[0], "tp": 8}]
    conc = FSL_ROWS[0][F.CONC]
    with pytest.raises(SweepgateError) as info:
        rehearse.select_row(rows, "rows.json", "dsr1_1k1k", conc)
    message = info.value.diagnostics[0]
    assert "differ in tp 4, 8" in message.message and message.hint == "choose one with --where tp=4", message
    assert rehearse.select_row(rows, "rows.json", "dsr1_1k1k", conc, ["tp=8"])["tp"] == 8
    with pytest.raises(SweepgateError, match="has tp=16"):
        rehearse.select_row(rows, "rows.json", "dsr1_1k1k", conc, ["tp=16"])
    multi = [{**FSL_ROWS[0], "conc": [4, 8], "tp": 4}, {**FSL_ROWS[0], "conc": [8, 16], "tp": 8}]
    with pytest.raises(SweepgateError, match="--where tp=4"):
        rehearse.select_row(multi, "rows.json", "dsr1_1k1k", 8)


def test_a_whole_matrix_is_a_row_file(tmp_path):
    """New-user review: `--row-json` given `sweepgate matrix` output said "no row has exp-name
    ...; pick one of: None"."""
    matrix = {"single_node": {"fixed-seq-len": FSL_ROWS}, "multi_node": {}, "evals": [],
              "changelog_metadata": {"base_ref": "a", "head_ref": "b", "entries": [{"config-keys": ["k"]}]}}
    path = tmp_path / "matrix.json"
    path.write_text(json.dumps(matrix))
    args = type("Args", (), {"row_json": str(path), "config_keys": None})()
    rows, _ = rehearse.load_rows(args, ROOT)
    assert rows == FSL_ROWS


def test_unknown_exp_name_lists_known_ones():
    with pytest.raises(SweepgateError) as info:
        rehearse.select_row(FSL_ROWS + [SEED_ROW], "rows.json", "nope", None)
    assert "dsr1_1k1k" in str(info.value) and SEED_EXP in str(info.value)


def test_conc_that_does_not_exist():
    with pytest.raises(SweepgateError, match="no row with conc 16"):
        rehearse.select_row(FSL_ROWS, "rows.json", "dsr1_1k1k", 16)


def test_runner_name_and_gpu_from_the_row():
    assert rehearse.default_runner_name(SEED_ROW) == "b300-nv_00"
    assert rehearse.gpu_family(rehearse.default_runner_name({"runner": "cluster:mi355x-amds"})) == "mi355x"


def test_missing_script_is_a_diagnostic_not_a_traceback(tmp_path):
    row = {**SEED_ROW, "model-prefix": "nosuchmodel"}
    r = cli(["--exp-name", SEED_EXP, "--row-json", str(write_rows(tmp_path, row))])
    assert r.returncode == 1
    assert "benchmarks/single_node/agentic/nosuchmodel_fp4_b300_vllm_mtp.sh" in r.stderr
    assert "create " in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("content,message", [("{not json", "not JSON"), ('["x"]', "JSON objects")])
def test_bad_row_file(tmp_path, content, message):
    path = tmp_path / "rows.json"
    path.write_text(content)
    r = cli(["--exp-name", "x", "--row-json", str(path)])
    assert r.returncode == 1 and message in r.stderr and "Traceback" not in r.stderr


def test_a_row_file_with_an_integer_past_python_s_limit_is_one_line(tmp_path):
    """Review: `--row-json` read its file with json.loads alone, so a 5,000-digit integer was `internal
    error: ValueError: Exceeds the limit (4300 digits)`; it is read as every other JSON input is
    (jsontext.loads), and the row is refused in one line."""
    path = tmp_path / "rows.json"
    path.write_text('{"exp-name": "x", "tp": ' + "9" * 5000 + "}")
    r = cli(["--exp-name", "x", "--row-json", str(path)])
    assert r.returncode == 1 and "internal error" not in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.startswith(f"{path}: row lacks ") and len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_missing_row_file(tmp_path):
    r = cli(["--exp-name", "x", "--row-json", str(tmp_path / "absent.json")])
    assert r.returncode == 1 and "cannot read row file" in r.stderr


def test_rows_missing_identity_fields_are_refused():
    """Multi-node rows are rehearsed now (test_rehearse_multinode); a row without conc or runner is not."""
    row = {k: v for k, v in SEED_ROW.items() if k not in ("conc", "runner")}
    with pytest.raises(SweepgateError, match="row lacks runner, conc"):
        rehearse.required_fields(row, "rows.json")
    rehearse.required_fields({**SEED_ROW, "prefill": {"tp": 8}, "decode": {"tp": 8}}, "rows.json")


def test_bad_duration_override(monkeypatch):
    monkeypatch.setenv(rehearse.DURATION_ENV, "soon")
    with pytest.raises(SweepgateError, match="not a number"):
        rehearse.rehearsal_duration(argparse.Namespace(duration=None))
    monkeypatch.setenv(rehearse.DURATION_ENV, "3")
    assert rehearse.rehearsal_duration(argparse.Namespace(duration=None)) == 3
    assert rehearse.rehearsal_duration(argparse.Namespace(duration=7)) == 7


def test_rows_from_sweep_rows_when_available(tmp_path, monkeypatch):
    """Without --row-json the rows come from sweepgate.api.sweep_rows, or a clear error."""
    args = argparse.Namespace(row_json=None, config_keys=["kimik3-fp4-b300-vllm-agentic-dspark-lmcache"])
    try:
        import sweepgate.api  # noqa: F401
    except ImportError:
        with pytest.raises(SweepgateError, match="--row-json"):
            rehearse.load_rows(args, ROOT)
        return
    rows, _ = rehearse.load_rows(args, ROOT)
    assert any(r.get(F.EXP_NAME) == SEED_EXP for r in rows)


def test_check_calls_catches_a_script_that_ignores_the_row():
    env = {"PORT": "8000", "SWEEPGATE_ACCELERATOR_RUNTIME": "cuda"}
    seen = [{"tool": "pip", "argv": ["install", "lmcache==0.4.0"]},
            {"tool": "lmcache", "argv": ["server", "--http-port", "1", "--l1-size-gb", "100", "--chunk-size", "256"]},
            {"tool": "vllm", "argv": ["serve", "m", "--port", "8000"]}]
    problems = rehearse.check_calls(SEED_ROW, env, seen)
    text = "\n".join(problems)
    assert "0.5.4rc2" in text and "--l1-size-gb is 100" in text and "--shm-name" in text
    assert "LMCacheMPConnector" in text


SGLANG_ROW = {
    "image": "lmsysorg/sglang:v0.5.0", "model": "deepseek-ai/DeepSeek-R1-0528", "model-prefix": "dsr1",
    "precision": "fp8", "framework": "sglang", "runner": "cluster:b300-nv", "isl": 1024, "osl": 1024, "tp": 8,
    "ep": 1, "pp": 1, "dcp-size": 1, "pcp-size": 1, "dp-attn": False, "spec-decoding": "none", "conc": 4,
    "max-model-len": 2248, "kv-offloading": "none", "exp-name": "dsr1_1k1k", "scenario-type": "fixed-seq-len",
    "recipe-fingerprint": "abcd" * 16,
}


def test_check_calls_knows_the_sglang_server():
    """New-user review: an SGLang row's rehearsal said FAILED, "the script never started `vllm
    serve`", though its script started its SGLang server and wrote a result."""
    env = {"PORT": "8000"}
    sglang = {"tool": "python3", "argv": ["-m", "sglang.launch_server", "--model-path", "m", "--port", "8000"]}
    assert rehearse.check_calls(SGLANG_ROW, env, [sglang]) == []
    assert rehearse.check_calls(SGLANG_ROW, env, []) == [  # s32c: with its fix
        "the script never started the SGLang server (`python3 -m sglang.launch_server`); start it in the script, "
        'listening on "$PORT" (start_server_and_wait)']
    moved = {**sglang, "argv": [*sglang["argv"][:-1], "9000"]}
    assert rehearse.check_calls(SGLANG_ROW, env, [moved]) == [  # s31h: with its fix (PORT_FIX below)
        f"the SGLang server's --port is 9000, expected $PORT=8000; {PORT_FIX}"]


PORT_FIX = ('listen on "$PORT", which the rehearsal sets to a free port (a script\'s own default only when it is '
            'unset: PORT=${PORT:-8888})')


def test_a_server_on_its_own_port_is_told_to_listen_on_the_job_s_port():
    """Adopter review (s31h): a repository's own script with `PORT=8888` (not `${PORT:-8888}`) failed its
    rehearsal with `vllm serve --port is 8888, expected $PORT=10628` and nothing saying what to change:
    CONTRACTS section 6 did not list PORT among the job's variables either."""
    row = {**SGLANG_ROW, "framework": "vllm", "image": "vllm/vllm-openai:v0.11.0"}
    served = {"tool": "vllm", "argv": ["serve", "m", "--port", "8888"]}
    assert rehearse.check_calls(row, {"PORT": "10628"}, [served]) == [
        f"vllm serve --port is 8888, expected $PORT=10628; {PORT_FIX}"]
    assert rehearse.check_calls(row, {"PORT": "8888"}, [served]) == []


def sglang_repo(tmp_path, client: str | None = None):
    """A repository with this one's benchmarks and configs whose SGLang row's script is the vLLM one with its server
    swapped for SGLang's, and its client for ``client`` when given."""
    repo = tmp_path / "bench"
    for part in ("benchmarks", "configs"):
        shutil.copytree(ROOT / part, repo / part, symlinks=True)
    vllm = (repo / "benchmarks/single_node/fixed_seq_len/dsr1_fp8_b300_vllm.sh").read_text()
    start, end = vllm.index("server_cmd=("), vllm.index(")\n", vllm.index("server_cmd=(")) + 2
    server = ('server_cmd=(\n  python3 -m sglang.launch_server --model-path "${MODEL_PATH}"\n'
              '  --served-model-name "${MODEL}" --host 0.0.0.0 --port "${PORT}" --tp-size "${TP}"\n)\n')
    text = vllm[:start] + server + vllm[end:]
    if client is not None:
        text = text[:text.index("run_throughput_and_evals")] + client
    (repo / "benchmarks/single_node/fixed_seq_len/dsr1_fp8_b300_sglang.sh").write_text(text)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    return repo


def test_an_sglang_row_rehearses_in_an_adopting_repository(tmp_path):
    """The same review, end to end: a repository's own SGLang script, from its configs/ folder."""
    repo = sglang_repo(tmp_path)
    rows = write_rows(tmp_path, SGLANG_ROW)
    r = cli(["--exp-name", "dsr1_1k1k", "--row-json", str(rows), "--work-dir", str(tmp_path / "w")],
            cwd=repo / "configs")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "$ python3 -m sglang.launch_server" in r.stdout + r.stderr
    assert "Starting SGLang server" in (tmp_path / "w" / "script.log").read_text()


@pytest.mark.parametrize("l1,flagged", [("1889", True), ("1759.268343448638916015625", False), ("1759.26", False),
                                        ("1759.27", True), ("1759.25", True), ("nan", True), ("1e400", True)])
def test_check_calls_wants_the_budget_in_gib_to_the_byte(l1, flagged):
    seen = [{"tool": "pip", "argv": ["install", "lmcache==0.5.4rc2"]},
            {"tool": "lmcache", "argv": ["server", "--l1-size-gb", l1, "--chunk-size", "256", "--shm-name", ""]},
            {"tool": "vllm", "argv": ["serve", "m", "--port", "8000", "--kv-transfer-config", "LMCacheMPConnector"]}]
    problems = rehearse.check_calls(SEED_ROW, {"PORT": "8000"}, seen)
    assert any("--l1-size-gb" in p for p in problems) == flagged, problems


# --- eval rows (issue 16 item 2) ------------------------------------------------------

EVAL_ROW = {
    "image": "vllm/vllm-openai:v0.11.0", "model": "deepseek-ai/DeepSeek-R1-0528", "model-prefix": "dsr1",
    "precision": "fp8", "framework": "vllm", "runner": "cluster:b300-nv", "isl": 8192, "osl": 1024, "tp": 8,
    "pp": 1, "dcp-size": 1, "pcp-size": 1, "conc": 32, "max-model-len": 9472, "ep": 1, "dp-attn": False,
    "spec-decoding": "none", "exp-name": "dsr1_8k1k", "disagg": False, "run-eval": True, "eval-only": True,
}


def _show(db: str) -> list[dict]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "utils")}
    r = subprocess.run([sys.executable, "-m", "sweepgate", "results", "show", "--db", db, "--json"], cwd=ROOT,
                       env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def _ingest(db: str, folder: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "utils")}
    return subprocess.run([sys.executable, "-m", "sweepgate", "results", "ingest", "--db", db, str(folder)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("eval_only", [True, False])
def test_an_eval_row_runs_lm_eval_and_its_score_is_stored(tmp_path, eval_only):
    work, db = tmp_path / "work", f"sqlite:///{tmp_path / 'results.db'}"
    row = {**EVAL_ROW, "eval-only": eval_only}
    r = cli(["--exp-name", "dsr1_8k1k", "--row-json", str(write_rows(tmp_path, row)), "--work-dir", str(work)])
    assert r.returncode == 0, r.stdout + r.stderr
    seen = calls(work)
    pips = [c["argv"] for c in seen if c["tool"] == "pip"]
    assert any("lm-eval[api]==0.4.9.1" in argv for argv in pips), pips
    (lm_eval,) = [c["argv"] for c in seen if c["tool"] == "lm_eval"]
    assert value(lm_eval, "--model") == "local-chat-completions" and value(lm_eval, "--tasks") == "gsm8k"
    assert "/v1/chat/completions" in value(lm_eval, "--model_args")
    benches = [c for c in seen if c["tool"] == "vllm" and c["argv"][:2] == ["bench", "serve"]]
    assert bool(benches) is (not eval_only)
    results = work / "results"
    doc = json.loads(next(results.glob("*-eval.json")).read_text())
    sample = json.loads(next((ROOT / "tests" / "data" / "results-samples" / "lm_eval").glob("lmeval0.4.8_*"))
                        .read_text())
    assert set(doc) == set(sample), set(doc) ^ set(sample)
    assert doc["model_name"] == row["model"]
    assert _ingest(db, results).returncode == 0
    stored = _show(db)
    evals = [rec for rec in stored if rec["evals"]]
    assert len(evals) == 1 and evals[0]["rehearsal"] is True and evals[0]["conc"] == 32
    assert {e["task"] for e in evals[0]["evals"]} == {"gsm8k"}
    assert evals[0]["result-filename"].endswith("-eval")
    assert len(stored) == (1 if eval_only else 2)
    assert all(rec["status"] == "success" for rec in stored)


def test_an_eval_row_whose_script_skips_the_eval_fails_the_rehearsal():
    problems = rehearse.check_eval_calls(EVAL_ROW, [{"tool": "vllm", "argv": ["serve", "m"]}])
    assert any("never ran lm_eval" in p for p in problems)
    assert rehearse.check_eval_calls({**EVAL_ROW, "run-eval": False, "eval-only": False},
                                     [{"tool": "lm_eval", "argv": []}])


# --- each backend's build for the runner's hardware (issue 16 item 6) ----------------------

@pytest.mark.parametrize("exp_name,runtime,source", [
    ("dsv4_tp8_conc8_kvdram-lmcache_spec-mtp", "rocm", True),    # MI355X
    ("kimik3_tp8_conc4_kvdram-lmcache_spec-mtp", "cuda", False),  # B300, the seed row
])
def test_lmcache_installs_the_build_for_the_runners_hardware(tmp_path, exp_name, runtime, source):
    work = tmp_path / "work"
    r = cli(["--exp-name", exp_name, "--work-dir", str(work)], timeout=180)
    assert r.returncode == 0, r.stdout + r.stderr
    (pip,) = [c for c in calls(work) if c["tool"] == "pip" and "lmcache==0.5.4rc2" in c["argv"]]
    assert "--no-deps" not in pip["argv"]
    assert ("--no-binary" in pip["argv"]) is source
    assert (pip["env"].get("BUILD_WITH_HIP"), pip["env"].get("CXX")) == (("1", "hipcc") if source else (None, None))
    (server,) = [c["argv"] for c in calls(work) if c["tool"] == "lmcache"]
    assert value(server, "--max-workers") == "16" and value(server, "--l1-read-ttl-seconds") == "7200"


def test_mooncake_on_b300_installs_the_cuda_build_and_uses_the_runners_rdma_devices(tmp_path):
    work = tmp_path / "work"
    r = cli(["--exp-name", "kimik3_tp8_conc4_kvdram-mooncake_spec-mtp", "--work-dir", str(work)], timeout=180)
    assert r.returncode == 0, r.stdout + r.stderr
    pips = [c["argv"] for c in calls(work) if c["tool"] == "pip"]
    assert any("mooncake-transfer-engine==0.3.7" in argv for argv in pips), pips
    config = json.loads((work / "results" / "mooncake_config.json").read_text())
    assert config["protocol"] == "rdma" and config["device_name"] == ",".join(f"mlx5_{i}" for i in range(8))


@pytest.mark.parametrize("name,runtime,argv,env,problem", [
    ("lmcache", "rocm", ["install", "lmcache==1.0"], {}, "built from source"),
    ("lmcache", "cuda", ["install", "--no-deps", "lmcache==1.0"], {}, "--no-deps"),
    ("lmcache", "cuda", ["install", "--no-binary", "lmcache", "lmcache==1.0"], {"BUILD_WITH_HIP": "1"}, "wheel"),
    ("mooncake", "cuda", ["install", "mooncake-transfer-engine-non-cuda==1.0"], {}, "not installed"),
    ("lmcache", "", ["install", "lmcache==1.0"], {}, "no known build"),
    ("lmcache", "rocm", ["install", "--no-binary", "lmcache", "lmcache==1.0"], {"BUILD_WITH_HIP": "1"}, None),
    ("mooncake", "cuda", ["install", "mooncake-transfer-engine==1.0"], {}, None),
])
def test_check_backend_build(name, runtime, argv, env, problem):
    problems = rehearse.check_backend_build(name, "1.0", runtime, [{"tool": "pip", "argv": argv, "env": env}])
    assert (not problems) if problem is None else any(problem in p for p in problems), problems


def test_an_agentic_job_installs_the_pinned_aiperf(tmp_path):
    work = tmp_path / "work"
    r = cli(["--exp-name", SEED_EXP, "--row-json", str(write_rows(tmp_path, SEED_ROW)), "--work-dir", str(work)])
    assert r.returncode == 0, r.stdout + r.stderr
    seen = calls(work)
    pips = [i for i, c in enumerate(seen) if c["tool"] == "pip" and "aiperf==0.13.0" in c["argv"]]
    replays = [i for i, c in enumerate(seen) if c["tool"] == "aiperf"]
    assert len(pips) == 1 and replays and pips[0] < replays[0]


def test_ctrl_c_stops_a_stand_in_that_outlives_the_script_and_ignores_term(tmp_path):
    """A Ctrl-C stops the script (TERM, then KILL of its group), but a stand-in the shims started in
    a session of its own, ignoring TERM, is out of that group's reach: it is reaped from the log."""
    from sweepgate.rehearsal import runner

    log, pidfile, child = tmp_path / "calls.jsonl", tmp_path / "stand-in.pid", tmp_path / "child.pid"
    script = tmp_path / "row.sh"
    script.write_text(f"""
setsid bash -c 'trap "" TERM; echo $$ >{pidfile}; exec sleep 600' &
while [[ ! -s {pidfile} ]]; do sleep 0.05; done
sleep 600 &
echo $! >{child}
printf '{{"tool": "vllm", "argv": ["serve"], "pid": %s}}\\n' "$(cat {pidfile})" >{log}
wait
""")

    def interrupt():
        if log.exists() and log.read_text():
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        runner.run_script(script, tmp_path, dict(os.environ), tmp_path / "out.log", 60, poll=interrupt, log=log)
    pid, own = int(pidfile.read_text()), int(child.read_text())
    try:
        assert not runner.pid_alive(pid), "the stand-in outlived the Ctrl-C"
        # the script has no TERM trap: it died at once, and its own child must not outlive it
        assert not runner.pid_alive(own), "the script's own child outlived the Ctrl-C"
    finally:
        for left in (pid, own):
            if runner.pid_alive(left):
                os.kill(left, signal.SIGKILL)


def rehearsal_in_replay(tmp_path: Path, temp: Path, cwd: Path) -> subprocess.Popen:
    """A real `sweepgate rehearse` of the seed row (run from ``cwd``, its temporary work dir under the
    new folder ``temp``), returned once its replay client has started."""
    temp.mkdir()
    env = {**os.environ, "PYTHONPATH": str(ROOT / "utils"), "SWEEPGATE_REHEARSE_DURATION": "30", "TMPDIR": str(temp)}
    proc = subprocess.Popen([sys.executable, "-m", "sweepgate", "rehearse", "--exp-name", SEED_EXP, "--row-json",
                             str(write_rows(tmp_path, SEED_ROW))], cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while not any(c["tool"] == "aiperf" for w in temp.glob("sweepgate-rehearse-*")
                  if (w / "calls.jsonl").exists() for c in calls(w)):
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise AssertionError(f"the replay never started: {proc.communicate()}")
        time.sleep(0.05)
    return proc


@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_interrupted_rehearsal_removes_its_temporary_work_dir(tmp_path, sig, code):
    """New-user review: Ctrl-C (or SIGTERM) mid-rehearsal exited 130 (143) but left
    /tmp/sweepgate-rehearse-* behind (shims, server log, part of a result), against README's exit-code
    table. A --work-dir the user named stays."""
    temp = tmp_path / "tmp"
    proc = rehearsal_in_replay(tmp_path, temp, ROOT)
    try:
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == code and "Traceback" not in err, err
    assert list(temp.iterdir()) == [] and "rehearse: stopped; removed its work dir " in err, err


def test_a_timeout_is_the_whole_wait_for_a_script_that_ignores_term(tmp_path, monkeypatch):
    """Review: `--timeout 5` on a script that trapped TERM waited 60 s more before the KILL. Now the
    grace after TERM is a tenth of the timeout (at least 1 s, at most 10 s), the message says the
    script was killed after its timeout, and nothing of its session is left: neither a child in its
    process group nor one in a group of its own (`set -m`). What is checked is what the runner did, not
    how long the test took on a busy host: the waits it made (the timeout, then the grace after TERM)
    and when the script's trap saw the TERM (not before the timeout)."""
    from sweepgate.rehearsal import runner

    group, own, term = tmp_path / "group.pid", tmp_path / "own.pid", tmp_path / "term.at"
    script = tmp_path / "row.sh"
    script.write_text(f"""trap 'echo ${{EPOCHREALTIME/,/.}} >{term}; echo TERM ignored' TERM
sleep 600 &
echo $! >{group}
set -m
sleep 601 &
echo $! >{own}
while true; do sleep 0.2; done
""")
    waits, wait = [], runner._wait
    monkeypatch.setattr(runner, "_wait", lambda proc, timeout, *a, **kw: waits.append(timeout) or wait(
        proc, timeout, *a, **kw))
    started = time.time()
    run = runner.run_script(script, tmp_path, dict(os.environ), tmp_path / "out.log", 5)
    pids = [int(group.read_text()), int(own.read_text())]
    try:
        assert waits[:2] == [5, runner.stop_grace(5)], f"waited {waits} for --timeout 5"
        assert float(term.read_text()) - started >= 5, "TERM before the timeout"
        assert run.timed_out and run.rc == -signal.SIGKILL and "TERM ignored" in (tmp_path / "out.log").read_text()
        assert not [p for p in pids if runner.pid_alive(p)], "the script's children outlived the timeout"
        assert runner.ending_problem(run, 5) == ("the script did not finish within 5s and was still running 1s "
                                                 f"after SIGTERM, so it was killed (SIGKILL); {runner.ENDS_ON_TERM}")
    finally:
        kill_quietly(pids)
    assert [runner.stop_grace(t) for t in (1, 30, 600, 86400)] == [1, 3, 10, 10]


def test_timeout_help_states_the_grace_s_bounds_as_stop_grace_keeps_them():
    """docs19: `--timeout`'s help said "a tenth of it later (at most 10 s)", but a timeout under 10 s
    gets 1 s (`--timeout 5`: 'still running 1s after SIGTERM'); the help names both bounds."""
    from sweepgate.rehearsal import runner

    proc = cli(["--help"], env={"COLUMNS": "400"})
    line = next(text for text in proc.stdout.splitlines() if "--timeout" in text and "KILL" in text)
    low, high = runner.stop_grace(1), runner.stop_grace(10 ** 6)
    assert f"at least {low:g} s, at most {high:g} s" in line, line


def test_a_script_that_exits_leaving_a_child_is_told_and_the_child_stopped(tmp_path):
    """Review: a script that ended with `sleep 600 &` still running passed the "leaves none of the
    processes it started running" check (only shim processes were looked at) and the child stayed.
    The script ends only once its child is `sleep` (its /proc cmdline's first word), not the forked bash
    before its exec: on a loaded host the runner once named it `bash .../row.sh` (s42e)."""
    from sweepgate.rehearsal import runner

    pidfile, script = tmp_path / "child.pid", tmp_path / "row.sh"
    script.write_text(f"sleep 600 &\necho $! >{pidfile}\n"
                      "until IFS= read -r -d '' arg0 </proc/$!/cmdline && [ \"$arg0\" = sleep ]; do :; done\n")
    run = runner.run_script(script, tmp_path, dict(os.environ), tmp_path / "out.log", 30)
    pid = int(pidfile.read_text())
    try:
        assert (run.rc, run.timed_out) == (0, False)
        assert run.left == [f"sleep 600 (PID {pid})"] and not runner.pid_alive(pid)
    finally:
        kill_quietly([pid])


def _stat_state(pid: int) -> str | None:
    """The process's state letter (Z: a zombie), None when it is gone altogether."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return None


@pytest.mark.skipif(not hasattr(os, "waitid"), reason="os.waitid holds a child unreaped")
@pytest.mark.parametrize("body, stop", [("exit 0\n", False), ("trap '' TERM; sleep 600\n", True)])
def test_the_script_is_reaped_only_after_its_session_is_stopped(tmp_path, body, stop):
    """Review (reaper19): the session and group of a finished script were KILLed by its PID after it
    was reaped, when the PID may already be another process's. `_wait` (and `_stop`, after a timeout)
    now leave the script a zombie, its PID taken, until run_script has stopped what is left of it."""
    from sweepgate.rehearsal import runner

    script = tmp_path / "row.sh"
    script.write_text(body)
    proc = subprocess.Popen(["bash", str(script)], start_new_session=True)
    try:
        runner._stop(proc, grace=0.5) if stop else runner._wait(proc, 10)
        assert proc.returncode is None and _stat_state(proc.pid) == "Z"
    finally:
        proc.kill()
        proc.wait()
    assert _stat_state(proc.pid) is None


@pytest.mark.parametrize("body, told", [("kill -KILL $$", "the script was killed by SIGKILL (signal 9)"),
                                        ("kill -SEGV $$", "the script was killed by SIGSEGV (signal 11)"),
                                        ("exit 3", "the script exited 3")])
def test_a_script_killed_by_a_signal_names_it(tmp_path, body, told):
    """Review: a script killed by a signal failed with "the script exited -9"."""
    from sweepgate.rehearsal import runner

    script = tmp_path / "row.sh"
    script.write_text(body + "\n")
    run = runner.run_script(script, tmp_path, dict(os.environ), tmp_path / "out.log", 30)
    assert runner.ending_problem(run, 30) == f"{told}; {runner.SAYS_WHY}"  # s32c: with its fix


@pytest.mark.parametrize("change, told", [({"model": None}, "row's model null is not text"),
                                          ({"max-model-len": 10**12}, "row's max-model-len 1000000000000 is not"),
                                          ({"max-model-len": 0}, "row's max-model-len 0 is not"),
                                          ({"max-model-len": -1}, "row's max-model-len -1 is not")])
def test_a_row_with_no_model_or_an_absurd_max_model_len_is_refused(tmp_path, change, told):
    """Review: `--row-json` rows with `model: null` (the script ran `hf download None`) or a max-model-len
    of 10**12, 0 or -1 passed the row check and were rehearsed; `ci row-env` refuses them now, and so
    does this, with the same check."""
    row = {**FSL_ROWS[0], **change}
    r = cli(["--row-json", str(write_rows(tmp_path, row)), "--work-dir", str(tmp_path / "w")])
    assert r.returncode == 1 and r.stdout == "" and len(r.stderr.splitlines()) == 1, r.stdout + r.stderr
    assert r.stderr.startswith(f"{tmp_path / 'rows.json'}:1: {told}"), r.stderr


@pytest.mark.parametrize("shape", ["list", "matrix"])
def test_a_bad_row_of_a_list_is_told_at_its_own_line(tmp_path, shape):
    """Review: a row check error in a list of rows (or a whole matrix) pointed at line 1; it points at
    the row's own '{' now, found by where the reader met each object (core.jsontext.object_places)."""
    rows = [{**FSL_ROWS[0], "conc": c, "note": 'a {brace "in" {text'} for c in (1, 2, 4)]
    rows[2]["max-model-len"] = 0
    doc = rows if shape == "list" else {"single_node": {"1k1k": rows}, "multi_node": {}, "evals": []}
    path = tmp_path / "rows.json"
    path.write_text(json.dumps(doc, indent=2))
    r = cli(["--row-json", str(path), "--exp-name", "dsr1_1k1k", "--conc", "4"])
    line = next(n for n, text in enumerate(path.read_text().splitlines(), 1) if '"conc": 4' in text)
    start = max(n for n, text in enumerate(path.read_text().splitlines()[:line], 1) if text.strip() == "{")
    col = 3 if shape == "list" else 7
    assert r.returncode == 1 and r.stderr.startswith(f"{path}:{start}:{col}: row's max-model-len 0 is not"), r.stderr


def test_object_places_skip_braces_in_strings_and_give_up_on_a_dropped_object():
    from sweepgate.core import jsontext

    text = '[\n {"a": "{\\\\\\"{", "b": {"c": 1}},\n  {"d": [{}]}\n]'
    data = jsontext.loads(text)
    places = jsontext.object_places(text, data)
    assert [places[id(o)] for o in (data[0], data[0]["b"], data[1], data[1]["d"][0])] == [
        (2, 2), (2, 23), (3, 3), (3, 10)]
    repeated = '{"a": {"x": 1}, "a": 2}'
    assert jsontext.object_places(repeated, jsontext.loads(repeated)) == {}


@pytest.mark.parametrize("body, did", [('rm -rf "$RESULT_DIR"; echo x >"$RESULT_DIR"', "replaced it with a regular file"),
                                       ('rm -rf "$RESULT_DIR"', "removed it"),
                                       # a dangling link of its own: /nonexistent may exist on a shared machine
                                       ('rm -rf "$RESULT_DIR"; ln -s "$RESULT_DIR.gone" "$RESULT_DIR"',
                                        "replaced it with a symbolic link to {work}/results.gone, which is no folder")])
def test_a_script_that_does_away_with_result_dir_fails_saying_so(tmp_path, body, did):
    """Review: a script that replaced $RESULT_DIR with a file lost the rehearsal's verdict: the one line
    was the job sidecar's "cannot write here: Not a directory; pass a path in an existing, writable
    folder", as if the user had chosen the path, and nothing about the script."""
    repo, _ = _bench_with_script(tmp_path, body + "\n")
    work = tmp_path / "w"
    r = cli(["--row-json", str(write_rows(tmp_path, FSL_ROWS[0])), "--work-dir", str(work)], cwd=repo)
    rel = "benchmarks/single_node/fixed_seq_len/dsr1_fp8_b300_vllm.sh"
    assert r.returncode == 1 and "rehearse: FAILED" in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert f"{rel}: RESULT_DIR {work / 'results'} is not a folder: the script {did.format(work=work)}, so no result or job " \
           "sidecar can be there; leave $RESULT_DIR a folder and write the results into it\n" in r.stderr, r.stderr
    assert "cannot write here" not in r.stderr and "no result file" not in r.stderr, r.stderr


def test_outputs_of_a_run_before_in_the_work_dir_do_not_pass_for_this_one(tmp_path):
    """Review (rehearse19): a second rehearsal in the same --work-dir whose script wrote no result
    passed the result check on the first run's file, left in results/."""
    repo, script = _bench_with_script(tmp_path, 'echo "{}" >"$RESULT_DIR/$RESULT_FILENAME.json"\n')
    work, rows = tmp_path / "w", write_rows(tmp_path, FSL_ROWS[0])
    first = cli(["--row-json", str(rows), "--work-dir", str(work)], cwd=repo)
    assert "no result file" not in first.stderr and list((work / "results").glob("*[0-9a-f].json")), first.stderr
    script.write_text("true\n")
    again = cli(["--row-json", str(rows), "--work-dir", str(work)], cwd=repo)
    assert again.returncode == 1 and "no result file" in again.stderr, again.stderr


@pytest.mark.parametrize("body, left", [
    ('mkdir -p "$RESULT_DIR/$RESULT_FILENAME.json"', "is a folder, not an earlier run's output file"),
    ('rm -rf "$RESULT_DIR"; echo x >"$RESULT_DIR"', "is not a folder"),
    ('rm -rf "$RESULT_DIR"; ln -s "$RESULT_DIR.gone" "$RESULT_DIR"', "is not a folder")])
def test_what_a_script_left_in_the_work_dir_is_told_by_the_next_rehearsal_in_one_line(tmp_path, body, left):
    """Review (review19): a second rehearsal in a --work-dir whose first script made a folder where its
    result goes said "internal error: IsADirectoryError" (the removal of a run before's outputs), and one
    whose script had replaced $RESULT_DIR with a file or a dangling link "internal error: FileExistsError"."""
    repo, _ = _bench_with_script(tmp_path, body + "\n")
    work, rows = tmp_path / "w", write_rows(tmp_path, FSL_ROWS[0])
    first = cli(["--row-json", str(rows), "--work-dir", str(work)], cwd=repo)
    assert first.returncode == 1 and "rehearse: FAILED" in first.stderr, first.stderr
    again = cli(["--row-json", str(rows), "--work-dir", str(work)], cwd=repo)
    (line,) = [x for x in again.stderr.splitlines() if not x.startswith("rehearse: ")]
    assert again.returncode == 1 and "internal error" not in again.stderr, again.stderr
    assert line.startswith(str(work / "results")) and left in line and "pass another --work-dir" in line, line


def test_a_router_on_its_own_port_is_told_to_listen_on_the_job_s_port():
    """The same for a multi-node row's router (rehearsal/multinode.py), which said no fix either."""
    from sweepgate.rehearsal import multinode

    row = {"prefill": {"num-worker": 1, "tp": 8}, "decode": {"num-worker": 1, "tp": 8}}
    servers = [{"tool": "python3", "argv": ["-m", multinode.SERVER_MODULE, "--disaggregation-mode", role,
                                            "--tp-size", "8", "--port", port]}
               for role, port in (("prefill", "8001"), ("decode", "8002"))]
    router = {"tool": "python3", "argv": ["-m", multinode.ROUTER_MODULE, "--prefill", "http://127.0.0.1:8001",
                                          "--decode", "http://127.0.0.1:8002", "--port", "30000"]}
    assert multinode.check_calls(row, {"PORT": "8000"}, [*servers, router]) == [
        f"router --port is 30000, expected $PORT=8000; {PORT_FIX}"]
    assert multinode.check_calls(row, {"PORT": "30000"}, [*servers, router]) == []
