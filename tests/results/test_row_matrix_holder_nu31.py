"""`results ingest --row m.json` with a whole `sweepgate matrix` output (its buckets of rows, the file a
user has at hand after the matrix step) was refused as "row has no 'exp-name', 'runner', 'precision',
'framework', 'image'", as if the file were a broken row; it holds rows, and says so, with the jq path of
its first row, as a test-config list and a sidecar already do (new-user walk-through, nu31). Since s50g the
jq line selects by the fields the bucket's rows differ in, conc first, in the file given, as the test-config list's
does (tests/results/test_row_matrix_hint_s50g.py)."""

from __future__ import annotations

import json

from helpers import ROW, run_cli, vllm_output, write_job


def test_a_matrix_output_given_as_row_says_what_it_is_and_where_its_rows_are(tmp_path, capsys):
    out = write_job(tmp_path, "bare", vllm_output(), None)
    matrix = {"single_node": {"1k1k": [ROW, dict(ROW, conc=8)]}, "multi_node": {}, "evals": []}
    (tmp_path / "m.json").write_text(json.dumps(matrix))
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", "--row",
                         str(tmp_path / "m.json"), "--run-id", "7", "--ref", "refs/heads/main", str(out))
    (line,) = err.strip().splitlines()
    assert rc == 1 and line == (
        f"{tmp_path / 'm.json'}:1: a matrix of 2 rows (as `sweepgate matrix` prints it), not one row; pass the "
        """one row this output ran, told apart by conc: e.g. `jq '.single_node."1k1k" | map(select(.conc == 4))[0]' """
        f"""{tmp_path / 'm.json'} > row.json` with the values of the row it ran"""), err
    assert not (tmp_path / "r.db").exists()
