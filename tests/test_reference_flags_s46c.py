"""`utils/generate_sweep_configs.py`: what each of the reference generator's flags does to the rows.

The expected rows are worked out by hand from the reference's documented behaviour at the pinned
commit (InferenceX 843c6254; docs/contracts.md §3 says it flag by flag) over a small fleet of this
file's own: a single-node config with a conc-start..conc-end range (tp 8, ep 8), a conc-list (tp 4) and
a 1k1k recipe, and a single-node agentic config. Each test runs the entry point as a process in a
repository of its own, as a workflow does.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

NVIDIA = """\
alpha-fp8-b300-vllm:
  image: vllm/vllm-openai:v0.11.0
  model: example/Alpha
  model-prefix: dsr1
  runner: b300
  precision: fp8
  framework: vllm
  multinode: false
  scenarios:
    fixed-seq-len:
    - isl: 8192
      osl: 1024
      search-space:
      - { tp: 8, ep: 8, conc-start: 4, conc-end: 64 }
      - { tp: 4, conc-list: [2, 16, 48] }
    - isl: 1024
      osl: 1024
      search-space:
      - { tp: 8, conc-list: [8] }
"""

RUNNERS = """\
labels:
  b300:
    - b300-nv_00
    - b300-nv_01
    - b300-cw_00
  cluster:mi355x-amds:
    - mi355x-amds_00
hardware:
  cluster:mi355x-amds:
    available-cpu-dram-mib: 2063837
    gpus-per-node: 8
