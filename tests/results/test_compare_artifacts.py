"""Baseline from the results artifacts of the last N successful main runs (PyGithub), against
the local GitHub REST stand-in (tests/github_stub.py) answering the endpoints used, in their
documented shapes: get a workflow, list its runs (newest first, filtered by ``created`` as GitHub's
search syntax reads it, at most 1,000 of a filtered search), list a run's artifacts, download an
artifact (302 to a zip)."""

from __future__ import annotations

import io
import json
import sys
import zipfile
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import synth  # noqa: E402
from github_stub import TOKEN, GitHistory, GitHubStub, created_filter  # noqa: E402
from sweepgate import cli  # noqa: E402
from sweepgate.core import github  # noqa: E402
from sweepgate.core.errors import SweepgateError  # noqa: E402
from sweepgate.results import source, store  # noqa: E402

OWNER, NAME, WF_ID = "acme", "bench", 161335
REPO = f"/repos/{OWNER}/{NAME}"
RUNS_PATHS = (f"{REPO}/actions/workflows/{WF_ID}/runs", f"{REPO}/actions/workflows/run-sweep.yml/runs")
RUNS_QUERY = {"branch": ["main"], "status": ["completed"], "event": ["push"]}  # main's own sweeps, not PR ones
# "This endpoint will return up to 1,000 results for each search when using the following parameters:
# actor, branch, check_suite_id, created, event, head_sha, status" (GitHub's REST docs, workflow runs)
SEARCH_LIMIT, SEARCH_PARAMETERS = 1000, ("actor", "branch", "check_suite_id", "created", "event", "head_sha", "status")


def artifact_zip(records: list[dict], extra: dict | None = None) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("results.jsonl", "".join(json.dumps(r) + "\n" for r in records))
        zf.writestr("results.db", b"SQLite format 3\0 (not read)")
        for name, data in (extra or {}).items():
            zf.writestr(name, data)
    return buf.getvalue()


# A run's documented fields ("List workflow runs for a workflow") a run of ``Actions`` may set, and what they are
# for a successful push run of run-sweep.yml on main in acme/bench, as sweepgate asks for.
RUN_FIELDS = {"event": "push", "head_branch": "main", "status": "completed", "conclusion": "success",
              "path": ".github/workflows/run-sweep.yml", "repository": f"{OWNER}/{NAME}",
              "head_repository": f"{OWNER}/{NAME}"}


def minimal_repository(url: str, full_name: str) -> dict:
    """A run's ``repository`` / ``head_repository``: GitHub's minimal repository object."""
    owner, name = full_name.split("/")
    return {"id": sum(map(ord, full_name)), "name": name, "full_name": full_name,
            "owner": {"login": owner, "type": "Organization"}, "url": f"{url}/repos/{full_name}"}


