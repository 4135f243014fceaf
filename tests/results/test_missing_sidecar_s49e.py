"""A job's output whose sidecar is missing is said, not passed over as a helper file (s49e, new-user walk).

In a folder of jobs' sidecars, ingest reads only outputs paired with one; the rest are the jobs' helper files
(a multi-node job's ``X_conc4.json`` parts, an agentic job's ``aiperf_*/`` export, ``gpu_metrics.csv``) and are
counted. A whole job's output without its ``X.job.json`` (a sidecar not copied with it, a job folder downloaded
without it) was counted with them, ``skipped 1 file with no job sidecar (helper outputs)`` on stdout, exit 0: the
job's figures never reached the store and nothing named the file. A client output that is no job's helper (its name
extends no sidecar's result name in its folder, and it lies in no subfolder of a job's folder) is now one warning
line at the file, naming the sidecar it lacks and both fixes; it is still not stored (exit 0), and the helper files
are counted as before."""

from __future__ import annotations

import json

from helpers import SAMPLES, job, run_cli, vllm_output, write_job


def _db(tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'r.db'}"


def _warning(path) -> str:
    return (f"{path}: warning: a benchmark output with no {path.name.rsplit('.', 1)[0]}.job.json beside it, in a "
            "folder of jobs' sidecars: not ingested (no job's helper file either: its name extends no sidecar's); "
            "copy its job's sidecar beside it (the benchmark job's `sweepgate results sidecar` step writes it), or "
            "ingest it alone with --row FILE --run-id ID --ref REF")


def test_a_job_folder_without_its_sidecar_is_named(tmp_path, capsys):
    """Artifacts downloaded one folder a job, one of them without its sidecar."""
    root = tmp_path / "results"
    write_job(root / "bmk_a", "a", vllm_output(), job(run_id="7"))
    lone = write_job(root / "bmk_b", "b", vllm_output(conc=8), None)
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", _db(tmp_path), str(root))
    assert rc == 0, (out, err)
    assert err.splitlines() == [_warning(lone)], err
    assert "helper outputs" not in out and "ingested 1 results (1 new)" in out, out


def test_a_merged_folder_s_output_without_its_sidecar_is_named(tmp_path, capsys):
    """The collect job's layout: every job's files merged into one folder."""
    root = tmp_path / "results"
    write_job(root, "a", vllm_output(), job(run_id="7"))
    lone = write_job(root, "b", vllm_output(conc=8), None)
    scores = root / "b-eval.json"  # its eval, paired with the same missing sidecar
    scores.write_bytes((SAMPLES / "lm_eval" / "lmeval0.4.8_gsm8k_granite_limit1_smoketest.json").read_bytes())
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", _db(tmp_path), str(root))
    assert rc == 0, (out, err)
    assert sorted(err.splitlines()) == sorted([_warning(lone), _warning(scores)]), err


def test_the_jobs_helper_files_are_still_counted_and_not_said(tmp_path, capsys):
    root = tmp_path / "results"
    job_dir = root / "bmk_res"
    write_job(job_dir, "res", vllm_output(), job())
    write_job(job_dir, "res_conc4", vllm_output(), None)  # a multi-node job's per-conc part: its name extends res
    export = SAMPLES / "aiperf" / "aiperf_kimik2.7_fp4_mi355x_tp4_conc4.json"
    (job_dir / "aiperf_res").mkdir()  # an export in a subfolder of the job's folder
    (job_dir / "aiperf_res" / "profile_export_aiperf.json").write_bytes(export.read_bytes())
    (job_dir / "mooncake_config.json").write_text(json.dumps({"metadata_server": "P2PHANDSHAKE"}))  # no output
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", _db(tmp_path), str(root))
    assert rc == 0 and err == "", (out, err)
    assert "skipped 3 files with no job sidecar (helper outputs)" in out.splitlines(), out


def test_a_folder_of_no_sidecar_is_ingested_as_before(tmp_path, capsys):
    """Raw outputs with no sidecar anywhere are results of their own (on no ref), not helpers: unchanged."""
    root = tmp_path / "raw"
    write_job(root, "b", vllm_output(conc=8), None)
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", _db(tmp_path), str(root))
    assert rc == 0 and "ingested 1 results (1 new)" in out, (out, err)
    assert "with no b.job.json" not in err, err
