"""`sweepgate plan` hashes what the run identity hashes (s39w): a helper reached only through a `source` the
plan's own reading did not follow (`source "$GITHUB_WORKSPACE/..."`, `cd` to where only the run knows, a helper a
launcher sources, plainly or in `bash -c "source ..."`) changed the identity, and so reuse, while the plan saw no
changed config and warned nothing for a PR without a changelog entry. A script's own `bash -c`/heredoc sources the
plan followed already: kept as guards."""

from __future__ import annotations

import pytest

from test_plan import DSR1, DSR1_MI, DSR1_SCRIPT, DSPARK, Repo, base_fleet, entry, fleet, make, rules  # noqa: F401

from sweepgate.core import fields as F
from sweepgate.core import identity
from sweepgate.core.load import Git

HELPER = "benchmarks/helpers/tune.sh"
LAUNCHER = "benchmarks/runners/launch_mi355x-amds.sh"

# how DSR1's script (or the mi355x launcher) reaches HELPER
REACHES = {
    "bash -c": (DSR1_SCRIPT, f'#!/usr/bin/env bash\nsource benchmarks/benchmark_lib.sh\n'
                             f'bash -c "source {HELPER}; vllm serve dsr1"\n'),
    "workspace prefix": (DSR1_SCRIPT, '#!/usr/bin/env bash\nsource benchmarks/benchmark_lib.sh\n'
                                      f'source "$GITHUB_WORKSPACE/{HELPER}"\nvllm serve dsr1\n'),
    "cd elsewhere": (DSR1_SCRIPT, '#!/usr/bin/env bash\nsource benchmarks/benchmark_lib.sh\n'
                                  f'cd /workspace\nsource {HELPER}\nvllm serve dsr1\n'),
    "heredoc to a shell": (DSR1_SCRIPT, '#!/usr/bin/env bash\nsource benchmarks/benchmark_lib.sh\n'
                                        f"bash <<'EOF'\nsource {HELPER}\nvllm serve dsr1\nEOF\n"),
    "launcher": (LAUNCHER, f'#!/usr/bin/env bash\nsource "$GITHUB_WORKSPACE/{HELPER}"\n'),
    "launcher bash -c": (LAUNCHER, f'#!/usr/bin/env bash\nsrun bash -c "source {HELPER} && run"\n'),
}
# the plan's reading placed these already (a helper of the script itself); the others it did not follow
PLACED = ("bash -c", "heredoc to a shell")


@pytest.fixture
def reached(tmp_path, request):
    root = tmp_path / "repo"
    root.mkdir()
    r = Repo(root)
    path, text = REACHES[request.param]
    launchers = {f"benchmarks/runners/{name}.sh": "#!/usr/bin/env bash\nsource benchmarks/runners/launch_common.sh\n"
                 for name in ("launch_b300-nv", "launch_mi355x-amds", "launch_gb200-nv")}
    launchers["benchmarks/runners/launch_common.sh"] = "launch::resolve_script() { :; }\n"
    launchers.update({part: "true\n" for part in F.BENCHMARK_LIB_PARTS})  # a row without them has no identity
    r.base = r.commit({**base_fleet(), **launchers, path: text, HELPER: "export TUNE=1\n"}, "base")
    r.user = DSR1_MI if path == LAUNCHER else DSR1
    return r


def _identities(r: Repo, ref: str) -> dict[str, str | None]:
    """The run identity of one row of each config whose jobs may reach HELPER, at ``ref``."""
    import yaml

    git = Git(r.root)
    runners = yaml.safe_load(git.read_blobs(ref, ["configs/runners.yaml"])["configs/runners.yaml"])
    out = {}
    for key, master in ((DSR1, "configs/nvidia-master.yaml"), (DSR1_MI, "configs/amd-master.yaml")):
        config = yaml.safe_load(git.read_blobs(ref, [master])[master])[key]
        row = {f: config[f] for f in ("model-prefix", "precision", "framework", "runner")}
        row.update({"scenario-type": "fixed-seq-len", "conc": 4, "isl": 1024, "osl": 1024})
        out[key] = identity.identities([row], runners, identity.read_git(git, ref))[0]
    return out


@pytest.mark.parametrize("reached", list(REACHES), indirect=True)
def test_a_helper_the_identity_hashes_is_a_recipe_change_of_the_configs_reaching_it(reached, request):
    r = reached
    head = r.commit({HELPER: "export TUNE=2\n"}, "head")
    before, after = _identities(r, r.base), _identities(r, head)
    assert before[r.user] and before[r.user] != after[r.user]  # the identity sees the change ...
    p = make(r, {})
    changed = {c["key"]: c for c in p["diff"]["changed"]}
    assert set(changed) == {r.user}, p["diff"]  # ... and so does the plan, for the configs reaching it alone
    assert DSPARK not in changed
    (w,) = rules(p, "unlisted-change")
    if request.node.callspec.params["reached"] in PLACED:  # said as the script's own helper, as before
        assert w["file"] == DSR1_SCRIPT and "or a file it sources changed" in w["message"] and r.user in w["message"]
    else:
        assert w["file"] == HELPER and r.user in w["message"], w
        assert changed[r.user]["support_files"] == [HELPER]


@pytest.mark.parametrize("reached", ["bash -c", "workspace prefix", "launcher", "launcher bash -c"], indirect=True)
def test_the_helper_change_selected_through_its_config_is_quiet(reached):
    r = reached
    p = make(r, {HELPER: "export TUNE=3\n", "perf-changelog.yaml": r.append_changelog(entry(r.user, pr=7))})
    assert rules(p, "unlisted-change") == []
    assert {c["key"] for c in p["diff"]["changed"]} == {r.user}


def test_a_benchmark_folder_helper_reached_through_the_workspace_is_no_unused_script(fleet):
    """A helper beside the scripts that one reaches only through `$GITHUB_WORKSPACE` is run by its jobs: its change
    is theirs, not that of a script no config resolves to."""
    helper = "benchmarks/single_node/fixed_seq_len/b300_tune.sh"
    fleet.base = fleet.commit({DSR1_SCRIPT: '#!/usr/bin/env bash\nsource benchmarks/benchmark_lib.sh\n'
                                            f'source "$GITHUB_WORKSPACE/{helper}"\nvllm serve dsr1\n',
                               helper: "X=1\n"}, "helper")
    p = make(fleet, {helper: "X=2\n"})
    assert rules(p, "unused-script") == []
    (w,) = rules(p, "unlisted-change")
    assert w["file"] == helper and DSR1 in w["message"]
