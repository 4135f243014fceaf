"""`sweepgate validate` / utils/validate_perf_changelog.py: every rule fails at the right line, and passes."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import CHANGELOG, appended_entry

ROOT = Path(__file__).resolve().parents[1]

from sweepgate import cli  # noqa: E402
from sweepgate.core.gate import GateOptions, validate  # noqa: E402
from sweepgate.core.load import Git  # noqa: E402

# CHANGELOG has 13 lines; "\n" + entry() appends an empty line 14 and an entry at lines 15-19.
BASE_LINES = CHANGELOG.count("\n")
FIRST = BASE_LINES + 2  # first line of the first appended entry


def entry(keys=("dsr1-fp4-b300-vllm",), link="https://github.com/acme/bench/pull/5", extra="",
          description='"Bump the vLLM image"') -> str:
    text = "- config-keys:\n" + "".join(f"    - {k}\n" for k in keys)
    text += f"  description:\n    - {description}\n" + extra + f"  pr-link: {link}\n"
    return text


@dataclass
class Result:
    rc: int
    out: str
    err: str

    def lines(self) -> list[int]:
        """Line numbers of every perf-changelog.yaml diagnostic, in output order."""
        return [int(m.group(1)) for m in re.finditer(r"^perf-changelog\.yaml:(\d+)[:\d]*: ", self.err, re.M)]

    def has(self, line: int, fragment: str) -> bool:
        return any(re.match(rf"perf-changelog\.yaml:{line}(:\d+)?: .*{re.escape(fragment)}", x)
                   for x in self.err.splitlines())


@pytest.fixture
def repo(repo_outside_actions):
    return repo_outside_actions


@pytest.fixture
def gate(repo, capsys):
    """gate(changelog_text_or_bytes, *flags) commits the changelog on top of base and runs the gate."""
    def run(content, *flags, base=None) -> Result:
        head = repo.commit_changelog(content)
        rc = cli.main(["validate", "--base-ref", base or repo.base, "--head-ref", head, *flags])
        out, err = capsys.readouterr()
        assert "Traceback" not in out + err and "internal error" not in err, err
        return Result(rc, out, err)
    return run


def ok(result: Result) -> None:
    assert result.rc == 0, result.err
    assert result.err == ""


def refused(result: Result, line: int, fragment: str) -> None:
    assert result.rc == 1, result.out + result.err
    assert result.has(line, fragment), f"expected line {line}: {fragment!r} in\n{result.err}"
    assert "; " in result.err.splitlines()[0], "every message carries a hint"


# --------------------------------------------------------------------------- accepted changes

def test_append_passes(gate):
    ok(gate(CHANGELOG + "\n" + entry()))


def test_two_appended_entries_pass(gate):
    ok(gate(CHANGELOG + "\n" + entry() + "\n" + entry(["kimik3-*"])))


def test_pr_number_and_placeholder_pass(gate):
    ok(gate(CHANGELOG + "\n" + entry(), "--pr-number", "5"))
    result = gate(CHANGELOG + "\n" + entry(link="https://github.com/acme/bench/pull/XXX"), "--pr-number", "5")
    assert result.rc == 0 and "ok (1 appended entry" in result.out, result.err
    # ...with a warning that the push to main will refuse it (new-maintainer review: a PR merged
    # with the placeholder and main's sweep failed in its setup; CONTRACTS section 2 allows it here)
    (line,) = [x for x in result.err.splitlines() if "XXX placeholder" in x]
    assert line.startswith(f"perf-changelog.yaml:{FIRST + 4}:12: warning: pr-link still has the XXX placeholder; the push "
                           "to main will refuse it once PR #5 merges; before merging, run sweepgate changelog "
                           "canonicalize --pr-number 5"), line
    assert "XXX" not in gate(CHANGELOG + "\n" + entry(), "--pr-number", "5").err


def test_empty_pr_number_means_push(gate):
    ok(gate(CHANGELOG + "\n" + entry(), "--pr-number", ""))


def test_unchanged_changelog_passes(gate):
    result = gate(CHANGELOG)
    ok(result)
    assert "no entry appended, nothing to run" in result.out


def test_entry_point_script(repo):
    head = repo.commit_changelog(CHANGELOG + "\n" + entry(link="https://github.com/acme/bench/pull/XXX"))
    proc = subprocess.run([sys.executable, str(ROOT / "utils" / "validate_perf_changelog.py"),
                           "--base-ref", repo.base, "--head-ref", head], capture_output=True, text=True,
                          cwd=repo.path, env={k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")})
    assert proc.returncode == 1
    assert proc.stderr.startswith(f"perf-changelog.yaml:{FIRST + 4}:12: pr-link still has the XXX placeholder; ")
    assert "Traceback" not in proc.stderr


# --------------------------------------------------------------------------- file rules

def test_crlf_in_appended_entry(gate):
    text = CHANGELOG + "\n" + entry().replace("\n", "\r\n")
    result = gate(text.encode())
    refused(result, FIRST, "carriage return")
    assert result.lines()[:5] == [FIRST, FIRST + 1, FIRST + 2, FIRST + 3, FIRST + 4]


def test_whole_file_converted_to_crlf(gate):
    result = gate((CHANGELOG + "\n" + entry()).replace("\n", "\r\n").encode())
    refused(result, 1, "carriage return")
    assert "history" not in result.err  # the same text with other line endings is one problem, not two


def test_a_whole_crlf_file_s_summary_says_what_in_words_and_how_to_fix_every_line(gate):
    """s43h: past the cap, an all-CRLF changelog ended with "N more 'crlf' problem(s)", the rule's title, and the fix
    of one line ("fix the ones above, then rerun the gate", 20 lines at a time)."""
    from sweepgate.core.collector import MAX_PER_RULE

    body = "\n    - ".join(f'"line {i}"' for i in range(MAX_PER_RULE))
    text = CHANGELOG + "\n" + entry(description=body)
    result = gate(text.replace("\n", "\r\n").encode())
    (last,) = [ln for ln in result.err.splitlines() if " more " in ln]
    assert last.endswith(f": {text.count(chr(10)) - MAX_PER_RULE} more lines end in CRLF from here on; convert every "
                         "line at once: dos2unix perf-changelog.yaml, or sed -i 's/\\r$//' perf-changelog.yaml"), last
    assert "'crlf'" not in result.err


def test_a_capped_rule_is_counted_whole_in_the_total(gate):
    """Diff review: 30 appended CRLF lines printed 20 lines, one "10 more" line, and a total of 21."""
    from sweepgate.core.collector import MAX_PER_RULE

    body = "\n    - ".join(f'"line {i}"' for i in range(MAX_PER_RULE + 7))  # valid YAML but for the CRs
    text = CHANGELOG + "\n" + entry(description=body).replace("\n", "\r\n")
    result = gate(text.encode())
    crlf = [ln for ln in result.err.splitlines() if "carriage return" in ln]
    n = text.count("\r\n")
    assert len(crlf) == MAX_PER_RULE and f"{n - MAX_PER_RULE} more lines end in CRLF from here on" in result.err
    assert f"perf-changelog.yaml: {n} problems; fix them and rerun" in result.out, result.out


def test_bom(gate):
    result = gate(b"\xef\xbb\xbf" + (CHANGELOG + "\n" + entry()).encode())
    refused(result, 1, "byte-order mark")
    assert result.lines() == [1]


def test_tab(gate):
    """A tab inside the text is not told to "indent with spaces" (new-user review); one indenting is."""
    result = gate(CHANGELOG + "\n" + entry(description='"a\tb"'))
    refused(result, FIRST + 3, "tab character inside the text; replace it with a space")
    result = gate(CHANGELOG + "\n" + entry().replace("    - dsr1", "\t- dsr1"))
    refused(result, FIRST + 1, "tab character; indent with spaces")


@pytest.mark.parametrize("tabbed", ["\t- dsr1", "\t  - dsr1", "\tdescription:"])
def test_a_tab_indenting_an_entry_s_line_is_one_problem(gate, tabbed):
    """New-user walk (pre-commit, s39c): a description item indented with a tab was also told "appended text
    does not start a new entry; it continues the entry ending at line N", N the line above it inside the same
    entry: the tab counted as no indent. The tab is the one problem, at its column."""
    text = entry().replace("    - dsr1" if "dsr1" in tabbed else "  description:", tabbed)
    result = gate(CHANGELOG + "\n" + text)
    line = FIRST + (1 if "dsr1" in tabbed else 2)
    refused(result, line, "tab character; indent with spaces")
    problems = [x for x in result.err.splitlines() if not x.startswith("perf-changelog.yaml: ")]
    assert problems == [f"perf-changelog.yaml:{line}:1: tab character; indent with spaces"], result.err


def test_nul(gate):
    result = gate((CHANGELOG + "\n" + entry(description='"a\0b"')).encode())
    refused(result, FIRST + 3, "NUL byte")


def test_invalid_utf8(gate):
    result = gate((CHANGELOG + "\n" + entry()).encode().replace(b"Bump", b"B\xffump"))
    refused(result, FIRST + 3, "not valid UTF-8")


def test_control_character(gate):
    result = gate(CHANGELOG + "\n" + entry(description='"a\x0cb"'))
    refused(result, FIRST + 3, "control character U+000C")


def test_bidirectional_control_character(gate):
    """Acceptance re-check of issue 4: a U+202E (right-to-left override) in a description passed, and
    the line then reads reordered to a reviewer ("Trojan Source")."""
    result = gate(CHANGELOG + "\n" + entry(description='"fix \u202egnp.x\u202c image"'))
    refused(result, FIRST + 3, "invisible bidirectional control character U+202E")
    assert result.lines() == [FIRST + 3], result.err


def test_missing_final_newline(gate):
    text = CHANGELOG + "\n" + entry()
    result = gate(text.rstrip("\n"))
    refused(result, FIRST + 4, "does not end with a newline")


def test_two_final_newlines(gate):
    result = gate(CHANGELOG + "\n" + entry() + "\n")
    refused(result, FIRST + 5, "ends with 2 newlines")
    assert result.lines() == [FIRST + 5]


def test_conflict_markers(gate):
    text = (CHANGELOG + "<<<<<<< HEAD\n\n" + entry() + "=======\n\n" + entry(["kimik3-*"])
            + ">>>>>>> origin/main\n")
    result = gate(text)
    start = BASE_LINES + 1
    # One line for the conflict, at its opening marker, naming how far it runs (as `changelog rebase` does).
    refused(result, start, f"merge conflict in the changelog (3 markers, lines {start}-{start + 14}); "
                           "resolve the conflict")
    assert not result.has(start + 7, "conflict") and not result.has(start + 14, "conflict"), result.err
    assert "invalid YAML" not in result.err  # parsing is skipped, the markers are the problem


def test_a_lone_conflict_marker_is_one_line_of_its_own(gate):
    result = gate(CHANGELOG + "\n" + entry() + "=======\n")
    refused(result, BASE_LINES + 7, "merge-conflict marker in the changelog; resolve the conflict")
    assert len([x for x in result.err.splitlines() if "conflict" in x]) == 1, result.err


# --------------------------------------------------------------------------- strict YAML

HANG_S = 30  # a guard against a hang on a loaded host, not a speed goal (those live in tests/bench)


def test_alias_bomb_is_refused_fast(gate):
    levels = "".join(f"    - &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]\n" for i in range(1, 40))
    bomb = ("- config-keys:\n    - &l0 [x, x, x, x, x, x, x, x, x]\n" + levels
            + "  description:\n    - \"boom\"\n  pr-link: https://github.com/acme/bench/pull/5\n")
    start = time.perf_counter()
    result = gate(CHANGELOG + "\n" + bomb)
    assert time.perf_counter() - start < HANG_S  # expanded, 9**40 nodes would never end
    refused(result, FIRST + 1, "anchors")
    assert result.has(FIRST + 2, "aliases")


def test_anchor_and_alias(gate):
    text = CHANGELOG + "\n" + entry(keys=["&k dsr1-fp4-b300-vllm"]) + "\n" + entry(keys=["*k"])
    result = gate(text)
    refused(result, FIRST + 1, "anchors")
    assert result.has(FIRST + 7, "aliases")


def test_tag(gate):
    result = gate(CHANGELOG + "\n" + entry(description='!!str "tagged"'))
    refused(result, FIRST + 3, "tags")


def test_merge_key(gate):
    result = gate(CHANGELOG + "\n" + entry(extra="  <<: {evals-only: true}\n"))
    refused(result, FIRST + 4, "merge keys")


def test_a_yaml_1_1_boolean_is_refused_s46e(gate):
    """`evals-only: yes` passed the gate (s46e): PyYAML, and so the gate and the reference, read it as true, while a
    YAML 1.2 reader (the editor's check against the schema the file's `$schema` line names) reads the text 'yes'. The
    rules say a flag is `true` or `false`; every such spelling is refused where it stands, and quoted it is text."""
    for word in ("yes", "No", "ON", "off"):
        result = gate(CHANGELOG + "\n" + entry(extra=f"  evals-only: {word}\n"))
        refused(result, FIRST + 4, f"'{word}' is a boolean only to YAML 1.1")
        assert re.search(r"^perf-changelog\.yaml:\d+:15: ", result.err, re.M), result.err
        assert "write true or false" in result.err, result.err
    result = gate(CHANGELOG + "\n" + entry(description="yes"))
    refused(result, FIRST + 3, "'yes' is a boolean only to YAML 1.1")
    ok(gate(CHANGELOG + "\n" + entry(description="'yes'", extra="  evals-only: true\n")))


def test_duplicate_key(gate):
    result = gate(CHANGELOG + "\n" + entry(extra="  description:\n    - \"again\"\n"))
    refused(result, FIRST + 4, "appears twice")


def test_yaml_syntax_error(gate):
    result = gate(CHANGELOG + "\n" + entry(description='"unterminated'))
    assert result.rc == 1 and result.lines() and "invalid YAML" in result.err


def test_a_config_key_listed_twice_in_an_appended_entry(gate):
    """Review: the gate accepted an entry listing a key twice without a word (the matrix step reads
    it once, as the reference does; no history entry repeats one, and history is never re-read)."""
    result = gate(CHANGELOG + "\n" + entry(keys=("dsr1-fp4-b300-vllm", "kimik3-*", "dsr1-fp4-b300-vllm")))
    refused(result, FIRST + 3, "config key 'dsr1-fp4-b300-vllm' is listed twice in this entry (first at line "
            f"{FIRST + 1}); delete this line; list each config key once")
    assert result.lines() == [FIRST + 3], result.err
    flow = entry().replace("- config-keys:\n    - dsr1-fp4-b300-vllm\n",
                           "- config-keys: [dsr1-fp4-b300-vllm, dsr1-fp4-b300-vllm]\n")
    result = gate(CHANGELOG + "\n" + flow)
    refused(result, FIRST, "listed twice in this entry (first at column 17); remove the second 'dsr1-fp4-b300-vllm'")
    ok(gate(CHANGELOG + "\n" + entry(keys=("dsr1-fp4-b300-vllm", "kimik3-*"))))  # each fix, followed


def test_a_config_key_the_entry_s_wildcard_also_names(gate):
    """A key listed beside a wildcard of the same entry that names it is listed twice in other words
    (a known leftover: the gate said nothing)."""
    result = gate(CHANGELOG + "\n" + entry(keys=("dsr1-fp4-*", "kimik3-*", "dsr1-fp4-b300-vllm")))
    refused(result, FIRST + 3, "config key 'dsr1-fp4-b300-vllm' is also named by the wildcard 'dsr1-fp4-*' of this "
            f"entry (line {FIRST + 1}); delete this line, or the wildcard")
    assert result.lines() == [FIRST + 3], result.err
    ok(gate(CHANGELOG + "\n" + entry(keys=("dsr1-fp4-*", "kimik3-*"))))


def test_a_key_a_wildcard_names_in_a_flow_list_is_removed_from_the_list_not_its_line(gate):
    """Review: in `config-keys: [dsr1-fp4-*, dsr1-fp4-b300-vllm]` the hint said "delete this line", the
    line holding the wildcard too; and a key also listed twice was said twice at the same place."""
    flow = entry().replace("- config-keys:\n    - dsr1-fp4-b300-vllm\n",
                           "- config-keys: [dsr1-fp4-*, dsr1-fp4-b300-vllm]\n")
    result = gate(CHANGELOG + "\n" + flow)
    refused(result, FIRST, "config key 'dsr1-fp4-b300-vllm' is also named by the wildcard 'dsr1-fp4-*' of this "
            "entry (column 17); remove 'dsr1-fp4-b300-vllm' from the list, or the wildcard")
    assert "delete this line" not in result.err, result.err
    result = gate(CHANGELOG + "\n" + entry(keys=("dsr1-fp4-b300-vllm", "dsr1-fp4-*", "dsr1-fp4-b300-vllm")))
    assert result.lines() == [FIRST + 1, FIRST + 3], result.err  # once each: the wildcard's, the repeat's
    assert result.has(FIRST + 1, "also named by the wildcard") and result.has(FIRST + 3, "listed twice"), result.err


# --------------------------------------------------------------------------- history

def test_mid_file_insertion_reported_at_head_line(gate):
    first, second = CHANGELOG.split("\n\n", 1)
    result = gate(first + "\n\n" + entry() + "\n" + second)
    refused(result, 7, "inserted inside the history")


INSERTED_HINT = "; new entries go at the end of the file, after one empty line"
REBASE_MOVES = ": `sweepgate changelog rebase` moves these lines there"


def test_an_inserted_whole_entry_is_told_that_changelog_rebase_moves_it(gate, repo, capsys):
    """hints27: `changelog rebase` moves a whole entry a branch inserted inside the history to the end,
    but the gate (and so the pre-commit hook) only said where new entries go. It names the command
    now, and what it says is so: the rebase it names is run and the gate then passes."""
    first, second = CHANGELOG.split("\n\n", 1)
    inserted = first + "\n\n" + entry() + "\n" + second
    result = gate(inserted)
    (line,) = [x for x in result.err.splitlines() if "inserted inside the history" in x]
    assert line.startswith("perf-changelog.yaml:7: lines 7-11 inserted inside the history"), line  # msgs28: not 7-12
    assert line.endswith(INSERTED_HINT + REBASE_MOVES), line
    # the pre-commit hook's mode (the working tree against the merge-base with main) says the same
    repo.git("reset", "-q", "--hard", repo.base)
    repo.write("perf-changelog.yaml", inserted)
    assert cli.main(["validate", "--staged"]) == 1
    (line,) = [x for x in capsys.readouterr().err.splitlines() if "inserted inside the history" in x]
    assert line.endswith(INSERTED_HINT + REBASE_MOVES), line
    assert cli.main(["changelog", "rebase", "--onto", "main"]) == 0
    assert repo.read().decode() == CHANGELOG + "\n" + entry()
    assert cli.main(["validate", "--staged"]) == 0, capsys.readouterr().err


@pytest.mark.parametrize("entries", [1, 2])
def test_the_gate_names_an_inserted_entry_s_lines_as_changelog_rebase_names_them(gate, repo, capsys, entries):
    """msgs28: an entry inserted mid-history was "lines 7-12 inserted inside the history" at the gate, the
    empty line after it counted in, and "entry at lines 7-11" at the `changelog rebase` the gate's hint
    sends the author to. Both name the entry's own lines (one helper, core.history.text_span)."""
    first, second = CHANGELOG.split("\n\n", 1)
    block = "\n".join([entry(), entry(["kimik3-*"])][:entries])
    inserted = first + "\n\n" + block + "\n" + second
    result = gate(inserted)
    (line,) = [x for x in result.err.splitlines() if "inserted inside the history" in x]
    span = "lines 7-11" if entries == 1 else "lines 7-17"
    assert line.startswith(f"perf-changelog.yaml:7: {span} inserted inside the history"), line
    repo.git("reset", "-q", "--hard", repo.base)
    repo.write("perf-changelog.yaml", inserted)
    assert cli.main(["changelog", "rebase", "--onto", "main"]) == 0
    moved = capsys.readouterr().out.splitlines()[0]
    what = "entry" if entries == 1 else "2 entries"
    assert moved == f"perf-changelog.yaml: moved this branch's {what} at {span} inside the history to the end", moved


