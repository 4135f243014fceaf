"""`results ingest --row matrix.json` with the whole `sweepgate matrix` output a new user has after the matrix step
(s50g, an adopter's walk-through on the reference's own configs): the refusal's fix was `jq
'.single_node."8k1k"[0]' FILE > row.json`, the bucket's first row whatever its concurrency, of a `FILE` to name
again. Followed for a conc 32 output, that row (conc 4) was refused next, for its concurrency. The fix now selects
by what the bucket's rows differ in, conc first, in the file given, as the refusal of a test-config list does; the
jq line it names, run with the output's conc, gives the row that ingests. Real jq, a real vLLM output."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from helpers import ROW, SAMPLES, run_cli

SAMPLE = SAMPLES / "vllm" / "ifx_benchserving_kimik2.5_int4_mi355x_tp8_mtp_8k1k_conc32.json"


@pytest.mark.skipif(shutil.which("jq") is None, reason="the hint's jq line needs jq")
def test_the_jq_line_a_matrix_given_as_row_names_picks_the_row_by_conc_in_that_file(tmp_path, capsys, monkeypatch):
    import json

    monkeypatch.chdir(tmp_path)
    row = dict(ROW, model="moonshotai/Kimi-K2.5", isl=8192, osl=1024, runner="mi355x")
    bucket = [dict(row, conc=conc) for conc in (4, 8, 16, 32, 64)]
    (tmp_path / "matrix.json").write_text(json.dumps({"single_node": {"8k1k": bucket}, "multi_node": {}}))
    shutil.copyfile(SAMPLE, tmp_path / "c32.json")
    db = f"sqlite:///{tmp_path / 'r.db'}"
    given = ("--run-id", "7", "--ref", "refs/heads/main", "c32.json")
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, "--row", "matrix.json", *given)
    (line,) = err.strip().splitlines()
    assert rc == 1 and "told apart by conc:" in line and "FILE" not in line, line
    jq = re.search(r"`(jq '[^']*' matrix\.json) > row\.json`", line).group(1)
    assert ".conc == 4" in jq, jq
    picked = subprocess.run(["bash", "-c", jq.replace(".conc == 4", ".conc == 32")], capture_output=True, text=True,
                            check=True, timeout=60).stdout
    assert json.loads(picked)["conc"] == 32
    (tmp_path / "row.json").write_text(picked)
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, "--row", "row.json", *given)
    assert rc == 0 and "(1 new)" in out, out + err
