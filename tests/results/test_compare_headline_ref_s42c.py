"""s42c: `results compare`'s headline named the baseline ref in full (``run pr-7 against main``, or a
whole 40-digit commit id) while the note under it said ``main's newest run`` (and the same 40 digits): one
baseline, two names. Both now say the short form one helper makes (``record.short_ref``: ``main``; a commit's
first ``fields.SHORT_SHA`` hex digits), in the terminal's report and in the Markdown one."""

from __future__ import annotations

import re

import pytest

import synth
from sweepgate import cli
from sweepgate.core.fields import SHORT_SHA
from sweepgate.results import record as R
from sweepgate.results import store

KEY = synth.KEYS[0]
SHA = "0123456789abcdef" * 2 + "01234567"


def _store(path, ref: str) -> str:
    """Main's runs stored under ``ref``; PR run pr-7 measured conc 4 (20 % slower) to 16 of the 4 to 64 main did."""
    url = f"sqlite:///{path}"
    with store.open_store(url) as st:
        st.add([dict(rec, ref=ref) for rec in synth.history(keys=(KEY,))])
        st.add(synth.pr_run({(KEY, 4): {R.OUTPUT_TPUT_PER_GPU: 0.8}}, keys=(KEY,), concs=(4, 8, 16)))
    return url


@pytest.mark.parametrize(("stored", "passed", "short"), [
    (synth.MAIN, synth.MAIN, "main"), (synth.MAIN, "main", "main"), (SHA, SHA, SHA[:SHORT_SHA])])
@pytest.mark.parametrize("form", ["--markdown", None])
def test_the_headline_and_the_note_name_the_baseline_alike(tmp_path, capsys, stored, passed, short, form):
    url = _store(tmp_path / "r.db", stored)
    cli.main(["results", "compare", "--db", url, "--run", "pr-7", "--baseline-ref", passed, *filter(None, [form])])
    out = capsys.readouterr().out
    (headline,) = {line for line in out.splitlines() if "run pr-7 against" in line}
    (note,) = {line for line in out.splitlines() if "Not measured by this run, though" in line}
    assert re.search(r"run pr-7 against (\S+) \(", headline).group(1) == short == R.short_ref(stored), headline
    assert re.search(r"though (\S+)'s newest run", note).group(1) == short, note
    assert stored not in headline + note or stored == short