@pytest.mark.parametrize("change", ["into an entry", "and a history edit", "with a conflict marker"])
def test_an_insertion_rebase_would_refuse_keeps_the_plain_hint(gate, change):
    """hints27: lines inserted into one of history's entries (or a whole entry inserted by a change
    that also edits history, or one a conflict marker follows) are refused by `changelog rebase`
    too: the hint does not send the author there."""
    first, second = CHANGELOG.split("\n\n", 1)
    if change == "into an entry":
        text = CHANGELOG.replace("    - dsr1-fp4-b300-vllm\n", "    - dsr1-fp4-b300-vllm\n    - dsr1-fp4-b300-sglang\n", 1)
    elif change == "and a history edit":
        text = (first + "\n\n" + entry() + "\n" + second).replace("Initial Kimi-K3", "First Kimi-K3")
    else:
        text = first + "\n\n" + entry() + "=======\n\n" + second
    result = gate(text)
    (line,) = [x for x in result.err.splitlines() if "inserted inside the history" in x]
    assert line.endswith(INSERTED_HINT), line
    assert "changelog rebase" not in line, line


@pytest.mark.parametrize("appended_too", [False, True])
def test_an_entry_inserted_mid_history_has_its_own_problems_reported_with_the_insertion(gate, appended_too):
    """Audit: a PR that inserted an entry mid-file (and appended another) was told only of the
    insertion; its unknown config key came up after the entry was moved, one problem at a time."""
    first, second = CHANGELOG.split("\n\n", 1)
    text = first + "\n\n" + entry(keys=("dsr1-fp4-b300-vlm",)) + "\n" + second
    result = gate(text + ("\n" + entry() if appended_too else ""))
    refused(result, 7, "inserted inside the history")
    assert result.has(8, "config key 'dsr1-fp4-b300-vlm' is not in any master config"), result.err


