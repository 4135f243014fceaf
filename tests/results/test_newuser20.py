"""A new maintainer's mistakes on the results path (newuser20), each placed where it is."""

from __future__ import annotations

import json

import pytest

from helpers import job, run_cli, vllm_output


@pytest.mark.parametrize("key,value,said", [
    ("status", "ok", "job.status: expected one of success, failure, cancelled, got 'ok'"),
    ("attempt", "1", "job.attempt: expected an integer >= 1, got '1'"),
    ("ref", "main", "job.ref: 'main' is not a full ref"),
    ("finished", "2025-01-01T00:00:00Z", "job.finished: '2025-01-01T00:00:00Z' is before job.started"),
])
def test_a_hand_edited_sidecar_s_bad_value_is_placed_at_its_key(tmp_path, capsys, key, value, said):
    """A sidecar written by hand (indented, as an editor leaves it) with one wrong value was refused
    as `x.job.json: job.status: ...`, with no line: the rule is path:line:col where it is known."""
    side = job(**{key: value})
    (tmp_path / "x.json").write_text(json.dumps(vllm_output()), encoding="utf-8")
    text = json.dumps(side, indent=2)
    (tmp_path / "x.job.json").write_text(text, encoding="utf-8")
    line = next(n for n, s in enumerate(text.splitlines(), 1) if s.strip().startswith(f'"{key}"'))
    col = text.splitlines()[line - 1].index(f'"{key}"') + 1
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(tmp_path))
    assert rc == 1, err
    (first,) = err.strip().splitlines()
    assert first.startswith(f"{tmp_path / 'x.job.json'}:{line}:{col}: {said}"), first


@pytest.mark.parametrize("given,said", [
    ("dsr1-fp4-b300-vlm", "pass --key dsr1-fp4-b300-vllm"),
    ("dsr1-fp4-b300", "pass --key dsr1-fp4-b300-vllm, or --key 'dsr1-fp4-b300*' for every key it starts"),
])
def test_show_names_the_stored_key_a_mistyped_key_is_nearly(tmp_path, capsys, given, said):
    """`results show --key` with a typo, or a key's suffix left off, said only "check --key": the
    maintainer had to list every result to find the key's spelling."""
    from helpers import write_job

    db = f"sqlite:///{tmp_path / 'r.db'}"
    write_job(tmp_path / "run", "r", vllm_output(), job())
    assert run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path / "run"))[0] == 0
    rc, out, err = run_cli(capsys, "results", "show", "--db", db, "--key", given)
    assert rc == 1 and out == "", err
    assert err == (f"--key: config key {given!r} has no results in {db}, which holds dsr1-fp4-b300-vllm; "
                   f"{said}\n"), err
    rc, out, err = run_cli(capsys, "results", "show", "--db", db, "--key", "gptoss-fp4-b200-trt")
    assert rc == 1 and err.endswith("; check --key (a master-config key, e.g. from `results show`), --ref and --db\n")


@pytest.mark.parametrize("given,said", [
    ("dsr1-fp4-*-vlm", "did you mean 'dsr1-fp4-*-vllm', which matches dsr1-fp4-b300-vllm?"),
    ("dsr1-fp4-b30?-vlm", "did you mean 'dsr1-fp4-b30?-vllm', which matches dsr1-fp4-b300-vllm?"),
    ("gptoss-*", "check --key (a master-config key, e.g. from `results show`), --ref and --db"),
])
def test_show_names_the_pattern_a_mistyped_wildcard_key_is_nearly(tmp_path, capsys, given, said):
    """`results show --key 'dsr1-fp4-*-vlm'` (a word mistyped in a wildcard) was told only "check --key":
    the nearest-key hint looked for keys starting with the pattern, '*' and all. It now names the pattern
    it was nearly, as `--config-keys` and the changelog do (core.keypatterns.near_wildcard)."""
    from helpers import write_job

    db = f"sqlite:///{tmp_path / 'r.db'}"
    write_job(tmp_path / "run", "r", vllm_output(), job())
    assert run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path / "run"))[0] == 0
    rc, out, err = run_cli(capsys, "results", "show", "--db", db, "--key", given)
    assert rc == 1 and out == "", err
    assert err == f"--key: config key {given!r} has no results in {db}; {said}\n", err


