"""Bad flag values: a malformed value is argparse's usage error (exit 2) wherever the flag exists,
and a repository-data path outside the repository is one line up front (exit 1)."""

from __future__ import annotations

import argparse
import json

import pytest

from conftest import CHANGELOG, appended_entry
from sweepgate import cli


def _flag_paths(flag: str) -> list[list[str]]:
    """Every (sub)command path whose parser declares ``flag``."""
    found = []

    def walk(parser: argparse.ArgumentParser, path: list[str]) -> None:
        for action in parser._actions:
            if flag in action.option_strings:
                found.append(path)
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, [*path, name])

    for name in cli.COMMANDS:
        walk(cli.build_parser([name]), [])
    return sorted(found)


REPOSITORY_FLAGS = _flag_paths("--repository")


def test_the_repository_flag_is_found_where_the_docs_put_it():
    for path in (["validate"], ["plan"], ["changelog", "add"], ["changelog", "canonicalize"], ["ci", "audit"],
                 ["results", "compare"]):
        assert path in REPOSITORY_FLAGS, REPOSITORY_FLAGS


@pytest.mark.parametrize("path", REPOSITORY_FLAGS, ids=" ".join)
def test_a_repository_that_is_not_owner_name_is_a_usage_error(path, capsys, monkeypatch):
    """Review: `--repository foo` exited 1 while `--pr-number abc` exited 2."""
    monkeypatch.delenv("GITHUB_REPOSITORY", raising=False)
    with pytest.raises(SystemExit) as info:
        cli.main([*path, "--repository", "foo"])
    assert info.value.code == 2
    assert "argument --repository: 'foo' is not OWNER/NAME" in capsys.readouterr().err


def test_an_empty_repository_means_unset_and_owner_name_is_accepted(make_repo, monkeypatch, capsys):
    monkeypatch.delenv("GITHUB_REPOSITORY", raising=False)
    monkeypatch.chdir(make_repo().path)
    assert cli.main(["validate", "--staged", "--repository", ""]) == 0
    assert cli.main(["validate", "--staged", "--repository", "acme/bench"]) == 0


# --------------------------------------------------------------------------- repository-data paths

REPO_DATA = {
    ("validate",): ["--staged"],
    ("matrix",): ["--base-ref", "HEAD", "--head-ref", "HEAD"],
    ("plan",): ["--base-ref", "HEAD", "--head-ref", "HEAD"],
    ("preflight",): ["--base-ref", "HEAD", "--head-ref", "HEAD"],
    ("changelog", "add"): ["--key", "kimik3-*", "--description", "x"],
    ("changelog", "rebase"): ["--onto", "main"],
    ("changelog", "canonicalize"): ["--pr-number", "3"],
    ("full-sweep",): [],
    ("test-config",): ["--config-keys", "kimik3-*"],
}
CASES = [(path, flag) for flag in ("--changelog-file", "--runner-config", "--config-files")
         for path in map(tuple, _flag_paths(flag))]


def test_every_command_with_a_repository_data_flag_is_exercised():
    assert {path for path, _ in CASES} == set(REPO_DATA)


@pytest.mark.parametrize("path, flag", CASES, ids=lambda x: " ".join(x) if isinstance(x, tuple) else x)
@pytest.mark.parametrize("outside", ["../../../../../../../etc/passwd", "/etc/passwd"])
def test_a_repository_data_path_outside_the_repository_is_one_line(path, flag, outside, make_repo, monkeypatch,
                                                                   capsys):
    """Review: --changelog-file ../../../etc/passwd blamed the repository ('git cat-file --batch ended
    early; ... git fsck'), --runner-config /etc/passwd said the existing file does not exist."""
    monkeypatch.delenv("GITHUB_REPOSITORY", raising=False)
    repo = make_repo()
    (repo.path / "configs").mkdir(exist_ok=True)
    monkeypatch.chdir(repo.path / "configs")  # from a subdirectory too
    before = repo.read()
    capsys.readouterr()
    assert cli.main([*path, *REPO_DATA[path], flag, outside]) == 1
    out, err = capsys.readouterr()
    assert err.splitlines() == [f"{outside}: outside the repository; pass a path inside it"], err
    assert repo.read() == before and not out


