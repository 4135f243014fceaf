"""Contract: for every bucket kind of a real generated matrix, every row field reaches the job environment."""

from __future__ import annotations

import json

from conftest import CHANGELOG, FLEET_NVIDIA

from sweepgate.workflow import fanout
from sweepgate.core import fields
from sweepgate.core.load import Git
from sweepgate.core.select import Options, build_matrix
from test_matrix import MULTINODE, entry


EVAL_READY = """
dsr1-fp8-b300-vllm-8k1k:
  image: vllm/vllm-openai:v0.11.0
  model: deepseek-ai/DeepSeek-R1-0528
  model-prefix: dsr1
  runner: b300
  precision: fp8
  framework: vllm
  multinode: false
  scenarios:
    fixed-seq-len:
    - { isl: 8192, osl: 1024, search-space: [ { tp: 8, ep: 8, dp-attn: true, conc-list: [16, 32, 64] } ] }
"""


def test_every_bucket_kind_reaches_the_environment_contract(make_repo):
    repo = make_repo(files={"configs/nvidia-master.yaml": FLEET_NVIDIA + MULTINODE + EVAL_READY})
    base = repo.head()
    head = repo.commit_changelog(CHANGELOG + entry("dsr1-*", "kimik3-*"))
    matrix = build_matrix(Git(repo.path), base, head, Options(all_evals=False))
    # Every matrix bucket kind is present: single-node fixed-seq-len and agentic, multi-node
    # fixed-seq-len and agentic, and the four eval buckets.
    assert set(matrix["single_node"]) == {"1k1k", "8k1k", "agentic"}
    assert set(matrix["multi_node"]) == {"8k1k", "agentic"}
    for bucket in ("evals", "agentic_evals", "multinode_evals", "multinode_agentic_evals"):
        assert matrix[bucket], bucket
    kinds = fanout.rows_by_kind(matrix)
    assert all(kinds.values()), {k: len(v) for k, v in kinds.items()}
    for kind, rows in kinds.items():
        for row in rows:
            env = fanout.job_env(row, "runner_00", "results")
            for field, name in fields.ROW_ENV.items():
                if field not in row:
                    continue
                value = row[field]
                expected = " ".join(map(str, value)) if isinstance(value, list) else fields.env_value(value)
                assert env[name] == expected, (kind, field, env.get(name), value)
            backend = row.get(fields.KV_OFFLOAD_BACKEND) or {}
            assert env[fields.KV_OFFLOAD_BACKEND_ENV] == backend.get("name", "")
            assert env[fields.KV_OFFLOAD_BACKEND_VERSION_ENV] == backend.get("version", "")
            assert env[fields.RESULT_FILENAME_ENV] == fields.result_filename(row, "runner_00")
            for side in (fields.PREFILL, fields.DECODE):
                for key, value in (row.get(side) or {}).items():
                    name = f"{side.upper()}_{fields.ROW_ENV.get(key, key.upper().replace('-', '_'))}"
                    shown = json.loads(env[name]) if isinstance(value, list) else env[name]
                    assert shown == (value if isinstance(value, list) else fields.env_value(value))
    # Contract audit: "every row field reaches the script": a single-node row's disagg and runner
    # label reached no variable (the reference's DISAGG and RUNNER_TYPE).
    single = kinds[next(k for k in kinds if kinds[k] and fields.PREFILL not in kinds[k][0])][0]
    env = fanout.job_env(single, "runner_00", "results")
    assert env["DISAGG"] == fields.env_value(single[fields.DISAGG]) and env["RUNNER_TYPE"] == single[fields.RUNNER]
    # Result filenames are unique per job across the whole sweep.
    names = [fields.result_filename(r, "runner_00") for rows in kinds.values() for r in rows]
    assert len(names) == len(set(names))