class Actions:
    """Workflow runs on main, each with artifacts, served by a GitHubStub; the artifact routes read
    ``runs`` when asked, so tests may swap a zip. Runs are listed newest first (by ``created_at``), as
    GitHub lists them, at most ``search_limit`` of a filtered search. ``honours_created`` False: the
    ``created`` filter is ignored, every run listed, as by a server that does not know it (GitHub added
    it in 2021); a value the stand-in cannot read is refused (422) rather than ignored, so a test sees
    a filter sent wrong. A run may set any of RUN_FIELDS (a pull_request run, one on another branch, a
    failed one, a fork's, another workflow's); the filters sent (``branch``, ``event``, ``status``) list
    only runs that match them, as GitHub does, unless ``honours_filters`` is False (a proxy or server
    that answers past them). Main's history is a real git repository's (``history``, ``GitHistory``): a
    run's ``head_sha`` is main's head when it is added, unless it sets another (a tag's commit)."""

    def __init__(self, stub: GitHubStub):
        import tempfile

        self.stub, self.url = stub, stub.url
        self._folder = tempfile.TemporaryDirectory(prefix="stand-in-git-")
        self.history = GitHistory(stub, REPO, self._folder.name)
        self.runs: list[dict] = []  # {"id", "created_at", "artifacts": [{"id", "name", "zip", "expired"}]}, RUN_FIELDS
        self.honours_created = True
        self.honours_filters = True
        self.search_limit = SEARCH_LIMIT
        stub.route("GET", REPO, {"id": 1, "name": NAME, "full_name": f"{OWNER}/{NAME}", "url": self.url + REPO})
        stub.route("GET", f"{REPO}/actions/workflows/run-sweep.yml",
                   {"id": WF_ID, "name": "run-sweep", "path": ".github/workflows/run-sweep.yml",
                    "state": "active", "url": f"{self.url}{REPO}/actions/workflows/{WF_ID}"})
        for path in RUNS_PATHS:  # {workflow_id} is the workflow's id or its file name
            stub.route("GET", path, lambda _payload, query, path=path: self.list_runs(path, query))

    def add_run(self, run: dict) -> None:
        run.setdefault("head_sha", self.history.main)
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
        listed = sorted(self.runs, key=lambda r: r["created_at"], reverse=True)  # newest first (stable)
        if self.honours_filters:
            listed = [r for r in listed if self.asked(r)]
        if "created" in query and self.honours_created:
            keep = created_filter(query["created"][0])
            if keep is None:
                return 422, {"message": f"stand-in: cannot read created={query['created'][0]}"}
            listed = [r for r in listed if keep(r["created_at"])]
        if any(k in query for k in SEARCH_PARAMETERS):
            listed = listed[:self.search_limit]
        runs = [{"id": r["id"], "name": "run-sweep", "workflow_id": WF_ID, "created_at": r["created_at"],
                 "head_sha": r["head_sha"],
                 **{k: self.field(r, k) for k in ("event", "head_branch", "status", "conclusion", "path")},
                 "repository": minimal_repository(self.url, self.field(r, "repository")),
                 "head_repository": minimal_repository(self.url, self.field(r, "head_repository")),
                 "url": f"{self.url}{REPO}/actions/runs/{r['id']}",
                 "artifacts_url": f"{self.url}{REPO}/actions/runs/{r['id']}/artifacts"} for r in listed]
        headers = {}
        if page * per_page < len(runs):  # the next page's URL keeps every filter, as GitHub's does
            following = urlencode({**{k: v[0] for k, v in query.items()}, "page": page + 1})
            headers["Link"] = f'<{self.url}{path}?{following}>; rel="next"'
        return 200, {"total_count": len(runs), "workflow_runs": runs[(page - 1) * per_page: page * per_page]}, headers

    @staticmethod
    def field(run: dict, name: str):
        return run.get(name, RUN_FIELDS[name])

    def asked(self, run: dict) -> bool:
        """Whether GitHub would list ``run`` for the filters sent: a run of this workflow in this repository
        (its path in either form, OWNER/NAME in any case), pushed to main in it, completed (status=completed: a
        run of any conclusion, cancelled and skipped ones too)."""
        ours = RUN_FIELDS["repository"].casefold()
        path = self.field(run, "path").split("@")[0]
        path = path[len(ours) + 1:] if path.casefold().startswith(ours + "/") else path
        return (self.field(run, "repository").casefold() == ours == self.field(run, "head_repository").casefold()
                and path == RUN_FIELDS["path"]
                and all(self.field(run, k) == RUN_FIELDS[k] for k in ("event", "head_branch", "status")))

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


def created(i: int) -> str:
    """When GitHub created run main-i of ``synth.history``: an hour before its jobs finished (day i + 1, 12:00)."""
    return f"2026-11-{i + 1:02d}T11:00:00Z"


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
        gh.add_run({"id": 5000 + i, "created_at": created(i), "artifacts": artifacts})
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
        gh.add_run({"id": 5000 + i, "created_at": created(i),
                    "artifacts": [{"id": 9000 + i, "name": source.RESULTS_ARTIFACT, "zip": artifact_zip(recs),
                                   "expired": False}]})
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
        gh.add_run({"id": 5000 + i, "created_at": created(i),
                    "artifacts": [{"id": 9000 + i, "name": source.RESULTS_ARTIFACT, "zip": artifact_zip(recs),
                                   "expired": False}]})
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


