"""s44f: small rough edges, each seen in a real repository or file.

- A refusal's second way out (pass --base-ref) named origin/BRANCH in a repository whose remote is not
  named origin; it now names the remote and branch its fetch names, and once fetched that ref works.
  A shallow clone's refusal of a ref likewise names the remote the clone has.
"""

from __future__ import annotations

import re
import subprocess

import pytest

from tests.test_new_user import git, one_clear_line, sg
from tests.test_shallow_fix_followed_s42d import origin, run_the_fix  # noqa: F401 (a fixture)


def clone(origin, tmp_path, *flags: str, name: str = "clone"):
    path = tmp_path / name
    subprocess.run(["git", "clone", "-q", *flags, f"file://{origin}", str(path)], check=True)
    return path


def second_way(line: str) -> str:
    """The ref the refusal's --base-ref way out names."""
    found = re.search(r"\[--base-ref, ([^\]]+)\]", line)
    assert found, line
    return found.group(1)


@pytest.mark.parametrize("remotes", [("upstream",), ("fork", "upstream")])
def test_the_base_ref_way_out_names_a_remote_this_repository_has(origin, tmp_path, remotes):
    repo = clone(origin, tmp_path, "--single-branch", "-b", "feature")
    git(repo, "remote", "rename", "origin", remotes[-1])
    for other in remotes[:-1]:  # a fork's second remote: another clone holding feature alone
        fork = clone(origin, tmp_path, "--bare", "--single-branch", "-b", "feature", name=other)
        git(repo, "remote", "add", other, f"file://{fork}")
        git(repo, "fetch", "-q", other)
    line = one_clear_line(sg(repo, "validate", "--staged"), "--base-ref: no branch here")
    ref = second_way(line)
    assert "origin" not in line.split("; ", 1)[1], line  # the list of branches looked for names origin/main
    remote = ref.split("/", 1)[0]
    assert remote in git(repo, "remote").split(), line
    run_the_fix(repo, re.search(r"\((git fetch [^)]*)\)", line).group(1))
    proc = sg(repo, "validate", "--staged", "--base-ref", ref)
    assert proc.returncode == 0 and "appended entr" in proc.stdout, (line, proc.stdout, proc.stderr)


def test_a_shallow_clone_s_refusal_of_a_ref_fetches_from_the_remote_it_has(origin, tmp_path):
    repo = clone(origin, tmp_path, "--depth", "1", "-b", "feature")
    git(repo, "remote", "rename", "origin", "upstream")
    refs = ("validate", "--base-ref", "upstream/main", "--head-ref", "HEAD")
    line = one_clear_line(sg(repo, *refs), "git: 'upstream/main' is not a commit in ", "(this clone is shallow)")
    assert "origin" not in line, line
    command = re.search(r", (git fetch upstream \S+) for a branch left out", line)
    assert command, line
    run_the_fix(repo, command.group(1), BRANCH="main")
    proc = sg(repo, *refs)
    assert proc.returncode == 0 and "appended entr" in proc.stdout, (line, proc.stdout, proc.stderr)


# --------------------------------------------------------------------------- a pr-link correction, worded once

@pytest.fixture
def corrected(origin, tmp_path):
    """A clone of the example whose feature branch's last history entry has its pr-link corrected; returns
    (repo, the history line, the commit before)."""
    repo = clone(origin, tmp_path, "-b", "feature")
    path = repo / "perf-changelog.yaml"
    lines = path.read_text().splitlines(keepends=True)
    at = max(n for n, line in enumerate(lines) if line.lstrip().startswith("pr-link:"))
    lines[at] = re.sub(r"/pull/\d+$", "/pull/999", lines[at].rstrip("\n")) + "\n"
    path.write_text("".join(lines))
    git(repo, "commit", "-qam", "correct a pr-link")
    return repo, at + 1, git(repo, "rev-parse", "HEAD~1").strip()


