"""The gate's append-only fast path reads only the appended text and the end of the history;
on any history and any append it must give exactly the full comparison's diagnostics."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import CHANGELOG
from sweepgate.core.gate import Collector, GateOptions, check_text
from sweepgate.core.history import appended_only, trailing_newlines

ENTRY = CHANGELOG.split("\n\n")[0] + "\n"
# History lines: entries, text, and what the look-back must see through (empty lines, lines of
# whitespace, CRs, a BOM, a form feed) or reach far for (long lines, long runs of empty lines).
HISTORY_PIECES = [
    ENTRY, "\n", "  \n", " \t \n", "\r\n", "  \r\n", "\x0c\n", "x\n", "  description: y\n", "- \n",
    "\ufeff\n", "\ufeff- config-keys: [a]\n", "  pr-link: https://github.com/acme/bench/pull/3\r\n",
    "z" * 5000 + "\n", "\n" * 3000, "   \n" * 1500,
]
APPEND_PIECES = [
    "\n", "  \n", "\r\n", "\t", "\x00", "\ufeff", "\u2028", "<<<<<<< HEAD\n", "- ", "-", "x",
    "- config-keys:\n", "    - dsr1-fp4-b300-vllm\n", "  description:\n", '    - "x"\n',
    "  pr-link: https://github.com/acme/bench/pull/5\n", "  pr-link: https://github.com/o/r/pull/7\n",
    "  pr-link: https://github.com/acme/bench/pull/XXX\n", ENTRY, "&a ", "*a", "{", ": ", "\n" * 5,
]

FILE_STARTS = ["", "", "\ufeff", "\ufeff\n", "\ufeff\r\n", "\n"]
history = st.tuples(st.sampled_from(FILE_STARTS), st.lists(st.sampled_from(HISTORY_PIECES), max_size=12)).map(
    lambda t: (t[0] + "".join(t[1])).encode())
appended = st.one_of(
    st.lists(st.sampled_from(APPEND_PIECES), max_size=30).map(lambda xs: "".join(xs).encode()),
    st.binary(max_size=200),
)


def _diagnostics(base: bytes, head: bytes, repo, opts: GateOptions, fast: bool):
    out = Collector(opts.changelog)
    hist, parsed = check_text(out, base, head, repo, opts, fast=fast)
    diags = [d._key() for d in out.done()]
    entries = parsed[1] if parsed else "not run"
    return diags, hist.append_start, sorted(set(hist.changed)), hist.problems, entries


@settings(max_examples=400, deadline=None)
@given(base=history, tail=appended, cut=st.booleans(), repo=st.sampled_from([None, "acme/bench"]),
       pr=st.sampled_from([None, 5]))
def test_fast_path_gives_the_full_comparisons_diagnostics(base, tail, cut, repo, pr):
    if cut and base:
        base = base[:-1]  # a history without its final newline: the fast path must step aside
    head = base + tail
    opts = GateOptions(pr_number=pr, run_matrix=False)
    took_fast = appended_only(base, head) is not None
    assert took_fast == (not base or base.endswith(b"\n"))
    assert _diagnostics(base, head, repo, opts, True) == _diagnostics(base, head, repo, opts, False)


@given(st.lists(st.sampled_from([b"x", b"\n", b"\n" * 63, b"\n" * 700, b"\r", b""]), max_size=12))
def test_trailing_newlines_counts_like_rstrip(pieces):
    data = b"".join(pieces)
    assert trailing_newlines(data) == len(data) - len(data.rstrip(b"\n"))


def test_fast_path_reads_back_past_a_long_run_of_empty_lines():
    """The look-back finds the last entry even when many kilobytes of empty lines follow it (history,
    which only the empty line the change adds is refused for)."""
    base = ((ENTRY + "\n") * 200 + ENTRY + "\n" * 9000).encode()
    own = ENTRY.replace("/pull/1", "/pull/2").encode()  # the change's own entry (a copy is copied-entry's)
    head = base + b"\n" + own
    hist, lines = appended_only(base, head)
    assert lines.offset == 200 * 6 + 4 and lines.lines[0] == b"  pr-link: https://github.com/acme/bench/pull/1"
    fast = _diagnostics(base, head, "acme/bench", GateOptions(run_matrix=False), True)
    assert fast == _diagnostics(base, head, "acme/bench", GateOptions(run_matrix=False), False)
    assert [(d[1], d[3]) for d in fast[0]] == [(base.count(b"\n") + 1, "separator")]
    assert _diagnostics(base, base + own, "acme/bench", GateOptions(run_matrix=False), True)[0] == []


def test_fast_path_window_is_small_on_a_large_history():
    base = (ENTRY + "\n") * 20000 + ENTRY
    head = base + "\n" + ENTRY
    hist, lines = appended_only(base.encode(), head.encode())
    assert len(lines.lines) == 1 + 1 + 5 and lines.offset == base.count("\n") - 1
    assert hist.append_start == base.count("\n")