"""


@pytest.fixture
def fleet(make_repo) -> Path:
    """The fleet above (conftest's agentic AMD config beside it) in a repository of its own."""
    return make_repo(files={"configs/nvidia-master.yaml": NVIDIA, "configs/runners.yaml": RUNNERS}).path


def generate(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    return subprocess.run([sys.executable, str(ROOT / "utils" / "generate_sweep_configs.py"), *args],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def rows(cwd: Path, *args: str) -> list[tuple]:
    """(exp-name, runner, tp, ep, conc, run-eval, eval-only) of each row printed, in order."""
    r = generate(cwd, *args)
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    return [(row["exp-name"], row["runner"], row["tp"], row["ep"], row["conc"], row.get("run-eval"),
             row.get("eval-only")) for row in json.loads(r.stdout)]


def concs(cwd: Path, *args: str) -> list[tuple]:
    """(exp-name, tp, ep, conc) of each row printed."""
    return [(name, tp, ep, conc) for name, _, tp, ep, conc, _, _ in rows(cwd, *args)]


AGENTIC = "kimik3_tp8_conc{}_kvnone"


def test_min_conc_raises_a_ranges_start_and_filters_a_list(fleet):
    """--min-conc: a conc-start..conc-end range starts at it (4..64 by 2 from 10: 10, 20, 40, then
    64 capped by --max-conc 48); a conc-list keeps its values in the bounds; a recipe or agentic list
    with none left is dropped."""
    assert concs(fleet, "full-sweep", "--no-evals", "--min-conc", "10", "--max-conc", "48") == [
        ("dsr1_8k1k", 8, 8, 10), ("dsr1_8k1k", 8, 8, 20), ("dsr1_8k1k", 8, 8, 40), ("dsr1_8k1k", 8, 8, 48),
        ("dsr1_8k1k", 4, 1, 16), ("dsr1_8k1k", 4, 1, 48)]


def test_max_conc_below_every_value_runs_a_fixed_recipe_at_it(fleet):
    """--max-conc 3: a range starting above it and a list with no value at or below it run at 3;
    a list with one (2) keeps it; the agentic list is only filtered (1)."""
    assert concs(fleet, "full-sweep", "--no-evals", "--max-conc", "3") == [
        (AGENTIC.format(1), 8, 1, 1), ("dsr1_8k1k", 8, 8, 3), ("dsr1_8k1k", 4, 1, 2), ("dsr1_1k1k", 8, 1, 3)]


def test_agentic_concurrency_bounds_only_filter(fleet):
    assert concs(fleet, "full-sweep", "--no-evals", "--scenario-type", "agentic-coding",
                 "--min-conc", "2", "--max-conc", "6") == [(AGENTIC.format(4), 8, 1, 4)]
    assert concs(fleet, "full-sweep", "--no-evals", "--scenario-type", "agentic-coding", "--min-conc", "9") == []


def test_step_size_multiplies_a_range_and_leaves_a_list(fleet):
    """--step-size 3 over 4..64: 4, 12, 36, then 108 capped to the end, 64."""
    assert concs(fleet, "full-sweep", "--no-evals", "--step-size", "3", "--seq-lens", "8k1k",
                 "--scenario-type", "fixed-seq-len") == [
        ("dsr1_8k1k", 8, 8, 4), ("dsr1_8k1k", 8, 8, 12), ("dsr1_8k1k", 8, 8, 36), ("dsr1_8k1k", 8, 8, 64),
        ("dsr1_8k1k", 4, 1, 2), ("dsr1_8k1k", 4, 1, 16), ("dsr1_8k1k", 4, 1, 48)]


def test_max_tp_drops_and_max_ep_caps_single_node_fixed_seq_len_recipes(fleet):
    assert concs(fleet, "full-sweep", "--no-evals", "--max-tp", "4") == [
        (AGENTIC.format(1), 8, 1, 1), (AGENTIC.format(4), 8, 1, 4), (AGENTIC.format(8), 8, 1, 8),
        ("dsr1_8k1k", 4, 1, 2), ("dsr1_8k1k", 4, 1, 16), ("dsr1_8k1k", 4, 1, 48)]
    assert {(tp, ep) for _, tp, ep, _ in concs(fleet, "full-sweep", "--no-evals", "--max-ep", "2",
                                               "--seq-lens", "8k1k", "--scenario-type", "fixed-seq-len")} == {
        (8, 2), (4, 1)}


def test_placement_and_config_filters(fleet):
    """--single-node/--multi-node pick rows by the config's placement (this fleet has no multi-node
    config); --precision, --framework and --runner-type match the config's fields exactly."""
    assert rows(fleet, "full-sweep", "--no-evals", "--multi-node") == []
    assert [name for name, *_ in rows(fleet, "full-sweep", "--no-evals", "--single-node", "--precision", "fp4",
                                      "--framework", "vllm")] == [AGENTIC.format(c) for c in (1, 4, 8)]
    assert concs(fleet, "full-sweep", "--no-evals", "--runner-type", "b300", "--seq-lens", "1k1k") == [
        ("dsr1_1k1k", 8, 1, 8)]


def test_model_prefix_matches_the_start_of_a_config_key(fleet):
    """The reference matches --model-prefix against the config key's start, not the config's
    model-prefix field: `alpha` selects alpha-fp8-b300-vllm (model-prefix dsr1), `dsr1` selects
    nothing. The warning said "the configs have: dsr1, kimik3" of `dsr1`, the very value that matched
    nothing; it says what the value is matched against and the keys' starts."""
    assert len(rows(fleet, "full-sweep", "--no-evals", "--model-prefix", "alpha")) == 9
    r = generate(fleet, "full-sweep", "--no-evals", "--model-prefix", "dsr1")
    assert r.returncode == 0 and json.loads(r.stdout) == []
    assert r.stderr.splitlines() == [
        "--model-prefix: warning: 'dsr1' starts no config key; check the spelling; it is matched against the "
        "start of each config key; the keys start: alpha, kimik3"], r.stderr


def test_runner_node_filter_full_sweep_and_test_config(fleet):
    """full-sweep expands a config onto its label's runner names holding the substring; test-config
    also keeps the label itself first when it holds the substring."""
    def runners(*args):
        return [runner for _, runner, *_ in rows(fleet, *args, "--no-evals", "--seq-lens", "1k1k",
                                                 "--scenario-type", "fixed-seq-len")]

    assert runners("full-sweep", "--runner-node-filter", "nv") == ["b300-nv_00", "b300-nv_01"]
    assert runners("full-sweep", "--runner-node-filter", "b300") == ["b300-nv_00", "b300-nv_01", "b300-cw_00"]
    assert runners("test-config", "--config-keys", "alpha-*", "--runner-node-filter", "b300") == [
        "b300", "b300-nv_00", "b300-nv_01", "b300-cw_00"]
    assert runners("test-config", "--config-keys", "alpha-*", "--runner-node-filter", "nv") == [
        "b300-nv_00", "b300-nv_01"]


def test_eval_selection_flags(fleet):
    """Default: the 8k1k rows at the highest and the median concurrency of 16 or more (16, 32, 48, 64:
    64 and 48) of a (model, runner, framework, precision, lengths, spec, dp-attn) group run evals,
    agentic rows none. --evals-only: those rows alone, eval-only, with the agentic group's highest
    concurrency added. --all-evals alone: every 8k1k and single-node agentic row, eval-only."""
    marked = [(name, tp, conc) for name, _, tp, _, conc, run_eval, _ in rows(fleet, "full-sweep") if run_eval]
    assert marked == [("dsr1_8k1k", 8, 64), ("dsr1_8k1k", 4, 48)]
    assert [(name, tp, conc, run_eval, only) for name, _, tp, _, conc, run_eval, only
            in rows(fleet, "full-sweep", "--evals-only")] == [
        (AGENTIC.format(8), 8, 8, True, True), ("dsr1_8k1k", 8, 64, True, True), ("dsr1_8k1k", 4, 48, True, True)]
    every = rows(fleet, "full-sweep", "--all-evals")
    assert len(every) == 11 and all(run_eval and only for *_, run_eval, only in every)
    assert "dsr1_1k1k" not in {name for name, *_ in every}
    # test-config --conc narrows the rows before the eval choice: of 16 and 48, 48 is highest and median.
    assert [(tp, conc, run_eval) for _, _, tp, _, conc, run_eval, _ in
            rows(fleet, "test-config", "--config-keys", "alpha-*", "--conc", "16", "48", "--seq-lens", "8k1k")] == [
        (8, 16, False), (4, 16, False), (4, 48, True)]


@pytest.mark.parametrize("args", [
    ["full-sweep", "--no-evals", "--evals-only"], ["full-sweep", "--no-evals", "--all-evals"],
    ["test-config", "--config-keys", "alpha-*", "--no-evals", "--all-evals"],
    ["full-sweep", "--scenario-type", "agentic"], ["full-sweep", "--seq-lens", "1k8k"],
    ["full-sweep", "--step-size", "1"], ["full-sweep", "--min-conc", "8", "--max-conc", "4"],
    ["test-config", "--config-keys", "alpha-*", "--conc", "x"]],
    ids=["no-evals+evals-only", "no-evals+all-evals", "test-config-no-evals+all-evals", "scenario-choice",
         "seq-lens-choice", "step-size", "min-above-max", "conc-int"])
def test_flag_values_the_reference_refuses_are_argument_errors(fleet, args):
    r = generate(fleet, *args)
    assert r.returncode == 2 and not r.stdout and "Traceback" not in r.stderr
    assert [line for line in r.stderr.splitlines() if ": error: " in line][0].startswith(
        f"generate_sweep_configs.py {args[0]}: error: argument "), r.stderr


@pytest.mark.parametrize("flag", ["--smoke", "--trim-conc", "--exp-names"])
def test_flags_of_later_reference_generators_are_unknown(fleet, flag):
    """--smoke, --trim-conc and --exp-names came to the reference's generator after the pinned commit
    (which trims in process_changelog.py only): refused as unknown, never taken and ignored."""
    r = generate(fleet, "test-config", "--config-keys", "alpha-*", flag, *(["x"] if flag == "--exp-names" else []))
    assert r.returncode == 2 and not r.stdout and f"unrecognized arguments: {flag}" in r.stderr, r.stderr
