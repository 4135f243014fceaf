"""The rehearsal's stand-in for `python3 -m sglang.bench_serving` (s38s).

The shims answered `python3 -m sglang.bench_serving` (SGLang's own benchmark client) "unknown module", exit 127,
so a script whose client it is failed its rehearsal for that reason alone. The stand-in parses the client's flags
(a bad value of one refused as its argparse does, exit 2; one it does not know passed over, see
tests/test_standin_fixes_s38u.py), sends real requests to the stand-in server (SGLang's native /generate for
`--backend sglang`, the OpenAI routes for the -oai backends) and appends one line in bench_serving's layout to
--output-file, which `sweepgate results ingest` reads. Real bash, real files, real requests.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from sweepgate.core import fields, pythoncall  # noqa: E402
from sweepgate.engines.preflight import check_row  # noqa: E402
from sweepgate.rehearsal import runner, standin  # noqa: E402
from test_rehearse import SGLANG_ROW, _ingest, _show, cli, sglang_repo, write_rows  # noqa: E402

SAMPLE = ROOT / "tests/data/results-samples/sglang/sglang0.5.8_gptoss120b_a100x8_tp8_in1024_out128_c100_details.jsonl"
CLIENT = ('python3 -m sglang.bench_serving --backend sglang --host 127.0.0.1 --port "${PORT}" \\\n'
          '  --model "${MODEL}" --tokenizer "${MODEL_PATH}" --dataset-name random \\\n'
          '  --num-prompts "$((2 * CONC))" --random-input "${ISL}" --random-output-len "${OSL}" \\\n'
          '  --random-range-ratio 0.8 --max-concurrency "${CONC}" --request-rate inf --seed 1 \\\n'
          '  --warmup-requests 1 --flush-cache --apply-chat-template --disable-tqdm --output-details \\\n'
          "  --extra-request-body '{\"temperature\": 0}' \\\n"
          '  --output-file "${RESULT_DIR}/${RESULT_FILENAME}.json" || exit 1\n')


def _sglang_repo(tmp_path: Path, client: str) -> Path:
    """A repository whose SGLang row's script starts the SGLang server and runs ``client``."""
    return sglang_repo(tmp_path, client)


