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


def test_an_annotation_names_a_path_typed_in_a_subfolder_from_the_repository_top(tmp_path, capsys, monkeypatch):
    """Audit: from configs/, `ingest res/empty.json` annotated file=res/empty.json, which GitHub
    reads from the workspace's top: the note landed on a file that does not exist."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "configs" / "res").mkdir(parents=True)
    (tmp_path / "configs" / "res" / "empty.json").write_text("{}")
    monkeypatch.chdir(tmp_path / "configs")
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.delenv("GITHUB_WORKSPACE", raising=False)
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", "res/empty.json")
    lines = err.splitlines()
    assert rc == 1 and lines[0].startswith("res/empty.json:1:1: "), err  # the line a reader in configs/ can open
    assert lines[1].startswith("::error file=configs/res/empty.json,line=1::"), err
    monkeypatch.setenv("GITHUB_WORKSPACE", str(tmp_path / "configs"))  # the workspace decides when set
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", "res/empty.json")
    assert err.splitlines()[1].startswith("::error file=res/empty.json,line=1::"), err
