"""Helpers for tests that drive benchmarks/*.sh with real bash processes."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LIB = ROOT / "benchmarks" / "benchmark_lib.sh"


def bash(script: str, env: dict | None = None, timeout: float = 30, cwd: Path | None = None
         ) -> subprocess.CompletedProcess:
    """Run SCRIPT with benchmark_lib.sh sourced first, in a fresh `bash -c`."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(["bash", "-c", f'source "{LIB}"\n{script}'], env=full_env, cwd=cwd,
                          capture_output=True, text=True, timeout=timeout)


def alive(pid: int) -> bool:
    """`kill -0` succeeds and the process is not a zombie (PID 1 here does not reap)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def wait_for_file(path: Path, lines: int = 1, timeout: float = 10) -> list[str]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists():
            content = [line for line in path.read_text().splitlines() if line.strip()]
            if len(content) >= lines:
                return content
        time.sleep(0.02)
    raise AssertionError(f"{path} did not get {lines} line(s) within {timeout}s")


def wait_until_dead(pids: list[int], timeout: float = 10) -> list[int]:
    """PIDs still alive after TIMEOUT (an empty list is success)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and any(alive(p) for p in pids):
        time.sleep(0.05)
    return [p for p in pids if alive(p)]


def kill_quietly(pids: list[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802
        status = self.server.status
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()
        self.server.hits += 1

    def log_message(self, *args):
        pass


class HttpServer:
    """A real HTTP server on 127.0.0.1 answering every GET with STATUS."""

    def __init__(self, status: int = 200):
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self.httpd.status = status
        self.httpd.hits = 0
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                       daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/health"

    @property
    def hits(self) -> int:
        return self.httpd.hits

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()
