"""s43a: a job sidecar's config key took any text (`$`, ESC, NUL, a newline, rich markup such as `[bold]` or
`[link=...]`) and its other identifying strings (the row's precision, framework, runner, exp-name, model-prefix; the
job's runner name) any control character: stored, and escaped only when shown. Now a config key is held to the
master-config schema's key pattern (the gate's, read from the schema) and the others to holding no control
character: one line at the key, exit 1, nothing of the job stored; `results sidecar` refuses such a CONFIG_KEY
before writing one. Through the real command, on a real result file (tests/data/results-real) and a sidecar written
here."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3

import pytest

from helpers import ROOT, run_cli  # helpers puts utils/ on sys.path
from test_ingest_hostile_s42k import _rows  # the rows a SQLite store holds (0 where none was made)

REAL = ROOT / "tests/data/results-real/vllm/ifx_vllm0.22_gptoss120b_h200_tp4_conc8_start_end_unix.json"
OTHER = ROOT / "tests/data/results-real/vllm/ifx_vllm_kimik2.5_h200_pdfix_c4_39of40_nofailed.json"
# The row and job of the real output REAL (gpt-oss-120b on H200, TP4, concurrency 8): its sidecar as a job writes it.
ROW = {"image": "vllm/vllm-openai:v0.22.0", "model": "openai/gpt-oss-120b", "model-prefix": "gptoss",
       "precision": "fp4", "framework": "vllm", "runner": "h200", "spec-decoding": "none",
       "exp-name": "gptoss_1k1k", "conc": 8, "tp": 4, "pp": 1, "dcp-size": 1, "pcp-size": 1, "ep": 1,
       "dp-attn": False, "isl": 1024, "osl": 1024, "max-model-len": 2304, "disagg": False, "run-eval": False}
JOB = {"config-key": "gptoss-fp4-h200-vllm", "run-id": "1001", "attempt": 1, "commit": "c0ffee" * 6 + "abcd",
       "ref": "refs/heads/main", "runner-name": "h200_00", "started": "2026-06-10T22:00:00+00:00",
       "finished": "2026-06-10T22:10:00+00:00", "status": "success", "rehearsal": False}


def _job_folder(tmp_path, where: str | None = None, key: str | None = None, value=None):
    """tmp_path/run holding REAL as res.json and its sidecar, ``where``.``key`` (row or job) set to ``value``."""
    folder = tmp_path / "run"
    folder.mkdir()
    shutil.copy(REAL, folder / "res.json")
    doc = {"row": dict(ROW), "job": dict(JOB)}
    if where:
        doc[where][key] = value
    side = folder / "res.job.json"
    side.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    return folder, side


def _folder_with_real(tmp_path):
    """tmp_path/results holding REAL as real.json."""
    folder = tmp_path / "results"
    folder.mkdir()
    shutil.copy(REAL, folder / "real.json")
    return folder


def _at(side, where: str, key: str) -> str:
    """``PATH:LINE:COL`` of ``"key":`` inside the sidecar's ``where`` object (indent 2: written by _job_folder)."""
    text = side.read_text(encoding="utf-8")
    at = text.index(f'"{key}":', text.index(f'"{where}":'))
    return f"{side}:{text.count(chr(10), 0, at) + 1}:{at - (text.rfind(chr(10), 0, at) + 1) + 1}"


def test_the_real_output_with_its_sidecar_is_stored(db, tmp_path, capsys):
    folder, _ = _job_folder(tmp_path)
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(folder))
    assert (rc, err) == (0, "") and "ingested 1 results (1 new)" in out
    assert _rows(db) == 1


BAD_KEYS = {"dollar": "gptoss-$HOME", "escape": "gptoss-\x1b[31mred", "nul": "gptoss\x00", "newline": "gptoss\nfp4",
            "bold": "[bold]gptoss[/bold]", "link": "[link=https://example.com]gptoss[/link]", "space": "gptoss fp4",
            "leading dot": ".gptoss", "empty": ""}


@pytest.mark.parametrize("case", BAD_KEYS)
def test_a_sidecar_config_key_outside_the_gate_s_key_pattern_is_one_line_and_stores_nothing(db, tmp_path, capsys,
                                                                                               case):
    folder, side = _job_folder(tmp_path, "job", "config-key", BAD_KEYS[case])
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(folder))
    assert rc == 1 and len(err.splitlines()) == 1, err
    line = err.strip()
    assert line.startswith(f"{_at(side, 'job', 'config-key')}: job.config-key: {BAD_KEYS[case]!r} is no config key"
                           .replace("\x1b", "\\x1b").replace("\x00", "\\x00").replace("\n", "\\n")), line
    assert "a config key has letters, digits, '.', '_' and '-' only, and starts with a letter or digit" in line, line
    assert "\x1b" not in err and "\x00" not in err
    assert "nothing stored" in out and _rows(db) == 0


@pytest.mark.parametrize("key", ["gptoss-fp4-h200-vllm", "gptoss_fp4.h200-vllm", "0gptoss"])
def test_a_config_key_the_gate_takes_is_stored(db, tmp_path, capsys, key):
    folder, _ = _job_folder(tmp_path, "job", "config-key", key)
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(folder))
    assert (rc, err) == (0, "") and _rows(db) == 1