@pytest.mark.parametrize("ref", ["refs/tags/v1.2", "refs/pull/7/merge"])
def test_a_baseline_ref_that_is_no_branch_is_refused_before_github_is_asked(gh, tmp_path, monkeypatch, capsys, ref):
    """s31: --baseline-ref refs/tags/X lost only refs/heads/ before GitHub was asked for the push runs of
    branch 'refs/tags/X' (it lists none: a run's head_branch is a short name), and the PR's points were all
    new, exit 0."""
    add_main_runs(gh)
    with pytest.raises(SystemExit) as exc:  # argparse's exit
        cli.main(one_point_pr(gh, tmp_path, monkeypatch) + ["--baseline-ref", ref, "--fail-on-regression"])
    code, err = exc.value.code, capsys.readouterr().err
    what = "is a tag, not a branch" if "tags" in ref else "is a pull request's ref, not a branch"
    line = err.splitlines()[-1]  # after the usage line: argument syntax, as a --ref ci dispatch refuses
    assert code == 2 and f"argument --baseline-ref: '{ref}' {what}, and --baseline-artifacts reads" in line, err
    assert "pass a branch name (default main)" in line and err.startswith("usage: ")
    assert gh.stub.targets == []


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
        gh.add_run({"id": 5000 + i, "created_at": created(i),
                    "artifacts": [{"id": 9000 + i, "name": source.RESULTS_ARTIFACT, "zip": artifact_zip([]),
                                   "expired": False}]})
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
        f"--baseline-artifacts: warning: the push runs of {OWNER}/{NAME}'s run-sweep.yml on main (conclusion success or "
        f"failure) hold "
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
    gh.add_run({"id": 5001, "created_at": created(1), "artifacts": [
        {"id": 9001, "name": source.RESULTS_ARTIFACT, "zip": no_jsonl.getvalue(), "expired": False}]})
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


PR_TIME = "2026-11-05T18:00:00.25Z"  # when PR run pr-7 of the reach tests measured its one point
AFTER = "2026-11-06T00:00:00+00:00"  # main's first run after it; one every two hours from then


def main_run(gh, number: int, created_at: str, records: list[dict]) -> None:
    """Main's run ``number`` (its artifact ``number + 4000``), created at ``created_at``, whose jobs
    finished an hour later."""
    from datetime import datetime, timedelta

    finished = (datetime.fromisoformat(created_at.replace("Z", "+00:00")) + timedelta(hours=1)).isoformat()
    recs = [dict(r, **{"run-id": str(number), "finished": finished}) for r in records]
    gh.add_run({"id": number, "created_at": created_at, "artifacts": [
        {"id": number + 4000, "name": source.RESULTS_ARTIFACT, "zip": artifact_zip(recs), "expired": False}]})


def later_runs(gh, count: int, key: str, scale_from: int = 0, hours: int = 2, other=lambda j: False) -> list[int]:
    """``count`` main runs after the PR run, every ``hours`` from AFTER, measuring ``key`` at conc 16 (the
    other key where ``other(j)``); from the ``scale_from``-th on, main's own later change cut throughput
    15 %. Their run numbers, oldest first."""
    from datetime import datetime, timedelta

    first, numbers = datetime.fromisoformat(AFTER), []
    other_key = next(k for k in synth.KEYS if k != key)
    for j in range(count):
        (base,) = synth.history(runs=1, keys=(other_key if other(j) else key,), concs=(16,))
        metrics = {k: v * 0.85 if k == "output_tput_per_gpu" and j >= scale_from else v
                   for k, v in base["metrics"].items()}
        created_at = (first + timedelta(hours=hours * j)).strftime("%Y-%m-%dT%H:%M:%SZ")
        main_run(gh, 7000 + j, created_at, [dict(base, metrics=metrics)])
        numbers.append(7000 + j)
    return numbers


def _faster_record() -> dict:
    """A record of the first key at conc 16, 30 % faster than main's: read as baseline, the PR regresses."""
    (rec,) = synth.history(runs=1, keys=synth.KEYS[:1], concs=(16,))
    return dict(rec, metrics={k: v * 1.3 if k == "output_tput_per_gpu" else v for k, v in rec["metrics"].items()})


