"""preflight's fix for an engine without a manifest, as a new user meets it (s36d).

An image that `configs/engines/images.json` does not list was told
`add it to this repository's configs/engines/images.json ('{"images": {IMAGE: {ENGINE: VERSION}}}') and capture
the version's manifest there`: placeholders for the image and engine it had just named, and no command, where
README promises the `engines capture` command (after `mkdir -p configs/engines` where the folder is missing).
And `engines capture --out` is a path from the current folder: run from a subdirectory, as every command may be,
the fix's `--out configs/engines/...` named a folder that is not there (`configs/configs/engines`)."""

from __future__ import annotations

import shutil
import subprocess
import sys

from test_preflight_refs import ENTRY, ENV, fleet, git

IMAGE = "vllm/vllm-openai:v0.12.0"  # listed in no images.json


def _run(cwd, *args):
    return subprocess.run([sys.executable, "-m", "sweepgate", "preflight", *args], cwd=cwd, capture_output=True,
                          text=True, env={k: v for k, v in ENV.items() if k != "GITHUB_ACTIONS"}, timeout=300)


def _said(proc):
    """The one warning of the image, of both engines its rows run (s37c: one warning per engine before)."""
    return [line for line in proc.stderr.splitlines() if f"image {IMAGE} has no vllm or vllm-bench manifest" in line]


def test_an_unlisted_image_is_told_the_entry_to_add_and_the_capture_command(tmp_path):
    repo = fleet(tmp_path, "main")
    config = repo / "configs/nvidia-master.yaml"
    config.write_text(config.read_text().replace("vllm/vllm-openai:v0.11.0", IMAGE, 1))
    with (repo / "perf-changelog.yaml").open("a") as fh:
        fh.write(ENTRY)
    git(repo, "commit", "-qam", "an image no images.json lists")
    proc = _run(repo, "--base-ref", "HEAD~", "--head-ref", "HEAD")
    said = _said(proc)
    assert proc.returncode == 0 and len(said) == 1, proc.stderr
    hint = said[0].split("; ", 1)[1]
    assert f'{{"images": {{"{IMAGE}": {{"vllm": "VERSION", "vllm-bench": "VERSION"}}}}}}' in hint, hint
    assert hint.endswith("sweepgate engines capture --engine vllm --out configs/engines/vllm-VERSION.json && sweepgate "
                         "engines capture --engine vllm-bench --out configs/engines/vllm-bench-VERSION.json"), hint

    shutil.rmtree(repo / "configs/engines")  # a repository that has no such folder: made first
    git(repo, "commit", "-qam", "no configs/engines")
    proc = _run(repo / "configs", "--base-ref", "HEAD~2", "--head-ref", "HEAD")  # from a subdirectory
    (line,) = _said(proc)
    # every path of the fix from where it was run (s37i: images.json was named from the top, beside `mkdir -p engines`)
    made = "; mkdir -p engines, then add the image to engines/images.json ("
    assert made in line, proc.stderr
    assert line.endswith("sweepgate engines capture --engine vllm-bench --out engines/vllm-bench-VERSION.json"), line
    assert line.startswith("configs/nvidia-master.yaml:"), line  # the place stays the repository's, as every one's


def test_a_version_without_a_manifest_is_told_a_capture_that_runs_where_the_user_is(tmp_path):
    repo = fleet(tmp_path, "main")
    lib = repo / "benchmarks/lib/evals.sh"
    pin = 'readonly _SG_LM_EVAL_VERSION="0.4.9.1"'
    lib.write_text(lib.read_text().replace(pin, pin.replace("0.4.9.1", "0.4.99")))
    with (repo / "perf-changelog.yaml").open("a") as fh:
        fh.write(ENTRY)
    git(repo, "commit", "-qam", "lm-eval 0.4.99")
    (repo / "benchmarks/single_node").mkdir(exist_ok=True)
    proc = _run(repo / "benchmarks/single_node", "--base-ref", "HEAD~", "--head-ref", "HEAD")
    said = [line for line in proc.stderr.splitlines() if "no manifest for lm-eval 0.4.99" in line]
    capture = "sweepgate engines capture --engine lm-eval --out ../../configs/engines/lm-eval-0.4.99.json"
    assert said and all(line.endswith(f"; capture it: {capture}") for line in said), proc.stderr
