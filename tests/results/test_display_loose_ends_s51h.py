"""s51h: what a maintainer reading a PR's results expects of its table, JSON, comment and verdicts.

- `results compare --json` gave no recipe change, at a point or at an eval score, though both tables have a "recipe
  change" column: each entry now carries ``"recipe-change": {field: [baseline's, run's]}``, each value whole.
- The recipe change cell wrote an image's digest whole (64 hex digits) where the image column cuts one to 12: one
  rule (``labels.short_hex``, through ``labels.image_labels``) for both; ``--json`` keeps it whole.
- A rehearsal against main's real runs read "+99842564.9% improved": its figures are the stand-in server's, no
  performance; such a point is now "rehearsal: not compared with real runs" in the table, the JSON, the charts'
  legends and the PR comment, while a rehearsal against rehearsals is judged as before.
- The PR comment written by hand said the charts "were written to `charts`", a folder its reader cannot see: it now
  says that folder is local to the machine compare ran on and was not uploaded, and names the artifact and run only
  inside a workflow run and for the folder run-sweep.yml uploads (`sweepgate-results/charts`).

Every store is a real SQLite file filled by `results ingest` of real sidecars, and every command a real process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT, ROW, job, md_rows, sweepgate_at, vllm_output, write_job
from test_compare_evals_table import eval_doc

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from github_stub import TOKEN, GitHubStub  # noqa: E402

WORD_JOINER = "\u2060"
MAIN, PR_REF = "refs/heads/main", "refs/pull/7/head"
REPO = "lmsysorg/sglang:v0.5.5-cu129"
MAIN_DIGEST, PR_DIGEST = "5027e95bf6ec" + "1" * 52, "a1b2c3d4e5f6" + "2" * 52
MAIN_IMAGE, PR_IMAGE = f"{REPO}@sha256:{MAIN_DIGEST}", f"{REPO}@sha256:{PR_DIGEST}"


def _ingest(tmp_path, db: str, run: str, day: int, *, ref: str = MAIN, image: str = MAIN_IMAGE,
            rehearsal: bool = False, scale: float = 1.0, evals: bool = True) -> None:
    """One run of one point (conc 4), with its lm-eval scores, ingested as a benchmark job leaves it."""
    row = {**ROW, "image": image, "framework": "sglang", "recipe-fingerprint": ("cd" if image == PR_IMAGE else "ab") * 32}
    folder = tmp_path / run
    side = job(run_id=run, ref=ref, row=row, rehearsal=rehearsal, finished=f"2026-01-{day:02d}T12:00:00+00:00")
    write_job(folder, "res_c4", {**vllm_output(4, output_throughput=409.6 * scale), "date": f"202601{day:02d}-120000"},
              side)
    if evals:
        (folder / "res_c4-eval.json").write_text(json.dumps(eval_doc(4, False)), "utf-8")
    proc = sweepgate_at(tmp_path, "results", "ingest", "--db", db, str(folder))
    assert proc.returncode == 0, proc.stderr


@pytest.fixture(scope="module")
def image_change(tmp_path_factory):
    """(folder, store) of three main runs of one image digest and a PR's run of another."""
    tmp_path = tmp_path_factory.mktemp("image")
    db = f"sqlite:///{tmp_path / 'r.db'}"
    for day, run in enumerate(("101", "102", "103"), start=1):
        _ingest(tmp_path, db, run, day)
    _ingest(tmp_path, db, "200", 5, ref=PR_REF, image=PR_IMAGE)
    return tmp_path, db


