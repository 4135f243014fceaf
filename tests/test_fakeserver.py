"""utils/sweepgate/rehearsal/standin.py: the stand-in OpenAI-compatible server and its clients."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FAKESERVER = ROOT / "utils" / "sweepgate" / "rehearsal" / "standin.py"
sys.path.insert(0, str(ROOT / "utils"))

from sweepgate.rehearsal import standin as fakeserver  # noqa: E402
from lifetime import DIES_WITH_US  # noqa: E402

OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


@pytest.fixture()
def server():
    httpd = fakeserver.make_server(model="test/model")
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def get(url):
    with OPENER.open(url, timeout=10) as resp:
        return resp.status, resp.read()


def post(url, payload, raw=None):
    data = raw if raw is not None else json.dumps(payload).encode()
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    with OPENER.open(req, timeout=10) as resp:
        return resp.status, resp.headers.get("Content-Type"), resp.read().decode()


def sse_events(body: str) -> list:
    events = []
    for block in body.strip().split("\n\n"):
        assert block.startswith("data: "), block
        data = block[len("data: "):]
        events.append(data if data == "[DONE]" else json.loads(data))
    return events


@pytest.mark.parametrize("path", ["/health", "/healthcheck", "/metrics"])
def test_health_routes(server, path):
    status, _ = get(server + path)
    assert status == 200


def test_models_lists_the_served_model(server):
    status, body = get(server + "/v1/models")
    assert status == 200
    assert [m["id"] for m in json.loads(body)["data"]] == ["test/model"]


def test_completion(server):
    status, ctype, body = post(server + "/v1/completions", {"prompt": "one two three", "max_tokens": 5})
    data = json.loads(body)
    assert status == 200 and ctype == "application/json"
    assert data["object"] == "text_completion"
    assert data["choices"][0]["text"].split() == ["tok"] * 5
    assert data["usage"] == {"prompt_tokens": 3, "completion_tokens": 5, "total_tokens": 8}


def test_chat_completion(server):
    _, _, body = post(server + "/v1/chat/completions",
                      {"model": "m", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 2})
    data = json.loads(body)
    assert data["object"] == "chat.completion"
    assert data["choices"][0]["message"]["role"] == "assistant"
    assert data["model"] == "m"


@pytest.mark.parametrize("path,payload", [
    ("/v1/completions", {"prompt": "a b", "max_tokens": 20, "stream": True,
                         "stream_options": {"include_usage": True}}),
    ("/v1/chat/completions", {"messages": [{"role": "user", "content": "a b"}], "max_tokens": 20,
                              "stream": True, "stream_options": {"include_usage": True}}),
])
def test_streaming_sse(server, path, payload):
    status, ctype, body = post(server + path, payload)
    assert status == 200 and ctype == "text/event-stream"
    events = sse_events(body)
    assert events[-1] == "[DONE]"
    usage = events[-2]
    assert usage["choices"] == [] and usage["usage"]["completion_tokens"] == 20
    chunks = events[:-2]
    assert len(chunks) > 1
    if "chat" in path:
        text = "".join(c["choices"][0]["delta"].get("content", "") for c in chunks)
        assert chunks[0]["choices"][0]["delta"]["role"] == "assistant"
    else:
        text = "".join(c["choices"][0]["text"] for c in chunks)
    assert len(text.split()) == 20
    assert chunks[-1]["choices"][0]["finish_reason"] == "length"


def test_stream_without_usage_has_no_usage_chunk(server):
    _, _, body = post(server + "/v1/completions", {"prompt": "x", "max_tokens": 3, "stream": True})
    events = sse_events(body)
    assert all("usage" not in e for e in events[:-1])


@pytest.mark.parametrize("path,payload,raw,status", [
    ("/v1/completions", None, b"{not json", 400),
    ("/v1/chat/completions", {"messages": "not a list"}, None, 400),
    ("/v1/completions", {"prompt": "x", "max_tokens": "many"}, None, 400),
    ("/v1/embeddings", {"input": "x"}, None, 404),
])
def test_bad_requests_get_openai_style_errors(server, path, payload, raw, status):
    with pytest.raises(urllib.error.HTTPError) as info:
        post(server + path, payload, raw)
    assert info.value.code == status
    assert "error" in json.loads(info.value.read())


def test_unknown_get_is_404(server):
    with pytest.raises(urllib.error.HTTPError) as info:
        get(server + "/nope")
    assert info.value.code == 404


def test_bench_client_writes_a_vllm_style_result(server, tmp_path):
    rc = fakeserver.bench_serve(["--base-url", server, "--model", "m", "--num-prompts", "6",
                                 "--max-concurrency", "2", "--random-input-len", "16",
                                 "--random-output-len", "8", "--save-result", "--result-dir", str(tmp_path),
                                 "--result-filename", "r.json", "--unknown-flag", "x"])
    assert rc == 0
    result = json.loads((tmp_path / "r.json").read_text())
    assert result["completed"] == 6 and result["total_output_tokens"] == 48
    assert result["max_concurrency"] == 2 and result["mean_ttft_ms"] > 0


def test_aiperf_client_replays_a_trace_for_the_duration(server, tmp_path):
    trace = tmp_path / "trace.jsonl"
    trace.write_text('{"input_length": 10, "output_length": 4}\n{"input_length": 20, "output_length": 6}\n')
    rc = fakeserver.aiperf_profile(["--model", "m", "--url", server, "--concurrency", "2",
                                    "--benchmark-duration", "0.3", "--input-file", str(trace),
                                    "--artifact-dir", str(tmp_path / "art"), "--streaming"])
    assert rc == 0
    export = json.loads((tmp_path / "art" / "profile_export_aiperf.json").read_text())
    assert export["request_count"]["avg"] >= 2
    assert export["time_to_first_token"]["unit"] == "ms"


def get_once_up(proc: subprocess.Popen, url: str, timeout: float):
    """GET ``url`` once the server ``proc`` starts answering (it must not exit first)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return get(url)
        except (urllib.error.URLError, ConnectionError):
            assert proc.poll() is None, proc.stderr.read().decode()
            assert time.monotonic() < deadline
            time.sleep(0.05)


