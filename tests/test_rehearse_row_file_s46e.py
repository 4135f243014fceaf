"""s46e's first week from a wheel: `rehearse --row-json row.json` of an empty file (`sweepgate test-config ... >
row.json` whose test-config refused a mistyped key and printed nothing) said `row.json:1:1: not JSON: Expecting
value`, the JSON reader's words for a broken file, where `results ingest --row` of the same file says what it is:
no row, and the command that wrote it printed nothing. Both say it alike now."""

from __future__ import annotations

from test_gate_cli_s34c import sweepgate


def test_an_empty_row_file_is_no_row_for_rehearse_as_for_ingest(make_repo, tmp_path):
    repo = make_repo()
    for text in ("", "\n  \n"):
        empty = tmp_path / "row.json"
        empty.write_text(text, encoding="utf-8")
        r = sweepgate(["rehearse", "--row-json", str(empty)], repo.path)
        (line,) = r.stderr.splitlines()
        assert r.returncode == 1 and line.startswith(f"{empty}:1: the file is empty: no row; "), line
        assert "Expecting value" not in line and "printed nothing" in line and "test-config" in line, line
        ingest = sweepgate(["results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", "--row", str(empty),
                            "--run-id", "1", "--ref", "refs/heads/main", str(empty)], repo.path)
        assert ingest.returncode == 1 and ingest.stderr.startswith(f"{empty}:1: the file is empty: no row; "), \
            ingest.stderr
