"""A full ref whose namespace is mistyped is refused as a short ref is (s49e, new-user walk).

``results ingest --ref refs/head/main`` (``heads`` without its ``s``) was taken as a full ref, for it starts with
``refs/``: the run was stored under a ref no baseline reads (compare's is ``refs/heads/main``), exit 0, and the PR was
later judged without it. docs/results.md says a REF other than ``refs/heads/main`` or ``refs/pull/N/head`` is argument
syntax. A ref under a misspelling of git's or GitHub's namespaces (``refs/head/``, ``refs/tag/``, ``refs/pulls/``) is
now no full ref: exit 2 naming the ref meant, and a sidecar's ``job.ref`` so is refused at its key, as ``main`` is."""

from __future__ import annotations

import json

import pytest

from helpers import ROW, job, job_key_at, run_cli, vllm_output, write_job
from sweepgate.core import jobfile


@pytest.mark.parametrize("ref,meant", [("refs/head/main", "refs/heads/main"), ("refs/tag/v1", "refs/tags/v1"),
                                       ("refs/pulls/8/head", "refs/pull/8/head"), ("refs/Heads/main", "refs/heads/main")])
def test_a_mistyped_namespace_is_no_full_ref(ref, meant):
    assert not jobfile.is_full_ref(ref)
    assert jobfile.full_ref_for(ref) == meant


@pytest.mark.parametrize("ref", ["refs/heads/main", "refs/pull/8/head", "refs/tags/v1", "refs/remotes/origin/main",
                                 "refs/merge-requests/3/head", "refs/heads/head/x"])
def test_refs_of_known_or_other_namespaces_stay_full(ref):
    assert jobfile.is_full_ref(ref)


def test_ingest_refuses_refs_head_main(tmp_path, capsys):
    out = write_job(tmp_path, "bare", vllm_output(), None)
    (tmp_path / "row.json").write_text(json.dumps(ROW))
    with pytest.raises(SystemExit) as exc:
        run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", "--row",
                str(tmp_path / "row.json"), "--run-id", "1", "--ref", "refs/head/main", str(out))
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "'refs/head/main' is not a full ref; pass refs/heads/main" in err, err
    assert not (tmp_path / "r.db").exists()


def test_a_sidecar_naming_refs_head_main_is_refused_at_its_key(tmp_path, capsys):
    write_job(tmp_path / "run", "r", vllm_output(), job(ref="refs/head/main"))
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(tmp_path / "run"))
    assert rc == 1, (out, err)
    assert err.startswith(f"{job_key_at(tmp_path / 'run' / 'r.job.json', 'ref')}: job.ref: 'refs/head/main' is not a "
                          "full ref; write refs/heads/main (refs/pull/N/head for a PR)"), err