def _pr_judged_on_main_runs_alone(gh, tmp_path, monkeypatch, capsys) -> str:
    """`results compare --baseline-artifacts` of PR 7's run (the first key at conc 16): judged unchanged against
    five baseline runs, main's (none of ``_faster_record``'s), exit 0; what it said on stderr."""
    code = cli.main([*one_point_pr(gh, tmp_path, monkeypatch), "--json", "--fail-on-regression"])
    out, err = capsys.readouterr()
    (tput,) = [p for p in json.loads(out)["points"] if p["metric"] == "output_tput_per_gpu"]
    assert tput["verdict"] == "unchanged" and tput["baseline"]["n"] == 5 and code == 0, (tput, err)
    return err


def blobs_read(gh) -> list[int]:
    """The run numbers whose artifact was downloaded, in the order read."""
    return [int(t.split("/blob/")[1].split(".")[0]) - 4000 for t in gh.stub.targets if "/blob/" in t]


@pytest.mark.parametrize("honours_created", [True, False], ids=["created-honoured", "created-ignored"])
def test_runs_before_the_compared_run_are_reached_after_more_than_fifty_main_runs(
        gh, tmp_path, monkeypatch, capsys, honours_created):
    """reach28: the artifact baseline read the 50 newest main runs. A PR run compared again after 55 more
    main runs (a re-run of its collect job) reached none of the runs before it: its point counted as one
    main measured only after it, judged against the first of those 50 (slower by main's own later change),
    and read 'improved' instead of 'unchanged'. Now the runs are asked for by when GitHub created them
    (`created=<=` the run's time), and each listed run is checked too, for a server that ignores the filter."""
    gh.honours_created = honours_created
    for i, rec in enumerate(synth.history(runs=5, keys=synth.KEYS[:1], concs=(16,))):  # main-0..4, before the run
        main_run(gh, 5000 + i, created(i), [rec])
    after = later_runs(gh, 55, synth.KEYS[0], scale_from=0)
    pr = [dict(r, finished=PR_TIME) for r in synth.pr_run(keys=synth.KEYS[:1], concs=(16,))]
    code, out = compare_pr(gh, tmp_path, monkeypatch, capsys, pr)
    (tput,) = [p for p in out["points"] if p["metric"] == "output_tput_per_gpu"]
    assert tput["verdict"] == "unchanged" and tput["baseline"]["n"] == 5, tput
    assert code == 0
    assert blobs_read(gh) == [5004, 5003, 5002, 5001, 5000]  # newest first, and no run after it
    first = gh.runs_queries()[0]
    assert first.get("created") == ["<=2026-11-05T18:00:00Z"] and len(after) == 55


@pytest.mark.parametrize("honours_created, limit", [(True, SEARCH_LIMIT), (False, SEARCH_LIMIT), (True, 3)],
                         ids=["created-honoured", "created-ignored", "search-limit-3"])
def test_a_point_main_measured_only_after_the_pr_run_reaches_main_s_first_runs_of_it(
        gh, tmp_path, monkeypatch, capsys, honours_created, limit):
    """reach28: a PR run's new config key, which main measured only after the run, is judged against
    main's first --window runs of it from then; with 60 main runs since, those were not among the 50
    newest, and the later ones (slower by main's own later change) made it 'improved'. Now the runs
    created after the PR run are read oldest first, a span of days at a time, only as many as the point
    needs. search-limit-3: a span listing as many runs as a search may list is asked again in halves
    (GitHub's limit is 1,000; here 3, so the first day's ten runs are past it)."""
    gh.honours_created, gh.search_limit = honours_created, limit
    monkeypatch.setattr(github, "RUNS_SEARCH_LIMIT", limit)
    for i, rec in enumerate(synth.history(runs=5, keys=synth.KEYS[:1], concs=(16,))):  # main never ran KEYS[1]
        main_run(gh, 5000 + i, created(i), [rec])
    after = later_runs(gh, 60, synth.KEYS[1], scale_from=5)
    pr = [dict(r, finished=PR_TIME) for r in synth.pr_run(keys=synth.KEYS[1:], concs=(16,))]
    code, out = compare_pr(gh, tmp_path, monkeypatch, capsys, pr)
    (tput,) = [p for p in out["points"] if p["metric"] == "output_tput_per_gpu"]
    assert tput["verdict"] == "unchanged" and tput["baseline"]["n"] == 5, tput
    assert code == 0
    assert blobs_read(gh) == [5004, 5003, 5002, 5001, 5000, *after[:5]]  # main's first five after it, no more


