"""`sweepgate preflight`'s missing benchmark script names the selected configs that run it (at the
first one's block), not every config of the repository that shares the script."""

from __future__ import annotations

from pathlib import Path

from test_preflight_refs import fleet, git, preflight

SCRIPT = "benchmarks/single_node/agentic/kimik3_fp4_b300_vllm_mtp.sh"
SHARED = ("kimik3-fp4-b300-vllm-agentic-dspark", "kimik3-fp4-b300-vllm-agentic-dspark-lmcache")  # both run SCRIPT


def _preflight(repo: Path, *args: str) -> list[str]:
    proc = preflight(repo, *args)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stdout + proc.stderr
    told = [line for line in proc.stderr.splitlines() if "no benchmark script" in line]
    assert len(told) == 1, proc.stderr
    return told


def test_a_missing_script_names_only_the_selected_configs_that_run_it(tmp_path):
    """`preflight --config-keys ...-lmcache` said "'...-dspark' and '...-lmcache' resolve to no benchmark
    script", at the block of '...-dspark', a config not selected."""
    repo = fleet(tmp_path, "main")
    (repo / SCRIPT).unlink()
    lines = (repo / "configs" / "nvidia-master.yaml").read_text().splitlines()
    line = {key: lines.index(f"{key}:") + 1 for key in SHARED}
    dspark, lmcache = SHARED
    (told,) = _preflight(repo, "--config-keys", lmcache)
    assert told.startswith(f"configs/nvidia-master.yaml:{line[lmcache]}: '{lmcache}' (agentic-coding) resolves to "
                           f"no benchmark script: none of {SCRIPT}, "), told
    assert "exists (1 other config, not selected, runs it too)" in told and f"'{dspark}'" not in told, told
    (told,) = _preflight(repo, "--config-keys", *SHARED)  # both selected: both named, at the first
    assert told.startswith(f"configs/nvidia-master.yaml:{line[dspark]}: '{dspark}' and '{lmcache}' (agentic-coding) "
                           "resolve to no benchmark script") and "not selected" not in told, told
    # the change's matrix (--base-ref/--head-ref) selects by its changelog entry
    git(repo, "commit", "-qam", "drop the script")
    with open(repo / "perf-changelog.yaml", "a") as fh:
        fh.write(f'\n- config-keys:\n    - {lmcache}\n  description:\n    - "x"\n'
                 "  pr-link: https://github.com/sweepgate/example-fleet/pull/6\n")
    git(repo, "commit", "-qam", "head")
    (told,) = _preflight(repo, "--base-ref", "HEAD~", "--head-ref", "HEAD")
    assert told.startswith(f"configs/nvidia-master.yaml:{line[lmcache]}: '{lmcache}' (agentic-coding) resolves"), told
    assert "(1 other config, not selected, runs it too)" in told, told
