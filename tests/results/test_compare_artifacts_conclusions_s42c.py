"""s42c: `results compare --baseline-artifacts` said it read main's "completed push runs", but only a run that
completed with a conclusion of success or failure (``github.BASELINE_CONCLUSIONS``) counts: a cancelled,
skipped or timed-out run is passed over unread. Its warnings name what counts now, from that constant, against
the local GitHub stand-in."""

from __future__ import annotations

import pytest

from test_compare_artifacts import NAME, OWNER, gh, one_point_pr  # noqa: F401 (gh: fixture)
from sweepgate import cli
from sweepgate.core import github
from sweepgate.results import source

COUNTED = f"(conclusion {' or '.join(github.BASELINE_CONCLUSIONS)})"


def test_no_run_with_the_artifact_names_the_conclusions_that_count(gh, tmp_path, monkeypatch, capsys):
    argv = one_point_pr(gh, tmp_path, monkeypatch)
    assert cli.main([*argv, "--markdown"]) == 0
    out, err = capsys.readouterr()
    assert err.startswith(f"--baseline-artifacts: warning: the push runs of {OWNER}/{NAME}'s run-sweep.yml on main "
                          f"{COUNTED} hold no baseline records (none has an unexpired {source.RESULTS_ARTIFACT} "
                          "artifact)"), err
    assert f"No baseline was compared: the push runs of run-sweep.yml on main {COUNTED} held no records" in out, out
    assert "completed push runs" not in err + out


def test_a_runs_passed_over_line_names_the_conclusions_that_count(gh, tmp_path, monkeypatch, capsys):
    from test_compare_artifacts import _faster_record, created, main_run

    gh.honours_filters = False
    main_run(gh, 6000, created(1), [_faster_record()])
    gh.runs[-1].update({"event": "pull_request"})
    assert cli.main(one_point_pr(gh, tmp_path, monkeypatch)) == 0
    err = capsys.readouterr().err
    assert err.startswith(f"--baseline-artifacts: warning: passed over 1 run the API listed as push runs of "
                          f"{OWNER}/{NAME}'s run-sweep.yml on main {COUNTED} that is not: run 6000 (event "
                          "pull_request)"), err


@pytest.mark.parametrize("ref", ["refs/tags/v1.2"])
def test_a_ref_that_is_no_branch_is_refused_naming_the_conclusions_that_count(gh, tmp_path, monkeypatch, capsys, ref):
    with pytest.raises(SystemExit):
        cli.main(one_point_pr(gh, tmp_path, monkeypatch) + ["--baseline-ref", ref])
    err = capsys.readouterr().err
    assert f"--baseline-artifacts reads the push runs of run-sweep.yml on a branch {COUNTED}" in err, err
