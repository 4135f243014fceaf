"""core.placement: node arithmetic of multi-node rows, and the check that refuses what a pool cannot hold."""

from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import ROOT
from sweepgate.core.placement import PlacementError, place, place_row

B300 = {"gpus-per-node": 8, "available-cpu-dram-mib": 1, "scale-up-gpus": 8}
NARROW = {"gpus-per-node": 4, "available-cpu-dram-mib": 1, "scale-up-gpus": 4}


def worker(n, tp, ep=1, dpa=False, pp=1):
    return {"num-worker": n, "tp": tp, "ep": ep, "dp-attn": dpa, "pp": pp}


@pytest.mark.parametrize("prefill,decode,facts,nodes,per", [
    (worker(2, 8), worker(4, 8), B300, 6, (1, 1)),
    (worker(1, 8, 8, True), worker(1, 16, 16, True), NARROW, 6, (2, 4)),
    (worker(1, 4), worker(2, 2), B300, 3, (1, 1)),
    (worker(0, 8), worker(1, 8), B300, 1, (0, 1)),
    (worker(1, 8, pp=2), worker(1, 8), {"gpus-per-node": 8}, 3, (2, 1)),
])
def test_nodes_from_workers_tp_and_node_size(prefill, decode, facts, nodes, per):
    placement = place(prefill, decode, facts)
    assert placement.nodes == placement.tasks == nodes
    assert (placement.prefill_nodes_per_worker, placement.decode_nodes_per_worker) == per
    assert placement.env()["SWEEPGATE_GPUS_PER_NODE"] == str(facts["gpus-per-node"])


@pytest.mark.parametrize("prefill,decode,facts,words", [
    (worker(2, 8), worker(4, 8), NARROW, "scale-up-gpus=4"),
    (worker(1, 12), worker(1, 8), B300, "whole 8-GPU nodes"),
    (worker(1, 3), worker(1, 8), B300, "does not divide"),
    (worker(1, 8, ep=12), worker(1, 8), B300, "max(tp*pp*pcp, ep)=12"),
    (worker(4, 8), worker(4, 8), {**B300, "nodes": 6}, "needs 8 nodes"),
    (worker(0, 8), worker(0, 8), B300, "num-worker 0"),
    (worker(1, 8), worker(1, 8), {}, "gpus-per-node"),
])
def test_what_cannot_be_placed_is_refused(prefill, decode, facts, words):
    with pytest.raises(PlacementError) as info:
        place(prefill, decode, facts)
    assert words in info.value.message


def test_a_runner_name_finds_its_label_facts():
    runners = {"labels": {"cluster:b300-nv": ["b300-nv_00"]}, "hardware": {"cluster:b300-nv": B300}}
    row = {"runner": "b300-nv_00", "prefill": worker(2, 8), "decode": worker(4, 8)}
    assert place_row(row, runners).nodes == 6


MULTINODE = """\
mn-b300:
  image: lmsysorg/sglang:v0.5.6
  model: deepseek-ai/DeepSeek-R1-0528
  model-prefix: dsr1
  runner: cluster:pool
  precision: fp4
  framework: sglang-disagg
  multinode: true
  disagg: true
  kv-p2p-transfer: nixl
  scenarios:
    fixed-seq-len:
    - isl: 1024
      osl: 1024
      search-space:
      - prefill: { num-worker: 2, tp: 8, ep: 1, dp-attn: false }
        decode: { num-worker: 4, tp: 8, ep: 1, dp-attn: false }
        conc-list: [64]
"""


def sweep(tmp_path, gpus_per_node):
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "nvidia-master.yaml").write_text(MULTINODE)
    (tmp_path / "configs" / "runners.yaml").write_text(
        "labels:\n  cluster:pool: [pool_00]\nhardware:\n  cluster:pool:\n"
        f"    available-cpu-dram-mib: 1000\n    gpus-per-node: {gpus_per_node}\n"
        f"    scale-up-gpus: {gpus_per_node}\n")
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    env = {"PYTHONPATH": str(ROOT / "utils"), "PATH": "/usr/bin:/bin", "SWEEPGATE_NO_CACHE": "1"}
    return subprocess.run([sys.executable, "-m", "sweepgate", "full-sweep", "--config-files",
                           "configs/nvidia-master.yaml"], cwd=tmp_path, env=env, capture_output=True, text=True)


def test_the_check_refuses_the_row_on_a_4_gpu_pool_at_the_worker_line(tmp_path):
    proc = sweep(tmp_path, 4)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.splitlines() == [
        "configs/nvidia-master.yaml:16:9: mn-b300: cannot be placed on 'cluster:pool': prefill worker tp=8 "
        "spans 2 nodes, but a tensor-parallel group must stay within scale-up-gpus=4; use tp <= 4, "
        "or dp-attn with ep for wide expert parallelism"]


def test_the_same_row_on_an_8_gpu_pool_passes(tmp_path):
    proc = sweep(tmp_path, 8)
    assert proc.returncode == 0, proc.stderr
