"""New-user walk s38o: README's by-hand ingest takes `test-config ... | jq '.[0]'` as the row, and a vLLM
output states no length it asked for, so a 1k1k output ingested with an 8k1k row was filed under isl 8192
without a word (into main's 8k1k baseline, where its figures are no 8k1k run's). Its token totals do say
what it ran: the real InferenceX output below sent 40 prompts of 1024 input tokens. A row whose isl is
over four times the run's input tokens per completed request (the share `short_outputs` holds a run's
outputs to: no --random-range-ratio spread reaches it) is now warned of, one line at `total_input_tokens`;
the result is stored as before (exit 0), under the row's isl."""

from __future__ import annotations

import json

from helpers import ROW, SAMPLES, run_cli, show_json

OUTPUT = SAMPLES / "vllm" / "ifx_benchserving_gptoss120b_disagg_1p1d_16gpu_1k1k_conc4.json"
MODEL = "openai/gpt-oss-120b"  # the output's model_id is a hub cache path of it: no model warning


def _ingest(tmp_path, capsys, monkeypatch, isl: int):
    monkeypatch.chdir(tmp_path)
    row = tmp_path / "row.json"
    row.write_text(json.dumps({**ROW, "model": MODEL, "isl": isl, "osl": 1024, "conc": 4}), encoding="utf-8")
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, "--row", "row.json", "--run-id", "101",
                           "--ref", "refs/heads/main", str(OUTPUT))
    return rc, out, err, db


def test_a_row_of_another_input_length_is_warned_of_and_stored(tmp_path, capsys, monkeypatch):
    rc, out, err, db = _ingest(tmp_path, capsys, monkeypatch, isl=8192)
    assert rc == 0 and out.strip() == f"ingested 1 results (1 new) into {db}", err
    (line,) = err.strip().splitlines()
    assert line.startswith(f"{OUTPUT}:") and ": warning: total_input_tokens: the run's 40 completed requests " \
        "averaged 1024 input tokens, but its job's row (--row) says isl 8192" in line, line
    assert line.endswith("; if the row is not the one this output was run with, pass that one as --row "
                         "(`sweepgate test-config --seq-lens` narrows it to the output's lengths)"), line
    line_no = line.split(":")[1]
    text = OUTPUT.read_text().splitlines()
    assert '"total_input_tokens"' in text[int(line_no) - 1]  # placed at the key it names
    (rec,) = show_json(capsys, db)
    assert rec["isl"] == 8192  # stored as before, under the row's


def test_the_row_the_output_ran_is_stored_without_a_word(tmp_path, capsys, monkeypatch):
    rc, out, err, db = _ingest(tmp_path, capsys, monkeypatch, isl=1024)
    assert rc == 0 and err == "", err
    assert out.strip() == f"ingested 1 results (1 new) into {db}"
