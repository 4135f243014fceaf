"""`sweepgate plan`: cost, semantic diff and its rules, on real temporary git repositories."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "utils"))

from sweepgate import cli  # noqa: E402
from sweepgate.commands import plan as plan_command  # noqa: E402
from sweepgate.core import github, plan, recipes  # noqa: E402
from sweepgate.core import fields as F  # noqa: E402
from sweepgate.core.errors import SweepgateError  # noqa: E402
from sweepgate.core.load import Git  # noqa: E402
from sweepgate.core.select import Options  # noqa: E402

LMCACHE = "kimik3-fp4-b300-vllm-agentic-dspark-lmcache"
DSPARK = "kimik3-fp4-b300-vllm-agentic-dspark"
DSR1 = "dsr1-fp8-b300-vllm"
DSR1_MI = "dsr1-fp8-mi355x-vllm"
KIMI_SCRIPT = "benchmarks/single_node/agentic/kimik3_fp4_b300_vllm_mtp.sh"
DSR1_SCRIPT = "benchmarks/single_node/fixed_seq_len/dsr1_fp8_b300_vllm.sh"
DSR1_MI_SCRIPT = "benchmarks/single_node/fixed_seq_len/dsr1_fp8_mi355x.sh"  # generic (no framework) name
MN_SCRIPT = "benchmarks/multi_node/fixed_seq_len/dsr1_fp4_gb200_dynamo-trt.sh"  # not in base_fleet

RUNNERS = {
    "labels": {
        "cluster:b300-nv": ["b300-nv_0", "b300-nv_1"],
        "mi355x-amds": ["mi355x-amds_0"],
        "cluster:gb200-nv": ["gb200-nv_0"],
    },
    "hardware": {
        "cluster:b300-nv": {"gpus-per-node": 8, "available-cpu-dram-mib": 3_000_000},
        "mi355x-amds": {"gpus-per-node": 8, "available-cpu-dram-mib": 2_000_000},
        "cluster:gb200-nv": {"gpus-per-node": 4, "available-cpu-dram-mib": 800_000},
    },
}

IMAGE = "vllm/vllm-openai:nightly-abc123"


def kimi(backend: str | None = None, concs=(4, 8, 10, 16)) -> dict:
    point = {"tp": 8, "ep": 1, "spec-decoding": "mtp", "conc-list": list(concs)}
    if backend:
        point.update({"kv-offloading": "dram", "kv-offload-backend": {"name": backend, "version": "0.5.4rc2"}})
    else:
        point["kv-offloading"] = "none"
    block = {"search-space": [point]}
    if backend:
        block = {"dram-utilization": 0.8, **block}
    return {"image": IMAGE, "model": "moonshotai/Kimi-K3", "model-prefix": "kimik3", "precision": "fp4",
            "framework": "vllm", "runner": "cluster:b300-nv", "multinode": False,
            "scenarios": {"agentic-coding": [block]}}


def dsr1(runner="cluster:b300-nv", search=None) -> dict:
    search = search or [{"tp": 8, "conc-start": 4, "conc-end": 16}, {"tp": 4, "conc-list": [32, 64]}]
    return {"image": IMAGE, "model": "deepseek-ai/DeepSeek-R1-0528", "model-prefix": "dsr1", "precision": "fp8",
            "framework": "vllm", "runner": runner, "multinode": False,
            "scenarios": {"fixed-seq-len": [{"isl": 1024, "osl": 1024, "search-space": copy.deepcopy(search)},
                                            {"isl": 8192, "osl": 1024, "search-space": copy.deepcopy(search)}]}}


def multinode() -> dict:
    worker = {"num-worker": 2, "tp": 4, "ep": 4, "dp-attn": True}
    return {"image": "nvcr.io/nvidia/dynamo:0.4", "model": "deepseek-ai/DeepSeek-R1", "model-prefix": "dsr1",
            "precision": "fp4", "framework": "dynamo-trt", "runner": "cluster:gb200-nv", "multinode": True,
            "disagg": True, "kv-p2p-transfer": "nixl",
            "scenarios": {"fixed-seq-len": [{"isl": 8192, "osl": 1024, "search-space": [
                {"prefill": dict(worker, **{"num-worker": 1}), "decode": worker, "conc-list": [64, 128]}]}]}}


def entry(*keys, pr=1, **extra) -> dict:
    return {"config-keys": list(keys), "description": [f"change {', '.join(keys)}"],
            "pr-link": f"https://github.com/acme/bench/pull/{pr}", **extra}


def base_fleet() -> dict:
    """path -> content (str, or a dict/list dumped as YAML)."""
    return {
        "configs/nvidia-master.yaml": {DSPARK: kimi(), DSR1: dsr1()},
        "configs/amd-master.yaml": {DSR1_MI: dsr1("mi355x-amds")},
        "configs/gb200-master.yaml": {"dsr1-fp4-gb200-dynamo-trt": multinode()},
        "configs/runners.yaml": RUNNERS,
        "perf-changelog.yaml": [entry(DSPARK, DSR1, DSR1_MI, "dsr1-fp4-gb200-dynamo-trt", pr=0)],
        "benchmarks/benchmark_lib.sh": "#!/usr/bin/env bash\nwait_for_ready() { :; }\n",
        KIMI_SCRIPT: "#!/usr/bin/env bash\nsource benchmarks/benchmark_lib.sh\nvllm serve kimi\n",
        DSR1_SCRIPT: "#!/usr/bin/env bash\nsource benchmarks/benchmark_lib.sh\nvllm serve dsr1\n",
        DSR1_MI_SCRIPT: "#!/usr/bin/env bash\nsource benchmarks/benchmark_lib.sh\nvllm serve dsr1 --rocm\n",
    }


class Repo:
    """A temporary git repository with a base and a head commit."""

    def __init__(self, root: Path):
        self.root = root
        self.git("init", "-q", "-b", "main")

    def git(self, *args: str) -> str:
        env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
               "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
        return subprocess.run(["git", "-C", str(self.root), *args], check=True, capture_output=True,
                              text=True, env=env).stdout.strip()

    def write(self, files: dict) -> None:
        for path, content in files.items():
            target = self.root / path
            if content is None:
                if target.exists():
                    target.unlink()
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            if not isinstance(content, str):
                content = yaml.safe_dump(content, sort_keys=False, width=120)
            target.write_text(content)

    def commit(self, files: dict, message: str) -> str:
        self.write(files)
        self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "-m", message)
        return self.git("rev-parse", "HEAD")

    def append_changelog(self, *entries) -> str:
        text = (self.root / "perf-changelog.yaml").read_text()
        return text + yaml.safe_dump(list(entries), sort_keys=False, width=200)


@pytest.fixture
def fleet(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    r = Repo(root)
    r.base = r.commit(base_fleet(), "base")
    return r


def make(r: Repo, head_files: dict, **opts) -> dict:
    head = r.commit(head_files, "head")
    return plan.make_plan(Git(r.root), r.base, head, Options(**opts))


def rules(p: dict, rule: str) -> list[dict]:
    return [w for w in p["warnings"] if w["rule"] == rule]


def nvidia_master(r: Repo) -> dict:
    return yaml.safe_load((r.root / "configs/nvidia-master.yaml").read_text())


# --------------------------------------------------------------------------- pure helpers

@pytest.mark.parametrize("label, family", [("cluster:b300-nv", "b300"), ("mi355x-amds", "mi355x"),
                                           ("b200", "b200"), ("cluster:gb200-nv-dgx", "gb200")])
def test_gpu_family(label, family):
    assert recipes.gpu_family(label) == family


def test_script_candidates_follow_contract_section_7():
    row = {F.MODEL_PREFIX: "kimik3", F.PRECISION: "fp4", F.FRAMEWORK: "vllm", F.RUNNER: "cluster:b300-nv",
           F.SPEC_DECODING: "mtp", F.SCENARIO_TYPE: F.AGENTIC_CODING, F.TP: 8}
    assert recipes.script_candidates(row) == [
        "benchmarks/single_node/agentic/kimik3_fp4_b300_vllm_mtp.sh",
        "benchmarks/single_node/agentic/kimik3_fp4_b300_mtp.sh"]
    fixed = {**row, F.SPEC_DECODING: "none", F.RUNNER: "mi355x-amds"}
    del fixed[F.SCENARIO_TYPE]
    assert recipes.script_candidates(fixed) == [
        "benchmarks/single_node/fixed_seq_len/kimik3_fp4_mi355x_vllm.sh",
        "benchmarks/single_node/fixed_seq_len/kimik3_fp4_mi355x.sh"]
    # Multi-node rows: the same names under benchmarks/multi_node/ (README, "Multi-node rows").
    assert recipes.script_candidates({**row, F.PREFILL: {"tp": 4}, F.DECODE: {"tp": 4}}) == [
        "benchmarks/multi_node/agentic/kimik3_fp4_b300_vllm_mtp.sh",
        "benchmarks/multi_node/agentic/kimik3_fp4_b300_mtp.sh"]


def test_row_gpus_single_and_multi_node():
    assert F.row_gpus({F.TP: 8, F.PP: 2, F.PCP_SIZE: 1}) == 16
    w = {F.NUM_WORKER: 2, F.TP: 4, F.PP: 1, F.PCP_SIZE: 2}
    assert F.row_gpus({F.PREFILL: {**w, F.NUM_WORKER: 1}, F.DECODE: w}) == 8 + 16


def test_changed_paths_names_fields():
    a = kimi("lmcache")
    b = copy.deepcopy(a)
    b["scenarios"]["agentic-coding"][0]["search-space"][0]["conc-list"] = [4, 8]
    b["image"] = "other"
    paths = [recipes.path_text(p) for p in recipes.changed_paths(a, b)]
    assert paths == ["image", "scenarios.agentic-coding[0].search-space[0].conc-list"]
    assert recipes.changed_paths(a, copy.deepcopy(a)) == []
    assert recipes.changed_paths({"x": 1}, {"x": True}) == [("x",)]


def test_estimates_file_is_validated_with_its_line():
    minutes, source = plan.load_estimates(b"minutes-per-job:\n  default: 10\n  8k1k: 50\n")
    assert source == plan.ESTIMATES_FILE and minutes["8k1k"] == 50 and minutes["default"] == 10
    with pytest.raises(SweepgateError) as exc:
        plan.load_estimates(b"minutes-per-job:\n  default: 10\n  8k1k: fast\n")
    (d,) = exc.value.diagnostics
    assert (d.file, d.line, d.rule) == (plan.ESTIMATES_FILE, 3, "estimates")
    assert plan.load_estimates(None)[1] == "built-in defaults"
    # the repository's own estimates file is valid
    plan.load_estimates((ROOT / plan.ESTIMATES_FILE).read_bytes())


def test_a_repository_without_estimates_is_charged_the_shipped_file(fleet):
    """Review: the built-in defaults lacked the example's multi_node/1k1k (30) and multi_node/8k1k (45),
    so a repository without configs/estimates.yaml charged a multi-node job 20 or 30 minutes. The
    defaults are the shipped file itself: one place, and what a repository without the file gets."""
    shipped = yaml.safe_load((ROOT / plan.ESTIMATES_FILE).read_text())["minutes-per-job"]
    assert plan.load_estimates(None)[0] == {k: float(v) for k, v in shipped.items()}
    # a repository's file lists what it changes: its 8k1k is every 8k1k job's, multi-node too
    over = {k: float(v) for k, v in shipped.items() if k != "multi_node/8k1k"}
    assert plan.load_estimates(b"minutes-per-job: {8k1k: 50}\n")[0] == {**over, "8k1k": 50.0}
    assert not (fleet.root / plan.ESTIMATES_FILE).exists()
    p = make(fleet, {"perf-changelog.yaml": fleet.append_changelog(entry("dsr1-fp4-gb200-dynamo-trt"))})
    assert p["estimates"] == {"source": "built-in defaults", "minutes_per_job": plan.load_estimates(None)[0]}
    # 1x4 prefill + 2x4 decode on 4-GPU nodes: 3 whole nodes, 12 GPUs, for the shipped 45 minutes
    assert p["by_bucket"]["multi_node/8k1k"]["gpu_hours"] == pytest.approx(12 * shipped["multi_node/8k1k"] / 60)
    assert shipped["multi_node/8k1k"] == 45


def test_a_shipped_default_that_cannot_be_read_is_one_line(tmp_path, monkeypatch):
    """Diff review: an example fleet found without its estimates.yaml (an old install's files beside
    a new one's) ended `plan` in a traceback."""
    from sweepgate.core import fleet as fleet_mod
    from sweepgate.core.errors import SweepgateError

    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "runners.yaml").write_text("{}\n")
    monkeypatch.setattr(fleet_mod, "fleet_root", lambda: str(tmp_path))
    with pytest.raises(SweepgateError) as exc:
        fleet_mod.fleet_bytes(plan.ESTIMATES_FILE)
    (d,) = exc.value.diagnostics
    assert d.render().startswith(f"{tmp_path / plan.ESTIMATES_FILE}: the example fleet's {plan.ESTIMATES_FILE} "
                                 "cannot be read: No such file or directory; reinstall sweepgate"), d.render()


