"""Property tests of the Markdown report (`results compare`'s PR comment and step summary): generated
comparisons (several config keys, concurrencies, failed and cancelled jobs, missing metrics, dropped
points, eval scores with hostile labels, recipe strings with Markdown and HTML in them, rehearsals, PR and
non-PR refs) rendered at several size limits, each report checked for:

- its UTF-8 size within the limit, and a cut report saying it was cut and where the rest is;
- well-formed tables: each row as many unescaped cells as its header, none broken by a line break;
- no raw HTML from the data: every ``<`` is the renderer's own (marker, ``<details>``, ``<summary>``),
  ``<details>`` balanced and never nested;
- a headline whose counts are the comparison's (failed, regressed, improved points and their metrics,
  eval scores), cut or not;
- the same bytes for the same input.
"""

from __future__ import annotations

import random
import re
from collections import defaultdict

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import synth
from sweepgate.core import github
from sweepgate.results import compare as C
from sweepgate.results import evals as E
from sweepgate.results import record as R
from sweepgate.results import render

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                                                                          HealthCheck.data_too_large])
LIMITS = (None, github.COMMENT_LIMIT, 3000, 800)
MORE = "see the MORE-PLACE"  # ``more``: where a cut report says the rest is
GITHUB_VARIABLES = ("GITHUB_ACTIONS", "GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_RUN_ID")

# A config key as the master config's schema allows it (^[A-Za-z0-9][A-Za-z0-9._-]*$).
KEYS = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9._-]{0,30}", fullmatch=True)
# Text a recipe field or an eval label may hold: Markdown and HTML, line breaks, unicode.
HOSTILE_CHARS = st.sampled_from(list("ab1 |<>`*_&;#[]()!\\-:\n\r\t") + ["é", "中", "✓", "\u2028", "<!--", "-->",
                                                                       "</details>", "<details>", "&lt;", "\\|"])
HOSTILE = st.lists(HOSTILE_CHARS | st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=8).map("".join)
ACTIONS = ("same", "same", "regress", "improve", "fail", "cancel", "drop", "missing", "new", "repeat")


@st.composite
def recipes(draw) -> dict:
    """A config key's recipe fields, plain or hostile."""
    out = {R.TOPOLOGY: draw(st.sampled_from(["tp8-pp1-dcp1-pcp1-ep1-dpafalse", "tp4-pp1-dcp1-pcp1-ep8-dpatrue", None])
                            | HOSTILE),
           R.SPEC_DECODING: draw(st.sampled_from(["none", "mtp", None]) | HOSTILE),
           R.KV_OFFLOADING: draw(st.sampled_from([None, "dram"])),
           R.KV_OFFLOAD_BACKEND: draw(st.sampled_from([None, "lmcache"]) | HOSTILE)}
    return out


@st.composite
def eval_entries(draw) -> list[dict]:
    labels = st.tuples(st.sampled_from(["gsm8k"]) | HOSTILE, st.sampled_from(["exact_match"]) | HOSTILE,
                       st.sampled_from(["none", "strict-match"]) | HOSTILE)
    out = []
    for task, metric, flt in draw(st.lists(labels, min_size=1, max_size=3, unique=True)):
        out.append({R.EVAL_TASK: task, R.EVAL_METRIC: metric, R.EVAL_FILTER: flt,
                    R.EVAL_VALUE: draw(st.floats(0, 1)), R.EVAL_STDERR: draw(st.sampled_from([0.01, 0.001, None])),
                    R.EVAL_SAMPLES: draw(st.sampled_from([1319, 50, None]))})
    return out