ENTRY = ("\n- config-keys:\n    - dsr1-fp8-b300-vllm\n  description:\n    - \"Rerun\"\n"
         "  pr-link: https://github.com/sweepgate/example-fleet/pull/XXX\n")


def test_a_pr_link_correction_is_worded_alike_by_validate_and_matrix_with_its_line(corrected):
    repo, line, base = corrected
    said = f"corrects the pr-link of history line {line}"
    proc = sg(repo, "validate", "--base-ref", base, "--head-ref", "HEAD")
    assert proc.returncode == 0 and said in proc.stdout, (proc.stdout, proc.stderr)
    proc = sg(repo, "matrix", "--base-ref", base, "--head-ref", "HEAD")
    assert f"perf-changelog.yaml:{line}: {base}..HEAD appends no entry; it {said};" in one_clear_line(proc)


def test_a_pr_link_correction_with_an_entry_is_refused_in_the_same_line_by_validate_and_matrix(corrected):
    repo, line, base = corrected
    with open(repo / "perf-changelog.yaml", "a") as f:
        f.write(ENTRY)
    git(repo, "commit", "-qam", "and an entry")
    refs = ("--base-ref", base, "--head-ref", "HEAD")
    gate = [ln for ln in sg(repo, "validate", *refs, "--pr-number", "7").stderr.splitlines() if f":{line}:" in ln]
    matrix = one_clear_line(sg(repo, "matrix", *refs))
    assert gate == [matrix], (gate, matrix)
    assert matrix == (f"perf-changelog.yaml:{line}: this change corrects the pr-link of history line {line} and "
                      "appends entries; land pr-link corrections in their own PR, without new entries"), matrix
    edit = one_clear_line(sg(repo, "changelog", "canonicalize", "--pr-number", "7", "--base", base))
    assert edit.endswith(f"corrects the pr-link of history line {line}; land pr-link corrections in their own PR, "
                         "without new entries"), edit


# --------------------------------------------------------------------------- the shims' engine names

def test_every_engine_program_and_its_other_name_has_a_shim_that_records_it(tmp_path):
    """engines/names.py's programs (and lm-eval, lm_eval's other console script) are each a shim on a rehearsal's
    PATH: a script that ran `lm-eval` found none (the real one, or no such command) though preflight reads its
    calls; run, it is recorded under its program's name, the one the rehearsal's eval check reads."""
    import json
    import os

    from sweepgate.engines.names import ENGINES, PROGRAM_ALIASES
    from sweepgate.rehearsal import runner, standin

    shims = tmp_path / "shims"
    runner.write_shims(shims)
    programs = {command.split()[0] for _, command in ENGINES.values()} | set(PROGRAM_ALIASES)
    assert sorted(p for p in programs if not (shims / p).is_file()) == []
    log = tmp_path / "calls.jsonl"
    proc = subprocess.run([str(shims / "lm-eval"), "--model", "local-completions", "--tasks", "gsm8k",
                           "--model_args", "model=m", "--output_path", str(tmp_path)], capture_output=True, text=True,
                          env={**os.environ, standin.LOG_ENV: str(log)})
    assert proc.returncode == 2 and "needs model= and base_url=" in proc.stderr, proc.stderr
    (call,) = [json.loads(line) for line in log.read_text().splitlines()]
    assert call["tool"] == PROGRAM_ALIASES["lm-eval"], call


def test_the_stand_in_s_programs_are_the_engines_programs():
    """standin.py imports nothing of sweepgate, and rehearsal/ nothing of engines/: it names the programs it
    stands in for itself, the same as engines/names.py's."""
    from sweepgate.engines.names import ENGINES, PROGRAM_ALIASES
    from sweepgate.rehearsal import standin

    assert list(standin.ENGINE_SHIMS) == list(dict.fromkeys(command.split()[0] for _, command in ENGINES.values()))
    assert standin.SHIM_ALIASES == PROGRAM_ALIASES