def test_runs_as_a_plain_script_by_path_without_sweepgate():
    # The shims run it by path; sweepgate's own modules (select.py, ...) must
    # not shadow the standard library, and it must not import sweepgate.
    source = FAKESERVER.read_text()
    assert "import sweepgate" not in source and "from sweepgate" not in source
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.Popen([*DIES_WITH_US, sys.executable, str(FAKESERVER), "serve", "--port", str(port)],
                            cwd=FAKESERVER.parent, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        status, _ = get_once_up(proc, f"http://127.0.0.1:{port}/health", 10)
        assert status == 200
        proc.terminate()
        assert proc.wait(timeout=10) == 0  # SIGTERM is a clean shutdown
    finally:
        proc.kill()


@pytest.mark.parametrize("argv", [
    ["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "test/m"],  # review: "unknown module"
    ["mooncake_master", "--metrics-port"],  # gflags' dashed spelling of --metrics_port
])
def test_shims_serve_vllm_s_server_module_and_mooncake_s_dashed_port(tmp_path, argv):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    argv = [*argv, str(port)] if argv[-1] == "--metrics-port" else [*argv, "--port", str(port)]
    env = {**os.environ, "SWEEPGATE_REHEARSE_LOG": str(tmp_path / "calls.jsonl")}
    proc = subprocess.Popen([*DIES_WITH_US, sys.executable, str(FAKESERVER), "shim", *argv], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        status, body = get_once_up(proc, f"http://127.0.0.1:{port}/v1/models", 30)
        assert status == 200
        if argv[0] == "python3":
            assert json.loads(body)["data"][0]["id"] == "test/m"
    finally:
        proc.kill()
        proc.wait()


def test_shim_records_its_calls(tmp_path, monkeypatch):
    log = tmp_path / "calls.jsonl"
    monkeypatch.setenv("SWEEPGATE_REHEARSE_LOG", str(log))
    assert fakeserver.shim("pip", ["install", "lmcache==1.2"]) == 0
    assert fakeserver.shim("nosuchtool", []) == 127
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    assert entries[0]["tool"] == "pip" and entries[0]["argv"] == ["install", "lmcache==1.2"]
    assert fakeserver.shim("lmcache", ["server", "--port", "1"]) == 2  # no --http-port to serve health on


def test_pinned_help_answers_every_command_shape(tmp_path, monkeypatch, capsys):
    """Diff review: `mooncake_master --help` and `lm_eval --help` were looked up as
    "mooncake_master --help" and never got the pinned flags `vllm serve --help` got."""
    help_file = tmp_path / "help.json"
    help_file.write_text(json.dumps({"mooncake_master": ["--metrics_port"], "lm_eval": ["--model"],
                                     "vllm serve": ["--port"], "vllm bench serve": ["--num-warmups"]}))
    monkeypatch.setenv(fakeserver.HELP_ENV, str(help_file))
    monkeypatch.delenv("SWEEPGATE_REHEARSE_LOG", raising=False)
    for argv, flag in ((["mooncake_master", "--help"], "--metrics_port"), (["lm_eval", "-h"], "--model"),
                       (["vllm", "serve", "--help"], "--port"), (["vllm", "bench", "serve", "--help"], "--num-warmups")):
        assert fakeserver.shim(argv[0], argv[1:]) == 0, argv
        out = capsys.readouterr().out
        assert f"  {flag}\n" in out + "\n" and out.startswith("usage: "), (argv, out)


def test_a_server_a_test_starts_goes_when_the_test_process_is_killed(tmp_path):
    """A pytest killed by SIGKILL (or a closed session) skips the `finally` that kills the stand-in
    server it started, which then answered on its port for good. A parent started here as the tests
    start one is SIGKILLed; its server goes too."""
    parent = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""\
        import subprocess, sys, time
        proc = subprocess.Popen({[*DIES_WITH_US, sys.executable, str(FAKESERVER), "serve", "--port", "0"]!r},
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        print(proc.pid, flush=True)
        time.sleep(600)
    """)], stdout=subprocess.PIPE, text=True)
    server = None
    try:
        server = int(parent.stdout.readline())
        assert _running(server)
        # setpriv sets the death signal and then execs the server: killed before that (a loaded host), the
        # parent's death would reach a process with none yet, which is not what this test asks about
        deadline = time.monotonic() + 30
        while _argv0(server) == "setpriv" and time.monotonic() < deadline:
            time.sleep(0.01)
        assert _argv0(server) != "setpriv", "setpriv never started the server"
        parent.kill()
        parent.wait()
        deadline = time.monotonic() + 30  # a hang guard: the kernel signals it as its parent dies
        while _running(server) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _running(server), f"the server (PID {server}) outlived the process that started it"
    finally:
        parent.kill()
        parent.wait()
        if server is not None and _running(server):
            os.kill(server, signal.SIGKILL)


def _running(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def _argv0(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0", 1)[0].decode(errors="replace")
    except OSError:
        return ""