@st.composite
def scenarios(draw, concs: tuple[int, int] = (1, 4), keys: tuple[int, int] = (1, 3)) -> tuple[list[dict], list[dict], list[str]]:
    """(the run's records, the baseline's records, notes under the headline); ``concs``, ``keys``: how
    many of each (fewest, most)."""
    keys = draw(st.lists(KEYS, min_size=keys[0], max_size=keys[1], unique=True))
    concs = draw(st.lists(st.integers(1, 512), min_size=concs[0], max_size=concs[1], unique=True))
    runs = draw(st.integers(0, 5))
    ref = draw(st.sampled_from(["refs/pull/7/merge", "refs/heads/feature", "refs/pull/12/head"]))
    run = draw(st.sampled_from(["4242", "pr-7"]) | HOSTILE)  # the schema's run-id: any non-empty string
    rehearsed, base_rehearsed = draw(st.booleans()), draw(st.booleans())
    rng = random.Random(draw(st.integers(0, 2**16)))
    pr, base = [], []
    for i, key in enumerate(keys):
        recipe = draw(recipes())
        image = draw(st.sampled_from(["vllm/vllm-openai:v0.11.0"]) | HOSTILE)
        pr_image = draw(st.sampled_from([image, "vllm/vllm-openai:v0.12.0"]) | HOSTILE)
        evals = draw(st.none() | eval_entries())
        for conc in concs:
            action = draw(st.sampled_from(ACTIONS))
            figures = synth.curve(conc, i)
            if action != "new":
                for r in range(runs):
                    rec = synth.make(f"main-{r}", key, conc, synth.noisy(figures, rng, 0.02), day=r + 1,
                                     image=image, rehearsal=base_rehearsed)
                    base.append({**rec, **recipe, R.RECIPE_FINGERPRINT: f"fp-{key}-{image}"})
            if action == "drop":
                continue
            metrics = synth.noisy(figures, rng, 0.02)
            if action in ("regress", "improve"):
                factor = 0.7 if action == "regress" else 1.4
                metrics = {m: v * factor if m in (R.OUTPUT_TPUT_PER_GPU, R.INTERACTIVITY) else v
                           for m, v in metrics.items()}
            if action == "missing":
                metrics.pop(draw(st.sampled_from(sorted(metrics))))
            rec = {**synth.make(run, key, conc, metrics, ref=ref, day=28, image=pr_image, rehearsal=rehearsed),
                   **recipe, R.RECIPE_FINGERPRINT: f"fp-{key}-{pr_image}"}
            if action in ("fail", "cancel"):
                rec[R.STATUS] = "failure" if action == "fail" else "cancelled"
                rec[R.METRICS] = {R.COMPLETED: 3, R.FAILED: 5} if action == "fail" else {}
            pr.append(rec)
            if action == "repeat":
                pr.append({**rec, R.METRICS: synth.noisy(metrics, rng, 0.02)})
            if evals and conc == concs[0] and action != "drop":
                scored = {**rec, R.CLIENT: R.EVAL_CLIENT, R.RESULT_FILENAME: rec[R.RESULT_FILENAME] + "-eval",
                          R.METRICS: {}, R.EVALS: evals, R.STATUS: draw(st.sampled_from(["success", "success",
                                                                                         "failure"]))}
                pr.append(scored)
                for r in range(min(runs, 2)):
                    moved = [{**e, R.EVAL_VALUE: draw(st.floats(0, 1))} for e in evals]
                    base.append({**scored, R.RUN_ID: f"main-{r}", R.REF: synth.MAIN, R.STATUS: "success",
                                 R.FINISHED: f"2026-11-{r + 1:02d}T12:00:00Z", R.EVALS: moved,
                                 R.REHEARSAL: base_rehearsed})
    notes = draw(st.lists(HOSTILE, max_size=2))
    return pr, base, notes


def comparison_of(pr: list[dict], base: list[dict], notes: list[str]) -> C.Comparison:
    """As `results compare` builds it (``results_compare.run``)."""
    comparison = C.compare_records(pr, base)
    comparison.evals = E.compare_evals(pr, base, C.DEFAULT_WINDOW)
    comparison.notes = list(notes)
    return comparison


# ----------------------------------------------------------------------------- the invariants

ESCAPED_PIPE = re.compile(r"(?<!\\)\|")
OWN_TAGS = re.compile(r"<!-- sweepgate-results -->|<!-- sweepgate-results-about[^\n]*-->|</?details>|</?summary>")


def tables(lines: list[str]) -> list[tuple[int, list[str]]]:
    """Each Markdown table: (its first line's index, its lines)."""
    out, i = [], 0
    while i < len(lines):
        if lines[i].startswith("|"):
            start = i
            while i < len(lines) and lines[i].startswith("|"):
                i += 1
            out.append((start, lines[start:i]))
        else:
            i += 1
    return out


def cells_of(line: str) -> int:
    """How many cells a table line has: its unescaped pipes, less the edge one."""
    return len(ESCAPED_PIPE.findall(line)) - 1


