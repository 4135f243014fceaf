"""preflight said an engine without a manifest at the row's script with no line
(`benchmarks/single_node/agentic/x.sh: warning: image ... has no vllm manifest`), and under GitHub Actions an
annotation on the script's first line, though the script never names the image or the version. The warning
stands where the version came from: the images.json entry that gives it, the config's `image:` line where no
entry lists the image, the script line that pins a `pip install` version (or the config's KV-offload backend
version it installs), and a version the job pip-installs is one warning, not one per image that runs it.
SGLang's note stands at the line that runs its server (s36a): the script's (s38p)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from test_preflight_refs import ENV, fleet

AMD = "configs/amd-master.yaml"
IMAGES = "configs/engines/images.json"


def preflight(repo: Path, *keys: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in ENV.items() if k != "GITHUB_WORKSPACE"}
    env["GITHUB_ACTIONS"] = "true"
    return subprocess.run([sys.executable, "-m", "sweepgate", "preflight", "--config-keys", *keys], cwd=repo,
                          capture_output=True, text=True, env=env, timeout=300)


def place(repo: Path, rel: str, after: str, text: str) -> tuple[int, int]:
    """(line, col) of the first ``text`` at or after the first line that holds ``after``."""
    lines = (repo / rel).read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if after in line)
    number = next(i for i in range(start, len(lines)) if text in lines[i])
    return number + 1, lines[number].index(text) + 1


def said(proc: subprocess.CompletedProcess, what: str) -> list[str]:
    return [line for line in proc.stderr.splitlines() if what in line]


def said_plainly(proc: subprocess.CompletedProcess, what: str) -> list[str]:
    """``said``'s lines but the GitHub annotations (``::warning ...``)."""
    return [line for line in said(proc, what) if not line.startswith("::")]


def test_an_image_no_entry_lists_stands_at_the_selected_config_s_image_line(tmp_path):
    repo = fleet(tmp_path, "main")
    # two configs run the image; only the second is selected: its line, not the first's
    line, col = place(repo, AMD, "minimaxm3-fp4-mi355x-vllm-agentic-mtp:", "image:")
    col += len("image: ")  # at the image itself (s48c), not its key
    r = preflight(repo, "minimaxm3-fp4-mi355x-vllm-agentic-mtp")
    what = "image rocm/vllm-dev:nightly_main_20251120 has no vllm manifest"
    assert r.returncode == 0 and said(r, what), r.stderr
    text, annotation = said(r, what)
    assert text.startswith(f"{AMD}:{line}:{col}: warning: {what}; add the image to"), r.stderr
    assert annotation.startswith(f"::warning file={AMD},line={line}::{what}"), r.stderr


def test_a_version_or_image_from_images_json_stands_at_its_entry(tmp_path):
    repo = fleet(tmp_path, "main")
    (repo / IMAGES).unlink()  # a file of its own, not the package's (configs/engines is a copy here)
    (repo / IMAGES).write_text(json.dumps({"images": {
        "vllm/vllm-openai:v0.11.0": {"vllm": "0.11.7", "vllm-bench": "0.11.0"},
        "rocm/vllm:rocm7.0.0_vllm_0.11.1_20251103": {"vllm-bench": "0.11.1"}}}, indent=1) + "\n")
    version = place(repo, IMAGES, '"vllm/vllm-openai:v0.11.0"', '"vllm"')
    image = place(repo, IMAGES, '"rocm/vllm:', '"rocm/vllm:')
    r = preflight(repo, "dsr1-fp8-b300-vllm", "dsr1-fp8-mi355x-vllm")
    assert r.returncode == 0, r.stderr
    (mine,) = said_plainly(r, "no manifest for vllm 0.11.7")
    assert mine.startswith(f"{IMAGES}:{version[0]}:{version[1]}: warning: no manifest for vllm 0.11.7 "
                           "(installed on image vllm/vllm-openai:v0.11.0); capture it"), r.stderr
    (mine,) = said_plainly(r, "has no vllm manifest")
    assert mine.startswith(f"{IMAGES}:{image[0]}:{image[1]}: warning: image rocm/vllm:rocm7.0.0_vllm_0.11.1_20251103 "
                           "has no vllm manifest"), r.stderr
    assert f"::warning file={IMAGES},line={version[0]}::no manifest for vllm 0.11.7" in r.stderr, r.stderr


