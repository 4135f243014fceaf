"""AIPerf's multi-run aggregates (``aiperf profile --num-profile-runs N``): beside each repeat's own
export (``profile_runs/run_NNNN/profile_export_aiperf.json``, a result) AIPerf writes
``aggregate/profile_export_aiperf_aggregate.json`` and ``.csv`` (each metric's mean, std, cv, se and
confidence interval across the repeats, keyed ``<metric>_<stat>``; no model, concurrency or request
counts of its own) and, with a convergence metric, ``profile_export_aiperf_collated.json``. The shapes
here are those of ai-dynamo/aiperf's AggregateConfidenceJsonExporter/CsvExporter and
AggregateDetailedJsonExporter (src/aiperf/exporters/aggregate/), which no public repository has
committed a run of. An aggregate is passed over with a line of its own on stdout, so its repeats are
not counted twice; it was "unknown JSON output" (and "a CSV table"), exit 1."""

from __future__ import annotations

import json
import shutil

from helpers import SAMPLES, no_ref_said, run_cli

REPEATS = ("aiperf_qwen3-0.6b_rtx6000ada_conc1_plotfixture.json", "aiperf_qwen3-0.6b_rtx6000ada_conc2_plotfixture.json")
NOTE = ("AIPerf multi-run aggregate (statistics across the repeats of --num-profile-runs, not a run: each "
        "repeat's own profile_export_aiperf.json, under profile_runs/, is a result)")


def confidence(mean: float) -> dict:
    return {"mean": mean, "std": 0.4, "min": mean - 0.3, "max": mean + 0.3, "cv": 0.4 / mean, "se": 0.28,
            "ci_low": mean - 3.6, "ci_high": mean + 3.6, "t_critical": 12.7062, "unit": "ms"}


AGGREGATE = {
    "schema_version": "1.0", "aiperf_version": "0.6.0",
    "metadata": {"aggregation_type": "confidence", "num_profile_runs": 2, "num_successful_runs": 2, "failed_runs": [],
                 "confidence_level": 0.95, "run_labels": ["run_0001", "run_0002"]},
    "metrics": {"time_to_first_token_avg": confidence(21.5), "time_to_first_token_p99": confidence(40.2),
                "request_throughput_avg": dict(confidence(6.1), unit="requests/sec")},
}
AGGREGATE_CSV = ("metric,mean,std,min,max,cv,se,ci_low,ci_high,t_critical,unit\r\n"
                 "time_to_first_token_avg,21.50,0.40,21.20,21.80,0.0186,0.2800,17.90,25.10,12.7062,ms\r\n"
                 "request_throughput_avg,6.10,0.40,5.80,6.40,0.0656,0.2800,2.50,9.70,12.7062,requests/sec\r\n"
                 "\r\n"
                 "Aggregation Type,confidence\r\nTotal Runs,2\r\nSuccessful Runs,2\r\nConfidence Level,0.95\r\n"
                 "Run Labels,\"['run_0001', 'run_0002']\"\r\n")
COLLATED = {
    "schema_version": "1.0.0", "aiperf_version": "0.6.0",
    "description": "Collated per-request metrics across all runs.",
    "metadata": {"aggregation_type": "detailed", "num_profile_runs": 2, "num_successful_runs": 2, "failed_runs": [],
                 "run_labels": ["run_0001", "run_0002"]},
    "metrics": {"time_to_first_token": {"combined": {"mean": 21.5, "std": 3.1, "p50": 20.9, "p90": 25.0, "p99": 40.2,
                                                     "count": 128},
                                        "per_run": [{"label": "run_0001", "mean": 21.1}, {"label": "run_0002",
                                                                                           "mean": 21.9}]}},
}


def artifacts(tmp_path):
    base = tmp_path / "artifacts" / "qwen3-0.6b-openai-chat-concurrency1"
    for n, name in enumerate(REPEATS, 1):
        run = base / "profile_runs" / f"run_{n:04d}"
        run.mkdir(parents=True)
        shutil.copy(SAMPLES / "aiperf" / name, run / "profile_export_aiperf.json")
    agg = base / "aggregate"
    agg.mkdir()
    (agg / "profile_export_aiperf_aggregate.json").write_text(json.dumps(AGGREGATE, indent=2), encoding="utf-8")
    (agg / "profile_export_aiperf_aggregate.csv").write_text(AGGREGATE_CSV, encoding="utf-8", newline="")
    (agg / "profile_export_aiperf_collated.json").write_text(json.dumps(COLLATED, indent=2), encoding="utf-8")
    return base


def test_a_multi_run_folder_stores_each_repeat_once_and_says_it_passed_over_the_aggregates(tmp_path, capsys):
    base = artifacts(tmp_path)
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path / "artifacts"))
    assert (rc, no_ref_said(err)) == (0, ""), err
    lines = out.splitlines()
    assert f"skipped 2 {NOTE.replace('aggregate ', 'aggregates ', 1)}" in lines, out
    assert "skipped 1 CSV file beside a JSON export of the same name (the same run, read from the JSON)" in lines, out
    assert lines[-1] == f"ingested 2 results (2 new) into {db}", out
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, "--verbose", str(base / "aggregate"))
    # the aggregate folder alone holds no result, as a folder of AIPerf's other exports: bad input (exit 1)
    assert rc == 1 and f"skipped {base / 'aggregate' / 'profile_export_aiperf_aggregate.json'}" in out, out
    assert err.count("\n") == 1 and "no result files in this folder, only files that go with one (AIPerf " \
        "multi-run aggregates); pass" in err, err


def test_a_folder_of_side_files_of_several_kinds_names_each_kind(tmp_path, capsys):
    base = artifacts(tmp_path)
    # nvidia-smi --query-gpu=timestamp,index,power.draw --format=csv -l 1, as benchmark_lib.sh records it
    (base / "aggregate" / "gpu_metrics.csv").write_text(
        "timestamp, index, power.draw [W]\n2026/11/30 10:00:00.000, 0, 700.12 W\n"
        "2026/11/30 10:00:01.000, 0, 702.50 W\n")
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}",
                           str(base / "aggregate"))
    assert rc == 1 and err.count("\n") == 1, err
    kinds = err.split("only files that go with one (", 1)[1].split("); ", 1)[0].split("; ")
    assert sorted(kinds) == ["AIPerf multi-run aggregates", "GPU metrics, lm-eval samples logs, AIPerf's and "
                             "GenAI-Perf's other exports"], err


def test_each_aggregate_named_alone_is_passed_over_with_its_note(tmp_path, capsys):
    base = artifacts(tmp_path)
    db = f"sqlite:///{tmp_path / 'r.db'}"
    for name in ("profile_export_aiperf_aggregate.json", "profile_export_aiperf_aggregate.csv",
                 "profile_export_aiperf_collated.json"):
        rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(base / "aggregate" / name))
        assert (rc, err) == (0, ""), (name, err)
        assert out.splitlines() == [f"skipped 1 {NOTE}", f"ingested 0 results (0 new) into {db}; nothing stored"], out


def test_a_json_of_another_aggregation_is_still_unknown(tmp_path, capsys):
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"metadata": {"aggregation_type": "sweep", "num_profile_runs": 2}, "metrics": {}}))
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(other))
    assert rc == 1 and err.count("\n") == 1 and "format: unknown JSON output" in err, err
