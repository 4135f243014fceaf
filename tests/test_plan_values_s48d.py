"""A new user from a wheel (s48d) bumped one config's image: `plan` said `changed KEY: image`, the Markdown
`fields `image``, and neither said from what to what, while `results compare` names the same change as
`image v0.25.0 -> v0.26.0`. The plan now says each changed field's value before and after, under the config's
line (text), in a bullet under its own (Markdown) and as `values` (--json)."""

from __future__ import annotations

import json

import yaml

from test_plan import DSR1, _plan_cli, entry, fleet  # noqa: F401 - the fixture, imported for pytest

NEW_IMAGE = "vllm/vllm-openai:v0.26.0"


def _image_bump(fleet) -> tuple[str, str, str]:
    """(base, head, the image DSR1 had): head bumps DSR1's image and appends its entry."""
    master = yaml.safe_load((fleet.root / "configs/nvidia-master.yaml").read_text())
    old = master[DSR1]["image"]
    base = fleet.commit({"configs/nvidia-master.yaml": master}, "base")
    head = fleet.commit({"configs/nvidia-master.yaml": {**master, DSR1: {**master[DSR1], "image": NEW_IMAGE}},
                         "perf-changelog.yaml": fleet.append_changelog(entry(DSR1))}, "head")
    return base, head, old


def test_the_text_plan_says_a_changed_field_s_values(fleet):
    base, head, old = _image_bump(fleet)
    proc = _plan_cli(fleet.root, "--base-ref", base, "--head-ref", head)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.split("\n\n", 1)[0].splitlines()
    at = lines.index(f"  changed {DSR1}: image")  # the line itself as before
    assert lines[at + 1] == f"    image: {old} \u2192 {NEW_IMAGE}", lines


def test_the_markdown_and_json_plans_say_them_too(fleet):
    base, head, old = _image_bump(fleet)
    md = _plan_cli(fleet.root, "--base-ref", base, "--head-ref", head, "--markdown").stdout
    section = md.split("### Recipe changes", 1)[1].split("**unchanged**", 1)[0].splitlines()
    at = section.index(f"- `{DSR1}` (selected): fields `image`")
    assert section[at + 1] == f"  - `image`: `{old}` \u2192 `{NEW_IMAGE}`", section
    plan = json.loads(_plan_cli(fleet.root, "--base-ref", base, "--head-ref", head, "--json").stdout)
    (changed,) = [c for c in plan["diff"]["changed"] if c["key"] == DSR1]
    assert changed["values"] == {"image": [old, NEW_IMAGE]}, changed


def test_a_field_added_reads_none_before(fleet):
    master = yaml.safe_load((fleet.root / "configs/nvidia-master.yaml").read_text())
    base = fleet.commit({"configs/nvidia-master.yaml": master}, "base")
    edited = {**master[DSR1], "server-ready-timeout": 5400}
    head = fleet.commit({"configs/nvidia-master.yaml": {**master, DSR1: edited},
                         "perf-changelog.yaml": fleet.append_changelog(entry(DSR1))}, "head")
    proc = _plan_cli(fleet.root, "--base-ref", base, "--head-ref", head)
    assert proc.returncode == 0, proc.stderr
    assert "    server-ready-timeout: (none) \u2192 5400\n" in proc.stdout, proc.stdout
