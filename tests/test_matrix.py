"""The changelog -> matrix path (process_changelog.py), on real temporary git repositories."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from conftest import CHANGELOG, FLEET_NVIDIA, ROOT

from sweepgate.core.errors import SweepgateError
from sweepgate.core.load import Git
from sweepgate.core.select import Options, build_matrix, iter_rows

ENTRY = """
- config-keys:
    - {keys}
  description:
    - "Test entry"
  pr-link: https://github.com/acme/bench/pull/9
"""


def entry(*keys: str, extra: str = "") -> str:
    return ENTRY.format(keys="\n    - ".join(keys)).rstrip("\n") + "\n" + extra


def process_changelog(repo, base: str, head: str, *flags: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "SWEEPGATE_NO_CACHE": "1"}
    return subprocess.run([sys.executable, str(ROOT / "utils" / "process_changelog.py"), "--base-ref", base,
                           "--head-ref", head, "--changelog-file", "perf-changelog.yaml", *flags],
                          cwd=repo.path, capture_output=True, text=True, env=env)


def matrix_of(repo, base, head, **opts) -> dict:
    return build_matrix(Git(repo.path), base, head, Options(**opts))


def rejection(repo, base, head, **opts) -> list:
    with pytest.raises(SweepgateError) as info:
        matrix_of(repo, base, head, **opts)
    return info.value.diagnostics


# --------------------------------------------------------------------------- the seed scenario

def test_seed_scenario_matches_the_reference_rows(tmp_path):
    from sweepgate.commands.example import build_repo

    base, head = build_repo(str(tmp_path))
    proc = subprocess.run([sys.executable, str(ROOT / "utils" / "process_changelog.py"), "--base-ref", base,
                           "--head-ref", head], cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    matrix = json.loads(proc.stdout)
    rows = matrix["single_node"]["agentic"]
    assert [r["exp-name"] for r in rows] == [
        f"kimik3_tp8_conc{c}_kvdram-lmcache_spec-mtp" for c in (4, 8, 10, 16)]
    assert {r["total-cpu-dram-gb"] for r in rows} == {1889}
    assert {json.dumps(r["kv-offload-backend"], sort_keys=True) for r in rows} == {
        '{"name": "lmcache", "version": "0.5.4rc2"}'}
    assert all(r["duration"] == 3600 and r["tp"] == 8 and r["pp"] == 1 for r in rows)
    assert len({r["recipe-fingerprint"] for r in rows}) == 1
    # The highest concurrency of the group is evaluated.
    assert [r["conc"] for r in matrix["agentic_evals"]] == [16]
    assert matrix["changelog_metadata"]["entries"][0]["config-keys"] == [
        "kimik3-fp4-b300-vllm-agentic-dspark-lmcache"]
    assert matrix["changelog_metadata"]["entries"][0]["append-only"] is False


def test_fingerprint_is_sha256_of_the_row_without_point_fields(make_repo):
    import hashlib

    repo = make_repo()
    base = repo.head()
    head = repo.commit_changelog(CHANGELOG + entry("dsr1-fp4-b300-vllm"))
    for _, row in iter_rows(matrix_of(repo, base, head)):
        if "recipe-fingerprint" not in row:
            continue
        recipe = {k: v for k, v in row.items() if k not in ("conc", "exp-name", "recipe-fingerprint", "eval-only")}
        canonical = json.dumps(recipe, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
        assert row["recipe-fingerprint"] == hashlib.sha256(canonical.encode()).hexdigest()


# --------------------------------------------------------------------------- expansion through selection

def test_fixed_seq_len_rows_double_from_conc_start_to_conc_end(make_repo):
    repo = make_repo()
    base = repo.head()
    head = repo.commit_changelog(CHANGELOG + entry("dsr1-fp4-b300-vllm"))
    rows = matrix_of(repo, base, head)["single_node"]["1k1k"]
    assert [r["conc"] for r in rows] == [4, 8, 16]
    assert all(r["max-model-len"] == 1024 + 1024 + 256 and r["exp-name"] == "dsr1_1k1k" for r in rows)
    assert all(r["ep"] == 1 and r["dp-attn"] is False and r["spec-decoding"] == "none" for r in rows)
    assert all(r["eval-only"] is False and r["run-eval"] is False and r["disagg"] is False for r in rows)


def test_wildcards_resolve_in_config_order_without_duplicates(make_repo):
    repo = make_repo()
    base = repo.head()
    head = repo.commit_changelog(CHANGELOG + entry("dsr1-fp4-b300-*", "dsr1-fp4-b300-vllm"))
    matrix = matrix_of(repo, base, head)
    assert [r["conc"] for r in matrix["single_node"]["1k1k"]] == [4, 8, 16]
    assert [r["conc"] for r in matrix["single_node"]["8k1k"]] == [4, 8]


def test_trim_conc_keeps_the_lowest_concurrency_of_each_recipe(make_repo):
    repo = make_repo()
    base = repo.head()
    head = repo.commit_changelog(CHANGELOG + entry("dsr1-*", "kimik3-*"))
    matrix = matrix_of(repo, base, head, trim_conc=True)
    assert [r["conc"] for r in matrix["single_node"]["1k1k"]] == [4]
    assert [r["conc"] for r in matrix["single_node"]["8k1k"]] == [4]
    assert [r["conc"] for r in matrix["single_node"]["agentic"]] == [1]


def test_scenario_type_filter_and_disjoint_overlapping_entries(make_repo):
    both = """