@pytest.mark.parametrize("appended_too", [False, True])
def test_swapped_history_entries_are_not_read_as_entries(gate, repo, appended_too):
    """Review: two history entries swapped on a branch with its own entry gave, besides the
    insertion and the deletion, 'config key ... is not in any master config' at the moved entry's
    history lines (a config long gone): only appended (or truly new inserted) entries are checked."""
    gone = entry(keys=("gone-fp4-b300-vllm",), link="https://github.com/acme/bench/pull/3", description='"Gone"')
    last = entry(keys=("dsr1-fp4-b300-sglang",), link="https://github.com/acme/bench/pull/4", description='"SGL"')
    first, second = CHANGELOG.split("\n\n", 1)
    base = repo.commit_changelog(CHANGELOG + "\n" + gone + "\n" + last)
    swapped = first + "\n\n" + gone + "\n" + second + "\n" + last
    result = gate(swapped + ("\n" + entry(["kimik3-*"], description='"Own"') if appended_too else ""), base=base)
    assert result.rc == 1 and len(result.lines()) == 2, result.err
    assert "inserted inside the history" in result.err and "deleted" in result.err, result.err
    assert "config key" not in result.err and "pr-link" not in result.err, result.err


def test_an_inserted_entry_cut_from_a_history_entry_is_still_checked(gate, repo):
    """Diff review: an inserted block matching only the first lines of a longer history entry was
    taken for moved history, so its schema went unchecked (the insertion itself still refused)."""
    gone = entry(keys=("dsr1-fp4-b300-sglang",), link="https://github.com/acme/bench/pull/3", description='"SGL"')
    base = repo.commit_changelog(CHANGELOG + "\n" + gone)
    first, second = CHANGELOG.split("\n\n", 1)
    cut = "- config-keys:\n    - dsr1-fp4-b300-sglang\n"  # the first two lines of `gone`
    assert gone.startswith(cut)
    result = gate(first + "\n\n" + cut + "\n" + second + "\n" + gone, base=base)
    assert result.rc == 1 and "inserted inside the history" in result.err, result.err
    assert "'description' is a required property" in result.err, result.err


