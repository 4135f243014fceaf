"""A field that takes a mapping, written as a plain value, is told what mapping to write (new user s37d).

InferenceX's configs once wrote `kv-offload-backend: native` (or `lmcache`, `mooncake`, `hicache`); the
schema takes a mapping, `{name: native}`, and the refusal's fix was "use a value of type object", which
says neither YAML's word for it nor what goes in it. The fix now writes the mapping out from the value
given and names the fields the mapping takes.
"""

from __future__ import annotations

from conftest import FLEET_AMD
from test_cli_leftovers_s33h import sweepgate

KEY = "kimik3-fp4-mi355x-vllm-agentic"


def test_a_plain_value_where_a_mapping_goes_is_told_the_mapping_to_write(make_repo):
    plain = FLEET_AMD.replace("kv-offloading: none,", "kv-offloading: dram, kv-offload-backend: native,")
    assert plain != FLEET_AMD
    repo = make_repo(files={"configs/amd-master.yaml": plain})
    line = next(n for n, text in enumerate(plain.splitlines(), 1) if "native" in text)
    for cwd in (repo.path, repo.path / "configs"):
        r = sweepgate(["test-config", "--config-keys", KEY], cwd)
        said = [s for s in r.stderr.splitlines() if "kv-offload-backend" in s]
        assert r.returncode == 1 and len(said) == 1, r.stderr
        assert said[0].startswith(f"configs/amd-master.yaml:{line}:"), said
        assert said[0].endswith("; write it as a mapping, {name: native} (its fields: name, settings, version)"), said
