"""New-user walk (s40t): runner labels without hardware facts, and runner label typos.

1. `plan` charged single-node rows on a label with no `gpus-per-node` in configs/runners.yaml (InferenceX's
   `runner: b300`, `runner: mi355x`: its file has facts only for `cluster:*` labels) tp×pp GPUs a job, the
   same rows on `cluster:b300-nv` the whole 8-GPU node, and said nothing: the figure read as exact. It is
   kept, marked as a lower bound ('≥', as multi-node rows on such a label already were), and one finding
   per label, at its entry in configs/runners.yaml, says to add gpus-per-node.
2. A config's `runner: cluster:b300-nvv` passed `preflight`, and `rehearse` said `on b300-nvv_00 ... OK`:
   only `plan` warned. Both now say it in plan's words, one line at the config's `runner:` line.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "utils"))
sys.path.insert(0, str(ROOT / "tests"))

from test_plan import DSR1, RUNNERS, Repo, _line_under, _plan_cli, base_fleet, dsr1, entry, kimi, rules  # noqa: E402
from test_plan import DSPARK  # noqa: E402

from sweepgate.core import fields as F  # noqa: E402
from sweepgate.core import plan  # noqa: E402

BARE = "dsr1-fp8-b300-vllm-bare"  # the same recipe as DSR1, on InferenceX's bare `b300` label
LOWER = "gpu-hours-lower-bound"


def _bare_label_fleet(tmp_path: Path) -> tuple[Path, Repo, str]:
    root = tmp_path / "repo"
    root.mkdir()
    r = Repo(root)
    files = base_fleet()
    runners = copy.deepcopy(RUNNERS)
    runners["labels"]["b300"] = ["b300-nv_0", "b300-nv_1"]  # listed, no hardware entry: InferenceX's own file
    files["configs/runners.yaml"] = runners
    files["configs/nvidia-master.yaml"] = {DSPARK: kimi(), DSR1: dsr1(), BARE: dsr1("b300")}
    r.base = r.commit(files, "base")
    head = r.commit({"perf-changelog.yaml": r.append_changelog(entry(DSR1, BARE))}, "head")
    return root, r, head


def test_single_node_rows_on_a_label_without_gpus_per_node_are_a_lower_bound_and_said_once(tmp_path):
    root, r, head = _bare_label_fleet(tmp_path)
    refs = ("--base-ref", r.base, "--head-ref", head)
    p = json.loads(_plan_cli(root, *refs, "--json").stdout)
    bare, placed = p["by_runner"]["b300"], p["by_runner"]["cluster:b300-nv"]
    # the figure is kept (tp x pp GPUs a job: the tp4 rows cost half the node), only marked
    minutes = p["estimates"]["minutes_per_job"]
    rows = [(b, row) for b, rows in p["matrix"]["single_node"].items() for row in rows if row["runner"] == "b300"]
    assert bare["gpu_hours"] == round(sum(F.row_gpus(row) * plan.estimate_minutes(f"single_node/{b}", minutes)
                                          for b, row in rows) / 60, 3)
    assert bare["gpu_hours"] < placed["gpu_hours"] and bare["jobs"] == placed["jobs"]
    assert bare["lower_bound"] is True and placed["lower_bound"] is False and p["lower_bound"] is True
    # one finding for the label, at its entry in configs/runners.yaml, saying what to add there
    (w,) = rules(p, LOWER)
    assert (w["file"], w["line"], w["col"]) == ("configs/runners.yaml",
                                                *_line_under(root / "configs/runners.yaml", "labels", "b300:")), w
    assert "'b300'" in w["message"] and "lower bound" in w["message"] and "tp" in w["message"], w
    assert w["hint"].startswith("add gpus-per-node under hardware['b300'] in configs/runners.yaml"), w
    assert not [x for x in p["warnings"] if "cluster:b300-nv" in x["message"]], p["warnings"]
    said = _plan_cli(root, *refs)
    text = said.stdout
    assert f"  b300: {bare['jobs']} jobs, ≥ {bare['gpu_hours']:,.1f} GPU-hours" in text, text
    assert f"  cluster:b300-nv: {placed['jobs']} jobs, {placed['gpu_hours']:,.1f} GPU-hours" in text, text
    assert "≥: a lower bound; jobs on b300 (no gpus-per-node in configs/runners.yaml) are counted by the GPUs " \
           "they use" in text, text
    (line,) = [line for line in said.stderr.splitlines() if "hardware['b300']" in line]
    assert line.startswith(f"configs/runners.yaml:{w['line']}:{w['col']}: note: 'b300' states no gpus-per-node"), line
    md = _plan_cli(root, *refs, "--markdown").stdout
    assert f"| b300 | {bare['jobs']} | ≥ " in md and "≥: a lower bound; jobs on b300 (no gpus-per-node" in md, md
    # with the fact in the head's file: the node is charged, no mark, no finding
    runners = copy.deepcopy(RUNNERS)
    runners["labels"]["b300"] = ["b300-nv_0", "b300-nv_1"]
    runners["hardware"]["b300"] = {"gpus-per-node": 8, "available-cpu-dram-mib": 3_000_000}
    facts = r.commit({"configs/runners.yaml": runners}, "facts")
    p = json.loads(_plan_cli(root, "--base-ref", r.base, "--head-ref", facts, "--json").stdout)
    assert p["by_runner"]["b300"]["gpu_hours"] == p["by_runner"]["cluster:b300-nv"]["gpu_hours"]
    assert p["lower_bound"] is False and not rules(p, LOWER), p["warnings"]


def test_a_label_the_base_does_not_list_has_its_unknown_runner_warning_alone(tmp_path):
    """A typo's rows are costed without facts too, but its fix (a listed label) comes first: no second finding."""
    root, r, _ = _bare_label_fleet(tmp_path)
    master = yaml.safe_load((root / "configs/nvidia-master.yaml").read_text())
    master[BARE]["runner"] = "b300-nvv"
    head = r.commit({"configs/nvidia-master.yaml": master}, "typo")
    p = json.loads(_plan_cli(root, "--base-ref", r.base, "--head-ref", head, "--json").stdout)
    assert [w["rule"] for w in p["warnings"] if "b300-nvv" in w["message"]] == [F.UNKNOWN_RUNNER_RULE], p["warnings"]
    assert not rules(p, LOWER)


