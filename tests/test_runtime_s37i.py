"""A row whose KV-offload arm installs its backend (LMCache, Mooncake) needs the runner's
accelerator-runtime, by which the arm picks the build (benchmarks/lib/kv_offload_arms.sh). New user s37i:
on the corpus's runners file, which states none, `plan` said nothing and `ci row-env` exported no
SWEEPGATE_ACCELERATOR_RUNTIME and exited 0; only the arm stopped, on the GPU runner, once the job had
started. `plan` now warns at the label's entry in the head's runners file (the approved commit's, which
`ci row-env` reads), and `ci row-env` refuses the job there, writing nothing."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys

from test_plan import LMCACHE, RUNNERS, entry, fleet, kimi, make, nvidia_master, rules  # noqa: F401

UTILS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "utils")


def _runners(runtime: str | None) -> dict:
    runners = copy.deepcopy(RUNNERS)
    if runtime:
        runners["hardware"]["cluster:b300-nv"]["accelerator-runtime"] = runtime
    return runners


def _lmcache_plan(fleet, backend="lmcache", runtime=None):  # noqa: F811
    master = nvidia_master(fleet)
    master[LMCACHE] = kimi(backend)
    return make(fleet, {"configs/nvidia-master.yaml": master, "configs/runners.yaml": _runners(runtime),
                        "perf-changelog.yaml": fleet.append_changelog(entry(LMCACHE, pr=7))})


def _line_of(fleet, text: str) -> int:  # noqa: F811
    lines = (fleet.root / "configs/runners.yaml").read_text().splitlines()
    return next(i for i, line in enumerate(lines, 1) if line.strip() == text)


def test_plan_warns_at_the_label_s_hardware_entry_when_an_installed_backend_has_no_runtime(fleet):  # noqa: F811
    p = _lmcache_plan(fleet)
    (w,) = rules(p, "no-accelerator-runtime")
    assert w["severity"] == "warning" and w["file"] == "configs/runners.yaml", w
    hardware_line = [i for i, line in enumerate((fleet.root / "configs/runners.yaml").read_text().splitlines(), 1)
                     if line.strip() == "cluster:b300-nv:"][-1]  # the second one: under hardware
    assert w["line"] == hardware_line, w
    assert "'cluster:b300-nv' runs rows whose KV-offload arm installs lmcache" in w["message"], w
    assert w["hint"].startswith("add accelerator-runtime (cuda or rocm) under hardware['cluster:b300-nv'] "
                                "in configs/runners.yaml in this change"), w


def test_plan_is_quiet_with_the_runtime_stated_or_a_backend_it_does_not_install(fleet):  # noqa: F811
    assert rules(_lmcache_plan(fleet, runtime="cuda"), "no-accelerator-runtime") == []
    fleet.git("reset", "-q", "--hard", fleet.base)
    assert rules(_lmcache_plan(fleet, backend="vllm-simple"), "no-accelerator-runtime") == []


def _row_env(fleet, runtime, tmp_path):  # noqa: F811
    fleet.commit({"configs/runners.yaml": _runners(runtime)}, "runners")
    row = {"exp-name": "kimik3_tp8_conc4", "precision": "fp4", "framework": "vllm", "image": "vllm/vllm-openai:x",
           "model": "moonshotai/Kimi-K3", "runner": "cluster:b300-nv", "conc": 4, "tp": 8,
           "kv-offloading": "dram", "kv-offload-backend": {"name": "lmcache", "version": "0.5.4rc2"}}
    out = tmp_path / "env.out"
    env = {**os.environ, "PYTHONPATH": UTILS, "GITHUB_ACTIONS": "true"}
    r = subprocess.run([sys.executable, "-m", "sweepgate", "ci", "row-env", "--row", json.dumps(row),
                        "--runner-name", "b300-nv_1", "--output", str(out)],
                       cwd=fleet.root / "configs", env=env, capture_output=True, text=True, timeout=120)
    return r, out


def test_row_env_refuses_a_row_installing_a_backend_on_a_runner_without_a_runtime(fleet, tmp_path):  # noqa: F811
    r, out = _row_env(fleet, None, tmp_path)
    line = [i for i, text in enumerate((fleet.root / "configs/runners.yaml").read_text().splitlines(), 1)
            if text.strip() == "cluster:b300-nv:"][-1]
    assert r.returncode == 1, (r.returncode, r.stderr)
    # from the top, as every command names the repository's files (it said runners.yaml:… in configs/, s38m)
    assert r.stderr.startswith(f"configs/runners.yaml:{line}:3: the row's KV-offload arm installs lmcache"), r.stderr
    assert "add accelerator-runtime (cuda or rocm) under hardware['cluster:b300-nv']" in r.stderr, r.stderr
    assert f"::error file=configs/runners.yaml,line={line}::" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr and not out.exists()


def test_row_env_exports_the_runtime_where_the_runner_states_it(fleet, tmp_path):  # noqa: F811
    r, out = _row_env(fleet, "rocm", tmp_path)
    assert r.returncode == 0, r.stderr
    assert "SWEEPGATE_ACCELERATOR_RUNTIME=rocm\n" in out.read_text()


def test_the_runtime_fact_a_fix_names_lists_the_schema_s_values():
    """The fix's "accelerator-runtime (cuda or rocm)" (fields.RUNTIME_FACT) names every value the runners schema
    takes there, and only those."""
    import re
    from pathlib import Path

    from sweepgate.core import fields

    schema = json.loads((Path(fields.__file__).parent.parent / "schemas" / "runners.schema.json").read_text())
    found = []

    def walk(node):
        if isinstance(node, dict):
            if fields.ACCELERATOR_RUNTIME in node and isinstance(node[fields.ACCELERATOR_RUNTIME], dict):
                found.append(node[fields.ACCELERATOR_RUNTIME].get("enum"))
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(schema)
    (values,) = [v for v in found if v]
    assert sorted(re.findall(r"\w+", fields.RUNTIME_FACT.split("(", 1)[1])) == sorted(values + ["or"])


def test_a_label_the_runners_file_does_not_list_is_one_warning_unknown_runner(fleet):  # noqa: F811
    """Review s38m: an LMCache row on a label missing from configs/runners.yaml drew both `unknown-runner`
    and `no-accelerator-runtime`; the second follows from the first (a listed label is the fix), so only
    the first is given."""
    master = nvidia_master(fleet)
    master[LMCACHE] = dict(kimi("lmcache"), runner="cluster:b300-nvx")
    runners = _runners(None)  # its hardware facts are there (the rows expand); its labels entry is not
    runners["hardware"]["cluster:b300-nvx"] = runners["hardware"]["cluster:b300-nv"]
    p = make(fleet, {"configs/nvidia-master.yaml": master, "configs/runners.yaml": runners,
                     "perf-changelog.yaml": fleet.append_changelog(entry(LMCACHE, pr=7))})
    assert [w["rule"] for w in p["warnings"] if w["severity"] != "info"] == ["unknown-runner"], p["warnings"]
