"""Reuse and moving image tags (s45h, CONTRACTS section 9): a run identity names the image by its string, and a
tag can be pushed again, so a result measured under `vllm/vllm-openai:nightly` says nothing of what `:nightly`
is today. Such a row is never reused (one line per row says why and how to pin it); an image pinned by a
`@sha256:` digest or a tag that names a version, date or commit is reused as before. Real git, real SQLite."""

from __future__ import annotations

import json

import pytest

from conftest import FLEET_NVIDIA
from test_reuse import ROOT, SCRIPTS, SHIPPED, at_main, remaining_rows, reuse_at_merge, script, sg, squash_merged

from sweepgate.core import fields as F
from sweepgate.results import reuse
from sweepgate.results.store import open_store

DIGEST = "lmsysorg/sglang@sha256:" + "a1" * 32


def fleet(vllm_image: str, sglang_image: str) -> str:
    out = FLEET_NVIDIA.replace("image: vllm/vllm-openai:v0.11.0", f"image: {vllm_image}")
    out = out.replace("image: lmsysorg/sglang:v0.5.6", f"image: {sglang_image}")
    assert out.count(vllm_image) == 1 and out.count(sglang_image) == 1
    return out


def reused_at_merge_with(make_repo, tmp_path, vllm_image: str):
    """``ci reuse`` at the squash-merge of a PR swept on the fleet whose vllm rows run ``vllm_image`` (the
    sglang rows pinned by digest): the finished process, the repository, the store's URL and main's SHAs before
    and after the merge."""
    files = {rel: (ROOT / rel).read_text() for rel in SHIPPED}
    files.update({path: script(key) for key, path in SCRIPTS.items()})
    files["configs/nvidia-master.yaml"] = fleet(vllm_image, DIGEST)
    repo = make_repo(files=files)
    db = f"sqlite:///{tmp_path / 'results.db'}"
    main, merged = squash_merged(repo, tmp_path, db)
    return reuse_at_merge(repo, tmp_path, db, *at_main(merged)), repo, db, main, merged


@pytest.mark.parametrize("vllm_image, tag", [("vllm/vllm-openai:nightly", "nightly"),
                                             ("vllm/vllm-openai", None),
                                             ("registry.local:5000/vllm/vllm-openai:latest", "latest")])
def test_a_row_whose_image_is_a_moving_tag_is_never_reused_and_one_line_says_how_to_pin_it(
        make_repo, tmp_path, vllm_image, tag):
    proc, repo, db, main, merged = reused_at_merge_with(make_repo, tmp_path, vllm_image)
    assert proc.returncode == 0, proc.stderr
    # the sglang rows (image pinned by digest) are reused; the vllm rows' results may be of another image
    assert proc.stdout.splitlines()[-1].startswith("reused 2 of 5 jobs"), proc.stdout
    left = sorted((r["framework"], r["conc"]) for r in remaining_rows(tmp_path))
    assert left == [("vllm", 4), ("vllm", 8), ("vllm", 16)]
    said = [line for line in proc.stderr.splitlines() if "moving tag" in line]
    assert len(said) == 3, proc.stderr
    why = f"its tag {tag!r} names no version, date or commit, so it can be pushed again" if tag else "it names no tag (Docker pulls 'latest')"
    for line, conc in zip(said, (4, 8, 16)):
        assert line.startswith(f"sweepgate ci reuse: single_node/1k1k dsr1_1k1k conc {conc} (b300): not reused, "
                               f"image {vllm_image} is a moving tag: {why}; pin it by a version, date or commit "
                               "in the tag, or by @sha256: digest, to reuse its results"), line
    with open_store(db) as store:
        assert sorted(r["conc"] for r in store.run_results("200")) == [4, 8]

    # plan --db previews the same reuse, the same lines in its reuse object
    proc = sg(repo.path, "plan", "--base-ref", main, "--head-ref", merged, "--db", db, "--json")
    assert proc.returncode == 0, proc.stderr
    preview = json.loads(proc.stdout)["reuse"]
    assert (preview["jobs"], preview["of"]) == (2, 5)
    assert [line.split(": ", 1)[1] for line in said] == preview["moving_image"]


@pytest.mark.parametrize("image", [
    # pinned as the reference's configs pin them: a version, a date, a commit in the tag, or a digest
    "vllm/vllm-openai:v0.27.1", "lmsysorg/sglang:v0.5.17-rocm720-mi35x-20260821",
    "lmsysorg/sglang:nightly-dev-cu13-20260821-f825d729", "vllm/vllm-openai:nightly-2dfaae752b4db0d43cfc0715c780e33be030d0f1",
    "rocm/atom-dev:nightly_202608201032", "lmsysorg/sglang:dev-nightly-0820",
    "quay.io/rh-ee-imarkov/llm-d-nokube-vllm:vllm0.26@sha256:" + "a9" * 32,
    "voipmonitor/vllm@sha256:" + "e7" * 32, "registry.local:5000/team/img:v1.2",
])
def test_an_image_pinned_by_version_date_commit_or_digest_is_no_moving_tag(image):
    assert reuse.moving_image(image) is None


@pytest.mark.parametrize("image", ["vllm/vllm-openai:nightly", "vllm/vllm-openai-rocm:nightly", "vllm/vllm-openai",
                                   "lmsysorg/sglang:latest", "lmsysorg/sglang:LATEST", "img:main", "img:dev",
                                   "registry.local:5000/team/img", "img:master", "img:edge"])
def test_a_conventional_moving_tag_or_none_is_one(image):
    assert reuse.moving_image(image) is not None
