"""Small things a maintainer reading results tripped over (polish 23): the evals table naming a point
on every row, an interval cell mixing number formats, the charts' folder in a comment file, "PR" over a
run that is no PR's, and bold and dim text under NO_COLOR."""

from __future__ import annotations

from sweepgate.results import compare as C
from sweepgate.results import evals as E
from sweepgate.results import render

POINT = ("dsr1-fp4-b300-vllm", "b300", "fixed-seq-len", 1024, 1024, 4, None, None, None, None, None)
OTHER = POINT[:5] + (8,) + POINT[6:]


def _eval(point: tuple, task: str, verdict: str = C.UNCHANGED) -> E.EvalVerdict:
    figures = {"value": 0.5, "stderr": 0.01, "samples": 1319}
    return E.EvalVerdict(point, task, "acc", "none", figures, {**figures, "run-id": "1001"}, 0.0, 0.03, verdict)


def _md_eval_rows(md: str) -> list[list[str]]:
    table = md[md.index("#### Evals"):].split("\n\n")[1]
    return [[c.strip() for c in line.strip("|").split(" | ")] for line in table.splitlines()[2:]]


def test_the_markdown_evals_table_names_a_point_in_its_first_row_only():
    """CONTRACTS §8: in every table of the report a point is named in its first row only; the evals
    table named it on each of its scores' rows (a 60-character label repeated per score)."""
    evals = [_eval(POINT, "gsm8k"), _eval(POINT, "mmlu"), _eval(OTHER, "gsm8k"), _eval(POINT, "arc")]
    md = render.markdown(C.Comparison("2002", [], {}, {}, evals=evals))
    rows = _md_eval_rows(md)
    label, other = render.point_label(POINT), render.point_label(OTHER)
    assert [r[0] for r in rows] == [label, "", other, label], rows  # named again after another point's rows
    assert [r[1] for r in rows] == ["gsm8k acc", "mmlu acc", "gsm8k acc", "arc acc"], rows


def test_a_row_with_a_bound_written_as_an_exponent_writes_every_figure_so():
    """An interval cell read "[4.30e-05, 51,604,973,442]": the low bound with an exponent, the high one,
    under HUGE, in eleven digits with commas. A row holding a figure that needs an exponent now writes
    its head, median and both bounds with one, so they compare at a glance."""
    v = C.Verdict(POINT, "output_tput_per_gpu", 12.5, 2, 13.0, 4.3e-05, 51_604_973_442.0, -0.038, C.UNCHANGED, 0.05)
    head, base = render.cells(v)[2:4]
    assert (head, base) == ("1.25e+01", "1.30e+01 [4.30e-05, 5.16e+10] (n=2)")
    tiny = C.Verdict(POINT, "tpot_p50_ms", 0.00021, 5, 0.000205, 0.00009, 0.00032, 0.024, C.UNCHANGED, 0.05)
    assert render.cells(tiny)[2:4] == ("2.10e-04", "2.05e-04 [9.00e-05, 3.20e-04] (n=5)")  # not 0.000205 [9.00e-05, ...]


def test_ordinary_rows_keep_their_forms():
    """Rows without such a figure read as before: commas from 1,000, 0.1 from 10, three digits under 10."""
    assert render.fmt_values([9.5e6, 9.4e6, 9.0e6, 9.9e6]) == ["9,500,000", "9,400,000", "9,000,000", "9,900,000"]
    assert render.fmt_values([0.000339, 0.00034, 0.000321]) == ["0.000339", "0.000340", "0.000321"]
    assert render.fmt_values([1234.0, 57.25, 9.0]) == ["1,234", "57.2", "9.00"]
    assert render.fmt_values([0.99, 1.0, None], "success_rate") == ["99.0%", "100.0%", "n/a"]


def _charts_line(path) -> str:
    (line,) = [x for x in path.read_text(encoding="utf-8").splitlines() if " (output throughput per GPU" in x]
    return line


def test_a_comment_file_names_the_charts_folder_from_where_it_is_read(tmp_path, monkeypatch, capsys):
    """`results compare --comment-file ../../out/comment.md --plots ../../plots1`, run from a folder
    two below: the comment said the charts "were written to `../../plots1`", a path from where the
    command ran, not from the comment. A folder inside the comment's is named from there (`charts`, as
    the workflow's artifact holds `charts/` beside the comment); one elsewhere by its absolute path."""
    import synth
    from sweepgate import cli
    from sweepgate.results import store

    for name in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_RUN_ID", "SWEEPGATE_DB"):
        monkeypatch.delenv(name, raising=False)
    url = f"sqlite:///{tmp_path / 'r.db'}"
    with store.open_store(url) as st:
        st.add(synth.history(keys=synth.KEYS[:1], concs=(4, 16)) + synth.pr_run(keys=synth.KEYS[:1], concs=(4, 16)))
    (tmp_path / "out").mkdir()
    (tmp_path / "a" / "b").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "a" / "b")
    argv = ["results", "compare", "--db", url, "--run", "pr-7", "--comment-file", "../../out/comment.md",
            "--step-summary", "../../out/summary.md"]
    assert cli.main([*argv, "--plots", "../../out/charts"]) == 0
    for name in ("comment.md", "summary.md"):
        line = _charts_line(tmp_path / "out" / name)
        assert line.endswith(f"was written to `charts`, {render.LOCAL}."), (name, line)
    (tmp_path / "out" / "summary.md").unlink()
    assert cli.main([*argv, "--plots", "../../plots1"]) == 0
    for name in ("comment.md", "summary.md"):
        line = _charts_line(tmp_path / "out" / name)
        assert f"written to `{tmp_path / 'plots1'}`" in line and "../" not in line, line
    assert cli.main([*argv[:-2], "--plots", "../../plots1", "--markdown"]) == 0
    assert "written to `../../plots1`" in capsys.readouterr().out  # printed here: from here, as typed


