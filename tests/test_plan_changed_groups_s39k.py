"""The text plan of a change to a file every config's jobs run (a new AMD + NVIDIA user, s39k)."""

from __future__ import annotations

import json

import yaml

from test_plan import DSR1, DSR1_MI, _plan_cli, dsr1, entry, fleet  # noqa: F401 - the fixture, imported for pytest


def _library_edit_beside_an_image_bump(fleet) -> tuple[str, str]:
    """Base: the fleet with seven more configs of DSR1's recipe; head: DSR1's image bumped (its entry appended)
    and a one-line edit of benchmarks/benchmark_lib.sh, which every config's jobs run."""
    master = yaml.safe_load((fleet.root / "configs/nvidia-master.yaml").read_text())
    extra = {f"{DSR1}-copy{i}": dsr1() for i in range(7)}
    base = fleet.commit({"configs/nvidia-master.yaml": {**master, **extra}}, "more configs")
    bumped = {**master, **extra, DSR1: {**master[DSR1], "image": "vllm/vllm-openai:v0.26.0"}}
    lib = (fleet.root / "benchmarks/benchmark_lib.sh").read_text() + "# tweak\n"
    head = fleet.commit({"configs/nvidia-master.yaml": bumped, "benchmarks/benchmark_lib.sh": lib,
                         "perf-changelog.yaml": fleet.append_changelog(entry(DSR1))}, "head")
    return base, head


def test_configs_changed_only_by_the_same_files_are_one_line_of_the_text_plan(fleet):
    """A one-line edit of benchmarks/lib/clients.sh in a PR that bumped two images printed 208 lines of
    `changed KEY: benchmarks/benchmark_lib.sh`, one per config of the repository, and the two configs the PR
    edited stood somewhere among them. Configs changed by the same files and by no field of their own are now
    one line when there are more than five of them, naming the first few and their count; a config whose
    own fields changed keeps its line; --json still lists each."""
    base, head = _library_edit_beside_an_image_bump(fleet)
    proc = _plan_cli(fleet.root, "--base-ref", base, "--head-ref", head)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.split("\n\n", 1)[0].splitlines()
    changed = [line for line in lines if line.startswith("  changed ")]
    keys = json.loads(_plan_cli(fleet.root, "--base-ref", base, "--head-ref", head, "--json").stdout)["diff"]
    lib_only = [item["key"] for item in keys["changed"] if not item["fields"]]
    assert len(lib_only) > 5 and len(keys["changed"]) == len(lib_only) + 1, keys["changed"]
    assert changed == [f"  changed {DSR1}: image, benchmarks/benchmark_lib.sh",
                       f"  changed {len(lib_only)} config keys: benchmarks/benchmark_lib.sh ({', '.join(lib_only[:3])} "
                       f"and {len(lib_only) - 3} more; plan --json lists each)"], lines


def test_the_markdown_plan_puts_them_on_one_line_too(fleet):
    """The step summary's Recipe changes listed the same 208 bullets; configs changed by the same files alone,
    more than five, are one bullet there too, the configs the PR edited each keeping theirs."""
    base, head = _library_edit_beside_an_image_bump(fleet)
    proc = _plan_cli(fleet.root, "--base-ref", base, "--head-ref", head, "--markdown")
    assert proc.returncode == 0, proc.stderr
    section = proc.stdout.split("### Recipe changes", 1)[1].split("**unchanged**", 1)[0]
    bullets = [line for line in section.splitlines() if line.startswith("- ")]
    keys = json.loads(_plan_cli(fleet.root, "--base-ref", base, "--head-ref", head, "--json").stdout)["diff"]
    lib_only = [item["key"] for item in keys["changed"] if not item["fields"]]
    shown = ", ".join(f"`{key}`" for key in lib_only[:3])
    assert bullets == [f"- `{DSR1}` (selected): fields `image`; `benchmarks/benchmark_lib.sh`",
                       f"- {len(lib_only)} config keys: `benchmarks/benchmark_lib.sh` ({shown} and "
                       f"{len(lib_only) - 3} more; `plan --json` lists each)"], section
