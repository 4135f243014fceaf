#!/usr/bin/env python3
"""A stand-in OpenAI-compatible server and clients, for GPU-free rehearsals.

Standard library only, and no sweepgate imports: `sweepgate rehearse` runs this
file by path from the shims it puts first on PATH, so a benchmark script runs
unmodified without vLLM, LMCache, Mooncake or AIPerf.

    standin.py serve --port P [--host H] [--model NAME] [--delay-ms MS]
    standin.py shim NAME ARGS...     # what the `vllm`, `lmcache`, ... shims run

The server answers the routes of the engine it stands in for (ENGINE_ROUTES: vLLM's,
SGLang's), of GET /health, /healthcheck, /ping, /version, /metrics, /v1/models,
/get_model_info, /get_server_info, /health_generate, /flush_cache and POST /v1/completions,
/v1/chat/completions (with "stream": true as server-sent events), SGLang's
/generate, /flush_cache, /ping; LMCache's, Mooncake's and `serve`'s answer them
all. Shim calls are appended as JSON lines to $SWEEPGATE_REHEARSE_LOG.
"""

from __future__ import annotations

import sys

# Run as a script, Python puts this file's directory first on sys.path, where
# sweepgate's own modules (select.py, ...) would shadow the standard library.
if __name__ == "__main__":
    import os.path as _osp

    _here = _osp.dirname(_osp.abspath(__file__))
    sys.path = [p for p in sys.path if _osp.abspath(p or ".") != _here]

import json  # noqa: E402 - after the sys.path repair above
import os
import time

# Build settings a `pip install` runs with, recorded with it (a HIP source build says so here).
BUILD_ENV = ("BUILD_WITH_HIP", "CXX", "TORCH_DONT_CHECK_COMPILER_ABI", "PYTORCH_ROCM_ARCH")
# Shims that only record and print: they answer before the server and client modules load
# (a preflight row runs several installs and downloads; each would pay ~50 ms of imports).
LIGHT_SHIMS = ("pip", "hf", "huggingface-cli")


LOG_ENV = "SWEEPGATE_REHEARSE_LOG"  # the file each shim call is appended to, a JSON line (rehearsal/calllog.py)


def _record(name: str, argv: list[str]) -> None:
    log = os.environ.get(LOG_ENV)
    if not log:
        return
    entry = {"tool": name, "argv": argv, "pid": os.getpid(), "time": time.time()}
    start = start_time()
    if start is not None:  # the rehearsal stops a PID it finds in the log only while it started then
        entry["start"] = start
    if name == "pip":
        entry["env"] = {k: os.environ[k] for k in BUILD_ENV if k in os.environ}
    with open(log, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(entry) + "\n")