def test_reused_single_node_jobs_on_a_label_without_gpus_per_node_save_at_least_their_figure():
    from sweepgate.results.reuse import Found

    row = {F.RUNNER: "b300", F.TP: 4, F.PP: 1, F.CONC: 4}
    minutes = {"default": 30.0}
    bare = Found([("single_node/1k1k", row, "i")], {"i": [{}]}, minutes, runners={F.LABELS: {"b300": ["b"]}})
    assert bare.lower_bound and bare.summary() == "reused 1 of 1 jobs (≥ 2 GPU-hours saved)"
    placed = Found([("single_node/1k1k", row, "i")], {"i": [{}]}, minutes,
                   runners={F.HARDWARE: {"b300": {F.GPUS_PER_NODE: 8}}})
    assert not placed.lower_bound and placed.summary() == "reused 1 of 1 jobs (4 GPU-hours saved)"


# --- 2. a runner label typo in rehearse and preflight -------------------------------------------

TYPO = "cluster:b300-nvv"


def _typo_repo(tmp_path: Path) -> tuple[Path, int, int]:
    """The example benchmarks and configs, dsr1-fp8-b300-vllm's runner mistyped; (repo, line, col) of it."""
    repo = tmp_path / "bench"
    for part in ("benchmarks", "configs"):
        shutil.copytree(ROOT / part, repo / part, symlinks=True)
    path = repo / "configs" / "nvidia-master.yaml"
    lines = path.read_text().splitlines(keepends=True)
    start = lines.index("dsr1-fp8-b300-vllm:\n")
    number = next(i for i in range(start, len(lines)) if lines[i].strip() == "runner: cluster:b300-nv")
    lines[number] = lines[number].replace("cluster:b300-nv", TYPO)
    path.write_text("".join(lines))
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    return repo, number + 1, lines[number].index(TYPO) + 1  # at the label itself (s48c), not `runner:`