def check_tables(text: str) -> None:
    lines = text.split("\n")
    for start, table in tables(lines):
        header, rule, *rows = table + [None] * (2 - len(table))
        assert rule is not None and re.fullmatch(r"\|(?:---\|)+", rule), (header, rule)
        width = cells_of(header)
        assert width == rule.count("|") - 1, (header, rule)
        for row in rows:
            assert row.endswith(" |") and row.startswith("| "), row  # a line break inside a cell splits a row
            assert cells_of(row) == width, (header, row)
        after = start + len(table)
        assert after == len(lines) or lines[after] == "", lines[after]  # no row's tail on a line of its own


def check_html(text: str) -> None:
    assert "\r" not in text  # a carriage return from the data breaks a line (a row, a heading) as \n does
    plain = OWN_TAGS.sub("", text)  # no code span excepted: the data's backticks may pair up across a line
    assert "<" not in plain and ">" not in plain.replace("\n>", "\n").lstrip(">"), plain
    depth = 0
    for tag in re.findall(r"</?details>", text):
        depth += 1 if tag == "<details>" else -1
        assert depth in (0, 1), text
    assert depth == 0


BEYOND = r"; (\d+) changed beyond (?:its|their) threshold"  # of the insufficient-data metrics (s44d)
COUNTED = re.compile(rf"(?a)(\d+) points? ({'|'.join(C.VERDICTS)})"
                     rf"(?: \((\d+) metrics?(?:{BEYOND})?\))?")
# The headline's counts, at its end (the run id and the ref before them may hold any text): "nothing failed,
# regressed or improved" where none did, the verdicts some point has, then the eval scores' (s38f: no zero count);
# "nothing to compare" for a run of neither.
COUNTS = re.compile(r"(?a): (?:(?P<quiet>nothing failed, regressed or improved)(?:; |$)|(?P<none>nothing to compare$))?"
                    rf"(?P<points>(?:\d+ points? [a-z-]+(?: \(\d+ metrics?(?:{BEYOND})?\))?(?:, (?=\d)|(?=;)|$))*)"
                    r"(?:(?:; )?eval scores: (?P<evals>(?:\d+ [a-z-]+(?:, )?)+))?$")


def expected_tally(comparison: C.Comparison) -> dict[str, tuple[int, int]]:
    """verdict -> (points, metrics): a point under each verdict one of its rows has, under unchanged only
    when all its rows are (CONTRACTS §8)."""
    kinds: dict[tuple, list[str]] = defaultdict(list)
    for v in comparison.verdicts:
        kinds[v.point].append(v.verdict)
    out = dict.fromkeys(C.VERDICTS, (0, 0))
    for verdicts in kinds.values():
        for verdict in set(verdicts):
            if verdict == C.UNCHANGED and set(verdicts) != {C.UNCHANGED}:
                continue
            points, metrics = out[verdict]
            out[verdict] = (points + 1, metrics + verdicts.count(verdict))
    return out


def headline(text: str) -> str:
    found = [line for line in text.split("\n")[:3] if line.startswith("### sweepgate results: ")]
    assert len(found) == 1, text[:500]
    return found[0]


def check_headline(text: str, comparison: C.Comparison) -> None:
    line = headline(text)
    dropped = sum(m.what is None for m in comparison.not_measured)  # the points main has and the run did not measure
    said = re.findall(rf"(?a)(?:, |: |; )(\d+) points? {render.NOT_MEASURED_COUNT}(?=;|$)", line)
    assert [int(n) for n in said] == ([dropped] if dropped else []), line  # the counts' last, once
    if dropped:  # the rest of the counts as they would stand without it
        line = re.sub(rf"(?a)(, |(?<=; ))?\d+ points? {render.NOT_MEASURED_COUNT}(?=;|$)", "", line)
        line = line.replace("; ;", ";").removesuffix("; ")
    found = COUNTS.search(line)
    assert found, line
    points_part, evals_part = found["points"], found["evals"] or ""
    found_counts = COUNTED.findall(points_part)
    counts = {verdict: (int(points), int(metrics or 0)) for points, verdict, metrics, _ in found_counts}
    beyond = {verdict: int(n) for _, verdict, _, n in found_counts if n}
    assert beyond == ({C.INSUFFICIENT: n} if (n := sum(map(render._beyond, comparison.verdicts))) else {}), line
    expected = expected_tally(comparison)
    assert set(counts) == {verdict for verdict in C.VERDICTS if expected[verdict][0]}, line  # no zero count
    for verdict in counts:
        points, metrics = expected[verdict]
        if verdict in (C.FAILED, C.UNCHANGED):
            metrics = 0  # a failed job has no metric; unchanged names none
        assert counts[verdict] == (points, metrics), (verdict, line)
    scores = {verdict: int(n) for n, verdict in re.findall(r"(?a)(\d+) ([a-z-]+)", evals_part)}
    if comparison.evals:
        said = {verdict: sum(e.verdict == verdict for e in comparison.evals) for verdict in E.VERDICTS}
        assert scores == {v: n for v, n in said.items() if n}, line
    else:
        assert not evals_part, line
    changed = {v.verdict for v in [*comparison.verdicts, *comparison.evals]} & {C.FAILED, C.REGRESSED, C.IMPROVED}
    assert bool(found["quiet"]) == (not changed and bool(comparison.verdicts or comparison.evals or dropped)), line
    assert bool(found["none"]) == (not comparison.verdicts and not comparison.evals and not dropped), line
    check_sections(text, expected)


