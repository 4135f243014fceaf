"""Baseline from the results artifacts of the last N successful main runs (PyGithub), against
the local GitHub REST stand-in (tests/github_stub.py) answering the endpoints used, in their
documented shapes: get a workflow, list its runs, list a run's artifacts, download an artifact
(302 to a zip)."""

from __future__ import annotations

import io
import json
import sys
import zipfile
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import synth  # noqa: E402
from github_stub import TOKEN, GitHubStub  # noqa: E402
from sweepgate import cli  # noqa: E402
from sweepgate.core import github  # noqa: E402
from sweepgate.core.errors import SweepgateError  # noqa: E402
from sweepgate.results import source, store  # noqa: E402

OWNER, NAME, WF_ID = "acme", "bench", 161335
REPO = f"/repos/{OWNER}/{NAME}"
RUNS_PATHS = (f"{REPO}/actions/workflows/{WF_ID}/runs", f"{REPO}/actions/workflows/run-sweep.yml/runs")
RUNS_QUERY = {"branch": ["main"], "status": ["success"], "event": ["push"]}  # main's own sweeps, not PR ones


def artifact_zip(records: list[dict], extra: dict | None = None) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("results.jsonl", "".join(json.dumps(r) + "\n" for r in records))
        zf.writestr("results.db", b"SQLite format 3\0 (not read)")
        for name, data in (extra or {}).items():
            zf.writestr(name, data)
    return buf.getvalue()


class Actions:
    """Workflow runs on main (newest first, as GitHub lists them), each with artifacts, served
    by a GitHubStub; the artifact routes read ``runs`` when asked, so tests may swap a zip."""

    def __init__(self, stub: GitHubStub):
        self.stub, self.url = stub, stub.url
        self.runs: list[dict] = []       # {"id", "artifacts": [{"id", "name", "zip", "expired"}]}
        stub.route("GET", REPO, {"id": 1, "name": NAME, "full_name": f"{OWNER}/{NAME}", "url": self.url + REPO})
        stub.route("GET", f"{REPO}/actions/workflows/run-sweep.yml",
                   {"id": WF_ID, "name": "run-sweep", "path": ".github/workflows/run-sweep.yml",
                    "state": "active", "url": f"{self.url}{REPO}/actions/workflows/{WF_ID}"})
        for path in RUNS_PATHS:  # {workflow_id} is the workflow's id or its file name
            stub.route("GET", path, lambda _payload, query, path=path: self.list_runs(path, query))

    def add_run(self, run: dict) -> None:
        self.runs.append(run)
        self.stub.route("GET", f"{REPO}/actions/runs/{run['id']}/artifacts", lambda *_: self.list_artifacts(run))
        for a in run["artifacts"]:
            self.stub.route("GET", f"{REPO}/actions/artifacts/{a['id']}/zip", None, status=302,
                            headers={"Location": f"{self.url}/blob/{a['id']}.zip"})
            # the signed storage URL: no token needed
            self.stub.route("GET", f"/blob/{a['id']}.zip", lambda *_, a=a: (200, a["zip"], {
                "Content-Type": "application/zip"}), public=True)

    def list_runs(self, path: str, query: dict):
        if any(query.get(k) != v for k, v in RUNS_QUERY.items()):
            return 422, {"message": f"stand-in: unexpected query {query}"}
        page, per_page = int(query.get("page", ["1"])[0]), 2
        runs = [{"id": r["id"], "name": "run-sweep", "head_branch": "main", "status": "completed",
                 "conclusion": "success", "url": f"{self.url}{REPO}/actions/runs/{r['id']}",
                 "artifacts_url": f"{self.url}{REPO}/actions/runs/{r['id']}/artifacts"} for r in self.runs]
        headers = {}
        if page * per_page < len(runs):
            headers["Link"] = f'<{self.url}{path}?branch=main&event=push&status=success&page={page + 1}>; rel="next"'
        return 200, {"total_count": len(runs), "workflow_runs": runs[(page - 1) * per_page: page * per_page]}, headers

    def list_artifacts(self, run: dict):
        arts = [{"id": a["id"], "name": a["name"], "size_in_bytes": len(a["zip"]), "expired": a["expired"],
                 "url": f"{self.url}{REPO}/actions/artifacts/{a['id']}",
                 "archive_download_url": f"{self.url}{REPO}/actions/artifacts/{a['id']}/zip"}
                for a in run["artifacts"]]
        return 200, {"total_count": len(arts), "artifacts": arts}

    def runs_queries(self) -> list[dict]:
        return [parse_qs(urlsplit(t).query) for t in self.stub.targets if urlsplit(t).path in RUNS_PATHS]


