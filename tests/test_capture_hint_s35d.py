"""preflight's fix for an engine version without a manifest was `sweepgate engines capture --engine E --out
configs/engines/E-V.json`, which a repository with no configs/engines/ folder (InferenceX's, any that adopts
sweepgate) is refused at once: `--out: its folder configs/engines does not exist` (s35d). Where the folder is
missing the fix makes it first; where it is there the fix is as before."""

from __future__ import annotations

import shutil

from test_preflight_refs import ENTRY, fleet, git, preflight

PIN = 'readonly _SG_LM_EVAL_VERSION="0.4.9.1"'
CAPTURE = "sweepgate engines capture --engine lm-eval --out configs/engines/lm-eval-0.4.99.json"


def test_the_capture_fix_makes_the_folder_a_repository_lacks(tmp_path):
    repo = fleet(tmp_path, "main")
    lib = repo / "benchmarks/lib/evals.sh"
    assert PIN in lib.read_text()
    lib.write_text(lib.read_text().replace(PIN, PIN.replace("0.4.9.1", "0.4.99")))  # no manifest for it
    with (repo / "perf-changelog.yaml").open("a") as fh:
        fh.write(ENTRY)
    git(repo, "commit", "-qam", "lm-eval 0.4.99")
    r = preflight(repo, "--base-ref", "HEAD~", "--head-ref", "HEAD")
    said = [line for line in r.stderr.splitlines() if "no manifest for lm-eval 0.4.99" in line]
    assert r.returncode == 0 and said and all(line.endswith(f"; capture it: {CAPTURE}") for line in said), r.stderr
    shutil.rmtree(repo / "configs/engines")
    git(repo, "commit", "-qam", "no configs/engines")
    r = preflight(repo, "--base-ref", "HEAD~2", "--head-ref", "HEAD")
    said = [line for line in r.stderr.splitlines() if "no manifest for lm-eval 0.4.99" in line]
    assert said and all(line.endswith(f"; capture it: mkdir -p configs/engines && {CAPTURE}") for line in said), \
        r.stderr
