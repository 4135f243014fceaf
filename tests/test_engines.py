"""Engine flag manifests and `sweepgate preflight` (issue 16 item 1)."""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys

import pytest
from conftest import ROOT
from lifetime import DIES_WITH_US

from sweepgate.engines import manifest as M
from sweepgate.engines.argcheck import check_argv
from sweepgate.engines.describe import walk
from sweepgate.engines.gflags import parse_helpfull

CLIENTS = ROOT / "benchmarks" / "lib" / "clients.sh"


def test_describe_reads_types_choices_and_nargs_from_a_real_parser():
    p = argparse.ArgumentParser(allow_abbrev=False)
    p.add_argument("--n", type=int)
    p.add_argument("--ratio", type=float, default=0.8)
    p.add_argument("--cfg", type=json.loads)
    p.add_argument("--mode", choices=["a", "b"])
    p.add_argument("--flag", action="store_true")
    p.add_argument("--many", nargs="+")
    p.add_argument("model")
    options, positionals = walk(p)
    by = {o["dest"]: o for o in options}
    assert by["n"]["kind"] == "int" and by["ratio"]["kind"] == "float" and by["cfg"]["kind"] == "json"
    assert by["mode"]["choices"] == ["a", "b"] and by["flag"]["takes_value"] is False
    assert by["many"]["nargs"] == "+" and [x["dest"] for x in positionals] == ["model"]


def test_committed_manifests_were_captured_from_the_real_packages():
    for name in ("vllm-0.11.0", "vllm-bench-0.11.0", "vllm-0.11.1", "vllm-bench-0.11.1", "lm-eval-0.4.9.1",
                 "aiperf-0.13.0", "lmcache-0.5.4rc2", "mooncake-0.3.7"):
        engine, version = name.rsplit("-", 1)
        found = M.load(engine, version)
        assert found and found["captured-by"] == "sweepgate engines capture" and found["version"] == version
        assert len(found["options"]) > 20, name
    assert (ROOT / "configs" / "engines" / "images.json").is_file()


@pytest.mark.parametrize("version,flagged", [("0.11.0", True), ("0.11.1", False)])
def test_num_warmups_is_unknown_to_vllm_0_11_0_only(version, flagged):
    problems = check_argv(M.load("vllm-bench", version), ["--model", "m", "--num-warmups", "8", "--seed", "0"])
    assert (("--num-warmups", "unknown") in problems) is flagged


def test_argv_checks_follow_the_parser():
    serve = M.load("vllm", "0.11.0")
    assert check_argv(serve, ["m", "--max_model_len", "2048", "--kv-cache-dtype=fp8", "--trust-remote-code"]) == []
    assert check_argv(serve, ["--kv-cache-dtype", "fp9"])[0][1].startswith("value 'fp9' is not one of")
    assert check_argv(serve, ["--tensor-parallel-size", "eight"])[0][1] == "value 'eight' is not an integer"
    assert check_argv(serve, ["--speculative-config", "{bad"])[0][1].startswith("value '{bad' is not valid JSON")
    assert check_argv(serve, ["--tensor-parallel-sizes", "8"]) == [("--tensor-parallel-sizes", "unknown")]
    mooncake = M.load("mooncake", "0.3.7")
    assert check_argv(mooncake, ["--metrics_port", "9003", "--eviction_ratio=0.10"]) == []
    # gflags looks a dashed name up again with underscores (the review ran the real mooncake_master)
    assert check_argv(mooncake, ["--metrics-port=28555", "--eviction-ratio", "0.1"]) == []
    assert check_argv(mooncake, ["--metrics-prt", "9003"]) == [("--metrics-prt", "unknown")]


@pytest.mark.parametrize("argv, problem", [
    # review: a valued flag took the next flag as its value, and the swallowed flag went unchecked
    (["m", "--tokenizer", "--max-num-seqs", "x"], ("--tokenizer", "needs 1 value")),
    # review: custom type functions (vllm/engine/arg_utils.py optional_type, human_readable_int)
    (["m", "--seed", "abc"], ("--seed", "value 'abc' is not an integer")),
    (["m", "--max-model-len", "abc"], ("--max-model-len", "value 'abc' is not an integer (or one like 25.6k or 2K)")),
    (["m", "--max-num-batched-tokens", "8192.0"], ("--max-num-batched-tokens",
                                                   "value '8192.0' is not an integer (or one like 25.6k or 2K)")),
    (["m", "--max-model-len", "1.5K"], ("--max-model-len", "value '1.5K' has decimals with the binary suffix K")),
    (["m", "--max-model-len", "2t"], ("--max-model-len", "value '2t' is not an integer (or one like 25.6k or 2K)")),
])
def test_values_are_checked_as_the_parser_converts_them(argv, problem):
    serve = M.load("vllm", "0.11.0")
    assert problem in check_argv(serve, argv)
    if argv[1] == "--tokenizer":
        assert ("--max-num-seqs", "value 'x' is not an integer") in check_argv(serve, argv)


def test_spec_config_must_be_json_and_good_values_pass():
    serve = M.load("vllm", "0.11.0")
    assert check_argv(serve, ["m", "--speculative-config", "mtp"])[0][1].startswith("value 'mtp' is not valid JSON")
    ok = ["m", "--seed", "None", "--max-model-len", "25.6k", "--max-num-batched-tokens", "2K", "-O3", "-Odecode",
          "-O=2", "--speculative-config", '{"method": "mtp"}', "--port", "-1"]
    assert check_argv(serve, ok) == []
    assert check_argv(M.load("vllm", "0.11.1"), ["m", "-O3"]) == []  # FlexibleArgumentParser's -O<level>


