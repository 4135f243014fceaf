"""`sweepgate validate` checks the master configs and runners file a change edits, even
without a changelog entry, and refuses duplicate keys in the blocks that change (real git repos)."""

from __future__ import annotations

import re

import pytest
import yaml
from hypothesis import assume, given
from hypothesis import strategies as st

from conftest import CHANGELOG, FLEET_NVIDIA, ROOT, RUNNERS, appended_entry

from sweepgate import cli  # noqa: E402

NVIDIA = "configs/nvidia-master.yaml"
# FLEET_NVIDIA: the vLLM block is lines 1-13 (precision at 6, its search-space point at 13),
# an empty line 14, the SGLang block from line 15.
ENTRY = appended_entry("5")


@pytest.fixture
def repo(repo_outside_actions):
    return repo_outside_actions


def validate(repo, capsys, *flags):
    rc = cli.main(["validate", "--base-ref", repo.base, "--head-ref", repo.head(), "--pr-number", "5", *flags])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return rc, out, err


def test_broken_config_without_entry_is_refused(repo, capsys):
    repo.commit({NVIDIA: FLEET_NVIDIA.replace("{ tp: 8,", "{ tpp: 8,")})
    rc, out, err = validate(repo, capsys)
    assert rc == 1, out
    assert re.search(rf"^{NVIDIA}:14:\d+: .*unknown field 'tpp'; rename it to 'tp', a required field", err, re.M), err
    assert "'tp' is a required property" not in err, err  # the slip is said once, at its own line
    assert re.search(rf"^{NVIDIA}:14:\d+: .*unknown field 'tpp'", err, re.M), err


@pytest.mark.parametrize("bad_entry", [False, True])
def test_a_broken_config_and_an_unknown_key_are_both_named(repo, capsys, bad_entry):
    """Contract audit: with a config refused, the matrix step stopped before the entries' keys, so
    the gate (which names every problem) dropped an unknown key; with an entry the schema refuses too,
    the config problems hid the key the same way."""
    unknown = ENTRY.replace("dsr1-fp4-b300-vllm", "no-such-key")
    if bad_entry:
        unknown = unknown.replace('    - "Bump"\n', '    - "Bump"\n  evals-only: maybe\n')
    repo.commit({NVIDIA: FLEET_NVIDIA.replace("{ tp: 8,", "{ tpp: 8,"), "perf-changelog.yaml": CHANGELOG + unknown})
    rc, out, err = validate(repo, capsys)
    assert rc == 1, out
    assert re.search(rf"^{NVIDIA}:14:\d+: .*unknown field 'tpp'", err, re.M), err
    assert re.search(r"^perf-changelog\.yaml:\d+:\d+: config key 'no-such-key' is not in any master config", err,
                     re.M), err
    assert len(re.findall("no-such-key", err)) == 1, err


def test_a_byte_that_is_not_utf8_in_a_config_is_named_at_its_line_and_column(repo, capsys, monkeypatch):
    """Review: "configs/nvidia-master.yaml: not UTF-8 (invalid continuation byte at byte 29697)", no
    line (and an annotation without line=), where the changelog gets its line and column."""
    lines = FLEET_NVIDIA.encode().split(b"\n")
    lines[2] = lines[2] + b"  # caf\xe9"
    repo.commit({NVIDIA: b"\n".join(lines)})
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    rc, out, err = validate(repo, capsys)
    col = lines[2].index(b"\xe9") + 1
    assert rc == 1 and f"{NVIDIA}:3:{col}: not valid UTF-8 (byte 0xe9); save the file as UTF-8" in err, err
    assert f"::error file={NVIDIA},line=3::" in err, err


def test_a_config_key_with_a_character_keys_may_not_have_is_named_at_its_line(repo, capsys):
    """Review: `dsr1-fp4-b300-sglang+v2:` was reported at 1:1 as "(top level): ... does not match
    '^[A-Za-z0-9]...'" with the regex as the fix."""
    repo.commit({NVIDIA: FLEET_NVIDIA.replace("dsr1-fp4-b300-sglang:", "dsr1-fp4-b300-sglang+v2:")})
    rc, out, err = validate(repo, capsys)
    line = FLEET_NVIDIA.splitlines().index("dsr1-fp4-b300-sglang:") + 1
    assert rc == 1 and (f"{NVIDIA}:{line}:1: key 'dsr1-fp4-b300-sglang+v2' is not a valid name; rename it: a "
                        "config key has letters, digits, '.', '_' and '-' only") in err, err
    assert "(?!" not in err


