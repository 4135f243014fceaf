"""SGLang's stand-ins answer what its benchmark client asks beyond the prompts (s40g).

1. The SGLang server's stand-in answered 404 to GET /get_server_info, which the real server serves (its settings,
   the scheduler's limits, each rank's internal state and its version) and which bench_serving asks after its run
   (for the line's server_info and, with an SGLang backend, its accept_length); behind a prefill/decode router the
   answer is {"internal_states", "prefill": [...], "decode": [...]}. The client stand-in wrote its own
   {"model_path": <the client's --model>} in its place; it now writes the server's answer, and null where the
   server has none (a vLLM server's 404), as the real client does.
2. The client stand-in passed over --flush-cache; the real client POSTs /flush_cache after its warm-up (also with
   an SGLang backend where SGLANG_IS_IN_CI is true) and goes on whatever the answer.
Real processes: the servers and the client run as a script runs them, through the shim.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from lifetime import DIES_WITH_US  # noqa: E402
from standin_serving import STANDIN, Serving  # noqa: E402
from sweepgate.core import fields  # noqa: E402
from sweepgate.rehearsal import standin  # noqa: E402

OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))
SGLANG = ("python3", "-m", fields.SGLANG_SERVER_MODULE)
VLLM = ("python3", "-m", fields.VLLM_SERVER_MODULE)


def _get(url: str) -> tuple[int, dict | None]:
    try:
        with OPENER.open(url, timeout=60) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, None


def _client(tmp_path: Path, url: str, *argv: str, env: dict | None = None) -> tuple[subprocess.CompletedProcess, dict]:
    tmp_path.mkdir(exist_ok=True)
    out = tmp_path / "out.jsonl"
    full = {**os.environ, "SWEEPGATE_REHEARSE_LOG": str(tmp_path / "calls.jsonl"), **(env or {})}
    full.pop(standin.FAST_ENV, None)
    r = subprocess.run([*DIES_WITH_US, sys.executable, "-I", "-S", str(STANDIN), "shim", "python3", "-m",
                        fields.SGLANG_CLIENT_MODULE, "--base-url", url, "--model", "dsr1", "--dataset-name", "random",
                        "--num-prompts", "2", "--random-input-len", "8", "--random-output-len", "2", "--output-file",
                        str(out), *argv], env=full, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    (line,) = out.read_text().splitlines()
    return r, json.loads(line)


def test_the_sglang_server_states_its_settings_and_vllm_has_no_such_route():
    with Serving(*SGLANG, "--model-path", "/models/dsr1", "--served-model-name", "dsr1", "--tp-size", "8") as srv:
        status, info = _get(srv.url + "/get_server_info")
    assert status == 200, status
    port = int(srv.url.rsplit(":", 1)[1])
    assert {k: info[k] for k in ("model_path", "tokenizer_path", "served_model_name", "port")} == {
        "model_path": "/models/dsr1", "tokenizer_path": "/models/dsr1", "served_model_name": "dsr1", "port": port}
    assert info["version"] == standin.STANDIN_VERSION and info["max_req_input_len"] > 0
    (state,) = info["internal_states"]  # one data-parallel rank
    assert state["model_path"] == "/models/dsr1" and "avg_spec_accept_length" not in state  # no speculative decoding
    with Serving(*VLLM, "--model", "m") as srv:
        assert _get(srv.url + "/get_server_info") == (404, None)


def test_a_router_answers_its_workers_settings_by_role():
    with Serving(*SGLANG, "--model-path", "m", "--served-model-name", "p") as prefill, \
            Serving(*SGLANG, "--model-path", "m", "--served-model-name", "d") as decode, \
            Serving("python3", "-m", fields.SGLANG_ROUTER_MODULE, "--pd-disaggregation", "--prefill", prefill.url,
                    "--decode", decode.url) as router:
        status, info = _get(router.url + "/get_server_info")
    assert status == 200 and list(info) == ["internal_states", "prefill", "decode"], info
    assert [w["served_model_name"] for w in info["prefill"]] == ["p"]
    assert [w["served_model_name"] for w in info["decode"]] == ["d"]
    assert info["internal_states"] == info["decode"][0]["internal_states"]


def test_the_line_holds_the_server_s_answer_and_null_where_it_has_none(tmp_path):
    with Serving(*SGLANG, "--model-path", "/models/dsr1", "--served-model-name", "dsr1") as srv:
        _, doc = _client(tmp_path, srv.url, "--backend", "sglang")
    info = doc["server_info"]  # was {"model_path": "dsr1"}, the client's --model
    assert (info["model_path"], info["served_model_name"], info["version"]) == ("/models/dsr1", "dsr1", "stand-in")
    assert doc["accept_length"] is None  # the server states none (no speculative decoding)
    with Serving(*VLLM, "--model", "dsr1") as srv:
        _, doc = _client(tmp_path / "v", srv.url, "--backend", "vllm")
    assert doc["completed"] == 2 and doc["server_info"] is None  # vLLM answers /get_server_info 404


@pytest.mark.parametrize("argv,env,flushed", [
    (["--flush-cache"], {}, True),
    ([], {}, False),
    ([], {"SGLANG_IS_IN_CI": "true"}, True),  # SGLang's client flushes an SGLang server in its CI too
    (["--backend", "vllm"], {"SGLANG_IS_IN_CI": "true"}, False),
])
def test_flush_cache_is_posted_after_the_warm_up_and_before_the_prompts(tmp_path, argv, env, flushed):
    with Serving(*SGLANG, "--model-path", "m") as srv:
        _client(tmp_path, srv.url, *argv, env=env)
        asked = srv.requests()
    route = "/v1/completions" if "vllm" in argv else "/generate"
    flush = ["POST /flush_cache"] if flushed else []
    assert asked == [f"POST {route}", *flush, f"POST {route}", f"POST {route}", "GET /get_server_info"], asked


def test_a_server_without_flush_cache_leaves_the_run_going_with_a_note(tmp_path):
    with Serving(*VLLM, "--model", "dsr1") as srv:
        r, doc = _client(tmp_path, srv.url, "--backend", "vllm", "--flush-cache")
    assert doc["completed"] == 2 and "/flush_cache" in r.stderr and "404" in r.stderr, r.stderr