def test_gflags_booleans_take_what_gflags_takes():
    mooncake = M.load("mooncake", "0.3.7")
    for good in ("true", "False", "1", "no", "Y"):
        assert check_argv(mooncake, [f"--enable_metric_reporting={good}"]) == []
    assert check_argv(mooncake, ["--enable_metric_reporting=maybe"]) == [
        ("--enable_metric_reporting", "value 'maybe' is not a boolean (true, false, yes, no, 1 or 0)")]


def test_gflags_help_is_parsed():
    text = ("  Flags from master.cpp:\n    -rpc_port (Port for RPC server to listen on (0 = use port))\n"
            "      type: int32 default: 0\n    -enable_ha (Enable HA) type: bool default: false\n")
    by = {o["dest"]: o for o in parse_helpfull(text)}
    assert by["rpc_port"]["kind"] == "int" and by["enable_ha"]["flags"][2] == "--noenable_ha"


def test_capture_of_a_package_that_is_not_installed_is_one_line():
    proc = subprocess.run([sys.executable, "-m", "sweepgate", "engines", "capture", "--engine", "vllm"],
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT / "utils")})
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "package vllm is not installed" in proc.stderr.strip().splitlines()[-1]


def preflight_in_copy(tmp_path, old_client: bool) -> subprocess.CompletedProcess:
    fleet = tmp_path / ("old" if old_client else "fixed")
    shutil.copytree(ROOT / "configs", fleet / "configs", symlinks=False)
    shutil.copytree(ROOT / "benchmarks", fleet / "benchmarks")
    if old_client:  # the library before the fix: --num-warmups for every client
        clients = fleet / "benchmarks" / "lib" / "clients.sh"
        text = clients.read_text()
        assert text.count("    --seed 0\n") == 1
        clients.write_text(text.replace("    --seed 0\n", '    --seed 0\n    --num-warmups "$((2 * conc))"\n'))
    subprocess.run(["git", "init", "-q", str(fleet)], check=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "utils")}
    return subprocess.run([sys.executable, "-m", "sweepgate", "preflight", "--config-keys", "dsr1-fp8-b300-vllm",
                           "dsr1-fp8-mi355x-vllm"], cwd=fleet, capture_output=True, text=True, env=env, timeout=180)


def test_preflight_reports_num_warmups_at_its_line_and_passes_once_fixed(tmp_path):
    old = preflight_in_copy(tmp_path, old_client=True)
    assert old.returncode == 1, old.stdout + old.stderr
    errors = [line for line in old.stderr.splitlines() if "has no option" in line]
    assert errors, old.stderr
    where = re.match(r"benchmarks/lib/clients\.sh:(\d+): vllm 0\.11\.0 has no option --num-warmups", errors[0])
    assert where, errors[0]
    copied = (tmp_path / "old" / "benchmarks" / "lib" / "clients.sh").read_text().splitlines()
    assert "--num-warmups" in copied[int(where.group(1)) - 1]
    assert not any("0.11.1" in line.split(";")[0] for line in errors), "the MI355X image has vLLM 0.11.1"
    fixed = preflight_in_copy(tmp_path, old_client=False)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    times = [float(t) for t in re.findall(r"\((\d+\.\d+)s\)", fixed.stdout)]
    assert times, fixed.stdout  # each row says what it took (how fast is tests/bench/'s business, not a test's)


def test_preflight_prints_a_problem_shared_by_rows_once_with_its_row_count(tmp_path):
    """Review: one misspelt flag in a script four rows run was printed and annotated four times."""
    fleet = tmp_path / "fleet"
    shutil.copytree(ROOT / "configs", fleet / "configs", symlinks=False)
    shutil.copytree(ROOT / "benchmarks", fleet / "benchmarks")
    script = fleet / "benchmarks" / "single_node" / "fixed_seq_len" / "dsr1_fp8_b300_vllm.sh"
    text = script.read_text()
    assert text.count("--kv-cache-dtype fp8") == 1
    script.write_text(text.replace("--kv-cache-dtype fp8", "--kv-cache-dtypx fp8"))
    line = text[:text.index("--kv-cache-dtype fp8")].count("\n") + 1
    subprocess.run(["git", "init", "-q", str(fleet)], check=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "utils"), "GITHUB_ACTIONS": "true"}
    proc = subprocess.run([sys.executable, "-m", "sweepgate", "preflight", "--config-keys", "dsr1-fp8-b300-vllm"],
                          cwd=fleet, capture_output=True, text=True, env=env, timeout=180)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    # a line for the key (s51b), its rows counted, eval rows too (a line a row: --all-rows, test_preflight_grouped_s51b)
    said = re.search(r"^preflight: dsr1-fp8-b300-vllm: (\d+) rows \((.+)\): \d+ commands, 1 problem \(", proc.stdout,
                     re.M)
    assert said and int(said[1]) > 1, proc.stdout
    where = f"dsr1_fp8_b300_vllm.sh:{line}: vllm 0.11.0 has no option --kv-cache-dtypx"
    printed = [x for x in proc.stderr.splitlines() if "--kv-cache-dtypx" in x and not x.startswith("::")]
    assert len(printed) == 1 and where in printed[0], proc.stderr
    assert f"({said[1]} rows: {said[2]})" in printed[0]  # the rows' count and spread, as the key's line has them
    annotations = [x for x in proc.stderr.splitlines() if x.startswith("::error") and "--kv-cache-dtypx" in x]
    assert len(annotations) == 1 and f"line={line}::" in annotations[0], proc.stderr  # stderr: stdout may be data
    assert "1 problem," in proc.stderr.splitlines()[-1]


def test_a_row_whose_image_has_no_manifest_is_a_warning_naming_it(tmp_path):
    from sweepgate.engines.preflight import check_row

    row = {"image": "example/vllm:unknown", "exp-name": "x"}
    calls = [{"tool": "vllm", "argv": ["serve", "m", "--nonsense"]}]
    diags = check_row(row, calls, ROOT, CLIENTS)
    assert [d.severity for d in diags] == ["warning"] and "example/vllm:unknown" in diags[0].message