def test_compare_json_carries_the_recipe_change_of_points_and_eval_scores_whole(image_change):
    tmp_path, db = image_change
    proc = sweepgate_at(tmp_path, "results", "compare", "--db", db, "--run", "200", "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["points"] and doc["evals"]
    for entry in doc["points"] + doc["evals"]:  # what the table's recipe change column says, the digests whole
        assert entry["recipe-change"] == {"image": [MAIN_IMAGE, PR_IMAGE]}, entry


def test_the_recipe_change_cuts_a_digest_as_the_image_column_does(image_change):
    tmp_path, db = image_change
    said = f"image v0.5.5-cu129@sha256:{MAIN_DIGEST[:12]} \u2192 v0.5.5-cu129@sha256:{PR_DIGEST[:12]}"
    for flags in ([], ["--markdown"]):
        proc = sweepgate_at(tmp_path, "results", "compare", "--db", db, "--run", "200", *flags, columns="400")
        assert proc.returncode == 0, proc.stderr
        text = proc.stdout.replace(WORD_JOINER, "")  # Markdown's, after the `@` (no mention)
        assert said in text, text
        assert MAIN_DIGEST not in text and PR_DIGEST not in text, text
    rows = [row for row in md_rows(text) if row and row[0].startswith("dsr1")]
    said_in = [row[-1] for row in rows if row[-1]]  # said once per point, in the points' and the eval scores' tables
    assert len(said_in) == 2 and set(said_in) == {said}, rows


def _rehearsal_store(tmp_path, main_rehearsed: bool) -> str:
    """Three main runs (rehearsals or real) and a rehearsal of the PR whose output rate is 40 % above theirs."""
    db = f"sqlite:///{tmp_path / 'r.db'}"
    for day, run in enumerate(("101", "102", "103"), start=1):
        _ingest(tmp_path, db, run, day, rehearsal=main_rehearsed, scale=1 + day / 1000)
    _ingest(tmp_path, db, "200", 5, ref=PR_REF, rehearsal=True, scale=1.4)
    return db


def test_a_rehearsal_against_real_runs_states_no_change_anywhere(tmp_path):
    db = _rehearsal_store(tmp_path, main_rehearsed=False)
    proc = sweepgate_at(tmp_path, "results", "compare", "--db", db, "--run", "200", "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["points"] and all(p["verdict"] == "insufficient-data" and p["change"] is None
                                 and p["why"].startswith("rehearsal: not compared with real runs: this run's")
                                 for p in doc["points"]), doc["points"]
    assert doc["points"][0]["baseline"]["median"] is not None  # main's figures still shown beside the rehearsal's
    assert doc["evals"] and all(e["verdict"] == "not-judged" and e["difference"] is None
                                and e["why"].startswith("rehearsal: not compared with real runs") for e in doc["evals"])
    plots = tmp_path / "charts"
    for flags in ([], ["--markdown"], ["--comment-file", "comment.md", "--plots", str(plots)]):
        proc = sweepgate_at(tmp_path, "results", "compare", "--db", db, "--run", "200", *flags, columns="300")
        assert proc.returncode == 0, proc.stderr
        text = (tmp_path / "comment.md").read_text("utf-8") if "--comment-file" in flags else proc.stdout
        assert "improved" not in text.replace("failed, regressed or improved", ""), text
        assert "+40.0%" not in text and "%)" not in text.split("\n", 1)[1].replace("(±0%)", ""), text
        assert "rehearsal: not compared with real runs" in text and "1 point not-compared (6 metrics)" in text, text
    (svg,) = plots.glob("*.svg")
    drawn = svg.read_text("utf-8")
    assert "4 not compared<" in drawn and "; rehearsal: not compared with real runs<" in drawn
    assert "improved" not in drawn and "not judged" not in drawn


def test_a_rehearsal_against_rehearsals_is_judged_as_before(tmp_path):
    db = _rehearsal_store(tmp_path, main_rehearsed=True)
    proc = sweepgate_at(tmp_path, "results", "compare", "--db", db, "--run", "200", "--json", "--plots", "charts")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    tput = next(p for p in doc["points"] if p["metric"] == "output_tput_per_gpu")
    assert tput["verdict"] == "improved" and tput["change"] > 0.35 and "why" not in tput, tput
    assert all(e["verdict"] != "not-judged" for e in doc["evals"]), doc["evals"]
    (svg,) = (tmp_path / "charts").glob("*.svg")
    assert "not compared" not in svg.read_text("utf-8") and "4 improved<" in svg.read_text("utf-8")


def _compare_env(**more: str) -> dict:
    """The environment of a real `sweepgate` process: no Actions variables of the machine, no colour."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "RUNNER_")) and k != "COLUMNS"}
    return {**env, "PYTHONPATH": str(ROOT / "utils"), "NO_COLOR": "1", **more}


def _charts_line(text: str) -> str:
    (line,) = [x for x in text.splitlines() if " (output throughput per GPU against interactivity, PNG and SVG) " in x]
    return line


def test_a_comment_made_by_hand_says_its_charts_are_in_a_local_folder(image_change, tmp_path):
    """`results compare --comment-file` by hand, then `results comment --body` posting it (to a real HTTP stand-in
    of GitHub's API): the comment says where the charts are, that the folder is local and was not uploaded."""
    folder, db = image_change
    out = tmp_path / "sweepgate-results"  # the workflow's folder, by hand: no run uploads it
    out.mkdir()
    proc = subprocess.run([sys.executable, "-m", "sweepgate", "results", "compare", "--db", db, "--run", "200",
                           "--plots", str(out / "charts"), "--comment-file", str(out / "comment.md")],
                          capture_output=True, text=True, cwd=tmp_path, env=_compare_env(), timeout=120)
    assert proc.returncode == 0, proc.stderr
    stub = GitHubStub()
    stub.route("GET", "/user", {"login": "sweepgate-bot", "id": 3, "type": "User"})
    stub.route("GET", "/repos/acme/bench/issues/7/comments", [])
    stub.route("POST", "/repos/acme/bench/issues/7/comments", {"id": 70, "body": "x"}, status=201)
    try:
        proc = subprocess.run([sys.executable, "-m", "sweepgate", "results", "comment", "--body",
                               str(out / "comment.md"), "--pr-number", "7", "--repository", "acme/bench",
                               "--github-api-url", stub.url], capture_output=True, text=True, cwd=tmp_path,
                              env=_compare_env(GITHUB_TOKEN=TOKEN), timeout=120)
    finally:
        stub.close()
    assert proc.returncode == 0, proc.stderr
    (body,) = [payload["body"] for method, _, payload in stub.requests if method == "POST"]
    line = _charts_line(body)
    assert line.startswith("1 chart (output throughput per GPU against interactivity, PNG and SVG) was written to "
                           "`charts`, a local folder on the machine that ran `results compare`, not uploaded with "
                           "this report"), line
    assert "artifact" not in line


def test_a_comment_made_in_a_workflow_run_names_the_artifact_only_for_the_folder_it_uploads(image_change, tmp_path):
    folder, db = image_change
    run = _compare_env(GITHUB_ACTIONS="true", GITHUB_RUN_ID="4242", GITHUB_SERVER_URL="https://github.com",
                       GITHUB_REPOSITORY="acme/bench")
    said = {}
    (tmp_path / "sweepgate-results").mkdir()
    for plots in ("sweepgate-results/charts", "plots"):  # run-sweep.yml's, then a folder no step uploads
        proc = subprocess.run([sys.executable, "-m", "sweepgate", "results", "compare", "--db", db, "--run", "200",
                               "--plots", plots, "--comment-file", "sweepgate-results/comment.md"],
                              capture_output=True, text=True, cwd=tmp_path, env=run, timeout=120)
        assert proc.returncode == 0, proc.stderr
        said[plots] = _charts_line((tmp_path / "sweepgate-results" / "comment.md").read_text("utf-8"))
    assert said["sweepgate-results/charts"].startswith(
        "1 chart (output throughput per GPU against interactivity, PNG and SVG) is in the `charts/` folder of the "
        "`sweepgate-results` artifact of [run 4242](https://github.com/acme/bench/actions/runs/4242#artifacts)")
    assert "artifact" not in said["plots"] and "a local folder on the machine that ran `results compare`" in said["plots"]