@pytest.mark.parametrize("path, flag", CASES, ids=lambda x: " ".join(x) if isinstance(x, tuple) else x)
def test_a_repository_data_flag_naming_a_folder_is_one_line(path, flag, make_repo, monkeypatch, capsys):
    """Audit: `matrix --config-files configs` said "configs does not exist" of a folder that does."""
    monkeypatch.delenv("GITHUB_REPOSITORY", raising=False)
    repo = make_repo()
    (repo.path / "configs").mkdir(exist_ok=True)
    monkeypatch.chdir(repo.path)
    capsys.readouterr()
    assert cli.main([*path, *REPO_DATA[path], flag, "configs"]) == 1
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith(f"configs: {flag} takes a file; this is a folder; pass the file, e.g. "), line


def test_an_absolute_path_inside_the_repository_is_taken_from_its_top(make_repo, monkeypatch, capsys):
    monkeypatch.delenv("GITHUB_REPOSITORY", raising=False)
    repo = make_repo()
    monkeypatch.chdir(repo.path / "configs")
    assert cli.main(["validate", "--staged", "--changelog-file", str(repo.path / "perf-changelog.yaml")]) == 0
    assert cli.main(["test-config", "--config-keys", "kimik3-*", "--runner-config",
                     str(repo.path / "configs" / "runners.yaml")]) == 0


def test_a_changelog_named_from_a_subfolder_is_read_from_there(make_repo, monkeypatch, capsys):
    """New user, inside configs/: `validate --staged --changelog-file ../perf-changelog.yaml` said
    "outside the repository; pass a path inside it" of the repository's own changelog; then (s32c) told
    the path from the top. It is read from there now (s42j), and the path from the top still is."""
    monkeypatch.delenv("GITHUB_REPOSITORY", raising=False)
    root = make_repo().path
    monkeypatch.chdir(root / "configs")
    capsys.readouterr()
    assert cli.main(["validate", "--staged", "--changelog-file", "../perf-changelog.yaml"]) == 0
    assert capsys.readouterr().out.startswith("../perf-changelog.yaml: ok ")
    assert cli.main(["validate", "--staged", "--changelog-file", "perf-changelog.yaml"]) == 0


@pytest.mark.parametrize("argv,typed,from_top", [
    (["full-sweep", "--config-files"], "amd-master.yaml", "configs/amd-master.yaml"),
    (["test-config", "--config-keys", "kimik3-*", "--runner-config"], "runners.yaml", "configs/runners.yaml"),
    (["matrix", "--base-ref", "HEAD~1", "--head-ref", "HEAD", "--runner-config"], "./runners.yaml",
     "configs/runners.yaml"),  # read from git revisions, by the path from the top
])
def test_a_repository_file_named_from_its_own_folder_is_read(make_repo, monkeypatch, capsys, argv, typed, from_top):
    """Adopter review (s31h): inside configs/, `--config-files amd-master.yaml` (the file right there)
    was told "does not exist"; then its path from the top. It is read now (s42j), as its path from the top is."""
    repo = make_repo()
    repo.commit_changelog(CHANGELOG + appended_entry())
    monkeypatch.chdir(repo.path / "configs")
    capsys.readouterr()
    assert cli.main([*argv, typed]) == 0, capsys.readouterr().err
    here = capsys.readouterr().out
    assert cli.main([*argv, from_top]) == 0
    assert capsys.readouterr().out == here


@pytest.mark.parametrize("flag, example", [("--config-files", "configs/nvidia-master.yaml"),
                                           ("--runner-config", "configs/runners.yaml")])
def test_a_missing_repository_file_says_where_it_was_looked_for(make_repo, monkeypatch, capsys, flag, example):
    """A file that is neither here nor at the top keeps one line, at the path as typed; its example is a file of the
    flag's kind (s43h: a master config's was the runners file)."""
    root = make_repo().path
    monkeypatch.chdir(root / "configs")
    capsys.readouterr()
    assert cli.main(["full-sweep", flag, "nope.yaml"]) == 1
    assert capsys.readouterr().err.splitlines() == [
        "nope.yaml: does not exist; create the file, or pass the path of one from the current folder or from the "
        f"repository's top (e.g. {example})"]