both-scenarios:
  image: vllm/vllm-openai:v0.11.0
  model: org/model
  model-prefix: both
  runner: cluster:mi355x-amds
  precision: fp8
  framework: vllm
  multinode: false
  scenarios:
    fixed-seq-len:
    - { isl: 1024, osl: 1024, search-space: [ { tp: 8, conc-list: [4] } ] }
    agentic-coding:
    - search-space: [ { tp: 8, kv-offloading: none, conc-list: [2] } ]
"""
    repo = make_repo(files={"configs/amd-master.yaml": (ROOT / "tests" / "conftest.py").read_text().split(
        'FLEET_AMD = """\\\n')[1].split('"""')[0] + both})
    base = repo.head()
    only_agentic = entry("both-scenarios", extra="  scenario-type:\n    - agentic-coding\n")
    head = repo.commit_changelog(CHANGELOG + only_agentic)
    matrix = matrix_of(repo, base, head)
    assert "1k1k" not in matrix["single_node"]
    assert [r["conc"] for r in matrix["single_node"]["agentic"]] == [2]
    # A second entry for the same key with the other scenario is not suppressed by the first.
    fsl = entry("both-scenarios", extra="  scenario-type:\n    - fixed-seq-len\n")
    head2 = repo.commit_changelog(CHANGELOG + only_agentic + fsl)
    matrix = matrix_of(repo, base, head2)
    assert [r["conc"] for r in matrix["single_node"]["1k1k"]] == [4]
    assert [r["conc"] for r in matrix["single_node"]["agentic"]] == [2]


def test_evals_only_and_all_evals(make_repo):
    repo = make_repo()
    base = repo.head()
    head = repo.commit_changelog(CHANGELOG + entry("kimik3-fp4-mi355x-vllm-agentic"))
    matrix = matrix_of(repo, base, head, evals_only=True)
    assert matrix["single_node"] == {}
    assert [(r["conc"], r["eval-only"], r["run-eval"]) for r in matrix["agentic_evals"]] == [(8, True, True)]
    matrix = matrix_of(repo, base, head, all_evals=True)
    assert sorted(r["conc"] for r in matrix["agentic_evals"]) == [1, 4, 8]
    assert len(matrix["single_node"]["agentic"]) == 3


MULTINODE = """
dsr1-fp8-b300-dynamo-sglang:
  image: lmsysorg/sglang:v0.5.6
  model: deepseek-ai/DeepSeek-R1-0528
  model-prefix: dsr1
  runner: cluster:mi355x-amds
  precision: fp8
  framework: dynamo-sglang
  multinode: true
  disagg: true
  kv-p2p-transfer: nixl
  router: { name: dynamo-router, version: "0.9.1" }
  scenarios:
    fixed-seq-len:
    - isl: 8192
      osl: 1024
      search-space:
      - conc-list: [16, 64, 128]
        prefill: { num-worker: 1, tp: 8, ep: 8, dp-attn: true }
        decode: { num-worker: 2, tp: 8, ep: 8, dp-attn: true, additional-settings: ["DECODE_NODES=2"] }
    agentic-coding:
    - dram-utilization: 0.5
      search-space:
      - conc-list: [4, 32]
        kv-offloading: dram
        kv-offload-backend: { name: lmcache }
        prefill: { num-worker: 1, tp: 4, ep: 1, dp-attn: false }
        decode: { num-worker: 1, tp: 8, ep: 1, dp-attn: false }