def test_a_script_whose_client_is_sglang_bench_serving_rehearses_and_its_line_ingests(tmp_path):
    repo, work, db = _sglang_repo(tmp_path, CLIENT), tmp_path / "w", f"sqlite:///{tmp_path / 'results.db'}"
    r = cli(["--exp-name", "dsr1_1k1k", "--row-json", str(write_rows(tmp_path, SGLANG_ROW)), "--work-dir", str(work)],
            cwd=repo / "configs", timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    (result,) = [p for p in (work / "results").glob("*.json") if not p.name.endswith(".job.json")]
    lines = result.read_text().splitlines()
    assert len(lines) == 1, lines  # one run, one appended line
    doc = json.loads(lines[0])
    sample = json.loads(SAMPLE.read_text().splitlines()[0])
    assert list(doc) == list(sample), set(doc) ^ set(sample)  # a real 0.5.8 line's keys, in its order
    conc = SGLANG_ROW["conc"]
    assert doc["completed"] == 2 * conc and doc["max_concurrency"] == conc and doc["backend"] == "sglang"
    assert doc["random_input_len"] == SGLANG_ROW["isl"] and doc["dataset_name"] == "random"
    assert len(doc["ttfts"]) == 2 * conc and doc["errors"] == [""] * (2 * conc)
    # the requests, and the warm-up request before them, reached the stand-in server's native route; --flush-cache
    # flushed its cache once (s40g), and the line holds the server's settings, as SGLang's client writes them
    log = (work / "results/server.log").read_text()
    assert log.count("POST /generate") == 2 * conc + 1 and log.count("POST /flush_cache") == 1, log
    assert (doc["server_info"]["model_path"], doc["server_info"]["version"]) == (SGLANG_ROW["model"], "stand-in")
    assert _ingest(db, work / "results").returncode == 0
    (stored,) = [rec for rec in _show(db) if not rec["evals"]]
    assert stored["rehearsal"] is True and stored["conc"] == conc and stored["status"] == "success", stored


@pytest.fixture
def server():
    srv = standin.make_server("127.0.0.1", 0, "test/m")
    thread = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()


@pytest.mark.parametrize("backend", ["sglang", "sglang-oai", "sglang-oai-chat", "vllm"])
def test_each_api_backend_sends_real_requests_and_appends_one_line(tmp_path, server, backend, monkeypatch):
    monkeypatch.delenv(standin.FAST_ENV, raising=False)
    out = tmp_path / "out.jsonl"
    out.write_text('{"earlier": 1}\n')
    before = server.requests
    argv = ["--backend", backend, "--base-url", f"http://127.0.0.1:{server.server_address[1]}", "--dataset-name",
            "random", "--num-prompt", "3", "--random-input-len", "16", "--random-output-len", "4",
            "--random-range-ratio", "1", "--output-file", str(out)]
    assert standin.shim("python3", ["-m", fields.SGLANG_CLIENT_MODULE, *argv]) == 0
    assert server.requests - before == 3 + 1  # and one warm-up request (--warmup-requests' default)
    first, line = out.read_text().splitlines()
    doc = json.loads(line)
    assert first == '{"earlier": 1}' and doc["completed"] == 3 and doc["total_output_tokens"] == 12, doc
    assert doc["total_input_tokens"] == 48 and doc["max_concurrency"] is None and doc["request_rate"] == float("inf")
    assert "ttfts" not in doc  # only with --output-details
    assert doc["server_info"]["model_path"] == "test/m"  # the model the server answered with (no --model given)


@pytest.mark.parametrize("argv,says", [
    (["--dataset-name", "nosuch"], "invalid choice: 'nosuch'"),
    (["--backend", "tgi"], "invalid choice: 'tgi'"),
    (["--num-prompts", "x"], "invalid int value: 'x'"),
])
def test_a_flag_the_client_refuses_exits_2_as_its_argparse_does(tmp_path, argv, says):
    env = {**os.environ, "SWEEPGATE_REHEARSE_LOG": str(tmp_path / "calls.jsonl")}
    r = subprocess.run([sys.executable, str(Path(standin.__file__)), "shim", "python3", "-m",
                        fields.SGLANG_CLIENT_MODULE, "--port", "1", *argv], env=env, capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 2 and says in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_the_stand_ins_module_names_are_core_fields(tmp_path):
    """standin.py imports nothing of sweepgate, so it spells the engines' modules itself: the same names as
    core/fields.py's, every one of which a shim answers (none "unknown module")."""
    names = sorted(n for n in dir(fields) if n.endswith("_MODULE") and isinstance(getattr(fields, n), str))
    assert names and {n: getattr(standin, n, None) for n in names} == {n: getattr(fields, n) for n in names}
    assert sorted(n for n in dir(standin) if n.endswith("_MODULE")) == names


def test_preflight_names_the_client_in_a_note_never_a_failure(tmp_path):
    script = tmp_path / "benchmarks/single_node/fixed_seq_len/x.sh"
    script.parent.mkdir(parents=True)
    script.write_text('echo "python3 -m sglang.bench_serving"\npython3 -m sglang.bench_serving --model m \\\n'
                      '  --output-file out.jsonl\n')
    calls = [{"tool": "python3", "argv": ["-m", fields.SGLANG_CLIENT_MODULE, "--model", "m", "--nonsense"]}]
    (note,) = check_row({"image": "vllm/vllm-openai:v0.11.0"}, calls, tmp_path, script)
    assert (note.severity, note.rule, note.line) == ("info", "engine-unchecked", 2), note


def test_any_other_python_call_runs_the_python_after_the_shims(tmp_path, monkeypatch):
    """The `python3` and `python` shims answer the client module alone: the library's `python3 -` and a script's
    own Python run the interpreter found after the shims on PATH; with none there, bash's 127."""
    shims, other = tmp_path / "shims", tmp_path / "bin"
    other.mkdir()
    for name in pythoncall.UNVERSIONED:  # each is shimmed only where PATH has it (tests/test_standin_fixes_s38u.py)
        (other / name).symlink_to(sys.executable)
    monkeypatch.setenv("PATH", f"{other}:{os.environ['PATH']}")
    runner.write_shims(shims)
    env = {**os.environ, "PATH": f"{shims}:{other}:{os.environ['PATH']}"}
    for name in pythoncall.UNVERSIONED:
        r = subprocess.run([name, "-c", "import sys; print(sys.argv[1])", "-m"], env=env, capture_output=True,
                           text=True, timeout=60)
        assert (r.returncode, r.stdout) == (0, "-m\n"), r.stderr
    bash = shutil.which("bash")
    r = subprocess.run([bash, str(shims / "python"), "-c", "pass"], env={"PATH": str(shims)}, capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 127 and "python: command not found" in r.stderr, r.stderr