def test_version_names_the_copy_that_runs(capsys):
    """Review: a rebuilt wheel of the same version number was not installed over the old one (pip
    saw nothing to do), and nothing told the user which build ran."""
    import sweepgate

    with pytest.raises(SystemExit) as info:
        cli.main(["--version"])
    assert info.value.code == 0
    out = capsys.readouterr().out.strip()
    assert out == f"sweepgate {sweepgate.__version__} ({__import__('pathlib').Path(sweepgate.__file__).parent})"


def test_version_names_the_commit_of_a_git_url_install(capsys, monkeypatch):
    """Install review: `pip install git+URL@other` kept the old files and --version read the same."""
    from importlib import metadata

    class Dist:
        here = cli.__file__  # the install that records the commit is the copy that runs

        def locate_file(self, name):
            assert name == "sweepgate/cli.py"
            return self.here

        def read_text(self, name):
            assert name == "direct_url.json"
            return json.dumps({"url": "https://example.com/sweepgate.git",
                               "vcs_info": {"vcs": "git", "commit_id": "d31214d" + "0" * 33}})

    monkeypatch.setattr(metadata, "distribution", lambda name: Dist())
    with pytest.raises(SystemExit):
        cli.main(["--version"])
    assert " commit d31214d00000 (" in capsys.readouterr().out
    Dist.here = "/elsewhere/site-packages/sweepgate/cli.py"  # another venv's record: not this copy's commit
    with pytest.raises(SystemExit):
        cli.main(["--version"])
    assert " commit " not in capsys.readouterr().out


@pytest.mark.parametrize("argv, said", [
    (["ci", "watch", "--until", "collect", "--run-id", "abc"], "--run-id: 'abc' is not a whole number"),
    (["ci", "watch", "--until", "collect", "--attempt", "0"], "--attempt: 0 is out of range"),
    (["ci", "watch", "--until", "collect", "--interval", "-1"], "--interval: -1 is out of range"),
    (["ci", "watch", "--until", "collect", "--max-minutes", "nan"], "--max-minutes: nan is out of range"),
    (["ci", "reuse", "--matrix", "m.json", "--max-age-days", "-1"], "--max-age-days: -1 is out of range"),
    (["ci", "reuse", "--matrix", "m.json", "--attempt", "0"], "--attempt: 0 is out of range"),
    # bad-input review: these ran the script and then blamed it for not finishing within -5 s (exit 1)
    (["rehearse", "--exp-name", "x", "--timeout", "-5"], "--timeout: -5 is out of range"),
    (["preflight", "--timeout", "0"], "--timeout: 0 is out of range"),
    # bytes that are not UTF-8 (Python keeps them as lone surrogates): they were blamed on a history line
    (["changelog", "add", "--key", "k", "--description", "\udcff\udcfe"], "--description: byte 1 is not UTF-8 text"),
])
def test_ci_run_numbers_and_durations_out_of_range_are_usage_errors(argv, said, capsys):
    """Audit: `ci watch --run-id abc` exited 1, `--interval -1` and `ci reuse --max-age-days -1
    --attempt 0` were accepted."""
    with pytest.raises(SystemExit) as info:
        cli.main(argv)
    assert info.value.code == 2 and said in capsys.readouterr().err


