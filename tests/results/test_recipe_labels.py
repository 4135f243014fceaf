"""One short recipe label (``labels.recipe_label``) in every place a person reads a point: `results
show`, the compare table, its Markdown and the chart legend say ``tp8`` and ``tp8-pp2``, not
``tp8-pp1-dcp1-pcp1-ep1-dpafalse``; what tells two recipes apart is never the part left out; the
stored records and ``--json`` keep the whole topology. Real vLLM output, ingested with its sidecars."""

from __future__ import annotations

import itertools
import json
import re

from helpers import ROW, SAMPLES, job, run_cli, write_job
from sweepgate.results import derive
from sweepgate.results import record as R

VLLM = SAMPLES / "vllm" / "vllmbench0.1x_qwen3-32b_b200x8_tp8_isl1024_osl128_c100.json"
WHOLE = {1: "tp8-pp1-dcp1-pcp1-ep1-dpafalse", 2: "tp8-pp2-dcp1-pcp1-ep1-dpafalse"}


def ingest_run(root, db, capsys, run: str, ref: str, day: int) -> None:
    """conc 4 of one config key at pp 1 and at pp 2 (a search space's two entries), the second slower."""
    doc = {**json.loads(VLLM.read_text(encoding="utf-8")), "max_concurrency": 4}
    for pp in WHOLE:
        output = {**doc, "output_throughput": doc["output_throughput"] / pp}
        row = {**ROW, "pp": pp, "conc": 4, "isl": 1024, "osl": 128, "exp-name": f"q_pp{pp}"}
        write_job(root / run, f"res_pp{pp}", output, job(run_id=run, ref=ref, row=row,
                                                           finished=f"2026-01-0{day}T12:00:00+00:00"))
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(root / run))
    assert rc == 0, err


def test_tables_markdown_and_charts_name_a_recipe_short_and_apart(tmp_path, db, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "400")
    for n in range(3):
        ingest_run(tmp_path, db, capsys, f"100{n}", "refs/heads/main", n + 1)
    ingest_run(tmp_path, db, capsys, "2002", "refs/pull/7/head", 5)
    rc, shown, err = run_cli(capsys, "results", "show", "--db", db, "--run", "2002")
    assert rc == 0, err
    rows = [line for line in shown.splitlines() if "res_pp" in line]
    assert [re.search(r"│ (tp8\S*) +│", line).group(1) for line in rows] == ["tp8", "tp8-pp2"], shown
    plots = tmp_path / "plots"
    for flags in ((), ("--markdown",), ("--plots", str(plots))):
        rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "2002", *flags)
        assert rc == 0, err
        assert "dpafalse" not in out and "-pp1" not in out, out
        points = {m.group(1) for m in re.finditer(r"conc 4 (tp8\S*)", out)}
        assert points == {"tp8", "tp8-pp2"}, out
    (svg,) = plots.glob("*.svg")
    legend = re.findall(r"dsr1-fp4-b300-vllm · [^<]+", svg.read_text(encoding="utf-8"))
    assert sorted(set(legend)) == ["dsr1-fp4-b300-vllm · tp8", "dsr1-fp4-b300-vllm · tp8-pp2"], legend
    rc, out, err = run_cli(capsys, "results", "compare", "--db", db, "--run", "2002", "--json")
    assert {p[R.TOPOLOGY] for p in json.loads(out)["points"]} == set(WHOLE.values())  # machine-readable: whole
    rc, out, err = run_cli(capsys, "results", "show", "--db", db, "--run", "2002", "--json")
    assert {r[R.TOPOLOGY] for r in json.loads(out)} == set(WHOLE.values())


def test_the_short_topology_drops_only_defaults_so_no_two_recipes_read_alike():
    from sweepgate.results import labels

    rows = [{"tp": tp, "pp": pp, "dcp-size": dcp, "pcp-size": pcp, "ep": ep, "dp-attn": dpa}
            for tp, pp, dcp, pcp, ep, dpa in itertools.product((1, 8), (1, 2), (1, 2), (1, 2), (1, 8, 16), (False, True))]
    whole = {derive.topology(row) for row in rows}
    whole |= {derive.topology({"prefill": {"num-worker": 1, **a}, "decode": {"num-worker": 2, **b}})
              for a, b in itertools.product(rows[:12], rows[-12:])}
    short = {labels.short_topology(t) for t in whole}
    assert len(short) == len(whole)
    assert labels.short_topology("tp8-pp1-dcp1-pcp1-ep1-dpafalse") == "tp8"
    assert labels.short_topology("tp1-pp2-dcp1-pcp2-ep16-dpatrue") == "tp1-pp2-pcp2-ep16-dpa"
    assert labels.short_topology("tp8-ep1") == "tp8-ep1"  # a form it does not know: left whole


def test_a_kv_offload_without_a_backend_is_named():
    """The table named the backend alone: a dram offload arm with no backend read as its plain twin."""
    from sweepgate.results import labels

    plain = {R.TOPOLOGY: "tp8-pp1-dcp1-pcp1-ep1-dpafalse", R.KV_OFFLOADING: "none"}
    assert labels.recipe_label(plain) == "tp8"
    assert labels.recipe_label({**plain, R.KV_OFFLOADING: "dram"}) == "tp8 KV offload dram"
    assert labels.recipe_label({**plain, R.KV_OFFLOADING: "dram", R.KV_OFFLOAD_BACKEND: "lmcache",
                                R.SPEC_DECODING: "mtp"}) == "tp8 spec mtp lmcache (dram)"