def test_edited_history_line_reported_at_base_line(gate):
    text = CHANGELOG.replace('"Initial Kimi-K3 agentic recipe"', '"Initial Kimi-K3 agentic recipe (edited)"')
    result = gate(text + "\n" + entry())
    refused(result, 12, "history line 12 edited")
    assert result.lines() == [12]


def test_a_long_line_edited_near_its_end_shows_the_stretch_that_changed(gate, repo):
    """New-user review: a description edited past its 70th character read as two identical
    excerpts ('...[1, 4, ...' became '...[1, 4, ...')."""
    long = "Replace the TP8 concurrency list [1, 4, 8, 16, 24] with [1, 4, 8] after dropping 24"
    base = CHANGELOG.replace('"Initial Kimi-K3 agentic recipe"', f'"{long}"')
    result = gate(base.replace("dropping 24", "removing 24") + "\n" + entry(), base=repo.commit_changelog(base))
    refused(result, 12, "history line 12 edited")
    message = next(line for line in result.err.splitlines() if "history line 12 edited" in line)
    assert "after dropping 24" in message and "after removing 24" in message, message


def test_a_branch_behind_its_base_is_told_so_not_only_blamed_for_edits(repo, capsys):
    """New-user review: on a branch behind main, `validate --base-ref main` said "history line
    N edited ... restore it byte for byte" about main's own new entry; the author edited nothing."""
    moved = repo.commit_changelog(CHANGELOG + "\n" + entry(description='"main moved"'))
    repo.git("checkout", "-q", repo.base)
    head = repo.commit_changelog(CHANGELOG + "\n" + entry(description='"my change"'))
    assert cli.main(["validate", "--base-ref", moved, "--head-ref", head]) == 1
    err = capsys.readouterr().err
    assert "history line" in err and "edited" in err, err
    (line,) = [x for x in err.splitlines() if "[base-moved]" in x or "has commits this change is not based on" in x]
    assert f"changelog rebase --onto {moved}" in line and "git merge-base" in line, line
    # newuser24: `changelog rebase --onto` alone left main's new entries naming configs the branch lacked;
    # the branch itself is brought up to date first, the changelog rebuilt where it conflicts
    assert f"git rebase {moved};" in line and "--branch REBASE_HEAD" in line, line


def test_a_shallow_clone_is_not_told_its_base_moved(repo, capsys, tmp_path, monkeypatch):
    """Review: in a depth-1 CI clone (base fetched at depth 1 too) a PR that edits history was also
    told "main has commits this change is not based on", with a git merge-base fix that fails there:
    the cut history hides the ancestry, it does not disprove it."""
    repo.git("checkout", "-q", "-b", "edit")
    repo.commit_changelog(CHANGELOG.replace("Initial Kimi-K3 agentic recipe", "Initial Kimi-K3 recipe")
                          + "\n" + entry())
    shallow = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "1", "-b", "edit", f"file://{repo.path}", str(shallow)],
                   check=True)
    subprocess.run(["git", "-C", str(shallow), "fetch", "-q", "--depth", "1", "origin",
                    "main:refs/remotes/origin/main"], check=True)
    monkeypatch.chdir(shallow)
    assert cli.main(["validate", "--base-ref", "origin/main", "--head-ref", "HEAD"]) == 1
    err = capsys.readouterr().err
    assert "edited" in err and "not based on" not in err and "merge-base" not in err, err
    # the edits may be the base's: say so, with a fix that works in this clone (diff review)
    assert "this clone is shallow" in err and "fetch-depth: 0" in err, err


def test_edit_reported_at_its_head_line_and_named_by_its_base_line(gate):
    """Two lines inserted above the edit: it is reported at the line the author's file (and a PR's
    annotation) has it on, 14, and still named history line 12. Review: the prefix gave the base's
    line, which in a real PR pointed 40 lines away and sorted problems out of order."""
    text = CHANGELOG.replace("  pr-link: https://github.com/acme/bench/pull/1\n",
                             "  pr-link: https://github.com/acme/bench/pull/1\n# note\n# note\n")
    text = text.replace('"Initial Kimi-K3 agentic recipe"', '"Changed"')
    result = gate(text)
    refused(result, 6, "inserted inside the history")
    assert result.has(14, "history line 12 edited: ") and "(now at line 14)" in result.err, result.err
    lines = [int(x.split(":")[1]) for x in result.err.splitlines() if re.match(r"perf-changelog\.yaml:\d+:", x)]
    assert lines == sorted(lines)