def test_a_digest_pinned_image_is_checked_by_its_tag():
    """Review: `vllm/vllm-openai:v0.11.0@sha256:...` (how real configs pin) found no manifest."""
    from sweepgate.engines.preflight import check_row

    row = {"image": "vllm/vllm-openai:v0.11.0@sha256:" + "0" * 64, "exp-name": "x"}
    calls = [{"tool": "vllm", "argv": ["serve", "m", "--kv-cache-dtype", "fp9"]}]
    (diag,) = check_row(row, calls, ROOT, CLIENTS)
    assert diag.severity == "error" and "--kv-cache-dtype" in diag.message and "0.11.0" in diag.message


def test_a_misspelt_flag_is_told_the_flag_it_is_nearest_to():
    """New user: `--speculative-confg` got "remove it or check its spelling against the manifest", a
    file in site-packages a newcomer does not know, while the gate names the key a typo meant."""
    from sweepgate.engines.preflight import check_row

    row = {"image": "vllm/vllm-openai:v0.11.0", "exp-name": "x"}
    calls = [{"tool": "vllm", "argv": ["serve", "m", "--speculative-confg", "{}", "--nonsense"]}]
    typo, other = check_row(row, calls, ROOT, CLIENTS)
    assert "has no option --speculative-confg" in typo.message
    assert typo.hint.startswith("did you mean --speculative-config? (the nearest flag vllm 0.11.0 has)"), typo.hint
    assert "has no option --nonsense" in other.message and "did you mean" not in other.hint, other.hint


def test_json_whose_quotes_the_shell_removed_is_told_to_be_single_quoted():
    """New user: `--speculative-config {"method":"mtp"}` unquoted in a script reaches vLLM as
    `{method:mtp}`; preflight said "is not valid JSON ...; pass a value the parser accepts", and the
    script's line still reads as valid JSON to its author."""
    from sweepgate.engines.preflight import check_row

    row = {"image": "vllm/vllm-openai:v0.11.0", "exp-name": "x"}
    for value, told in (("{method:mtp}", True), ('{"method": "mtp", num_speculative_tokens: 2}', True),
                        ('{"method": "mtp",}', False)):
        (diag,) = check_row(row, [{"tool": "vllm", "argv": ["serve", "m", "--speculative-config", value]}],
                            ROOT, CLIENTS)
        assert "is not valid JSON" in diag.message, diag
        assert ("put the JSON in single quotes in the script" in diag.hint) == told, (value, diag.hint)


def test_python_module_servers_are_checked_or_named_never_skipped():
    """Review: `python3 -m sglang.launch_server ...` calls were dropped without a word, and
    `python3 -m vllm.entrypoints.openai.api_server` was not checked."""
    from sweepgate.engines.preflight import check_row

    row = {"image": "vllm/vllm-openai:v0.11.0", "exp-name": "x"}
    calls = [{"tool": "python3", "argv": ["-m", "vllm.entrypoints.openai.api_server", "--model", "m", "--nonsense"]},
             {"tool": "python3", "argv": ["-m", "sglang.launch_server", "--model-path", "m"]}]
    diags = check_row(row, calls, ROOT, CLIENTS)
    # SGLang: said, but as information -- no manifest can be captured for it, so a warning would fail
    # --fail-on-warning for ever (diff review)
    assert [(d.severity, d.rule) for d in diags] == [("error", "engine-flag"), ("info", "engine-unchecked")]
    assert "has no option --nonsense" in diags[0].message
    assert "sglang commands are not checked" in diags[1].message


def test_an_adopting_repository_s_own_engines_folder_is_read_first(tmp_path):
    """New-user review: an installed sweepgate read only its package's images.json, so the
    adopting repository's own configs/engines/ entry for a new image changed nothing and the
    warning (whose hint named that very file) stayed for ever."""
    from sweepgate.engines.preflight import check_row

    row = {"image": "example/vllm:v0.26.0", "exp-name": "x"}
    calls = [{"tool": "vllm", "argv": ["serve", "m", "--nonsense"]}]
    script = tmp_path / "benchmarks" / "x.sh"
    script.parent.mkdir()
    script.write_text("vllm serve m --nonsense\n")
    (diag,) = check_row(row, calls, tmp_path, script)
    assert diag.severity == "warning" and "configs/engines/images.json ('" in diag.hint  # from the current folder
    own = tmp_path / "configs" / "engines"
    own.mkdir(parents=True)
    (own / "images.json").write_text(json.dumps({"images": {"example/vllm:v0.26.0": {"vllm": "0.11.1"}}}))
    M._folders.cache_clear(), M.images.cache_clear()  # read once a process; this test changes them
    (diag,) = check_row(row, calls, tmp_path, script)  # the package's vllm 0.11.1 manifest checks it
    assert diag.severity == "error" and "has no option --nonsense" in diag.message, diag
    # a manifest of the repository's own, for a version the package does not ship
    shipped = M.load("vllm", "0.11.1")
    (own / "vllm-9.9.9.json").write_text(json.dumps({**shipped, "version": "9.9.9"}))
    (own / "images.json").write_text(json.dumps({"images": {"example/vllm:v0.26.0": {"vllm": "9.9.9"}}}))
    M.images.cache_clear(), M.load.cache_clear()
    (diag,) = check_row(row, calls, tmp_path, script)
    assert diag.severity == "error" and "9.9.9" in diag.message, diag
    assert "9.9.9" in M.versions_of("vllm", tmp_path) and "9.9.9" not in M.versions_of("vllm")


# --------------------------------------------------------------------------- preflight speed (under a second a row)

STANDIN = ROOT / "utils" / "sweepgate" / "rehearsal" / "standin.py"
AGENTIC_KEY = "kimik3-fp4-b300-vllm-agentic-dspark-lmcache"


