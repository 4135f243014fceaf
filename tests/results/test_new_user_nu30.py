"""A new user's mistakes on the results path, installed from a wheel into another repository (nu30)."""

from __future__ import annotations

import json

import pytest

from helpers import ROW, run_cli, vllm_output


@pytest.mark.parametrize("text,what", [
    ("null\n", "a JSON null"), ("1\n", "a JSON number"), ('"x"\n', "a JSON string"), ("true\n", "a JSON boolean"),
    ("  42.5\n", "a JSON number"), ("\n\n  null\n", "a JSON null"),  # placed at 3:3 (review)
])
def test_a_lone_json_value_is_not_called_not_json(tmp_path, capsys, text, what):
    """`null` (or a lone number, string or boolean: a client killed before it wrote its dict, a
    variable echoed into the file) was refused as "format: not JSON or CSV": it is JSON, only not
    an object, and the line said the opposite of what the user could see in the file."""
    (tmp_path / "out.json").write_text(text, encoding="utf-8")
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}",
                           str(tmp_path / "out.json"))
    assert rc == 1, err
    (line,) = err.strip().splitlines()
    assert "not JSON" not in line, line
    lead = text[:len(text) - len(text.lstrip())]
    at = f"{lead.count(chr(10)) + 1}:{len(lead) - lead.rfind(chr(10))}"  # the value's own line and column
    assert line.startswith(f"{tmp_path / 'out.json'}:{at}: format: {what}, "
                           "not a benchmark client output (expected "), line
    assert line.endswith("; ingest the job's $RESULT_FILENAME.json, or remove the file"), line


@pytest.mark.parametrize("key,value,said", [
    ("conc", "32", "row's conc \"32\" is not a positive whole number"),
    ("tp", 0, "row's tp 0 is not a whole number from 1 to 1024"),
    ("isl", 1.5, "row's isl 1.5 is not a whole number from 1"),
    ("model", 5, "row's model 5 is not text a job can hand to a shell"),
])
def test_a_bad_row_file_is_placed_at_the_key_it_names(tmp_path, capsys, key, value, said):
    """`--row row.json` written by `jq` (one key a line) with one wrong value was refused at
    `row.json:1:`, the file's first line, while the same row in a job sidecar is placed at its key:
    the user had to hunt for the field in the file."""
    row = dict(ROW, **{key: value})
    text = json.dumps(row, indent=2)
    (tmp_path / "row.json").write_text(text + "\n", encoding="utf-8")
    (tmp_path / "out.json").write_text(json.dumps(vllm_output()), encoding="utf-8")
    line = next(n for n, s in enumerate(text.splitlines(), 1) if s.strip().startswith(f'"{key}"'))
    col = text.splitlines()[line - 1].index(f'"{key}"') + 1
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}",
                           "--row", str(tmp_path / "row.json"), "--run-id", "7", "--ref", "refs/heads/main",
                           str(tmp_path / "out.json"))
    assert rc == 1 and out == "", (out, err)
    (first,) = err.strip().splitlines()
    assert first.startswith(f"{tmp_path / 'row.json'}:{line}:{col}: {said}"), first


def test_a_row_file_missing_a_field_is_placed_at_the_row(tmp_path, capsys):
    """A row without a field the record needs has no key to point at: the row's own '{'."""
    row = {k: v for k, v in ROW.items() if k != "runner"}
    (tmp_path / "row.json").write_text("\n\n" + json.dumps(row, indent=2) + "\n", encoding="utf-8")
    (tmp_path / "out.json").write_text(json.dumps(vllm_output()), encoding="utf-8")
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}",
                           "--row", str(tmp_path / "row.json"), "--run-id", "7", "--ref", "refs/heads/main",
                           str(tmp_path / "out.json"))
    assert rc == 1, err
    assert err.startswith(f"{tmp_path / 'row.json'}:3:1: row has no 'runner'"), err