CONTROLS = [("row", "precision", "fp4\x1b[2J"), ("row", "framework", "vllm\x00"), ("row", "runner", "h200\x07"),
            ("row", "exp-name", "gptoss\n1k1k"), ("row", "model-prefix", "gpt\ross"),
            ("job", "runner-name", "h200\x1b]8;;x")]


@pytest.mark.parametrize("where, key, value", CONTROLS, ids=[f"{w}.{k}" for w, k, _ in CONTROLS])
def test_a_control_character_in_an_identifying_string_is_one_line_at_its_key(db, tmp_path, capsys, where, key, value):
    folder, side = _job_folder(tmp_path, where, key, value)
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(folder))
    assert rc == 1 and len(err.splitlines()) == 1, err
    assert err.startswith(f"{_at(side, where, key)}: {where}.{key}: "), err
    assert "holds a control character" in err and "\x1b" not in err and "\x00" not in err, err
    assert "nothing stored" in out and _rows(db) == 0


def test_a_refused_job_beside_a_good_one_leaves_the_good_one_stored_and_nothing_of_its_own(db, tmp_path, capsys):
    """Each job's output is stored whole or not at all (one transaction a file): the bad job adds no row."""
    folder, _ = _job_folder(tmp_path, "job", "config-key", "[bold]x")
    shutil.copy(OTHER, folder / "good.json")  # Kimi-K2.5 on H200, 8k/1k at concurrency 4
    row = {**ROW, "model": "moonshotai/Kimi-K2.5", "model-prefix": "kimik2.5", "conc": 4, "isl": 8192, "osl": 1024,
           "max-model-len": 9472}
    (folder / "good.job.json").write_text(json.dumps({"row": row, "job": {**JOB, "run-id": "1002"}}), encoding="utf-8")
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(folder))
    assert rc == 1 and len(err.splitlines()) == 1 and "res.job.json" in err, err
    path = db.removeprefix("sqlite:///")
    with sqlite3.connect(path) as con:
        assert con.execute("select run_id from results").fetchall() == [("1002",)]


def test_the_sidecar_writer_refuses_a_config_key_ingest_would_refuse(tmp_path):
    """`results sidecar` took CONFIG_KEY as it was: its sidecar was then refused at the collect job's ingest, the
    job's results lost. Now it is one line naming CONFIG_KEY, exit 1, and no sidecar is written."""
    import subprocess
    import sys

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_") and k not in ("ROW_ID", "MATRIX_FILE")}
    env.update({"PYTHONPATH": str(ROOT / "utils"), "JOB_STATUS": "success", "RESULT_DIR": str(tmp_path / "out"),
                "RESULT_FILENAME": "res", "ROW": json.dumps(ROW), "CONFIG_KEY": "gptoss-$(id)\x1b[2J",
                "SWEEPGATE_RUN_IDENTITY": "none"})  # as `ci row-env` leaves it when it took none
    env.pop("JOB_CONTEXT_FILE", None)
    proc = subprocess.run([sys.executable, "-m", "sweepgate", "results", "sidecar"], capture_output=True, text=True,
                          cwd=tmp_path, env=env, timeout=120)
    assert proc.returncode == 1 and proc.stderr.splitlines() == [
        "CONFIG_KEY: 'gptoss-$(id)\\x1b[2J' is no config key: a config key has letters, digits, '.', '_' and '-' only, "
        "and starts with a letter or digit; set CONFIG_KEY to the key of the config the row is of, or leave it unset "
        "for the job context's (`sweepgate ci split --job-context`)"], proc.stderr
    assert not (tmp_path / "out" / "res.job.json").exists()


def test_a_control_character_in_a_row_given_by_hand_is_one_line_at_its_key(db, tmp_path, capsys):
    """The row of --row is the same row a sidecar carries, held to the same rule."""
    row = tmp_path / "row.json"
    row.write_text(json.dumps({**ROW, "framework": "vllm\x1b[8m"}, indent=2), encoding="utf-8")
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, "--row", str(row), "--run-id", "7", "--ref",
                           "refs/heads/main", str(REAL))
    text = row.read_text(encoding="utf-8")
    at = text.index('"framework":')
    assert rc == 1 and err.splitlines() == [
        f"{row}:{text.count(chr(10), 0, at) + 1}:3: framework: 'vllm\\x1b[8m' holds a control character (\\x1b); "
        "pass the row as `sweepgate matrix` wrote it"], err
    assert _rows(db) == 0


def test_a_config_key_flag_outside_the_pattern_is_refused_as_a_flag_value(db, tmp_path, capsys):
    """--config-key names the config of a --row's output, stored as a sidecar's is: the same rule, said as a flag
    value is (argument syntax, exit 2), before anything is read."""
    row = tmp_path / "row.json"
    row.write_text(json.dumps(ROW), encoding="utf-8")
    with pytest.raises(SystemExit) as exc:
        run_cli(capsys, "results", "ingest", "--db", db, "--row", str(row), "--run-id", "7", "--ref", "refs/heads/main",
                "--config-key", "[bold]gptoss", str(REAL))
    err = capsys.readouterr().err
    assert exc.value.code == 2 and err.splitlines()[-1].endswith(
        "argument --config-key: '[bold]gptoss' is no config key: a config key has letters, digits, '.', '_' and '-' "
        "only, and starts with a letter or digit; pass the key of a config in configs/*-master.yaml"), err
    assert _rows(db) == 0