def start_time(pid: int | str = "self") -> int | None:
    """When process ``pid`` started, in clock ticks since boot (/proc/PID/stat field 22; the bash shim that
    exec'd this is the same process): what tells it from a later process given its PID. None when it is
    gone or there is no /proc."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return int(fh.read().rsplit(b")", 1)[1].split()[19])
    except (OSError, IndexError, ValueError):
        return None


def _light_shim(name: str, argv: list[str]) -> int:
    _record(name, argv)
    print(f"{name} (fake): {' '.join(argv)}")
    return 0


if __name__ == "__main__" and sys.argv[1:2] == ["shim"] and sys.argv[2:3] and sys.argv[2] in LIGHT_SHIMS:
    raise SystemExit(_light_shim(sys.argv[2], sys.argv[3:]))

import signal  # noqa: E402
import threading  # noqa: E402
import uuid  # noqa: E402
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer  # noqa: E402

# The clients' modules (argparse, statistics, urllib.request, concurrent.futures) are
# imported where they are used: a server process, started once per server a row runs
# and waited for, never needs them.
TYPE_CHECKING = False  # typing's flag without importing typing
if TYPE_CHECKING:
    import argparse

STREAM_CHUNKS = 8  # SSE chunks per streamed response, whatever max_tokens is
# The engines' `python3 -m MODULE` names this file answers: sweepgate's own are core/fields.py's, which this file
# cannot import; tests/test_standin_sglang_bench_s38s.py keeps the two the same.
VLLM_SERVER_MODULE = "vllm.entrypoints.openai.api_server"  # vLLM's API server (as `vllm serve`)
SGLANG_SERVER_MODULE = "sglang.launch_server"  # an SGLang server
SGLANG_ROUTER_MODULE = "sglang_router.launch_router"  # SGLang's prefill/decode router
SGLANG_CLIENT_MODULE = "sglang.bench_serving"  # SGLang's benchmark client
# A JSON file {"vllm bench serve": [flags...], ...}: what `COMMAND --help` lists, so a script that asks the
# installed client for an option (clients.sh: --num-warmups) sees the pinned version's (set by preflight)
HELP_ENV = "SWEEPGATE_STANDIN_HELP"
FAST_ENV = "SWEEPGATE_REHEARSE_FAST"  # set by `sweepgate preflight`: record commands, send almost no load


# The routes each engine's server answers, of those the stand-in has ((method, path)): vLLM's OpenAI-compatible
# server (`vllm serve`, its api_server module) and SGLang's (launch_server, and its router, which passes them on).
# A script that asks one engine for another's route (SGLang's native /generate of vLLM) fails its rehearsal, as
# it fails on the GPU. LMCache's, Mooncake's and `standin.py serve`'s (engine None) answer every route.
VLLM, SGLANG = "vllm", "sglang"
OPENAI_ROUTES = frozenset({("GET", "/v1/models"), ("POST", "/v1/completions"), ("POST", "/v1/chat/completions")})
METRICS_ROUTE = ("GET", "/metrics")  # vLLM's always; SGLang's with --enable-metrics
ENGINE_ROUTES = {
    VLLM: OPENAI_ROUTES | {("GET", "/health"), ("GET", "/ping"), ("POST", "/ping"), ("GET", "/version"),
                           METRICS_ROUTE},
    SGLANG: OPENAI_ROUTES | {("GET", "/health"), ("GET", "/health_generate"), ("GET", "/get_model_info"),
                             ("GET", "/get_server_info"), ("GET", "/flush_cache"), ("POST", "/flush_cache"),
                             ("POST", "/generate")},
}
SGLANG_METRICS_FLAG = "--enable-metrics"
STANDIN_VERSION = "stand-in"  # the version GET /version and /get_server_info answer
MAX_MODEL_LEN = 1048576  # the context the stand-in's model takes (/v1/models, /get_server_info)
# SGLang's GET /get_server_info, as its server answers it: its settings (its server args; the stand-in's model_path,
# tokenizer_path, served_model_name, host and port), the scheduler's limits, each data-parallel rank's internal
# state and the version. Behind a prefill/decode router: {"internal_states": the decode workers', "prefill": [each
# worker's], "decode": [...]} (FakeServer.server_info).
PD_ROLES = ("prefill", "decode")
ENGINE_NAMES = {VLLM: "vLLM", SGLANG: "SGLang"}


def count_tokens(text: str) -> int:
    return max(1, len(text.split())) if text else 0


def _messages_text(messages) -> str:
    parts = []
    for message in messages if isinstance(messages, list) else []:
        content = message.get("content", "") if isinstance(message, dict) else ""
        if isinstance(content, list):
            content = " ".join(str(c.get("text", "")) for c in content if isinstance(c, dict))
        parts.append(str(content))
    return " ".join(parts)


class Handler(BaseHTTPRequestHandler):
    server_version = "sweepgate-fakeserver/1"
    # HTTP/1.0: a streamed body ends when the connection closes.
    protocol_version = "HTTP/1.0"

    def log_message(self, fmt, *args):  # one short line per request, on stderr
        sys.stderr.write(f"fakeserver: {self.command} {self.path} {args[1] if len(args) > 1 else ''}\n")

    # --- helpers ---------------------------------------------------------------
    def _json(self, status: int, payload) -> None:
        body = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _error(self, status: int, message: str) -> None:
        self._json(status, {"error": {"message": message, "type": "invalid_request_error", "code": status}})

    def _body(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError as exc:
            raise ValueError(f"request body is not JSON: {exc}") from exc
        if not isinstance(body, dict):
            raise ValueError("request body must be a JSON object")
        return body

    def _text(self, body: str = "") -> None:
        data = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _route(self, method: str) -> str | None:
        """The request's path when the engine stood in for serves it (ENGINE_ROUTES); else None, a 404 sent."""
        path = self.path.split("?", 1)[0]
        routes = self.server.routes
        if routes is None or (method, path) in routes:
            return path
        self._error(404, f"no route for {method} {path}: the {ENGINE_NAMES[self.server.engine]} server the "
                    "stand-in stands in for has none")
        return None

    # --- routes ----------------------------------------------------------------
    def do_GET(self):  # noqa: N802 - http.server naming
        path = self._route("GET")
        if path is None:
            return
        if path in ("/health", "/healthcheck", "/ping", "/health_generate"):
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif path == "/flush_cache":
            self._text("Cache flushed.\n")
        elif path == "/version":
            self._json(200, {"version": STANDIN_VERSION})
        elif path == "/get_server_info":
            self._json(200, self.server.server_info())
        elif path == "/get_model_info":
            self._json(200, {"model_path": self.server.model, "tokenizer_path": self.server.model,
                             "is_generation": True})
        elif path == "/metrics":
            self._text(f"fakeserver_requests_total {self.server.requests}\n")
        elif path == "/v1/models":
            self._json(200, {"object": "list", "data": [
                {"id": self.server.model, "object": "model", "created": int(self.server.started),
                 "owned_by": "sweepgate-fakeserver", "max_model_len": MAX_MODEL_LEN}]})
        else:
            self._error(404, f"no route for GET {path}")

    def do_POST(self):  # noqa: N802
        path = self._route("POST")
        if path is None:
            return
        if path == "/generate":
            self._generate()
            return
        if path in ("/flush_cache", "/ping"):
            self._text("Cache flushed.\n" if path == "/flush_cache" else "")
            return
        if path not in ("/v1/completions", "/v1/chat/completions"):
            self._error(404, f"no route for POST {path}")
            return
        chat = path.endswith("chat/completions")
        request = self._completion_request(chat)
        if request is None:
            return
        body, prompt_tokens, max_tokens = request
        model = body.get("model") or self.server.model
        rid = ("chatcmpl-" if chat else "cmpl-") + uuid.uuid4().hex[:16]
        usage = {"prompt_tokens": prompt_tokens, "completion_tokens": max_tokens,
                 "total_tokens": prompt_tokens + max_tokens}
        if self.server.delay:
            time.sleep(self.server.delay)
        if not body.get("stream"):
            text = " ".join(["tok"] * max_tokens)
            choice = ({"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "length"}
                      if chat else {"index": 0, "text": text, "finish_reason": "length", "logprobs": None})
            self._json(200, {"id": rid, "object": "chat.completion" if chat else "text_completion",
                             "created": int(time.time()), "model": model, "choices": [choice], "usage": usage})
            return
        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        self._stream(chat, rid, model, max_tokens, usage if include_usage else None)

    def _generate(self) -> None:
        """SGLang's native POST /generate: {"text" or "input_ids", "sampling_params": {"max_new_tokens"}, "stream"};
        streamed, each event holds the text so far and meta_info's token counts."""
        try:
            body = self._body()
            params = body.get("sampling_params") or {}
            max_tokens = max(1, int(params.get("max_new_tokens") or 16))
        except (ValueError, TypeError, AttributeError) as exc:
            self._error(400, str(exc))
            return
        with self.server.lock:
            self.server.requests += 1
        prompt = body.get("text", body.get("input_ids", ""))
        prompt_tokens = len(prompt) if isinstance(prompt, list) else count_tokens(str(prompt))
        rid = uuid.uuid4().hex

        def event(tokens: int, last: bool) -> dict:
            return {"text": "tok " * tokens, "meta_info": {
                "id": rid, "prompt_tokens": prompt_tokens, "completion_tokens": tokens,
                "finish_reason": {"type": "length", "length": max_tokens} if last else None}}

        if self.server.delay:
            time.sleep(self.server.delay)
        if not body.get("stream"):
            self._json(200, event(max_tokens, True))
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        chunks = min(STREAM_CHUNKS, max_tokens)
        try:
            for i in range(1, chunks + 1):
                self._event(event(max_tokens * i // chunks, i == chunks))
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _completion_request(self, chat: bool) -> tuple[dict, int, int] | None:
        """(body, prompt tokens, max tokens) of a completion request; None once an error was sent."""
        try:
            body = self._body()
        except ValueError as exc:
            self._error(400, str(exc))
            return None
        if chat and not isinstance(body.get("messages"), list):
            self._error(400, "'messages' must be a list")
            return None
        with self.server.lock:
            self.server.requests += 1
        prompt = _messages_text(body.get("messages")) if chat else body.get("prompt", "")
        if isinstance(prompt, list):
            prompt = " ".join(map(str, prompt))
        prompt_tokens = count_tokens(str(prompt))
        max_tokens = body.get("max_completion_tokens") or body.get("max_tokens") or 16
        try:
            max_tokens = max(1, int(max_tokens))
        except (TypeError, ValueError):
            self._error(400, "'max_tokens' must be an integer")
            return None
        return body, prompt_tokens, max_tokens

    def _stream(self, chat: bool, rid: str, model: str, max_tokens: int, usage: dict | None) -> None:
        """The completion as server-sent events, in at most STREAM_CHUNKS pieces; usage last if asked."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        chunks = min(STREAM_CHUNKS, max_tokens)
        sizes = [max_tokens // chunks + (1 if i < max_tokens % chunks else 0) for i in range(chunks)]
        obj = "chat.completion.chunk" if chat else "text_completion"
        try:
            for i, size in enumerate(sizes):
                text = "tok " * size
                last = i == len(sizes) - 1
                if chat:
                    delta = {"content": text}
                    if i == 0:
                        delta["role"] = "assistant"
                    choice = {"index": 0, "delta": delta, "finish_reason": "length" if last else None}
                else:
                    choice = {"index": 0, "text": text, "finish_reason": "length" if last else None,
                              "logprobs": None}
                self._event({"id": rid, "object": obj, "created": int(time.time()), "model": model,
                             "choices": [choice]})
            if usage is not None:
                self._event({"id": rid, "object": obj, "created": int(time.time()), "model": model,
                             "choices": [], "usage": usage})
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _event(self, payload) -> None:
        self.wfile.write(b"data: " + json.dumps(payload).encode() + b"\n\n")
        self.wfile.flush()


class FakeServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 512  # multi-node rows open hundreds of connections at once

    def __init__(self, address, model: str, delay_ms: float, engine: str | None = None, metrics: bool = False,
                 args: dict | None = None, workers: dict[str, list[str]] | None = None):
        super().__init__(address, Handler)
        self.model = model
        # the server's settings /get_server_info states (its model path, unless given, the model)
        self.args = {"model_path": model, "tokenizer_path": model, "served_model_name": model, "host": address[0],
                     "port": self.server_address[1], **(args or {})}
        self.workers = workers or {}  # a router's: {"prefill": [URL...], "decode": [URL...]}
        self.delay = delay_ms / 1000.0
        self.lock = threading.Lock()
        self.requests = 0
        self.started = time.time()
        self.engine = engine  # ENGINE_ROUTES' key, None: every route
        self.routes = None if engine is None else ENGINE_ROUTES[engine] | ({METRICS_ROUTE} if metrics else set())

    def server_info(self) -> dict:
        """GET /get_server_info's answer: a router's asks each of its workers for theirs."""
        if self.workers:
            infos = {role: [info for url in self.workers.get(role, []) if (info := _get_json(url, "/get_server_info"))
                            is not None] for role in PD_ROLES}
            states = [s for info in infos["decode"] for s in info.get("internal_states") or []]
            return {"internal_states": states, **infos}
        return {**self.args, "max_total_num_tokens": MAX_MODEL_LEN, "max_req_input_len": MAX_MODEL_LEN,
                "internal_states": [{**self.args, "last_gen_throughput": 0.0}], "version": STANDIN_VERSION}


def make_server(host: str = "127.0.0.1", port: int = 0, model: str = "fake-model",
                delay_ms: float = 0.0, engine: str | None = None, metrics: bool = False, args: dict | None = None,
                workers: dict[str, list[str]] | None = None) -> FakeServer:
    """A server bound to (host, port) answering ``engine``'s routes (ENGINE_ROUTES; None: all, ``metrics``: with
    /metrics too), stating ``args`` (its settings) and, a router, its ``workers``' in /get_server_info; call
    serve_forever() (tests use port 0)."""
    return FakeServer((host, port), model, delay_ms, engine, metrics, args, workers)


def serve(host: str, port: int, model: str, delay_ms: float, engine: str | None = None,
          metrics: bool = False, args: dict | None = None, workers: dict[str, list[str]] | None = None) -> int:
    try:
        server = make_server(host, port, model, delay_ms, engine, metrics, args, workers)
    except OSError as exc:
        print(f"fakeserver: cannot listen on {host}:{port}: {exc}", file=sys.stderr)
        return 1

    def _stop(signum, _frame):
        print(f"fakeserver: signal {signum}, shutting down", file=sys.stderr, flush=True)
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, _stop)
    print(f"fakeserver: serving {model} on http://{host}:{server.server_address[1]}", file=sys.stderr, flush=True)
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


# --- clients ---------------------------------------------------------------------

def _post(url: str, payload: dict, timeout: float):
    """An open response to a JSON POST, through no proxy."""
    import urllib.request

    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    req = urllib.request.Request(url, data=json.dumps(payload).encode(), headers={"Content-Type": "application/json"})
    return opener.open(req, timeout=timeout)


def stream_request(url: str, payload: dict, timeout: float = 60.0) -> dict:
    """POST a streaming request (OpenAI's routes, or SGLang's /generate whose events hold the text so far); return
    ttft/e2el (s), the gaps between later chunks (itl, s), chunks, output tokens and the text."""
    start = time.perf_counter()
    ttft = None
    chunks = 0
    tokens = 0
    texts: list[str] = []
    times: list[float] = []
    with _post(url, payload, timeout) as resp:
        for raw in resp:
            line = raw.decode().strip()
            if not line.startswith("data: "):
                continue
            data_s = line[len("data: "):]
            if data_s == "[DONE]":
                break
            event = json.loads(data_s)
            if event.get("usage"):
                tokens = event["usage"].get("completion_tokens", tokens)
            native = isinstance(event.get("meta_info"), dict)
            if event.get("choices") or native:
                chunks += 1
                times.append(time.perf_counter() - start)
                if ttft is None:
                    ttft = times[-1]
            if native:
                tokens = int(event["meta_info"].get("completion_tokens") or 0)
                texts = [str(event.get("text") or "")]
            elif event.get("choices"):
                choice = event["choices"][0]
                text = choice.get("text") or (choice.get("delta") or {}).get("content") or ""
                tokens += count_tokens(text)
                texts.append(text)
    e2el = time.perf_counter() - start
    return {"ttft": ttft if ttft is not None else e2el, "e2el": e2el, "chunks": chunks, "tokens": tokens,
            "itl": [b - a for a, b in zip(times, times[1:])], "text": "".join(texts)}


def _pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100.0 * (len(ordered) - 1))))]


def _base_url(url: str) -> str:
    url = url.rstrip("/")
    return url if "://" in url else "http://" + url


def _with_prompt(payload: dict, prompt: str, chat: bool) -> dict:
    """A request payload carrying the prompt as one user message (chat) or as plain text."""
    if chat:
        payload["messages"] = [{"role": "user", "content": prompt}]
    else:
        payload["prompt"] = prompt
    return payload


def _bench_serve_args(argv: list[str]) -> argparse.Namespace:
    import argparse

    p = argparse.ArgumentParser(prog="vllm bench serve (fake)")
    p.add_argument("--base-url")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--endpoint", default="/v1/completions")
    p.add_argument("--model", required=True)
    p.add_argument("--backend", default="vllm")
    p.add_argument("--num-prompts", type=int, default=10)
    p.add_argument("--max-concurrency", type=int, default=1)
    p.add_argument("--random-input-len", type=int, default=128)
    p.add_argument("--random-output-len", type=int, default=128)
    p.add_argument("--result-dir", default=".")
    p.add_argument("--result-filename")
    p.add_argument("--save-result", action="store_true")
    p.add_argument("--request-rate", type=float, default=float("inf"))
    p.add_argument("--burstiness", type=float, default=1.0)
    p.add_argument("--seed", type=int, default=0)
    return p.parse_known_args(argv)[0]


def bench_serve(argv: list[str]) -> int:
    """`vllm bench serve` / benchmark_serving.py stand-in: a few real requests, sent at --request-rate as vLLM
    sends them (``send_offsets``, --burstiness, --seed)."""
    args = _bench_serve_args(argv)
    if os.environ.get(FAST_ENV):  # preflight: one request proves the path, no load
        args.num_prompts = 1
    url = _base_url(args.base_url or f"http://{args.host}:{args.port}") + args.endpoint
    payload = _with_prompt({"model": args.model, "max_tokens": args.random_output_len, "stream": True,
                            "stream_options": {"include_usage": True}, "ignore_eos": True},
                           " ".join(["word"] * max(1, args.random_input_len)), "chat" in args.endpoint)
    n = max(1, args.num_prompts)
    offsets = send_offsets(n, args.request_rate, args.seed, burstiness=args.burstiness)
    *results, run = send_all(url, [payload] * n, max(1, args.max_concurrency), offsets)
    if failed := next((r["error"] for r in results if "error" in r), None):
        print(f"vllm bench serve (fake): a request to {url} failed: {failed}", file=sys.stderr)
        return 1
    duration = run["duration"]
    if args.save_result:
        name = args.result_filename or f"{args.backend}-{args.max_concurrency}qps-{args.model.replace('/', '_')}.json"
        os.makedirs(args.result_dir, exist_ok=True)
        path = os.path.join(args.result_dir, name)
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(_bench_result(args, results, duration), fh, indent=2)
        print(f"fake bench: wrote {path}")
    print(f"fake bench: {len(results)} requests in {duration:.2f}s"
          f"{_paced(args.request_rate, args.seed, offsets, args.burstiness)}")
    return 0


def _bench_result(args: argparse.Namespace, results: list[dict], duration: float) -> dict:
    """The benchmark_serving result file: throughputs and ttft/tpot/itl/e2el statistics."""
    import math
    import statistics

    ttfts = [r["ttft"] * 1000 for r in results]
    e2els = [r["e2el"] * 1000 for r in results]
    tpots = [((r["e2el"] - r["ttft"]) * 1000 / max(1, r["tokens"] - 1)) for r in results]
    out_tokens = sum(r["tokens"] for r in results)
    in_tokens = args.random_input_len * len(results)
    result = {
        "date": time.strftime("%Y%m%d-%H%M%S"), "backend": args.backend, "model_id": args.model,
        "tokenizer_id": args.model, "num_prompts": len(results),
        "request_rate": args.request_rate if math.isfinite(args.request_rate) else "inf",
        "burstiness": args.burstiness,
        "max_concurrency": args.max_concurrency, "duration": duration, "completed": len(results),
        "total_input_tokens": in_tokens, "total_output_tokens": out_tokens,
        "request_throughput": len(results) / duration, "output_throughput": out_tokens / duration,
        "total_token_throughput": (in_tokens + out_tokens) / duration,
        "rehearsal": True,
    }
    for name, values in (("ttft", ttfts), ("tpot", tpots), ("itl", tpots), ("e2el", e2els)):
        result[f"mean_{name}_ms"] = statistics.fmean(values) if values else 0.0
        result[f"median_{name}_ms"] = statistics.median(values) if values else 0.0
        result[f"std_{name}_ms"] = statistics.pstdev(values) if values else 0.0
        result[f"p99_{name}_ms"] = _pct(values, 99)
    return result


# --- SGLang's bench_serving ---------------------------------------------------------

# `python3 -m sglang.bench_serving`'s options (SGLang 0.5.9's argparse; an abbreviation of one is taken as
# argparse takes it). Those not below take one value; a flag, or values' choices, as named.
SGLANG_BACKENDS = {  # --backend -> the route it asks, and whether its body is OpenAI's (chat) or SGLang's own
    "sglang": "/generate", "sglang-native": "/generate", "sglang-oai": "/v1/completions",
    "sglang-oai-chat": "/v1/chat/completions", "vllm": "/v1/completions", "vllm-chat": "/v1/chat/completions",
    "lmdeploy": "/v1/completions", "lmdeploy-chat": "/v1/chat/completions", "trt": None, "gserver": None,
    "truss": None}
SGLANG_PORTS = {"sglang": 30000, "sglang-native": 30000, "sglang-oai": 30000, "lmdeploy": 23333, "vllm": 8000,
                "trt": 8000, "gserver": 9988, "truss": 8080}  # --port's default by backend (else 30000)
SGLANG_DATASETS = ("sharegpt", "custom", "openai", "random", "random-ids", "generated-shared-prefix", "mmmu",
                   "image", "mooncake")
SGLANG_INTS = ("--port", "--num-prompts", "--sharegpt-output-len", "--sharegpt-context-len", "--random-input-len",
               "--random-output-len", "--image-count", "--max-concurrency", "--seed", "--profile-num-steps",
               "--warmup-requests", "--gsp-num-groups", "--gsp-prompts-per-group", "--gsp-system-prompt-len",
               "--gsp-question-len", "--gsp-output-len", "--gsp-num-turns", "--mooncake-num-rounds")
SGLANG_FLOATS = ("--random-range-ratio", "--request-rate", "--lora-zipf-alpha", "--gsp-range-ratio",
                 "--mooncake-slowdown-factor")
SGLANG_FLAGS = ("--random-image-count", "--use-trace-timestamps", "--output-details", "--print-requests",
                "--disable-tqdm", "--disable-stream", "--return-logprob", "--return-routed-experts",
                "--disable-ignore-eos", "--apply-chat-template", "--profile", "--plot-throughput",
                "--profile-by-stage", "--pd-separated", "--flush-cache", "--tokenize-prompt", "--gsp-fast-prepare",
                "--gsp-send-routing-key", "--gsp-ordered")
SGLANG_STRS = ("--base-url", "--host", "--dataset-path", "--model", "--served-model-name", "--tokenizer",
               "--image-resolution", "--image-format", "--image-content", "--output-file", "--extra-request-body",
               "--profile-output-dir", "--profile-prefix", "--prompt-suffix", "--tag")
SGLANG_LISTS = {"--profile-activities": "+", "--profile-stages": "+", "--lora-name": "*", "--header": "+"}
SGLANG_CHOICES = {"--backend": tuple(SGLANG_BACKENDS), "--dataset-name": SGLANG_DATASETS,
                  "--lora-request-distribution": ("uniform", "distinct", "skewed"),
                  "--mooncake-workload": ("mooncake", "conversation", "synthetic", "toolagent")}
SGLANG_DEFAULTS = {"--backend": "sglang", "--host": "0.0.0.0", "--dataset-name": "sharegpt", "--num-prompts": 1000,
                   "--random-input-len": 1024, "--random-output-len": 1024, "--random-range-ratio": 0.0,
                   "--request-rate": float("inf"), "--seed": 1, "--warmup-requests": 1, "--prompt-suffix": ""}
# bench_serving's line, before its run's figures: the setup, as it writes it (SGLang 0.5.8's keys and order)
SGLANG_SETUP = ("tag", "backend", "dataset_name", "request_rate", "max_concurrency", "sharegpt_output_len",
                "random_input_len", "random_output_len", "random_range_ratio")
SGLANG_WARMUP_OUT = 32  # output tokens a warm-up request asks at most
SGLANG_POOL = 64  # requests in flight at most in the stand-in, whatever --max-concurrency (unset: all at once) says


def _sglang_bench_args(argv: list[str]) -> argparse.Namespace:
    import argparse

    p = argparse.ArgumentParser(prog=f"python3 -m {SGLANG_CLIENT_MODULE} (fake)")
    for flag, choices in SGLANG_CHOICES.items():
        p.add_argument(flag, choices=choices, default=SGLANG_DEFAULTS.get(flag))
    for names, kind in ((SGLANG_INTS, int), (SGLANG_FLOATS, float), (SGLANG_STRS, str)):
        for flag in names:
            p.add_argument(flag, type=kind, default=SGLANG_DEFAULTS.get(flag))
    for flag in SGLANG_FLAGS:
        p.add_argument(flag, action="store_true")
    for flag, nargs in SGLANG_LISTS.items():
        p.add_argument(flag, nargs=nargs)
    urls = p.add_mutually_exclusive_group()  # one side of a PD pair is profiled at a time
    for flag in ("--profile-prefill-url", "--profile-decode-url"):
        urls.add_argument(flag, nargs="*")
    args, unknown = p.parse_known_args(argv)  # a bad value of one it knows: argparse's message, exit 2
    if unknown:  # a newer SGLang's option: passed over, as the vLLM stand-in passes over what it does not know
        print(f"{SGLANG_CLIENT_MODULE} (fake): passing over what SGLang 0.5.9's bench_serving does not take: "
              f"{' '.join(unknown)}", file=sys.stderr)
    return args


def sglang_bench_serving(argv: list[str]) -> int:
    """`python3 -m sglang.bench_serving` stand-in: its warm-up requests (the first prompt, at most 32 tokens out),
    then its prompts (every dataset's made as the random dataset's), sent at --request-rate as the real client
    sends them (``send_offsets``), as real requests to the server, then one line in its layout appended to
    --output-file. As the real client, exit 1 with no line when every warm-up request failed (it raises "Warmup
    failed"), or when every request did."""
    args = _sglang_bench_args(argv)
    route = SGLANG_BACKENDS[args.backend]
    if route is None:
        print(f"{SGLANG_CLIENT_MODULE} (fake): --backend {args.backend} asks an API the stand-in server does not "
              "serve; use sglang, sglang-oai(-chat) or vllm(-chat)", file=sys.stderr)
        return 1
    try:
        extra = json.loads(args.extra_request_body) if args.extra_request_body else {}
    except ValueError as exc:
        print(f"{SGLANG_CLIENT_MODULE} (fake): --extra-request-body is not JSON: {exc}", file=sys.stderr)
        return 1
    if os.environ.get(FAST_ENV):  # preflight: one request proves the path, no load
        args.num_prompts = 1
    port = args.port if args.port is not None else SGLANG_PORTS.get(args.backend, 30000)
    base = _base_url(args.base_url or f"http://{args.host}:{port}")
    model = args.served_model_name or args.model or _served_model(base)
    if model is None:
        print(f"{SGLANG_CLIENT_MODULE} (fake): no --model, and {base}/v1/models named none", file=sys.stderr)
        return 1
    lengths = _sglang_lengths(args)
    requests = [_sglang_payload(args, route, model, extra, n_in, n_out) for n_in, n_out in lengths]
    if (failed := _sglang_warmup(args, base + route, _sglang_payload(args, route, model, extra, lengths[0][0],
                                                                      min(lengths[0][1], SGLANG_WARMUP_OUT)))):
        print(f"{SGLANG_CLIENT_MODULE} (fake): Warmup failed - no warm-up request to {base + route} succeeded: "
              f"{failed}", file=sys.stderr)
        return 1
    _flush_cache(args, base)
    offsets = send_offsets(len(requests), args.request_rate, args.seed)
    results = send_all(base + route, requests, min(args.max_concurrency or len(requests), len(requests), SGLANG_POOL),
                       offsets)
    if all("error" in r for r in results[:-1]):
        print(f"{SGLANG_CLIENT_MODULE} (fake): All requests failed ({len(requests)} to {base + route}), so no line "
              f"is written: {results[0]['error']}", file=sys.stderr)
        return 1
    line = _sglang_line(args, _get_json(base, "/get_server_info"), lengths, results)
    path = args.output_file or (f"{args.backend}_{time.strftime('%m%d')}_{args.num_prompts}_"
                                + (f"{args.random_input_len}_{args.random_output_len}.jsonl"
                                   if args.dataset_name.startswith("random") else "sharegpt.jsonl"))
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(line) + "\n")
    print(f"fake {SGLANG_CLIENT_MODULE}: {line['completed']} of {len(requests)} requests in {line['duration']:.2f}s"
          f"{_paced(args.request_rate, args.seed, offsets)} -> {path}")
    return 0


def _sglang_warmup(args: argparse.Namespace, url: str, test: dict) -> str | None:
    """--warmup-requests copies of ``test`` sent at once (at most SGLANG_POOL; one under preflight): the first's
    error when every one failed, else None."""
    warmups = min(max(args.warmup_requests or 0, 0), 1 if os.environ.get(FAST_ENV) else SGLANG_POOL)
    if not warmups:
        return None
    *tried, _ = send_all(url, [test] * warmups, warmups)
    return tried[0]["error"] if all("error" in r for r in tried) else None


def _paced(rate: float, seed, offsets: list[float], burstiness: float = 1.0) -> str:
    """How the client's requests were sent, where not all at once (``send_offsets``)."""
    if not any(offsets):
        return ""
    shrunk = f"; its schedule shrunk to {PACE_CAP_S:g} s" if offsets[-1] >= PACE_CAP_S * (1 - 1e-9) else ""
    gaps = "a Poisson process" if burstiness == 1 else f"gamma gaps of burstiness {burstiness:g}"
    return f", sent at {rate:g} requests/s ({gaps}, --seed {seed}{shrunk})"


def _sglang_lengths(args: argparse.Namespace) -> list[tuple[int, int]]:
    """(input, output) tokens of each prompt: the random dataset's draw, each in [length x --random-range-ratio,
    length]; ShareGPT's output length where --sharegpt-output-len sets it."""
    import random

    rng = random.Random(args.seed)
    ratio = min(max(args.random_range_ratio, 0.0), 1.0)
    out = []
    for _ in range(max(1, args.num_prompts)):
        n_in = rng.randint(max(int(args.random_input_len * ratio), 1), max(1, args.random_input_len))
        n_out = rng.randint(int(args.random_output_len * ratio), max(1, args.random_output_len))
        if args.dataset_name == "sharegpt" and args.sharegpt_output_len:
            n_out = args.sharegpt_output_len
        out.append((n_in, max(1, n_out)))
    return out


def _sglang_payload(args: argparse.Namespace, route: str, model: str, extra: dict, n_in: int, n_out: int) -> dict:
    """One request's body, as bench_serving sends it to ``route`` (SGLang's /generate, or OpenAI's)."""
    prompt = " ".join(["word"] * n_in) + args.prompt_suffix
    stream = not args.disable_stream
    if route == "/generate":
        params = {"temperature": 0.0, "max_new_tokens": n_out, "ignore_eos": not args.disable_ignore_eos}
        return {"text": prompt, "sampling_params": params, "stream": stream, **extra}
    payload = {"model": model, "temperature": 0.0, "max_tokens": n_out, "stream": stream}
    if "chat" not in route:
        payload.update(best_of=1, ignore_eos=not args.disable_ignore_eos)
    return {**_with_prompt(payload, prompt, "chat" in route), **extra}


PACE_CAP_S = 5.0  # the longest a paced client's schedule runs in a rehearsal: a longer one is shrunk to it


def send_offsets(n: int, rate: float, seed: int | None = 0, cap: float | None = PACE_CAP_S,
                 burstiness: float = 1.0) -> list[float]:
    """When each of ``n`` requests is sent, in seconds from the first, as the benchmark clients send them at
    ``rate`` requests/s: a Poisson process, the first at once and each later one an exponential gap (of mean
    1/rate) after the one before, the gaps drawn from a generator seeded with ``seed`` (--seed); with vLLM's
    --burstiness other than 1, gamma gaps of that shape and the same mean. Every one at once at an unlimited rate
    (inf, the clients' default). A schedule longer than ``cap`` seconds is shrunk to it, each gap alike: the same
    shape in a rehearsal's time (a rate of 1/s over 128 prompts would take two minutes)."""
    import math
    import random

    if not (isinstance(rate, (int, float)) and math.isfinite(rate) and rate > 0):
        return [0.0] * n
    rng, at, out = random.Random(seed), 0.0, []
    for _ in range(n):
        out.append(at)
        at += (rng.expovariate(rate) if burstiness == 1 or not burstiness > 0
               else rng.gammavariate(burstiness, 1 / (rate * burstiness)))
    if cap is not None and out and out[-1] > cap:
        out = [o * cap / out[-1] for o in out]
    return out


def send_all(url: str, payloads: list[dict], workers: int, offsets: list[float] | None = None) -> list[dict]:
    """Each payload POSTed, ``workers`` at once at most, the i-th not before ``offsets[i]`` seconds from the start
    (``send_offsets``; None: all at once); per request its figures (``stream_request``'s) or its error, and when
    it was sent (``sent``, seconds from the start), then the run's duration and workers."""
    from concurrent.futures import ThreadPoolExecutor

    def one(payload: dict, start: float) -> dict:
        sent = time.perf_counter() - start
        return {**ask(payload), "sent": sent}

    def ask(payload: dict) -> dict:
        try:
            if payload.get("stream"):
                return stream_request(url, payload)
            start = time.perf_counter()
            with _post(url, payload, 60) as resp:
                body = json.loads(resp.read())
            e2el = time.perf_counter() - start
            choice = (body.get("choices") or [{}])[0]
            text = body.get("text") or choice.get("text") or (choice.get("message") or {}).get("content") or ""
            tokens = (body.get("meta_info") or body.get("usage") or {}).get("completion_tokens") or count_tokens(text)
            return {"ttft": e2el, "e2el": e2el, "chunks": 1, "tokens": tokens, "itl": [], "text": text}
        except (OSError, ValueError) as exc:  # the request failed: bench_serving counts it out, its error kept
            return {"error": f"{type(exc).__name__}: {exc}"}

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        start, futures = time.perf_counter(), []
        for i, payload in enumerate(payloads):  # as bench_serving: a request waits its turn, then a free worker
            if offsets and (wait := start + offsets[i] - time.perf_counter()) > 0:
                time.sleep(wait)
            futures.append(pool.submit(one, payload, start))
        results = [f.result() for f in futures]
    results.append({"duration": max(time.perf_counter() - start, 1e-9), "workers": max(1, workers)})
    return results


def _get_json(base: str, path: str) -> dict | None:
    """The JSON object a GET of ``base + path`` answers with status 200 (through no proxy); None for any other
    answer, or none."""
    import urllib.request

    try:
        with urllib.request.build_opener(urllib.request.ProxyHandler({})).open(base + path, timeout=60) as r:
            doc = json.loads(r.read())
    except (OSError, ValueError):  # urllib's HTTPError (a 404) is an OSError
        return None
    return doc if isinstance(doc, dict) else None


def _served_model(base: str) -> str | None:
    """The first model GET /v1/models names (bench_serving asks it when no --model is given)."""
    models = (_get_json(base, "/v1/models") or {}).get("data")
    return models[0].get("id") if isinstance(models, list) and models and isinstance(models[0], dict) else None


def _accept_length(backend: str, info: dict | None):
    """bench_serving's accept_length: with an SGLang backend, the server's (behind a router, its first decode
    worker's) first internal state's avg_spec_accept_length; else, or where it states none, None."""
    if "sglang" not in backend or info is None:
        return None
    if isinstance(info.get("decode"), list) and info["decode"] and isinstance(info["decode"][0], dict):
        info = info["decode"][0]
    states = info.get("internal_states")
    return states[0].get("avg_spec_accept_length") if isinstance(states, list) and states and isinstance(
        states[0], dict) else None


def _flush_cache(args: argparse.Namespace, base: str) -> None:
    """POST /flush_cache after the warm-up, as bench_serving does with --flush-cache (or an SGLang backend where
    SGLANG_IS_IN_CI is true); like it, whatever the answer, the run goes on (a note says what it was)."""
    in_ci = os.environ.get("SGLANG_IS_IN_CI", "false").lower() in ("true", "1")
    if not (args.flush_cache or ("sglang" in args.backend and in_ci)):
        return
    import urllib.request

    request = urllib.request.Request(base + "/flush_cache", data=b"", method="POST")  # no body, as SGLang's
    try:
        urllib.request.build_opener(urllib.request.ProxyHandler({})).open(request, timeout=60).close()
    except OSError as exc:  # urllib's HTTPError (a 404) is one
        print(f"{SGLANG_CLIENT_MODULE} (fake): POST {base}/flush_cache: {exc}; the run goes on, as SGLang's does",
              file=sys.stderr)


def _sglang_line(args: argparse.Namespace, server_info: dict | None, lengths: list[tuple[int, int]],
                 results: list[dict]) -> dict:
    """bench_serving's line: the setup, the server's settings (GET /get_server_info's answer; null where it
    answered none, a vLLM server's 404), then the run's figures (latencies in ms), and with --output-details each
    request's (seconds)."""
    import statistics

    *results, run = results
    duration = run["duration"]
    ok = [(n, r) for n, r in zip(lengths, results) if "error" not in r]
    done = [r for _, r in ok]
    n_in = sum(n[0] for n, _ in ok)
    n_out = sum(r["tokens"] for r in done)
    line = {key: getattr(args, key) for key in SGLANG_SETUP}
    line["server_info"] = server_info
    line.update({
        "duration": duration, "completed": len(done), "total_input_tokens": n_in, "total_input_text_tokens": n_in,
        "total_input_vision_tokens": 0, "total_output_tokens": n_out,
        "total_output_tokens_retokenized": sum(count_tokens(r["text"]) for r in done),
        "request_throughput": len(done) / duration, "input_throughput": n_in / duration,
        "output_throughput": n_out / duration, "total_throughput": (n_in + n_out) / duration})
    itls = [gap * 1000 for r in done for gap in r["itl"]]
    series = (("e2e_latency", [r["e2el"] * 1000 for r in done], (90, 99)),
              ("ttft", [r["ttft"] * 1000 for r in done], (99,)),
              ("tpot", [(r["e2el"] - r["ttft"]) * 1000 / (r["tokens"] - 1) for r in done if r["tokens"] > 1], (99,)),
              ("itl", itls, (95, 99)))
    for name, values, tails in series:
        line[f"mean_{name}_ms"] = statistics.fmean(values) if values else 0.0
        line[f"median_{name}_ms"] = statistics.median(values) if values else 0.0
        line[f"std_{name}_ms"] = statistics.pstdev(values) if values else 0.0
        line.update({f"p{q}_{name}_ms": _pct(values, q) for q in tails})
    line.update({"concurrency": sum(r["e2el"] for r in done) / duration,
                 "accept_length": _accept_length(args.backend, server_info),
                 "max_output_tokens_per_s": n_out / duration, "max_concurrent_requests": run["workers"]})
    if args.output_details:
        line.update({"input_lens": [n[0] for n in lengths], "output_lens": [r.get("tokens", 0) for r in results],
                     "ttfts": [r.get("ttft", 0.0) for r in results], "itls": [r.get("itl", []) for r in results],
                     "generated_texts": [r.get("text", "") for r in results],
                     "errors": [r.get("error", "") for r in results]})
    return line


def _trace_turns(path: str | None) -> list[dict]:
    turns = []
    if path:
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                line = line.strip()
                if line:
                    turns.append(json.loads(line))
    return turns or [{"input_length": 256, "output_length": 32}]


def _aiperf_args(argv: list[str]) -> argparse.Namespace:
    import argparse

    p = argparse.ArgumentParser(prog="aiperf profile (fake)")
    p.add_argument("--model", required=True)
    p.add_argument("--url", default="localhost:8000")
    p.add_argument("--endpoint-type", default="chat")
    p.add_argument("--concurrency", type=int, default=1)
    p.add_argument("--benchmark-duration", type=float, default=5.0)
    p.add_argument("--artifact-dir", default="artifacts")
    p.add_argument("--input-file")
    p.add_argument("--public-dataset")
    return p.parse_known_args(argv)[0]


def aiperf_profile(argv: list[str]) -> int:
    """`aiperf profile` stand-in: CONC sessions replaying the trace for DURATION."""
    args = _aiperf_args(argv)
    if os.environ.get(FAST_ENV):  # preflight: each session sends one turn
        args.benchmark_duration = 0.0
    start = time.perf_counter()
    records = _aiperf_sessions(args)
    duration = max(time.perf_counter() - start, 1e-9)
    os.makedirs(args.artifact_dir, exist_ok=True)
    path = os.path.join(args.artifact_dir, "profile_export_aiperf.json")
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(_aiperf_export(args, records, duration), fh, indent=2)
    print(f"fake aiperf: {len(records)} requests in {duration:.2f}s -> {path}")
    return 0


def _aiperf_sessions(args: argparse.Namespace) -> list[dict]:
    """Run --concurrency sessions, each replaying the trace's turns until the deadline; their records."""
    from concurrent.futures import ThreadPoolExecutor

    turns = _trace_turns(args.input_file)
    chat = args.endpoint_type == "chat"
    url = _base_url(args.url) + ("/v1/chat/completions" if chat else "/v1/completions")
    deadline = time.monotonic() + args.benchmark_duration
    records: list[dict] = []
    lock = threading.Lock()

    def session(worker: int) -> None:
        i = worker
        while True:
            turn = turns[i % len(turns)]
            prompt = " ".join(["ctx"] * max(1, int(turn.get("input_length", 256))))
            payload = {"model": args.model, "max_tokens": int(turn.get("output_length", 32)),
                       "stream": True, "stream_options": {"include_usage": True}}
            rec = stream_request(url, _with_prompt(payload, prompt, chat))
            with lock:
                records.append(rec)
            i += args.concurrency
            if time.monotonic() >= deadline:
                return
            time.sleep(0.05)  # think time; keeps a 2-core runner responsive

    with ThreadPoolExecutor(max_workers=max(1, args.concurrency)) as pool:
        list(pool.map(session, range(max(1, args.concurrency))))
    return records


def _aiperf_export(args: argparse.Namespace, records: list[dict], duration: float) -> dict:
    """aiperf's profile_export_aiperf.json: request counts, throughputs, latency statistics."""
    import statistics

    def stat(values: list[float], unit: str) -> dict:
        return {"unit": unit, "avg": statistics.fmean(values) if values else 0.0,
                "p50": _pct(values, 50), "p90": _pct(values, 90), "p99": _pct(values, 99),
                "min": min(values, default=0.0), "max": max(values, default=0.0)}

    out_tokens = sum(r["tokens"] for r in records)
    export = {
        "rehearsal": True,
        "input_config": {"model": args.model, "concurrency": args.concurrency,
                         "benchmark_duration": args.benchmark_duration,
                         "input_file": args.input_file, "public_dataset": args.public_dataset},
        "request_count": {"unit": "requests", "avg": len(records)},
        "benchmark_duration": {"unit": "sec", "avg": duration},
        "request_throughput": {"unit": "requests/sec", "avg": len(records) / duration},
        "output_token_throughput": {"unit": "tokens/sec", "avg": out_tokens / duration},
        "time_to_first_token": stat([r["ttft"] * 1000 for r in records], "ms"),
        "request_latency": stat([r["e2el"] * 1000 for r in records], "ms"),
        # per request, the decode time per token after the first (vLLM's TPOT)
        "inter_token_latency": stat([(r["e2el"] - r["ttft"]) * 1000 / (r["tokens"] - 1)
                                     for r in records if r["tokens"] > 1], "ms"),
    }
    return export


# --- lm-eval -----------------------------------------------------------------------

# A few GSM8K-shaped problems; the stand-in server never answers them right, so the
# score is a real exact-match over real requests (0.0 against the stand-in).
EVAL_PROBLEMS = (("Tom has 3 apples and buys 4 more. How many apples does he have?", "7"),
                 ("A box holds 12 eggs. How many eggs are in 5 boxes?", "60"),
                 ("Sara reads 15 pages a day. How many pages does she read in 4 days?", "60"))


def _lm_eval_args(argv: list[str]) -> argparse.Namespace:
    import argparse

    p = argparse.ArgumentParser(prog="lm_eval (fake)")
    p.add_argument("--model", default="local-chat-completions")
    p.add_argument("--model_args", default="")
    p.add_argument("--tasks", required=True)
    p.add_argument("--output_path", required=True)
    p.add_argument("--limit", type=float)
    p.add_argument("--num_fewshot", type=int)
    p.add_argument("--seed", default="0")
    p.add_argument("--gen_kwargs")
    return p.parse_known_args(argv)[0]


def _model_args(text: str) -> dict:
    return dict(part.split("=", 1) for part in text.split(",") if "=" in part)


def _ask(url: str, model: str, question: str, chat: bool) -> str:
    payload = _with_prompt({"model": model, "max_tokens": 32, "temperature": 0}, f"Question: {question}\nAnswer:",
                           chat)
    with _post(url, payload, 60) as resp:
        choice = json.loads(resp.read())["choices"][0]
    return (choice.get("message") or {}).get("content") or choice.get("text") or ""


def lm_eval_run(argv: list[str]) -> int:
    """`lm_eval` stand-in: real requests to the server, then lm-eval's results JSON."""
    args = _lm_eval_args(argv)
    margs = _model_args(args.model_args)
    if "base_url" not in margs or "model" not in margs:
        print("lm_eval (fake): --model_args needs model= and base_url=", file=sys.stderr)
        return 2
    chat = "chat" in args.model
    limit = int(args.limit) if args.limit else 2
    problems = [EVAL_PROBLEMS[i % len(EVAL_PROBLEMS)] for i in range(max(1, min(limit, 3)))]
    start = time.perf_counter()
    hits = [answer in _ask(margs["base_url"], margs["model"], q, chat).split() for q, answer in problems]
    doc = _lm_eval_results(args, margs, hits, start, time.perf_counter())
    sanitized = "".join("__" if c in '"<>:/|\\?*[]' else c for c in margs["model"])
    out = os.path.join(args.output_path, sanitized)
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, f"results_{time.strftime('%Y-%m-%dT%H-%M-%S')}.json")
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(doc, fh, indent=2)
    print(f"fake lm_eval: {len(hits)} requests -> {path}")
    return 0


def _lm_eval_results(args: argparse.Namespace, margs: dict, hits: list[bool], start: float, end: float) -> dict:
    """lm-eval 0.4.9's results JSON (the keys of a real run), for each task asked."""
    import statistics

    score = sum(hits) / len(hits)
    stderr = statistics.stdev([float(h) for h in hits]) / len(hits) ** 0.5 if len(hits) > 1 else "N/A"
    tasks = [t for t in args.tasks.split(",") if t]
    shots = args.num_fewshot if args.num_fewshot is not None else 5
    return {
        "results": {t: {"alias": t, "exact_match,strict-match": score, "exact_match_stderr,strict-match": stderr,
                        "exact_match,flexible-extract": score, "exact_match_stderr,flexible-extract": stderr}
                    for t in tasks},
        "group_subtasks": {t: [] for t in tasks},
        "configs": {t: {"task": t, "num_fewshot": shots, "output_type": "generate_until",
                        "metadata": {"version": 3.0, **margs}} for t in tasks},
        "versions": {t: 3.0 for t in tasks}, "n-shot": {t: shots for t in tasks},
        "higher_is_better": {t: {"exact_match": True} for t in tasks},
        "n-samples": {t: {"original": 1319, "effective": len(hits)} for t in tasks},
        "config": {"model": args.model, "model_args": args.model_args, "batch_size": 1, "batch_sizes": [],
                   "device": None, "use_cache": None, "limit": args.limit, "bootstrap_iters": 100000,
                   "gen_kwargs": args.gen_kwargs, "random_seed": int(args.seed), "numpy_seed": 1234,
                   "torch_seed": 1234, "fewshot_seed": 1234},
        "git_hash": None, "date": time.time(), "pretty_env_info": "sweepgate rehearsal stand-in",
        "transformers_version": None, "lm_eval_version": "0.4.9.1", "upper_git_hash": None,
        "task_hashes": {t: "" for t in tasks}, "model_source": args.model, "model_name": margs["model"],
        "model_name_sanitized": margs["model"].replace("/", "__"), "system_instruction": None,
        "system_instruction_sha": None, "fewshot_as_multiturn": False, "chat_template": "",
        "chat_template_sha": None, "start_time": start, "end_time": end,
        "total_evaluation_time_seconds": str(end - start),
    }


# --- shims -----------------------------------------------------------------------

def option_value(argv: list[str], name: str, default: str | None = None) -> str | None:
    """Value of --name V or --name=V (last one wins)."""
    value = default
    for i, arg in enumerate(argv):
        if arg == name and i + 1 < len(argv):
            value = argv[i + 1]
        elif arg.startswith(name + "="):
            value = arg.split("=", 1)[1]
    return value


def _port(argv: list[str], name: str, tool: str) -> int | None:
    value = option_value(argv, name)
    try:
        return int(value) if value is not None else None
    except ValueError:
        print(f"{tool} (fake): {name} must be a port number, got {value!r}", file=sys.stderr)
        return None


def _healthy(url: str) -> bool:
    import urllib.request

    try:
        with urllib.request.urlopen(url.rstrip("/") + "/health", timeout=5) as response:
            return 200 <= response.status < 300
    except OSError:  # urllib's URLError is one
        return False


def python_module(module: str, argv: list[str]) -> int:
    """`python3 -m MODULE ...` stand-ins: an SGLang worker, vLLM's API server, the SGLang router, or SGLang's
    benchmark client (``sglang_bench_serving``).

    The router stand-in starts only when every --prefill and --decode worker it
    is given answers /health, so a rehearsal proves the workers were reachable.
    """
    tool = f"python3 -m {module}"
    if module == SGLANG_CLIENT_MODULE:  # a client: its own port default, or --base-url
        return sglang_bench_serving(argv)
    port = _port(argv, "--port", tool)
    if port is None:
        print(f"{tool} (fake): needs --port", file=sys.stderr)
        return 2
    if module == SGLANG_SERVER_MODULE:  # its model path is --model-path (or --model); its name that, or an alias
        path = option_value(argv, "--model-path") or option_value(argv, "--model") or "fake-model"
        served = option_value(argv, "--served-model-name") or path
        args = {"model_path": path, "tokenizer_path": option_value(argv, "--tokenizer-path") or path,
                "served_model_name": served, "host": option_value(argv, "--host") or "127.0.0.1"}
        return serve("127.0.0.1", port, served, 5.0, SGLANG, metrics=SGLANG_METRICS_FLAG in argv, args=args)
    if module == VLLM_SERVER_MODULE:  # vLLM's server module, as `vllm serve`
        model = option_value(argv, "--served-model-name") or option_value(argv, "--model") or "fake-model"
        return serve("127.0.0.1", port, model, 5.0, VLLM)
    if module == SGLANG_ROUTER_MODULE:
        roles = {role: [argv[i + 1] for i, a in enumerate(argv[:-1]) if a == f"--{role}"] for role in PD_ROLES}
        workers = [url for role in PD_ROLES for url in roles[role]]
        down = [url for url in workers if not _healthy(url)]
        if not workers or down:
            print(f"{tool} (fake): workers not healthy: {down or 'none given'}", file=sys.stderr)
            return 1
        return serve("127.0.0.1", port, "router", 0.0, SGLANG, workers={r: [_base_url(u) for u in roles[r]]
                                                                          for r in PD_ROLES})
    print(f"{tool} (fake): unknown module", file=sys.stderr)
    return 127


def pinned_help(name: str, argv: list[str]) -> str | None:
    """`name argv... --help` as the pinned version prints its options (HELP_ENV), or None when not
    given: the longest command the file knows among `name`, `name sub` and `name sub sub`."""
    path = os.environ.get(HELP_ENV)
    if not path:
        return None
    try:
        with open(path, encoding="utf-8") as fh:
            known = json.load(fh)
    except (OSError, ValueError):
        return None
    words = [name, *(a for a in argv[:2] if not a.startswith("-"))]
    for n in range(len(words), 0, -1):
        command = " ".join(words[:n])
        flags = known.get(command) if isinstance(known, dict) else None
        if isinstance(flags, list):
            return "\n".join([f"usage: {command} [options]", "", "options:", *(f"  {flag}" for flag in flags)])
    return None


def _vllm(argv: list[str]) -> int:
    if argv[:1] == ["serve"]:
        port = _port(argv, "--port", "vllm")
        port = 8000 if port is None else port  # vLLM's default; 0, as given: a port the system picks
        model = option_value(argv, "--served-model-name") or (argv[1] if len(argv) > 1 else "fake-model")
        # Loopback only, whatever --host says: a rehearsal serves nobody else.
        return serve("127.0.0.1", port, model, 5.0, VLLM)
    if argv[:2] == ["bench", "serve"]:
        return bench_serve(argv[2:])
    print(f"vllm (fake): ignoring {' '.join(argv)}")
    return 0


def _lmcache(argv: list[str]) -> int:
    if argv[:1] != ["server"]:
        return 0
    port = _port(argv, "--http-port", "lmcache")
    if port is None:
        print("lmcache (fake): `lmcache server` needs --http-port for its health check", file=sys.stderr)
        return 2
    return serve("127.0.0.1", port, "lmcache", 0.0)


def _mooncake_master(argv: list[str]) -> int:
    # gflags takes --metrics-port for --metrics_port (it looks dashed names up with underscores)
    port = _port(argv, "--metrics_port", "mooncake_master") or _port(argv, "--metrics-port", "mooncake_master")
    if port is None:
        print("mooncake_master (fake): needs --metrics_port", file=sys.stderr)
        return 2
    return serve("127.0.0.1", port, "mooncake", 0.0)


def _aiperf(argv: list[str]) -> int:
    return aiperf_profile(argv[1:]) if argv[:1] == ["profile"] else 0


# The engines' and clients' programs a shim stands in for, each by what answers it: engines/names.py's programs
# (ENGINES' commands' first words), which this file cannot import (tests/test_rough_edges_s44f.py keeps the two
# the same); `sweepgate rehearse` puts a shim of each first on PATH (runner.SHIMS), with LIGHT_SHIMS'.
ENGINE_SHIMS = {"vllm": _vllm, "lmcache": _lmcache, "mooncake_master": _mooncake_master, "aiperf": _aiperf,
                "lm_eval": lm_eval_run}
# A program's other name -> its name in ENGINE_SHIMS, under which its calls are recorded (engines/names.py's
# PROGRAM_ALIASES: lm-eval's console scripts, both)
SHIM_ALIASES = {"lm-eval": "lm_eval"}


def shim(name: str, argv: list[str]) -> int:
    """What a shim on PATH does for `name argv...`."""
    if name in LIGHT_SHIMS:
        return _light_shim(name, argv)
    name = SHIM_ALIASES.get(name, name)
    _record(name, argv)
    if ("--help" in argv or "-h" in argv) and (text := pinned_help(name, argv)) is not None:
        print(text)
        return 0
    if name in ENGINE_SHIMS:
        return ENGINE_SHIMS[name](argv)
    if name.startswith("python") and argv[:1] == ["-m"] and len(argv) > 1:  # python, python3, python3.N
        return python_module(argv[1], argv[2:])
    print(f"fakeserver: unknown shim {name!r}", file=sys.stderr)
    return 127


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["shim"] and len(argv) >= 2:
        return shim(argv[1], argv[2:])
    import argparse

    p = argparse.ArgumentParser(prog="standin.py", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("serve", help="run the stand-in server")
    s.add_argument("--host", default="127.0.0.1")
    s.add_argument("--port", type=int, required=True)
    s.add_argument("--model", default="fake-model")
    s.add_argument("--delay-ms", type=float, default=0.0)
    sub.add_parser("shim", help="act as a tool on PATH: shim NAME ARGS...")
    args = p.parse_args(argv)
    if args.cmd == "serve":
        return serve(args.host, args.port, args.model, args.delay_ms)
    p.error("shim needs a NAME")
    return 2


if __name__ == "__main__":
    try:
        raise SystemExit(main())
    except KeyboardInterrupt:
        raise SystemExit(130)
    except (OSError, ValueError) as exc:  # urllib's URLError is an OSError
        print(f"fakeserver: {type(exc).__name__}: {exc}", file=sys.stderr)
        raise SystemExit(1)
