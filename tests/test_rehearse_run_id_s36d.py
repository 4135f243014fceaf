"""A rehearsal's job sidecar named its run `rehearsal-<work dir's name>`, so rehearsing a row again with the
same `--work-dir` (or another folder of the same name) made a second run of the same id, attempt and file
name: `results ingest` refused it as a changed stored result ("results are immutable"), its fix naming
`--run-id with --row`, which a sidecar's output is refused. Each rehearsal is now a run of its own, its id
the work dir's name and when it started (s36d, a new user's afternoon)."""

from __future__ import annotations

import json
import re
import subprocess
import sys

from test_preflight_refs import ENV, fleet

ROW = ("--config-keys", "dsr1-fp8-b300-vllm", "--exp-name", "dsr1_8k1k", "--conc", "4", "--where", "tp=8")


def _sweepgate(repo, *args):
    return subprocess.run([sys.executable, "-m", "sweepgate", *args], cwd=repo, capture_output=True, text=True,
                          env={k: v for k, v in ENV.items() if k not in ("GITHUB_ACTIONS", "SWEEPGATE_DB")},
                          timeout=300)


def test_rehearsing_again_in_the_same_work_dir_is_a_run_of_its_own(tmp_path):
    repo = fleet(tmp_path, "main")
    db = f"sqlite:///{tmp_path / 'r.db'}"
    ids = []
    for _ in range(2):
        r = _sweepgate(repo, "rehearse", *ROW, "--work-dir", "work")
        assert r.returncode == 0, r.stderr
        (sidecar,) = (repo / "work" / "results").glob("*.job.json")
        ids.append(json.loads(sidecar.read_text())["job"]["run-id"])
        r = _sweepgate(repo, "results", "ingest", "--db", db, "work/results")
        assert r.returncode == 0 and r.stdout.splitlines()[-1].startswith("ingested 1 results (1 new)"), \
            r.stdout + r.stderr
    assert ids[0] != ids[1] and all(re.fullmatch(r"rehearsal-work-\d{8}T\d{6}Z", i) for i in ids), ids
