"""`results compare --json`: two points of one run that differ only in topology (conc 4 of one config
key at tp8 and at tp4, as a search space holds them) read apart, in the points and in the evals.
Real vLLM and lm-eval outputs, ingested with their jobs' sidecars by `results ingest`."""

from __future__ import annotations

import json

import synth
from helpers import ROW, SAMPLES, job, run_cli, write_job
from sweepgate.results import record as R

VLLM = SAMPLES / "vllm" / "vllmbench0.1x_qwen3-32b_b200x8_tp8_isl1024_osl128_c100.json"
GSM8K = SAMPLES / "lm_eval" / "lmeval0.4.x_gsm8k5shot_llama3-70b-gptq_vllm_a6000x4.json"
TOPOLOGIES = {8: "tp8-pp1-dcp1-pcp1-ep1-dpafalse", 4: "tp4-pp1-dcp1-pcp1-ep1-dpafalse"}


def ingest_run(root, db, capsys, run: str, ref: str, day: int) -> None:
    """One run: conc 4 at tp8 and at tp4 (the real vLLM output at conc 4, isl/osl 1024/128), each
    with the real gsm8k eval."""
    output = {**json.loads(VLLM.read_text(encoding="utf-8")), "max_concurrency": 4}
    for tp in TOPOLOGIES:
        row = {**ROW, "tp": tp, "conc": 4, "isl": 1024, "osl": 128, "exp-name": f"dsr1_1k128_tp{tp}"}
        side = job(run_id=run, ref=ref, row=row, finished=f"2026-01-0{day}T12:00:00+00:00")
        write_job(root / run, f"res_tp{tp}", output, side)
        (root / run / f"res_tp{tp}-eval.json").write_text(GSM8K.read_text(encoding="utf-8"), encoding="utf-8")
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(root / run))
    assert rc == 0, err


def test_points_that_differ_only_in_topology_read_apart_in_the_json(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    db = f"sqlite:///{tmp_path / 'r.db'}"
    for n in range(3):
        ingest_run(tmp_path, db, capsys, f"100{n}", "refs/heads/main", n + 1)
    ingest_run(tmp_path, db, capsys, "2002", "refs/pull/7/head", 5)
    rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "2002", "--json")
    assert rc == 0, err
    doc = json.loads(out)
    for entries, what in ((doc["points"], ("metric",)), (doc["evals"], ("task", "metric", "filter"))):
        assert entries and all(set(R.POINT_IDENTITY) <= set(e) for e in entries)
        keys = [tuple(e[name] for name in (*R.POINT_IDENTITY, *what)) for e in entries]
        assert len(set(keys)) == len(keys)  # no two entries read alike
        assert {e[R.TOPOLOGY] for e in entries} == set(TOPOLOGIES.values())
    judged = (*synth.PLAIN_METRICS, R.MAX_OUTPUT_TOKENS_PER_S)  # the real vllm bench serve output states its peak
    assert len(doc["points"]) == 2 * len(judged) and len(doc["evals"]) == 2 * 2