def test_deleted_entry_reported_at_base_line(gate):
    first, second = CHANGELOG.split("\n\n", 1)
    result = gate(second)
    refused(result, 1, "history lines 1-6 deleted")


def test_deleted_last_entry(gate):
    first, _ = CHANGELOG.split("\n\n", 1)
    result = gate(first + "\n")
    refused(result, 5, "history lines 6-13 deleted")  # at the head's last line, which they followed
    assert "(they followed line 5 here)" in result.err
    # the block starts at the blank line before the entry: said so, and the entry's first line quoted
    assert "starting with a blank line, then '- config-keys:'" in result.err and "''" not in result.err, result.err


def test_appending_to_last_history_entry(gate):
    result = gate(CHANGELOG + "  evals-only: true\n")
    refused(result, BASE_LINES + 1, "does not start a new entry")


def test_missing_separator(gate):
    result = gate(CHANGELOG + entry())
    refused(result, BASE_LINES + 1, "no empty line between this entry and line 13")


def test_doubled_separator(gate):
    result = gate(CHANGELOG + "\n\n" + entry())
    refused(result, BASE_LINES + 2, "2 empty lines between entries")


def test_blank_lines_main_already_ends_with_are_history(gate, repo):
    """A main whose changelog already ends with two empty lines cannot be mended by a PR (history
    is byte-exact): an entry appended right after them passes, one more empty line is refused."""
    base = repo.commit_changelog(CHANGELOG + "\n\n")
    ok(gate(CHANGELOG + "\n\n" + entry(), base=base))
    refused(gate(CHANGELOG + "\n\n\n" + entry(), base=base), BASE_LINES + 3, "3 empty lines between entries")


def test_separator_between_new_entries(gate):
    result = gate(CHANGELOG + "\n" + entry() + entry(["kimik3-*"]))
    refused(result, FIRST + 5, "no empty line between this entry")
    result = gate(CHANGELOG + "\n" + entry() + "\n\n" + entry(["kimik3-*"]))
    refused(result, FIRST + 6, "2 empty lines")


def test_whitespace_only_separator(gate):
    result = gate(CHANGELOG + "  \n" + entry())
    refused(result, BASE_LINES + 1, "only whitespace")


def test_empty_line_inside_entry(gate):
    result = gate(CHANGELOG + "\n" + entry().replace("  pr-link", "\n  pr-link"))
    refused(result, FIRST + 4, "empty line inside an entry")


@pytest.mark.parametrize("start", [" - config-keys:", "config-keys:", "  config-keys:"])
def test_second_entry_not_at_column_1(gate, start):
    """A second appended entry that does not start with '- ' at column 1 gets the first entry's
    diagnosis (it is no entry), not 'empty line inside an entry', whose fix left invalid YAML
    (review: on a branch with one committed entry, ' - config-keys:' read as an empty line)."""
    second = FIRST + 6
    bad = entry(["kimik3-*"]).replace("- config-keys:", start, 1)
    result = gate(CHANGELOG + "\n" + entry() + "\n" + bad)
    refused(result, second, "appended text does not start a new entry; it continues the entry ending at "
            f"line {FIRST + 4}; start a new entry with '- config-keys:' at column 1, after one empty line")
    assert "empty line inside an entry" not in result.err, result.err
    ok(gate(CHANGELOG + "\n" + entry() + "\n" + bad.replace(start, "- config-keys:", 1)))  # the fix, literally


def test_config_keys_inside_an_entry_is_its_own_key_in_any_order(gate):
    """New-user review: an entry naming description before config-keys (valid YAML, the matrix step
    reads it) was refused "appended text does not start a new entry", and a config-keys named twice in
    one entry got that wrong line beside the duplicate-key one. Inside an entry (no empty line
    before it) config-keys is the entry's key: in any order it passes, twice it is one line."""
    reordered = ('- description:\n    - "Bump the vLLM image"\n  config-keys:\n    - dsr1-fp4-b300-vllm\n'
                 "  pr-link: https://github.com/acme/bench/pull/5\n")
    ok(gate(CHANGELOG + "\n" + reordered))
    twice = entry(extra="  config-keys:\n    - kimik3-*\n")
    result = gate(CHANGELOG + "\n" + twice)
    assert result.rc == 1 and "does not start a new entry" not in result.err, result.err
    refused(result, FIRST + 4, "key 'config-keys' appears twice in one mapping (first at line 15)")


# --------------------------------------------------------------------------- pr-link

def test_pr_link_to_other_repository(gate):
    result = gate(CHANGELOG + "\n" + entry(link="https://github.com/evil/fork/pull/5"))
    refused(result, FIRST + 4, "points to evil/fork, not to this repository (acme/bench)")


def test_repository_flag_and_env(gate, monkeypatch):
    text = CHANGELOG + "\n" + entry()
    refused(gate(text, "--repository", "other/repo"), FIRST + 4, "not to this repository (other/repo)")
    monkeypatch.setenv("GITHUB_REPOSITORY", "env/repo")
    refused(gate(text), FIRST + 4, "not to this repository (env/repo)")
    ok(gate(text, "--repository", "acme/bench"))  # the flag wins over the environment


def test_a_missing_pr_link_is_shown_as_the_line_to_add(gate):
    """s43h: an entry without a pr-link was told "add the missing field", which showed no line to add. The line is
    of this repository (the history's links, --repository) and, where it is known, of this pull request."""
    text = CHANGELOG + "\n" + entry().replace("  pr-link: https://github.com/acme/bench/pull/5\n", "")
    result = gate(text)
    refused(result, FIRST, "'pr-link' is a required property")
    assert result.err.rstrip().endswith("; add the line 'pr-link: https://github.com/acme/bench/pull/N' (N: its pull "
                                        "request's number)"), result.err
    assert gate(text, "--pr-number", "5").err.rstrip().endswith("; add the line 'pr-link: "
                                                                 "https://github.com/acme/bench/pull/5'")


def test_placeholder_without_pr_number(gate):
    result = gate(CHANGELOG + "\n" + entry(link="https://github.com/acme/bench/pull/XXX"))
    refused(result, FIRST + 4, "XXX placeholder")


def test_pr_link_to_another_pr(gate):
    result = gate(CHANGELOG + "\n" + entry(link="https://github.com/acme/bench/pull/6"), "--pr-number", "5")
    refused(result, FIRST + 4, "points to PR #6, but this is PR #5")


@pytest.mark.parametrize("link", ["https://github.com/acme/bench/pull/5/", "http://github.com/acme/bench/pull/5",
                                  "https://github.com/acme/bench/pull/5/files", "https://github.com/acme/bench/pull/05",
                                  "see PR 5", "https://github.com/acme/bench/issues/5",
                                  '"https://github.com/acme/bench/pull/5\\n"'])  # a newline after the number
def test_non_canonical_pr_link(gate, link):
    result = gate(CHANGELOG + "\n" + entry(link=link))
    refused(result, FIRST + 4, "pr-link")


def test_pr_link_correction_alone_passes(repo, gate):
    broken = CHANGELOG.replace("pull/2\n", "pull/2/files\n")
    repo.base = repo.commit_changelog(broken)
    result = gate(CHANGELOG)
    ok(result)
    assert "ok (corrects the pr-link of history line 13, nothing to run)" in result.out, result.out