def new_key_pr(gh, tmp_path, monkeypatch, capsys) -> tuple[int, dict]:
    """Main's runs main-0..4 of the first key before PR run pr-7, which measured only the second key at PR_TIME,
    compared with --baseline-artifacts: (exit code, the report's throughput point)."""
    for i, rec in enumerate(synth.history(runs=5, keys=synth.KEYS[:1], concs=(16,))):
        main_run(gh, 5000 + i, created(i), [rec])
    pr = [dict(r, finished=PR_TIME) for r in synth.pr_run(keys=synth.KEYS[1:], concs=(16,))]
    code, out = compare_pr(gh, tmp_path, monkeypatch, capsys, pr)
    (tput,) = [p for p in out["points"] if p["metric"] == "output_tput_per_gpu"]
    return code, tput


@pytest.mark.parametrize("honours_created", [True, False], ids=["created-honoured", "created-ignored"])
def test_main_s_runs_after_the_pr_run_are_read_once_each_over_several_spans(
        gh, tmp_path, monkeypatch, capsys, honours_created):
    """reach28: main measured the PR's new key only three times in the ten days after it (fewer than the
    window), so every run since is read, span after span: each artifact once (a server that ignores
    `created` lists every run for every span)."""
    gh.honours_created = honours_created
    # the new key in runs 0, 12 and 24 only, the other key in the rest
    after = later_runs(gh, 30, synth.KEYS[1], scale_from=30, hours=8, other=lambda j: j % 12)
    code, tput = new_key_pr(gh, tmp_path, monkeypatch, capsys)
    assert tput["verdict"] == "unchanged" and tput["baseline"]["n"] == 3, tput
    assert code == 0 and blobs_read(gh) == [5004, 5003, 5002, 5001, 5000, *after]


def test_at_most_max_artifact_runs_are_read_each_way(gh, tmp_path, monkeypatch, capsys):
    """reach28: a point main never measured is looked for in at most MAX_ARTIFACT_RUNS runs before the
    PR run (newest first) and as many after it (oldest first), not in every run there is."""
    monkeypatch.setattr(source, "MAX_ARTIFACT_RUNS", 3)
    after = later_runs(gh, 8, synth.KEYS[0])
    code, tput = new_key_pr(gh, tmp_path, monkeypatch, capsys)
    assert code == 0 and tput["verdict"] == "new", tput
    assert blobs_read(gh) == [5004, 5003, 5002, *after[:3]]


