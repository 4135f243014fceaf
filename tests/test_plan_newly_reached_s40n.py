"""s40n: `sweepgate plan` compared each file a config's jobs run at either revision (``RecipeSet.support``) as each
revision had read it, and a revision reads only what its own jobs reach. A head whose launcher newly sources a file
that was there, unchanged, at the base (a helper, or `source "$GITHUB_WORKSPACE/vendor/tools/env.sh"`, which
reaches the submodule vendor/tools) found no base content for it, so the untouched file was a changed support file of
the config and an unlisted-change of its own. The other revision's content of such a file is now read (a submodule as
the commit it records) and only a file whose bytes or commit differ is a change. Real git repositories; the submodule
is a real index entry (mode 160000)."""

from __future__ import annotations

import pytest

from test_plan import DSR1_MI, Repo, base_fleet, make, rules

from sweepgate.core import fields as F

LAUNCHER = "benchmarks/runners/launch_mi355x-amds.sh"
HELPER = "benchmarks/helpers/tune.sh"
SUBMODULE = "vendor/tools"
ONE, TWO = "1" * 40, "2" * 40
PLAIN = "#!/usr/bin/env bash\nsource benchmarks/runners/launch_common.sh\n"
VENV = 'uv venv "$GITHUB_WORKSPACE/.venv"\nsource "$GITHUB_WORKSPACE/.venv/bin/activate"\n'
# reaches SUBMODULE (s40m: a `source` from the workspace reaches the submodules its names go through, a venv's none)
REACH = VENV + 'source "$GITHUB_WORKSPACE/vendor/tools/env.sh"\n'


def _gitlink(r: Repo, commit: str) -> None:
    """Record SUBMODULE at ``commit`` in the index (its folder there, empty: not initialized)."""
    (r.root / SUBMODULE).mkdir(parents=True, exist_ok=True)
    r.git("update-index", "--add", "--cacheinfo", f"160000,{commit},{SUBMODULE}")


@pytest.fixture
def fleet(tmp_path):
    """The plan fixtures' fleet with launchers, the library's parts, HELPER and SUBMODULE at ONE."""
    root = tmp_path / "repo"
    root.mkdir()
    r = Repo(root)
    launchers = {f"benchmarks/runners/{name}.sh": PLAIN
                 for name in ("launch_b300-nv", "launch_mi355x-amds", "launch_gb200-nv")}
    launchers["benchmarks/runners/launch_common.sh"] = "launch::resolve_script() { :; }\n"
    launchers.update({part: "true\n" for part in F.BENCHMARK_LIB_PARTS})
    r.write({**base_fleet(), **launchers, HELPER: "export TUNE=1\n"})
    _gitlink(r, ONE)
    r.base = r.commit({}, "base")
    return r


def _changed(p: dict) -> dict[str, list[str]]:
    return {c["key"]: c["support_files"] for c in p["diff"]["changed"]}


def _unlisted(p: dict) -> list[str]:
    return [w["file"] for w in rules(p, "unlisted-change")]


def test_an_unchanged_submodule_a_launcher_newly_reaches_is_no_change(fleet):
    p = make(fleet, {LAUNCHER: PLAIN + REACH})
    assert _changed(p) == {DSR1_MI: [LAUNCHER]}
    assert _unlisted(p) == [LAUNCHER]


def test_an_unchanged_helper_a_launcher_newly_sources_is_no_change(fleet):
    p = make(fleet, {LAUNCHER: PLAIN + f"source {HELPER}\n"})
    assert _changed(p) == {DSR1_MI: [LAUNCHER]}
    assert _unlisted(p) == [LAUNCHER]


def test_an_unchanged_helper_a_launcher_no_longer_sources_is_no_change(fleet):
    fleet.base = fleet.commit({LAUNCHER: PLAIN + f"source {HELPER}\n"}, "base sources the helper")
    p = make(fleet, {LAUNCHER: PLAIN})
    assert _changed(p) == {DSR1_MI: [LAUNCHER]}
    assert _unlisted(p) == [LAUNCHER]


def test_a_changed_helper_a_launcher_newly_sources_is_still_a_change(fleet):
    p = make(fleet, {LAUNCHER: PLAIN + f"source {HELPER}\n", HELPER: "export TUNE=2\n"})
    assert _changed(p) == {DSR1_MI: [LAUNCHER, HELPER]}
    assert sorted(_unlisted(p)) == sorted([LAUNCHER, HELPER])


def test_a_new_helper_a_launcher_newly_sources_is_still_a_change(fleet):
    p = make(fleet, {LAUNCHER: PLAIN + "source benchmarks/helpers/new.sh\n", "benchmarks/helpers/new.sh": "true\n"})
    assert _changed(p) == {DSR1_MI: [LAUNCHER, "benchmarks/helpers/new.sh"]}


def test_a_bumped_submodule_a_launcher_newly_reaches_is_still_a_change(fleet):
    _gitlink(fleet, TWO)
    p = make(fleet, {LAUNCHER: PLAIN + REACH})
    assert _changed(p) == {DSR1_MI: [LAUNCHER, SUBMODULE]}
    assert sorted(_unlisted(p)) == sorted([LAUNCHER, SUBMODULE])


def test_a_submodule_the_head_adds_where_a_launcher_newly_reaches_is_a_change(fleet):
    fleet.git("rm", "-q", "--cached", SUBMODULE)
    fleet.base = fleet.commit({}, "no submodule at the base")
    _gitlink(fleet, ONE)
    p = make(fleet, {LAUNCHER: PLAIN + REACH})
    assert _changed(p) == {DSR1_MI: [LAUNCHER, SUBMODULE]}
