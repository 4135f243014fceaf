"""The text plan says what its estimated GPU-hours stand on (a new AMD + NVIDIA user, s39k)."""

from __future__ import annotations

from test_plan import DSR1, DSR1_MI, _plan_cli, entry, fleet  # noqa: F401 - the fixture, imported for pytest


def test_the_text_plan_says_the_minutes_its_estimates_charge_and_where_they_come_from(fleet):
    """`plan` printed `21 benchmark jobs, 84.0 GPU-hours (all estimated)` and nothing of what was estimated:
    a repository without configs/estimates.yaml is charged sweepgate's built-in 30 minutes a job, whatever its
    jobs take, and only --markdown said so. The text plan now says the minutes a job of each bucket is charged,
    where they come from, and the file that sets them; a repository's own file is named as the source."""
    refs = ("--base-ref", fleet.base, "--head-ref",
            fleet.commit({"perf-changelog.yaml": fleet.append_changelog(entry(DSR1, DSR1_MI))}, "head"))
    proc = _plan_cli(fleet.root, *refs)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.split("\n\n", 1)[0].splitlines()
    said = [line for line in lines if line.startswith("  estimated: ")]
    assert said == ["  estimated: minutes a job × the GPUs it holds; single_node/1k1k 20 min, single_node/8k1k "
                    "30 min, evals 30 min (sweepgate's built-in defaults; configs/estimates.yaml sets them)"], lines
    assert lines.index(said[0]) == 1 + sum(1 for line in lines if line.startswith("  cluster:") or
                                           line.startswith("  mi355x"))
    fleet.commit({"configs/estimates.yaml": "minutes-per-job:\n  8k1k: 90\n"}, "own minutes")
    own = _plan_cli(fleet.root, *refs[:3], "HEAD")
    assert own.returncode == 0, own.stderr
    assert ("  estimated: minutes a job × the GPUs it holds; single_node/1k1k 20 min, single_node/8k1k 90 min, "
            "evals 30 min (configs/estimates.yaml)") in own.stdout.splitlines(), own.stdout