def test_the_evals_table_says_pr_only_over_a_pull_request_s_run():
    """`sweepgate example`'s run on refs/heads/seed-change had an evals table whose column read "PR", as
    the charts' legend once did; the charts now say "this run" of a run that is no PR's, and so does
    the table (terminal and Markdown). A refs/pull/N run keeps "PR"."""
    def record(ref):
        return {"ref": ref, "run-id": "r1"}

    assert C.pr_of([record("refs/pull/7/merge"), record("refs/pull/7/head")]) == 7
    assert C.pr_of([record("refs/heads/seed-change")]) is None and C.pr_of([record("refs/heads/main")]) is None
    assert C.pr_of([record("refs/pull/7/merge"), record("refs/pull/8/merge")]) is None
    for pr, word in ((None, "this run"), (7, "PR")):
        comparison = C.Comparison("2002", [], {}, {}, evals=[_eval(POINT, "gsm8k")], pr=pr)
        md = render.markdown(comparison)
        assert f"| point | score | {word} | baseline | main run | change (margin) | verdict |" in md, md
        text = render.table_text(comparison)
        (header,) = [line for line in text.splitlines() if line.startswith("point ")]
        assert header.split()[:2 + len(word.split())] == ["point", "score", *word.split()], header
        assert (" PR " in header) == (pr is not None), header


class _Tty:
    """A stream that is a terminal (rich styles what it prints there)."""

    def __init__(self):
        import io

        self.buf = io.StringIO()
        self.write, self.flush, self.getvalue = self.buf.write, self.buf.flush, self.buf.getvalue

    def isatty(self) -> bool:
        return True


def test_no_color_on_a_terminal_prints_no_escape_code_at_all(monkeypatch):
    """Under NO_COLOR on a terminal, `results compare` still printed bold headers and dim unchanged rows,
    and `results show` an italic title and a bold header: rich's no_color drops colour only. Every table
    now prints plain text under NO_COLOR, and keeps its styles on a terminal without it."""
    import re

    import synth
    from sweepgate.core import report
    from sweepgate.results import show

    escape = re.compile(r"\x1b\[")
    comparison = C.compare_records(synth.pr_run(keys=synth.KEYS[:1], concs=(4,)),
                                   synth.history(keys=synth.KEYS[:1], concs=(4,)), run="pr-7")
    comparison.evals = [_eval(POINT, "gsm8k")]
    printers = {"compare": lambda out: render.table(comparison, out),
                "show": lambda out: show.table(synth.history(runs=1, keys=synth.KEYS[:1], concs=(4,)), out, "run main-0"),
                "plan": lambda out: report.print_table(out, ["a", "b"], [["1", "2"]], title="t")}
    monkeypatch.setenv("COLUMNS", "250")
    for name, print_to in printers.items():
        monkeypatch.delenv("NO_COLOR", raising=False)
        styled = _Tty()
        print_to(styled)
        assert escape.search(styled.getvalue()), name  # styled on a terminal
        monkeypatch.setenv("NO_COLOR", "1")
        plain = _Tty()
        print_to(plain)
        assert not escape.search(plain.getvalue()), (name, plain.getvalue()[:600])
        assert re.sub(r"\x1b\[[0-9;]*m", "", styled.getvalue()) == plain.getvalue(), name  # the same text


def test_a_row_that_needs_more_digits_keeps_one_plain_form():
    """Note 20: a row whose figures needed more than three digits to be told apart was written with
    Python's "g", so a large figure beside them turned to an exponent: "12345.1, 12345.2, 1.23457e+06".
    It is now plain with commas, as every row of ordinary figures is."""
    assert render.fmt_values([12345.1, 12345.2, 1234567.0]) == ["12,345.1", "12,345.2", "1,234,567"]
    assert render.fmt_values([123456.1, 123456.2]) == ["123,456.1", "123,456.2"]
    assert render.fmt_values([9.0001, 9.0002]) == ["9.0001", "9.0002"]
    assert render.fmt_values([0.50001, 0.50002]) == ["0.50001", "0.50002"]


def test_a_figure_under_one_keeps_its_digits_beside_one_that_needs_them():
    """Review (review24): a row that needed four or more digits wrote a figure under 1 with Python's "g",
    which drops trailing zeros: "0.9" beside "0.9001" and "0.95", "0.5" beside "1.500" (its figures over
    1 keep theirs). Every figure of such a row now shows the digits it was told apart with, as a row of
    three digits does ("9.00 beside 9.13")."""
    assert render.fmt_values([0.9, 0.9001, 0.95]) == ["0.9000", "0.9001", "0.9500"]
    assert render.fmt_values([0.5, 0.5001, 1.5]) == ["0.5000", "0.5001", "1.500"]


def test_figures_that_differ_never_read_as_one_number():
    """Review24: 999.96 was written "1000.0" and 1000.04 "1,000"; with more digits "1,000.0" beside
    "1,000": two texts, one number. Commas start at 1,000 as rounded, and a row's figures must differ
    as numbers, not only as texts."""
    assert render.fmt_value(999.96) == "1,000"
    assert render.fmt_values([999.96, 1000.04]) == ["999.96", "1,000.0"]
    assert render.fmt_values([float("nan"), 3.0]) == ["nan", "3.00"]  # nan differs from itself: no digits added
