"""A plain value where a list goes is told the list to write (new maintainer s47h, pre-commit walk).

`config-keys: KEY` (one key, no list) and `description: "text"` in an appended changelog entry were told
"'KEY' is not of type 'array'; use a value of type array": JSON Schema's word, not YAML's, and no form to
write. The fix now writes the list out from the value given, in flow form, and names the block form."""

from __future__ import annotations

from conftest import CHANGELOG, FLEET_AMD
from test_cli_leftovers_s33h import sweepgate
from test_gate import FIRST, entry, gate, repo  # noqa: F401  (fixtures)


def test_a_single_config_key_or_description_is_told_the_list_to_write(gate):
    text = entry().replace("config-keys:\n    - dsr1-fp4-b300-vllm\n", "config-keys: dsr1-fp4-b300-vllm\n")
    text = text.replace('description:\n    - "Bump the vLLM image"\n', 'description: "Bump the vLLM image, again"\n')
    result = gate(CHANGELOG + "\n" + text)
    assert result.rc == 1
    said = result.err.splitlines()
    assert said == [
        f"perf-changelog.yaml:{FIRST}:16: config-keys: 'dsr1-fp4-b300-vllm' is not of type 'array'; write it as a "
        "list, [dsr1-fp4-b300-vllm], or one '- ITEM' line an item under it",
        f"perf-changelog.yaml:{FIRST + 1}:16: description: 'Bump the vLLM image, again' is not of type 'array'; "
        "write it as a list, [\"Bump the vLLM image, again\"], or one '- ITEM' line an item under it",
    ], result.err


def test_a_single_concurrency_keeps_its_number_in_the_list(make_repo):
    plain = FLEET_AMD.replace("conc-list: [1, 4, 8]", "conc-list: 4")
    assert plain != FLEET_AMD
    repo = make_repo(files={"configs/amd-master.yaml": plain})
    r = sweepgate(["full-sweep"], repo.path)
    said = [s for s in r.stderr.splitlines() if "conc-list" in s]
    assert r.returncode == 1 and len(said) == 1, r.stderr
    assert said[0].endswith("; write it as a list, [4], or one '- ITEM' line an item under it"), said