def _sweepgate(repo: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    env.update({"PYTHONPATH": str(ROOT / "utils"), "SWEEPGATE_REHEARSE_DURATION": "1"})
    return subprocess.run([sys.executable, "-m", "sweepgate", *args], cwd=repo, env=env, capture_output=True,
                          text=True, timeout=300)


def _said(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if f"'{TYPO}'" in line]


def _check_line(line: str, line_no: int, col: int) -> None:
    assert line.startswith(f"configs/nvidia-master.yaml:{line_no}:{col}: warning: runner label '{TYPO}' is not in "
                           "configs/runners.yaml: `ci split --runners` will refuse the sweep; did you mean "
                           "'cluster:b300-nv'?"), line


def test_rehearse_says_a_label_the_runners_file_does_not_list_at_the_config_s_runner_line(tmp_path):
    repo, line_no, col = _typo_repo(tmp_path)
    r = _sweepgate(repo, "rehearse", "--config-keys", "dsr1-fp8-b300-vllm", "--exp-name", "dsr1_1k1k",
                   "--conc", "4", "--work-dir", str(tmp_path / "work"))
    (line,) = _said(r.stderr)
    _check_line(line, line_no, col)
    assert r.returncode == 0 and "rehearse: OK" in r.stdout, r.stdout + r.stderr  # a warning, as in plan


def test_rehearse_of_a_row_file_says_it_at_the_row(tmp_path):
    repo, _, _ = _typo_repo(tmp_path)
    rows = tmp_path / "rows.json"
    r = _sweepgate(repo, "test-config", "--config-keys", "dsr1-fp8-b300-vllm")
    data = json.loads(r.stdout)
    rows.write_text(json.dumps(data, indent=1))
    r = _sweepgate(repo, "rehearse", "--row-json", str(rows), "--exp-name", "dsr1_1k1k", "--conc", "4",
                   "--work-dir", str(tmp_path / "work"))
    (line,) = _said(r.stderr)
    assert line.startswith(f"{rows}:") and ": warning: runner label 'cluster:b300-nvv' is not in" in line, line
    assert r.returncode == 0, r.stdout + r.stderr


def test_preflight_says_it_once_at_the_config_s_runner_line(tmp_path):
    repo, line_no, col = _typo_repo(tmp_path)
    r = _sweepgate(repo, "preflight", "--config-keys", "dsr1-fp8-b300-vllm")
    (line,) = _said(r.stderr)
    _check_line(line, line_no, col)
    assert r.returncode == 0, r.stdout + r.stderr
    r = _sweepgate(repo, "preflight", "--config-keys", "dsr1-fp8-b300-vllm", "--fail-on-warning")
    assert r.returncode == 3 and len(_said(r.stderr)) == 1, r.stdout + r.stderr


def test_preflight_of_a_change_holds_its_rows_against_the_base_s_labels_as_plan_does(tmp_path):
    """With --base-ref/--head-ref the label is held against the base's file (`ci split --runners` reads main's),
    said in plan's words at the head config's `runner:` line; plan says the same line."""
    repo = tmp_path / "bench"
    for part in ("benchmarks", "configs"):
        shutil.copytree(ROOT / part, repo / part, symlinks=True)
    shutil.copy(ROOT / "perf-changelog.yaml", repo / "perf-changelog.yaml")

    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
                              check=True, capture_output=True, text=True).stdout.strip()

    git("init", "-q", "-b", "main")
    git("add", "-A")
    git("commit", "-q", "-m", "base")
    _, line_no, col = _typo_repo(tmp_path / "typo")  # where the typo stands, in the same file
    shutil.copy(tmp_path / "typo" / "bench" / "configs" / "nvidia-master.yaml", repo / "configs" / "nvidia-master.yaml")
    with open(repo / "perf-changelog.yaml", "a") as f:
        f.write("\n- config-keys:\n    - dsr1-fp8-b300-vllm\n  description:\n    - \"Move it\"\n"
                "  pr-link: https://github.com/sweepgate/example-fleet/pull/99\n")
    git("commit", "-q", "-am", "head")
    r = _sweepgate(repo, "preflight", "--base-ref", "HEAD~1", "--head-ref", "HEAD")
    (line,) = _said(r.stderr)
    assert line.startswith(f"configs/nvidia-master.yaml:{line_no}:{col}: warning: runner label '{TYPO}' is not in "
                           "the base's configs/runners.yaml: `ci split --runners` will refuse the sweep; did you "
                           "mean 'cluster:b300-nv'?"), line
    assert r.returncode == 0, r.stdout + r.stderr
    r = _sweepgate(repo, "plan", "--base-ref", "HEAD~1", "--head-ref", "HEAD")
    assert line in r.stderr.splitlines(), r.stderr
