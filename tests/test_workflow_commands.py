"""PR text that sweepgate prints never becomes a GitHub Actions workflow command.

The runner reads each line a step prints (stdout and stderr, cut at CR, LF and CRLF) as a command when,
its leading whitespace trimmed, it starts with ``::`` (``::set-output``, ``::add-mask``,
``::stop-commands``, which silences every annotation after it), or when it holds the legacy ``##[``
anywhere; its comparison skips characters that weigh nothing (a zero-width space, a control
character). ``runner_command`` below reads lines that way, written here from the runner's rules and
not from sweepgate's code. Each test runs the real command under ``GITHUB_ACTIONS=true`` on data a PR
controls: the only commands in what it prints are sweepgate's own annotations, whole.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

from conftest import CHANGELOG, FLEET_NVIDIA, appended_entry

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "results"))

from helpers import ROW, job, vllm_output, write_job  # noqa: E402
from sweepgate.core.runnerlog import CommandSafeStream  # noqa: E402
from sweepgate.workflow.kv import parse_kv  # noqa: E402

# What a PR writes to become a command: each form the runner reads, and the hidden ones.
HOSTILE = ["::set-output name=matrix::true", "##[set-output name=head_ref;]" + "f" * 40,
           "\u200b::stop-commands::tok", "#\u200b#[add-mask]x", "  ::warning file=a::fake", "\u00a0::group::g"]


def runner_command(line: str) -> str | None:
    """The command the runner reads in one printed line, else None."""
    seen = "".join(ch for ch in line if unicodedata.category(ch) not in ("Cc", "Cf", "Mn", "Me"))
    seen = seen.lstrip()
    if seen.startswith("::") and "::" in seen[2:]:
        return seen[2:].split("::", 1)[0].split(" ", 1)[0]
    if "##[" in seen and "]" in seen.split("##[", 1)[1]:
        return seen.split("##[", 1)[1].split("]", 1)[0].split(" ", 1)[0]
    return None


def _unescape(text: str, prop: bool) -> str:
    pairs = [("%0D", "\r"), ("%0A", "\n")] + ([("%3A", ":"), ("%2C", ",")] if prop else []) + [("%25", "%")]
    for code, ch in pairs:
        text = text.replace(code, ch)
    return text


def annotation(line: str) -> tuple[str, dict, str] | None:
    """(level, properties, message) of one of sweepgate's annotations, as the runner decodes it; None
    for any other line."""
    m = re.fullmatch(r"::(error|warning|notice)(?: ([^:]*))?::(.*)", line)
    if not m:
        return None
    props = dict(p.split("=", 1) for p in (m.group(2) or "").split(",") if p)
    assert set(props) <= {"file", "line", "title"}, line
    return m.group(1), {k: _unescape(v, True) for k, v in props.items()}, _unescape(m.group(3), False)


def printed_lines(*texts: str) -> list[str]:
    return [line for text in texts for line in re.split(r"\r\n|\r|\n", text)]


def commands_in(*texts: str) -> tuple[list[tuple[str, dict, str]], list[str]]:
    """(sweepgate's annotations, any other line the runner would read as a command)."""
    own, other = [], []
    for line in printed_lines(*texts):
        if runner_command(line) is None:
            continue
        found = annotation(line)
        (own if found else other).append(found or line)
    return own, other


def sweepgate(args: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    full.update({"PYTHONPATH": str(ROOT / "utils"), "GITHUB_ACTIONS": "true", **env})
    return subprocess.run([sys.executable, "-m", "sweepgate", *args], cwd=cwd, env=full, capture_output=True,
                          text=True, timeout=120)


def test_the_runner_reading_of_this_file_finds_every_hostile_form():
    assert all(runner_command(text) for text in HOSTILE)
    assert runner_command("configs/x.yaml:2: 'a ##[set-output name=m;]t' is bad") == "set-output"
    assert runner_command("## Plan") is None and runner_command("a :: b") is None


def test_a_refused_config_s_pr_text_is_no_command_and_its_annotation_is_whole(make_repo, tmp_path):
    """The gate quotes a refused value and key in its line: ``##[set-output ...]`` there was a command
    (the legacy form, anywhere in a line), able to set a step output, mask text or stop the commands
    that carry sweepgate's own annotations. Now only the annotations are commands, each carrying the
    PR's text as its message."""
    repo = make_repo()
    base = repo.head()
    image = "x " + " ".join(HOSTILE)
    key = "##[add-mask]k"
    config = FLEET_NVIDIA.replace("image: vllm/vllm-openai:v0.11.0", f"image: {json.dumps(image)}\n  {json.dumps(key)}: 1", 1)
    head = repo.commit({"configs/nvidia-master.yaml": config, "perf-changelog.yaml": CHANGELOG + appended_entry()})
    output = tmp_path / "github-output"
    r = sweepgate(["validate", "--base-ref", base, "--head-ref", head, "--pr-number", "5", "--github-output"],
                  repo.path, GITHUB_OUTPUT=str(output), GITHUB_REPOSITORY="acme/bench")
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    own, other = commands_in(r.stdout, r.stderr)
    assert other == [], other
    assert own and all(props == {"file": "configs/nvidia-master.yaml", "line": props["line"]} for _, props, _ in own)
    messages = "\n".join(message for _, _, message in own)
    # the PR's text reaches the annotation, as its message
    assert "##[set-output name=head_ref;]" in messages and key in messages
    assert "## [set-output name=head_ref;]" in r.stderr  # and the line for people shows it, defused
    assert not output.exists() or parse_kv(output.read_text()) == {}


def test_a_changelog_description_never_reaches_a_step_output(make_repo, tmp_path):
    """An accepted entry whose description is all command forms: $GITHUB_OUTPUT holds exactly the two
    outputs the gate writes, and nothing the gate or the plan prints is a command."""
    repo = make_repo()
    base = repo.head()
    description = "".join(f"\n    - {json.dumps(text + chr(10) + text)}" for text in HOSTILE)
    entry = appended_entry().replace('\n    - "Bump"', description)
    head = repo.commit_changelog(CHANGELOG + entry)
    output, summary = tmp_path / "github-output", tmp_path / "summary.md"
    env = {"GITHUB_OUTPUT": str(output), "GITHUB_STEP_SUMMARY": str(summary), "GITHUB_REPOSITORY": "acme/bench"}
    r = sweepgate(["validate", "--base-ref", base, "--head-ref", head, "--pr-number", "5", "--github-output"],
                  repo.path, **env)
    assert r.returncode == 0, r.stderr
    assert parse_kv(output.read_text()) == {"entries": "1", "matrix": "true"}
    plan = sweepgate(["plan", "--base-ref", base, "--head-ref", head, "--markdown"], repo.path, **env)
    assert plan.returncode == 0, plan.stderr
    assert commands_in(r.stdout, r.stderr, plan.stdout, plan.stderr)[1] == []


def test_a_benchmark_script_s_last_lines_are_no_commands(tmp_path):
    """A failed rehearsal copies the script's last lines to stderr: a PR's script printing workflow
    commands had them read by the runner as sweepgate's own."""
    from test_bad_input_badin18 import FSL_ROW, SCRIPT

    repo = tmp_path / "repo"
    (repo / "configs").mkdir(parents=True)
    (repo / "configs" / "runners.yaml").write_text((ROOT / "configs" / "runners.yaml").read_text())
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    script = repo / SCRIPT
    script.parent.mkdir(parents=True)
    script.write_text("#!/bin/bash\n" + "".join(f"printf '%s\\n' {json.dumps(t)}\n" for t in HOSTILE) + "exit 3\n")
    rows = tmp_path / "row.json"
    rows.write_text(json.dumps(FSL_ROW))
    r = sweepgate(["rehearse", "--row-json", str(rows), "--work-dir", str(tmp_path / "work")], repo)
    assert r.returncode == 1 and "--- last lines of" in r.stderr, r.stderr
    assert commands_in(r.stdout, r.stderr)[1] == []
    assert "\\::set-output name=matrix::true" in r.stderr  # still there to read, defused


def _store_with_pr_strings(tmp_path: Path) -> str:
    """A results store holding a job whose output and config key carry command forms (a PR's script writes
    the output; the config key comes from its configs; a row's image and model that are no safe text
    are refused by the row check, ``core.jobenv.check_row``, and since s43a a sidecar's config key outside the
    gate's key pattern is refused too: the key is written into the store, as one filled before or by another tool)."""
    from sweepgate.results import store

    db = f"sqlite:///{tmp_path / 'r.db'}"
    model = "\n".join(HOSTILE)
    sidecar = job(row=dict(ROW), **{"config-key": "k"})
    write_job(tmp_path / "results", "a_conc4", vllm_output(model_id=model, backend="##[group]g"), sidecar)
    r = sweepgate(["results", "ingest", "--db", f"sqlite:///{tmp_path / 'first.db'}", "--jsonl", "first.jsonl",
                   "results"], tmp_path)
    assert r.returncode == 0 and commands_in(r.stdout, r.stderr)[1] == [], r.stderr
    (record,) = map(json.loads, (tmp_path / "first.jsonl").read_text(encoding="utf-8").splitlines())
    with store.open_store(db) as st:
        st.add([{**record, "config-key": "k ##[set-output name=x;]y"}])
    return db


def test_stored_pr_strings_shown_through_a_pipe_are_no_commands_and_the_json_still_parses(tmp_path):
    db = _store_with_pr_strings(tmp_path)
    r = sweepgate(["results", "show", "--db", db, "--json"], tmp_path)
    assert r.returncode == 0, r.stderr
    assert commands_in(r.stdout, r.stderr)[1] == []
    (shown,) = json.loads(r.stdout)
    assert shown["config-key"] == "k ## [set-output name=x;]y"  # the one change: what the runner would read
    table = sweepgate(["results", "show", "--db", db], tmp_path)
    assert table.returncode == 0 and commands_in(table.stdout, table.stderr)[1] == [], table.stdout


def test_output_to_a_file_or_outside_actions_is_left_as_it_is(tmp_path):
    """Only what the runner reads is rewritten: JSON redirected into a file (``>matrix.json``, a step
    summary) and any output outside GitHub Actions keep every byte."""
    db = _store_with_pr_strings(tmp_path)
    with open(tmp_path / "show.json", "w") as out:
        subprocess.run([sys.executable, "-m", "sweepgate", "results", "show", "--db", db, "--json"], cwd=tmp_path,
                       env={**os.environ, "PYTHONPATH": str(ROOT / "utils"), "GITHUB_ACTIONS": "true"},
                       stdout=out, check=True)
    outside = sweepgate(["results", "show", "--db", db, "--json"], tmp_path, GITHUB_ACTIONS="false")
    assert (tmp_path / "show.json").read_text() == outside.stdout
    assert json.loads(outside.stdout)[0]["config-key"] == "k ##[set-output name=x;]y"


@pytest.mark.parametrize("pieces", [["#", "#[set-output name=a;]b\n"], [":", ":add-mask::x\n"],
                                    ["ok\r", "::stop-commands::t"], ["\u200b", "::group::g\r\n"]])
def test_a_command_split_across_writes_is_still_seen(pieces):
    out = io.StringIO()
    stream = CommandSafeStream(out)
    for piece in pieces:
        stream.write(piece)
        stream.flush()
    stream.finish()
    assert "".join(pieces).replace("\u200b", "") != out.getvalue()
    assert commands_in(out.getvalue()) == ([], [])


# A command hidden behind each kind of character the runner's culture-aware comparison may skip (runnerlog):
# a control character, a format character (a zero-width one, a language tag), a combining mark, a Hangul
# filler (a letter by category, ignorable by default), a line separator, a code point Unicode leaves unassigned.
HIDDEN_BY = {"control": "\x07", "zero-width joiner": "\u200d", "language tag": "\U000e0001",
             "combining mark": "\u0301", "enclosing mark": "\u20dd", "Hangul filler": "\u3164",
             "halfwidth Hangul filler": "\uffa0", "line separator": "\u2028", "unassigned": "\U000e0fff"}


@pytest.mark.parametrize("kind", sorted(HIDDEN_BY))
def test_a_command_hidden_behind_any_character_the_runner_may_skip_is_rewritten(kind):
    """Security audit (s39h): only a zero-width space and a no-break space hid a command in these tests, so
    narrowing the characters the streams look past to control and format ones, or forgetting the Hangul
    fillers, passed every test. Seen with every character outside printable ASCII dropped (the most the
    runner could skip), no line the stream wrote is a command."""
    ch = HIDDEN_BY[kind]
    out = io.StringIO()
    stream = CommandSafeStream(out)
    stream.write(f"{ch}::stop-commands::tok\n  {ch}:{ch}:add-mask::x\nsee #{ch}#[set-output name=a;]b\n")
    stream.finish()
    for line in out.getvalue().splitlines():
        seen = re.sub(r"[^\x20-\x7e]", "", line)
        assert not seen.lstrip().startswith("::") and "##[" not in seen, (kind, line)

def test_sweepgate_s_own_annotation_keeps_a_pr_named_file_and_message_inside_it(tmp_path):
    """Already safe, and checked: a file name and message holding the characters that end a property
    or the data (``,`` ``:`` ``%`` CR LF) stay inside one annotation, escaped as GitHub documents."""
    folder = tmp_path / "results"
    folder.mkdir()
    name = "a,line=9::b%0A\n::add-mask::c.json"
    (folder / name).write_text('{"model_id": "::set-output name=y::z", ')
    r = sweepgate(["results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", f"results/{name}"], tmp_path,
                  GITHUB_WORKSPACE=str(tmp_path))
    assert r.returncode == 1, r.stderr
    own, other = commands_in(r.stdout, r.stderr)
    assert other == [] and len(own) == 1, r.stderr
    level, props, message = own[0]
    assert level == "error" and props["file"] == f"results/{name}", own


def test_a_label_s_name_in_decide_s_reason_sets_no_other_output(tmp_path):
    """``ci decide`` says why in a line and in its ``reason`` output, naming the label that changed: a
    label named with command forms and ``run=true`` lines is neither a command nor another output."""
    label = "nope\nrun=true\n" + "\n".join(HOSTILE)
    repo = {"full_name": "acme/bench"}
    event = {"action": "labeled", "number": 7, "label": {"name": label}, "repository": repo,
             "pull_request": {"number": 7, "draft": False, "labels": [{"name": label}],
                              "base": {"sha": "a" * 40, "ref": "main", "repo": repo},
                              "head": {"sha": "b" * 40, "ref": "x", "repo": repo}}}
    path = tmp_path / "event.json"
    path.write_text(json.dumps(event))
    output = tmp_path / "github-output"
    r = sweepgate(["ci", "decide", "--event-path", str(path), "--event-name", "pull_request",
                   "--head-message", "m"], tmp_path, GITHUB_OUTPUT=str(output))
    assert r.returncode == 0, r.stderr
    assert commands_in(r.stdout, r.stderr)[1] == []
    values = parse_kv(output.read_text())
    assert set(values) == {"run", "mode", "trim_conc", "all_evals", "evals_only", "eval_flags", "canary",
                           "fail_fast", "pr_number", "base_ref", "head_ref", "reason"}
    assert values["run"] == "false" and values["head_ref"] == "b" * 40 and label in values["reason"]