def _imports_of(argv: list[str], tmp_path, seconds: float | None = None) -> set[str]:
    """The modules a stand-in process imports (-X importtime), as the rehearsal shims run it."""
    cmd = [sys.executable, "-I", "-S", "-X", "importtime", str(STANDIN), *argv]
    env = {**os.environ, "SWEEPGATE_REHEARSE_LOG": str(tmp_path / "calls.jsonl")}
    if seconds is None:
        err = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=30).stderr
    else:  # a server: let it start, then stop it
        proc = subprocess.Popen([*DIES_WITH_US, *cmd], stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
                                env=env)
        try:
            proc.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            proc.terminate()
        err = proc.communicate(timeout=30)[1]
    return {line.rsplit("|", 1)[1].strip() for line in err.splitlines() if line.startswith("import time:")}


def test_standin_processes_import_only_what_their_role_needs(tmp_path):
    """Every shim call of a preflight row is a Python start: installs and downloads load no HTTP
    modules, and servers no client modules."""
    light = _imports_of(["shim", "pip", "install", "aiperf==0.13.0"], tmp_path)
    assert "json" in light and not light & {"http.server", "urllib.request", "argparse", "concurrent.futures"}
    port = str(__import__("sweepgate.rehearsal.runner", fromlist=["free_ports"]).free_ports(1)[0])
    server = _imports_of(["shim", "vllm", "serve", "m", "--port", port], tmp_path, seconds=1.5)
    assert "http.server" in server
    assert not server & {"urllib.request", "argparse", "concurrent.futures", "statistics"}
    assert [json.loads(line)["tool"] for line in (tmp_path / "calls.jsonl").read_text().splitlines()] == ["pip", "vllm"]


def _normalized_calls(calls: list[dict], env: dict, work) -> list[tuple[str, list[str]]]:
    """(tool, argv) with this run's ports and work folder replaced by names."""
    ports = {env[k]: f"${k}" for k in ("PORT", "LMCACHE_PORT", "LMCACHE_HTTP_PORT", "MOONCAKE_MASTER_PORT",
                                       "MOONCAKE_METRICS_PORT") if k in env}
    def norm(arg: str) -> str:
        arg = arg.replace(str(work), "$WORK")
        for port, name in ports.items():
            arg = re.sub(rf"(?<!\d){port}(?!\d)", name, arg)
        return arg
    return [(c["tool"], [norm(a) for a in c["argv"]]) for c in calls]


def test_preflight_records_the_commands_a_rehearsal_runs(tmp_path, monkeypatch):
    """The fast mode (no load, short polls, light shims) changes timing only: an agentic LMCache
    row records the same commands as a plain rehearsal of it."""
    from sweepgate.commands.preflight import one_per_recipe
    from sweepgate.core.sweep import worktree_rows
    from sweepgate.rehearsal import record, runner

    row = one_per_recipe(list(worktree_rows(ROOT, [AGENTIC_KEY])))[0]
    name = runner.default_runner_name(row)
    script = runner.resolve_script(ROOT, row, runner.gpu_family(name))
    plain_env, paths = runner.prepare(tmp_path / "plain", row, name, record.FAST_DURATION_S)
    run = runner.run_script(script, ROOT, plain_env, paths["out"], 120)
    assert (run.rc, run.timed_out, run.left) == (0, False, []), runner._tail(paths["out"])
    plain = _normalized_calls(runner.read_calls(paths["log"]), plain_env, tmp_path / "plain")

    seen = {}
    prepare = runner.prepare

    def keep_env(work, *args):
        seen["env"], seen["paths"] = prepare(work, *args)
        return seen["env"], seen["paths"]

    monkeypatch.setattr(runner, "prepare", keep_env)
    rec = record.record_row(row, ROOT, 120, keep=tmp_path / "fast")
    assert (rec.rc, rec.timed_out, rec.leftovers) == (0, False, [])
    assert seen["env"][record.FAST_POLL_ENV] == record.FAST_POLL_S
    fast = _normalized_calls(rec.calls, seen["env"], tmp_path / "fast")
    assert [tool for tool, _ in fast] == ["hf", "hf", "pip", "lmcache", "vllm", "pip", "aiperf"]
    assert fast == plain


def test_one_row_per_recipe_takes_multinode_rows_without_a_fingerprint():
    """Review (CI path): preflight on a PR with two multi-node eval rows (no recipe-fingerprint,
    conc a list) ended in "internal error: '<' not supported between 'int' and 'list'"."""
    from sweepgate.commands.preflight import one_per_recipe

    base = {"runner": "b200-multinode", "isl": 1024, "osl": 1024, "exp-name": "m3_1k1k", "image": "x"}
    rows = [{**base, "conc": [64, 128]}, {**base, "conc": [8, 16]}, {**base, "image": "y", "conc": [4]},
            {**base, "recipe-fingerprint": "f", "conc": 32}, {**base, "recipe-fingerprint": "f", "conc": 4}]
    kept = one_per_recipe(rows)
    assert [r["conc"] for r in kept] == [[8, 16], [4], 4]


def test_a_failed_script_is_named_by_its_error_line_not_its_cleanup():
    """New-user review: a client flag typo was reported as "(Stopped vLLM server.)", the exit
    trap's last line, while the line above said what was wrong."""
    from sweepgate.core.scriptlines import cause as _cause

    tail = ("Starting vLLM server: vllm serve m\n"
            "run_benchmark_serving: unknown option '--random-range-ratoi'\n"
            "Stopping vLLM server (PID 12, 0 descendants)\n(Stopped vLLM server.)\n")
    assert _cause(tail) == "run_benchmark_serving: unknown option '--random-range-ratoi'"
    assert _cause("a\nlast words\n(Stopped vLLM server.)\n") == "last words"  # no error-like line
    assert _cause("") == ""


