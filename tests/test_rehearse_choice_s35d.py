"""`rehearse` choosing its row where every row it could take has one exp-name (s35d), each a real process in a
real git repository.

`rehearse --config-keys dsv4-fp4-b300-vllm --conc 4 --where tp=4`, or `--row-json` with a matrix of one
exp-name and `--conc 4`, names exactly one row, but was refused as "no row chosen: 13 rows (exp-name
dsv4_8k1k); pass --exp-name dsv4_8k1k (and --conc N when it repeats)": a flag with the only value it could
have, and `--conc` already given. Rows of one exp-name now need no `--exp-name`: `--conc` and `--where`
choose among them, and what is still missing is said as it is with `--exp-name` (`choose one with --conc N`).
Rows of several exp-names are chosen alike where `--conc` and `--where` leave rows of one; else they stay "no
row chosen", naming the exp-names of the rows those flags leave.
"""
from __future__ import annotations

import json

from test_gate_cli_s34c import FIXED, own_scripts, sweepgate

from sweepgate.core.sweep import worktree_keyed_rows

CHOSEN = f"{FIXED}/dsr1_fp4_b300_vllm.sh:4: sources benchmarks/benchmark_lib.sh"  # where a chosen row stops


def test_rows_of_one_exp_name_are_chosen_by_conc_and_where_alone(make_repo, tmp_path):
    repo = own_scripts(make_repo)  # no library: a chosen row stops at the hint, before anything runs
    rows = [dict(row) for _, row in worktree_keyed_rows(repo.path, ["dsr1-fp4-b300-vllm"])]
    assert [row["conc"] for row in rows] == [4, 8, 16]
    many = tmp_path / "many.json"
    many.write_text(json.dumps(rows))
    for source in (["--config-keys", "dsr1-fp4-b300-vllm"], ["--row-json", str(many)]):
        for flags in (["--conc", "4"], ["--conc", "8", "--where", "tp=8"]):
            r = sweepgate(["rehearse", *source, *flags], repo.path)
            assert r.returncode == 1 and r.stderr.startswith(CHOSEN), (source, flags, r.stderr)
        # the config's rows at its key line, named by the key given (s41i); a file's, by their exp-name
        where, who, has = (("configs/nvidia-master.yaml:1", "config key 'dsr1-fp4-b300-vllm'", "has")
                           if source[0] == "--config-keys" else (str(many), "exp-name 'dsr1_1k1k'", "matches"))
        r = sweepgate(["rehearse", *source], repo.path)
        assert r.returncode == 1 and r.stderr.splitlines() == [
            f"{where}: {who} {has} 3 rows (conc 4, 8, 16); choose one with --conc N"], r.stderr
        r = sweepgate(["rehearse", *source, "--conc", "5"], repo.path)
        assert r.returncode == 1 and r.stderr.splitlines() == [
            f"{where}: {who} has no row with conc 5; pick --conc from: 4, 8, 16"], r.stderr


def test_rows_of_several_exp_names_need_one_unless_conc_and_where_leave_one(make_repo):
    # refused at the first row's config block (s42e; at the configs/*-master.yaml glob before)
    repo = own_scripts(make_repo)
    r = sweepgate(["rehearse", "--config-keys", "dsr1-fp4-b300-*"], repo.path)
    assert r.returncode == 1 and r.stderr.splitlines() == [
        "configs/nvidia-master.yaml:1: no row chosen: 5 rows (exp-name dsr1_1k1k, dsr1_8k1k); pass --exp-name NAME "
        "(and --conc N when it repeats)"], r.stderr
    r = sweepgate(["rehearse", "--config-keys", "dsr1-fp4-b300-*", "--conc", "4"], repo.path)  # the rows it leaves
    assert r.returncode == 1 and r.stderr.splitlines() == [
        "configs/nvidia-master.yaml:1: no row chosen: 2 rows (exp-name dsr1_1k1k, dsr1_8k1k); "
        "pass --exp-name dsr1_1k1k, or --exp-name dsr1_8k1k"], r.stderr
    r = sweepgate(["rehearse", "--config-keys", "dsr1-fp4-b300-*", "--conc", "4", "--where", "tp=8"], repo.path)
    assert r.returncode == 1 and r.stderr.startswith(CHOSEN), r.stderr  # the vllm key's 1k1k row, tp 8


def test_rows_of_several_config_keys_name_every_key_not_the_first(make_repo):
    """`rehearse --exp-name dsv4_8k1k --conc 4` on InferenceX's configs (34 rows of 13 keys) ended "or
    --config-keys dsv4-fp4-b200-sglang": the first key by name, one the user had no reason to want, and no
    word of the others. The fix names the keys the rows come from."""
    from conftest import FLEET_NVIDIA

    other = FLEET_NVIDIA.split("\n\n")[0].replace("dsr1-fp4-b300-vllm:", "dsr1-fp4-b300-vllm-tp4:").replace(
        "{ tp: 8,", "{ tp: 4,")
    repo = make_repo(files={"configs/nvidia-master.yaml": FLEET_NVIDIA + "\n" + other + "\n"})
    r = sweepgate(["rehearse", "--exp-name", "dsr1_1k1k", "--conc", "4"], repo.path)
    assert r.returncode == 1 and r.stderr.splitlines() == [
        "configs/nvidia-master.yaml:1: exp-name 'dsr1_1k1k' matches 2 rows that differ in tp 4, 8; choose one with "
        "--where tp=4, or --config-keys with one of dsr1-fp4-b300-vllm, dsr1-fp4-b300-vllm-tp4"], r.stderr


def test_a_row_chosen_without_exp_name_is_the_one_its_exp_name_and_the_same_flags_choose():
    """Tidy (s36f): without --exp-name, `_implied` filtered the rows by --conc and --where with a copy of
    `select_row`'s filter; both use one now (`_filtered`). Whatever the flags, a row chosen without
    --exp-name is the row its exp-name with the same --conc and --where chooses, and holds what they say
    (a boolean field matched as JSON spells it, `dp-attn=true`)."""
    from sweepgate.core.errors import SweepgateError
    from sweepgate.rehearsal.runner import select_row

    rows = [{"exp-name": "a", "conc": 4, "tp": 8, "dp-attn": False}, {"exp-name": "a", "conc": 8, "tp": 8, "dp-attn": False},
            {"exp-name": "b", "conc": 4, "tp": 4, "dp-attn": True}, {"exp-name": "b", "conc": 4, "tp": 8, "dp-attn": True},
            {"exp-name": "c", "conc": [16, 32], "tp": 4, "dp-attn": False}]
    chosen = 0
    for conc in (None, 4, 8, 16, 32):
        for where in ([], ["tp=8"], ["tp=4"], ["dp-attn=true"], ["tp=8", "dp-attn=true"], ["dp-attn=false", "tp=4"]):
            try:
                row = select_row(rows, "rows.json", None, conc, where)
            except SweepgateError:
                continue
            chosen += 1
            assert row is select_row(rows, "rows.json", row["exp-name"], conc, where), (conc, where)
            concs = row["conc"] if isinstance(row["conc"], list) else [row["conc"]]
            assert conc is None or conc in concs, (conc, where, row)
            assert all(json.dumps(row[n]) == v or row[n] == v for n, _, v in (w.partition("=") for w in where)), row
    assert chosen == 12, chosen  # 7 with a copy matching `str(value)`: dp-attn=true then left every row
    assert select_row(rows, "rows.json", None, 4, ["dp-attn=true", "tp=8"]) is rows[3]