def test_a_pip_version_stands_at_the_script_s_pin_or_the_config_s_backend_version(tmp_path):
    repo = fleet(tmp_path, "main")
    lib = repo / "benchmarks/lib/evals.sh"
    lib.write_text(lib.read_text().replace('_SG_LM_EVAL_VERSION="0.4.9.1"', '_SG_LM_EVAL_VERSION="0.4.99"'))
    config = repo / AMD
    config.write_text(config.read_text().replace('name: lmcache, version: "0.5.4rc2"', 'name: lmcache, version: "0.5.5"'))
    pin = place(repo, "benchmarks/lib/evals.sh", "readonly _SG_LM_EVAL_VERSION", "_SG_LM_EVAL_VERSION")
    backend = place(repo, AMD, 'version: "0.5.5"', '"0.5.5"')  # at the version itself (s48c), not its key
    r = preflight(repo, "dsr1-fp8-b300-vllm", "dsv4-fp4-mi355x-vllm-agentic-mtp")
    assert r.returncode == 0, r.stderr
    # once, though rows of two images install it: the job's pin is the same on each
    (mine,) = said_plainly(r, "no manifest for lm-eval 0.4.99")
    assert mine.startswith(f"benchmarks/lib/evals.sh:{pin[0]}:{pin[1]}: warning: no manifest for lm-eval 0.4.99 "
                           "(the job's pip install pins it); capture it"), r.stderr
    (mine,) = said_plainly(r, "no manifest for lmcache 0.5.5")
    assert mine.startswith(f"{AMD}:{backend[0]}:{backend[1]}: warning: no manifest"), r.stderr
    assert f"::warning file=benchmarks/lib/evals.sh,line={pin[0]}::no manifest for lm-eval" in r.stderr, r.stderr


def test_sglang_s_note_stands_at_the_line_that_runs_its_server(tmp_path):
    """The script's line that runs it: its own, else its call into the library (s38p: not the library's line)."""
    repo = fleet(tmp_path, "main")
    rel = "benchmarks/multi_node/fixed_seq_len/dsr1_fp4_b300_sglang-disagg.sh"
    line, _ = place(repo, rel, "disagg_server_argv() {", "disagg::sglang_server_argv")
    router, _ = place(repo, rel, "disagg::run", "disagg::run")
    r = preflight(repo, "dsr1-fp4-b300-sglang-disagg")
    (mine,) = said_plainly(r, "sglang commands are not checked")
    assert r.returncode == 0 and mine.startswith(f"{rel}:{line}: note:"), r.stderr
    (mine,) = said_plainly(r, "sglang-router commands are not checked")
    assert mine.startswith(f"{rel}:{router}: note:"), r.stderr


def test_a_pin_written_in_the_pip_line_itself_stands_there(tmp_path):
    from sweepgate.engines.preflight import _pin_place

    script = tmp_path / "benchmarks" / "run.sh"
    script.parent.mkdir()
    script.write_text("#!/bin/bash\n# pip install aiperf==0.13.9 (a comment)\nset -e\n"
                      "pip install --quiet 'aiperf==0.13.9'\n")
    assert _pin_place(tmp_path, script, ["aiperf"], "0.13.9") == ("benchmarks/run.sh", 4, 22)
    assert _pin_place(tmp_path, script, ["aiperf"], "0.13.8") == ("benchmarks/run.sh", 4, 22)  # the pip line
    assert _pin_place(tmp_path, script, ["lmcache"], "0.13.9") == ("benchmarks/run.sh", 4, 30)  # the version
    assert _pin_place(tmp_path, script, ["lmcache"], "9.9") is None


def test_a_script_that_fails_stands_at_the_line_bash_names(tmp_path):
    """A script that exited at a command bash could not run was a problem at the script with no line, though
    bash's `FILE: line N: ...: command not found` stood in the quoted cause."""
    repo = fleet(tmp_path, "main")
    rel = "benchmarks/single_node/fixed_seq_len/dsr1_fp8_b300_vllm.sh"
    text = (repo / rel).read_text()
    assert text.count("prepare_model_path || exit 1\n") == 1
    (repo / rel).write_text(text.replace("prepare_model_path || exit 1\n",
                                         "prepare_model_path || exit 1\nno_such_command_s36a || exit 1\n"))
    line = text[:text.index("prepare_model_path || exit 1\n")].count("\n") + 2
    r = preflight(repo, "dsr1-fp8-b300-vllm")
    told = said_plainly(r, "no_such_command_s36a: command not found")
    # one problem naming its rows (s41d: one a row's exp-name before)
    assert r.returncode == 1 and len(told) == 1 and told[0].startswith(f"{rel}:{line}: the script exited"), r.stderr
    assert f"::error file={rel},line={line}::the script exited" in r.stderr, r.stderr


def test_a_failure_bash_names_outside_the_repository_stays_at_the_script(tmp_path):
    from sweepgate.commands.preflight import _failed_at, _syntax_error

    lib = tmp_path / "benchmarks" / "lib" / "x.sh"
    lib.parent.mkdir(parents=True)
    lib.write_text("foo\n")
    assert _failed_at(f"{lib}: line 1: foo: command not found", "b/s.sh", tmp_path) == ("benchmarks/lib/x.sh", 1)
    assert _failed_at("/etc/profile: line 1: foo: command not found", "b/s.sh", tmp_path) == ("b/s.sh", 0)
    assert _failed_at("Error: the server did not start", "b/s.sh", tmp_path) == ("b/s.sh", 0)
    assert _failed_at("x" * 5000 + ": line 1: foo: command not found", "b/s.sh", tmp_path) == ("b/s.sh", 0)  # no file's name
    assert _failed_at("a\0b: line 1: foo: command not found", "b/s.sh", tmp_path) == ("b/s.sh", 0)
    # a syntax error bash names at such a name was a traceback (OSError: File name too long)
    assert _syntax_error("x" * 5000 + ": line 2: syntax error: unexpected end of file", tmp_path) is None