def test_a_problem_a_row_meets_once_per_concurrency_counts_once(monkeypatch, capsys, tmp_path):
    """Review: a multi-concurrency row whose bench command ran twice printed "2 problems" and
    "(2 rows: X conc [256, 512], X conc [256, 512])" for one misspelt flag in one row."""
    from types import SimpleNamespace

    from sweepgate.commands import preflight as cmd
    from sweepgate.core.errors import Diagnostic
    from sweepgate.engines import preflight as engine_preflight
    from sweepgate.rehearsal import record

    # a label the repository's configs/runners.yaml lists (s40t: another is a warning of its own)
    row = {"exp-name": "dsr1_1k1k", "runner": "cluster:mi355x-amds", "conc": [256, 512]}
    same = Diagnostic("benchmarks/lib/clients.sh", 9, 0, "engine-flag", "vllm 0.11.0 has no option --x", "fix")
    monkeypatch.setattr(cmd, "select_rows", lambda args, root: ([row], None))
    monkeypatch.setattr(cmd, "no_script", lambda *a: None)
    monkeypatch.setattr(record, "record_row", lambda *a, **k: SimpleNamespace(calls=[{}, {}], script=tmp_path / "s.sh"))
    monkeypatch.setattr(engine_preflight, "check_row", lambda *a: [same, same])
    monkeypatch.setattr(cmd, "_run_problems", lambda *a: [])
    flags = {"base_ref": None, "head_ref": None, "config_keys": None, "changelog_file": None}  # no combination refused
    assert cmd.run(SimpleNamespace(timeout=10, fail_on_warning=False, **flags)) == 1
    out, err = capsys.readouterr()
    assert "2 commands, 1 problem (" in out and "rows:" not in err, (out, err)
    assert "1 row, 1 problem, 0 warnings" in err


def test_a_script_asking_the_client_for_an_option_sees_the_pinned_version_s(tmp_path):
    """Review: clients.sh adds --num-warmups only when `vllm bench serve --help` lists it; the stand-in's
    help never did, so the command the real vLLM 0.11.1 job runs (with --num-warmups) went unchecked."""
    from sweepgate.commands.preflight import one_per_recipe
    from sweepgate.core.sweep import worktree_rows
    from sweepgate.engines.preflight import pinned_help
    from sweepgate.rehearsal import record

    row = one_per_recipe(list(worktree_rows(ROOT, ["dsr1-fp8-mi355x-vllm"])))[0]
    assert M.image_engines(row["image"])["vllm-bench"] == "0.11.1"
    helped = pinned_help(row, ROOT)
    assert "--num-warmups" in helped["vllm bench serve"]
    bench = [c["argv"] for c in record.record_row(row, ROOT, 120, help_flags=helped).calls
             if c["tool"] == "vllm" and c["argv"][:2] == ["bench", "serve"] and "--help" not in c["argv"]]
    assert bench and all("--num-warmups" in argv for argv in bench), bench
    older = {"vllm bench serve": sorted({f for o in M.load("vllm-bench", "0.11.0")["options"] for f in o["flags"]})}
    bench = [c["argv"] for c in record.record_row(row, ROOT, 120, help_flags=older).calls
             if c["tool"] == "vllm" and c["argv"][:2] == ["bench", "serve"] and "--help" not in c["argv"]]
    assert bench and not any("--num-warmups" in argv for argv in bench), bench


def test_a_refused_value_is_located_at_the_line_that_writes_it(tmp_path):
    """Review: with fp8_e4m3 in the `if` branch (line 2) and fp8_e4m3fn in the `else` (line 4), the
    bad value was reported at line 2, the valid one."""
    from sweepgate.engines.preflight import locate

    script = tmp_path / "benchmarks" / "x.sh"
    script.parent.mkdir()
    script.write_text("if true; then\n  a=(--kv-cache-dtype fp8_e4m3)\nelse\n  a=(--kv-cache-dtype fp8_e4m3fn)\nfi\n")
    assert locate(tmp_path, script, "--kv-cache-dtype", "fp8_e4m3fn") == ("benchmarks/x.sh", 4)
    assert locate(tmp_path, script, "--kv-cache-dtype", "fp8_e4m3") == ("benchmarks/x.sh", 2)
    assert locate(tmp_path, script, "--kv-cache-dtype", "nowhere") == ("benchmarks/x.sh", 2)
    assert locate(tmp_path, script, "--kv-cache-dtype") == ("benchmarks/x.sh", 2)
    # an empty value (--flag=) at the line that writes it (bad-input review: the first line naming the flag)
    script.write_text("a=(--port=8000)\nb=(--port= --x)\n")
    assert locate(tmp_path, script, "--port", "") == ("benchmarks/x.sh", 2)


# --------------------------------------------------------------------------- a manifest or images.json that cannot be read

@pytest.mark.parametrize("name,text,where,what", [
    ("images.json", '{"images": {\n', "images.json:2:1", "not valid JSON: Expecting property name"),
    ("images.json", "[]", "images.json:1", "holds an array, not an object"),
    ("images.json", '{"images": {\n "example/vllm:v1": {"vllm": 11}}}', "images.json:2", "the vllm version is a number"),
    ("vllm-0.11.0.json", "", "vllm-0.11.0.json:1:1", "not valid JSON: Expecting value"),
    ("vllm-0.11.0.json", "{}", "vllm-0.11.0.json:1", "not a flag manifest: has no 'engine'"),
    ("vllm-0.11.0.json", '{"engine": "vllm", "package": "vllm", "version": "0.11.0", "command": "vllm serve",\n'
                         ' "options": []}', None, None),
    ("vllm-0.11.0.json", '{"engine": "vllm", "package": "vllm", "version": "0.11.0", "command": "vllm serve",\n'
                         ' "options": [{"flags": ["--x"]}]}', "vllm-0.11.0.json:2", "options[0] has no 'nargs'"),
    ("vllm-0.11.0.json", '{"engine": "vllm",\n "options": []}', "vllm-0.11.0.json:1", "has no 'package'"),
])
def test_a_broken_manifest_or_images_list_is_one_line_at_its_file(tmp_path, name, text, where, what):
    """Review: a bad configs/engines/images.json or manifest was 'internal error: JSONDecodeError'
    (TypeError for [], KeyError 'options' for {}, KeyError 'command' for a manifest without it)."""
    from sweepgate.core.errors import SweepgateError

    own = tmp_path / "configs" / "engines"
    own.mkdir(parents=True)
    (own / "images.json").write_text(json.dumps({"images": {"example/vllm:v1": {"vllm": "0.11.0"}}}))
    (own / name).write_text(text)
    if where is None:  # no option at all is a manifest: it refuses every flag
        assert M.load("vllm", "0.11.0", tmp_path)["options"] == []
        return
    with pytest.raises(SweepgateError) as caught:
        M.images(tmp_path) if name == "images.json" else M.load("vllm", "0.11.0", tmp_path)
    (diag,) = caught.value.diagnostics
    line = diag.render()
    assert line.startswith(f"configs/engines/{where}: ") and what in line, line
    hint = "sweepgate engines capture --engine vllm --out configs/engines/vllm-0.11.0.json"
    assert (hint if name != "images.json" else '{"images": {IMAGE: {ENGINE: VERSION}}}') in line.split("; ", 1)[1]