def test_a_pr_link_correction_passes_the_gate_and_the_workflows_skip_the_matrix(repo, gate, capsys, tmp_path,
                                                                                monkeypatch):
    """The gate accepts a merged pr-link correction and tells the workflows there is nothing to
    run (`matrix=false`), so they skip the matrix step. That step refuses it on its own, as the
    reference does (differential review: it printed an empty matrix where the reference exited 1
    on the deleted line)."""
    repo.base = repo.commit_changelog(CHANGELOG.replace("pull/2\n", "pull/2/files\n"))
    ok(gate(CHANGELOG))
    outputs = tmp_path / "github_output"
    monkeypatch.setenv("GITHUB_OUTPUT", str(outputs))
    assert cli.main(["validate", "--base-ref", repo.base, "--head-ref", "HEAD", "--github-output"]) == 0
    assert "matrix=false" in outputs.read_text() and "entries=0" in outputs.read_text()
    capsys.readouterr()
    rc = cli.main(["matrix", "--base-ref", repo.base, "--head-ref", "HEAD"])
    out, err = capsys.readouterr()
    assert rc == 1 and out == "", out
    assert "appends no entry; it corrects the pr-link of history line 13;" in err, err
    # what the gate refuses, the matrix step still refuses
    assert gate(CHANGELOG.replace("pull/2\n", "pull/3/files\n")).rc == 1
    assert cli.main(["matrix", "--base-ref", repo.base, "--head-ref", "HEAD"]) == 1
    err = capsys.readouterr().err
    assert "history line" in err and " edited: " in err  # as the gate words it (core.history)


def test_pr_link_correction_to_non_canonical_link_fails(repo, gate):
    repo.base = repo.commit_changelog(CHANGELOG.replace("pull/2\n", "pull/2/files\n"))
    result = gate(CHANGELOG.replace("pull/2\n", "pull/3/files\n"))
    refused(result, 13, "history line 13 edited")


def test_pr_link_correction_mixed_with_append_fails(repo, gate):
    repo.base = repo.commit_changelog(CHANGELOG.replace("pull/1\n", "pull/XXX\n"))
    result = gate(CHANGELOG + "\n" + entry())
    refused(result, 5, "this change corrects the pr-link of history line 5 and appends entries")


# --------------------------------------------------------------------------- entries and the matrix step

def test_unknown_key_with_suggestion(gate):
    result = gate(CHANGELOG + "\n" + entry(["dsr1-fp4-b300-vlm"]))
    refused(result, FIRST + 1, "config key 'dsr1-fp4-b300-vlm' is not in any master config; did you mean "
                               "dsr1-fp4-b300-vllm")


def test_wildcard_matching_nothing(gate):
    result = gate(CHANGELOG + "\n" + entry(["llama*"]))
    refused(result, FIRST + 1, "wildcard 'llama*' matches no config key")


def test_mistyped_wildcard_with_suggestion(gate):
    result = gate(CHANGELOG + "\n" + entry(["dsr1-fp4-*-vllmm"]))
    refused(result, FIRST + 1, "wildcard 'dsr1-fp4-*-vllmm' matches no config key; did you mean 'dsr1-fp4-*-vllm', "
                               "which matches dsr1-fp4-b300-vllm?")


def test_extra_field(gate):
    result = gate(CHANGELOG + "\n" + entry(extra="  reviewer: me\n"))
    refused(result, FIRST + 4, "unknown field 'reviewer'")
    assert "remove it or fix the spelling" in result.err and "did you mean" not in result.err


def test_a_misspelt_field_is_named_as_meant(gate):
    """New-user review: `descripton` got no "did you mean", though a mistyped config key does."""
    result = gate(CHANGELOG + "\n" + entry(extra="  scenario_type:\n    - agentic-coding\n"))
    refused(result, FIRST + 4, "unknown field 'scenario_type'; did you mean 'scenario-type'?")


def test_scenario_type_typo(gate):
    result = gate(CHANGELOG + "\n" + entry(extra="  scenario-type:\n    - fixed-seqlen\n"))
    refused(result, FIRST + 5, "fixed-seqlen")


def test_empty_description_and_keys(gate):
    text = CHANGELOG + "\n- config-keys: []\n  description: []\n  pr-link: https://github.com/acme/bench/pull/5\n"
    result = gate(text)
    refused(result, FIRST, "config-keys")
    assert result.has(FIRST + 1, "description")


def test_every_problem_is_reported(gate):
    text = CHANGELOG + "\n" + entry(["dsr1-fp4-b300-vlm"], link="https://github.com/x/y/pull/XXX",
                                    extra="  bogus: 1\n") + "\n"
    result = gate(text)
    assert result.rc == 1
    for line, fragment in [(FIRST + 1, "dsr1-fp4-b300-vlm"), (FIRST + 4, "bogus"), (FIRST + 5, "pr-link"),
                           (FIRST + 6, "ends with 2 newlines")]:
        assert result.has(line, fragment), (line, fragment, result.err)


def test_invalid_config_at_head_is_refused(repo, gate):
    from conftest import FLEET_NVIDIA
    repo.commit({"configs/nvidia-master.yaml": FLEET_NVIDIA.replace("conc-end: 16", "conc-end: 2")})
    result = gate(CHANGELOG + "\n" + entry())
    assert result.rc == 1
    assert re.search(r"^configs/nvidia-master\.yaml:\d+:\d+: .*conc-start", result.err, re.M), result.err


def test_append_only_new_config_is_refused_by_matrix_step(gate):
    result = gate(CHANGELOG + "\n" + entry(extra="  append-only: true\n"))
    assert result.rc == 1 and "append-only" in result.err


def test_github_actions_annotations(gate, monkeypatch):
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    result = gate(CHANGELOG + entry(["dsr1-fp4-b300-vlm"]))
    assert result.rc == 1
    # on stderr: stdout is data a workflow may redirect (the runner reads commands from both)
    # exactly CONTRACTS §2's `::error file=perf-changelog.yaml,line=LINE::...` (no col or title between)
    assert f"::error file=perf-changelog.yaml,line={BASE_LINES + 1}::" in result.err
    assert f"::error file=perf-changelog.yaml,line={BASE_LINES + 2}::" in result.err
    assert "::error" not in result.out


def test_an_annotation_names_a_file_only_where_there_is_one(repo, capsys, monkeypatch):
    """A bad ref is at 'git', not in a file: GitHub gets the location in the text, no file=git."""
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    assert cli.main(["validate", "--base-ref", "nope", "--head-ref", "HEAD"]) == 1
    (annotation,) = [line for line in capsys.readouterr().err.splitlines() if line.startswith("::")]
    assert annotation.startswith("::error title=git-ref::git: 'nope' is not a commit"), annotation


def test_a_file_whose_name_has_a_space_is_still_a_file(tmp_path, monkeypatch):
    from sweepgate.core.errors import Diagnostic

    monkeypatch.chdir(tmp_path)
    (tmp_path / "my log.yaml").write_text("x\n")
    assert Diagnostic("my log.yaml", 3, 1, "r", "m").annotation() == "::error file=my log.yaml,line=3::m"
    assert Diagnostic("--window", 0, 0, "usage", "m").annotation() == "::error title=usage::--window: m"