def test_a_mistyped_short_baseline_ref_is_refused_for_a_baseline_read_from_files(tmp_path, capsys):
    """`--baseline-jsonl main.jsonl --baseline-ref mian` judged every point new and passed
    --fail-on-regression (exit 0), as the store's baseline did."""
    from helpers import write_job

    for n in range(3):
        write_job(tmp_path / f"main{n}", "r", vllm_output(date=f"2026010{n + 1}-120000"), job(run_id=f"10{n}"))
        assert run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'main.db'}", "--jsonl",
                       str(tmp_path / "main.jsonl"), str(tmp_path / f"main{n}"))[0] == 0
    write_job(tmp_path / "pr", "r", vllm_output(output_throughput=300.0),
              job(run_id="200", ref="refs/pull/42/merge", started="2026-01-02T11:58:00+00:00",
                  finished="2026-01-02T12:00:00+00:00"))
    pr = f"sqlite:///{tmp_path / 'pr.db'}"
    assert run_cli(capsys, "results", "ingest", "--db", pr, str(tmp_path / "pr"))[0] == 0
    rc, out, err = run_cli(capsys, "results", "compare", "--db", pr, "--run", "200", "--baseline-jsonl",
                           str(tmp_path / "main.jsonl"), "--baseline-ref", "mian", "--fail-on-regression")
    assert rc == 1 and out == "", err
    assert err == (f"--baseline-ref: no results on 'mian' in {tmp_path / 'main.jsonl'}, which holds runs on "
                   "refs/heads/main; pass --baseline-ref refs/heads/main\n"), err
    rc, out, err = run_cli(capsys, "results", "compare", "--db", pr, "--run", "200", "--baseline-jsonl",
                           str(tmp_path / "main.jsonl"), "--baseline-ref", "main", "--fail-on-regression")
    assert rc == 3, err


@pytest.mark.parametrize("change,key,said", [
    ({"conc": "4"}, '"conc"', "row's conc \"4\" is not a positive whole number"),
    ({"tp": 0}, '"tp"', "row's tp 0 is not a whole number from 1 to"),
    ({"image": None}, '"row"', "row has no 'image'"),
])
def test_a_hand_edited_sidecar_s_bad_row_value_is_placed_at_its_key(tmp_path, capsys, change, key, said):
    """The row's refusals in an indented sidecar were placed at line 1, the file's lone '{'."""
    from helpers import ROW

    row = {k: v for k, v in {**ROW, **change}.items() if v is not None}
    (tmp_path / "x.json").write_text(json.dumps(vllm_output()), encoding="utf-8")
    text = json.dumps(job(row=row), indent=2)
    (tmp_path / "x.job.json").write_text(text, encoding="utf-8")
    line = next(n for n, s in enumerate(text.splitlines(), 1) if s.strip().startswith(key))
    col = text.splitlines()[line - 1].index(key) + 1
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(tmp_path))
    assert rc == 1, err
    (first,) = err.strip().splitlines()
    assert first.startswith(f"{tmp_path / 'x.job.json'}:{line}:{col}: {said}"), first


@pytest.mark.parametrize("pattern", ["results/*.json", "~/results"])
def test_a_quoted_pattern_is_said_to_be_unexpanded(tmp_path, capsys, monkeypatch, pattern):
    """`sweepgate results ingest 'results/*.json'` (quoted in a workflow's run block) said only
    "no such file or folder", with the folder full of results right there."""
    from helpers import write_job

    monkeypatch.chdir(tmp_path)
    write_job(tmp_path / "results", "r", vllm_output(), job())
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", pattern)
    assert rc == 1 and not (tmp_path / "r.db").exists(), err
    assert err == (f"{pattern}: no such file or folder (a quoted wildcard or ~ is not expanded: ingest reads no "
                   "patterns); pass the folder that holds the results, or leave the pattern unquoted\n"), err


def test_every_path_that_names_nothing_is_said_not_only_the_first(tmp_path, capsys, monkeypatch):
    """`results ingest a.json fifo b/ 'c/*.json'` with several bad paths said only the first, so a user
    fixed one typo, ran again and met the next (check-jsonschema's rule: every error before reporting).
    Each is said on its own line, in the order given; nothing is stored, and no database is made."""
    import os

    from helpers import write_job

    monkeypatch.chdir(tmp_path)
    write_job(tmp_path / "results", "r", vllm_output(), job())
    (tmp_path / "empty").mkdir()
    os.mkfifo(tmp_path / "fifo")
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}",
                           "nope.json", "results", "fifo", "empty", "c/*.json")
    assert rc == 1 and not (tmp_path / "r.db").exists(), err
    assert [line.split(":")[0] for line in err.splitlines()] == ["nope.json", "fifo", "empty", "c/*.json"], err
