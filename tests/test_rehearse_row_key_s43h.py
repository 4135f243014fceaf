"""s43h (a new user's walk): `rehearse --row-json` of a row `test-config` printed stored its result with no config
key (a matrix row names none), so `results show --key KEY` said KEY had no results, where the same row rehearsed
with `--config-keys KEY` kept its key. The row's key is now the one config of the work tree whose expansion holds
the row's recipe, and the sidecar names it, as a job's does. Through the real commands in the example fleet."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from conftest import ROOT

KEY = "dsr1-fp8-b300-vllm"


def _sweepgate(repo, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_") and k != "SWEEPGATE_DB"}
    env.update({"PYTHONPATH": str(ROOT / "utils"), "SWEEPGATE_REHEARSE_DURATION": "2", "NO_COLOR": "1"})
    proc = subprocess.run([sys.executable, "-m", "sweepgate", *args], cwd=repo, env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


def _shown_keys(repo, tmp_path, work) -> tuple[str, list[str]]:
    """(the rehearsal's note, the config keys `results show --key KEY --json` lists after ingesting ``work``)."""
    db = f"sqlite:///{tmp_path / (work.name + '.db')}"
    _sweepgate(repo, "results", "ingest", "--db", db, str(work / "results"))
    shown = json.loads(_sweepgate(repo, "results", "show", "--db", db, "--key", KEY, "--json").stdout)
    return shown, [r.get("config-key") for r in shown]


def test_a_test_config_row_rehearsed_from_a_file_keeps_its_config_key(example_fleet, tmp_path):
    rows = json.loads(_sweepgate(example_fleet, "test-config", "--config-keys", KEY, "--seq-lens", "1k1k",
                                 "--conc", "4").stdout)
    (tmp_path / "row.json").write_text(json.dumps(rows[0]), encoding="utf-8")  # README's `jq '.[0]'`
    work = tmp_path / "from-file"
    said = _sweepgate(example_fleet, "rehearse", "--row-json", str(tmp_path / "row.json"), "--work-dir", str(work))
    (sidecar,) = (work / "results").glob("*.job.json")
    assert json.loads(sidecar.read_text())["job"]["config-key"] == KEY  # was null
    assert f"sweepgate preflight --config-keys {KEY} checks them" in said.stdout, said.stdout
    _, keys = _shown_keys(example_fleet, tmp_path, work)
    assert keys == [KEY], keys  # `results show --key` said the key had no results
    work = tmp_path / "from-configs"  # the same row from the configs, as it always was
    _sweepgate(example_fleet, "rehearse", "--config-keys", KEY, "--exp-name", rows[0]["exp-name"], "--conc", "4",
               "--where", f"tp={rows[0]['tp']}", "--work-dir", str(work))
    assert _shown_keys(example_fleet, tmp_path, work)[1] == [KEY]


def test_a_row_no_config_holds_is_rehearsed_without_a_key(example_fleet, tmp_path):
    rows = json.loads(_sweepgate(example_fleet, "test-config", "--config-keys", KEY, "--seq-lens", "1k1k",
                                 "--conc", "4").stdout)
    (tmp_path / "row.json").write_text(json.dumps({**rows[0], "max-model-len": 9999}), encoding="utf-8")
    work = tmp_path / "edited"
    said = _sweepgate(example_fleet, "rehearse", "--row-json", str(tmp_path / "row.json"), "--work-dir", str(work))
    (sidecar,) = (work / "results").glob("*.job.json")
    assert json.loads(sidecar.read_text())["job"]["config-key"] is None
    assert "; sweepgate preflight checks them" in said.stdout, said.stdout