def test_a_key_defined_in_two_master_files_is_named_at_both(repo, capsys, monkeypatch):
    """Review: a block pasted into another master file was reported only at the untouched original
    (a file not in the PR's diff, so its annotation showed nowhere), not at the block the PR added."""
    amd = (repo.path / "configs/amd-master.yaml").read_text()
    block = FLEET_NVIDIA.split("\n\n")[0]
    repo.commit({"configs/amd-master.yaml": amd.rstrip("\n") + "\n\n" + block + "\n"})
    pasted = (repo.path / "configs/amd-master.yaml").read_text().splitlines().index("dsr1-fp4-b300-vllm:") + 1
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    rc, out, err = validate(repo, capsys)
    assert rc == 1
    assert (f"configs/amd-master.yaml:{pasted}:1: config key 'dsr1-fp4-b300-vllm' is also defined in "
            f"{NVIDIA}:1;") in err, err
    assert f"{NVIDIA}:1:1: config key 'dsr1-fp4-b300-vllm' is also defined in configs/amd-master.yaml:{pasted};" in err
    assert f"::error file=configs/amd-master.yaml,line={pasted}::" in err


def test_placement_and_runners_without_entry(repo, capsys):
    repo.commit({"configs/runners.yaml": RUNNERS.replace("gpus-per-node: 8", "gpus-per-node: 4")})
    rc, _, err = validate(repo, capsys)  # the agentic config's tp 8 no longer fits one node
    assert rc == 1 and re.search(r"^configs/amd-master\.yaml:13:\d+: ", err, re.M), err


def test_clean_config_change_without_entry_passes(repo, capsys):
    repo.commit({NVIDIA: FLEET_NVIDIA.replace("conc-end: 16", "conc-end: 32")})
    rc, out, err = validate(repo, capsys)
    assert rc == 0, err
    assert "(no entry appended, nothing to run; 1 changed config file checked)" in out  # s34e: not "file(s)"


def test_the_ok_line_counts_config_files_in_words(repo, capsys):
    """s34e: the ok line read "1 changed config file(s) checked", whatever the count."""
    repo.commit({NVIDIA: FLEET_NVIDIA.replace("conc-end: 16", "conc-end: 32"),
                 "configs/runners.yaml": RUNNERS + "\n"})
    rc, out, err = validate(repo, capsys)
    assert rc == 0 and "; 2 changed config files checked)" in out, (out, err)


def test_staged_checks_working_tree_configs(repo, capsys):
    repo.write(NVIDIA, FLEET_NVIDIA.replace("{ tp: 8,", "{ tpp: 8,"))
    assert cli.main(["validate", "--staged", "--base-ref", repo.base]) == 1
    assert re.search(rf"^{NVIDIA}:14:\d+: .*unknown field 'tpp'", capsys.readouterr().err, re.M)


def test_no_change_reads_no_config(repo, capsys, monkeypatch):
    """The fast path compares blob ids only: no master config is loaded or checked."""
    from sweepgate.core import configgate

    repo.commit({"NOTES.md": "notes\n"})
    monkeypatch.setattr(configgate, "config_problems", lambda *a: pytest.fail("configs were checked"))
    monkeypatch.setattr(configgate, "duplicate_problems", lambda *a: pytest.fail("configs were scanned"))
    rc, out, _ = validate(repo, capsys)
    assert rc == 0 and "no entry appended" in out


def test_duplicate_key_inside_a_config_is_refused(repo, capsys):
    repo.commit({NVIDIA: FLEET_NVIDIA.replace("  precision: fp4\n", "  precision: fp4\n  precision: fp8\n", 1)})
    repo.commit({"perf-changelog.yaml": CHANGELOG + ENTRY})
    rc, _, err = validate(repo, capsys)
    assert rc == 1
    assert re.search(rf"^{NVIDIA}:7:3: key 'precision' appears twice in one mapping \(first at line 6\)",
                     err, re.M), err


def test_duplicate_key_deep_in_a_config_is_refused(repo, capsys):
    repo.commit({NVIDIA: FLEET_NVIDIA.replace("{ tp: 4, conc-list", "{ tp: 4, tp: 2, conc-list")})
    rc, _, err = validate(repo, capsys)
    assert rc == 1 and re.search(rf"^{NVIDIA}:29:\d+: key 'tp' appears twice", err, re.M), err