# The stand-in's reading of `created`, on the examples of GitHub's "Understanding the search syntax"
# ("Query for dates"): (value, a run created then, listed?).
CREATED_EXAMPLES = [
    (">2016-04-29", "2016-04-29T23:59:59Z", False), (">2016-04-29", "2016-04-30T00:00:00Z", True),
    (">=2017-04-01", "2017-04-01T00:00:00Z", True), (">=2017-04-01", "2017-03-31T23:59:59Z", False),
    ("<2012-07-05", "2012-07-04T23:59:59Z", True), ("<2012-07-05", "2012-07-05T00:00:00Z", False),
    ("<=2012-07-04", "2012-07-04T23:59:59Z", True), ("<=2012-07-04", "2012-07-05T00:00:00Z", False),
    ("2016-04-30..2016-07-04", "2016-04-30T00:00:00Z", True), ("2016-04-30..2016-07-04", "2016-07-04T23:59:59Z", True),
    ("2016-04-30..2016-07-04", "2016-07-05T00:00:00Z", False), ("2012-04-30..*", "2030-01-01T00:00:00Z", True),
    ("2012-04-30..*", "2012-04-29T23:59:59Z", False), ("*..2012-07-04", "2000-01-01T00:00:00Z", True),
    ("2017-01-01T01:00:00+07:00..2017-03-01T15:30:15+07:00", "2016-12-31T18:00:00Z", True),
    ("2017-01-01T01:00:00+07:00..2017-03-01T15:30:15+07:00", "2016-12-31T17:59:59Z", False),
    ("2017-01-01T01:00:00+07:00..2017-03-01T15:30:15+07:00", "2017-03-01T08:30:15Z", True),
    ("2017-01-01T01:00:00+07:00..2017-03-01T15:30:15+07:00", "2017-03-01T08:30:16Z", False),
    ("2016-03-21T14:11:00Z..2016-04-07T20:45:00Z", "2016-04-07T20:45:00Z", True),
    ("<=2026-11-05T18:00:00Z", "2026-11-05T18:00:01Z", False), (">2026-11-05T18:00:00Z", "2026-11-05T18:00:01Z", True),
]


@pytest.mark.parametrize("value, created_at, listed", CREATED_EXAMPLES)
def test_the_stand_in_reads_created_as_github_documents_it(value, created_at, listed):
    keep = created_filter(value)
    assert keep is not None and keep(created_at) is listed


def test_the_stand_in_refuses_a_created_it_cannot_read(gh):
    """So a test sees a filter sent wrong rather than every run listed."""
    from urllib.request import Request, urlopen
    from urllib.error import HTTPError

    assert created_filter("yesterday") is None and created_filter("2016-04-30..") is None
    req = Request(f"{gh.url}{RUNS_PATHS[1]}?branch=main&event=push&status=completed&created=yesterday",
                  headers={"Authorization": f"token {TOKEN}"})
    with pytest.raises(HTTPError) as exc:
        urlopen(req, timeout=10)
    assert exc.value.code == 422


# Runs that are no successful push run of run-sweep.yml on main in acme/bench, newest first, each with what
# the warning says of it: a list of workflow runs answered past its filters (a proxy, a server that ignores
# them, a paging quirk) holds such runs, and their artifacts hold records that say they are main's.
STRAY_RUNS = [
    ({"event": "pull_request", "head_branch": "feature"}, "event pull_request, head_branch feature"),
    ({"head_repository": "fork/bench"}, "head_repository fork/bench"),
    ({"status": "queued", "conclusion": None}, "status queued, conclusion none"),
    ({"path": ".github/workflows/other.yml"}, "path .github/workflows/other.yml"),
    ({"repository": "other/bench", "head_repository": "other/bench"},
     "repository other/bench, head_repository other/bench"),
    ({"status": "in_progress", "conclusion": None}, "status in_progress, conclusion none"),
    ({"path": "other/bench/.github/workflows/run-sweep.yml@refs/heads/main"},
     "path other/bench/.github/workflows/run-sweep.yml@refs/heads/main"),
]


