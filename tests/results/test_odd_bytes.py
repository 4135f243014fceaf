"""A real output with a UTF-8 byte-order mark is read as it is; a truncated one is refused with a
message that is a whole phrase."""

from __future__ import annotations

import json
from helpers import SAMPLES
from sweepgate import cli

SAMPLE = SAMPLES / "vllm" / "ifx_benchserving_gptoss120b_disagg_1p1d_16gpu_1k1k_conc4.json"


def test_a_byte_order_mark_is_not_content(tmp_path, capsys):
    """Review: a valid vLLM JSON behind a BOM was refused as "not a benchmark client output"."""
    text = SAMPLE.read_text(encoding="utf-8")
    (tmp_path / "plain.json").write_text(text, encoding="utf-8")
    (tmp_path / "bom.json").write_text(text, encoding="utf-8-sig")
    db = f"sqlite:///{tmp_path / 'r.db'}"
    for name in ("plain.json", "bom.json"):
        assert cli.main(["results", "ingest", "--db", db, str(tmp_path / name)]) == 0, capsys.readouterr().err
    assert cli.main(["results", "show", "--db", db, "--json"]) == 0
    capsys.readouterr()
    assert cli.main(["results", "show", "--db", db, "--json"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert len(records) == 2 and records[0]["metrics"] == records[1]["metrics"]


def test_a_truncated_string_names_where_it_starts(tmp_path, capsys):
    """Review: "not valid JSON: Unterminated string starting at; ..." stopped mid-phrase."""
    text = '{"backend": "vllm", "model_id": "openai/gpt-o'
    (tmp_path / "cut.json").write_text(text)
    assert cli.main(["results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(tmp_path / "cut.json")]) == 1
    err = capsys.readouterr().err.strip()
    assert err == (f"{tmp_path / 'cut.json'}:1:33: not valid JSON: Unterminated string starting at column 33; "
                   "the file is truncated or not a client's output; rerun the benchmark or remove the file"), err


def test_a_pretty_printed_output_cut_short_is_placed_where_it_stops(tmp_path, capsys):
    """New-user run: an indented output cut off mid-file (a client killed writing it) was read as
    JSONL and refused at its first line, a lone "{" (`:1:2: Expecting property name ...`), which is
    whole; the place and message are where the whole document's parse stopped."""
    text = json.dumps(json.loads(SAMPLE.read_text(encoding="utf-8")), indent=2)
    cut = text[:text.index('"completed"') + 5]
    (tmp_path / "cut.json").write_text(cut)
    assert cli.main(["results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(tmp_path / "cut.json")]) == 1
    err = capsys.readouterr().err.strip()
    line = cut.count("\n") + 1
    assert err.startswith(f"{tmp_path / 'cut.json'}:{line}:3: not valid JSON: Unterminated string starting at "
                          "column 3; "), err


def test_every_json_refusal_names_the_place_its_message_points_at(tmp_path, capsys):
    """The same cut-off message was printed by `ci row-env`/`results sidecar` (ROW), `ci collect`
    (RESULTS) and `rehearse --row`; one helper (core.errors.json_message) now words them all, and
    a baseline JSONL line no longer reads "starting at at column"."""
    import json

    import pytest

    from sweepgate.core.errors import json_message
    from sweepgate.results import source

    with pytest.raises(json.JSONDecodeError) as info:
        json.loads('{"a": "b')
    assert json_message(info.value) == "Unterminated string starting at column 7"
    with pytest.raises(json.JSONDecodeError) as info:
        json.loads('{"a": }')
    assert json_message(info.value) == "Expecting value"
    bad = tmp_path / "base.jsonl"
    bad.write_text('{"run-id": "x", "metrics": {"a": "b}\n')
    from sweepgate.core.errors import SweepgateError

    with pytest.raises(SweepgateError) as refused:
        source.records_from_jsonl([bad])
    text = refused.value.diagnostics[0].render()
    assert "starting at column" in text and "at at" not in text, text


def test_a_fifo_is_not_called_missing(tmp_path, capsys):
    """Audit: `results ingest fifo.json` said "no such file or folder" of a FIFO that exists."""
    import os

    from helpers import run_cli

    os.mkfifo(tmp_path / "fifo.json")
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(tmp_path / "fifo.json"))
    assert rc == 1 and err.startswith(f"{tmp_path / 'fifo.json'}: not a regular file or folder;"), err


def _refusal(tmp_path, capsys, name: str, data: bytes) -> str:
    (tmp_path / name).write_bytes(data)
    assert cli.main(["results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(tmp_path / name)]) == 1
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert not (tmp_path / "r.db").exists()
    return line


def test_a_refused_whole_document_names_the_line_and_column_of_the_key_at_fault(tmp_path, capsys):
    """Review: a JSON output refused for one value said `out.json: completed: ...`, no line (a
    whole document's line was 0), so an indented 80-line file gave no place to look."""
    doc = dict(json.loads(SAMPLE.read_text(encoding="utf-8")), completed="x")
    indented = json.dumps(doc, indent=2)
    line = _refusal(tmp_path, capsys, "indented.json", indented.encode())
    at = indented.index('"completed"')
    row, col = indented.count("\n", 0, at) + 1, at - indented.rfind("\n", 0, at)
    assert row > 1 and line.startswith(f"{tmp_path / 'indented.json'}:{row}:{col}: completed: expected a number"), line
    flat = json.dumps(doc)  # vLLM writes one line: the column is the place
    line = _refusal(tmp_path, capsys, "flat.json", flat.encode())
    col = flat.index('"completed"') + 1
    assert line.startswith(f"{tmp_path / 'flat.json'}:1:{col}: completed: "), line


def test_a_total_below_the_output_throughput_is_placed_at_the_total(tmp_path, capsys):
    """New-user run: `total_token_throughput (1) is below output_throughput (221.424)` named the key
    first but in no `key: ` form, so an indented output was refused at `:1:1`, not at the key."""
    doc = dict(json.loads(SAMPLE.read_text(encoding="utf-8")), total_token_throughput=1)
    indented = json.dumps(doc, indent=2)
    line = _refusal(tmp_path, capsys, "indented.json", indented.encode())
    at = indented.index('"total_token_throughput"')
    row, col = indented.count("\n", 0, at) + 1, at - indented.rfind("\n", 0, at)
    assert row > 1 and line.startswith(f"{tmp_path / 'indented.json'}:{row}:{col}: total_token_throughput: 1 is "
                                       "below output_throughput ("), line


def test_a_refusal_naming_no_key_of_the_file_points_at_the_document_and_bad_bytes_at_their_place(tmp_path, capsys):
    line = _refusal(tmp_path, capsys, "other.json", b'\n\n  {"hello": 1}\n')
    assert line.startswith(f"{tmp_path / 'other.json'}:3:3: format: unknown JSON output"), line
    line = _refusal(tmp_path, capsys, "latin.json", b'{"backend": "vllm",\n "model_id": "caf\xe9"}')
    assert line.startswith(f"{tmp_path / 'latin.json'}:2:18: not UTF-8 text (byte 37)"), line
    # Diff review: behind a byte-order mark the place was counted from after it (line 1, column 4 here).
    line = _refusal(tmp_path, capsys, "bom.json", b'\xef\xbb\xbf{"a":\n\xff}')
    assert line.startswith(f"{tmp_path / 'bom.json'}:2:1: not UTF-8 text (byte 9)"), line
