"""`results show`'s table: the throughput column of a result ingested without its row."""

from __future__ import annotations

import io

import synth  # noqa: F401 - puts utils/ on sys.path
from sweepgate.results import record as R
from sweepgate.results import show


def point(conc: int, metrics: dict) -> dict:
    return {R.CONC: conc, R.STATUS: "success", R.RUN_ID: "local-1", R.RESULT_FILENAME: f"conc{conc}.json",
            R.METRICS: {R.INTERACTIVITY: 4.3, **metrics}}


def table(records: list[dict]) -> tuple[list[str], list[list[str]]]:
    """The header cells and the body rows' cells of `results show` (piped: wide and plain)."""
    out = io.StringIO()
    show.table(records, out, "all points")
    lines = [line for line in out.getvalue().splitlines() if "│" in line or "┃" in line]
    header, *body = [[cell.strip() for cell in line.strip()[1:-1].split("│" if "│" in line else "┃")]
                     for line in lines]  # a blank first cell is a cell
    return header, body


def test_without_a_gpu_count_the_total_output_throughput_is_shown_and_named():
    """Review: a sample ingested without its row has no per-GPU figure, and its 3918.6 tok/s
    appeared nowhere but in --json."""
    header, body = table([point(32, {R.OUTPUT_THROUGHPUT: 3918.6})])
    assert "output tok/s" in header and "tok/s/GPU" not in header, header
    assert not any("total" in h for h in header), "total_token_throughput counts input tokens too"
    assert body[0][header.index("output tok/s")] == "3,919"  # written as compare writes it (figures.py)


def test_per_gpu_and_total_figures_never_share_a_column():
    header, body = table([point(16, {R.OUTPUT_THROUGHPUT: 3918.6}),
                          point(32, {R.OUTPUT_THROUGHPUT: 8000.0, R.OUTPUT_TPUT_PER_GPU: 1000.0})])
    per_gpu, total = header.index("tok/s/GPU"), header.index("output tok/s")
    assert (body[0][per_gpu], body[0][total]) == ("", "3,919")
    assert (body[1][per_gpu], body[1][total]) == ("1,000", "")  # the per-GPU figure, and only that


def test_with_every_gpu_count_known_the_table_is_unchanged():
    header, body = table([point(32, {R.OUTPUT_THROUGHPUT: 8000.0, R.OUTPUT_TPUT_PER_GPU: 1000.0})])
    assert "tok/s/GPU" in header and "output tok/s" not in header
    assert body[0][header.index("tok/s/GPU")] == "1,000"


def test_an_unknown_length_is_a_question_mark_not_none():
    """New-user run: a GenAI-Perf export states its output length only, and `results show` printed
    its isl/osl as "None/500"."""
    header, body = table([{**point(100, {R.OUTPUT_THROUGHPUT: 12277.7}), R.ISL: None, R.OSL: 500},
                          {**point(64, {R.OUTPUT_THROUGHPUT: 657.7}), R.ISL: 512, R.OSL: 128}])
    column = header.index("isl/osl")
    assert [row[column] for row in body] == ["?/500", "512/128"]


def test_without_a_config_key_the_model_names_the_line():
    """New-user run: loose outputs of several models, ingested without their rows, were lines told
    apart only by their file names; the model each output names is shown where no config key is,
    and lines of one model sort together."""
    header, body = table(show.one_per_point([
        {**point(8, {R.OUTPUT_THROUGHPUT: 1.0}), R.MODEL: "org/b", R.RESULT_FILENAME: "x.json"},
        {**point(4, {R.OUTPUT_THROUGHPUT: 2.0}), R.MODEL: "org/a", R.RESULT_FILENAME: "y.json"},
        {**point(2, {R.OUTPUT_THROUGHPUT: 3.0}), R.MODEL: "org/b", R.RESULT_FILENAME: "z.json"},
        {**point(1, {R.OUTPUT_THROUGHPUT: 4.0}), R.MODEL: "org/c", R.CONFIG_KEY: "c-fp8-b200-vllm"}])
    )
    assert [row[header.index("model")] for row in body] == ["", "org/a", "org/b", "org/b"]
    assert [row[header.index("conc")] for row in body] == ["1", "4", "2", "8"]


