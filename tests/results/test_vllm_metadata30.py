"""vLLM's `--metadata KEY=VALUE` pairs (top-level texts of its output): runs of one output tagged apart at
one point are two setups, never one point's repeats (new user s30: a real JSONL of a vLLM and an SGLang
server, `framework=vllm` and `framework=sgl` at each rate, ingested whole, was compared as six points each
measured twice, every figure the mean of a vLLM and an SGLang run); a `framework` pair is the record's
framework where no job row names one."""

from __future__ import annotations

import json

from helpers import ROW, VLLM_VS_SGLANG, run_cli, show_json, tagged_lines

# A real llm-d sweep: rates 10, 30 and unlimited of three deployments, `--metadata deployment=no-features`,
# `base` and `kvcache` (and gpu, gateway, replicas, lengths alike in every line).
LLMD = "vllm/vllm0.9_llama3.2-3b_l40sx4_llmd_qps10-30-inf.jsonl"
LLAMA_ROW = {**{k: v for k, v in ROW.items() if k != "conc"}, "model": "meta-llama/Llama-3.2-3B-Instruct", "tp": 1}


def test_a_real_output_of_two_frameworks_at_each_rate_is_refused_not_averaged(samples, tmp_path, db, capsys):
    path = samples / VLLM_VS_SGLANG
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(path))
    assert rc == 1 and "nothing stored" in out, out + err
    (line,) = err.splitlines()
    col = path.read_text(encoding="utf-8").splitlines()[6].index('"framework"') + 1
    assert line == (f"{path}:7:{col}: framework: --metadata framework=sgl here but framework=vllm on line 1, at the "
                    "same point (rate 1/s): stored together, the two runs would be averaged and judged as repeats "
                    "of one measurement; split the lines into one file per framework and ingest the files, each a "
                    "run of its own (with --row, under its own --run-id)"), line


def test_split_as_the_refusal_says_each_framework_is_a_run_of_its_own_points(samples, tmp_path, db, capsys):
    for framework in ("vllm", "sgl"):
        (tmp_path / "in").mkdir(exist_ok=True)
        (tmp_path / "in" / f"{framework}.jsonl").write_text(tagged_lines(samples / VLLM_VS_SGLANG, "framework",
                                                                         framework), encoding="utf-8")
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path / "in"))
    assert rc == 0 and "ingested 12 results (12 new)" in out, out + err
    recs = show_json(capsys, db)
    runs = {r["framework"]: r["run-id"] for r in recs}
    assert sorted(runs) == ["sgl", "vllm"]  # the --metadata value, as written: no vocabulary maps "sgl"
    for framework, run in runs.items():
        names = {r["result-filename"] for r in recs if r["run-id"] == run}
        assert names == {f"{framework}.jsonl#{n}" for n in range(1, 7)}
        rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", run, "--json")
        assert rc == 0, err
        doc = json.loads(out)
        assert "repeated" not in doc, doc["repeated"]  # each rate measured once, by one server
        assert {p["request-rate"] for p in doc["points"]} == {"1", "10", "20", "30", "35", None}


def test_a_job_row_names_the_framework_over_the_metadata(samples, tmp_path, db, capsys):
    part = tmp_path / "sgl.jsonl"
    part.write_text(tagged_lines(samples / VLLM_VS_SGLANG, "framework", "sgl"), encoding="utf-8")
    (tmp_path / "row.json").write_text(json.dumps({**LLAMA_ROW, "framework": "sglang"}), encoding="utf-8")
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, "--row", str(tmp_path / "row.json"), "--run-id", "1",
                         "--ref", "refs/heads/main", str(part))
    assert rc == 0, err
    assert {r["framework"] for r in show_json(capsys, db)} == {"sglang"}


def test_a_real_llmd_sweep_of_three_deployments_is_refused_under_a_row_too(samples, tmp_path, db, capsys):
    (tmp_path / "row.json").write_text(json.dumps(LLAMA_ROW), encoding="utf-8")
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, "--row", str(tmp_path / "row.json"), "--run-id", "1",
                         "--ref", "refs/heads/main", str(samples / LLMD))
    assert rc == 1
    (line,) = err.splitlines()
    assert (":4:" in line and "deployment: --metadata deployment=base here but deployment=no-features on line 1, at "
            "the same point (rate 10/s)" in line and "one file per deployment" in line), line


def test_runs_tagged_apart_at_points_of_their_own_are_stored(samples, tmp_path, db, capsys):
    """Only runs at one point must agree: the llm-d sweep's first deployment at 10/s, the second at 30/s and
    the third unlimited are three points, each measured once."""
    lines = (samples / LLMD).read_text(encoding="utf-8").splitlines(keepends=True)
    part = tmp_path / "mixed.jsonl"
    part.write_text(lines[0] + lines[4] + lines[8], encoding="utf-8")
    assert [json.loads(line)["deployment"] for line in part.read_text().splitlines()] == ["no-features", "base",
                                                                                         "kvcache"]
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(part))
    assert rc == 0 and "ingested 3 results" in out, err
    assert sorted(str(r["request-rate"]) for r in show_json(capsys, db)) == ["10.0", "30.0", "inf"]
    assert {r["framework"] for r in show_json(capsys, db)} == {None}  # no framework pair: none