@pytest.mark.parametrize("honours_filters", [True, False], ids=["filters-honoured", "filters-ignored"])
def test_a_listed_run_that_is_no_successful_push_run_on_main_is_passed_over_and_said(
        gh, tmp_path, monkeypatch, capsys, honours_filters):
    """s30: --baseline-artifacts asked GitHub for main's successful push runs of run-sweep.yml (branch=,
    event=, status=) and took every run listed as one: a pull_request run, one of another branch, a failed
    or unfinished one, a fork's, another repository's or another workflow's, listed by a server or proxy that
    answered past the filters, had its artifact read as main's baseline (here 30 % faster: the PR's steady
    throughput read 'regressed', exit 3). Each run listed is checked by its documented fields now: such a run
    is passed over, its artifact never downloaded, and one warning line names it and what differs."""
    gh.honours_filters = honours_filters
    for i, rec in enumerate(synth.history(runs=5, keys=synth.KEYS[:1], concs=(16,))):  # main-0..4, days 1..5
        main_run(gh, 5000 + i, created(i), [rec])
    # the long path form GitHub's REST reference shows, and the repository in another case, are main's own
    gh.runs[2]["path"] = f"{OWNER}/{NAME}/.github/workflows/run-sweep.yml@refs/heads/main"
    gh.runs[3]["repository"] = gh.runs[3]["head_repository"] = f"{OWNER.upper()}/{NAME}"
    for j, (fields, _) in enumerate(reversed(STRAY_RUNS)):  # created days 6..12, after main's, before the PR run
        main_run(gh, 6000 + j, created(5 + j), [_faster_record()])
        gh.runs[-1].update(fields)
    err = _pr_judged_on_main_runs_alone(gh, tmp_path, monkeypatch, capsys)
    assert blobs_read(gh) == [5004, 5003, 5002, 5001, 5000]  # no stray run's artifact is downloaded
    if honours_filters:
        assert err == "", err
        return
    said = [f"run {6000 + len(STRAY_RUNS) - 1 - k} ({what})" for k, (_, what) in enumerate(STRAY_RUNS)]
    assert err.splitlines() == [
        f"--baseline-artifacts: warning: passed over 7 runs the API listed as push runs of {OWNER}/{NAME}'s "
        f"run-sweep.yml on main (conclusion success or failure) that are not: {', '.join(said[:5])}, and 2 more; their artifacts were not read; "
        "the API answered past the filters sent; check --github-api-url / GITHUB_API_URL and any proxy on the way"], err


def test_a_run_of_a_tag_named_main_is_passed_over_and_each_commit_is_asked_once(gh, tmp_path, monkeypatch, capsys):
    """s36: a run started by pushing a tag named main has head_branch main (GitHub puts the tag's name there),
    and no other field of it tells it from a run of the branch: --baseline-artifacts read the artifact of a
    writer's tag-main run as main's baseline (here 30 % faster: the PR read 'regressed', exit 3). A run counts
    as main's only when its head_sha is in main's history (GitHub's compare of main's head SHA with it, the
    branch's head read by name as a branch), asked once per commit: main's five runs on three commits and the
    tag's two runs on one ask three compares (main's head itself needs none); the tag's runs are passed over,
    their artifacts never downloaded, on the one warning line of runs passed over."""
    history = gh.history
    recs = synth.history(runs=5, keys=synth.KEYS[:1], concs=(16,))  # main-0..4, days 1..5
    for i, rec in enumerate(recs):
        if i in (2, 4):
            history.commit()  # main moves on: runs 5000-5001, 5002-5003 and 5004 are of three commits
        main_run(gh, 5000 + i, created(i), [rec])
    tagged = history.commit(parent=history.main)  # a commit main does not hold, with a tag named main on it
    history.tag("main", tagged)
    for j in range(2):  # the tag's runs, after main's and before the PR run, faster than main's
        main_run(gh, 6000 + j, created(5 + j), [_faster_record()])
        gh.runs[-1]["head_sha"] = tagged
    err = _pr_judged_on_main_runs_alone(gh, tmp_path, monkeypatch, capsys)
    assert blobs_read(gh) == [5004, 5003, 5002, 5001, 5000]  # the tag's artifacts are never downloaded
    said = f"head_sha {tagged[:12]} not in main's history: a tag named main, or a commit main no longer holds"
    assert err.splitlines() == [
        f"--baseline-artifacts: warning: passed over 2 runs the API listed as push runs of {OWNER}/{NAME}'s "
        f"run-sweep.yml on main (conclusion success or failure) that are not: run 6001 ({said}), run 6000 ({said}); their artifacts were not read; "
        f"a run of a tag is listed under the tag's name: delete a tag named main "
        f"(git push origin :refs/tags/main); a run of a commit main no longer holds is not main's either"], err
    compares = [t.split("/compare/")[1].split("?")[0] for t in gh.stub.targets if "/compare/" in t]
    assert sorted(compares) == sorted(f"{history.main}...{sha}" for sha in {r["head_sha"] for r in gh.runs}
                                      if sha != history.main), compares
    # main's head, read by name as a branch; read again once, as the tag's commit is after it ("ahead": main
    # may have moved on since), never once per run
    assert [t for t in gh.stub.targets if "/branches/" in t] == [f"{REPO}/branches/main"] * 2


