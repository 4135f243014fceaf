"""Counts in results/ messages agree with their number (s40k): "1 more regressed rows" and "1 requests completed"
read wrong. `results ingest`'s last line stays "ingested 1 results (1 new) into …" (CONTRACTS §8 spells it so
for every N, for the tools that parse it), and `ci reuse`'s "reused N of M jobs (X GPU-hours saved)" as
CONTRACTS §9 spells it."""

from __future__ import annotations

import json

import synth
from helpers import run_cli

from sweepgate.results import compare as C
from sweepgate.results import record as R
from sweepgate.results import render


def test_a_cut_section_says_one_more_row():
    scale = {(synth.KEYS[0], c): {R.OUTPUT_TPUT_PER_GPU: 0.7} for c in synth.CONCS[:2]}
    comp = C.compare_records(synth.pr_run(scale), synth.history())
    regressed = comp.counts()[C.REGRESSED]
    out = render._md_sections(comp, render.point_naming(comp), False, regressed - 1, opened=True, placed=set())
    assert [line for line in out if "more" in line] == ["\n1 more regressed row: see `--json`."]
    out = render._md_sections(comp, render.point_naming(comp), False, regressed - 2, opened=True, placed=set())
    assert [line for line in out if "more" in line] == ["\n2 more regressed rows: see `--json`."]


def test_one_request_completed_of_none_sent(tmp_path, db, capsys):
    from helpers import vllm_output

    (tmp_path / "out.json").write_text(json.dumps(vllm_output(num_prompts=0, completed=1)), encoding="utf-8")
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path / "out.json"))
    assert rc == 1 and "completed: 1 request completed of the 0 sent (num_prompts)" in err, err