def test_with_refs_the_image_line_is_the_head_config_s(tmp_path):
    from test_preflight_refs import ENTRY, git

    repo = fleet(tmp_path, "main")
    config = repo / "configs/nvidia-master.yaml"
    config.write_text(config.read_text().replace("vllm/vllm-openai:v0.11.0", "vllm/vllm-openai:v0.12.0", 1))
    with (repo / "perf-changelog.yaml").open("a") as fh:
        fh.write(ENTRY)
    git(repo, "commit", "-qam", "a new image, no manifest for it")
    line, col = place(repo, "configs/nvidia-master.yaml", "dsr1-fp8-b300-vllm:", "image:")
    col += len("image: ")  # at the image itself (s48c), not its key
    env = {k: v for k, v in ENV.items() if k not in ("GITHUB_ACTIONS", "GITHUB_WORKSPACE")}
    r = subprocess.run([sys.executable, "-m", "sweepgate", "preflight", "--base-ref", "HEAD~", "--head-ref", "HEAD"],
                       cwd=repo, capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0 and f"configs/nvidia-master.yaml:{line}:{col}: warning: image vllm/vllm-openai:v0.12.0 " \
        "has no vllm or vllm-bench manifest; add the image to" in r.stderr, r.stderr


def test_an_images_json_edited_while_preflight_runs_gives_no_place_not_a_traceback(tmp_path):
    from sweepgate.engines import manifest as M

    own = tmp_path / "configs" / "engines"
    own.mkdir(parents=True)
    (own / "images.json").write_text(json.dumps({"images": {"example/vllm:s36a": {"vllm-bench": "0.11.0"}}}))
    assert M.image_place("example/vllm:s36a", "vllm", tmp_path) == ("configs/engines/images.json", 1, 13)
    (own / "images.json").write_text(json.dumps({"images": {}}))  # images() keeps what it read first
    assert M.image_engines("example/vllm:s36a", tmp_path) and M.image_place("example/vllm:s36a", "vllm", tmp_path) is None


def test_a_sibling_config_that_cannot_expand_costs_the_selected_row_none_of_its_findings(tmp_path):
    """Review (s36m): where a missing manifest's warning stands was looked up by expanding every config that
    shares the row's image; one of them that could not expand (its runner has no hardware entry) raised inside
    the row's check, and the row's findings (its flag errors, the warning) were all replaced by that other
    config's error. The sibling is not selected: the lookup falls back, the row keeps its findings."""
    repo = fleet(tmp_path, "main")
    runners = repo / "configs/runners.yaml"
    runners.write_text(runners.read_text().replace("labels:\n", "labels:\n  cluster:mi355x-new:\n    - mi355x-new_00\n", 1))
    config = repo / AMD
    text = config.read_text()
    head, sep, tail = text.partition("dsv4-fp4-mi355x-vllm-agentic-mtp:\n")
    config.write_text(head + sep + tail.replace("runner: cluster:mi355x-amds", "runner: cluster:mi355x-new", 1))
    line, col = place(repo, AMD, "minimaxm3-fp4-mi355x-vllm-agentic-mtp:", "image:")
    col += len("image: ")  # at the image itself (s48c), not its key
    r = preflight(repo, "minimaxm3-fp4-mi355x-vllm-agentic-mtp")
    what = "image rocm/vllm-dev:nightly_main_20251120 has no vllm manifest"
    assert "mi355x-new" not in r.stderr and r.returncode == 0, r.stderr
    text, _ = said(r, what)
    assert text.startswith(f"{AMD}:{line}:{col}: warning: {what}; add the image to"), r.stderr


def test_only_a_pin_of_the_missing_version_is_said_to_pin_it(tmp_path):
    """Review (s36m): a missing manifest was said to be '(the job's pip install pins it)' whenever the job pinned
    any version of the engine, and placed at that pin, though the version missing was not the one pinned."""
    from sweepgate.engines.preflight import _missing

    script = tmp_path / "benchmarks" / "run.sh"
    script.parent.mkdir()
    script.write_text("#!/bin/bash\npip install lmcache==0.5.4\n")
    row = {"image": "example/vllm:s36m"}
    calls = [{"tool": "pip", "argv": ["pip", "install", "lmcache==0.5.4"]}]
    other = _missing(row, calls, script, tmp_path, "lmcache", "0.5.5")
    assert other.message == "no manifest for lmcache 0.5.5 (installed on image example/vllm:s36m)", other
    assert (other.file, other.line) == ("benchmarks/run.sh", 0), other
    pinned = _missing(row, calls, script, tmp_path, "lmcache", "0.5.4")
    assert pinned.message == "no manifest for lmcache 0.5.4 (the job's pip install pins it)", pinned
    assert (pinned.file, pinned.line) == ("benchmarks/run.sh", 2), pinned