def test_second_block_with_the_same_key_is_refused(repo, capsys):
    pasted = FLEET_NVIDIA.split("\n\n")[0].replace("conc-end: 16", "conc-end: 64")
    for extra in (pasted, FLEET_NVIDIA.split("\n\n")[0]):  # edited, and an exact copy
        repo.commit({NVIDIA: FLEET_NVIDIA + "\n" + extra + "\n"})
        rc, _, err = validate(repo, capsys)
        assert rc == 1
        assert re.search(rf"^{NVIDIA}:31:1: config key 'dsr1-fp4-b300-vllm' is defined again here "
                         r"\(first at line 1\).*; delete one", err, re.M), err


def test_duplicates_already_in_base_do_not_block_other_changes(make_repo, monkeypatch, capsys):
    dup = FLEET_NVIDIA.replace("  precision: fp4\n", "  precision: fp4\n  precision: fp4\n", 1)
    vllm = FLEET_NVIDIA.split("\n\n")[0] + "\n"
    for name in ("GITHUB_ACTIONS", "GITHUB_REPOSITORY"):
        monkeypatch.delenv(name, raising=False)
    repo = make_repo(files={NVIDIA: dup + "\n" + vllm})  # both kinds of duplicate, already on main
    monkeypatch.chdir(repo.path)
    repo.base = repo.head()
    # an unrelated block of the same file changes; the duplicates in untouched blocks stay
    repo.commit({NVIDIA: dup.replace("conc-list: [4, 8]", "conc-list: [4, 8, 16]") + "\n" + vllm})
    rc, _, err = validate(repo, capsys)
    assert rc == 0, err
    # editing one of the two blocks of a repeated key is reported: the matrix would ignore one
    repo.commit({NVIDIA: dup + "\n" + vllm.replace("conc-end: 16", "conc-end: 32")})
    rc, _, err = validate(repo, capsys)
    assert rc == 1 and re.search(rf"^{NVIDIA}:32:1: config key 'dsr1-fp4-b300-vllm' is defined again",
                                 err, re.M), err
    assert "precision" not in err


def test_matrix_keeps_last_wins(repo, capsys):
    """process_changelog.py stays the reference's: PyYAML keeps the last of two equal keys."""
    import json

    repo.commit({NVIDIA: FLEET_NVIDIA.replace("  precision: fp4\n", "  precision: fp4\n  precision: fp8\n", 1),
                 "perf-changelog.yaml": CHANGELOG + ENTRY})
    assert cli.main(["matrix", "--base-ref", repo.base, "--head-ref", "HEAD"]) == 0
    rows = json.loads(capsys.readouterr().out)["single_node"]["1k1k"]
    assert {r["precision"] for r in rows} == {"fp8"}


def _file(blocks: list[tuple[str, int]]) -> bytes:
    return "".join(f"{key}:\n  value: {value}\n  other: {value * 7}\n\n" for key, value in blocks).encode()


@given(st.lists(st.tuples(st.sampled_from("abcdefgh"), st.integers(0, 3)), min_size=1, max_size=12),
       st.data())
def test_changed_blocks_finds_every_block_whose_text_is_new_and_only_near_the_edit(blocks, data):
    """configgate.changed_blocks compares only where base and head part: it must still flag every
    head block whose text base lacks, and no block outside the edited stretch."""
    from sweepgate.core.configgate import changed_blocks
    from sweepgate.core.load import block_spans

    i = data.draw(st.integers(0, len(blocks) - 1))
    edited = list(blocks)
    edited[i] = (edited[i][0], data.draw(st.integers(0, 5)))
    if data.draw(st.booleans()):
        edited.insert(data.draw(st.integers(0, len(edited))), (data.draw(st.sampled_from("xyz")), 9))
    old, new = _file(blocks), _file(edited)
    old_spans, new_spans = block_spans(old), block_spans(new)
    flags = changed_blocks(old, new, new_spans)
    texts = {old[a:b] for _, a, b in old_spans}  # the bytes themselves (block_text adds a newline to the last)
    for (_, a, b), flag in zip(new_spans, flags):
        assert flag or new[a:b] in texts
    if old == new:
        assert not any(flags)
    unchanged_ends = [k for k in range(len(new_spans)) if k < i or k > i + 1]
    shared_prefix = next((k for k in range(min(len(blocks), len(edited))) if blocks[k] != edited[k]), len(blocks))
    assert not any(flags[k] for k in unchanged_ends if k < shared_prefix)