def test_a_model_served_from_a_hugging_face_cache_folder_is_shown_as_its_hub_id():
    """New-user run: real outputs name the model by the folder vLLM served it from, and a 138-character
    `/…/.cache/models--TechxGenus--Meta-Llama-3-70B-Instruct-GPTQ/snapshots/<hash>/` was the table's
    widest column; the JSON keeps the path whole."""
    snapshot = ("/compute/x/.cache/models--TechxGenus--Meta-Llama-3-70B-Instruct-GPTQ/snapshots/"
                "e147aa8799dd05d5077f60c79be0d972b002b3ac/")
    header, body = table([{**point(8, {R.OUTPUT_THROUGHPUT: 1.0}), R.MODEL: snapshot},
                          {**point(4, {R.OUTPUT_THROUGHPUT: 2.0}), R.MODEL: "/home/models/openai--gpt-oss-120b"}])
    assert [row[header.index("model")] for row in body] == ["TechxGenus/Meta-Llama-3-70B-Instruct-GPTQ",
                                                             "/home/models/openai--gpt-oss-120b"]


def test_with_every_config_key_known_no_model_column():
    header, _ = table([{**point(32, {R.OUTPUT_TPUT_PER_GPU: 1.0}), R.MODEL: "org/a", R.CONFIG_KEY: "a-fp8"}])
    assert "model" not in header and "config key" in header


def test_a_real_rate_sweep_shows_its_rates_in_order(tmp_path, db, capsys):
    """Review: the 12 lines of a real vLLM request-rate sweep (qps 1..10, inf; no concurrency)
    differed in `results show` only by their #N suffix, sorted as text (#1, #10, #11, #12, #2). The
    sample's vLLM server's six lines, appended twice (its other six are an SGLang server's, `--metadata
    framework=sgl`: refused beside them, test_vllm_metadata30)."""
    from helpers import SAMPLES, VLLM_VS_SGLANG, run_cli, tagged_lines

    sweep = tmp_path / "sweep.jsonl"
    sweep.write_text(tagged_lines(SAMPLES / VLLM_VS_SGLANG, "framework", "vllm") * 2, encoding="utf-8")
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(sweep))
    assert rc == 0, err
    rc, out, err = run_cli(capsys, "results", "show", "--db", db)
    assert rc == 0, err
    rows = [line for line in out.splitlines() if "#" in line]
    header = next(line for line in out.splitlines() if "rate" in line and "result" in line)
    assert len(rows) == 12, out
    rates = [line.split("│")[[c.strip() for c in header.split("┃")].index("rate")].strip() for line in rows]
    numbers = [int(line.rsplit("#", 1)[1].split()[0].strip("│ ")) for line in rows]
    order = [(float(r[:-2]) if r != "∞" else float("inf"), n) for r, n in zip(rates, numbers)]
    assert order == sorted(order), list(zip(rates, numbers))  # by rate (unlimited last), then #N as a number
    assert rates[:4] == ["1/s", "1/s", "10/s", "10/s"] and rates[-2:] == ["∞", "∞"], rates
    assert numbers[6:8] == [4, 10], numbers  # the two 30/s lines: #4 before #10