# --------------------------------------------------------------------------- acceptance: the seed-like change

def test_seed_like_scenario_4_jobs_32_gpu_hours(fleet):
    master = nvidia_master(fleet)
    master[LMCACHE] = kimi("lmcache")
    p = make(fleet, {"configs/nvidia-master.yaml": master,
                     "perf-changelog.yaml": fleet.append_changelog(
                         entry(LMCACHE, pr=2597, **{"scenario-type": ["agentic-coding"]}))})
    assert p["jobs"] == 4
    assert p["gpu_hours"] == pytest.approx(32.0)
    assert p["gpu_hours_estimated"] == 0 and p["estimated"] is False
    b300 = p["by_runner"]["cluster:b300-nv"]
    assert (b300["jobs"], b300["gpu_hours"], b300["estimated"]) == (4, 32.0, False)
    assert list(p["by_runner"]) == ["cluster:b300-nv"]
    # the agentic eval row is its own (estimated) job, outside the 4 benchmark jobs
    assert p["eval_jobs"] == 1 and p["total_jobs"] == 5
    assert p["eval_gpu_hours"] == pytest.approx(60 / 60 * 8)  # configs-less repo: built-in 60 min
    assert p["diff"]["new"] == [LMCACHE]
    assert p["diff"]["changed"] == [] and DSPARK in p["diff"]["unchanged"]
    # this fleet's b300 states no accelerator-runtime, by which the LMCache arm picks its build: the one
    # warning is that (`ci row-env` would refuse the jobs; test_runtime_s37i.py)
    assert [w["rule"] for w in p["warnings"] if w["severity"] != "info"] == ["no-accelerator-runtime"]
    rows = p["matrix"]["single_node"]["agentic"]
    assert [r["conc"] for r in rows] == [4, 8, 10, 16]
    json.dumps(p)  # JSON-serialisable


def plan_of_lmcache_key(fleet, monkeypatch, capsys, pr: int, **kimi_args) -> tuple[dict, str]:
    """`sweepgate plan --json` (exit 0) of a head that adds the LMCache key (``kimi("lmcache", ...)``)
    and an entry naming it, run from the fleet's top outside Actions: (its output, the head)."""
    master = nvidia_master(fleet)
    master[LMCACHE] = kimi("lmcache", **kimi_args)
    head = fleet.commit({"configs/nvidia-master.yaml": master,
                         "perf-changelog.yaml": fleet.append_changelog(entry(LMCACHE, pr=pr))}, "head")
    monkeypatch.chdir(fleet.root)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    assert cli.main(["plan", "--base-ref", fleet.base, "--head-ref", head, "--json"]) == 0
    return json.loads(capsys.readouterr().out), head


def test_seed_like_scenario_through_the_cli(fleet, monkeypatch, capsys):
    out, head = plan_of_lmcache_key(fleet, monkeypatch, capsys, 2597)
    assert out["jobs"] == 4 and out["by_runner"]["cluster:b300-nv"]["gpu_hours"] == 32.0
    assert set(out["matrix"]) >= {"single_node", "multi_node", "evals", "agentic_evals", "changelog_metadata"}
    for w in out["warnings"]:
        assert {"rule", "file", "line", "message"} <= set(w)
    # --trim-conc plans the trimmed sweep
    assert cli.main(["plan", "--base-ref", fleet.base, "--head-ref", head, "--json", "--trim-conc"]) == 0
    trimmed = json.loads(capsys.readouterr().out)
    assert trimmed["jobs"] == 1 and trimmed["gpu_hours"] == 8.0
    # markdown, and the step summary file
    summary = fleet.root.parent / "summary.md"
    assert cli.main(["plan", "--base-ref", fleet.base, "--head-ref", head, "--markdown",
                     "--step-summary", str(summary)]) == 0
    md = capsys.readouterr().out
    assert "4 benchmark jobs, 32.0 GPU-hours" in md
    assert "| cluster:b300-nv | 4 | 32.0 |" in md
    assert f"`{LMCACHE}`" in md and "kimik3_tp8_conc10_kvdram-lmcache_spec-mtp" in md
    assert summary.read_text() == md


def test_fixed_seq_len_rows_are_estimated_per_bucket(fleet):
    fleet.write({"configs/estimates.yaml": {"minutes-per-job": {"default": 10, "1k1k": 6, "8k1k": 12,
                                                                 "multi_node/8k1k": 30, "evals": 60}}})
    p = make(fleet, {"perf-changelog.yaml": fleet.append_changelog(
        entry(DSR1, "dsr1-fp4-gb200-dynamo-trt"))})
    # dsr1: per seq-len conc 4,8,16 at tp8 + 32,64 at tp4 -> 5 rows; 1k1k and 8k1k. Each job holds
    # its whole 8-GPU node (salloc --exclusive): a tp4 job costs 8 GPUs too (review: it was 4)
    sn = p["by_bucket"]
    assert sn["single_node/1k1k"]["jobs"] == 5
    assert sn["single_node/1k1k"]["gpu_hours"] == pytest.approx(5 * 8 * 6 / 60)
    assert sn["single_node/8k1k"]["gpu_hours"] == pytest.approx(5 * 8 * 12 / 60)
    # multi-node: 1x4 prefill + 2x4 decode = 12 GPUs, one job for the conc list
    assert sn["multi_node/8k1k"]["jobs"] == 1
    assert sn["multi_node/8k1k"]["gpu_hours"] == pytest.approx(12 * 30 / 60)
    assert p["by_runner"]["cluster:gb200-nv"]["estimated"] is True
    assert p["gpu_hours_estimated"] == p["gpu_hours"]
    assert p["estimates"]["source"] == plan.ESTIMATES_FILE
    from sweepgate.core import report

    # all of it estimated: said once, not as the same figure twice
    text = report.plan_text(p)
    assert "(all estimated)" in text.splitlines()[0]
    assert f"{p['gpu_hours']:,.1f} estimated" not in text
    partly = {**p, "gpu_hours": p["gpu_hours"] + 2.0}
    assert f"(of which {p['gpu_hours']:,.1f} estimated)" in report.plan_text(partly).splitlines()[0]
    # evals: 8k1k rows at conc >= 16 -> highest and median of the tp group
    assert p["eval_jobs"] >= 1
    assert p["eval_gpu_hours"] > 0