def test_a_run_of_a_commit_github_does_not_know_or_of_a_deleted_branch_is_passed_over(gh):
    """s36: a run of a commit the repository no longer has (a force-push took it off main and GitHub let it
    go: the compare answers 404) is no run of main's: passed over and said, not read and not an error; and
    when the branch itself is gone (404 for it), no run listed under its name is its own."""
    add_main_runs(gh, runs=4)  # 5003 and 5000 have the artifact (5002's has none, 5001's expired)
    gh.runs[0]["head_sha"] = "f" * 40  # run 5003, the newest: its commit is unknown to the repository
    passed_over: dict = {}
    got = source.records_from_artifacts(f"{OWNER}/{NAME}", TOKEN, "main", 3, api_url=gh.url, passed_over=passed_over)
    assert sorted({r["run-id"] for r in got}) == ["main-0"], got
    assert passed_over == {5003: "head_sha ffffffffffff not in main's history: a tag named main, or a commit main "
                                 "no longer holds"}
    gh.history.git("branch", "-m", "main", "trunk")  # the branch is gone; the runs listed under its name stay
    passed_over.clear()
    assert source.records_from_artifacts(f"{OWNER}/{NAME}", TOKEN, "main", 3, api_url=gh.url,
                                         passed_over=passed_over) == []
    # (5002 and 5001, without the artifact, are not asked about: skipped as before)
    assert sorted(passed_over) == [5000, 5003] and not [t for t in gh.stub.targets if "/compare/" in t][1:], \
        gh.stub.targets


def test_a_run_without_the_artifact_asks_no_compare(gh):
    """Review (s36m): each run listed had its commit compared with main's before its artifacts were looked
    at, so every run without the results artifact (up to MAX_ARTIFACT_RUNS of them) cost a compare call for
    nothing. Only a run that has the artifact is asked about: here runs 5003 and 5000, on commits of their own."""
    add_main_runs(gh, runs=4)  # 5003 and 5000 have the artifact (5002's has none, 5001's expired)
    for run in sorted(gh.runs, key=lambda r: r["id"]):  # each run on a commit of its own, main moved on since
        run["head_sha"] = gh.history.main
        gh.history.commit()
    got = source.records_from_artifacts(f"{OWNER}/{NAME}", TOKEN, "main", 3, api_url=gh.url)
    assert sorted({r["run-id"] for r in got}) == ["main-0", "main-3"], got
    compares = [t.split("/compare/")[1].split("?")[0].split("...")[1] for t in gh.stub.targets if "/compare/" in t]
    assert sorted(compares) == sorted(r["head_sha"] for r in gh.runs if r["id"] in (5000, 5003)), compares


def test_the_stand_in_compares_commits_as_github_documents_it(gh):
    """The stand-in's compare of BASE...HEAD (GitHub's "Compare two commits"): ``behind`` when HEAD is an
    ancestor of BASE, ``ahead`` when a descendant, ``identical``, ``diverged``, 404 for what names no commit;
    a name both a tag and a branch have is read as the tag (git's order); the branch route reads branches only."""
    import requests

    h = gh.history
    old = h.main
    new = h.commit()
    beside = h.commit(parent=old)
    h.tag("main", beside)

    def status(base, head):
        answer = requests.get(f"{gh.url}{REPO}/compare/{base}...{head}", timeout=10,
                              headers={"Authorization": f"token {TOKEN}"})
        return answer.json()["status"] if answer.status_code == 200 else answer.status_code

    assert [status(new, old), status(old, new), status(new, new), status(new, beside), status(new, "f" * 40)] == [
        "behind", "ahead", "identical", "diverged", 404]
    assert status("main", beside) == "identical"  # the tag, not the branch
    branch = requests.get(f"{gh.url}{REPO}/branches/main", timeout=10, headers={"Authorization": f"token {TOKEN}"})
    assert branch.json()["commit"]["sha"] == new