def test_show_tells_main_from_a_pr_and_filters_by_ref(tmp_path, db, capsys):
    """Review: `results show` listed the PR's newest points beside nothing of main's and with no way
    to tell whose they were; `--ref` shows one ref's, and a retried job names its attempt."""
    from helpers import job, run_cli, show_json, vllm_output, write_job

    row = {**job()["row"], "conc": 4}
    write_job(tmp_path / "in" / "main", "res", vllm_output(4), job(run_id="100", row=row))
    write_job(tmp_path / "in" / "pr", "res", vllm_output(4, output_throughput=300.0),
              job(run_id="200", attempt=2, row=row, ref="refs/pull/7/merge", finished="2026-02-01T12:00:00+00:00"))
    assert run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path / "in"))[0] == 0
    rc, out, _ = run_cli(capsys, "results", "show", "--db", db)
    (line,) = [x for x in out.splitlines() if "│" in x and "200" in x]
    assert "pull/7/merge" in line and "200, attempt 2" in line  # the newest is the PR's, and says so
    # main's figure of the same point stays beside it (the PR's run used to hide it)
    (main_line,) = [x for x in out.splitlines() if "│ 100 " in x]
    assert "│ main " in main_line and "all points: 1 point on 2 refs (2 lines)" in out
    for ref in ("refs/heads/main", "main"):
        (rec,) = show_json(capsys, db, "--ref", ref)
        assert (rec[R.RUN_ID], rec[R.REF]) == ("100", "refs/heads/main")
    rc, out, _ = run_cli(capsys, "results", "show", "--db", db, "--ref", "main")
    assert rc == 0 and "main: 1 point" in out and "│ ref" not in out and "pull/7" not in out  # one ref: no column
    rc, _, err = run_cli(capsys, "results", "show", "--db", db, "--ref", "refs/heads/dev")
    assert rc == 1 and "refs there: refs/heads/main, refs/pull/7/merge" in err
    # new user: `--ref pull/7` (the PR's number) and a typo got "e.g. refs/heads/main" as the fix
    for ref, fix in (("pull/7", "pass --ref refs/pull/7/merge"), ("refs/pull/7", "pass --ref refs/pull/7/merge"),
                     ("mian", "pass --ref refs/heads/main"), ("pull/8/merge", "e.g. refs/heads/main"),
                     ("refs/heads/dev", "e.g. refs/heads/main")):
        rc, _, err = run_cli(capsys, "results", "show", "--db", db, "--ref", ref)
        assert rc == 1 and err.rstrip().endswith(fix) and len(err.splitlines()) == 1, (ref, err)
    import pytest

    with pytest.raises(SystemExit) as exit_:  # a flag combination: argparse's usage line, exit 2
        run_cli(capsys, "results", "show", "--db", db, "--ref", "main", "--run", "100")
    assert exit_.value.code == 2 and "--run or --ref" in capsys.readouterr().err


def test_show_key_takes_a_wildcard(tmp_path, db, capsys):
    """Review at scale: `results show --key 'dsr1*'` was refused; 876 points had no other filter."""
    from helpers import job, run_cli, show_json, vllm_output, write_job

    for key in ("dsr1-fp8-b300-vllm", "dsr1-fp4-b300-sglang", "qwen3.5-fp8-b300-vllm"):
        row = {**job()["row"], "conc": 4}
        write_job(tmp_path / "in" / key, f"res-{key}", vllm_output(4), job(run_id="100", row=row, **{"config-key": key}))
    assert run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path / "in"))[0] == 0
    assert sorted(r[R.CONFIG_KEY] for r in show_json(capsys, db, "--key", "dsr1-*")) == [
        "dsr1-fp4-b300-sglang", "dsr1-fp8-b300-vllm"]
    assert [r[R.CONFIG_KEY] for r in show_json(capsys, db, "--key", "*-sglang")] == ["dsr1-fp4-b300-sglang"]
    write_job(tmp_path / "loose", "x", vllm_output(4), None)  # an output without a job: no key to match
    assert run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path / "loose"))[0] == 0
    assert len(show_json(capsys, db, "--key", "*")) == 3
    rc, _, err = run_cli(capsys, "results", "show", "--db", db, "--key", "kimi*")
    assert rc == 1 and "config key 'kimi*' has no results" in err


