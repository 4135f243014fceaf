"""`rehearse`'s places and wording, as a new user met them (s41i's walk on InferenceX's configs), each a real
process in a real git repository.

1. `rehearse --config-keys KEY` (no --exp-name) refused its rows at `configs/*-master.yaml` (a glob: no line,
   and under GitHub Actions an annotation at no file), saying "exp-name 'dsv4_8k1k' matches 7 rows" though only
   the key was given. Rows all of one config are refused at that config's key line, naming the key given.
2. Run from `benchmarks/`, a row with no benchmark script was told `create benchmarks/single_node/...sh`, a
   path from the top, at the missing script's path, where `preflight` (and `plan`) say it at the config's
   block and name a fix's paths from the current folder. `rehearse` says it there, its paths from here too.
3. A timeout whose SIGTERM ended the script was said twice over ("stopped with SIGTERM and was killed by
   SIGTERM (signal 15)"); `--where epp=1` was offered `pp` alone, though `ep` is as close; a runner label
   `gb300-nv` was offered `gb300` before `cluster:gb300-nv`, a listed label holding it whole.
"""
from __future__ import annotations

from test_gate_cli_s34c import own_scripts, sweepgate

from sweepgate.core import plan

KEY = "dsr1-fp4-b300-vllm"  # the first key of conftest's FLEET_NVIDIA: its line is 1
AT_KEY = "configs/nvidia-master.yaml:1"
LIB = {"benchmarks/benchmark_lib.sh": "#!/usr/bin/env bash\n"}


# --- 1. --config-keys: at the config's line, named as given ---------------------------------------------------

def test_rows_of_one_config_key_are_refused_at_its_line_naming_the_key(make_repo):
    repo = own_scripts(make_repo)
    told = {
        (): f"{AT_KEY}: config key '{KEY}' has 3 rows (conc 4, 8, 16); choose one with --conc N",
        ("--conc", "5"): f"{AT_KEY}: config key '{KEY}' has no row with conc 5; pick --conc from: 4, 8, 16",
        ("--where", "tp=3"): f"{AT_KEY}: no row of config key '{KEY}' has tp=3; its rows have tp 8",
    }
    for flags, line in told.items():
        r = sweepgate(["rehearse", "--config-keys", KEY, *flags], repo.path)
        assert r.returncode == 1 and r.stderr.splitlines() == [line], (flags, r.stderr)
    # under GitHub Actions the annotation is at that line of that file
    r = sweepgate(["rehearse", "--config-keys", KEY], repo.path, GITHUB_ACTIONS="true")
    assert "::error file=configs/nvidia-master.yaml,line=1" in r.stderr, r.stderr
    assert "::error::" not in r.stderr, r.stderr
    # --exp-name given is named as given, at the config's line where its rows are of one config
    r = sweepgate(["rehearse", "--exp-name", "dsr1_1k1k"], repo.path)
    assert r.returncode == 1 and r.stderr.splitlines() == [
        f"{AT_KEY}: exp-name 'dsr1_1k1k' matches 3 rows (conc 4, 8, 16); choose one with --conc N"], r.stderr


# --- 2. no script: where preflight says it, its paths from the current folder ----------------------------------

def test_a_missing_script_is_said_where_preflight_says_it_with_paths_from_here(make_repo):
    repo = make_repo(files=LIB)
    here = repo.path / "benchmarks"
    r = sweepgate(["rehearse", "--config-keys", KEY, "--conc", "4"], here)
    assert r.returncode == 1 and r.stderr.splitlines() == [
        f"{AT_KEY}: no benchmark script for exp-name 'dsr1_1k1k'; create single_node/fixed_seq_len/"
        "dsr1_fp4_b300_vllm.sh (or single_node/fixed_seq_len/dsr1_fp4_b300.sh)"], r.stderr
    pf = sweepgate(["preflight", "--config-keys", KEY], here)
    said = [line for line in pf.stderr.splitlines() if "no benchmark script" in line]
    assert pf.returncode == 1 and said and said[0].startswith(f"{AT_KEY}: "), pf.stderr
    # from the top, the paths are from the top
    r = sweepgate(["rehearse", "--config-keys", KEY, "--conc", "4"], repo.path)
    assert r.stderr.endswith("; create benchmarks/single_node/fixed_seq_len/dsr1_fp4_b300_vllm.sh (or "
                             "benchmarks/single_node/fixed_seq_len/dsr1_fp4_b300.sh)\n"), r.stderr


# --- 3. wording -------------------------------------------------------------------------------------------------

def test_a_timeout_ended_by_its_sigterm_says_sigterm_once(make_repo, tmp_path):
    script = "benchmarks/single_node/fixed_seq_len/dsr1_fp4_b300_vllm.sh"
    repo = make_repo(files={**LIB, script: "#!/usr/bin/env bash\necho starting\nsleep 300\n"})
    r = sweepgate(["rehearse", "--config-keys", KEY, "--conc", "4", "--timeout", "1",
                   "--work-dir", str(tmp_path / "w")], repo.path)
    said = [line for line in r.stderr.splitlines() if "did not finish" in line]
    assert r.returncode == 1 and said, r.stderr
    assert said[0].count("SIGTERM") == 1 and "was killed by SIGTERM" not in said[0], said
    assert "did not finish within 1s; it was stopped by SIGTERM (signal 15); " in said[0], said


def test_a_mistyped_where_field_is_offered_every_field_as_close(make_repo):
    repo = own_scripts(make_repo)
    r = sweepgate(["rehearse", "--config-keys", KEY, "--where", "epp=1"], repo.path)
    assert r.returncode == 1 and f": no row of config key '{KEY}' has a field 'epp'; did you mean ep or pp? (" \
        in r.stderr, r.stderr


def test_a_listed_label_holding_the_runner_whole_is_offered_first():
    labels = ["b300", "cluster:b300-nv", "cluster:gb300-nv", "gb300", "h200"]
    d = plan.unknown_runner("gb300-nv", labels, ("configs/nvidia-master.yaml", 5, 3))
    assert d.hint.startswith("did you mean 'cluster:gb300-nv' (or gb300"), d.hint
    # none holding it: the closest, as before
    d = plan.unknown_runner("b300-nvv", labels, ("configs/nvidia-master.yaml", 5, 3))
    assert d.hint.startswith("did you mean 'b300' (or gb300, "), d.hint