"""


def test_multinode_rows_evals_and_eval_min_prefill_ep(make_repo):
    repo = make_repo(files={"configs/nvidia-master.yaml": FLEET_NVIDIA + MULTINODE})
    base = repo.head()
    head = repo.commit_changelog(CHANGELOG + entry("dsr1-fp8-b300-dynamo-sglang"))
    matrix = matrix_of(repo, base, head)
    (row,) = matrix["multi_node"]["8k1k"]
    assert row["conc"] == [16, 64, 128] and row["kv-p2p-transfer"] == "nixl"
    assert row["router"] == {"name": "dynamo-router", "version": "0.9.1"}
    assert row["prefill"] == {"num-worker": 1, "tp": 8, "ep": 8, "dp-attn": True, "pp": 1, "dcp-size": 1,
                              "pcp-size": 1, "additional-settings": []}
    assert row["eval-all-concs"] is False and row["eval-only"] is False and row["exp-name"] == "dsr1_8k1k"
    agentic = matrix["multi_node"]["agentic"]
    assert [r["conc"] for r in agentic] == [[4], [32]]  # one allocation per concurrency
    assert [r["exp-name"] for r in agentic] == ["dsr1_p1x4_d1x8_conc4_kvdram-lmcache",
                                                "dsr1_p1x4_d1x8_conc32_kvdram-lmcache"]
    # half of the prefill node's GPUs, half of its (3 TB-capped) DRAM
    assert {r["total-cpu-dram-gb"] for r in agentic} == {int(2063837 * 1048576 * 0.5 * 4 / 8 / 1e9)}
    (mn_eval,) = matrix["multinode_evals"]
    assert mn_eval["eval-conc"] == 128 and mn_eval["eval-only"] is True
    assert [r["eval-conc"] for r in matrix["multinode_agentic_evals"]] == [32]

    filtered = entry("dsr1-fp8-b300-dynamo-sglang", extra="  eval-min-prefill-ep: 16\n")
    head2 = repo.commit_changelog(CHANGELOG + filtered)
    assert matrix_of(repo, base, head2)["multinode_evals"] == []


# --------------------------------------------------------------------------- rejections, each at its line

def test_deleted_history_is_rejected_at_its_base_line(make_repo):
    repo = make_repo()
    base = repo.head()
    head = repo.commit_changelog(CHANGELOG.replace("Initial DeepSeek", "Edited DeepSeek") + entry("dsr1-*"))
    proc = process_changelog(repo, base, head)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    line = CHANGELOG.splitlines().index('    - "Initial DeepSeek-R1 FP4 B300 vLLM recipe"') + 1
    assert proc.stderr.startswith(f"perf-changelog.yaml:{line}: history line {line} edited: "
                                  "'    - \"Initial DeepSeek")
    assert "; restore it byte for byte" in proc.stderr


def test_history_refusal_is_grouped_and_capped_as_the_gate_reports_it(make_repo, capsys, monkeypatch):
    """Review: a head 20 commits behind its base printed one line per deleted history line (163),
    validate one line for the same refs. Both now read core.history's grouping, capped per rule."""
    from sweepgate import cli

    entries = "".join(entry(f"dsr1-fp4-b300-{'vllm' if i % 2 else 'sglang'}").replace("pull/9", f"pull/{i}")
                      for i in range(3, 60))
    repo = make_repo(CHANGELOG + entries)
    monkeypatch.chdir(repo.path)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    full = repo.head()
    lines = (CHANGELOG + entries).splitlines(keepends=True)
    edited = [x.replace('"Test entry"', '"Edited"') for x in lines[:len(lines) // 2]]  # ~28 edited lines
    head = repo.commit_changelog("".join(edited[:-6]))  # and the second half deleted in one block
    capsys.readouterr()
    assert cli.main(["matrix", "--base-ref", full, "--head-ref", head]) == 1
    matrix_err = capsys.readouterr().err.splitlines()
    assert cli.main(["validate", "--base-ref", full, "--head-ref", head]) == 1
    gate_err = [x for x in capsys.readouterr().err.splitlines() if ": history" in x or "more 'history" in x]
    assert matrix_err == gate_err, (matrix_err, gate_err)
    assert sum("history lines" in x and "deleted" in x for x in matrix_err) == 1  # the block, once
    # 20 edited lines, then one line for the rest of them
    assert len(matrix_err) == 22 and "more 'history-edited' problem(s) from here on" in matrix_err[-1]


def test_unknown_key_is_reported_at_its_line_with_a_suggestion(make_repo):
    repo = make_repo()
    base = repo.head()
    head = repo.commit_changelog(CHANGELOG + entry("dsr1-fp4-b300-vlm"))
    (diag,) = rejection(repo, base, head)
    assert diag.line == len(CHANGELOG.splitlines()) + 3
    assert "config key 'dsr1-fp4-b300-vlm' is not in any master config" in diag.message
    assert "dsr1-fp4-b300-vllm" in diag.hint


def test_an_unknown_key_defined_in_a_file_not_read_says_where_it_is(make_repo):
    """Gate review: a key in configs/exp-master.yml (not *-master.yaml) was "not in any master config"
    with suggestions of unrelated keys, never where it was and why that file was not read."""
    repo = make_repo()
    base = repo.head()
    repo.commit({"configs/exp-master.yml": "# experiments\nqwen3-fp8-b300-vllm:\n  image: x\n"})
    head = repo.commit_changelog(CHANGELOG + entry("qwen3-fp8-b300-vllm"))
    (diag,) = rejection(repo, base, head)
    assert "config key 'qwen3-fp8-b300-vllm' is not in any master config" in diag.message
    assert diag.hint.startswith("it is defined at configs/exp-master.yml:2, which this run does not read"), diag.hint
    proc = process_changelog(repo, base, head)  # the gate's own path (unknown keys of a refused entry) too
    assert "it is defined at configs/exp-master.yml:2" in proc.stderr, proc.stderr


def test_wildcard_matching_nothing_is_rejected(make_repo):
    repo = make_repo()
    base = repo.head()
    head = repo.commit_changelog(CHANGELOG + entry("gpt-*"))
    (diag,) = rejection(repo, base, head)
    assert diag.rule == "unknown-config-key" and "wildcard 'gpt-*' matches no config key" in diag.message


def test_a_wildcard_matching_nothing_is_told_the_pattern_or_keys_near_it(make_repo):
    """New user (s30): a wildcard with a mistyped word (``dsr1-fp4-*-vllmm``) got only "check the pattern
    against configs/*-master.yaml", where an exact key so mistyped gets "did you mean ...". Its message
    stays the reference's; the fix names the pattern put right and what it matches, else the nearest keys."""
    repo = make_repo()
    base = repo.head()
    wanted = {
        "dsr1-fp4-*-vllmm": "did you mean 'dsr1-fp4-*-vllm', which matches dsr1-fp4-b300-vllm?",
        "kimi3-*": "did you mean 'kimik3-*', which matches kimik3-fp4-mi355x-vllm-agentic?",
        "DSR1-*": "did you mean 'dsr1-*', which matches dsr1-fp4-b300-vllm, dsr1-fp4-b300-sglang?",
        "dsr1-fp4-b300-sglang-*": "the nearest keys are dsr1-fp4-b300-sglang, dsr1-fp4-b300-vllm; check the "
                                  "pattern against configs/*-master.yaml",
        "gpt-*": "check the pattern against configs/*-master.yaml",  # nothing near: as before
    }
    head = repo.commit_changelog(CHANGELOG + entry(*wanted))
    proc = process_changelog(repo, base, head)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    said = {line.split("wildcard '", 1)[1].split("'", 1)[0]: line for line in proc.stderr.splitlines()
            if "wildcard '" in line}
    assert said.keys() == wanted.keys(), proc.stderr
    for pattern, fix in wanted.items():
        assert said[pattern].endswith(f": wildcard '{pattern}' matches no config key; {fix}"), said[pattern]


def test_a_key_repeated_in_an_entry_keeps_its_last_value_as_the_reference_does(make_repo):
    """Differential against the reference on the corpus: a real PR's entry held a second pr-link
    after a plain scalar continued onto the next lines; the reference (PyYAML: the last value wins)
    expanded it, the matrix step refused it. The gate still refuses it, at its line."""
    repo = make_repo()
    base = repo.head()
    text = entry("dsr1-fp4-b300-vllm").replace(
        "  pr-link: https://github.com/acme/bench/pull/9\n",
        "  pr-link: https://github.com/acme/bench/pull/8\n    - \"continued\"\n"
        "  pr-link: https://github.com/acme/bench/pull/9\n")
    head = repo.commit_changelog(CHANGELOG + text)
    proc = process_changelog(repo, base, head)
    assert proc.returncode == 0, proc.stderr
    (meta,) = json.loads(proc.stdout)["changelog_metadata"]["entries"]
    assert meta["pr-link"] == "https://github.com/acme/bench/pull/9"
    assert json.loads(proc.stdout)["single_node"]
    gate = subprocess.run([sys.executable, str(ROOT / "utils" / "validate_perf_changelog.py"), "--base-ref", base,
                           "--head-ref", head], cwd=repo.path, capture_output=True, text=True)
    n = len(CHANGELOG.splitlines())
    assert gate.returncode == 1 and f"perf-changelog.yaml:{n + 8}:3: key 'pr-link' appears twice" in gate.stdout + gate.stderr


def test_invalid_entry_reports_every_problem_at_its_line(make_repo):
    repo = make_repo()
    base = repo.head()
    bad = entry("dsr1-*", extra="  owner: someone\n  scenario-type:\n    - agentic\n")
    head = repo.commit_changelog(CHANGELOG + bad)
    diags = rejection(repo, base, head)
    n = len(CHANGELOG.splitlines())
    by_line = {d.line: d for d in diags}
    assert "unknown field 'owner'" in by_line[n + 7].message
    assert "'agentic' is not one of" in by_line[n + 9].message
    assert all(d.file == "perf-changelog.yaml" for d in diags)


def test_invalid_config_is_rejected_at_the_config_line(make_repo):
    broken = FLEET_NVIDIA + """
broken-disagg:
  image: img
  model: org/m
  model-prefix: m
  runner: b300
  precision: fp8
  framework: sglang
  multinode: true
  disagg: true
  scenarios:
    fixed-seq-len:
    - isl: 1024
      osl: 1024
      search-space:
      - conc-list: [4]
        prefill: { num-worker: 1, tp: 8, ep: 1, dp-attn: false }
        decode: { num-worker: 1, tp: 8, ep: 1, dp-attn: false, batch: 3 }
"""
    repo = make_repo()
    base = repo.head()
    repo.write("configs/nvidia-master.yaml", broken)
    head = repo.commit_changelog(CHANGELOG + entry("dsr1-fp4-b300-vllm"))
    proc = process_changelog(repo, base, head)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    key_line = broken.splitlines().index("broken-disagg:") + 1
    disagg_line = broken.splitlines().index("  disagg: true") + 1
    batch_line = len(broken.splitlines())
    assert any(l.startswith(f"configs/nvidia-master.yaml:{disagg_line}:3: broken-disagg: disagg: true needs "
                            "kv-p2p-transfer") for l in lines), lines
    assert any(l.startswith(f"configs/nvidia-master.yaml:{batch_line}:") and "unknown field 'batch'" in l
               for l in lines), lines
    assert key_line < disagg_line


def test_anchors_aliases_and_merge_keys_in_an_entry_are_read_as_the_reference_reads_them(make_repo):
    """Differential against the reference (mutated corpus heads): its yaml.safe_load takes an anchor,
    an alias and a merge key in the appended entries, and expanded them; the matrix step refused
    them. It now reads them alike (the rows and entries are those of the text written out in full);
    the gate still refuses them, and a tag safe_load cannot build is refused by both."""
    repo = make_repo()
    base = repo.head()
    plain = entry("dsr1-*", extra="  evals-only: true\n") + "\n" + entry("dsr1-fp4-b300-vllm", extra="  evals-only: true\n")
    anchored = (entry("dsr1-*", extra="  evals-only: &flag true\n") + "\n- <<: {evals-only: *flag}\n  "
                + entry("dsr1-fp4-b300-vllm").removeprefix("\n- "))
    want = process_changelog(repo, base, repo.commit_changelog(CHANGELOG + plain))
    head = repo.commit_changelog(CHANGELOG + anchored)
    proc = process_changelog(repo, base, head)
    assert want.returncode == 0 and proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["changelog_metadata"]["entries"][1]["evals-only"] is True
    assert proc.stdout.replace(head, "H") == want.stdout.replace(json.loads(want.stdout)["changelog_metadata"]["head_ref"], "H")
    gate = subprocess.run([sys.executable, str(ROOT / "utils" / "validate_perf_changelog.py"), "--base-ref", base,
                           "--head-ref", head], cwd=repo.path, capture_output=True, text=True)
    assert gate.returncode == 1 and "YAML anchors (&name) are not allowed" in gate.stderr
    tagged = CHANGELOG + entry("dsr1-*", extra="  evals-only: !flag true\n")
    proc = process_changelog(repo, base, repo.commit_changelog(tagged))
    line = tagged.splitlines().index("  evals-only: !flag true") + 1
    assert proc.returncode == 1 and f"perf-changelog.yaml:{line}:" in proc.stderr and "Traceback" not in proc.stderr


def test_entry_values_the_reference_s_model_converts_are_read_as_it_reads_them(make_repo):
    """Differential against the reference (mutated corpus heads): its pydantic entry model takes
    evals-only 'yes' (or 1, 'on', 'TRUE'...) as true, eval-min-prefill-ep '2' as 2, an empty pr-link, a
    description line with no visible text, and a scenario type named twice; the matrix step refused each as the gate
    does. It now reads them as the reference does (the rows and entries of the entry written the
    canonical way), and the gate still refuses them; a value the model refuses ('maybe') stays refused."""
    repo = make_repo()
    base = repo.head()
    canonical = entry("dsr1-fp4-b300-vllm", extra="  evals-only: true\n  scenario-type:\n    - fixed-seq-len\n")
    want = process_changelog(repo, base, repo.commit_changelog(CHANGELOG + canonical))
    assert want.returncode == 0, want.stderr
    (want_entry,) = json.loads(want.stdout)["changelog_metadata"]["entries"]
    for flag, extra in [("'yes'", "    - fixed-seq-len\n"), ("1", ""), ("'On'", ""), ("TRUE", ""), ("'t'", "")]:
        text = canonical.replace("evals-only: true", f"evals-only: {flag}") + extra
        proc = process_changelog(repo, base, repo.commit_changelog(CHANGELOG + text))
        assert proc.returncode == 0, (flag, proc.stderr)
        got = json.loads(proc.stdout)
        (got_entry,) = got["changelog_metadata"]["entries"]
        assert got_entry == {**want_entry, "scenario-type": ["fixed-seq-len"] * (2 if extra else 1)}, flag
        assert {b: got[b] for b in got if b != "changelog_metadata"} == \
            {b: v for b, v in json.loads(want.stdout).items() if b != "changelog_metadata"}, flag
    blank = canonical.replace('    - "Test entry"', '    - ""').replace(
        "pr-link: https://github.com/acme/bench/pull/9", "pr-link: ''") + "  eval-min-prefill-ep: '2'\n"
    head = repo.commit_changelog(CHANGELOG + blank)
    proc = process_changelog(repo, base, head)
    assert proc.returncode == 0, proc.stderr
    (got_entry,) = json.loads(proc.stdout)["changelog_metadata"]["entries"]
    assert got_entry["description"] == [""] and got_entry["eval-min-prefill-ep"] == 2 and got_entry["pr-link"] == ""
    gate = subprocess.run([sys.executable, str(ROOT / "utils" / "validate_perf_changelog.py"), "--base-ref", base,
                           "--head-ref", head], cwd=repo.path, capture_output=True, text=True)
    assert gate.returncode == 1 and "visible text" in gate.stderr and "'2' is not of type 'integer'" in gate.stderr
    bad = CHANGELOG + canonical.replace("evals-only: true", "evals-only: maybe")
    proc = process_changelog(repo, base, repo.commit_changelog(bad))
    line = bad.splitlines().index("  evals-only: maybe") + 1
    assert proc.returncode == 1 and f"perf-changelog.yaml:{line}:15: evals-only: 'maybe' is not of type 'boolean'" in proc.stderr


@pytest.mark.parametrize("value, want", [
    (True, True), (False, False), (1, True), (0, False), (1.0, True), (0.0, False), ("yes", True), ("YES", True),
    ("On", True), ("t", True), ("Y", True), ("1", True), ("no", False), ("OFF", False), ("f", False), ("0", False),
    (2, 2), (1.5, 1.5), (" true", " true"), ("1.0", "1.0"), ("", ""), (None, None), ("maybe", "maybe")])
def test_lax_bool_takes_what_pydantic_s_bool_takes(value, want):
    from sweepgate.core.laxentry import lax_bool

    assert lax_bool(value) == want and type(lax_bool(value)) is type(want)


@pytest.mark.parametrize("value, want", [
    (2, 2), (True, 1), (False, 0), (2.0, 2), ("2", 2), (" 2 ", 2), ("2.0", 2), ("+2", 2), ("2_0", 20),
    (2.5, 2.5), ("1e3", "1e3"), ("0x10", "0x10"), ("2.", "2."), ("2_", "2_"), ("", ""), ("\uff11", "\uff11"), ("two", "two")])
def test_lax_int_takes_what_pydantic_s_int_takes(value, want):
    from sweepgate.core.laxentry import lax_int

    assert lax_int(value) == want and type(lax_int(value)) is type(want)


def test_no_appended_entry_a_tab_and_bad_refs_are_rejected(make_repo):
    repo = make_repo()
    base = repo.head()
    assert process_changelog(repo, base, base).returncode == 1
    tabbed = CHANGELOG + entry("dsr1-*").replace("  pr-link: ", "  pr-link:\t")  # the reference's reader refuses it
    head_tab = repo.commit_changelog(tabbed)
    proc = process_changelog(repo, base, head_tab)
    line = tabbed.splitlines().index("  pr-link:\thttps://github.com/acme/bench/pull/9") + 1
    assert proc.returncode == 1 and f"perf-changelog.yaml:{line}:11: tab character in the changelog" in proc.stderr
    proc = process_changelog(repo, "no-such-ref", head_tab)
    assert proc.returncode == 1 and "'no-such-ref' is not a commit" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_github_actions_annotations(make_repo):
    repo = make_repo()
    base = repo.head()
    head = repo.commit_changelog(CHANGELOG + entry("nope-key"))
    env = {**os.environ, "GITHUB_ACTIONS": "true"}
    proc = subprocess.run([sys.executable, str(ROOT / "utils" / "process_changelog.py"), "--base-ref", base,
                           "--head-ref", head], cwd=repo.path, capture_output=True, text=True, env=env)
    line = len(CHANGELOG.splitlines()) + 3
    assert proc.returncode == 1
    # pr-sweep.yml redirects stdout into matrix.json: a refusal leaves it empty and the
    # annotation reaches the runner on stderr (it reads workflow commands from both streams)
    assert proc.stdout == ""
    assert f"::error file=perf-changelog.yaml,line={line}::" in proc.stderr


# --------------------------------------------------------------------------- append-only

APPEND_ONLY_ENTRY = "  append-only: true\n"


def _append_only_repo(make_repo):
    repo = make_repo(files={"utils/process_changelog.py": "# matrix entry point\n"})
    return repo, repo.head()


def test_append_only_emits_only_new_points(make_repo):
    repo, base = _append_only_repo(make_repo)
    repo.write("configs/nvidia-master.yaml", FLEET_NVIDIA.replace("conc-start: 4, conc-end: 16",
                                                                  "conc-start: 4, conc-end: 32"))
    head = repo.commit_changelog(CHANGELOG + entry("dsr1-fp4-b300-vllm", extra=APPEND_ONLY_ENTRY))
    matrix = matrix_of(repo, base, head)
    assert [r["conc"] for _, r in iter_rows(matrix)] == [32]


def test_append_only_refuses_removed_points_image_changes_and_unselected_edits(make_repo):
    repo, base = _append_only_repo(make_repo)
    fleet = FLEET_NVIDIA.replace("conc-start: 4, conc-end: 16", "conc-start: 8, conc-end: 32")
    repo.write("configs/nvidia-master.yaml", fleet)
    head = repo.commit_changelog(CHANGELOG + entry("dsr1-fp4-b300-vllm", extra=APPEND_ONLY_ENTRY))
    (diag,) = rejection(repo, base, head)
    assert "may not remove existing concurrency points [4]" in diag.message
    assert diag.line == len(CHANGELOG.splitlines()) + 7

    repo.write("configs/nvidia-master.yaml", FLEET_NVIDIA.replace("lmsysorg/sglang:v0.5.6", "lmsysorg/sglang:v0.5.7"))
    head = repo.commit_changelog(CHANGELOG + entry("dsr1-fp4-b300-vllm", extra=APPEND_ONLY_ENTRY))
    (diag,) = rejection(repo, base, head)
    assert "does not name: dsr1-fp4-b300-sglang" in diag.message

    mixed = entry("dsr1-fp4-b300-vllm", extra=APPEND_ONLY_ENTRY) + entry("dsr1-fp4-b300-sglang")
    head = repo.commit_changelog(CHANGELOG + mixed)
    (diag,) = rejection(repo, base, head)
    assert diag.rule == "append-only-mixed"


def test_append_only_refuses_an_image_change_of_the_selected_config(make_repo):
    repo, base = _append_only_repo(make_repo)
    changed = FLEET_NVIDIA.replace("vllm/vllm-openai:v0.11.0", "vllm/vllm-openai:v0.12.0").replace(
        "conc-start: 4, conc-end: 16", "conc-start: 4, conc-end: 32")
    repo.write("configs/nvidia-master.yaml", changed)
    head = repo.commit_changelog(CHANGELOG + entry("dsr1-fp4-b300-vllm", extra=APPEND_ONLY_ENTRY))
    (diag,) = rejection(repo, base, head)
    assert diag.rule == "append-only" and "remove or change an existing recipe" in diag.message
    # a new recipe variant on the unchanged image is an addition: only its points run
    added = FLEET_NVIDIA.replace("      - { tp: 8, conc-start: 4, conc-end: 16 }",
                                 "      - { tp: 8, conc-start: 4, conc-end: 16 }\n      - { tp: 4, conc-list: [2] }")
    repo.write("configs/nvidia-master.yaml", added)
    head = repo.commit_changelog(CHANGELOG + entry("dsr1-fp4-b300-vllm", extra=APPEND_ONLY_ENTRY))
    assert [r["tp"] for _, r in iter_rows(matrix_of(repo, base, head))] == [4]


def test_append_only_needs_a_base_with_the_matrix_generator(make_repo):
    repo = make_repo()
    base = repo.head()
    repo.write("configs/nvidia-master.yaml", FLEET_NVIDIA.replace("conc-end: 16", "conc-end: 32"))
    head = repo.commit_changelog(CHANGELOG + entry("dsr1-fp4-b300-vllm", extra=APPEND_ONLY_ENTRY))
    (diag,) = rejection(repo, base, head)
    assert diag.rule == "append-only-base" and "utils/process_changelog.py is missing" in diag.message


def test_same_change_gives_byte_identical_output(make_repo):
    repo = make_repo()
    base = repo.head()
    head = repo.commit_changelog(CHANGELOG + entry("dsr1-*", "kimik3-*"))
    outputs = {process_changelog(repo, base, head).stdout for _ in range(3)}
    # with the cache on, twice more
    env = dict(os.environ)
    for _ in range(2):
        outputs.add(subprocess.run([sys.executable, str(ROOT / "utils" / "process_changelog.py"), "--base-ref", base,
                                    "--head-ref", head], cwd=repo.path, capture_output=True, text=True,
                                   env=env).stdout)
    assert len(outputs) == 1 and json.loads(outputs.pop())["single_node"]


# --------------------------------------------------------------------------- tabs, as the reference reads them

def test_a_tab_the_reference_s_reader_refuses_refuses_the_matrix(make_repo):
    """Differential review: libyaml (sweepgate's fast reader) takes a tab after a value, PyYAML's
    Python scanner (the reference's `yaml.safe_load`) refuses it, so the reference stopped where
    sweepgate expanded the change. A master config (or runners file) holding a tab is read by the
    reference's scanner; a tab inside a comment is taken, as there."""
    repo = make_repo()
    base = repo.head()
    master = repo.path / "configs" / "nvidia-master.yaml"
    text = master.read_text()
    master.write_text(text.replace("  precision: fp4\n", "  precision: fp4\t\n", 1))
    head = repo.commit_changelog(CHANGELOG + entry("dsr1-fp4-b300-vllm"))
    proc = process_changelog(repo, base, head)
    line = text[:text.index("  precision: fp4\n")].count("\n") + 1
    assert proc.returncode == 1 and proc.stdout == "", proc.stderr
    assert proc.stderr.startswith(f"configs/nvidia-master.yaml:{line}:17: invalid YAML: found character '\\t' "
                                  "that cannot start any token"), proc.stderr
    master.write_text(text.replace("  model-prefix: dsr1\n", "  model-prefix: dsr1\n  # a\tcomment\n", 1))
    head = repo.commit_changelog(CHANGELOG + entry("dsr1-fp4-b300-vllm"))
    proc = process_changelog(repo, base, head)  # inside a comment both readers take it
    assert proc.returncode == 0, proc.stderr
    assert {r["model-prefix"] for _, r in iter_rows(json.loads(proc.stdout))} == {"dsr1"}


def test_a_tab_inside_a_quoted_description_is_the_reference_s_value_in_the_matrix_only(make_repo, capsys, monkeypatch):
    """The reference reads `- "a<TAB>b"` as a string; the matrix does too. The gate still refuses
    any tab in the changelog (its hygiene rule)."""
    from sweepgate import cli

    repo = make_repo()
    base = repo.head()
    monkeypatch.chdir(repo.path)
    head = repo.commit_changelog(CHANGELOG + entry("dsr1-fp4-b300-vllm").replace('"Test entry"', '"Test\tentry"'))
    proc = process_changelog(repo, base, head)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["changelog_metadata"]["entries"][0]["description"] == ["Test\tentry"]
    assert cli.main(["validate", "--base-ref", base, "--head-ref", head]) == 1
    assert "tab character" in capsys.readouterr().err
    bare = repo.commit_changelog(CHANGELOG + entry("dsr1-fp4-b300-vllm").replace("  pr-link:", "  pr-link:\t"))
    proc = process_changelog(repo, base, bare)
    assert proc.returncode == 1 and "tab character in the changelog" in proc.stderr, proc.stderr


def test_integral_floats_are_the_integers_the_reference_emits(make_repo):
    """Differential review: `conc-list: [4.0, 16.0]`, `tp: 8.0` or `eval-min-prefill-ep: 4.0`
    came out as floats (and `conc-start: 4.0` as 4.0, 8.0, ...); the reference's models emit 4."""
    repo = make_repo()
    base = repo.head()
    master = repo.path / "configs" / "nvidia-master.yaml"
    text = master.read_text()
    assert "{ tp: 8, conc-start: 4, conc-end: 16 }" in text
    master.write_text(text.replace("{ tp: 8, conc-start: 4, conc-end: 16 }", "{ tp: 8.0, conc-start: 4.0, conc-end: 16 }"))
    head = repo.commit_changelog(CHANGELOG + entry("dsr1-fp4-b300-vllm"))
    rows = [r for _, r in iter_rows(matrix_of(repo, base, head))]
    assert [(r["tp"], r["conc"]) for r in rows] == [(8, 4), (8, 8), (8, 16)]
    assert all(type(r["tp"]) is int and type(r["conc"]) is int for r in rows)
    assert all(type(v) is not float for r in rows for v in r.values())


def test_a_changelog_that_is_not_utf8_stops_the_matrix_as_it_stops_the_reference(make_repo):
    """Differential review: a Latin-1 `é` in an appended entry was replaced and expanded; the
    reference's read of the file fails on it."""
    repo = make_repo()
    base = repo.head()
    text = (CHANGELOG + entry("dsr1-fp4-b300-vllm")).replace('"Test entry"', '"Test entr\u00e9"')
    head = repo.commit_changelog(text.encode("latin-1"))
    proc = process_changelog(repo, base, head)
    line = text.splitlines().index('    - "Test entr\u00e9"') + 1
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr.startswith(f"perf-changelog.yaml:{line}: not UTF-8 text (byte "), proc.stderr


@pytest.mark.parametrize("value, spelt", [(".nan", ".nan"), (".inf", ".inf"), ("-.Inf", "-.Inf")])
def test_a_number_that_is_not_finite_is_refused_where_it_stands(make_repo, value, spelt):
    """Bad-input review: `dram-utilization: .nan` stopped the matrix with "internal error: cannot convert
    NaN to integer", and `results: {threshold: .nan}` passed the gate (no regression could be flagged)."""
    repo = make_repo()
    base = repo.head()
    master = repo.path / "configs" / "amd-master.yaml"
    text = master.read_text()
    master.write_text(text.replace("dram-utilization: 0.80", f"dram-utilization: {value}"))
    head = repo.commit_changelog(CHANGELOG + entry("kimik3-fp4-mi355x-vllm-agentic"))
    line = text[:text.index("dram-utilization: 0.80")].count("\n") + 1
    where = f"configs/amd-master.yaml:{line}:{len('    - dram-utilization: ') + 1}: {spelt} is not a finite number"
    proc = process_changelog(repo, base, head)
    assert proc.returncode == 1 and proc.stdout == "" and proc.stderr.startswith(where), proc.stderr
    assert "internal error" not in proc.stderr
    gate = subprocess.run([sys.executable, str(ROOT / "utils" / "validate_perf_changelog.py"), "--base-ref", base,
                           "--head-ref", head], cwd=repo.path, capture_output=True, text=True)
    assert gate.returncode == 1 and gate.stderr.startswith(where), gate.stderr


def _drop_both_configs_point_4(repo) -> None:
    repo.write("configs/nvidia-master.yaml", FLEET_NVIDIA.replace("conc-start: 4, conc-end: 16",
                                                                  "conc-start: 8, conc-end: 32")
               .replace("conc-list: [4, 8]", "conc-list: [8, 16]"))


@pytest.mark.parametrize("entries", [
    entry("dsr1-fp4-b300-vllm", "dsr1-fp4-b300-sglang", extra=APPEND_ONLY_ENTRY),
    entry("dsr1-fp4-b300-vllm", extra=APPEND_ONLY_ENTRY)
    + entry("dsr1-fp4-b300-sglang", extra=APPEND_ONLY_ENTRY),
], ids=["one-entry", "two-entries"])
def test_append_only_names_every_curve_that_lost_points_at_once(make_repo, entries):
    """Two curves that each lose a point are two lines of one refusal, each naming its curve: the gate
    stopped at the first, and the second surfaced only after the first was mended (s45g)."""
    repo, base = _append_only_repo(make_repo)
    _drop_both_configs_point_4(repo)
    head = repo.commit_changelog(CHANGELOG + entries)
    diags = rejection(repo, base, head)
    assert len(diags) == 2, [d.message for d in diags]
    assert all("may not remove existing concurrency points [4]" in d.message for d in diags)
    assert any("dsr1_1k1k" in d.message for d in diags) and any("dsr1_8k1k" in d.message for d in diags)


def test_append_only_names_every_config_edited_outside_its_scenario_type_at_once(make_repo):
    """An append-only entry for agentic-coding whose PR also edits both configs' fixed-seq-len block: one
    line a config, not the first config's alone (s45g)."""
    repo, base = _append_only_repo(make_repo)
    _drop_both_configs_point_4(repo)
    head = repo.commit_changelog(CHANGELOG + entry("dsr1-fp4-b300-vllm", "dsr1-fp4-b300-sglang",
                                                   extra="  scenario-type: [agentic-coding]\n" + APPEND_ONLY_ENTRY))
    diags = rejection(repo, base, head)
    assert sorted(d.message.split("'")[1] for d in diags) == ["dsr1-fp4-b300-sglang", "dsr1-fp4-b300-vllm"], \
        [d.message for d in diags]
    assert all(d.rule == "append-only-scope" and "outside its scenario-type" in d.message for d in diags)
