"""The README's *What the workflows run* block, run as written by a maintainer building a CI of their own (s50g).

The block is what each benchmark job and the collect job run, in order. Run line for line on a real job's folder
(a real vLLM output and the sidecar the block's first line writes), its ingest stopped at once: `--jsonl
sweepgate-results/results.jsonl` names a folder nothing had made (a file to write must be in a folder that exists,
CONTRACTS Conventions), exit 1, so the compare, the charts and the comment's body never came. `run-sweep.yml`
makes the folder first (`mkdir -p sweepgate-results`); the README's block now does too. Real bash, a real git
repository and real `sweepgate` processes; the comment job's line, which needs GitHub, is checked to post the
file the compare wrote."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys

from helpers import ROOT, ROW, SAMPLES

SAMPLE = SAMPLES / "vllm" / "ifx_benchserving_kimik2.5_int4_mi355x_tp8_mtp_8k1k_conc32.json"
COMMENT_JOB = "# the comment job"


def _block() -> str:
    """The fenced block under *What the workflows run* in README.md."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    after = readme.split("What the workflows run, in order, for a CI of your own", 1)[1]
    return re.search(r"\n```\n(.*?)\n```\n", after, re.S).group(1)


def test_the_readme_s_ci_block_runs_as_written_on_a_job_s_folder(tmp_path):
    block = _block()
    jobs, comment = block.split(COMMENT_JOB, 1)
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "configs").mkdir()  # the repository's own, as the sidecar's run identity reads it
    shutil.copyfile(ROOT / "configs" / "runners.yaml", tmp_path / "configs" / "runners.yaml")
    name = "kimik2.5_8k1k_conc32"
    (tmp_path / "results").mkdir()
    shutil.copyfile(SAMPLE, tmp_path / "results" / f"{name}.json")
    row = dict(ROW, model="moonshotai/Kimi-K2.5", **{"model-prefix": "kimik2.5", "precision": "int4"},
               runner="mi355x", conc=32, isl=8192, osl=1024, **{"max-model-len": 9472})
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "SWEEPGATE_", "RESULT_"))}
    env.update(PYTHONPATH=str(ROOT / "utils"), ROW=json.dumps(row), RESULT_DIR="results", RESULT_FILENAME=name,
               GITHUB_RUN_ID="7001", GITHUB_RUN_ATTEMPT="1", GITHUB_SHA="c0ffee" * 6 + "abcd",
               GITHUB_REF="refs/pull/5/merge", RUNNER_NAME="mi355x-amds_00", JOB_STATUS="success", PR_NUMBER="5",
               NO_COLOR="1")
    script = f"set -eu\nsweepgate() {{ {shlex.quote(sys.executable)} -m sweepgate \"$@\"; }}\n{jobs}"
    proc = subprocess.run(["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (tmp_path / "results" / f"{name}.job.json").is_file()
    assert json.loads((tmp_path / "sweepgate-results" / "results.jsonl").read_text().splitlines()[0])["run-id"] == "7001"
    body = (tmp_path / "sweepgate-results" / "comment.md").read_text()
    assert "run 7001" in body, body
    assert list((tmp_path / "sweepgate-results" / "charts").glob("*.png"))
    (post,) = [line for line in comment.splitlines() if line.startswith("sweepgate results comment")]
    assert "--body sweepgate-results/comment.md" in post
