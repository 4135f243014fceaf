"""Baseline from the results artifacts of the last N successful main runs (PyGithub), against a
local HTTP server that answers the GitHub REST endpoints used, in their documented shapes:
get a workflow, list its runs, list a run's artifacts, download an artifact (302 to a zip)."""

from __future__ import annotations

import io
import json
import re
import threading
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import pytest

import synth
from sweepgate import cli
from sweepgate.core import github
from sweepgate.core.errors import SweepgateError
from sweepgate.results import source, store

OWNER, NAME, TOKEN, WF_ID = "acme", "bench", "test-token-not-secret", 161335


def artifact_zip(records: list[dict], extra: dict | None = None) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("results.jsonl", "".join(json.dumps(r) + "\n" for r in records))
        zf.writestr("results.db", b"SQLite format 3\0 (not read)")
        for name, data in (extra or {}).items():
            zf.writestr(name, data)
    return buf.getvalue()


class FakeActions:
    """Workflow runs on main (newest first, as GitHub lists them), each with artifacts."""

    def __init__(self):
        self.runs: list[dict] = []       # {"id", "artifacts": [{"name", "zip", "expired"}]}
        self.requests: list[str] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                fake.handle(self)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()

    def handle(self, req):
        parts = urlsplit(req.path)
        path, query = parts.path, parse_qs(parts.query)
        self.requests.append(req.path)
        if m := re.fullmatch(r"/blob/(\d+)\.zip", path):  # the signed storage URL: no token needed
            return self.send(req, 200, self.artifact(int(m.group(1)))["zip"], "application/zip")
        if req.headers.get("Authorization") not in (f"token {TOKEN}", f"Bearer {TOKEN}"):
            return self.send(req, 401, {"message": "Bad credentials"})
        repo = f"/repos/{OWNER}/{NAME}"
        if path == repo:
            return self.send(req, 200, {"id": 1, "name": NAME, "full_name": f"{OWNER}/{NAME}",
                                        "url": self.url + repo})
        if path == f"{repo}/actions/workflows/run-sweep.yml":
            return self.send(req, 200, {"id": WF_ID, "name": "run-sweep", "path": ".github/workflows/run-sweep.yml",
                                        "state": "active", "url": f"{self.url}{repo}/actions/workflows/{WF_ID}"})
        if path in (f"{repo}/actions/workflows/{WF_ID}/runs", f"{repo}/actions/workflows/run-sweep.yml/runs"):
            # {workflow_id} is the workflow's id or its file name
            # only main's own sweeps (push), not PR sweeps dispatched on main
            assert query.get("branch") == ["main"] and query.get("status") == ["success"], query
            assert query.get("event") == ["push"], query
            page, per_page = int(query.get("page", ["1"])[0]), 2
            runs = [{"id": r["id"], "name": "run-sweep", "head_branch": "main", "status": "completed",
                     "conclusion": "success", "url": f"{self.url}{repo}/actions/runs/{r['id']}",
                     "artifacts_url": f"{self.url}{repo}/actions/runs/{r['id']}/artifacts"} for r in self.runs]
            chunk = runs[(page - 1) * per_page: page * per_page]
            headers = {}
            if page * per_page < len(runs):
                headers["Link"] = f'<{self.url}{path}?branch=main&event=push&status=success&page={page + 1}>; rel="next"'
            return self.send(req, 200, {"total_count": len(runs), "workflow_runs": chunk}, headers=headers)
        if m := re.fullmatch(rf"{repo}/actions/runs/(\d+)/artifacts", path):
            run = next(r for r in self.runs if r["id"] == int(m.group(1)))
            arts = [{"id": a["id"], "name": a["name"], "size_in_bytes": len(a["zip"]), "expired": a["expired"],
                     "url": f"{self.url}{repo}/actions/artifacts/{a['id']}",
                     "archive_download_url": f"{self.url}{repo}/actions/artifacts/{a['id']}/zip"}
                    for a in run["artifacts"]]
            return self.send(req, 200, {"total_count": len(arts), "artifacts": arts})
        if m := re.fullmatch(rf"{repo}/actions/artifacts/(\d+)/zip", path):
            return self.send(req, 302, b"", headers={"Location": f"{self.url}/blob/{m.group(1)}.zip"})
        return self.send(req, 404, {"message": f"fake: no route for {path}"})

    def artifact(self, aid: int) -> dict:
        return next(a for r in self.runs for a in r["artifacts"] if a["id"] == aid)

    def send(self, req, status, body, content_type="application/json", headers=None):
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        req.send_response(status)
        req.send_header("Content-Type", content_type)
        req.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            req.send_header(k, v)
        req.end_headers()
        req.wfile.write(data)


@pytest.fixture
def gh():
    fake = FakeActions()
    yield fake
    fake.close()


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
        gh.runs.append({"id": 5000 + i, "artifacts": artifacts})
    return everything


def test_records_of_the_last_n_runs_that_have_the_artifact(gh):
    add_main_runs(gh)
    got = source.records_from_artifacts(f"{OWNER}/{NAME}", TOKEN, "main", 3, api_url=gh.url)
    assert sorted({r["run-id"] for r in got}) == ["main-1", "main-2", "main-5"]  # 4: no artifact, 3: expired
    assert not any("/blob/9004" in p or "/blob/9003" in p for p in gh.requests)
    assert any("page=2" in p for p in gh.requests)


def test_compare_with_the_artifact_baseline(gh, tmp_path, monkeypatch, capsys):
    add_main_runs(gh, runs=7)
    url = f"sqlite:///{tmp_path / 'r.db'}"
    with store.open_store(url) as st:
        st.add(synth.pr_run({(synth.KEYS[0], 16): {"output_tput_per_gpu": 0.85}}))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    monkeypatch.delenv("SWEEPGATE_DB", raising=False)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    code = cli.main(["results", "compare", "--db", url, "--run", "pr-7", "--json", "--baseline-artifacts",
                     "--repository", f"{OWNER}/{NAME}", "--github-api-url", gh.url, "--fail-on-regression"])
    out = json.loads(capsys.readouterr().out)
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