def test_preflight_names_a_broken_manifest_once_and_checks_every_other_row(tmp_path):
    """Review: an empty configs/engines/vllm-0.11.0.json stopped preflight with an internal error."""
    fleet = tmp_path / "fleet"
    shutil.copytree(ROOT / "configs", fleet / "configs", symlinks=False)
    shutil.copytree(ROOT / "benchmarks", fleet / "benchmarks")
    (fleet / "configs" / "engines" / "vllm-0.11.0.json").write_text("")
    subprocess.run(["git", "init", "-q", str(fleet)], check=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "utils"), "GITHUB_ACTIONS": "true"}
    proc = subprocess.run([sys.executable, "-m", "sweepgate", "preflight", "--config-keys", "dsr1-fp8-b300-vllm",
                           "dsr1-fp8-mi355x-vllm"], cwd=fleet, capture_output=True, text=True, env=env, timeout=180)
    assert proc.returncode == 1 and "internal error" not in proc.stderr, proc.stderr
    told = [x for x in proc.stderr.splitlines() if "vllm-0.11.0.json" in x and not x.startswith("::")]
    assert len(told) == 1 and told[0].startswith("configs/engines/vllm-0.11.0.json:1:1: not valid JSON"), proc.stderr
    assert "::error file=configs/engines/vllm-0.11.0.json,line=1::" in proc.stderr
    # the MI355X rows (vLLM 0.11.1) are still rehearsed and checked
    assert re.search(r"^preflight: dsr1-fp8-mi355x-vllm: \d+ rows \(.* on cluster:mi355x-amds, .*\): "
                     r"[1-9]\d* commands, 0 problems", proc.stdout, re.M), proc.stdout
    assert re.match(r"preflight: \d+ rows( \(\d+ eval\))?, 1 problem, 0 warnings", proc.stderr.splitlines()[-1]), proc.stderr


def test_preflight_names_every_missing_script_once_at_its_config_and_checks_the_other_rows(tmp_path):
    """Review: preflight stopped at the first row without a script, at that script's (missing) path with
    no line, and checked nothing else; plan says each at the config's block."""
    fleet = tmp_path / "fleet"
    shutil.copytree(ROOT / "configs", fleet / "configs", symlinks=False)
    shutil.copytree(ROOT / "benchmarks", fleet / "benchmarks")
    shutil.copy(ROOT / "perf-changelog.yaml", fleet / "perf-changelog.yaml")
    git = ["git", "-C", str(fleet), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run(["git", "init", "-q", str(fleet)], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "base"], check=True)
    for gpu in ("b300", "mi355x"):
        (fleet / "benchmarks" / "single_node" / "fixed_seq_len" / f"dsr1_fp8_{gpu}_vllm.sh").unlink()
    lines = {f: (fleet / "configs" / f).read_text().splitlines() for f in ("nvidia-master.yaml", "amd-master.yaml")}
    where = {key: f"configs/{f}:{lines[f].index(key + ':') + 1}: '{key}' (fixed-seq-len) resolves to no benchmark script"
             for f, key in (("nvidia-master.yaml", "dsr1-fp8-b300-vllm"), ("amd-master.yaml", "dsr1-fp8-mi355x-vllm"))}
    env = {**os.environ, "PYTHONPATH": str(ROOT / "utils"), "GITHUB_ACTIONS": "true"}
    keys = ["dsr1-fp8-b300-vllm", "dsr1-fp8-mi355x-vllm", "kimik3-fp4-b300-vllm-agentic-dspark-lmcache"]
    proc = subprocess.run([sys.executable, "-m", "sweepgate", "preflight", "--config-keys", *keys],
                          cwd=fleet, capture_output=True, text=True, env=env, timeout=180)

    def said(proc) -> None:
        assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stdout + proc.stderr
        told = [x for x in proc.stderr.splitlines() if "no benchmark script" in x and not x.startswith("::")]
        assert sorted(x.split(" (fixed-seq-len)")[0] for x in told) == sorted(
            w.split(" (fixed-seq-len)")[0] for w in where.values()), proc.stderr  # once a script, at its config
        assert all(any(x.startswith(w) and "rows: " in x for x in told) for w in where.values()), told
        for w in where.values():
            file, line = w.split(":")[:2]
            assert f"::error file={file},line={line}::" in proc.stderr
        assert re.match(r"preflight: \d+ rows( \(\d+ eval\))?, 2 problems, ", proc.stderr.splitlines()[-1]), proc.stderr

    said(proc)
    assert re.search(r"^preflight: kimik3\S*: \d+ rows? \(.*cluster:b300-nv.*\): [1-9]\d* commands, 0 problems",
                     proc.stdout, re.M), proc.stdout  # the other rows are still rehearsed
    # the change's matrix (--base-ref/--head-ref): at head's config blocks too
    with open(fleet / "perf-changelog.yaml", "a") as fh:
        fh.write("\n- config-keys:\n    - dsr1-fp8-b300-vllm\n    - dsr1-fp8-mi355x-vllm\n  description:\n"
                 "    - \"Drop the scripts.\"\n  pr-link: https://github.com/sweepgate/example-fleet/pull/9\n")
    subprocess.run([*git, "commit", "-qam", "head"], check=True)
    said(subprocess.run([sys.executable, "-m", "sweepgate", "preflight", "--base-ref", "HEAD~", "--head-ref", "HEAD"],
                        cwd=fleet, capture_output=True, text=True, env=env, timeout=180))


