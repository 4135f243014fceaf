"""A JSONL output whose line contradicts its job's row is refused at that line's key, as a one-line
file is (`x.jsonl:1:141: random_input_len: ...`): a line of a longer file was refused at `x.jsonl:3:`
with no column, so the reader had to find the key in a line of a few thousand characters."""

from __future__ import annotations

import json

from helpers import ROW, SAMPLES, run_cli


def test_a_mismatch_on_the_third_line_of_a_jsonl_is_placed_at_its_key(tmp_path, capsys):
    lines = (SAMPLES / "sglang" / "sglang_2024-12_llama3.3-70b_h200x4_online.jsonl").read_text().splitlines()
    assert len(lines) > 3
    third = json.loads(lines[2])
    third["random_input_len"] = 2048  # another job's line: the row says isl 1024
    lines[2] = json.dumps(third)
    out = tmp_path / "res.jsonl"
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    row = tmp_path / "row.json"
    uncapped = {k: v for k, v in ROW.items() if k != "conc"}  # the sweep ran uncapped: a row naming no conc
    row.write_text(json.dumps(dict(uncapped, isl=1024, osl=1024)), encoding="utf-8")
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, "--row", str(row), "--run-id", "5",
                         "--ref", "refs/heads/main", str(out))
    col = lines[2].index('"random_input_len"') + 1
    refusal = [line for line in err.splitlines() if "random_input_len" in line]
    assert rc == 1 and refusal == [
        f"{out}:3:{col}: random_input_len: the output used 2048 input tokens but its job's row (--row) says "
        "isl 1024; pass the matrix row this output was run with as --row"], err


def test_a_jsonl_of_no_client_output_is_placed_alike_with_one_line_or_more(tmp_path, capsys):
    """A one-line .jsonl that is no client output was refused at `FILE:1:1:` (a whole document, placed where it
    starts) and a longer one at `FILE:1:` (a JSONL line, no column): each line is placed where its object
    starts, as a one-line file is and as a line's refusal naming a key is."""
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    one.write_text('{"a": 1}\n', encoding="utf-8")
    two.write_text('  {"a": 1}\n{"b": 2}\n', encoding="utf-8")
    for path, at in ((one, "1:1"), (two, "1:3")):
        rc, _, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(path))
        (line,) = err.strip().splitlines()
        assert rc == 1 and line.startswith(f"{path}:{at}: format: unknown JSON output"), err
