"""Values that reach a shell: schema patterns refuse a trailing newline in both validators, and
the launchers keep each argument whole."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import fastjsonschema
import jsonschema
import pytest

ROOT = Path(__file__).resolve().parents[1]
SCHEMAS = ROOT / "utils" / "sweepgate" / "schemas"
sys.path.insert(0, str(ROOT / "utils"))
sys.path.insert(0, str(Path(__file__).resolve().parent))


def patterns():
    found = []

    def walk(node, where):
        if isinstance(node, dict):
            if isinstance(node.get("pattern"), str):
                found.append((where, node["pattern"]))
            for k, v in node.items():
                walk(v, f"{where}/{k}")
        elif isinstance(node, list):
            for i, v in enumerate(node):
                walk(v, f"{where}/{i}")

    for path in sorted(SCHEMAS.glob("*.json")):
        walk(json.loads(path.read_text()), path.name)
    return found


FREE_TEXT = {"perf-changelog.schema.json/$defs/entry/properties/description/items"}
# Patterns a value must NOT match (under `not`): envSetting's refused variable names, each a name and '='.
REFUSING = {"master-config.schema.json/$defs/envSetting/not"}
SHELL_WORDS = ["fp4 $(touch /tmp/x) #abc", "a;b", "a b", "$(id)", "`id`", "a|b", "a&b", "a>b", "a<b", "a'b",
               'a"b', "a\\b", "a\nb", "a\tb", "-rf", "a*", "a?b", "a!b", "a$b", "~a", "a{b}", "(a)", "a\rb"]


@pytest.mark.parametrize("value", SHELL_WORDS)
def test_a_safe_string_refuses_what_a_shell_would_read(value):
    """What security.md promises for values that reach a shell, checked on the schema itself
    (jsonschema and the fast validator alike), not only that the two agree."""
    schema = json.loads((SCHEMAS / "master-config.schema.json").read_text())
    safe = {"$defs": schema["$defs"], "$ref": "#/$defs/safeString"}
    assert not jsonschema.Draft202012Validator(safe).is_valid(value), value
    with pytest.raises(fastjsonschema.JsonSchemaException):
        fastjsonschema.compile(safe)(value)
    assert jsonschema.Draft202012Validator(safe).is_valid("vllm/vllm-openai:v0.11.0@sha256:" + "f" * 64)


@pytest.mark.parametrize("where,pattern", patterns())
def test_anchored_patterns_end_at_the_end(where, pattern):
    """`$` alone matches before a final newline in Python's re.search (jsonschema); the
    lookahead makes it the end of the string there and in ECMA-262 alike."""
    if where in FREE_TEXT:  # prose that never reaches a shell: only "not blank"
        return
    if where in REFUSING:  # refuses a NAME=...: anchored at the start, so it refuses no name that ends alike
        assert pattern.startswith("^") and pattern.endswith(")="), where
        assert re.search(pattern, "PATH=/x") and not re.search(pattern, "MY_PATH=/x"), where
        return
    # Security audit: a pattern without its leading `^` was skipped here, so dropping it from
    # safeString (which then took `fp4 $(touch /tmp/x) #abc`) passed every test.
    assert pattern.startswith("^"), f"{where}: {pattern} is not anchored at the start"
    assert pattern.endswith("$(?![\\s\\S])"), where
    body = pattern[1:-len("$(?![\\s\\S])")]
    sample = {"[0-9a-f]{64}": "f" * 64, "([0-9a-f]{64})?": "f" * 64, "[0-9a-f]{40}": "f" * 40}.get(body) or next(
        s for s in ("a", "a=b", "vllm/vllm-openai:v0.11.0", "ab") if re.fullmatch(body, s))
    schema = {"type": "string", "pattern": pattern}
    fast = fastjsonschema.compile(schema)
    for value, ok in ((sample, True), (sample + "\n", False), ("\n" + sample, False)):
        assert jsonschema.Draft202012Validator(schema).is_valid(value) is ok, (where, value)
        try:
            fast(value)
            assert ok, (where, value)
        except fastjsonschema.JsonSchemaException:
            assert not ok, (where, value)


def test_image_with_trailing_newline_is_refused(tmp_path, monkeypatch, capsys):
    import test_plan as tp
    from sweepgate import cli

    root = tmp_path / "repo"
    root.mkdir()
    repo = tp.Repo(root)
    base = repo.commit(tp.base_fleet(), "base")
    master = tp.nvidia_master(repo)
    master[tp.DSR1]["image"] = "vllm/vllm-openai:v0.11.0\n"
    head = repo.commit({"configs/nvidia-master.yaml": master,
                        "perf-changelog.yaml": repo.append_changelog(tp.entry(tp.DSR1, pr=42))}, "bad image")
    monkeypatch.chdir(root)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.setenv("SWEEPGATE_NO_CACHE", "1")
    assert cli.main(["matrix", "--base-ref", base, "--head-ref", head]) == 1
    err = capsys.readouterr().err
    assert "configs/nvidia-master.yaml:" in err and "image" in err and "Traceback" not in err


@pytest.mark.parametrize("launcher", ["launch_b300-nv.sh", "launch_mi355x-amds.sh"])
def test_launchers_keep_each_argument_whole(tmp_path, launcher):
    """The launchers build the cluster command as NUL-terminated arguments, so a value with a
    newline (here the host model cache path) stays one argument instead of being split."""
    import os
    import subprocess

    from test_workflows import ALL_FIELDS_ROW, launcher_job

    work, applied = launcher_job(tmp_path, launcher, {**ALL_FIELDS_ROW, "image": "vllm/vllm-openai:v1"}, "true\n")
    cache = "/models/hf\ncache"
    env = {**applied, "PATH": os.environ["PATH"], "HOME": str(work), "HF_HUB_CACHE": cache}
    proc = subprocess.run(["bash", str(ROOT / "benchmarks/runners" / launcher), "--dry-run"], cwd=work, env=env,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    line = next(x for x in proc.stdout.splitlines() if x.startswith("+ "))
    args = subprocess.run(["bash", "-c", 'eval "set -- ${1#+ }"; printf "%s\\0" "$@"', "x", line],
                          capture_output=True, text=True, check=True).stdout.split("\0")[:-1]
    assert args[0] == "salloc" and "" not in args
    mounts = [a for a in args if cache in a]
    assert len(mounts) == 1 and mounts[0].startswith(("--container-mounts=", "--volume", "-v")), args
    assert not any(a == "cache:/root/.cache/huggingface" or a.startswith("cache") for a in args)
    # ... and the command the launcher then starts is that array, each argument whole (security audit: an
    # unquoted ${cmd[@]} where the launcher starts it passed this test, which read the dry run's print only)
    from test_launchers import fake_bin

    bin_dir = fake_bin(tmp_path)
    argv = tmp_path / "salloc.argv"
    (bin_dir / "salloc").write_text(f"#!/usr/bin/env bash\nprintf '%s\\0' salloc \"$@\" >{argv}\n")
    proc = subprocess.run(["bash", str(ROOT / "benchmarks/runners" / launcher)], cwd=work,
                          env={**env, "PATH": f"{bin_dir}:{os.environ['PATH']}"}, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert argv.read_text().split("\0")[:-1] == args


@pytest.mark.parametrize("field", ["model-prefix", "precision", "framework"])
@pytest.mark.parametrize("value", ["fp4/../../x", "v:llm", "a/b"])
def test_a_name_that_becomes_a_file_name_is_refused_by_the_gate(tmp_path, field, value):
    """Security audit: model-prefix, precision and framework name the benchmark script and the job's
    result file (RESULT_FILENAME, the artifact bmk_<name>); safeString let them hold '/' and ':', so
    a PR's `precision: fp4/../../x` passed the gate and was refused only on the GPU side's split."""
    from sweepgate.core.check import config_problems
    from sweepgate.core.load import at_value

    config = {"image": "vllm/vllm-openai:v0.11.0", "model": "m/x", "model-prefix": "dsr1", "precision": "fp4",
              "framework": "vllm", "runner": "b300", "multinode": False,
              "scenarios": {"fixed-seq-len": [{"isl": 1024, "osl": 1024, "search-space": [
                  {"tp": 8, "conc-list": [4]}]}]}}
    assert config_problems("k", config) == []
    problems = config_problems("k", dict(config, **{field: value}))
    assert [(p[0], "no / or :" in p[3]) for p in problems] == [(at_value(("k", field)), True)], problems


@pytest.mark.parametrize("path", sorted(SCHEMAS.glob("*.json")), ids=lambda p: p.name)
def test_a_schema_names_each_key_once(path):
    """Diff review of 34ec81b: master-config.schema.json defined `$defs/nameString` twice, the same rule
    written in two places; json.loads keeps the last, so an edit to the first would silently do nothing."""
    def once(pairs):
        keys = [k for k, _ in pairs]
        assert len(keys) == len(set(keys)), f"{path.name}: {sorted({k for k in keys if keys.count(k) > 1})} twice"
        return dict(pairs)

    json.loads(path.read_text(encoding="utf-8"), object_pairs_hook=once)
