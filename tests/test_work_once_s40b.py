"""s40b: work that was done twice is done once, with the same answers. Each test counts the work (bytes a
search reads, or calls of a real function, wrapped to count and still run) on real text and files.

1. The gate's copied-entry check (``gate._copied_entries``) looked for an appended entry in the history once
   for each time it was appended, and counted the newlines from the history's start to each copy found, once a
   copy: a merge that took main's last entries in twice read the history once for each of them, on the fast path
   too, which reads only the appended text and the end of the history otherwise. Each appended text is now looked
   for once, and the lines of the copies found are counted together, from whichever end of the history is nearer.
2. ``identity.identities_and_blind`` (and ``run_identity``) found every file a row's job runs
   (``identity.executed_files``) twice a row: once for its blind spots, once for the identity hashing them. Once now.
"""

from __future__ import annotations

from conftest import CHANGELOG
from test_reuse import SCRIPTS, repo  # noqa: F401 (repo: the fixture)
from test_work_once_s39e import _counting

from sweepgate.core import identity

from sweepgate.core.gate import COPIED_ENTRY_RULE, Collector, GateOptions, check_text
from sweepgate.core.history import appended_only

ENTRY = CHANGELOG.split("\n\n")[0] + "\n"
COPIED = 12  # history entries a merge took in again (each said: the collector says 20 of a rule)
SEARCHES = ("find", "rfind", "index", "rindex", "count")


class Reads(bytes):
    """Bytes that keep how many of them each search reads (its span; a find only as far as its match) and
    the searches made, as (method, needle, start). Slices are plain bytes: what is sliced is read already."""

    def __new__(cls, data: bytes):
        self = super().__new__(cls, data)
        self.read, self.searches = {name: 0 for name in SEARCHES}, []
        return self


def _counted(name: str):
    def search(self, sub, start=None, end=None):
        found = getattr(bytes, name)(self, sub, start, end)
        lo, hi = slice(start, end).indices(len(self))[:2]
        self.read[name] += (found + len(sub) - lo) if name in ("find", "index") and found >= 0 else hi - lo
        self.searches.append((name, bytes(sub), lo))
        return found
    return search


for _name in SEARCHES:
    setattr(Reads, _name, _counted(_name))


def _entry(n: int) -> str:
    return ENTRY.replace("/pull/1", f"/pull/{n}")


def _copies(base: bytes, head: bytes) -> list[tuple[int, str]]:
    out = Collector("perf-changelog.yaml")
    check_text(out, base, head, "acme/bench", GateOptions(run_matrix=False))
    return [(d.line, d.message) for d in out.done() if d.rule == COPIED_ENTRY_RULE]


def test_the_copied_entry_check_reads_the_history_once_an_appended_text():
    """A merge took main's last 12 entries in again, and the branch's own entry is appended twice: the answers
    are the full comparison's, each distinct appended text is looked for once, and the lines of the 12 copies
    are counted from the end of the history (which holds them), not from its start once each."""
    history = [_entry(n) for n in range(2, 402)]
    base_text = "\n".join(history)
    again, own = history[-COPIED:], _entry(9999)
    appended = [*again, own, own]
    head = (base_text + "\n" + "\n".join(appended)).encode()
    base = Reads(base_text.encode())
    assert appended_only(bytes(base), head) is not None, "the fast path"
    lines = ENTRY.count("\n") + 1  # an entry and the empty line after it
    first = len(history) * lines + 1  # HEAD's line of the first appended entry
    expected = [(first + k * lines, f"appended entry is a byte-for-byte copy of the history's entry at line "
                 f"{(len(history) - COPIED + k) * lines + 1}: the sweep would run it again as this change's own")
                for k in range(COPIED)]
    expected.append((first + (COPIED + 1) * lines, "appended entry is a byte-for-byte copy of the entry appended "
                     f"at line {first + COPIED * lines}: the sweep would run it again as this change's own"))
    assert _copies(base, head) == expected
    out = Collector("perf-changelog.yaml")
    check_text(out, bytes(base), head, "acme/bench", GateOptions(run_matrix=False), fast=False)
    assert [(d.line, d.message) for d in out.done() if d.rule == COPIED_ENTRY_RULE] == expected, "the full path's"

    looked = [(needle, start) for name, needle, start in base.searches if name == "find" and needle.startswith(b"- ")]
    assert len(looked) == len(set(looked)) == len(appended) - 1, looked  # the own entry once, not twice
    tail = len(base) - base.index(again[0].encode())  # the history's bytes from the first copied entry on
    # The fast path counts the history's newlines once (the line the append starts at); the copies' lines
    # read its tail after that (before: the history up to each copy, once a copy).
    assert base.read["count"] <= len(base) + tail, (base.read["count"], len(base), tail)


def test_each_rows_executed_files_are_found_once(repo, monkeypatch):  # noqa: F811
    """Five rows of two scripts, on the shipped library and launchers: each row's files are found once, for
    its blind spots and its identity both, and the identities are those found a row at a time before."""
    runners = {"labels": {"b300": ["b300-nv_00"]}}
    rows = [{"runner": "b300", "model-prefix": "dsr1", "precision": "fp4", "framework": framework, "conc": conc,
             "recipe-fingerprint": "f" * 64, "isl": 1024, "osl": 1024}
            for framework, concs in (("vllm", (4, 8, 16)), ("sglang", (4, 8))) for conc in concs]
    assert {identity.resolve_script(identity.script_candidates(row), {p: b"" for p in SCRIPTS.values()})
            for row in rows} == set(SCRIPTS.values()), "each row has its script"

    def read(paths):
        return {p: (repo.path / p).read_bytes() if (repo.path / p).is_file() else None for p in paths}

    one_by_one = [identity.run_identity(row, runners, identity.read_all([row], runners, read)) for row in rows]
    found = _counting(monkeypatch, identity, "executed_files")
    ids, blind = identity.identities_and_blind(rows, runners, read)
    assert ids == one_by_one and all(ids) and len(set(ids)) == len(rows) and blind == {}, (ids, blind)
    # once per script since s45c (rows of one script and support files share a reading): twice a row before s40b
    assert len(found) == len(SCRIPTS) == 2, len(found)
    found.clear()
    assert identity.run_identity(rows[0], runners, identity.read_all(rows[:1], runners, read)) == ids[0]
    assert len(found) == 1, len(found)