def test_eval_rows_of_keys_that_differ_only_in_image_get_distinct_result_names(make_repo):
    """Eval rows carry no recipe fingerprint: their names (and the bmk_ artifacts named after
    them) collided as '..._nofp' when two config keys differed only in image."""
    twin = EVAL_READY.replace("dsr1-fp8-b300-vllm-8k1k:", "dsr1-fp8-b300-vllm-8k1k-next:").replace(
        "v0.11.0", "v0.12.0")
    repo = make_repo(files={"configs/nvidia-master.yaml": FLEET_NVIDIA + EVAL_READY + twin})
    base = repo.head()
    head = repo.commit_changelog(CHANGELOG + entry("dsr1-fp8-b300-vllm-8k1k", "dsr1-fp8-b300-vllm-8k1k-next"))
    matrix = build_matrix(Git(repo.path), base, head, Options(all_evals=True))
    evals = matrix["evals"]
    assert len({row["image"] for row in evals}) == 2 and not any(fields.RECIPE_FINGERPRINT in r for r in evals)
    names = [fields.result_filename(row, "b300-nv_0") for row in evals]
    assert len(set(names)) == len(names) == len(evals)
    assert len({n.rsplit("_", 1)[0] for n in names}) < len(names)  # without the digest they collide
    assert fields.result_filename(evals[0], "b300-nv_0") == fields.result_filename(dict(evals[0]), "b300-nv_0")


def test_job_env_carries_the_runners_hardware_facts_and_the_backends_settings():
    from sweepgate.core.jobenv import job_env

    runners = {"labels": {"cluster:b300-nv": ["b300-nv_00"]},
               "hardware": {"cluster:b300-nv": {"available-cpu-dram-mib": 1, "gpus-per-node": 8,
                                                "accelerator-runtime": "cuda",
                                                "rdma-devices": ["mlx5_0", "mlx5_1"]}}}
    row = {"exp-name": "x", "precision": "fp4", "framework": "vllm", "image": "i", "runner": "cluster:b300-nv",
           "conc": 4, "kv-offload-backend": {"name": "lmcache", "version": "1",
                                             "settings": {"max-workers": 8, "separate-object-groups": True}}}
    env = job_env(row, "b300-nv_00", "results", runners=runners)
    assert env["SWEEPGATE_ACCELERATOR_RUNTIME"] == "cuda"
    assert env["SWEEPGATE_RDMA_DEVICES"] == "mlx5_0,mlx5_1"
    assert env["LMCACHE_MAX_WORKERS"] == "8" and env["LMCACHE_SEPARATE_OBJECT_GROUPS"] == "true"
    assert "LMCACHE_L1_READ_TTL_SECONDS" not in env
    bare = job_env({**row, "runner": "elsewhere"}, "r_00", "results", runners=runners)
    assert "SWEEPGATE_ACCELERATOR_RUNTIME" not in bare


def test_a_configs_server_ready_timeout_reaches_its_rows_and_their_job_env_only_when_set():
    from sweepgate.core.expand import expand_config
    from sweepgate.core.jobenv import job_env

    config = {"image": "vllm/vllm-openai:v0.11.0", "model": "m/m", "model-prefix": "m", "precision": "fp8",
              "framework": "vllm", "runner": "cluster:b300-nv", "multinode": False,
              "scenarios": {"fixed-seq-len": [{"isl": 1024, "osl": 1024, "search-space": [{"tp": 8, "conc-list": [4]}]}]}}
    runners = {"labels": {"cluster:b300-nv": ["b300-nv_00"]}}
    (plain,) = list(expand_config("k", config, runners))
    (slow,) = list(expand_config("k", {**config, "server-ready-timeout": 5400}, runners))
    assert "server-ready-timeout" not in plain and slow["server-ready-timeout"] == 5400
    assert "SERVER_READY_TIMEOUT" not in job_env(plain, "b300-nv_00", "r")
    assert job_env(slow, "b300-nv_00", "r")["SERVER_READY_TIMEOUT"] == "5400"
