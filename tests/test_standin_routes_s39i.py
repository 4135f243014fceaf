"""The rehearsal's stand-ins behave as the engines and the client they stand in for (s39i).

The stand-in server answered SGLang's native POST /generate whatever engine it stood in for: a script whose SGLang
client (`--backend sglang`) asked a vLLM server for /generate passed its rehearsal and failed on the GPU, where vLLM
has no such route. Now a server stands in for one engine's routes: vLLM's (OpenAI's /v1/completions,
/v1/chat/completions, /v1/models; /health, /ping, /version, /metrics), SGLang's (those OpenAI routes, its native
/generate, /get_model_info, /flush_cache, /health_generate; /metrics only with --enable-metrics), and LMCache's,
Mooncake's and `standin.py serve`'s every route the stand-in has.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "utils"))
sys.path.insert(0, str(ROOT / "tests"))

from lifetime import DIES_WITH_US  # noqa: E402
from standin_serving import Serving  # noqa: E402
from sweepgate.core import fields  # noqa: E402
from sweepgate.rehearsal import standin  # noqa: E402

OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))
STANDIN = Path(standin.__file__)


def _status(url: str, method: str = "GET", payload: dict | None = None) -> int:
    data = json.dumps(payload or {}).encode() if method == "POST" else None
    req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    try:
        with OPENER.open(req, timeout=10) as resp:
            resp.read()
            return resp.status
    except urllib.error.HTTPError as exc:
        return exc.code


@pytest.fixture
def serving():
    servers = []

    def start(engine, **kw):
        srv = standin.make_server("127.0.0.1", 0, "test/m", engine=engine, **kw)
        threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        servers.append(srv)
        return f"http://127.0.0.1:{srv.server_address[1]}"

    yield start
    for srv in servers:
        srv.shutdown()
        srv.server_close()


COMPLETION = {"prompt": "a b", "max_tokens": 2}
GENERATE = {"text": "a b", "sampling_params": {"max_new_tokens": 2}}
CHAT = {"messages": [{"role": "user", "content": "a b"}], "max_tokens": 2}

# (method, route, body): what each engine answers 200 and what it has no route for (404)
ROUTES = {
    "vllm": {"ok": [("GET", "/health", None), ("GET", "/ping", None), ("POST", "/ping", None),
                    ("GET", "/version", None), ("GET", "/metrics", None), ("GET", "/v1/models", None),
                    ("POST", "/v1/completions", COMPLETION), ("POST", "/v1/chat/completions", CHAT)],
             "404": [("POST", "/generate", GENERATE), ("GET", "/get_model_info", None),
                     ("GET", "/get_server_info", None), ("POST", "/flush_cache", None), ("GET", "/health_generate", None), ("GET", "/healthcheck", None)]},
    "sglang": {"ok": [("GET", "/health", None), ("GET", "/health_generate", None), ("GET", "/v1/models", None),
                      ("GET", "/get_model_info", None), ("GET", "/get_server_info", None),
                      ("GET", "/flush_cache", None), ("POST", "/flush_cache", None),
                      ("POST", "/generate", GENERATE), ("POST", "/v1/completions", COMPLETION),
                      ("POST", "/v1/chat/completions", CHAT)],
               "404": [("GET", "/ping", None), ("GET", "/version", None), ("GET", "/healthcheck", None),
                       ("GET", "/metrics", None)]},
}


@pytest.mark.parametrize("engine", sorted(ROUTES))
def test_a_server_answers_the_routes_of_the_engine_it_stands_in_for_and_no_other(serving, engine):
    base = serving(engine)
    got = {(m, r): _status(base + r, m, body) for kind in ("ok", "404") for m, r, body in ROUTES[engine][kind]}
    want = {(m, r): (200 if kind == "ok" else 404) for kind in ("ok", "404") for m, r, _ in ROUTES[engine][kind]}
    assert got == want


def test_sglang_serves_metrics_only_when_asked_and_its_model_info_names_the_model(serving):
    assert _status(serving("sglang", metrics=True) + "/metrics") == 200
    with OPENER.open(serving("sglang") + "/get_model_info", timeout=10) as resp:
        info = json.loads(resp.read())
    assert info["model_path"] == "test/m" and info["is_generation"] is True


def test_the_generic_stand_in_answers_every_route_it_has(serving):
    base = serving(None)
    for engine in ROUTES:
        for method, route, body in ROUTES[engine]["ok"]:
            assert _status(base + route, method, body) == 200, (method, route)
    assert _status(base + "/healthcheck") == 200  # LMCache's


def _shim(tmp_path: Path, *argv: str):
    env = {**os.environ, "SWEEPGATE_REHEARSE_LOG": str(tmp_path / "calls.jsonl")}
    env.pop(standin.FAST_ENV, None)
    cmd = [*DIES_WITH_US, sys.executable, "-I", "-S", str(STANDIN), "shim", *argv]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("server,ok", [(("vllm", "serve", "m"), False),
                                       (("python3", "-m", fields.VLLM_SERVER_MODULE, "--model", "m"), False),
                                       (("python3", "-m", fields.SGLANG_SERVER_MODULE, "--model-path", "m"), True)])
def test_sglang_s_native_client_fails_against_vllm_as_on_the_gpu(tmp_path, server, ok):
    # on a port the server picks and says once it listens (s40g: a port picked for it could be taken first, and
    # 600 tries 50 ms apart ran out on a slow host, the client then asking no server)
    with Serving(*server) as srv:
        out = tmp_path / "out.jsonl"
        r = _shim(tmp_path, "python3", "-m", fields.SGLANG_CLIENT_MODULE, "--backend", "sglang", "--base-url",
                  srv.url, "--model", "m", "--dataset-name", "random", "--num-prompts", "2", "--random-input-len",
                  "8", "--random-output-len", "2", "--output-file", str(out))
    if ok:
        assert r.returncode == 0 and json.loads(out.read_text())["completed"] == 2, r.stderr
    else:
        assert r.returncode == 1 and "Warmup failed" in r.stderr and "404" in r.stderr, r.stderr
        assert not out.exists()