def test_in_a_rate_sweep_the_unlimited_rate_reads_infinity_not_blank():
    """New-user run: the last two lines of a real vLLM rate sweep (qps 1..35, inf; 50.7 % success)
    had an empty rate cell, like a result whose rate is not known, while the charts mark it "∞"."""
    def at(rate, name):
        return {**point(None, {R.OUTPUT_THROUGHPUT: 1.0}), R.REQUEST_RATE: rate, R.RESULT_FILENAME: name}
    header, body = table([at(10.0, "a#1"), at("inf", "a#2"), at(float("inf"), "a#3"), at(None, "b.json")])
    assert [row[header.index("rate")] for row in body] == ["10/s", "∞", "∞", ""]  # unknown stays blank


def test_a_concurrency_sweep_at_an_unlimited_rate_has_no_rate_column():
    """vLLM writes request_rate "inf" in every concurrency-limited run: no column of ∞ for those."""
    header, _ = table([{**point(c, {R.OUTPUT_THROUGHPUT: 1.0}), R.REQUEST_RATE: "inf"} for c in (4, 8)])
    assert "rate" not in header, header


def test_a_pr_s_short_ref_names_each_of_its_stored_refs(tmp_path, db, capsys):
    """review23: a PR with runs under refs/pull/7/head and refs/pull/7/merge: `--ref pull/7` matched both
    and the fix fell back to "e.g. refs/heads/main", a ref of no use to it; it now names the PR's two."""
    from helpers import job, run_cli, vllm_output, write_job

    row = {**job()["row"], "conc": 4}
    for run_id, ref in (("100", "refs/heads/main"), ("200", "refs/pull/7/head"), ("201", "refs/pull/7/merge")):
        write_job(tmp_path / "in" / run_id, "res", vllm_output(4), job(run_id=run_id, row=row, ref=ref))
    assert run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path / "in"))[0] == 0
    rc, _, err = run_cli(capsys, "results", "show", "--db", db, "--ref", "pull/7")
    assert rc == 1 and len(err.splitlines()) == 1, err
    assert err.rstrip().endswith("; pass --ref refs/pull/7/head or --ref refs/pull/7/merge"), err


def test_a_rehearsal_beside_main_and_a_pr_is_no_ref_of_its_own(tmp_path):
    """Maintainer's week (s33d): a rehearsed row (its sidecar's ref null) shown beside main's and a PR's
    figure of another point was counted as a third ref: `2 points on 3 refs (3 lines)` where two refs
    measured them and the rehearsal none. Run as a real process from a subfolder of the repository."""
    from helpers import job, sweepgate_at, vllm_output, write_job

    row = {**job()["row"], "conc": 4}
    write_job(tmp_path / "in" / "main", "res", vllm_output(4), job(run_id="100", row=row))
    write_job(tmp_path / "in" / "pr", "res", vllm_output(4), job(run_id="200", row=row, ref="refs/pull/7/head"))
    write_job(tmp_path / "in" / "rehearsal", "res", vllm_output(8),
              job(run_id="rehearsal-x", row={**row, "conc": 8}, ref=None, commit=None, rehearsal=True))
    (tmp_path / "sub").mkdir()
    db = f"sqlite:///{tmp_path / 'r.db'}"
    ingest = sweepgate_at(tmp_path / "sub", "results", "ingest", "--db", db, str(tmp_path / "in"))
    assert ingest.returncode == 0, ingest.stderr
    shown = sweepgate_at(tmp_path / "sub", "results", "show", "--db", db, "--key", "dsr1-fp4-b300-vllm")
    assert shown.returncode == 0, shown.stderr
    title = [line for line in shown.stdout.splitlines() if line.startswith("config key")]
    assert title == ["config key dsr1-fp4-b300-vllm: 2 points on 2 refs (3 lines, 1 of them with no ref)"], shown.stdout