# --------------------------------------------------------------------------- no entry

def test_no_changelog_entry_plans_zero_jobs_but_still_diffs(fleet):
    master = nvidia_master(fleet)
    master[DSR1]["scenarios"]["fixed-seq-len"][0]["search-space"][0]["conc-end"] = 32
    p = make(fleet, {"configs/nvidia-master.yaml": master})
    assert p["jobs"] == 0 and p["gpu_hours"] == 0 and p["by_runner"] == {}
    assert p["matrix"]["changelog_metadata"]["entries"] == []
    assert [c["key"] for c in p["diff"]["changed"]] == [DSR1]
    assert rules(p, "unlisted-change")
    from sweepgate.core import report

    md = report.plan_markdown(p)
    assert "No jobs: the change appends no changelog entry." in md
    assert f"`{DSR1}`: fields `scenarios.fixed-seq-len[0].search-space[0].conc-end`" in md
    assert "| ⚠️ warning | unlisted-change | `configs/nvidia-master.yaml:" in md


def test_text_plan_names_new_and_removed_recipes(fleet, monkeypatch, capsys):
    """Review (corpus main-057): text said '1 new, 0 changed, 1 removed' and named neither, while
    --markdown named both; it names them as it names changed recipes."""
    master = nvidia_master(fleet)
    master[DSR1 + "-v2"] = master.pop(DSR1)
    master[DSR1 + "-v2"]["scenarios"]["fixed-seq-len"][0]["search-space"][0]["conc-end"] = 8
    monkeypatch.chdir(fleet.root)
    head = fleet.commit({"configs/nvidia-master.yaml": master,
                         "perf-changelog.yaml": fleet.append_changelog(entry(DSR1 + "-v2"))}, "rename")
    assert cli.main(["plan", "--base-ref", fleet.base, "--head-ref", head]) == 0
    lines = capsys.readouterr().out.splitlines()
    at = lines.index("recipes: 1 new, 0 changed, 1 removed, 3 unchanged")
    assert lines[at + 1:at + 3] == [f"  new {DSR1}-v2", f"  removed {DSR1}"]