@pytest.mark.parametrize(("raw", "twice"), [
    (b"a:\n  x: 1\nb:\n  x: 2\na:\n  x: 3\n", {"a"}),
    (b"'a':\n  x: 1\na :\n  x: 2\n\"b\": \n  x: 3\nb:\n  x: 4\nc:\n  x: 5\n", {"a", "b"}),
    (b"a:\n  x: 1\nb:\n  x: 2\n", set()),
    ((ROOT / "configs" / "nvidia-master.yaml").read_bytes() * 2,
     set(yaml.safe_load((ROOT / "configs" / "nvidia-master.yaml").read_text()))),
])
def test_a_config_key_given_twice_is_named_whatever_its_spelling(raw, twice):
    """Quoted and spaced spellings of one key are one key, as PyYAML reads them."""
    from sweepgate.core.configgate import duplicate_problems

    diags = duplicate_problems("f.yaml", None, raw)
    assert {re.search(r"config key '([^']*)'", d.message).group(1)
            for d in diags if d.rule == "duplicate-config-key"} == twice


@given(st.lists(st.sampled_from(["a:\n  x: 1\n", "bb:\n  - 2\n\n", "# note\n", "c: 3\n", "\n", "  y: 4\n",
                                 "'q':\n  z: 5\n"]), max_size=10),
       st.integers(0, 80), st.integers(0, 80))
def test_spans_around_are_the_block_spans_that_touch_the_stretch(pieces, lo, hi):
    """load.block_spans_around splits only near [lo, hi): it must give exactly the spans that
    block_spans of the whole text gives there (their starts and ends), and none for an empty stretch."""
    from sweepgate.core.load import block_spans_around
    from sweepgate.core.load import block_spans

    text = "".join(pieces).encode()
    whole = block_spans(text)
    assume(whole is not None)
    found = [(a, b) for _, a, b in block_spans_around(text, lo, hi)]
    assert found == [(a, b) for _, a, b in whole if hi > lo and a < hi and b > lo]


def test_spans_around_refuses_an_unusual_line_in_the_stretch_only():
    from sweepgate.core.load import block_spans_around

    text = b"a:\n  x: 1\n-- odd\nb:\n  x: 2\nc:\n  x: 3\n"
    assert block_spans_around(text, 12, 13) == []  # the odd line itself
    c = text.index(b"c:")
    assert block_spans_around(text, c + 3, c + 4) == [(0, c, len(text))]


def test_a_missing_multinode_is_said_once_and_the_config_is_still_checked_as_single_node(repo, capsys):
    """New-user review: a config without `multinode` was read as multi-node (JSON Schema's `if` holds
    of an absent field): "'multinode' is a required property" twice, then 'prefill'/'decode' required
    and 'tp' unknown at every point. Diff review: checking neither branch hid the config's other
    slips; each unknown field gets its own "did you mean" even when there are two."""
    line = "  multinode: false\n"
    assert line in FLEET_NVIDIA and "  image: " in FLEET_NVIDIA
    broken = FLEET_NVIDIA.replace(line, "  multinod: false\n", 1).replace("  image: ", "  imgae: ", 1)
    repo.commit({NVIDIA: broken})
    rc, out, err = validate(repo, capsys)
    assert rc == 1, out
    problems = [e for e in err.splitlines() if e.startswith(NVIDIA)]
    # Changelog review: a misspelt required field was two lines ("'x' is a required property", whose
    # "add the missing field" left the slip in place, and the unknown field): one now, a rename.
    assert not any("is a required property" in p for p in problems), err
    assert any("unknown field 'multinod'; rename it to 'multinode', a required field" in p for p in problems), err
    assert any("unknown field 'imgae'; rename it to 'image', a required field" in p for p in problems), err
    assert not any("prefill" in p or "decode" in p for p in problems), err


@pytest.mark.parametrize("where", ["scenarios", "search-space"])
@pytest.mark.parametrize("value", [7, "x", True, [7]])
def test_scenarios_or_a_search_space_of_the_wrong_type_is_a_schema_problem_not_an_internal_error(
        make_repo, monkeypatch, capsys, where, value):
    """Diff review: `search-space: 7` (or `scenarios: 7`) ended in "internal error: TypeError" when the
    rules beside the schema walked the points."""
    monkeypatch.delenv("GITHUB_REPOSITORY", raising=False)
    doc = yaml.safe_load(FLEET_NVIDIA)
    config = doc["dsr1-fp4-b300-vllm"]
    if where == "scenarios":
        config["scenarios"] = value
    else:
        config["scenarios"]["fixed-seq-len"][0]["search-space"] = value
    repo = make_repo(files={NVIDIA: yaml.safe_dump(doc, sort_keys=False)})
    monkeypatch.chdir(repo.path)
    capsys.readouterr()
    assert cli.main(["full-sweep"]) == 1
    err = capsys.readouterr().err
    assert "internal error" not in err and err.startswith(f"{NVIDIA}:"), err