def test_preflight_of_the_working_tree_checks_the_eval_rows_lm_eval_commands(tmp_path):
    """Review: without --base-ref, rows came from the configs with run-eval never set, so a bad lm_eval
    flag passed ('11 rows, 0 problems') that the change's matrix (its eval rows) reports."""
    fleet = tmp_path / "fleet"
    shutil.copytree(ROOT / "configs", fleet / "configs", symlinks=False)
    shutil.copytree(ROOT / "benchmarks", fleet / "benchmarks")
    evals = fleet / "benchmarks" / "lib" / "evals.sh"
    text = evals.read_text()
    assert text.count("    lm_eval\n") == 1
    evals.write_text(text.replace("    lm_eval\n", "    lm_eval\n    --bogus-eval-flag\n"))
    line = text[:text.index("    lm_eval\n")].count("\n") + 2
    subprocess.run(["git", "init", "-q", str(fleet)], check=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "utils")}
    proc = subprocess.run([sys.executable, "-m", "sweepgate", "preflight", "--config-keys", "dsr1-fp8-b300-vllm",
                           "--all-rows"], cwd=fleet, capture_output=True, text=True, env=env, timeout=180)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    told = [x for x in proc.stderr.splitlines() if "--bogus-eval-flag" in x]
    assert len(told) == 1 and told[0].startswith(
        f"benchmarks/lib/evals.sh:{line}: lm_eval 0.4.9.1 has no option --bogus-eval-flag"), proc.stderr
    # one eval row per recipe the sweep evaluates (8k1k tp8 and tp4), each said to be one
    evals_run = re.findall(r"^preflight: (eval \S+ \S+ tp\d+ conc \d+): \d+ commands, 1 problem", proc.stdout, re.M)
    assert sorted(evals_run) == ["eval dsr1_8k1k cluster:b300-nv tp4 conc 32",
                                 "eval dsr1_8k1k cluster:b300-nv tp8 conc 32"], proc.stdout
    assert re.search(r"^preflight: (?!eval )\S+ .*: \d+ commands, 0 problems", proc.stdout, re.M), proc.stdout
    assert re.match(r"preflight: \d+ rows \(2 eval\), 1 problem, ", proc.stderr.splitlines()[-1]), proc.stderr


def test_the_eval_rows_of_a_sweep_are_the_matrix_s_and_leave_the_rows_as_they_were():
    from sweepgate.core.sweep import sweep_eval_rows, worktree_rows

    rows = worktree_rows(ROOT, ["dsr1-fp8-b300-vllm"])
    before = json.dumps(rows, sort_keys=True)
    evals = sweep_eval_rows(rows)
    assert json.dumps(rows, sort_keys=True) == before
    assert evals and all(r["run-eval"] and r["eval-only"] and "recipe-fingerprint" not in r for r in evals)
    proc = subprocess.run([sys.executable, "-m", "sweepgate", "test-config", "--config-keys", "dsr1-fp8-b300-vllm",
                           "--evals-only"], cwd=ROOT, capture_output=True, text=True, check=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT / "utils")})
    assert evals == json.loads(proc.stdout)


def test_a_bash_syntax_error_is_one_problem_at_the_line_bash_names(tmp_path):
    """Review: a script bash could not parse was reported at 'FILE:' with no line, though bash's own
    'line 31: syntax error' was quoted, and once per exp-name (2 problems for one broken script)."""
    fleet = tmp_path / "fleet"
    shutil.copytree(ROOT / "configs", fleet / "configs", symlinks=False)
    shutil.copytree(ROOT / "benchmarks", fleet / "benchmarks")
    rel = "benchmarks/single_node/fixed_seq_len/dsr1_fp8_b300_vllm.sh"
    text = (fleet / rel).read_text()
    assert text.count("prepare_model_path || exit 1\n") == 1
    (fleet / rel).write_text(text.replace("prepare_model_path || exit 1\n", "prepare_model_path ) || exit 1\n"))
    line = text[:text.index("prepare_model_path || exit 1\n")].count("\n") + 1
    subprocess.run(["git", "init", "-q", str(fleet)], check=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "utils"), "GITHUB_ACTIONS": "true"}
    proc = subprocess.run([sys.executable, "-m", "sweepgate", "preflight", "--config-keys", "dsr1-fp8-b300-vllm"],
                          cwd=fleet, capture_output=True, text=True, env=env, timeout=180)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stdout + proc.stderr
    told = [x for x in proc.stderr.splitlines() if "syntax error" in x and not x.startswith("::")]
    assert len(told) == 1, proc.stderr  # one script, one problem, whichever exp-names run it
    assert told[0].startswith(f"{rel}:{line}: bash stops here: syntax error near unexpected token `)' ("), told
    assert "dsr1_1k1k" in told[0] and "dsr1_8k1k" in told[0] and " rows: " in told[0], told
    assert f"::error file={rel},line={line}::" in proc.stderr
    assert re.match(r"preflight: \d+ rows( \(\d+ eval\))?, 1 problem, ", proc.stderr.splitlines()[-1]), proc.stderr