@pytest.fixture
def gh():
    stub = GitHubStub()
    yield Actions(stub)
    stub.close()


def add_main_runs(gh, runs: int = 6, **kw) -> list[dict]:
    """Runs newest first; run i holds main-i's records. The second newest has no results artifact,
    the third's is expired: both are skipped."""
    everything = synth.history(runs=runs, **kw)
    for i in reversed(range(runs)):
        recs = [r for r in everything if r["run-id"] == f"main-{i}"]
        aid = 9000 + i
        artifacts = [{"id": aid + 100, "name": "bmk_other", "zip": artifact_zip([]), "expired": False}]
        if i != runs - 2:
            artifacts.append({"id": aid, "name": source.RESULTS_ARTIFACT, "zip": artifact_zip(recs),
                              "expired": i == runs - 3})
        gh.add_run({"id": 5000 + i, "artifacts": artifacts})
    return everything


def compare_pr(gh, tmp_path, monkeypatch, capsys, pr: list[dict]) -> tuple[int, dict]:
    """Store the PR run ``pr`` and judge it with `results compare --baseline-artifacts` against the
    stand-in's main runs: (exit code, the JSON report)."""
    url = f"sqlite:///{tmp_path / 'r.db'}"
    with store.open_store(url) as st:
        st.add(pr)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    monkeypatch.delenv("SWEEPGATE_DB", raising=False)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    code = cli.main(["results", "compare", "--db", url, "--run", "pr-7", "--json", "--baseline-artifacts",
                     "--repository", f"{OWNER}/{NAME}", "--github-api-url", gh.url, "--fail-on-regression"])
    return code, json.loads(capsys.readouterr().out)


def test_records_of_the_last_n_runs_that_have_the_artifact(gh):
    add_main_runs(gh)
    got = source.records_from_artifacts(f"{OWNER}/{NAME}", TOKEN, "main", 3, api_url=gh.url)
    assert sorted({r["run-id"] for r in got}) == ["main-1", "main-2", "main-5"]  # 4: no artifact, 3: expired
    assert not any("/blob/9004" in p or "/blob/9003" in p for p in gh.stub.targets)
    assert any("page=2" in p for p in gh.stub.targets)
    queries = gh.runs_queries()
    assert queries and all(all(q.get(k) == v for k, v in RUNS_QUERY.items()) for q in queries)


def test_compare_with_the_artifact_baseline(gh, tmp_path, monkeypatch, capsys):
    add_main_runs(gh, runs=7)
    pr = synth.pr_run({(synth.KEYS[0], 16): {"output_tput_per_gpu": 0.85}})
    code, out = compare_pr(gh, tmp_path, monkeypatch, capsys, pr)
    assert code == 3 and out["counts"]["regressed"] == 1
    assert {p["baseline"]["n"] for p in out["points"]} == {5}


def test_errors_are_diagnostics(gh, tmp_path):
    add_main_runs(gh)
    with pytest.raises(SweepgateError) as exc:
        source.records_from_artifacts(f"{OWNER}/{NAME}", "wrong", "main", 3, api_url=gh.url)
    assert "401" in exc.value.diagnostics[0].message
    gh.runs[0]["artifacts"][-1]["zip"] = artifact_zip([], {"../../escape.txt": "x"})
    with pytest.raises(SweepgateError) as exc:
        source.records_from_artifacts(f"{OWNER}/{NAME}", TOKEN, "main", 3, api_url=gh.url)
    assert "outside" in exc.value.diagnostics[0].message
    gh.runs[0]["artifacts"][-1]["zip"] = b"not a zip"
    with pytest.raises(SweepgateError):
        github.download_run_artifacts(f"{OWNER}/{NAME}", TOKEN, tmp_path, workflow="run-sweep.yml",
                                      branch="main", runs=1, name=source.RESULTS_ARTIFACT, base_url=gh.url)