CUT_TAIL = f"The rest of this report is left out (too long to show here; {MORE})."
OPEN_HEADING = re.compile(r"#### (Failed|Regressed|Improved) \((\d+) points?(?:, (\d+) metrics?)?\)")


def check_sections(text: str, expected: dict[str, tuple[int, int]]) -> None:
    """The open sections' headings count as the headline does, and a cut one's rows shown and "N more"
    add up to its metrics."""
    lines = text.split("\n")
    verdicts = {"Failed": C.FAILED, "Regressed": C.REGRESSED, "Improved": C.IMPROVED}
    for i, line in enumerate(lines):
        if not (heading := OPEN_HEADING.fullmatch(line)):
            continue
        verdict = verdicts[heading[1]]
        points, metrics = expected[verdict]
        said = (int(heading[2]), int(heading[3] or heading[2]))
        assert said == (points, metrics if verdict != C.FAILED else points), (line, expected[verdict])
        rows = 0
        j = i + 4  # the heading, a blank line, the table's header and rule
        while j < len(lines) and lines[j].startswith("|"):
            rows, j = rows + 1, j + 1
        if j + 1 < len(lines) and (more := re.fullmatch(rf"(\d+) more {heading[1].lower()} rows?.*: {MORE}\.", lines[j + 1])):
            assert rows + int(more[1]) == said[1], (line, rows, lines[j + 1])
        else:  # all listed, unless the report was cut after this table (``render._first_blocks``)
            assert rows >= said[1] or CUT_TAIL in text, (line, rows)
        assert lines[i + 2].startswith("| "), lines[i:i + 3]  # never a heading without its table


def check(comparison: C.Comparison, about: str | None = None, ref: str = C.DEFAULT_BASELINE_REF) -> None:
    whole_text = render.markdown(comparison, ref, about=about, more=MORE)
    for limit in LIMITS:
        text, whole = render.fitted_markdown(comparison, ref, limit=limit, about=about, more=MORE)
        assert render.fitted_markdown(comparison, ref, limit=limit, about=about, more=MORE) == (text, whole)
        assert text.startswith(render.MARKER + "\n")
        if limit is not None:
            assert len(text.encode()) <= limit, (limit, len(text.encode()))
        if whole:
            assert text == whole_text
        else:
            assert MORE in text, text  # cut: says so, and where the rest is
        check_tables(text)
        check_html(text)
        check_headline(text, comparison)
        assert headline(text) == headline(whole_text)


def _clean_environment(monkeypatch) -> None:
    for name in GITHUB_VARIABLES:
        monkeypatch.delenv(name, raising=False)


# ----------------------------------------------------------------------------- the properties


@SETTINGS
@given(scenarios(), st.sampled_from([None, 7]), st.sampled_from([C.DEFAULT_BASELINE_REF, "refs/heads/release"]) | HOSTILE)
def test_the_markdown_report_keeps_its_invariants_at_every_limit(monkeypatch, scenario, pr_number, ref):
    """``ref``: --baseline-ref, any text (git allows `<`, `>`, `|` and backticks in a ref's name)."""
    _clean_environment(monkeypatch)
    pr, base, notes = scenario
    comparison = comparison_of(pr, base, notes)
    check(comparison, render.about_line(pr_number, comparison.run), ref)


