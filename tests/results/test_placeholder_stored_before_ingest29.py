"""ingest29: a job's partial copy (its sidecar alone, or with an empty output) ingested after an
EARLIER ingest stored the job's output. The store keeps the output and stores nothing, but the
ingest warned that the job "left no result file", read "ingested 1 results (0 new)" and gave the
placeholder to --jsonl. As within one ingest (ingest28), the placeholder is no result: not counted,
not warned of, not appended; it is said on a "skipped" line of its own."""

from __future__ import annotations

import shutil

import pytest

from sweepgate.results import record as R
from sweepgate.results import store

from .helpers import ROOT, ROW, job, run_cli, show_json, vllm_output, write_job

SKIPPED = ("skipped 1 file of a job whose output an earlier ingest stored (a partial copy: its sidecar "
           "without the output, or the output empty or cut short)")
SCORES = ROOT / "tests" / "data" / "results-samples" / "lm_eval" / "lmeval0.4.8_gsm8k_granite_limit1_smoketest.json"


def _ingest(capsys, db: str, *args):
    return run_cli(capsys, "results", "ingest", "--db", db, *map(str, args))


@pytest.mark.parametrize("partial", ["sidecar alone", "empty output"])
def test_a_partial_copy_after_its_stored_output_is_skipped_not_counted(tmp_path, capsys, partial):
    db, jsonl = f"sqlite:///{tmp_path / 'r.db'}", tmp_path / "new.jsonl"
    write_job(tmp_path / "whole", "res", vllm_output(4), job(run_id="900"))
    write_job(tmp_path / "part", "res", "" if partial == "empty output" else None, job(run_id="900"))
    assert _ingest(capsys, db, tmp_path / "whole")[0] == 0
    rc, out, err = _ingest(capsys, db, "--jsonl", jsonl, tmp_path / "part")
    assert (rc, err) == (0, ""), (out, err)
    assert out.splitlines() == [SKIPPED, f"appended 0 records to {jsonl}",
                                f"ingested 0 results (0 new) into {db}; nothing stored"], out
    assert jsonl.read_text() == ""
    stored = show_json(capsys, db, "--run", "900")
    assert [(r[R.STATUS], r[R.SOURCE_FORMAT]) for r in stored] == [("success", "vllm-serving")]
    rc, out, _ = _ingest(capsys, db, "-v", tmp_path / "part")
    named = tmp_path / "part" / ("res.json" if partial == "empty output" else "res.job.json")
    assert rc == 0 and out.splitlines()[0] == f"skipped {named}", out


def test_beside_other_results_it_is_left_out_of_the_counts(tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'r.db'}"
    write_job(tmp_path / "whole", "res", vllm_output(4), job(run_id="900"))
    assert _ingest(capsys, db, tmp_path / "whole")[0] == 0
    write_job(tmp_path / "next", "res", None, job(run_id="900"))
    write_job(tmp_path / "next", "c8", vllm_output(8), job(run_id="900", row=dict(ROW, conc=8)))
    rc, out, err = _ingest(capsys, db, tmp_path / "next")
    assert (rc, err) == (0, ""), (out, err)
    assert out.splitlines() == [SKIPPED, f"ingested 1 results (1 new) into {db}"], out


def test_with_its_output_again_in_the_same_ingest_it_is_one_result_and_no_skip(tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'r.db'}"
    write_job(tmp_path / "part", "res", None, job(run_id="900"))
    write_job(tmp_path / "whole", "res", vllm_output(4), job(run_id="900"))
    assert _ingest(capsys, db, tmp_path / "whole")[0] == 0
    rc, out, err = _ingest(capsys, db, tmp_path / "part", tmp_path / "whole")
    assert (rc, err) == (0, ""), (out, err)
    assert out.splitlines() == [f"ingested 1 results (0 new) into {db}"], out


def test_an_eval_only_job_s_sidecar_after_its_stored_scores_is_skipped(tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'r.db'}"
    eval_only = {**ROW, "run-eval": True, "eval-only": True}
    write_job(tmp_path / "whole", "res", None, job(run_id="900", row=eval_only))
    shutil.copy(SCORES, tmp_path / "whole" / "res-eval.json")
    write_job(tmp_path / "part", "res", None, job(run_id="900", row=eval_only))
    assert _ingest(capsys, db, tmp_path / "whole")[0] == 0
    rc, out, err = _ingest(capsys, db, tmp_path / "part")
    assert (rc, err) == (0, ""), (out, err)
    assert out.splitlines() == [SKIPPED, f"ingested 0 results (0 new) into {db}; nothing stored"], out


def test_a_placeholder_stored_before_is_still_a_result_when_ingested_again(tmp_path, capsys):
    """No output stored: the sidecar alone again is the stored placeholder again, counted and warned of."""
    db = f"sqlite:///{tmp_path / 'r.db'}"
    write_job(tmp_path / "part", "res", None, job(run_id="900"))
    assert _ingest(capsys, db, tmp_path / "part")[0] == 0
    rc, out, err = _ingest(capsys, db, tmp_path / "part")
    assert rc == 0 and out.splitlines() == [f"ingested 1 results (0 new) into {db}"], (out, err)
    assert "left no result file" in err


def test_store_add_names_the_placeholder_it_kept_behind(tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'r.db'}"
    write_job(tmp_path / "part", "res", None, job(run_id="900"))
    assert _ingest(capsys, db, tmp_path / "part")[0] == 0
    (placeholder,) = show_json(capsys, db, "--run", "900")
    write_job(tmp_path / "whole", "res", vllm_output(4), job(run_id="900"))
    assert _ingest(capsys, db, tmp_path / "whole")[0] == 0
    with store.open_store(db) as st:
        behind: list = []
        assert st.add([placeholder], behind=behind) == 0
        assert behind == [placeholder]
        again: list = []
        (output,) = st.run_results("900")
        assert st.add([output], behind=again) == 0 and again == []