def test_the_artifact_baseline_reaches_back_to_runs_that_measured_the_point(gh, tmp_path, monkeypatch, capsys):
    """Review: main's last three sweeps ran another key; --baseline-artifacts took the last 5 runs
    overall, found the PR's point in 2 and called a -14 % drop insufficient-data."""
    everything = synth.history(runs=9)
    for i in reversed(range(9)):  # newest first; runs 6..8 measured only the second key
        recs = [r for r in everything if r["run-id"] == f"main-{i}" and (i < 6 or r["config-key"] == synth.KEYS[1])]
        gh.add_run({"id": 5000 + i, "artifacts": [{"id": 9000 + i, "name": source.RESULTS_ARTIFACT,
                                                    "zip": artifact_zip(recs), "expired": False}]})
    pr = synth.pr_run({(synth.KEYS[0], 16): {"output_tput_per_gpu": 0.86}}, keys=synth.KEYS[:1])
    code, out = compare_pr(gh, tmp_path, monkeypatch, capsys, pr)
    assert code == 3 and out["counts"]["regressed"] == 1
    assert {p["baseline"]["n"] for p in out["points"]} == {5}
    assert any("/blob/9001" in t for t in gh.stub.targets)  # main-1..5: five runs of the point
    assert not any("/blob/9000" in t for t in gh.stub.targets)  # and no further back than needed


def test_a_baseline_folder_without_jsonl_is_refused_not_read_as_no_baseline(tmp_path, capsys):
    """Review (CI path): `--baseline-jsonl results` (a folder of raw outputs) read as "no baseline":
    every point new, exit 0."""
    from helpers import job, run_cli, vllm_output, write_job

    write_job(tmp_path / "results", "res", vllm_output(), job(run_id="777"))
    db = f"sqlite:///{tmp_path / 'r.db'}"
    assert run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path / "results"))[0] == 0
    rc, _, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "777",
                         "--baseline-jsonl", str(tmp_path / "results"))
    assert rc == 1 and "no *.jsonl files in this folder" in err, err


def test_runs_after_the_compared_run_do_not_count_towards_its_baseline(gh, tmp_path, monkeypatch, capsys):
    """Review: the artifact download stopped once the point had appeared in N runs, counting main runs
    newer than the PR run, which the baseline then leaves out (or, for a point main measured before,
    should): compared again after main moved on (main's own later change cut throughput 15 %), the PR
    run read 'improved' against those later runs instead of 'unchanged' against the runs before it."""
    everything = synth.history(runs=8, keys=synth.KEYS[:1], concs=(16,))
    for rec in everything:
        if int(rec["run-id"].split("-")[1]) >= 5:  # main-5.. finished after the PR run, 15 % slower
            rec["metrics"] = {k: v * 0.85 if k == "output_tput_per_gpu" else v for k, v in rec["metrics"].items()}
    for i in reversed(range(8)):  # newest first
        recs = [r for r in everything if r["run-id"] == f"main-{i}"]
        gh.add_run({"id": 5000 + i, "artifacts": [{"id": 9000 + i, "name": source.RESULTS_ARTIFACT,
                                                    "zip": artifact_zip(recs), "expired": False}]})
    pr = [dict(r, finished="2026-11-05T18:00:00Z") for r in synth.pr_run(keys=synth.KEYS[:1], concs=(16,))]
    code, out = compare_pr(gh, tmp_path, monkeypatch, capsys, pr)
    (tput,) = [p for p in out["points"] if p["metric"] == "output_tput_per_gpu"]
    assert tput["verdict"] == "unchanged" and tput["baseline"]["n"] == 5, tput
    assert code == 0


def one_point_pr(gh, tmp_path, monkeypatch) -> list[str]:
    """Store PR run pr-7 (one key at conc 16) and return the arguments of `results compare
    --baseline-artifacts` against the stand-in, outside Actions."""
    url = f"sqlite:///{tmp_path / 'r.db'}"
    with store.open_store(url) as st:
        st.add(synth.pr_run(keys=synth.KEYS[:1], concs=(16,)))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    for name in ("SWEEPGATE_DB", "GITHUB_STEP_SUMMARY", "GITHUB_ACTIONS"):
        monkeypatch.delenv(name, raising=False)
    return ["results", "compare", "--db", url, "--run", "pr-7", "--baseline-artifacts",
            "--repository", f"{OWNER}/{NAME}", "--github-api-url", gh.url]


def test_comment_on_another_pr_is_refused_before_the_baseline_artifacts_are_asked_for(gh, tmp_path, monkeypatch,
                                                                                        capsys):
    """review23: the refusal of a --pr-number that is not the run's PR came after --baseline-artifacts had
    listed main's runs and downloaded their artifacts (the contract: before any request)."""
    add_main_runs(gh)
    url = f"sqlite:///{tmp_path / 'r.db'}"
    with store.open_store(url) as st:
        st.add(synth.pr_run(ref="refs/pull/7/merge"))
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    code = cli.main(["results", "compare", "--db", url, "--run", "pr-7", "--baseline-artifacts", "--comment",
                     "--pr-number", "42", "--repository", f"{OWNER}/{NAME}", "--github-api-url", gh.url])
    err = capsys.readouterr().err
    assert code == 1 and err.startswith("--pr-number: 42 is not the pull request run pr-7 measured"), err
    assert gh.stub.targets == []