@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
@given(scenarios(concs=(40, 64), keys=(5, 8)))
def test_a_large_sweep_s_report_keeps_its_invariants_when_cut_to_a_comment(monkeypatch, scenario):
    """Hundreds of points, a report of 50-150 kB: cut at GitHub's comment limit as well as at the small ones."""
    _clean_environment(monkeypatch)
    check(comparison_of(*scenario))


def test_a_report_whose_head_alone_is_over_the_limit_is_cut_to_it(monkeypatch):
    """Found by the properties above (a limit of 800 bytes, a report of 801 after every row was cut):
    the headline, the notes and the lines under them were kept whatever the limit, so a step summary
    with little room left, or a comment with long notes, went over its limit."""
    _clean_environment(monkeypatch)
    comparison = comparison_of(synth.pr_run(), synth.history(), [f"an empty baseline file: {'x' * 900}"])
    text, whole = render.fitted_markdown(comparison, limit=800, more=MORE)
    assert len(text.encode()) <= 800 and not whole and MORE in text
    check_tables(text)
    check_html(text)
    check_headline(text, comparison)


@pytest.mark.parametrize(("run", "ref"), [("</details>", C.DEFAULT_BASELINE_REF), ("a<!--b", C.DEFAULT_BASELINE_REF),
                                          ("4242", "<"), ("a\nb|c", C.DEFAULT_BASELINE_REF),
                                          ("4242", "refs/heads/x\ny")])
def test_a_run_id_or_baseline_ref_with_html_or_a_line_break_stays_text_in_the_headline(monkeypatch, run, ref):
    """Found by the properties above (shrunk: run `</details>`, ref `<`, a run id with a line break): the
    headline, the line naming the commit measured and the New table's text printed the run id (any
    non-empty string in a record, or --run) and --baseline-ref as they were, so `<!--` hid the rest of
    the comment and a line break split the headline."""
    _clean_environment(monkeypatch)
    pr = [{**rec, R.COMMIT: "c0ffee" * 6 + "abcd"} for rec in synth.pr_run(run=run, keys=synth.KEYS[:1], concs=(4,))]
    comparison = comparison_of(pr, [], [])  # a new point: the New table names the ref
    text = render.markdown(comparison, ref, more=MORE)
    check_html(text)
    check_headline(text, comparison)
    check_tables(text)


def test_a_report_cut_after_every_row_keeps_no_heading_without_its_table():
    """Found by the properties above (shrunk: one failed point, 800 bytes): a report cut to its first
    blocks ended "#### Failed (1 point)" over the line saying the rest was left out, no table under it."""
    body = "\n".join([render.MARKER, "### sweepgate results: run 1", "", "#### Failed (1 point)", "",
                      "| point | verdict |", "|---|---|", f"| {'k' * 300} | failed |", ""])
    tail = f"The rest of this report is left out (too long to show here; {MORE})."
    text = render._first_blocks(body, len(body.encode()) - 10, MORE)
    assert text == f"{render.MARKER}\n### sweepgate results: run 1\n\n{tail}\n"


def test_a_run_id_of_digits_other_than_ascii_ones_is_ordered_as_text(monkeypatch):
    """Found by the properties above (shrunk: run id `²`): str.isdigit() holds for `²` and `٣`, which
    int() refuses, so compare_records raised ValueError on a run id the schema allows (any non-empty
    string) in the run or the baseline; and the commit line linked `/actions/runs/²`."""
    monkeypatch.setenv("GITHUB_SERVER_URL", "https://github.com")
    monkeypatch.setenv("GITHUB_REPOSITORY", "o/r")
    pr = [{**rec, R.COMMIT: "c0ffee" * 6 + "abcd"} for rec in synth.pr_run(run="²", concs=(4,))]
    base = [{**rec, R.RUN_ID: "٣"} for rec in synth.history(runs=1, concs=(4,))] + synth.history(concs=(4,))
    comparison = comparison_of(pr, base, [])
    assert comparison.run == "²" and len(comparison.verdicts) == 2 * len(synth.PLAIN_METRICS)
    text = render.markdown(comparison, more=MORE)
    assert "(run ²)." in text and "/actions/runs/" not in text