def test_other_matrix_errors_propagate_with_exit_1(fleet, monkeypatch, capsys):
    head = fleet.commit({"perf-changelog.yaml": fleet.append_changelog(entry("no-such-key"))}, "head")
    with pytest.raises(SweepgateError) as exc:
        plan.make_plan(Git(fleet.root), fleet.base, head)
    assert exc.value.diagnostics[0].rule == "unknown-config-key"
    monkeypatch.chdir(fleet.root)
    assert cli.main(["plan", "--base-ref", fleet.base, "--head-ref", head, "--json"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "perf-changelog.yaml:" in captured.err and "no-such-key" in captured.err
    assert "Traceback" not in captured.err


def test_bad_ref_and_bad_estimates_are_diagnostics_not_tracebacks(fleet):
    env = {**os.environ, "PYTHONPATH": str(ROOT / "utils")}
    proc = subprocess.run([sys.executable, "-m", "sweepgate", "plan", "--base-ref", "nope", "--head-ref", "HEAD"],
                          cwd=fleet.root, capture_output=True, text=True, env=env)
    assert proc.returncode == 1 and "'nope' is not a commit" in proc.stderr and "Traceback" not in proc.stderr
    head = fleet.commit({"configs/estimates.yaml": "minutes-per-job: [1, 2]\n"}, "bad estimates")
    proc = subprocess.run([sys.executable, "-m", "sweepgate", "plan", "--base-ref", fleet.base, "--head-ref", head],
                          cwd=fleet.root, capture_output=True, text=True, env=env)
    assert proc.returncode == 1 and "configs/estimates.yaml:1" in proc.stderr and "Traceback" not in proc.stderr


# --------------------------------------------------------------------------- rule: rerun-unchanged

def test_rerun_unchanged(fleet):
    changelog = fleet.append_changelog(entry(DSPARK, pr=5))
    p = make(fleet, {"perf-changelog.yaml": changelog})
    assert p["jobs"] == 4
    (w,) = rules(p, "rerun-unchanged")
    assert w["severity"] == "info"
    assert w["file"] == "perf-changelog.yaml"
    # the line of the key inside the appended entry
    lines = changelog.splitlines()
    assert lines[w["line"] - 1].strip() == f"- {DSPARK}"
    assert DSPARK in w["message"] and KIMI_SCRIPT in w["message"]
    assert rules(p, "unlisted-change") == []


def test_rerun_is_not_reported_when_the_script_or_library_changed(fleet):
    p = make(fleet, {"perf-changelog.yaml": fleet.append_changelog(entry(DSPARK, pr=5)),
                     KIMI_SCRIPT: "#!/usr/bin/env bash\nvllm serve kimi --new-flag\n"})
    assert rules(p, "rerun-unchanged") == []
    (changed,) = p["diff"]["changed"]
    assert changed["key"] == DSPARK and changed["fields"] == []
    assert [s["path"] for s in changed["scripts"]] == [KIMI_SCRIPT]
    assert rules(p, "unlisted-change") == []


def test_rerun_of_an_untouched_scenario_is_reported(fleet):
    master = nvidia_master(fleet)
    master[DSR1]["scenarios"]["fixed-seq-len"][1]["search-space"][1]["conc-list"] = [32, 64, 128]
    master[DSR1]["scenarios"]["agentic-coding"] = [{"search-space": [
        {"tp": 8, "kv-offloading": "none", "conc-list": [4]}]}]
    fleet.write({"benchmarks/single_node/agentic/dsr1_fp8_b300_vllm.sh": "#!/usr/bin/env bash\n"})
    p = make(fleet, {"configs/nvidia-master.yaml": master,
                     "perf-changelog.yaml": fleet.append_changelog(entry(DSR1, pr=6))})
    assert [c["scenarios"] for c in p["diff"]["changed"]] == [["fixed-seq-len", "agentic-coding"]]
    assert rules(p, "rerun-unchanged") == []


# --------------------------------------------------------------------------- rule: unlisted-change (config)

def test_unlisted_change_for_an_edited_search_space_points_at_the_changed_line(fleet):
    """Review: the warning pointed at the config's key line, not at the line the change edits."""
    master = nvidia_master(fleet)
    master[DSR1]["scenarios"]["fixed-seq-len"][0]["search-space"][1]["conc-list"] = [32, 64, 128]
    master[LMCACHE] = kimi("lmcache")
    p = make(fleet, {"configs/nvidia-master.yaml": master,
                     "perf-changelog.yaml": fleet.append_changelog(entry(LMCACHE, pr=7))})
    (w,) = rules(p, "unlisted-change")
    assert w["severity"] == "warning"
    assert w["file"] == "configs/nvidia-master.yaml"
    text = (fleet.root / "configs/nvidia-master.yaml").read_text().splitlines()
    before = fleet.git("show", f"{fleet.base}:configs/nvidia-master.yaml").splitlines()
    key_line = next(i for i, line in enumerate(text, 1) if line.startswith(f"{DSR1}:"))
    first_changed = next(i for i, line in enumerate(text, 1) if i > len(before) or line != before[i - 1])
    assert key_line < first_changed == w["line"]
    assert "scenarios.fixed-seq-len[0].search-space[1].conc-list" in w["message"]
    changed = {c["key"]: c for c in p["diff"]["changed"]}
    assert changed[DSR1]["fields"] == ["scenarios.fixed-seq-len[0].search-space[1].conc-list"]


def test_unlisted_change_for_a_new_config_and_for_an_unselected_scenario(fleet):
    master = nvidia_master(fleet)
    master[LMCACHE] = kimi("lmcache")
    master[DSR1]["scenarios"]["fixed-seq-len"][0]["search-space"][0]["tp"] = 4
    p = make(fleet, {"configs/nvidia-master.yaml": master,
                     "perf-changelog.yaml": fleet.append_changelog(
                         entry(DSR1, pr=8, **{"scenario-type": ["agentic-coding"]}))})
    found = {w["message"].split("'")[1]: w for w in rules(p, "unlisted-change")}
    assert set(found) == {LMCACHE, DSR1}
    assert "new config" in found[LMCACHE]["message"]
    assert "for fixed-seq-len" in found[DSR1]["message"]


def test_listed_change_is_quiet(fleet):
    master = nvidia_master(fleet)
    master[DSR1]["scenarios"]["fixed-seq-len"][0]["search-space"][1]["conc-list"] = [32, 64, 128]
    p = make(fleet, {"configs/nvidia-master.yaml": master,
                     "perf-changelog.yaml": fleet.append_changelog(entry("dsr1-fp8-*", pr=9))})
    assert rules(p, "unlisted-change") == []
    # the wildcard also selects the unchanged MI355X key: that one is a rerun
    (rerun,) = rules(p, "rerun-unchanged")
    assert DSR1_MI in rerun["message"]


# --------------------------------------------------------------------------- rule: unlisted-change (script)

def test_unlisted_change_for_an_edited_benchmark_script(fleet):
    # a second key resolving to the same script
    master = nvidia_master(fleet)
    master["dsr1-fp8-b300-vllm-long"] = dsr1(search=[{"tp": 8, "conc-list": [256]}])
    fleet.commit({"configs/nvidia-master.yaml": master,
                  "perf-changelog.yaml": fleet.append_changelog(entry("dsr1-fp8-b300-vllm-long"))}, "second key")
    fleet.base = fleet.git("rev-parse", "HEAD")
    p = make(fleet, {DSR1_SCRIPT: "#!/usr/bin/env bash\nvllm serve dsr1 --max-num-seqs 512\n"})
    (w,) = rules(p, "unlisted-change")
    assert w["file"] == DSR1_SCRIPT and w["line"] in (0, 1)
    assert f"{DSR1}, dsr1-fp8-b300-vllm-long" in w["message"]
    assert DSR1_MI not in w["message"] and DSPARK not in w["message"]
    assert {c["key"] for c in p["diff"]["changed"]} == {DSR1, "dsr1-fp8-b300-vllm-long"}


def test_unlisted_change_for_runner_facts_launchers_and_multinode_helpers(fleet):
    """Review: a changed rdma-devices, launcher or multi-node helper (each changes the jobs, and the
    run identity reuse matches on) warned nothing in a PR with no changelog entry."""
    runners = {**RUNNERS, "hardware": {**RUNNERS["hardware"], "cluster:b300-nv": {
        **RUNNERS["hardware"]["cluster:b300-nv"], "rdma-devices": ["mlx5_0"]}}}
    # a job runs the multi-node helpers through its script (a job with none stops in its launcher)
    fleet.base = fleet.commit({MN_SCRIPT: "#!/usr/bin/env bash\nsource benchmarks/multi_node/disagg_lib.sh\n"}, "mn")
    p = make(fleet, {"configs/runners.yaml": runners,
                     "benchmarks/runners/launch_mi355x-amds.sh": "#!/usr/bin/env bash\necho changed\n",
                     "benchmarks/multi_node/disagg_lib.sh": "#!/usr/bin/env bash\necho changed\n"})
    by_file = {w["file"]: w["message"] for w in rules(p, "unlisted-change")}
    assert "hardware facts of runner 'cluster:b300-nv' changed" in by_file["configs/runners.yaml"]
    assert DSR1 in by_file["configs/runners.yaml"] and DSR1_MI not in by_file["configs/runners.yaml"]
    launcher = by_file["benchmarks/runners/launch_mi355x-amds.sh"]
    assert DSR1_MI in launcher and DSR1 + "," not in launcher
    assert "dsr1-fp4-gb200-dynamo-trt" in by_file["benchmarks/multi_node/disagg_lib.sh"]
    pool = {**runners, "hardware": {**runners["hardware"], "cluster:b300-nv": {
        **runners["hardware"]["cluster:b300-nv"], "nodes": 99}}}  # the pool's size reaches no row or job
    fleet.base = fleet.git("rev-parse", "HEAD")
    pooled = make(fleet, {"configs/runners.yaml": pool})
    assert rules(pooled, "unlisted-change") == [] and pooled["diff"]["changed"] == []  # diff reviews
    selected = make(fleet, {"benchmarks/runners/launch_mi355x-amds.sh": "#!/usr/bin/env bash\necho again\n",
                            "perf-changelog.yaml": fleet.append_changelog(entry(DSR1_MI, pr=12))})
    assert "benchmarks/runners/launch_mi355x-amds.sh" not in {w["file"] for w in rules(selected, "unlisted-change")}


def test_a_change_to_a_helper_a_script_sources_is_a_change_of_its_keys(fleet):
    """Diff review: the run identity hashed a helper the script sources, but the plan called its change
    "benchmark script ... changed but no config key resolves to it" and saw no changed key."""
    helper = "benchmarks/single_node/fixed_seq_len/b300_common.sh"
    sources = '#!/usr/bin/env bash\nsource "$(dirname "${BASH_SOURCE[0]}")/b300_common.sh"\nvllm serve dsr1\n'
    fleet.commit({DSR1_SCRIPT: sources, helper: "X=1\n"}, "helper")
    fleet.base = fleet.git("rev-parse", "HEAD")
    p = make(fleet, {helper: "X=2\n"})
    assert {c["key"] for c in p["diff"]["changed"]} == {DSR1}
    (w,) = rules(p, "unlisted-change")
    assert w["file"] == DSR1_SCRIPT and " or a file it sources changed" in w["message"] and DSR1 in w["message"]
    assert rules(p, "unused-script") == []


def test_script_change_selected_through_one_of_its_keys_is_quiet(fleet):
    p = make(fleet, {DSR1_MI_SCRIPT: "#!/usr/bin/env bash\nvllm serve dsr1 --rocm --new\n",
                     "perf-changelog.yaml": fleet.append_changelog(entry(DSR1_MI, pr=11))})
    assert rules(p, "unlisted-change") == []
    (changed,) = p["diff"]["changed"]
    assert changed["key"] == DSR1_MI and changed["scripts"][0]["path"] == DSR1_MI_SCRIPT


def test_a_new_selected_config_running_the_changed_file_selects_its_change(fleet):
    """New user s37d: a PR that adds a config (selected by its entry) and edits the script, launcher and
    runner facts its jobs run, which an older config shares, was warned that "no appended entry selects
    any of" the keys running them: the new key, which the sweep runs on them, went unnamed and uncounted,
    whereas a changed benchmark_lib.sh was already quiet for it."""
    launcher = "benchmarks/runners/launch_b300-nv.sh"
    fleet.base = fleet.commit({launcher: "#!/usr/bin/env bash\necho launch\n"}, "launcher")
    runners = {**RUNNERS, "hardware": {**RUNNERS["hardware"], "cluster:b300-nv": {
        **RUNNERS["hardware"]["cluster:b300-nv"], "accelerator-runtime": "cuda"}}}
    edits = {KIMI_SCRIPT: "#!/usr/bin/env bash\nsource benchmarks/benchmark_lib.sh\nvllm serve kimi --lmcache\n",
             launcher: "#!/usr/bin/env bash\necho launch again\n", "configs/runners.yaml": runners}
    master = nvidia_master(fleet)
    added = make(fleet, {**edits, "configs/nvidia-master.yaml": {**master, LMCACHE: kimi("lmcache")},
                         "perf-changelog.yaml": fleet.append_changelog(entry(LMCACHE, pr=5))})
    assert rules(added, "unlisted-change") == [], rules(added, "unlisted-change")
    fleet.git("reset", "-q", "--hard", fleet.base)  # the same PR without its entry: each change names the new key
    unselected = make(fleet, {**edits, "configs/nvidia-master.yaml": {**master, LMCACHE: kimi("lmcache")}})
    by_file = {w["file"]: w["message"] for w in rules(unselected, "unlisted-change")}
    assert {KIMI_SCRIPT, launcher, "configs/runners.yaml"} <= set(by_file), by_file
    assert all(LMCACHE in by_file[f] for f in (KIMI_SCRIPT, launcher, "configs/runners.yaml")), by_file


def test_new_framework_specific_script_shadows_the_generic_one(fleet):
    new = "benchmarks/single_node/fixed_seq_len/dsr1_fp8_mi355x_vllm.sh"
    p = make(fleet, {new: "#!/usr/bin/env bash\n"})
    (w,) = rules(p, "unlisted-change")
    assert w["file"] == new and DSR1_MI in w["message"]
    (changed,) = p["diff"]["changed"]
    assert changed["scripts"][0]["base_path"] == DSR1_MI_SCRIPT


def test_benchmark_lib_change_without_entry(fleet):
    fleet.base = fleet.commit({MN_SCRIPT: "#!/usr/bin/env bash\nsource benchmarks/benchmark_lib.sh\n"}, "mn")
    p = make(fleet, {"benchmarks/benchmark_lib.sh": "#!/usr/bin/env bash\nwait_for_ready() { return 0; }\n"})
    (w,) = rules(p, "unlisted-change")
    assert w["file"] == "benchmarks/benchmark_lib.sh"
    # a multi-node job runs it too (its helpers source it; the run identity hashes it for every job)
    assert DSR1 in w["message"] and "dsr1-fp4-gb200-dynamo-trt" in w["message"]
    assert {c["key"] for c in p["diff"]["changed"]} == {DSPARK, DSR1, DSR1_MI, "dsr1-fp4-gb200-dynamo-trt"}
    assert all(c["benchmark_lib"] for c in p["diff"]["changed"])


def test_a_change_to_a_part_the_library_sources_is_a_library_change(fleet):
    p = make(fleet, {"benchmarks/lib/clients.sh": "#!/usr/bin/env bash\nrun_benchmark_serving() { :; }\n"})
    (w,) = rules(p, "unlisted-change")
    assert w["file"] == "benchmarks/benchmark_lib.sh"
    # the multi-node key has no benchmark script in this fleet: its job stops at the launcher
    assert {c["key"] for c in p["diff"]["changed"]} == {DSPARK, DSR1, DSR1_MI}


def test_a_library_edit_does_not_change_a_config_without_a_benchmark_script(fleet):
    """New-user walk (s39s): a library edit marked every config changed, 208 in an InferenceX-layout
    repository where most configs have no script at CONTRACTS section 7's paths. A job with no script stops
    in its launcher before it sources benchmark_lib.sh (launch::resolve_script), so the library (and the
    multi-node helpers a script sources) is none of what it runs; the launcher still is."""
    from sweepgate.core import report

    master = nvidia_master(fleet)
    unscripted = [f"gptoss{i}-fp4-b300-vllm" for i in range(6)]
    master.update({key: {**dsr1(), "model-prefix": key.split("-")[0]} for key in unscripted})
    # one config with a script for one of its scenarios only: the library changes that scenario alone
    mixed = {**dsr1(), "model-prefix": "kimik3", "precision": "fp4"}
    mixed["scenarios"]["agentic-coding"] = kimi()["scenarios"]["agentic-coding"]
    master["kimik3-fp4-b300-vllm-both"] = mixed
    more = {f"dsr1{i}-fp8-b300-vllm": {**dsr1(), "model-prefix": f"dsr1{i}"} for i in range(3)}
    master.update(more)
    fleet.base = fleet.commit({"configs/nvidia-master.yaml": master, **{
        f"benchmarks/single_node/fixed_seq_len/dsr1{i}_fp8_b300_vllm.sh": "#!/usr/bin/env bash\n"
        "source benchmarks/benchmark_lib.sh\n" for i in range(3)}}, "more configs")
    p = make(fleet, {"benchmarks/benchmark_lib.sh": "#!/usr/bin/env bash\nwait_for_ready() { return 0; }\n",
                     "perf-changelog.yaml": fleet.append_changelog(entry(unscripted[0], pr=5))})
    changed = {c["key"]: c for c in p["diff"]["changed"]}
    scripted = {DSPARK, DSR1, DSR1_MI, "kimik3-fp4-b300-vllm-both", *more}
    assert set(changed) == scripted and set(unscripted) <= set(p["diff"]["unchanged"])
    assert changed["kimik3-fp4-b300-vllm-both"]["scenarios"] == ["agentic-coding"]
    (w,) = rules(p, "unlisted-change")  # the entry selects no key whose jobs run the library
    assert w["file"] == F.BENCHMARK_LIB and f"the jobs of {len(scripted)} config keys run it" in w["message"]
    assert not any(k in w["message"] for k in unscripted)
    # the selected key still gets its own warning that it has no script
    assert any(unscripted[0] in m["message"] for m in rules(p, "missing-script"))
    text, markdown = report.plan_text(p), report.plan_markdown(p)
    assert f"changed {len(scripted)} config keys: {F.BENCHMARK_LIB} (" in text, text
    assert not any(k in text for k in unscripted[1:]) and not any(k in markdown for k in unscripted[1:])
    assert f"{len(scripted)} changed, 0 removed, {len(unscripted) + 1} unchanged" in text, text
    assert f"**changed** ({len(scripted)})" in markdown and f"**unchanged**: {len(unscripted) + 1} config" in markdown


def test_missing_script_and_unused_script(fleet):
    master = nvidia_master(fleet)
    master[LMCACHE] = {**kimi("lmcache"), "model-prefix": "kimik4"}
    p = make(fleet, {"configs/nvidia-master.yaml": master,
                     "benchmarks/single_node/agentic/kimik4_fp4_b300_vllm.sh": "#!/usr/bin/env bash\n",
                     "perf-changelog.yaml": fleet.append_changelog(entry(LMCACHE))})
    (missing,) = rules(p, "missing-script")
    assert missing["severity"] == "warning"
    assert "kimik4_fp4_b300_vllm_mtp.sh" in missing["message"] and "kimik4_fp4_b300_mtp.sh" in missing["message"]
    (unused,) = rules(p, "unused-script")
    assert unused["file"] == "benchmarks/single_node/agentic/kimik4_fp4_b300_vllm.sh"


# --------------------------------------------------------------------------- no 256-job warning

def test_more_than_256_jobs_in_a_bucket_is_no_warning_because_split_chunks_them(fleet):
    """`ci split` cuts a bucket into chunks of 256 row references (and refuses, as an error,
    what the fan-out jobs cannot hold), so the plan no longer warns about > 256 jobs."""
    from sweepgate.workflow.fanout import split

    master = nvidia_master(fleet)
    master["dsr1-fp8-b300-vllm-wide"] = dsr1(search=[{"tp": 8, "conc-list": list(range(1, 131))},
                                                     {"tp": 4, "conc-list": list(range(1, 131))}])
    p = make(fleet, {"configs/nvidia-master.yaml": master,
                     "perf-changelog.yaml": fleet.append_changelog(entry("dsr1-fp8-b300-vllm-wide"))})
    assert p["by_bucket"]["single_node/1k1k"]["jobs"] == 260
    assert not [w for w in p["warnings"] if "256" in w["message"] or w["rule"] == "fanout-limit"]
    outputs = split(p["matrix"])
    assert int(outputs["fixed_jobs"]) == 520 and outputs["fixed_2"] != ""


def test_a_sweep_ci_split_will_refuse_is_a_fanout_limit_warning(fleet, monkeypatch, capsys):
    """Issue 7's rule `fanout-limit`: more rows than run-sweep.yml's fan-out jobs hold (2 agentic
    jobs of 256) are refused by `ci split` on the GPU side; the plan said nothing about it."""
    out, head = plan_of_lmcache_key(fleet, monkeypatch, capsys, 11, concs=range(1, 521))
    assert out["jobs"] == 520
    (w,) = rules(out, "fanout-limit")
    assert w["severity"] == "warning" and w["file"] == "perf-changelog.yaml"
    assert "520 agentic rows need 3 fan-out jobs of 256" in w["message"] and "split the changelog entry" in w["hint"]
    assert [x["severity"] for x in out["warnings"]] == sorted(
        (x["severity"] for x in out["warnings"]), key=["error", "warning", "info"].index)
    assert cli.main(["plan", "--base-ref", fleet.base, "--head-ref", head, "--fail-on-warning"]) == 3
    assert "perf-changelog.yaml: warning: `ci split` will refuse this sweep: 520 agentic rows" in capsys.readouterr().err


# --------------------------------------------------------------------------- markdown limits

def test_markdown_is_truncated_with_a_note():
    from sweepgate.core import report

    matrix = plan.empty_matrix("a", "b")
    row = {"exp-name": "e" * 200, "runner": "cluster:b300-nv", "tp": 8, "conc": 4, "isl": 1024, "osl": 1024}
    matrix["single_node"]["1k1k"] = [dict(row, conc=i) for i in range(20000)]
    p = {"base_ref": "a", "head_ref": "b", "jobs": 20000, "gpu_hours": 1.0, "gpu_hours_estimated": 1.0,
         "eval_jobs": 0, "eval_gpu_hours": 0.0, "by_runner": {}, "by_bucket": {}, "warnings": [], "diff": {},
         "matrix": matrix}
    md = report.plan_markdown(p, limit=100_000)
    assert len(md.encode()) <= 100_000
    assert "truncated" in md.splitlines()[-1]
    assert md.count("<details>") == md.count("</details>")
    small = report.plan_markdown(p, limit=5_000, marker="<!-- m -->", unit="chars")
    assert small.startswith("<!-- m -->") and len(small) <= 5_000


# --------------------------------------------------------------------------- acceptance on the example fleet

def test_example_fleet_seed_scenario(tmp_path):
    """base = the example fleet without the LMCache key and its entry; head = the fleet as committed."""
    master_path = ROOT / "configs/nvidia-master.yaml"
    changelog = (ROOT / "perf-changelog.yaml").read_text() if (ROOT / "perf-changelog.yaml").exists() else ""
    assert master_path.exists() and LMCACHE in master_path.read_text() and LMCACHE in changelog, \
        "the example fleet lost its LMCache key or its changelog entry: this scenario needs both"
    files = {str(p.relative_to(ROOT)): p.read_text()
             for pattern in ("configs/*.yaml", "benchmarks/*.sh", "benchmarks/single_node/*/*.sh")
             for p in ROOT.glob(pattern)}
    # Head ends with the LMCache entry: entries appended after it are other changes.
    later = changelog.find("\n\n- config-keys:", changelog.index(f"- {LMCACHE}"))
    files["perf-changelog.yaml"] = changelog if later < 0 else changelog[:later + 1]
    base_files = dict(files)
    master = yaml.safe_load(files["configs/nvidia-master.yaml"])
    del master[LMCACHE]
    base_files["configs/nvidia-master.yaml"] = master
    cut = changelog.rindex("- config-keys:", 0, changelog.index(f"- {LMCACHE}", changelog.index("- config-keys:")))
    base_files["perf-changelog.yaml"] = changelog[:cut]
    root = tmp_path / "fleet"
    root.mkdir()
    r = Repo(root)
    base = r.commit(base_files, "base")
    head = r.commit(files, "head")
    p = plan.make_plan(Git(root), base, head)
    assert p["jobs"] == 4
    assert p["by_runner"]["cluster:b300-nv"]["jobs"] == 4
    assert p["by_runner"]["cluster:b300-nv"]["gpu_hours"] == pytest.approx(32.0)
    assert p["gpu_hours"] == pytest.approx(32.0)
    assert p["diff"]["new"] == [LMCACHE]


MN_B300 = "dsr1-fp4-b300-sglang-disagg"


def example_fleet(tmp_path) -> tuple[Repo, dict]:
    """A repository whose base is the example fleet (configs, every benchmark and launcher script,
    the changelog), and its files."""
    files = {str(p.relative_to(ROOT)): p.read_text()
             for pattern in ("configs/*.yaml", "benchmarks/*.sh", "benchmarks/*/*/*.sh", "benchmarks/*/*.sh")
             for p in ROOT.glob(pattern)}
    files["perf-changelog.yaml"] = (ROOT / "perf-changelog.yaml").read_text()
    assert MN_B300 in files.get("configs/nvidia-master.yaml", ""), \
        "the example fleet lost its multi-node B300 key: these scenarios need it"
    (tmp_path / "fleet").mkdir()
    r = Repo(tmp_path / "fleet")
    r.base = r.commit(files, "base")
    return r, files


@pytest.mark.parametrize("decode_tp,worker_gpus", [(8, 2 * 8 + 4 * 8), (4, 2 * 8 + 4 * 4)])
def test_multi_node_rows_cost_the_whole_nodes_they_hold(tmp_path, decode_tp, worker_gpus):
    """The example's 2P x 4D B300 row holds 6 exclusive 8-GPU nodes = 48 GPUs for its minutes,
    also when its decode workers (tp4) use only half of each node."""
    r, files = example_fleet(tmp_path)
    master = yaml.safe_load(files["configs/nvidia-master.yaml"])
    master[MN_B300]["scenarios"]["fixed-seq-len"][0]["search-space"][0]["decode"]["tp"] = decode_tp
    p = make(r, {"configs/nvidia-master.yaml": master, "perf-changelog.yaml": r.append_changelog(entry(MN_B300))})
    minutes, _ = plan.load_estimates(files["configs/estimates.yaml"].encode())
    bucket = p["by_bucket"]["multi_node/1k1k"]
    assert bucket["jobs"] == 1  # one job runs the row's whole conc list
    assert bucket["gpu_hours"] == pytest.approx(6 * 8 * minutes["multi_node/1k1k"] / 60)
    assert F.row_gpus(p["matrix"]["multi_node"]["1k1k"][0]) == worker_gpus


def test_a_multi_node_recipe_runs_the_library_its_helpers_source(tmp_path):
    """Review: the multi-node scripts source benchmark_lib.sh (through disagg_lib.sh, and node_task.sh and
    disagg_head.sh source it too), yet a change to a library part called the multi-node key "identical
    to base" when an entry selected it, and left it out of the keys that run the library."""
    r, files = example_fleet(tmp_path)
    clients = "benchmarks/lib/clients.sh"
    assert '"${ratio}"' in files[clients]
    p = make(r, {clients: files[clients].replace('"${ratio}"', '"${ratio}" --seed 7', 1),
                 "perf-changelog.yaml": r.append_changelog(entry(MN_B300, pr=9))})
    assert rules(p, "rerun-unchanged") == [] and rules(p, "unlisted-change") == []
    changed = {c["key"]: c for c in p["diff"]["changed"]}
    assert changed[MN_B300]["benchmark_lib"] and changed[MN_B300]["scenarios"] == ["fixed-seq-len"]
    configs = {k for name, text in files.items() if name.startswith("configs/") and name.endswith("-master.yaml")
               for k in yaml.safe_load(text)}
    assert set(changed) == configs and p["diff"]["unchanged"] == []
    r.base = r.git("rev-parse", "HEAD")
    quiet = make(r, {clients: files[clients]})  # no entry: the warning names every key whose jobs run it
    (w,) = rules(quiet, "unlisted-change")
    assert w["file"] == F.BENCHMARK_LIB and MN_B300 in w["message"] and f"{len(configs)} config keys" in w["message"]


@pytest.mark.parametrize("path,multi_node_only", [("benchmarks/runners/launch_common.sh", False),
                                                  ("benchmarks/multi_node/disagg_head.sh", True),
                                                  # sourced by the scripts too: named once, as the file that
                                                  # changed, not also as each unchanged script that sources it
                                                  ("benchmarks/multi_node/disagg_lib.sh", True)])
def test_a_changed_launcher_or_multi_node_helper_changes_the_recipes_whose_jobs_run_it(tmp_path, path,
                                                                                        multi_node_only):
    """Review: a changed launch_common.sh warned that the jobs of all 8 keys run it while the same plan
    counted 'recipes: 0 changed, 8 unchanged'; the count and the warning name the same keys."""
    from sweepgate.core import report

    r, files = example_fleet(tmp_path)
    p = make(r, {path: files[path] + "# changed\n"})
    (w,) = rules(p, "unlisted-change")
    changed = {c["key"]: c for c in p["diff"]["changed"]}
    assert w["file"] == path and f"the jobs of {len(changed)} config key(s) run it" in w["message"]
    assert all(k in w["message"] and c["support_files"] == [path] for k, c in changed.items())
    assert (MN_B300 in changed) and (("dsr1-fp8-b300-vllm" not in changed) == multi_node_only)
    text = report.plan_text(p)  # more than five configs changed by one file alone: one line (s39k)
    assert (f"changed {MN_B300}: {path}" in text if len(changed) <= report.CHANGED_ONE_LINE_OVER
            else f"changed {len(changed)} config keys: {path} (" in text), text


def test_runner_facts_are_part_of_a_recipe_but_node_lists_are_not(fleet):
    runners = copy.deepcopy(RUNNERS)
    runners["labels"]["cluster:b300-nv"].append("b300-nv_2")
    p = make(fleet, {"configs/runners.yaml": runners})
    assert p["diff"]["changed"] == [] and p["warnings"] == []
    runners["hardware"]["cluster:b300-nv"]["available-cpu-dram-mib"] = 2_000_000
    head = fleet.commit({"configs/runners.yaml": runners}, "hardware")
    p = plan.make_plan(Git(fleet.root), fleet.base, head)
    changed = {c["key"]: c for c in p["diff"]["changed"]}
    assert set(changed) == {DSPARK, DSR1} and all(c["runner"] for c in changed.values())
    assert DSR1_MI in p["diff"]["unchanged"]


def test_step_summary_appends_within_the_limit(fleet, monkeypatch, tmp_path):
    summary = tmp_path / "summary.md"
    summary.write_text("x" * (github.STEP_SUMMARY_LIMIT - 3000))
    p = make(fleet, {"perf-changelog.yaml": fleet.append_changelog(
        entry("dsr1-fp8-b300-vllm", "dsr1-fp8-mi355x-vllm", pr=12))})
    plan_command.write_step_summary(str(summary), p)
    data = summary.read_bytes()
    assert len(data) <= github.STEP_SUMMARY_LIMIT
    assert b"## sweepgate plan:" in data and b"truncated" in data


def test_fail_on_warning_and_text_output(fleet, monkeypatch, capsys):
    head = fleet.commit({DSR1_SCRIPT: "#!/usr/bin/env bash\nvllm serve dsr1 --changed\n"}, "script only")
    monkeypatch.chdir(fleet.root)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    args = ["plan", "--base-ref", fleet.base, "--head-ref", head]
    assert cli.main(args) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("plan: 0 benchmark jobs, 0.0 GPU-hours")
    assert f"changed {DSR1}: {DSR1_SCRIPT}" in captured.out
    assert f"{DSR1_SCRIPT}:1: warning: benchmark script {DSR1_SCRIPT} changed" in captured.err
    assert cli.main(args + ["--fail-on-warning"]) == 3  # the --fail-on-... exit code, not bad input
    capsys.readouterr()
    # a step summary that cannot be written (a full disk) keeps exit 3, its one line said; without the gate
    # the failed write is the exit (carried from review: it turned 3 into 1)
    assert cli.main(args + ["--fail-on-warning", "--step-summary", "/dev/full"]) == 3
    assert [x for x in capsys.readouterr().err.splitlines() if x.startswith("/dev/full")]
    assert cli.main(args + ["--step-summary", "/dev/full"]) == 1


def test_markdown_in_actions_writes_the_summary_once_and_annotates(fleet, monkeypatch, capsys, tmp_path):
    """What run-sweep.yml does: `sweepgate plan --markdown` with GITHUB_STEP_SUMMARY set."""
    head = fleet.commit({DSR1_SCRIPT: "#!/usr/bin/env bash\nvllm serve dsr1 --changed-again\n"}, "script")
    summary = tmp_path / "summary.md"
    monkeypatch.chdir(fleet.root)
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    assert cli.main(["plan", "--base-ref", fleet.base, "--head-ref", head, "--markdown"]) == 0
    captured = capsys.readouterr()
    out = captured.out
    assert summary.read_text().count("## sweepgate plan:") == 1
    assert out.count("## sweepgate plan:") == 1
    assert f"::warning file={DSR1_SCRIPT},line=1" in captured.err and "::warning" not in out


def test_json_in_actions_keeps_stdout_json_and_annotates_on_stderr(fleet, tmp_path):
    """A real `sweepgate plan --json` under GITHUB_ACTIONS=true whose plan has a warning: stdout is
    the JSON a workflow redirects into a file, the ::warning goes to stderr (the runner reads both)."""
    head = fleet.commit({DSR1_SCRIPT: "#!/usr/bin/env bash\nvllm serve dsr1 --changed-again\n"}, "script")
    env = {**os.environ, "GITHUB_ACTIONS": "true", "PYTHONPATH": str(ROOT / "utils")}
    env.pop("GITHUB_STEP_SUMMARY", None)
    proc = subprocess.run([sys.executable, "-m", "sweepgate", "plan", "--base-ref", fleet.base, "--head-ref", head,
                           "--json"], cwd=fleet.root, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert isinstance(json.loads(proc.stdout), dict) and "::" not in proc.stdout
    assert f"::warning file={DSR1_SCRIPT},line=1" in proc.stderr


# --------------------------------------------------------------------------- rules: kv-backend-unknown / -version

@pytest.mark.parametrize("backend,rule,words", [
    ({"name": "lmcache"}, "kv-backend-version", "'lmcache' has no version"),
    ({"name": "mooncake"}, "kv-backend-version", "'mooncake' has no version"),
    ({"name": "hicache"}, "kv-backend-unknown", "'hicache' has no arm in sweepgate's benchmarks/benchmark_lib.sh"),
    ({"name": "vllm-native", "version": "1"}, "kv-backend-unknown", "'vllm-native' has no arm"),
])
def test_a_backend_benchmark_lib_cannot_set_up_is_a_warning_at_its_line(fleet, backend, rule, words):
    master = nvidia_master(fleet)
    master[LMCACHE] = kimi("lmcache")
    master[LMCACHE]["scenarios"]["agentic-coding"][0]["search-space"][0]["kv-offload-backend"] = backend
    p = make(fleet, {"configs/nvidia-master.yaml": master,
                     "perf-changelog.yaml": fleet.append_changelog(entry(LMCACHE, pr=7))})
    assert p["jobs"] == 4  # the matrix is the reference's: the row still runs
    (w,) = [w for w in p["warnings"] if w["rule"].startswith("kv-backend")]
    assert (w["rule"], w["severity"], w["file"]) == (rule, "warning", "configs/nvidia-master.yaml")
    assert words in w["message"] and LMCACHE in w["message"]
    line = (fleet.root / "configs/nvidia-master.yaml").read_text().splitlines()[w["line"] - 1]
    assert f"name: {backend['name']}" in line, line


def test_known_backends_with_their_versions_are_quiet(fleet):
    master = nvidia_master(fleet)
    master[LMCACHE] = kimi("lmcache")
    p = make(fleet, {"configs/nvidia-master.yaml": master,
                     "perf-changelog.yaml": fleet.append_changelog(entry(LMCACHE, pr=7))})
    assert not [w for w in p["warnings"] if w["rule"].startswith("kv-backend")]


def test_known_backends_are_the_arms_of_benchmark_lib():
    """F.KV_OFFLOAD_BACKENDS and _SG_KV_ARMS name the same arms; the versioned ones are those that install."""
    import re

    text = (ROOT / "benchmarks/lib/kv_offload_arms.sh").read_text()
    arms = set(re.search(r'^readonly _SG_KV_ARMS="([^"]*)"', text, re.M).group(1).split()) - {"none"}
    assert arms == set(F.KV_OFFLOAD_BACKENDS)
    bodies = dict(re.findall(r"^_sg_kv_arm_(\w+)\(\) \{\n(.*?)^\}", text, re.M | re.S))
    installs = {name.replace("_", "-") for name, body in bodies.items() if re.search(r"\b_sg_\w*install\b", body)}
    assert installs == {name for name, versioned in F.KV_OFFLOAD_BACKENDS.items() if versioned}


# --------------------------------------------------------------------------- no absurd GPU-hour figures

def _plan_cli(root: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "utils")}
    env.pop("GITHUB_ACTIONS", None)
    return subprocess.run([sys.executable, "-m", "sweepgate", "plan", *args], cwd=root, capture_output=True,
                          text=True, env=env, timeout=120)


def test_minutes_per_job_beyond_a_github_job_are_refused_at_their_line():
    with pytest.raises(SweepgateError) as exc:
        plan.load_estimates(b"minutes-per-job:\n  default: 10\n  8k1k: 1.0e+308\n")
    (d,) = exc.value.diagnostics
    assert (d.line, d.rule) == (3, "estimates") and "7200" in d.message


def _maximal(fleet: Repo, old: str = "", new: str = "", where: str = "") -> tuple[str, subprocess.CompletedProcess]:
    """The largest recipes the schema and check admit, on a runner without hardware facts; ``old`` -> ``new``
    in the config named by ``where``; the plan of selecting them."""
    runners = copy.deepcopy(RUNNERS)
    runners["labels"]["h100"] = ["h100_0"]
    master = nvidia_master(fleet)
    big = {"dsr1": dsr1("h100", [{"tp": 1024, "pp": 1, "pcp-size": 1, "conc-start": 1, "conc-end": 1_000_000}]),
           "mn": {**multinode(), "runner": "h100"}}
    worker = {"num-worker": 1024, "tp": 1024, "pp": 1, "pcp-size": 1, "ep": 1, "dp-attn": True}
    big["mn"]["scenarios"]["fixed-seq-len"][0]["search-space"] = [
        {"prefill": dict(worker), "decode": dict(worker), "conc-list": [1]}]
    if where:
        big[where] = json.loads(json.dumps(big[where]).replace(old, new, 1))
    keys = {"dsr1": "dsr1-fp8-h100-vllm", "mn": "dsr1-fp4-h100-dynamo-trt"}
    master.update({keys[k]: v for k, v in big.items()})
    head = fleet.commit({"configs/runners.yaml": runners, "configs/nvidia-master.yaml": master,
                         "configs/estimates.yaml": "minutes-per-job: {default: 7200, 1k1k: 7200, 8k1k: 7200}\n",
                         "perf-changelog.yaml": fleet.append_changelog(entry(*keys.values(), pr=3))}, "big")
    return keys.get(where, ""), _plan_cli(fleet.root, "--base-ref", fleet.base, "--head-ref", head)


def test_plan_at_the_schemas_maximums_prints_finite_plain_figures(fleet):
    """The largest recipes the schema admits, on a runner without hardware facts (nothing else bounds them)."""
    import math
    import re

    _, proc = _maximal(fleet)
    head = fleet.git("rev-parse", "HEAD")
    for fmt in ((), ("--markdown",), ("--json",)):
        proc = _plan_cli(fleet.root, "--base-ref", fleet.base, "--head-ref", head, *fmt)
        assert proc.returncode == 0, proc.stderr
        assert not re.search(r"\d[eE][+-]\d|\binf\b|\bnan\b|Infinity|NaN", proc.stdout), proc.stdout[:2000]
    p = json.loads(proc.stdout, parse_constant=lambda c: pytest.fail(f"non-finite {c} in the plan JSON"))
    assert math.isfinite(p["gpu_hours"]) and p["jobs"] == 2 * 21 + 1
    assert p["gpu_hours"] == 2 * 21 * 120 * 1024 + 120 * 2 * 1024 * 1024


@pytest.mark.parametrize("where,old,new,words", [
    ("dsr1", '"tp": 1024, "pp": 1', '"tp": 1024, "pp": 2', "tp*pp*pcp=2048"),
    ("mn", '"num-worker": 1024', '"num-worker": 100000000000000000000000', "0 to 1024"),
    ("mn", '"tp": 1024, "pp": 1', '"tp": 1024, "pp": 1024', "tp*pp*pcp=1048576"),
])
def test_workers_beyond_any_fleet_are_refused_at_their_line(fleet, where, old, new, words):
    config, proc = _maximal(fleet, old, new, where)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    (line,) = proc.stderr.strip().splitlines()[:1]
    assert words in line and config in line, line


def test_a_row_on_a_runner_main_does_not_list_is_a_warning_before_the_sweep(fleet):
    """Review: a config on runner 'h200-dgxc' passed `matrix` and `plan` without a word, then
    `ci split --runners` (main's runners.yaml) refused the whole sweep. Adding the label in the
    same PR does not help: the split reads main's file."""
    runners = copy.deepcopy(RUNNERS)
    runners["labels"]["h200-dgxc"] = ["h200_0"]
    master = nvidia_master(fleet)
    master["dsr1-fp8-h200-vllm"] = dsr1("h200-dgxc")
    p = make(fleet, {"configs/runners.yaml": runners, "configs/nvidia-master.yaml": master,
                     "perf-changelog.yaml": fleet.append_changelog(entry("dsr1-fp8-h200-vllm", DSR1, pr=5))})
    (w,) = rules(p, "unknown-runner")
    # at the config's runner line (gate review: "configs/runners.yaml" without a line named a file
    # the PR did not touch, for a typo in the master config)
    text = (fleet.root / "configs/nvidia-master.yaml").read_text().splitlines()
    key_line = text.index("dsr1-fp8-h200-vllm:")
    runner_line = next(i for i in range(key_line, len(text)) if text[i].strip().startswith("runner:")) + 1
    assert w["severity"] == "warning" and w["file"] == "configs/nvidia-master.yaml" and w["line"] == runner_line
    assert "'h200-dgxc' is not in the base's configs/runners.yaml" in w["message"] and "on main first" in w["hint"]
    assert p["jobs"] > 0  # still planned: the warning says what will happen, the split refuses


def test_a_misspelt_runner_label_gets_the_nearest_listed_one(fleet):
    master = nvidia_master(fleet)
    master[DSR1]["runner"] = "cluster:b300-nvv"
    p = make(fleet, {"configs/nvidia-master.yaml": master,
                     "perf-changelog.yaml": fleet.append_changelog(entry(DSR1, pr=5))})
    (w,) = rules(p, "unknown-runner")
    assert w["hint"].startswith("did you mean 'cluster:b300-nv' (or cluster:gb200-nv)? Use a listed label, "), w


def test_a_row_label_no_head_config_names_stands_at_the_base_s_labels_line(fleet):
    """s36h: with no head config naming the label (the rows came from elsewhere), the warning stood at
    configs/runners.yaml with no line: it stands at the base runners file's `labels:` line, where the fix
    (add the runner there on main first) goes."""
    from sweepgate.core.identity import recipe_files

    base, _ = recipes.load_recipes(Git(fleet.root), fleet.base, Options(), is_base=True, job_files=recipe_files)
    (w,) = plan.unknown_runners(base, {"single_node": {"1k1k": [{"runner": "h200-dgxc"}]}})
    text = (fleet.root / "configs/runners.yaml").read_text().splitlines()
    assert (w.file, w.line) == ("configs/runners.yaml", text.index("labels:") + 1), w
    assert "'h200-dgxc' is not in the base's configs/runners.yaml" in w.message


def _fleet_without_multi_node_hardware(tmp_path):
    """The base fleet committed with no hardware entry for the gb200 and mi355x labels."""
    root = tmp_path / "repo"
    root.mkdir()
    r = Repo(root)
    files = base_fleet()
    runners = copy.deepcopy(RUNNERS)
    del runners["hardware"]["cluster:gb200-nv"], runners["hardware"]["mi355x-amds"]
    files["configs/runners.yaml"] = runners
    r.base = r.commit(files, "base")
    return root, r


def test_multi_node_rows_on_a_runner_without_hardware_facts_are_a_warning(tmp_path):
    """Review: a multi-node runner with no `hardware` entry in main's runners.yaml passed `plan`
    without a word; `ci row-env` then gave its jobs no SWEEPGATE_NODES and every launcher refused
    them after the GPUs were queued. One warning per label; rows on labelled runners with facts
    (and single-node rows on bare runners) get none."""
    root, r = _fleet_without_multi_node_hardware(tmp_path)
    p = make(r, {"perf-changelog.yaml": r.append_changelog(entry(DSR1, DSR1_MI, "dsr1-fp4-gb200-dynamo-trt"))})
    (w,) = rules(p, "no-hardware-facts")
    assert w["severity"] == "warning" and w["file"] == "configs/runners.yaml"
    assert "'cluster:gb200-nv'" in w["message"] and "SWEEPGATE_NODES" in w["message"]
    assert "hardware['cluster:gb200-nv']" in w["hint"] and "gpus-per-node" in w["hint"]


def _line_under(path: Path, section: str, text: str) -> tuple[int, int]:
    """(line, col) of the first line holding ``text`` after the line that starts ``section``."""
    lines = path.read_text().splitlines()
    start = lines.index(f"{section}:")
    number = next(i for i in range(start, len(lines)) if text in lines[i])
    return number + 1, lines[number].index(text) + 1


def test_changed_runner_facts_stand_at_the_label_s_hardware_entry(fleet):
    """s36a: the hardware-facts change and the no-hardware-facts warnings stood at configs/runners.yaml with
    no line (an annotation on its first line): each stands at its label's entry, under hardware (the facts
    that changed) or under labels (the label with none, the next test)."""
    runners = {**RUNNERS, "hardware": {**RUNNERS["hardware"], "cluster:b300-nv": {
        **RUNNERS["hardware"]["cluster:b300-nv"], "rdma-devices": ["mlx5_0"]}}}
    p = make(fleet, {"configs/runners.yaml": runners})
    (w,) = [w for w in rules(p, "unlisted-change") if w["file"] == "configs/runners.yaml"]
    assert (w["line"], w["col"]) == _line_under(fleet.root / "configs/runners.yaml", "hardware", "cluster:b300-nv"), w


def test_a_label_without_hardware_facts_stands_at_its_labels_entry(tmp_path):
    root, r = _fleet_without_multi_node_hardware(tmp_path)
    p = make(r, {"perf-changelog.yaml": r.append_changelog(entry(DSR1, DSR1_MI, "dsr1-fp4-gb200-dynamo-trt"))})
    (w,) = rules(p, "no-hardware-facts")
    assert (w["line"], w["col"]) == _line_under(root / "configs/runners.yaml", "labels", "cluster:gb200-nv"), w


def test_a_label_without_hardware_facts_stands_at_the_head_s_labels_entry(tmp_path):
    """Review (s36m): the warning stood at the label's line in main's runners.yaml, but a GitHub annotation
    lands on the PR's file: where the PR moved the entry (a label added above it), it marked another line.
    It stands at the head's entry when the head has one."""
    root, r = _fleet_without_multi_node_hardware(tmp_path)
    runners = yaml.safe_load((root / "configs/runners.yaml").read_text())
    runners["labels"] = {"cluster:new-nv": ["new-nv_00", "new-nv_01", "new-nv_02"], **runners["labels"]}
    p = make(r, {"configs/runners.yaml": runners,
                 "perf-changelog.yaml": r.append_changelog(entry(DSR1, DSR1_MI, "dsr1-fp4-gb200-dynamo-trt"))})
    (w,) = rules(p, "no-hardware-facts")
    assert (w["line"], w["col"]) == _line_under(root / "configs/runners.yaml", "labels", "cluster:gb200-nv"), w
    # a head that dropped the label's entry: no line of main's, which would mark another line of the head's
    del runners["labels"]["cluster:gb200-nv"]
    p = make(r, {"configs/runners.yaml": runners})
    (w,) = rules(p, "no-hardware-facts")
    assert (w["file"], w["line"]) == ("configs/runners.yaml", 0), w


def test_gpu_hours_of_multi_node_rows_without_gpus_per_node_are_a_lower_bound(tmp_path):
    """Review (corpus main-056): multi-node rows on a runner with no gpus-per-node were counted by
    their workers' GPUs (8 and 20 for jobs that hold 2 and 3 whole nodes) and the total read as exact.
    Text and --markdown print it as '≥ 9.0' and say why; --json says `lower_bound` (CONTRACTS §4)."""
    root, r = _fleet_without_multi_node_hardware(tmp_path)
    head = r.commit({"perf-changelog.yaml": r.append_changelog(entry(DSR1_MI, "dsr1-fp4-gb200-dynamo-trt"))}, "h")
    refs = ("--base-ref", r.base, "--head-ref", head)
    p = json.loads(_plan_cli(root, *refs, "--json").stdout)
    gb200, mi355x = p["by_runner"]["cluster:gb200-nv"], p["by_runner"]["mi355x-amds"]
    assert gb200["gpu_hours"] == pytest.approx(12 * 45 / 60)  # 1x4 prefill + 2x4 decode, by workers
    assert (gb200["lower_bound"], gb200["eval_lower_bound"]) == (True, gb200["eval_jobs"] > 0)
    # single-node rows on a bare label: their tp x pp GPUs, marked as a lower bound too (s40t; they were not)
    assert (mi355x["lower_bound"], mi355x["eval_lower_bound"]) == (True, mi355x["eval_jobs"] > 0)
    assert p["lower_bound"] is True and p["by_bucket"]["multi_node/8k1k"]["lower_bound"] is True
    assert p["by_bucket"]["single_node/8k1k"]["lower_bound"] is True
    text = _plan_cli(root, *refs).stdout
    assert text.startswith(f"plan: {p['jobs']} benchmark jobs, ≥ {p['gpu_hours']:,.1f} GPU-hours"), text
    mi355x_hours = f"{mi355x['gpu_hours']:,.1f}"
    assert "  cluster:gb200-nv: 1 job, ≥ 9.0 GPU-hours" in text and f"  mi355x-amds: 10 jobs, ≥ {mi355x_hours} GPU" in text
    assert "≥: a lower bound; jobs on cluster:gb200-nv, mi355x-amds (no gpus-per-node in" in text
    md = _plan_cli(root, *refs, "--markdown").stdout
    assert "| cluster:gb200-nv | 1 | ≥ 9.0 | ≥ 9.0 |" in md and f"| mi355x-amds | 10 | ≥ {mi355x_hours} |" in md
    assert "multi_node/8k1k: 1 row, ≥ " in md and "≥: a lower bound; jobs on cluster:gb200-nv, mi355x-amds" in md
    # with the facts, no mark
    exact = json.loads(_plan_cli(root, "--base-ref", r.base, "--head-ref", r.commit(
        {"configs/runners.yaml": RUNNERS}, "facts"), "--json").stdout)
    assert exact["lower_bound"] is False and "≥" not in _plan_cli(root, "--base-ref", r.base, "--head-ref",
                                                                   r.git("rev-parse", "HEAD")).stdout


def test_multi_node_rows_on_a_runner_with_hardware_facts_get_no_such_warning(fleet):
    p = make(fleet, {"perf-changelog.yaml": fleet.append_changelog(entry("dsr1-fp4-gb200-dynamo-trt"))})
    assert p["jobs"] > 0 and not rules(p, "no-hardware-facts")
