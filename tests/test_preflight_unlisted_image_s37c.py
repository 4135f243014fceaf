"""An image that no `configs/engines/images.json` entry lists was one warning for each engine the rows run in it
(`image X has no vllm manifest` and `image X has no vllm-bench manifest`, both at the config's `image:` line, each
with its own entry to add and command to run). It is one warning for the image, at that line, naming every engine,
its fix the one entry that lists them all and each capture command (s37c)."""

from __future__ import annotations

import subprocess
import sys

from test_preflight_refs import ENV, fleet

IMAGE = "vllm/vllm-openai:v0.12.0"  # listed in no images.json
CONFIG = "configs/nvidia-master.yaml"


def _preflight(repo, *args, **env):
    return subprocess.run([sys.executable, "-m", "sweepgate", "preflight", "--config-keys", "dsr1-fp8-b300-vllm",
                           *args], cwd=repo, capture_output=True, text=True, timeout=300,
                          env={**{k: v for k, v in ENV.items() if k not in ("GITHUB_ACTIONS", "GITHUB_WORKSPACE")},
                               **env})


def test_an_unlisted_image_is_one_warning_naming_each_engine_at_its_image_line(tmp_path):
    repo = fleet(tmp_path, "main")
    config = repo / CONFIG
    text = config.read_text()
    config.write_text(text.replace("vllm/vllm-openai:v0.11.0", IMAGE, 1))
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("dsr1-fp8-b300-vllm:"))
    at = next(i for i in range(start, len(lines)) if "image:" in lines[i])
    place = f"{CONFIG}:{at + 1}:{lines[at].index('image:') + len('image: ') + 1}"  # at the image (s48c)
    proc = _preflight(repo, "--fail-on-warning")
    said = [line for line in proc.stderr.splitlines() if IMAGE in line and "manifest" in line]
    capture = "sweepgate engines capture --engine {0} --out configs/engines/{0}-VERSION.json"
    assert proc.returncode == 3 and said == [
        f"{place}: warning: image {IMAGE} has no vllm or vllm-bench manifest; add the image to "
        f"configs/engines/images.json ('{{\"images\": {{\"{IMAGE}\": {{\"vllm\": \"VERSION\", \"vllm-bench\": "
        "\"VERSION\"}}}', each VERSION the release of its engine the image installs) and capture their manifests: "
        f"{capture.format('vllm')} && {capture.format('vllm-bench')}"], proc.stderr
    assert proc.stderr.splitlines()[-1].split(", ")[-1].startswith("1 warning in "), proc.stderr
    proc = _preflight(repo, GITHUB_ACTIONS="true")
    annotations = [line for line in proc.stderr.splitlines() if line.startswith("::warning") and IMAGE in line]
    assert proc.returncode == 0 and len(annotations) == 1, proc.stderr
    assert annotations[0].startswith(f"::warning file={CONFIG},line={at + 1}::image {IMAGE} has no vllm or "
                                     "vllm-bench manifest"), annotations
