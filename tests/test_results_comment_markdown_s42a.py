"""The PR results comment shows a result's strings as the text they are (s42a).

`results compare --comment-file` writes the body `results comment` posts. It escaped HTML, but a config key,
a model name or an engine (KV-offload backend, speculative decoding) holding `@org/team` pinged that team,
`[x](https://evil)` and `![i](https://evil/i.png)` became a link and an image, `#1` a link to issue 1, a
backtick pair a code span. Records carrying such strings are stored and compared by the real commands,
and the body is rendered by a real Markdown renderer (markdown-it-py, CommonMark with GFM tables and
strike-through, HTML on, as GitHub allows it); GitHub's own text-level links (mentions, issue references,
bare URLs, GitHub's autolink extension) are looked for in the rendered text by the rules GitHub documents.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "results"))

import pytest  # noqa: E402
import synth  # noqa: E402
from markdown_it import MarkdownIt  # noqa: E402

from sweepgate import cli  # noqa: E402
from sweepgate.results import record as R  # noqa: E402
from sweepgate.results import store  # noqa: E402

HOSTILE = ["@someone", "@org/team", "[x](https://evil)", "![i](https://evil/i.png)", "#1", "see `tick` and ``two``",
           "a|b", "<script>alert(1)</script>", "https://evil.example/p", "www.evil.example", "x@y.io", "GH-12",
           "*b* _i_ ~s~ ~~t~~", "\\[x](y) \\", "[r][1] [c][]", "&#64;named"]
# What GitHub links or notifies in a comment's text (its mentions, issue references and autolink extension).
GITHUB_LINKS = re.compile(r"@[A-Za-z0-9]|#[0-9]|\bGH-[0-9]|https?://|\bwww\.", re.IGNORECASE)
JOINER = "\u2060"  # what the renderer leaves in to break those, unseen
OWN_HTML = re.compile(r"<!-- sweepgate-results(?:-about[^>]*)? -->|</?details>|<summary>|</summary>|<details><summary>")


def _records() -> tuple[list[dict], list[dict]]:
    """(main's history, the PR's run): a point per hostile string in its config key, its model (a point with no
    config key names the model its output names), its KV-offload backend and its speculative decoding."""
    main, pr = [], []
    for i, text in enumerate(HOSTILE):
        for where in ("key", "model", "engine", "spec"):
            over = {"key": {R.CONFIG_KEY: f"k{i} {text}"}, "model": {R.CONFIG_KEY: None, R.MODEL: f"m{i} {text}"},
                    "engine": {R.KV_OFFLOADING: "dram", R.KV_OFFLOAD_BACKEND: text},
                    "spec": {R.SPEC_DECODING: text}}[where]
            key = f"base-{where}-{i}"
            for run, records, factor in (*((f"main-{r}", main, 1 + 0.01 * r) for r in range(3)), ("pr-7", pr, 0.6)):
                metrics = {m: v * factor for m, v in synth.curve(8).items()}
                record = synth.make(run, key, 8 + i if where == "model" else 8, metrics, ref="refs/pull/7/head" if run == "pr-7" else synth.MAIN,
                                    day=28 if run == "pr-7" else 1 + int(run[-1]))
                record.update(over)
                record[R.RECIPE_FINGERPRINT] = f"fp-{where}-{i}"
                records.append(record)
    return main, pr


def _inline_texts(body: str) -> tuple[list[str], list]:
    """(each inline run's text as a reader sees it, every token) of ``body`` rendered as GitHub renders Markdown."""
    md = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
    tokens = md.parse(body)
    texts, every = [], list(tokens)
    for token in tokens:
        if token.type == "inline":
            every += token.children or []
            texts.append("".join(c.content if c.type in ("text", "code_inline") else " " if c.type == "softbreak" else ""
                                 for c in token.children or []))
    return texts, every


@pytest.fixture
def body(tmp_path, monkeypatch) -> str:
    db = f"sqlite:///{tmp_path / 'r.db'}"
    main, pr = _records()
    with store.open_store(db) as st:
        st.add(main + pr)
    for name in ("GITHUB_STEP_SUMMARY", "GITHUB_ACTIONS", "GITHUB_REPOSITORY", "GITHUB_SERVER_URL", "GITHUB_RUN_ID"):
        monkeypatch.delenv(name, raising=False)
    path = tmp_path / "comment.md"
    assert cli.main(["results", "compare", "--db", db, "--run", "pr-7", "--comment-file", str(path)]) == 0
    return path.read_text(encoding="utf-8")


def test_a_result_s_strings_make_no_link_image_mention_or_markup_and_read_as_written(body):
    texts, tokens = _inline_texts(body)
    kinds = {t.type for t in tokens}
    assert not kinds & {"link_open", "image", "em_open", "s_open"}, kinds
    # the renderer's own code spans (a verdict's word, a metric's name) only: none of a result's text
    spans = [t.content for t in tokens if t.type == "code_inline"]
    assert not [s for s in spans if "tick" in s or "two" in s], spans
    for token in tokens:
        if token.type in ("html_inline", "html_block"):
            assert all(OWN_HTML.fullmatch(line.strip()) for line in token.content.strip().splitlines()), token.content
    linked = [m.group() for text in texts for m in GITHUB_LINKS.finditer(text)]
    assert not linked, linked
    seen = [" ".join(text.replace(JOINER, "").split()) for text in texts]
    for text in HOSTILE:
        for where in (f"k{HOSTILE.index(text)} {text}", f"m{HOSTILE.index(text)} {text}"):
            assert any(" ".join(where.split()) in line for line in seen), (where, [s for s in seen if s.startswith(where[:3])])
        assert any(f"{' '.join(text.split())} (dram)" in line for line in seen), text  # the engine, as the label says it
        assert any(f"spec {' '.join(text.split())}" in line for line in seen), text


def test_every_table_row_keeps_its_cells(body):
    """A `|` in a result's text stays in its cell: every row of a table has its header's number of cells."""
    md = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
    tokens = md.parse(body)
    widths, width = [], 0
    for token in tokens:
        if token.type == "tr_open":
            width = 0
        elif token.type in ("th_open", "td_open"):
            width += 1
        elif token.type == "tr_close":
            widths.append(width)
        elif token.type == "table_close":
            assert len(set(widths)) == 1, widths
            widths = []
    assert "a\\|b" in body
