"""From a subdirectory of the repository, files the user names in flags are relative to the
current directory (docs/contracts.md, Conventions); the default store is at the top."""

from __future__ import annotations

import json

from helpers import ROW, run_cli, vllm_output


def test_named_files_are_relative_to_the_current_directory(make_repo, capsys, monkeypatch):
    top = make_repo().path
    sub = top / "bench" / "today"
    sub.mkdir(parents=True)
    (sub / "out.json").write_text(json.dumps(vllm_output()), encoding="utf-8")
    (sub / "row.json").write_text(json.dumps(ROW), encoding="utf-8")
    monkeypatch.chdir(sub)
    monkeypatch.delenv("SWEEPGATE_DB", raising=False)
    given = ("--row", "row.json", "--run-id", "7", "--ref", "refs/heads/pr")
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", "sqlite:///rel.db", "--jsonl", "out.jsonl",
                         *given, "out.json")
    assert rc == 0, err
    assert (sub / "rel.db").is_file() and (sub / "out.jsonl").is_file()
    assert not (top / "rel.db").exists() and not (top / "out.jsonl").exists()

    rc, _, err = run_cli(capsys, "results", "compare", "--db", "sqlite:///rel.db", "--run", "7",
                         "--plots", "plots", "--comment-file", "comment.md")
    assert rc == 0, err
    assert (sub / "plots").is_dir() and (sub / "comment.md").is_file()
    assert not (top / "plots").exists() and not (top / "comment.md").exists()

    rc, _, err = run_cli(capsys, "results", "ingest", *given, "out.json")  # no --db: the repository's store
    assert rc == 0, err
    assert (top / ".sweepgate" / "results.db").is_file() and not (sub / ".sweepgate").exists()