def test_an_annotation_says_its_level_once(tmp_path, monkeypatch):
    """Leftover: a warning whose message starts "warning: " (as its text line shows it) was annotated
    `::warning file=...::warning: model: ...`. The annotation's command is its level; the text line keeps
    the word, and a message naming another level than its own keeps that."""
    from sweepgate.core.errors import Diagnostic

    monkeypatch.chdir(tmp_path)
    (tmp_path / "my log.yaml").write_text("x\n")
    said = Diagnostic("my log.yaml", 3, 1, "r", "warning: model: m", "fix", severity="warning")
    assert said.annotation() == "::warning file=my log.yaml,line=3::model: m; fix"
    assert said.render() == "my log.yaml:3:1: warning: model: m; fix"
    assert Diagnostic("--x", 0, 0, "r", "warning: m", severity="warning").annotation() == "::warning title=r::--x: m"
    assert Diagnostic("a.yaml", 1, 0, "r", "error: m").annotation() == "::error file=a.yaml,line=1::m"
    assert Diagnostic("a.yaml", 1, 0, "r", "warning: m").annotation() == "::error file=a.yaml,line=1::warning: m"


def test_missing_changelog_at_head(repo, capsys):
    repo.git("rm", "-q", "perf-changelog.yaml")
    head = repo.commit()
    assert cli.main(["validate", "--base-ref", repo.base, "--head-ref", head]) == 1
    # msgs27: was "perf-changelog.yaml: perf-changelog.yaml does not exist" (the path twice)
    assert "perf-changelog.yaml: does not exist at " in capsys.readouterr().err


def test_a_changelog_path_that_never_existed_is_a_wrong_path_not_a_deletion(repo, capsys):
    """Review: a mistyped --changelog-file was told to "restore the changelog; it is append-only".
    (An empty --changelog-file is argument syntax, exit 2: tests/test_argument_syntax.py.)"""
    assert cli.main(["validate", "--base-ref", repo.base, "--head-ref", "HEAD", "--changelog-file", "nope.yaml"]) == 1
    (line,) = capsys.readouterr().err.strip().splitlines()
    # msgs27: was "nope.yaml: no changelog 'nope.yaml' at the base or at ..." (the path twice)
    assert line.startswith("nope.yaml: not a file at the base or at ") and line.count("nope.yaml") == 1, line
    assert "check --changelog-file: a path from the current folder or the repository's top" in line, line
    assert "restore" not in line


@pytest.mark.parametrize("replace, said", [
    ('    - "Bump"', "description[0]: is a mapping ('Bump: ...'), not text: YAML read the ': ' in it as a key "
                   "and a value; put the whole text in quotes"),
    ("  pr-link: https://github.com/acme/bench/pull/5", "pr-link: has no value; write the value after the colon"),
    ('    - "Bump"', "description[0]: has no text; write it after the '- ', in quotes"),  # diff review
])
def test_text_yaml_read_as_something_else_says_what_happened(repo, capsys, replace, said):
    """Review: `- Bump: image to v2` was "{'Bump': 'image to v2'} is not of type 'string'; use a value of
    type string", and `pr-link: #5` was "None is not of type 'string'"."""
    slip = ("    - #42 regression" if "has no text" in said else "    - Bump: image to v2" if "Bump" in replace
            else "  pr-link: #5")
    with_slip = appended_entry("5").replace(replace, slip)
    head = repo.commit_changelog(CHANGELOG + with_slip)
    assert cli.main(["validate", "--base-ref", repo.base, "--head-ref", head]) == 1
    err = capsys.readouterr().err
    assert said in err and "of type" not in err and "None" not in err, err


@pytest.mark.parametrize("argv", [["--base-ref", "", "--head-ref", "HEAD"], ["--base-ref", "HEAD", "--head-ref", " "],
                                  ["--staged", "--base-ref", ""]])
def test_an_empty_ref_is_an_empty_value_not_a_missing_flag(repo, capsys, argv):
    """Bad-input review: `validate --base-ref ''` said the flag was required. s42d: it then said "git: '' is not
    a commit ... (fetch it first in CI)", exit 1, where matrix, plan and preflight say the value is empty, exit 2:
    README's `base=$(git merge-base main HEAD)` leaves it empty in a clone without a local main."""
    with pytest.raises(SystemExit) as info:
        cli.main(["validate", *argv])
    assert info.value.code == 2
    err = capsys.readouterr().err
    empty = next(flag for flag, value in zip(argv, argv[1:]) if not value.strip())
    assert err.rstrip().endswith(f"argument {empty}: empty value (is a variable in the command unset?)"), err


def test_bad_ref_is_a_diagnostic(repo, capsys):
    assert cli.main(["validate", "--base-ref", "nope", "--head-ref", "HEAD"]) == 1
    err = capsys.readouterr().err
    assert "'nope' is not a commit" in err and "Traceback" not in err


@pytest.mark.parametrize("ref", ["-x", "--all", "--git-dir"])
@pytest.mark.parametrize("side", ["--base-ref", "--head-ref"])
def test_a_ref_that_reads_as_a_git_option_is_not_a_commit(repo, capsys, ref, side):
    """Review: `--base-ref=-x` was echoed back by rev-parse and taken for a commit: the whole
    history was checked as if newly appended (42 problems on old lines)."""
    other = "--head-ref" if side == "--base-ref" else "--base-ref"
    assert cli.main(["validate", f"{side}={ref}", other, "HEAD"]) == 1
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"git: '{ref}' is not a commit in "), line


# --------------------------------------------------------------------------- --staged (pre-commit)

def test_staged_checks_the_working_tree(repo, capsys):
    repo.write("perf-changelog.yaml", CHANGELOG + "\n" + entry(link="https://github.com/acme/bench/pull/XXX"))
    assert cli.main(["validate", "--staged"]) == 0
    repo.write("perf-changelog.yaml", CHANGELOG + entry(["dsr1-fp4-b300-vlm"]))
    assert cli.main(["validate", "--staged"]) == 1
    err = capsys.readouterr().err
    assert f"perf-changelog.yaml:{BASE_LINES + 1}: no empty line" in err
    assert f"perf-changelog.yaml:{BASE_LINES + 2}:7: config key 'dsr1-fp4-b300-vlm'" in err


def test_staged_says_where_an_unread_key_is_even_before_it_is_committed(repo, capsys):
    """Diff review: the "defined at ..., which this run does not read" hint was missing under --staged
    (the pre-commit path), the working tree being no commit to grep."""
    repo.write("configs/wip/exp-master.yml", "# experiments\nqwen3-fp8-b300-vllm:\n  image: x\n")
    repo.write("perf-changelog.yaml", CHANGELOG + "\n" + entry(["qwen3-fp8-b300-vllm"]))
    assert cli.main(["validate", "--staged"]) == 1
    err = capsys.readouterr().err
    assert "it is defined at configs/wip/exp-master.yml:2, which this run does not read" in err, err


