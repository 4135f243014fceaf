"""s48b: `results show` had no image column, so main's line and a PR's line of one recipe that differ only in the
engine image (the PR bumps it) read alike but for their ref and figures: nothing said why they differ.

Where the lines shown ran more than one image, an ``image`` column names each by what tells them apart (a tag of
one repository as its tag; a digest by its first 12 hex digits; a commit hash in a tag likewise); where every line
ran one image the table is as before. ``--json`` keeps the image whole. Image names below are the reference's real
ones (its configs' history).
"""

from __future__ import annotations

import io
import json

import pytest
from helpers import ROW, job, run_cli, vllm_output, write_job

import synth  # noqa: F401 - puts utils/ on sys.path
from sweepgate.results import labels as L
from sweepgate.results import record as R
from sweepgate.results import show

SGLANG = "lmsysorg/sglang:v0.5.14-cu130@sha256:5027e95bf6ec536856b1b52a91d1f35ff5c564ab83e8a94758a169ff09bb8df3"


def _bumped_store(tmp_path, capsys, pr_image: str, main_image: str = ROW["image"]) -> str:
    """main's run and a PR's run of one recipe at conc 4 and 8, the PR's on ``pr_image``."""
    for conc in (4, 8):
        write_job(tmp_path / "main", f"c{conc}", vllm_output(conc), job(row={**ROW, "conc": conc, "image": main_image}))
        write_job(tmp_path / "pr", f"c{conc}", vllm_output(conc, output_throughput=500.0),
                  job(run_id="2002", ref="refs/pull/42/merge", row={**ROW, "conc": conc, "image": pr_image,
                                                                   "recipe-fingerprint": "cd" * 32}))
    db = f"sqlite:///{tmp_path / 'r.db'}"
    assert run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path))[0] == 0
    return db


def _cells(out: str) -> tuple[list[str], list[list[str]]]:
    lines = [line for line in out.splitlines() if "│" in line or "┃" in line]
    header, *body = [[c.strip() for c in line.strip()[1:-1].split("│" if "│" in line else "┃")] for line in lines]
    return header, body


def test_main_s_and_a_pr_s_lines_that_differ_in_the_image_name_their_tags(tmp_path, capsys):
    db = _bumped_store(tmp_path, capsys, "vllm/vllm-openai:v0.12.0")
    rc, out, err = run_cli(capsys, "results", "show", "--db", db)
    assert (rc, err) == (0, ""), err
    header, body = _cells(out)
    assert [(row[header.index("ref")], row[header.index("image")]) for row in body] == [
        ("main", "v0.11.0"), ("pull/42/merge", "v0.12.0"), ("main", "v0.11.0"), ("pull/42/merge", "v0.12.0")], out
    assert header.index("image") == header.index("recipe") + 1, header  # the image is part of what ran
    assert {r[R.IMAGE] for r in json.loads(run_cli(capsys, "results", "show", "--db", db, "--json")[1])} == {
        ROW["image"], "vllm/vllm-openai:v0.12.0"}  # --json: whole


def test_lines_of_one_image_have_no_image_column(tmp_path, capsys):
    db = _bumped_store(tmp_path, capsys, ROW["image"])
    header, body = _cells(run_cli(capsys, "results", "show", "--db", db)[1])
    assert "image" not in header and len(body) == 4, header


def test_on_an_80_column_terminal_each_line_s_block_names_its_image(tmp_path, capsys, monkeypatch):
    db = _bumped_store(tmp_path, capsys, SGLANG, main_image="lmsysorg/sglang:v0.5.14-cu130@sha256:" + "1bf5d508" * 8)
    monkeypatch.setenv("COLUMNS", "80")
    out = run_cli(capsys, "results", "show", "--db", db)[1]
    assert max(map(len, out.splitlines())) <= 80, out
    assert out.count("image v0.5.14-cu130@sha256:5027e95bf6ec") == 2, out
    assert out.count("image v0.5.14-cu130@sha256:1bf5d5081bf5") == 2, out


@pytest.mark.parametrize("images, said", [
    (["vllm/vllm-openai:v0.11.0", "vllm/vllm-openai:v0.12.0"], ["v0.11.0", "v0.12.0"]),
    # two repositories: each by its last part, with its tag
    (["vllm/vllm-openai:v0.11.0", SGLANG], ["vllm-openai:v0.11.0", "sglang:v0.5.14-cu130"]),
    # one tag pinned by two digests: the tag, and the digest's first 12 hex digits
    ([SGLANG, SGLANG.replace("5027e95bf6ec", "000000000000")],
     ["v0.5.14-cu130@sha256:5027e95bf6ec", "v0.5.14-cu130@sha256:000000000000"]),
    # a nightly's commit hash in its tag, as git names a commit short
    (["vllm/vllm-openai:nightly-cb8104839c141609d99f1254459ef3a4f1bd4263",
      "vllm/vllm-openai:nightly-311b3513af33bc29b4acb2fde2e9313e5e9966a0"],
     ["nightly-cb8104839c14", "nightly-311b3513af33"]),
    # two repositories of one last part (an enroot `#` registry, too): each whole but its tag
    (["nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:0.8.1.post2", "nvcr.io#nvidia/ai-dynamo/tensorrtllm-runtime:0.8.1.post2",
      "ghcr.io/x/tensorrtllm-runtime:0.8.1.post2"],
     ["nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:0.8.1.post2",
      "nvcr.io#nvidia/ai-dynamo/tensorrtllm-runtime:0.8.1.post2", "ghcr.io/x/tensorrtllm-runtime:0.8.1.post2"]),
    # an image with no tag (Docker's latest) by its name, and so each beside it; a registry's port is no tag
    (["localhost:5000/vllm", "localhost:5000/vllm:v1"], ["vllm", "vllm:v1"]),
    # shortened alike (the same first 12 digits of two commits): written whole
    (["v/v:nightly-" + "a" * 12 + "1" * 28, "v/v:nightly-" + "a" * 12 + "2" * 28],
     ["v/v:nightly-" + "a" * 12 + "1" * 28, "v/v:nightly-" + "a" * 12 + "2" * 28]),
])
def test_an_image_is_named_by_what_tells_the_lines_images_apart(images, said):
    assert [L.image_labels(images)[image] for image in images] == said


def test_the_image_column_is_coloured_as_its_row_and_plain_when_piped():
    records = [{R.CONFIG_KEY: "k", R.CONC: 4, R.STATUS: "success", R.RUN_ID: str(n), R.REF: ref, R.IMAGE: image,
                R.RESULT_FILENAME: "a.json", R.METRICS: {R.OUTPUT_TPUT_PER_GPU: 1.0}}
               for n, (ref, image) in enumerate([("refs/heads/main", "a/b:v1"), ("refs/pull/1/merge", "a/b:v2")])]
    out = io.StringIO()
    show.table(show.one_per_point(records), out, "all points")
    assert "\x1b" not in out.getvalue() and "│ v2 " in out.getvalue(), out.getvalue()
