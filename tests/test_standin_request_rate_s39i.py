"""SGLang's bench_serving stand-in paces its requests by --request-rate (s39i).

It sent its prompts as fast as it could whatever --request-rate said; the real client sends them as a Poisson
process at that rate (the first at once, then one after each exponential gap, drawn from --seed's generator), so a
rehearsal with a rate was another test than the run. Now it does too. Tests count the send times' order against
the schedule, never how long anything took.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "utils"))
sys.path.insert(0, str(ROOT / "tests"))

from lifetime import DIES_WITH_US  # noqa: E402
from sweepgate.core import fields  # noqa: E402
from sweepgate.rehearsal import standin  # noqa: E402


@pytest.fixture
def server():
    srv = standin.make_server("127.0.0.1", 0, "test/m", engine=standin.SGLANG)
    threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    yield f"http://127.0.0.1:{srv.server_address[1]}"
    srv.shutdown()
    srv.server_close()


def test_an_unlimited_rate_sends_every_request_at_once():
    assert standin.send_offsets(5, float("inf"), seed=1) == [0.0] * 5


def test_a_rate_sends_the_first_at_once_then_one_after_each_exponential_gap():
    offsets = standin.send_offsets(2000, 4.0, seed=1, cap=None)
    gaps = [b - a for a, b in zip(offsets, offsets[1:])]
    assert offsets[0] == 0.0 and all(g > 0 for g in gaps)
    mean = sum(gaps) / len(gaps)
    assert 0.9 / 4 < mean < 1.1 / 4  # a Poisson process at 4/s: gaps of 1/4 s on average
    assert standin.send_offsets(2000, 4.0, seed=1, cap=None) == offsets  # --seed makes it the same again
    assert standin.send_offsets(2000, 4.0, seed=2, cap=None) != offsets


def test_a_long_schedule_is_shrunk_to_the_cap_in_the_same_shape():
    full = standin.send_offsets(50, 0.5, seed=3, cap=None)
    short = standin.send_offsets(50, 0.5, seed=3, cap=2.0)
    assert full[-1] > 2.0 and short[-1] == pytest.approx(2.0)
    assert [s / short[-1] for s in short] == pytest.approx([f / full[-1] for f in full])


def test_requests_are_sent_no_earlier_than_their_turn_and_in_its_order(server):
    url = server + "/generate"
    offsets = standin.send_offsets(6, 20.0, seed=1)
    payload = {"text": "a", "sampling_params": {"max_new_tokens": 2}, "stream": True}
    *results, _ = standin.send_all(url, [payload] * 6, workers=6, offsets=offsets)
    sent = [r["sent"] for r in results]
    assert all("error" not in r for r in results) and offsets[0] == 0.0 < offsets[1]
    # none before its turn, though six workers could have sent them all at once (as the stand-in did)
    assert all(s >= o for s, o in zip(sent, offsets)), (sent, offsets)
    *at_once, _ = standin.send_all(url, [payload] * 6, workers=6)
    assert len(at_once) == 6 and all("error" not in r for r in at_once)


def test_the_client_stand_in_paces_by_its_request_rate(tmp_path, server):
    """Through the shim, as a script runs it: the line states the rate it was run at, and the client says how it
    sent the requests."""
    out = tmp_path / "out.jsonl"
    env = {**os.environ, "SWEEPGATE_REHEARSE_LOG": str(tmp_path / "calls.jsonl")}
    env.pop(standin.FAST_ENV, None)
    r = subprocess.run([*DIES_WITH_US, sys.executable, "-I", "-S", standin.__file__, "shim", "python3", "-m",
                        fields.SGLANG_CLIENT_MODULE, "--backend", "sglang", "--base-url", server, "--model", "m",
                        "--dataset-name", "random", "--num-prompts", "4", "--random-input-len", "8",
                        "--random-output-len", "2", "--request-rate", "50", "--output-file", str(out)],
                       env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    doc = json.loads(out.read_text())
    assert doc["request_rate"] == 50.0 and doc["completed"] == 4
    assert "sent at 50 requests/s (a Poisson process, --seed 1)" in r.stdout, r.stdout


def _vllm_bench(tmp_path, server: str, *argv: str) -> tuple[subprocess.CompletedProcess, dict]:
    env = {**os.environ, "SWEEPGATE_REHEARSE_LOG": str(tmp_path / "calls.jsonl")}
    env.pop(standin.FAST_ENV, None)
    r = subprocess.run([*DIES_WITH_US, sys.executable, "-I", "-S", standin.__file__, "shim", "vllm", "bench", "serve",
                        "--base-url", server, "--model", "m", "--num-prompts", "4", "--random-input-len", "8",
                        "--random-output-len", "2", "--max-concurrency", "4", "--save-result", "--result-dir",
                        str(tmp_path), "--result-filename", "r.json", *argv],
                       env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return r, json.loads((tmp_path / "r.json").read_text())


def test_vllm_bench_serve_s_stand_in_paces_by_its_request_rate_and_says_it(tmp_path, server):
    """`vllm bench serve --request-rate 50` wrote `request_rate: "inf"` and sent all at once: a rehearsal of a rate
    sweep stored every rate as one unlimited point. Now it sends at the rate (--burstiness 1: a Poisson process)
    and writes the rate and burstiness as vLLM does."""
    r, doc = _vllm_bench(tmp_path, server, "--request-rate", "50", "--seed", "3")
    assert (doc["request_rate"], doc["burstiness"], doc["completed"]) == (50.0, 1.0, 4)
    assert "sent at 50 requests/s (a Poisson process, --seed 3)" in r.stdout, r.stdout
    r, doc = _vllm_bench(tmp_path, server)
    assert (doc["request_rate"], doc["burstiness"]) == ("inf", 1.0) and "sent at" not in r.stdout


def test_burstiness_other_than_1_draws_gamma_gaps_of_the_same_mean():
    offsets = standin.send_offsets(4000, 4.0, seed=1, cap=None, burstiness=0.5)
    gaps = [b - a for a, b in zip(offsets, offsets[1:])]
    assert 0.9 / 4 < sum(gaps) / len(gaps) < 1.1 / 4
    assert offsets != standin.send_offsets(4000, 4.0, seed=1, cap=None)
