"""An output ingested by hand with the row of another concurrency (s50g, an adopter's walk-through: a conc 64 output
given the conc 32 row of the README's loop) was refused with "pass the matrix row this output was run with as
--row", leaving the newcomer to work out which command writes that row. With `--config-key` given, the refusal now
names the `sweepgate test-config` line that writes the row at the concurrency and lengths the output states; run as
written, in a real git repository of the example fleet's configs, its row ingests the real vLLM output. Without a
config key the words are as before (no key to name)."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess

from helpers import ROOT, SAMPLES, run_cli

SAMPLE = SAMPLES / "vllm" / "ifx_benchserving_kimik2.5_int4_mi355x_tp8_mtp_8k1k_conc64.json"
KEY = "dsr1-fp8-mi355x-vllm"


def _repo(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    shutil.copytree(ROOT / "configs", tmp_path / "configs", symlinks=True,
                    ignore=shutil.ignore_patterns("engines", "schema"))
    shutil.copyfile(SAMPLE, tmp_path / "c64.json")


def _test_config(capsys, line: str, out):
    argv = shlex.split(line)
    assert argv[:2] == ["sweepgate", "test-config"] and argv[-2] == ">", argv
    rc, rows, err = run_cli(capsys, *argv[1:-2])
    assert rc == 0, err
    out.write_text(rows)


def test_a_row_of_another_conc_is_told_the_test_config_line_that_writes_the_row_the_output_ran(
        tmp_path, capsys, monkeypatch):
    _repo(tmp_path)
    monkeypatch.chdir(tmp_path)
    _test_config(capsys, f"sweepgate test-config --config-keys {KEY} --seq-lens 8k1k --conc 32 > row.json",
                 tmp_path / "row.json")
    db = f"sqlite:///{tmp_path / 'r.db'}"
    given = ("--run-id", "7", "--ref", "refs/heads/main", "--config-key", KEY, "c64.json")
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, "--row", "row.json", *given)
    (line,) = [ln for ln in err.splitlines() if "max_concurrency" in ln]
    assert rc == 1 and "the output ran at concurrency 64 but its job's row (--row) says conc 32" in line, err
    said = re.search(r"written by `([^`]*)`$", line)
    assert said and said.group(1) == f"sweepgate test-config --config-keys {KEY} --seq-lens 8k1k --conc 64 > row.json"
    _test_config(capsys, said.group(1), tmp_path / "row.json")
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, "--row", "row.json", *given)
    assert rc == 0 and "(1 new)" in out, out + err


def test_without_a_config_key_the_refusal_names_no_command(tmp_path, capsys, monkeypatch):
    _repo(tmp_path)
    monkeypatch.chdir(tmp_path)
    _test_config(capsys, f"sweepgate test-config --config-keys {KEY} --seq-lens 8k1k --conc 32 > row.json",
                 tmp_path / "row.json")
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", "--row", "row.json",
                         "--run-id", "7", "--ref", "refs/heads/main", "c64.json")
    (line,) = [ln for ln in err.splitlines() if "max_concurrency" in ln]
    assert rc == 1 and line.endswith("; pass the matrix row this output was run with as --row"), line