@pytest.mark.parametrize("name", ["configs/x:12:y.yaml", "configs/a:b.yaml"])
def test_the_unread_file_hint_survives_a_colon_in_the_file_name(repo, capsys, name):
    """Bad-input review: `configs/x:12:y.yaml` was named "configs/x:12", its line lost."""
    repo.write(name, "# experiments\nqwen3-fp8-b300-vllm:\n  image: x\n")
    repo.write("perf-changelog.yaml", CHANGELOG + "\n" + entry(["qwen3-fp8-b300-vllm"]))
    assert cli.main(["validate", "--staged"]) == 1
    assert f"it is defined at {name}:2, which this run does not read" in capsys.readouterr().err
    head = repo.commit()
    assert cli.main(["validate", "--base-ref", repo.base, "--head-ref", head]) == 1
    assert f"it is defined at {name}:2, which this run does not read" in capsys.readouterr().err


def test_staged_uses_merge_base_with_main(repo, capsys):
    repo.git("checkout", "-q", "-b", "feature")
    repo.commit_changelog(CHANGELOG + "\n" + entry(link="https://github.com/acme/bench/pull/XXX"))
    # editing this branch's own (unmerged) entry is fine; it is not history yet
    repo.write("perf-changelog.yaml", CHANGELOG + "\n" + entry(["kimik3-*"]))
    assert cli.main(["validate", "--staged"]) == 0, capsys.readouterr().err


def test_staged_with_no_upstream_in_reach_refuses_rather_than_passing_head_s_own_entry(repo, capsys, tmp_path,
                                                                                      monkeypatch):
    """A depth-1 CI clone of a PR branch has no main: HEAD as the base passed the entry HEAD appended,
    however wrong (the install review: blank lines the full clone refuses)."""
    repo.git("checkout", "-q", "-b", "feature")
    repo.commit_changelog(CHANGELOG + "\n\n" + entry(link="https://github.com/acme/bench/pull/XXX"))
    shallow = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "1", "--branch", "feature", f"file://{repo.path}", str(shallow)],
                   check=True)
    subprocess.run(["git", "-C", str(shallow), "branch", "-r", "-D", "origin/main"], capture_output=True)
    # A PR's clone of GitHub has no origin/HEAD (the default branch is not fetched); this one's origin has feature
    # checked out, which made feature the remote's default branch (origin/HEAD), and so the base (s42j)
    subprocess.run(["git", "-C", str(shallow), "remote", "set-head", "origin", "--delete"], check=True)
    monkeypatch.chdir(shallow)
    assert cli.main(["validate", "--staged"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("--base-ref: no branch here (origin/main, main, origin/master, master) shares history"), err
    assert cli.main(["validate", "--staged", "--base-ref", "HEAD"]) == 0  # named, it is the user's choice
    # A full local repository whose only branch is trunk keeps HEAD as the base (its own commits are history).
    trunk = tmp_path / "trunk"
    subprocess.run(["git", "clone", "-q", "--branch", "feature", f"file://{repo.path}", str(trunk)], check=True)
    for cmd in (["checkout", "-q", "-b", "trunk"], ["branch", "-q", "-D", "feature"], ["remote", "remove", "origin"]):
        subprocess.run(["git", "-C", str(trunk), *cmd], check=True)
    monkeypatch.chdir(trunk)
    assert cli.main(["validate", "--staged"]) == 0, capsys.readouterr().err


def test_staged_before_a_first_commit_checks_every_entry_as_new(repo, capsys, monkeypatch):
    """Other-repository review: with the hook installed in a new repository, its first commit was
    refused with "git: 'HEAD' is not a commit ...; fetch it first in CI", whatever it held."""
    import shutil

    shutil.rmtree(repo.path / ".git")
    repo.git("init", "-q", "-b", "main")
    repo.git("add", "-A")
    monkeypatch.chdir(repo.path / "configs")
    assert cli.main(["validate", "--staged"]) == 0, capsys.readouterr().err
    assert "appended entr" in capsys.readouterr().out
    repo.write("perf-changelog.yaml", CHANGELOG + "\n" + entry(["dsr1-fp4-b300-vlm"]))
    assert cli.main(["validate", "--staged"]) == 1
    assert f"perf-changelog.yaml:{FIRST + 1}:7: config key 'dsr1-fp4-b300-vlm'" in capsys.readouterr().err
    assert subprocess.run(["git", "rev-parse", "--verify", "--quiet", "HEAD"], cwd=repo.path).returncode != 0


# --------------------------------------------------------------------------- performance

def test_large_changelog_is_fast(repo):
    # its speed is measured in tests/bench/gate_corpus.py and cold_speed.py; here only a hang fails
    big = CHANGELOG + "".join("\n" + entry(link=f"https://github.com/acme/bench/pull/{n}",
                                           description=f'"change number {n}"') for n in range(10, 1100))
    assert big.count("\n") > 6400
    repo.base = repo.commit_changelog(big)
    head = repo.commit_changelog(big + "\n" + entry())
    start = time.perf_counter()
    outcome = validate(Git("."), repo.base, head, GateOptions(run_matrix=False))
    assert time.perf_counter() - start < HANG_S
    assert outcome.ok and outcome.appended_entries == 1
    # an edit deep in a large file is found, and named by its base line, quickly too
    edited = big.replace('"change number 500"', '"change number 501"')
    head = repo.commit_changelog(edited + "\n" + entry())
    start = time.perf_counter()
    outcome = validate(Git("."), repo.base, head, GateOptions(run_matrix=False))
    assert time.perf_counter() - start < HANG_S
    line = big[:big.index('"change number 500"')].count("\n") + 1
    assert [(d.line, d.rule) for d in outcome.diagnostics] == [(line, "history-edited")]


def test_staged_checks_a_crlf_checkout_as_git_will_commit_it(repo, capsys):
    """Changelog review: with core.autocrlf=true (Git for Windows' default) the working tree holds
    CRLF while git stores LF; `validate --staged` (the pre-commit hook) refused every line of the
    untouched history as a CRLF line ending and an edit, though `git show :perf-changelog.yaml` has none."""
    text = CHANGELOG + "\n" + entry(link="https://github.com/acme/bench/pull/XXX")
    repo.write("perf-changelog.yaml", text.replace("\n", "\r\n"))
    repo.git("config", "core.autocrlf", "true")
    assert cli.main(["validate", "--staged"]) == 0, capsys.readouterr().err
    repo.git("add", "perf-changelog.yaml")
    assert "\r" not in repo.git("show", ":perf-changelog.yaml")  # what the commit will hold
    repo.git("config", "core.autocrlf", "false")  # git keeps the CRs now: they are refused, as committed
    assert cli.main(["validate", "--staged"]) == 1
    assert "carriage return (CRLF line ending)" in capsys.readouterr().err


@pytest.mark.parametrize("slip, field", [("descripton", "description"), ("Description", "description"),
                                         ("pr_link", "pr-link"), ("config-key", "config-keys")])
def test_a_misspelt_required_field_is_one_line_saying_rename_it(gate, slip, field):
    """Changelog review: `descripton:` gave two lines, "'description' is a required property; add the
    missing field" (followed literally, it still failed) and the unknown field's "did you mean"."""
    text = entry().replace(f"{field}:", f"{slip}:", 1)
    assert f"{slip}:" in text
    result = gate(CHANGELOG + "\n" + text)
    (line,) = result.err.strip().splitlines()
    assert result.rc == 1 and f"unknown field '{slip}'; rename it to '{field}', a required field" in line, line
