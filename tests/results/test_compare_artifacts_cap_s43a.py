"""s43a: `--baseline-artifacts` refuses an artifact zip longer than github.MAX_ARTIFACT_ZIP_BYTES (1 GiB) as it
streams, never holding it whole; no test covered it. Here, against the GitHub REST stand-in the artifact tests use,
the cap is lowered the one way the code takes it (``max_zip_bytes``, the constant its default) below an artifact's
size: one refusal line naming the run's artifact, and nothing of the zip left behind, in the temporary folder or in
the folder the artifacts are downloaded into. Under the default cap the same artifact is read."""

from __future__ import annotations

import os
import tempfile

import pytest

import synth
from test_compare_artifacts import NAME, OWNER, TOKEN, artifact_zip, created, gh  # noqa: F401 (gh: fixture)
from sweepgate.core import github
from sweepgate.core.errors import SweepgateError
from sweepgate.results import source

CAP = 1 << 20  # 1 MiB: sixteen of the 64 KiB chunks the download streams


def _big_artifact(gh) -> int:
    """Run 5001 on main with a results artifact of main-0's records and 1.5 MB of random bytes (stored: no
    compression shrinks them below the cap); its zip's length."""
    data = artifact_zip(synth.history(runs=1, keys=synth.KEYS[:1]), {"charts/pad.bin": os.urandom(1_500_000)})
    gh.add_run({"id": 5001, "created_at": created(0), "artifacts": [
        {"id": 9001, "name": source.RESULTS_ARTIFACT, "zip": data, "expired": False}]})
    return len(data)


def test_an_artifact_longer_than_the_cap_is_one_line_and_leaves_nothing(gh, tmp_path, monkeypatch):
    assert _big_artifact(gh) > CAP
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))  # where the baseline's temporary folder goes
    with pytest.raises(SweepgateError) as exc:
        source.records_from_artifacts(f"{OWNER}/{NAME}", TOKEN, "main", 1, api_url=gh.url, max_zip_bytes=CAP)
    (said,) = exc.value.diagnostics
    assert said.render() == (f"github: {source.RESULTS_ARTIFACT} artifact of run 5001 is larger than the 1 MiB a "
                             f"results artifact may; {github.ARTIFACT_HINT}"), said.render()
    assert any("/blob/9001.zip" in t for t in gh.stub.targets)  # the download was begun, then stopped
    assert list((tmp_path / "tmp").iterdir()) == []  # the temporary folder, and the zip in it, removed


def test_the_download_into_a_folder_leaves_no_partial_zip_there(gh, tmp_path):
    _big_artifact(gh)
    dest = tmp_path / "dest"
    with pytest.raises(SweepgateError) as exc:
        github.download_run_artifacts(f"{OWNER}/{NAME}", TOKEN, dest, workflow="run-sweep.yml", branch="main",
                                      runs=1, name=source.RESULTS_ARTIFACT, base_url=gh.url, max_zip_bytes=CAP)
    assert "is larger than the" in exc.value.diagnostics[0].message
    assert [p for p in dest.rglob("*") if not p.is_dir()] == []  # no zip, nothing unpacked


def test_the_same_artifact_under_the_default_cap_is_read(gh, tmp_path, monkeypatch):
    _big_artifact(gh)
    monkeypatch.chdir(tmp_path)
    got = source.records_from_artifacts(f"{OWNER}/{NAME}", TOKEN, "main", 1, api_url=gh.url)
    assert {r["run-id"] for r in got} == {"main-0"}
