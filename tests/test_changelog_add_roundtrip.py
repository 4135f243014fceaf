"""`changelog add` then `validate --staged`: whatever whitespace ends the file, the gate accepts
what add wrote, and add never moves a byte of the history (the changelog at the merge-base)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import CHANGELOG
from sweepgate import cli

# How main's changelog may end and still take an appended entry: one newline, one empty line,
# no final newline.
HISTORY_ENDS = {"newline": CHANGELOG, "empty-line": CHANGELOG + "\n", "no-newline": CHANGELOG.rstrip("\n")}
SEPARATOR = {"newline": b"\n", "empty-line": b"", "no-newline": b"\n\n"}  # one empty line before an entry
BRANCH_ENTRY = '- config-keys:\n    - dsr1-fp4-b300-sglang\n  description:\n    - "b"\n' \
               "  pr-link: https://github.com/acme/bench/pull/XXX\n"
SPACE = st.lists(st.sampled_from(["\n", "\n\n", " ", "\t", "  \n", "\r\n", "\r", " \t\n"]), max_size=6).map("".join)


def _sg(capsys, *argv) -> tuple[int, str]:
    capsys.readouterr()
    rc = cli.main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err and "internal error" not in err, err
    return rc, out + err


def _repo(make_repo, history: str):
    repos = _repo.__dict__.setdefault("repos", {})
    if history not in repos:
        repos[history] = make_repo(HISTORY_ENDS[history])
    return repos[history]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(history=st.sampled_from(sorted(HISTORY_ENDS)), branch=st.booleans(), committed=SPACE, unstaged=SPACE)
def test_add_then_validate_staged_round_trips(make_repo, monkeypatch, capsys, history, branch, committed,
                                              unstaged):
    for name in ("GITHUB_ACTIONS", "GITHUB_REPOSITORY"):
        monkeypatch.delenv(name, raising=False)
    repo = _repo(make_repo, history)
    monkeypatch.chdir(repo.path)
    repo.git("checkout", "-q", "-f", "-B", "feature", "main")
    main_bytes = HISTORY_ENDS[history].encode()
    if branch:  # the branch's own commits are not history: their trailing whitespace may go
        repo.commit_changelog(main_bytes + SEPARATOR[history] + BRANCH_ENTRY.encode() + committed.encode())
    repo.write("perf-changelog.yaml", repo.read() + unstaged.encode())

    rc, out = _sg(capsys, "changelog", "add", "--key", "dsr1-fp4-b300-vllm", "--description", "x")
    assert rc == 0, out
    text = repo.read()
    assert text.startswith(main_bytes)
    if branch:
        assert BRANCH_ENTRY.strip().encode() in text
    assert text.endswith(b'\n\n- config-keys:\n    - dsr1-fp4-b300-vllm\n  description:\n    - "x"\n'
                         b"  pr-link: https://github.com/acme/bench/pull/XXX\n")
    line = text.count(b"\n") - 4  # the new entry's first line, as add reported it
    assert out.startswith(f"perf-changelog.yaml:{line}: appended entry"), out
    rc, out = _sg(capsys, "validate", "--staged")
    assert rc == 0, (out, text[-300:])


def test_add_after_two_stray_empty_lines_is_accepted(make_repo, monkeypatch, capsys):
    """The review's case: `printf '\\n\\n' >> perf-changelog.yaml` before `changelog add`."""
    monkeypatch.delenv("GITHUB_REPOSITORY", raising=False)
    repo = make_repo()
    monkeypatch.chdir(repo.path)
    repo.write("perf-changelog.yaml", CHANGELOG + "\n\n")
    assert _sg(capsys, "changelog", "add", "--key", "kimik3-*", "--description", "x")[0] == 0
    assert repo.read().decode().startswith(CHANGELOG + "\n- config-keys:\n")
    rc, out = _sg(capsys, "validate", "--staged")
    assert rc == 0, out