def test_artifacts_that_all_hold_no_records_are_named_not_read_as_no_baseline(gh, tmp_path, monkeypatch, capsys):
    """cmp28: when every results artifact read held no record (main's runs whose every job was reused,
    or an artifact whose JSONL came out empty), compare said only the general "no baseline results ...
    check --baseline-ref" line, sending the user after a ref that was right. Now one warning names the
    artifacts and what to do, and the reports say no baseline was compared (as for an empty
    --baseline-jsonl)."""
    for i in (2, 1):  # newest first
        gh.add_run({"id": 5000 + i, "artifacts": [{"id": 9000 + i, "name": source.RESULTS_ARTIFACT,
                                                    "zip": artifact_zip([]), "expired": False}]})
    argv = one_point_pr(gh, tmp_path, monkeypatch)
    code = cli.main([*argv, "--markdown"])
    out, err = capsys.readouterr()
    assert code == 0 and err.splitlines() == [
        f"--baseline-artifacts: warning: the {source.RESULTS_ARTIFACT} artifacts of {OWNER}/{NAME}'s "
        "run-sweep.yml runs 5002 and 5001 on main hold no baseline records (their JSONL files are empty), "
        "so nothing of them is compared: every point of run pr-7 is new; check that the collect job of run-sweep.yml "
        "writes its results with `results ingest --jsonl` (a run whose every job was reused writes none), "
        "or pass --db with a database that holds the baseline"], err
    assert (f"> **No baseline was compared: the {source.RESULTS_ARTIFACT} artifacts of runs 5002 and 5001 "
            "held no records, so every point is new for want of a baseline") in out, out
    gh.runs[:] = gh.runs[1:]  # one run: one artifact, said in the singular
    assert cli.main(argv) == 0
    assert capsys.readouterr().err.startswith(
        f"--baseline-artifacts: warning: the {source.RESULTS_ARTIFACT} artifact of {OWNER}/{NAME}'s run-sweep.yml "
        "run 5001 on main holds no baseline records (its JSONL files are empty), so nothing of it is compared")
    gh.runs.clear()  # no run has the artifact: said so, not "no baseline results for run pr-7's points"
    assert cli.main(argv) == 0
    assert capsys.readouterr().err.splitlines() == [
        f"--baseline-artifacts: warning: the successful push runs of {OWNER}/{NAME}'s run-sweep.yml on main hold "
        f"no baseline records (none has an unexpired {source.RESULTS_ARTIFACT} artifact), so nothing of them is "
        "compared: every point of run pr-7 is new; check --baseline-ref, and check that the collect job of "
        "run-sweep.yml writes its results with `results ingest --jsonl` (a run whose every job was reused writes "
        "none), or pass --db with a database that holds the baseline"]


def test_a_broken_artifact_is_named_as_the_artifact_not_as_a_temporary_folder(gh, tmp_path, monkeypatch, capsys):
    """cmp28: an artifact without a JSONL file, or with a line that is not a record, was refused at the
    temporary folder compare had downloaded it into (`/tmp/sweepgate-baseline-…/5001: no *.jsonl files in
    this folder`), gone by the time the user read it, with a hint about --baseline-jsonl paths."""
    no_jsonl = io.BytesIO()
    with zipfile.ZipFile(no_jsonl, "w") as zf:
        zf.writestr("results.db", b"SQLite format 3\0 (not read)")
    gh.add_run({"id": 5001, "artifacts": [{"id": 9001, "name": source.RESULTS_ARTIFACT, "zip": no_jsonl.getvalue(),
                                           "expired": False}]})
    argv = one_point_pr(gh, tmp_path, monkeypatch)
    assert cli.main(argv) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.splitlines() == [
        f"{source.RESULTS_ARTIFACT} artifact of run 5001: holds no *.jsonl file (the baseline is the normalized "
        "records `results ingest --jsonl` writes); check that main's collect job writes its results with "
        "`results ingest --jsonl` into the artifact, or pass --db with a database that holds the baseline"], err
    gh.runs[0]["artifacts"][0]["zip"] = artifact_zip([synth.history(runs=1)[0]], {"more.jsonl": "{}\n"})
    assert cli.main(argv) == 1
    out, err = capsys.readouterr()
    assert err.startswith(f"{source.RESULTS_ARTIFACT} artifact of run 5001/more.jsonl:1: not a normalized "
                          "result record"), err
    assert "sweepgate-baseline-" not in err
