"""`rehearse --config-keys KEY --conc CONC`, README's step for a PR, where the rows at CONC are of several
exp-names and one exp-name's rows differ in more (s43e's new-user walk): on the example fleet,
`rehearse --config-keys dsr1-fp8-b300-vllm --conc 32` has dsr1_1k1k's row (tp 8) and dsr1_8k1k's two (tp 4 and
tp 8). It was refused with "pass --exp-name NAME (and --conc N when it repeats)": --conc was given already, and
`--exp-name dsr1_8k1k` was refused in turn for tp, a second round trip the first refusal could have saved
(every InferenceX fixed-seq-len config has a 1k1k and an 8k1k exp-name at each concurrency, so README's step
met it on nearly every key). The refusal now names, for each exp-name, the flags that pick one of its rows
at that concurrency; without --conc it names --conc and the --where fields an exp-name's rows need with --exp-name
(s51c: `(and --conc N when it repeats)` alone, and `--where tp=...` asked for only once --exp-name and --conc
were given)."""
from __future__ import annotations

from conftest import FLEET_NVIDIA
from test_gate_cli_s34c import sweepgate

# the example fleet's dsr1-fp8-b300-vllm, as far as choosing a row goes: at conc 32, dsr1_1k1k has one row, tp 8,
# and dsr1_8k1k two, tp 8 and tp 4
KEY = "dsr1-fp8-b300-vllm"
HEAD = FLEET_NVIDIA.partition("    fixed-seq-len:\n")[0]  # the fleet's dsr1-fp4-b300-vllm, to its scenarios
CONFIG = "\n" + HEAD.replace("dsr1-fp4-b300-vllm:", f"{KEY}:").replace("precision: fp4", "precision: fp8") + (
    "    fixed-seq-len:\n"
    "    - { isl: 1024, osl: 1024, search-space: [ { tp: 8, conc-start: 16, conc-end: 32 } ] }\n"
    "    - { isl: 8192, osl: 1024, search-space: [ { tp: 8, conc-start: 16, conc-end: 32 },\n"
    "                                              { tp: 4, conc-start: 16, conc-end: 32 } ] }\n")
AT = f"configs/nvidia-master.yaml:{FLEET_NVIDIA.count(chr(10)) + 2}"  # the key's line


def fleet(make_repo):
    return make_repo(files={"configs/nvidia-master.yaml": FLEET_NVIDIA + CONFIG})


NOT_CHOSEN = ("no row chosen", "rows that differ in", "choose one with")


def test_the_refusal_names_the_flags_that_pick_one_row_of_each_exp_name(make_repo):
    repo = fleet(make_repo)
    r = sweepgate(["rehearse", "--config-keys", KEY, "--conc", "32"], repo.path)
    assert r.returncode == 1 and r.stderr.splitlines() == [
        f"{AT}: no row chosen: 3 rows (exp-name dsr1_1k1k, dsr1_8k1k); pass "
        "--exp-name dsr1_1k1k, or --exp-name dsr1_8k1k with --where tp=4 or tp=8"], r.stderr
    # each pick it names is one row: the rehearsal goes on to that row's script (none here)
    for flags in (["--exp-name", "dsr1_1k1k"], ["--exp-name", "dsr1_8k1k", "--where", "tp=4"],
                  ["--exp-name", "dsr1_8k1k", "--where", "tp=8"]):
        r = sweepgate(["rehearse", "--config-keys", KEY, "--conc", "32", *flags], repo.path)
        assert r.returncode == 1 and "no benchmark script" in r.stderr, (flags, r.stderr)
        assert not any(said in r.stderr for said in NOT_CHOSEN), (flags, r.stderr)


def test_without_conc_the_refusal_asks_for_the_exp_name_conc_and_where_at_once(make_repo):
    repo = fleet(make_repo)
    r = sweepgate(["rehearse", "--config-keys", KEY], repo.path)
    assert r.returncode == 1 and r.stderr.splitlines() == [
        f"{AT}: no row chosen: 6 rows (exp-name dsr1_1k1k, dsr1_8k1k); pass --exp-name NAME "
        "(and --conc N and --where tp=VALUE where its rows need them)"], r.stderr


def test_with_the_exp_name_conc_and_where_are_asked_for_together(make_repo):
    """Given the exp-name, what is left is said whole: --conc and --where together (s51c: --conc, then --where)."""
    repo = fleet(make_repo)
    r = sweepgate(["rehearse", "--config-keys", KEY, "--exp-name", "dsr1_8k1k"], repo.path)
    assert r.returncode == 1 and r.stderr.splitlines() == [
        f"{AT}: exp-name 'dsr1_8k1k' matches 4 rows (conc 16, 32) that differ in tp 4, 8; "
        "choose one with --conc N and --where tp=4"], r.stderr
    r = sweepgate(["rehearse", "--config-keys", KEY, "--exp-name", "dsr1_8k1k", "--conc", "16", "--where", "tp=4"],
                  repo.path)
    assert r.returncode == 1 and "no benchmark script" in r.stderr, r.stderr