@pytest.mark.parametrize("argv, said", [
    (["ci", "row-env", "--row", "{}", "--runner-name", "r_0", "--tools", "nosuch"], "--tools: no such folder"),
    (["ci", "row-env", "--row", "{}", "--runner-name", "r_0", "--tools", "."], "--tools: no configs/runners.yaml"),
    (["ci", "row-env", "--row", "{}", "--runner-name", "r_0", "--tools", "m.json"], "--tools: not a folder"),
    (["ci", "split", "--matrix", "m.json", "--runners", "nosuch"], "--runners: no configs/runners.yaml"),
])
def test_a_checkout_flag_naming_no_checkout_is_refused(argv, said, tmp_path, capsys, monkeypatch):
    """Audit: `ci row-env --tools /nonexist` gave a run identity (of no launcher at all, the same as
    any such job's, so reuse could hand one job's results to another); `ci split --runners
    /nonexist` blamed every row's runner label."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.json").write_text('{"single_node": {}, "multi_node": {}}')
    rc = cli.main(argv)
    err = capsys.readouterr().err
    where = argv[-1]
    assert rc == 1 and err.startswith(f"{where}: {said}") and len(err.strip().splitlines()) == 1, err


@pytest.mark.parametrize("argv, prog", [(["matrix", "--base-ref", "a", "--head-ref", "b", "--bogus"], "sweepgate matrix"),
                                        (["results", "compare", "--run", "1", "--bogus"], "sweepgate results compare"),
                                        (["ci", "split", "--matrix", "m", "--bogus"], "sweepgate ci split")])
def test_an_unknown_flag_is_told_with_its_command_s_usage(argv, prog, capsys):
    """Audit: `sweepgate matrix ... --bogus` printed the top-level usage line (`sweepgate [-h] ...`)."""
    with pytest.raises(SystemExit) as info:
        cli.main(argv)
    err = capsys.readouterr().err
    assert info.value.code == 2 and err.startswith(f"usage: {prog} ") and f"{prog}: error: unrecognized arguments: --bogus" in err


@pytest.mark.parametrize("argv", [["test-config", "--config-keys", "nomatch"], ["test-config", "--config-keys", "no*"],
                                  ["preflight", "--config-keys", "nomatch"]])
def test_a_config_key_that_matches_nothing_is_told_at_its_flag(argv, make_repo, monkeypatch, capsys):
    """Bad-input review: the line began `sweepgate: config key 'nomatch' not found`, a word, not where."""
    monkeypatch.chdir(make_repo().path)
    rc = cli.main(argv)
    err = capsys.readouterr().err
    assert rc == 1 and err.startswith("--config-keys: ") and "config key" in err, err


def test_a_master_config_given_as_the_runners_file_is_read_and_named_for_what_it_is(make_repo, monkeypatch,
                                                                                    capsys):
    """New-user review: with the cache on, `--runner-config configs/amd-master.yaml` said that file
    "does not exist" (its split was cached, so its text was never read), and named another way it
    drew one schema line per config key."""
    monkeypatch.delenv("GITHUB_REPOSITORY", raising=False)
    monkeypatch.delenv("SWEEPGATE_NO_CACHE", raising=False)
    repo = make_repo()
    repo.commit_changelog(CHANGELOG + appended_entry())
    monkeypatch.chdir(repo.path)
    assert cli.main(["full-sweep"]) == 0  # fills the cache: amd-master.yaml's split is known
    for given in ("configs/amd-master.yaml", "./configs/amd-master.yaml"):
        capsys.readouterr()
        assert cli.main(["matrix", "--base-ref", "HEAD~1", "--head-ref", "HEAD", "--runner-config", given]) == 1
        assert capsys.readouterr().err.splitlines() == [
            f"{given}:1:1: this is a master config (config recipes, no 'labels'), not a runners file; "
            "pass the runners file as --runner-config, e.g. configs/runners.yaml"]


def test_the_runners_file_given_as_a_master_config_is_one_line(make_repo, monkeypatch, capsys):
    monkeypatch.delenv("GITHUB_REPOSITORY", raising=False)
    monkeypatch.chdir(make_repo().path)
    capsys.readouterr()
    assert cli.main(["full-sweep", "--config-files", "configs/runners.yaml"]) == 1
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("configs/runners.yaml:1:1: this is a runners file (only 'labels' and 'hardware'), "
                           "not a master config of config keys; pass the master configs")


@pytest.mark.parametrize("argv, said", [
    (["--nope"], "sweepgate: error: unrecognized arguments: --nope (with no command, sweepgate runs `example`;"),
    (["--json", "--nope"], "sweepgate: error: unrecognized arguments: --nope (with no command,"),
    (["example", "--nope"], "sweepgate example: error: unrecognized arguments: --nope")])
def test_an_unknown_flag_without_a_command_is_not_blamed_on_example_alone(argv, said, capsys):
    """New-user review: `sweepgate --nope` said "sweepgate example: error: ..." of a command never named."""
    with pytest.raises(SystemExit) as info:
        cli.main(argv)
    err = capsys.readouterr().err
    assert info.value.code == 2 and said in err, err


def test_a_full_sweep_filter_value_no_config_has_is_warned_of(make_repo, monkeypatch, capsys):
    """New-user review: `full-sweep --model-prefix nothing` printed [] and exit 0 without a word, so
    a typo read as a sweep with nothing to run. The output stays the reference's; stderr says why."""
    monkeypatch.delenv("GITHUB_REPOSITORY", raising=False)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.chdir(make_repo().path)
    capsys.readouterr()
    assert cli.main(["full-sweep", "--model-prefix", "nothing", "--precision", "fp9", "--framework", "vllm"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out) == []
    lines = err.splitlines()
    assert len(lines) == 2, err
    assert lines[0].startswith("--model-prefix: warning: 'nothing' starts no config key; check the spelling; "
                               "it is matched against the start of each config key; the keys start: ")
    assert lines[1].startswith("--precision: warning: 'fp9' matches no config;") and "fp4" in lines[1]


@pytest.mark.parametrize("argv, prog, flag", [
    (["results", "show", "--run", "1", "--ref", "refs/heads/main"], "sweepgate results show", "--ref"),
    (["validate", "--staged", "--head-ref", "HEAD"], "sweepgate validate", "--head-ref"),
    (["preflight", "--base-ref", "main"], "sweepgate preflight", "--base-ref"),
    (["preflight", "--head-ref", "HEAD"], "sweepgate preflight", "--head-ref"),
    (["preflight", "--base-ref", "main", "--head-ref", "HEAD", "--config-keys", "k"], "sweepgate preflight",
     "--config-keys"),
    (["preflight", "--changelog-file", "perf-changelog.yaml"], "sweepgate preflight", "--changelog-file"),
    (["full-sweep", "--no-evals", "--all-evals"], "sweepgate full-sweep", "--all-evals"),
    (["results", "ingest", "--ref", "refs/heads/main", "out.json"], "sweepgate results ingest", "--ref"),
    (["results", "ingest", "--attempt", "2", "out.json"], "sweepgate results ingest", "--attempt"),
    (["results", "ingest", "--row", "row.json", "--run-id", "1", "out.json"], "sweepgate results ingest", "--row"),
    # review27: compare used --pr-number only for a comment; without one it was silently ignored
    (["results", "compare", "--run", "1", "--pr-number", "7"], "sweepgate results compare", "--pr-number"),
    (["results", "compare", "--run", "1", "--pr-number", "7", "--markdown"], "sweepgate results compare",
     "--pr-number"),
])
def test_flags_that_cannot_go_together_read_as_argparse_says_it(argv, prog, flag, tmp_path, monkeypatch, capsys):
    """gate27: commands refused flag combinations in words of their own (`--base-ref and --head-ref go
    together`, with no fix; `--row needs ...`, `--ref: ...`), where argparse says `argument FLAG: ...`;
    the README's exit-code table and CONTRACTS' "Exit codes" give them argparse's shape. Each is
    exit 2 after the usage line, one error line `PROG: error: argument FLAG: what; how to fix`, and
    its `::error title=usage::` under GitHub Actions."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    with pytest.raises(SystemExit) as info:
        cli.main(argv)
    err = capsys.readouterr().err
    assert info.value.code == 2, err
    assert err.startswith(f"usage: {prog} "), err
    (said,) = [line for line in err.splitlines() if line.startswith(f"{prog}: error: ")]
    assert said.startswith(f"{prog}: error: argument {flag}: ") and "; " in said, said
    assert f"::error title=usage::{said.replace(': error: ', ': ', 1)}" in err.splitlines(), err
