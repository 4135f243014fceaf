"""The mapping a plain value is told to write reads back as that value (review finding, s37n).

`kv-offload-backend: "yes"` is refused as not a mapping, and the fix wrote it out as `{name: yes}`; YAML 1.1
reads that `yes` as true (`on` too; `null` as nothing, `1.0` as a number, `2024-01-01` as a date), so whoever
followed the fix met a new refusal. The fix now quotes a value that YAML would not read back as written.
"""

from __future__ import annotations

import pytest
from conftest import FLEET_AMD
from test_cli_leftovers_s33h import sweepgate

KEY = "kimik3-fp4-mi355x-vllm-agentic"


def _refusals(make_repo, backend: str):
    text = FLEET_AMD.replace("kv-offloading: none,", f"kv-offloading: dram, kv-offload-backend: {backend},")
    assert text != FLEET_AMD
    repo = make_repo(files={"configs/amd-master.yaml": text})
    r = sweepgate(["test-config", "--config-keys", KEY], repo.path)
    return r, [s for s in r.stderr.splitlines() if "kv-offload-backend" in s]


@pytest.mark.parametrize("written", ['"yes"', '"on"', '"null"', '"1.0"', '"2024-01-01"', "2"])
def test_the_mapping_told_is_read_back_as_the_value_given(make_repo, written):
    r, said = _refusals(make_repo, written)
    assert r.returncode == 1 and len(said) == 1, r.stderr
    fix = said[0].split("; write it as a mapping, ", 1)[1].split(" (its fields", 1)[0]
    # Following the fix, the backend is refused for nothing: its name is the text given, and a word.
    r, said = _refusals(make_repo, fix)
    assert said == [] and fix.startswith("{name: \"") and written.strip("'\"") in fix, (fix, r.stderr)


def test_a_plain_word_is_still_written_without_quotes(make_repo):
    r, said = _refusals(make_repo, '"lmcache"')
    assert r.returncode == 1 and len(said) == 1, r.stderr
    assert said[0].endswith("; write it as a mapping, {name: lmcache} (its fields: name, settings, version)"), said