@pytest.mark.parametrize("argv", [
    ("results", "ingest", "--jsonl", "-", "out.json"),
    ("results", "compare", "--run", "7", "--comment-file", "-"),
    ("results", "compare", "--run", "7", "--step-summary", "-"),
])
def test_a_dash_for_an_output_file_is_argument_syntax(tmp_path, capsys, monkeypatch, argv):
    """`--jsonl -` (or `--comment-file -`), which a Unix user types for standard output, wrote a file
    named `-` in the current folder and said `appended 5 records to -`: the records never reached the
    pipe, and the stray file is awkward to remove. A '-' is refused as argument syntax (exit 2)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "out.json").write_text(json.dumps(vllm_output()), encoding="utf-8")
    flag = argv[argv.index("-") - 1]
    with pytest.raises(SystemExit) as exc:
        run_cli(capsys, *argv[:2], "--db", f"sqlite:///{tmp_path / 'r.db'}", *argv[2:])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.splitlines()[-1].endswith(
        f"error: argument {flag}: '-' is no standard output here: it would name a file called '-'; pass a file "
        "name (./- for a file called '-')"), err
    assert not (tmp_path / "-").exists()


@pytest.mark.parametrize("argv", [
    ("ci", "reuse", "--matrix", "m.json", "--out", "-"),
    ("ci", "split", "--matrix", "m.json", "--job-context", "-"),
    ("engines", "capture", "--engine", "vllm", "--out", "-"),
])
def test_every_output_file_flag_refuses_a_dash(tmp_path, capsys, monkeypatch, argv):
    """Review: the other flags that name a file to write took '-' as a file called '-' too."""
    monkeypatch.chdir(tmp_path)
    flag = argv[argv.index("-") - 1]
    with pytest.raises(SystemExit) as exc:
        run_cli(capsys, *argv)
    assert exc.value.code == 2
    assert f"argument {flag}: '-' is no standard output here" in capsys.readouterr().err
    assert not (tmp_path / "-").exists()


def test_plan_step_summary_dash_is_argument_syntax_too(tmp_path, capsys, monkeypatch):
    """`plan --step-summary -`: the same flag as compare's, refused the same way."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exc:
        run_cli(capsys, "plan", "--step-summary", "-")
    assert exc.value.code == 2
    assert "argument --step-summary: '-' is no standard output here" in capsys.readouterr().err
    assert not (tmp_path / "-").exists()


def test_plan_step_summary_variable_dash_names_the_variable(tmp_path, capsys, monkeypatch):
    """GITHUB_STEP_SUMMARY=- under `plan`: refused as the variable's value (exit 1, as compare's), not as
    'argument --step-summary', a flag never typed; before any git work, so here outside a repository."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", "-")
    rc, out, err = run_cli(capsys, "plan", "--base-ref", "a", "--head-ref", "b")
    assert (rc, out) == (1, ""), err
    assert err.startswith("-: $GITHUB_STEP_SUMMARY (the default of --step-summary): '-' is no standard output "
                          "here"), err
    assert not (tmp_path / "-").exists()


@pytest.mark.parametrize("argv", [
    ("results", "compare", "--run", "7", "--plots", "-"),
    ("example", "--no-rehearse", "--plots", "-"),
])
def test_a_dash_for_a_plots_folder_is_argument_syntax(tmp_path, capsys, monkeypatch, argv):
    """`--plots -` made a folder called '-' in the current folder and drew the charts into it."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exc:
        run_cli(capsys, *argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.splitlines()[-1].endswith(
        "error: argument --plots: '-' is no standard output here: charts go into a folder, and it would name "
        "a folder called '-'; pass a folder (./- for one called '-')"), err
    assert not (tmp_path / "-").exists()


def test_a_dash_for_results_to_ingest_is_argument_syntax(tmp_path, capsys, monkeypatch):
    """`results ingest -` said '-: no such file or folder': standard input is not read, since a result is
    told apart by its file name (and its .job.json beside it)."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exc:
        run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", "-")
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.splitlines()[-1].endswith(
        "error: argument PATH: '-' is no standard input here: results are read from their files, whose names "
        "(and .job.json beside them) tell them apart; pass the output files or the folders that hold them "
        "(./- for a file called '-')"), err
    assert not (tmp_path / "r.db").exists()


@pytest.mark.parametrize("text", ["null\n", "0\n", '""\n'])
def test_a_jobs_own_output_holding_a_lone_value_is_the_jobs_failure(tmp_path, capsys, text):
    """Review: a job's X.json holding only `null` beside its sidecar was refused (exit 1) and told to be
    replaced by '$RESULT_FILENAME.json', that very file; an empty one is stored as the job's failure with
    a warning, and so is this one now: the client wrote no result."""
    from helpers import job, write_job

    write_job(tmp_path / "run", "res", text, job(run_id="900"))
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path / "run"))
    assert rc == 0, err
    (line,) = err.strip().splitlines()
    assert line.startswith(f"{tmp_path / 'run' / 'res.json'}:1:1: warning: format: a JSON ") and \
        "the job is stored as failure, with no figures" in line, line
    rc, shown, err = run_cli(capsys, "results", "show", "--db", db, "--run", "900", "--json")
    assert rc == 0 and [r["status"] for r in json.loads(shown)] == ["failure"], err