def test_a_syntax_error_bash_names_outside_the_repository_is_left_to_the_script_s_failure(tmp_path):
    from sweepgate.commands.preflight import _syntax_error

    lib = tmp_path / "benchmarks" / "lib" / "x.sh"
    lib.parent.mkdir(parents=True)
    lib.write_text("f() {\n")
    d = _syntax_error(f"start\n{lib}: line 2: syntax error: unexpected end of file\n(Stopped vLLM server.)", tmp_path)
    assert (d.file, d.line) == ("benchmarks/lib/x.sh", 2) and "unexpected end of file" in d.message
    assert _syntax_error("bash: -c: line 1: syntax error near unexpected token `)'", tmp_path) is None
    assert _syntax_error("/etc/profile: line 1: syntax error: unexpected end of file", tmp_path) is None
    assert _syntax_error("run_benchmark_serving: unknown option '--x'", tmp_path) is None


def test_capture_out_is_written_whole_and_an_unwritable_one_is_one_line(tmp_path, monkeypatch, capsys):
    """--out goes through core.atomic (its twin here made its temporary file outside what removes it,
    and a folder it could not write to was a traceback)."""
    from sweepgate import cli
    from sweepgate.engines import capture as C

    monkeypatch.setattr(C, "capture", lambda engine: {"version": "0.0.1", "options": [{"flag": "--x"}]})
    out = tmp_path / "sub" / "vllm-0.0.1.json"
    out.parent.mkdir()  # msgs28: a folder that is not there is refused, not made (the test below)
    assert cli.main(["engines", "capture", "--engine", "vllm", "--out", str(out)]) == 0
    assert json.loads(out.read_text())["version"] == "0.0.1"
    assert [p.name for p in out.parent.iterdir()] == [out.name]  # no temporary file left beside it
    (tmp_path / "plain").write_text("a file, not a folder")
    capsys.readouterr()
    rc = cli.main(["engines", "capture", "--engine", "vllm", "--out", str(tmp_path / "plain" / "m.json")])
    err = capsys.readouterr().err
    assert rc == 1 and len(err.strip().splitlines()) == 1 and f"{tmp_path / 'plain'} is a file, not a folder" in err, err


def test_capture_to_an_empty_out_is_argument_syntax():
    """Hunt badin18: `engines capture --out "$UNSET"` wrote the manifest to standard output in silence."""
    r = subprocess.run([sys.executable, "-m", "sweepgate", "engines", "capture", "--engine", "vllm", "--out", ""],
                       capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT / "utils")})
    assert r.returncode == 2 and "argument --out: empty value" in r.stderr and r.stdout == "", r.stderr


def test_an_option_whose_manifest_lists_no_choice_says_so():
    """Hunt badin18 (left open, then fixed): an empty `choices` said "value 'fp8' is not one of " and
    nothing after it."""
    from sweepgate.engines.argcheck import value_problem

    assert value_problem({"choices": []}, "fp8") == "is given, and the manifest lists no value this option takes"
    assert value_problem({"choices": ["fp8", "fp4"]}, "int8") == "is not one of fp8, fp4"


def test_a_pip_pin_whose_version_is_no_file_name_pins_nothing():
    """Hunt badin18 (left open, then fixed): a script's `pip install lmcache==1/../x` made the manifest
    path configs/engines/lmcache-1/../x.json, outside the folder, as an images.json version did."""
    from sweepgate.engines.manifest import pins_in

    assert pins_in(["install", "lmcache==1/../../x", "lm-eval[api]==0.4.8"]) == {"lm-eval": "0.4.8"}
    assert pins_in(["install", "lmcache==0.5.4rc2", "aiperf==0.3.0+local"]) == {"lmcache": "0.5.4rc2",
                                                                               "aiperf": "0.3.0+local"}


@pytest.mark.parametrize("parent", ["missing", "a-file"])
def test_capture_out_in_a_folder_that_is_not_there_is_refused_as_every_output_file_is(tmp_path, parent):
    """msgs28: `engines capture --out DIR/m.json` made a missing DIR (with its parents), where every other
    flag that names a file to write (`ci matrix --out`, `--comment-file`, `--step-summary`) refuses a folder
    that is not there in one line, exit 1, nothing written. It is refused so too, before the package is
    imported (a folder that is a file alike)."""
    from test_bad_input_badin18 import fake_lm_eval

    main = ("import argparse\ndef setup_parser():\n    p = argparse.ArgumentParser()\n"
            "    p.add_argument('--limit', type=int)\n    return p\n")
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}, **fake_lm_eval(tmp_path, main)}
    folder = tmp_path / parent / "deeper"
    if parent == "a-file":
        (tmp_path / parent).write_text("x")
    out = folder / "lm-eval.json"
    proc = subprocess.run([sys.executable, "-m", "sweepgate", "engines", "capture", "--engine", "lm-eval",
                           "--out", str(out)], cwd=tmp_path, capture_output=True, text=True, env=env, timeout=60)
    assert (proc.returncode, proc.stdout) == (1, ""), proc
    said = (f"its folder {folder} does not exist; create the folder first or pass --out in an existing one"
            if parent == "missing" else  # s32c: no folder can be created under a file
            f"{tmp_path / parent} is a file, not a folder; pass --out in an existing folder")
    assert proc.stderr == f"{out}: --out: {said}\n", proc.stderr
    assert not (tmp_path / "missing").exists() and not out.exists()
    made = subprocess.run([sys.executable, "-m", "sweepgate", "engines", "capture", "--engine", "lm-eval",
                           "--out", str(tmp_path / "lm-eval.json")], cwd=tmp_path, capture_output=True, text=True,
                          env=env, timeout=60)
    assert made.returncode == 0, made.stderr  # in a folder that is there: written
    assert "--limit" in {f for o in json.loads((tmp_path / "lm-eval.json").read_text())["options"] for f in o["flags"]}
