"""The content cache never changes an answer: cached runs equal uncached runs, edits invalidate."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import CHANGELOG, FLEET_NVIDIA, ROOT

ENTRY = """
- config-keys:
    - dsr1-*
    - kimik3-*
  description:
    - "cache test"
  pr-link: https://github.com/acme/bench/pull/7
"""


def run(repo, base, head, cache: bool) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop("SWEEPGATE_NO_CACHE", None)
    if not cache:
        env["SWEEPGATE_NO_CACHE"] = "1"
    return subprocess.run([sys.executable, str(ROOT / "utils" / "process_changelog.py"), "--base-ref", base,
                           "--head-ref", head], cwd=repo.path, capture_output=True, text=True, env=env)


def test_cached_runs_equal_uncached_runs_across_edits(make_repo):
    repo = make_repo()
    base = repo.head()
    head = repo.commit_changelog(CHANGELOG + ENTRY)
    truth = run(repo, base, head, cache=False)
    assert truth.returncode == 0, truth.stderr
    for _ in range(3):  # cold, then the block store, then the whole-file index
        cached = run(repo, base, head, cache=True)
        assert (cached.returncode, cached.stdout) == (0, truth.stdout), cached.stderr
    assert any((repo.path / ".git" / "sweepgate-cache").rglob("docs-*"))

    # Edit one config: the cache must not serve the old value or the old verdict.
    edited = FLEET_NVIDIA.replace("conc-start: 4, conc-end: 16", "conc-start: 4, conc-end: 64")
    repo.write("configs/nvidia-master.yaml", edited)
    head2 = repo.commit_changelog(CHANGELOG + ENTRY)
    fresh = run(repo, base, head2, cache=False)
    for _ in range(2):
        assert run(repo, base, head2, cache=True).stdout == fresh.stdout
    assert [r["conc"] for r in json.loads(fresh.stdout)["single_node"]["1k1k"]] == [4, 8, 16, 32, 64]

    # A config that turns invalid is reported, cached or not, at the same line.
    broken = edited.replace("framework: vllm", "framework: vllm\n  color: blue", 1)
    repo.write("configs/nvidia-master.yaml", broken)
    head3 = repo.commit_changelog(CHANGELOG + ENTRY)
    uncached = run(repo, base, head3, cache=False)
    assert uncached.returncode == 1 and "unknown field 'color'" in uncached.stderr
    for _ in range(2):
        cached = run(repo, base, head3, cache=True)
        assert (cached.returncode, cached.stderr) == (1, uncached.stderr)
    # ... and going back to the first head still works from the cache.
    assert run(repo, base, head, cache=True).stdout == truth.stdout


def test_unwritable_cache_location_disables_the_cache_quietly(make_repo):
    repo = make_repo()
    base = repo.head()
    head = repo.commit_changelog(CHANGELOG + ENTRY)
    blocker = repo.path / ".git" / "sweepgate-cache"
    blocker.write_text("not a directory\n")  # mkdir fails here, even for root
    proc = run(repo, base, head, cache=True)
    assert proc.returncode == 0 and not proc.stderr
    assert proc.stdout == run(repo, base, head, cache=False).stdout
    assert blocker.read_text() == "not a directory\n"


def test_generated_validators_are_current_and_used():
    """The committed validators are what `python -m sweepgate.core.validators` writes today,
    and the hot path uses them (no compile) while a stale one is set aside."""
    sys.path.insert(0, str(ROOT / "utils"))
    import importlib

    from sweepgate.core import check, validators

    for name in validators.GENERATED:
        committed = (ROOT / "utils" / "sweepgate" / "core" / "validators" / f"{name}.py").read_text()
        assert committed == validators.source(name), f"regenerate: python -m sweepgate.core.validators ({name})"
        module = importlib.import_module(f"sweepgate.core.validators.{name}")
        raw = check.schema_bytes(name)
        assert check._generated_validator(name, raw) is module.validate
        assert check._generated_validator(name, raw + b" ") is None  # a schema edit makes it stale
    assert check.fast_validator("runners")({"labels": {"b300": ["b300-nv_0"]}})
    assert not check.fast_validator("runners")({"labels": {"b300": []}})


def test_blocks_are_split_at_top_level_keys_with_their_lines():
    """Cached parses are per top-level block: each block's text and first line, or None for odd files."""
    sys.path.insert(0, str(ROOT / "utils"))
    from sweepgate.core.load import split_blocks

    text = "# head\n\na: 1\n  b: [2]\n\n# note\n'c d': 3\n\"e\":\n  - 4\n"
    assert split_blocks(text) == [(2, "a: 1\n  b: [2]\n\n# note\n"), (6, "'c d': 3\n"), (7, "\"e\":\n  - 4\n\n")]
    assert split_blocks("a: 1") == [(0, "a: 1\n")]
    for odd in ("a: 1\n- x\n", "---\na: 1\n", "a: 1\n[x]: 2\n", "a:1\n"):
        assert split_blocks(odd) is None, odd


def test_a_warm_one_key_change_parses_only_the_edited_block(make_repo):
    """Blocks whose text was checked before are neither parsed nor checked: only the edited one is."""
    sys.path.insert(0, str(ROOT / "utils"))
    from sweepgate.core.check import check_revision
    from sweepgate.core.load import Git, MasterDoc, load_revision, split_blocks

    repo = make_repo()
    base = repo.head()
    assert run(repo, base, repo.commit_changelog(CHANGELOG + ENTRY), cache=True).returncode == 0
    edited = FLEET_NVIDIA.replace("conc-start: 4, conc-end: 16", "conc-start: 4, conc-end: 64", 1)
    assert edited != FLEET_NVIDIA
    repo.write("configs/nvidia-master.yaml", edited)
    head = repo.commit_changelog(CHANGELOG + ENTRY)

    os.environ.pop("SWEEPGATE_NO_CACHE", None)
    rev = load_revision(Git(repo.path), head)
    check_revision(rev)
    parsed = {key for doc in rev.masters if isinstance(doc, MasterDoc) for key in doc._values}
    before, after = split_blocks(FLEET_NVIDIA), split_blocks(edited)
    changed = [text.split(":", 1)[0] for (_, text), (_, old) in zip(after, before) if text != old]
    assert len(changed) == 1 and parsed == set(changed), (parsed, changed)
    # Asking for any other config still parses it, with the value an uncached run gives.
    other = next(k for k in rev.configs if k not in parsed)
    os.environ["SWEEPGATE_NO_CACHE"] = "1"
    try:
        cold = load_revision(Git(repo.path), head)
        check_revision(cold)
    finally:
        os.environ.pop("SWEEPGATE_NO_CACHE")
    assert rev.configs[other] == cold.configs[other] and dict(rev.configs.items()) == dict(cold.configs.items())


def test_placement_verdicts_follow_the_runners_file(make_repo):
    """A placement verdict is cached per block and runners version: shrinking a node refuses, cached or not."""
    from conftest import RUNNERS

    repo = make_repo()
    base = repo.head()
    head = repo.commit_changelog(CHANGELOG + ENTRY)
    assert run(repo, base, head, cache=True).returncode == 0  # fills the verdicts with today's runners
    assert run(repo, base, head, cache=True).returncode == 0
    small = RUNNERS.replace("gpus-per-node: 8", "gpus-per-node: 4")
    assert small != RUNNERS
    repo.write("configs/runners.yaml", small)
    head2 = repo.commit_changelog(CHANGELOG + ENTRY)
    uncached = run(repo, base, head2, cache=False)
    assert uncached.returncode == 1 and "kimik3-fp4-mi355x-vllm-agentic" in uncached.stderr, uncached.stderr
    for _ in range(2):
        cached = run(repo, base, head2, cache=True)
        assert (cached.returncode, cached.stderr) == (1, uncached.stderr)
    assert run(repo, base, head, cache=True).returncode == 0  # the old runners still place it


def test_the_cache_never_holds_code_that_runs(make_repo, monkeypatch, tmp_path):
    """Security review: with a schema newer than its committed validator, fast_validator exec'd a
    compiled validator it had marshalled into the git directory's cache; a cache entry written by
    anyone else (one restored by actions/cache, one a benchmark container left in the workspace's
    .git) ran as sweepgate. The cache holds data only: a stale schema's validator is compiled anew."""
    import hashlib
    import marshal

    sys.path.insert(0, str(ROOT / "utils"))
    from sweepgate.core import check, load

    repo = make_repo()
    git = load.open_repo(str(repo.path))
    raw = check.schema_bytes("master") + b" "  # stale: no committed validator is current for it
    monkeypatch.setattr(check, "schema_bytes", lambda name, real=check.schema_bytes: raw if name == "master" else real(name))
    marker = tmp_path / "PLANTED-CODE-RAN"
    planted = compile(f"import pathlib\npathlib.Path({str(marker)!r}).write_text('ran')\n"
                      "def validate(data):\n    return data\n", "<planted>", "exec")
    key = hashlib.sha1(raw + sys.version.encode()).hexdigest()[:16]
    rev = load.load_revision(git, "HEAD")
    rev.cache.write_blob(f"fastschema-master-{key}", marshal.dumps(("validate", planted)))
    check.fast_validator.cache_clear()
    try:
        diags = check.check_masters(rev)
    finally:
        check.fast_validator.cache_clear()
        git.close()
    assert not marker.exists(), "code read from the cache ran"
    assert not [d for d in diags if d.severity == "error"], diags


def test_a_byte_that_is_no_utf8_is_refused_at_it_with_the_cache_warm(make_repo):
    """A master config is no longer decoded whole when it is split into blocks: its new blocks and
    the text before the first one are, and the blocks the cache knows were before. A stray byte in
    either place is still refused at its line and column, cached or not."""
    repo = make_repo()
    base = repo.head()
    head = repo.commit_changelog(CHANGELOG + ENTRY)
    assert run(repo, base, head, cache=True).returncode == 0  # the cache now knows every block
    nvidia = FLEET_NVIDIA.encode()
    inside = nvidia.index(b"framework: vllm")
    for where, edited in (("before the first key", b"# caf\xe9\n" + nvidia),
                          ("in a block", nvidia[:inside] + b"# caf\xe9\n  " + nvidia[inside:])):
        repo.write("configs/nvidia-master.yaml", edited)
        bad = repo.commit_changelog(CHANGELOG + ENTRY)
        uncached = run(repo, base, bad, cache=False)
        line = edited[:edited.index(b"\xe9")].count(b"\n") + 1
        assert uncached.returncode == 1 and f"configs/nvidia-master.yaml:{line}:" in uncached.stderr, where
        assert "not valid UTF-8 (byte 0xe9)" in uncached.stderr, (where, uncached.stderr)
        for _ in range(2):
            cached = run(repo, base, bad, cache=True)
            assert (cached.returncode, cached.stderr) == (1, uncached.stderr), where


def test_a_cache_another_sweepgate_filled_never_answers_for_this_one(make_repo, tmp_path):
    """Security audit: README says the cache's entries are salted with sweepgate's rules and version, so
    a restored hit is the answer the slow path would give. pr-sweep.yml restores the cache main's
    sweepgate filled, while the PR's sweepgate may check by other rules; no test held the salt, and a
    constant one passed every cache test (this sweepgate then took the other's verdicts for blocks it
    refuses). Here another sweepgate (a copy whose master schema refuses names over 3 characters) runs
    over the cache this one filled, and answers as it does with no cache at all."""
    import json
    import shutil

    repo = make_repo()
    base = repo.head()
    head = repo.commit_changelog(CHANGELOG + ENTRY)
    for _ in range(2):  # this sweepgate fills the cache, then answers from it
        assert run(repo, base, head, cache=True).returncode == 0
    other = tmp_path / "other"
    shutil.copytree(ROOT / "utils" / "sweepgate", other / "sweepgate", ignore=shutil.ignore_patterns("__pycache__"))
    schema = other / "sweepgate" / "schemas" / "master-config.schema.json"
    doc = json.loads(schema.read_text(encoding="utf-8"))
    doc["$defs"]["nameString"]["maxLength"] = 3  # model-prefix dsr1 and framework vllm are refused
    schema.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")

    def other_run(cache: bool) -> subprocess.CompletedProcess:
        env = {k: v for k, v in os.environ.items() if k != "SWEEPGATE_NO_CACHE"}
        env.update({"PYTHONPATH": str(other), **({} if cache else {"SWEEPGATE_NO_CACHE": "1"})})
        return subprocess.run([sys.executable, "-m", "sweepgate", "matrix", "--base-ref", base, "--head-ref", head],
                              cwd=repo.path, capture_output=True, text=True, env=env)

    truth = other_run(cache=False)
    assert truth.returncode == 1 and "dsr1" in truth.stderr and truth.stdout == "", truth.stderr
    for _ in range(2):  # the cache this sweepgate filled, then the one the other filled beside it
        cached = other_run(cache=True)
        assert (cached.returncode, cached.stdout, cached.stderr) == (1, "", truth.stderr), cached.stderr
    assert run(repo, base, head, cache=True).returncode == 0  # and this one's entries still answer for it


def _salts(package_parent, edits: list[str]) -> dict[str, str]:
    """The rules salt of the sweepgate under ``package_parent`` as it is ("") and with each file of
    ``edits`` (relative to sweepgate/core) given one more line, one at a time, in a process of its own."""
    script = (
        "import json, sys\nfrom pathlib import Path\nfrom sweepgate.core import cache\n"
        "core = Path(cache.__file__).parent\nout = {'': cache.rules_salt()}\n"
        "for rel in sys.argv[1:]:\n"
        "    path = core / rel\n    kept = path.read_bytes()\n    path.write_bytes(kept + b'\\n# edited\\n')\n"
        "    cache.rules_salt.cache_clear()\n    out[rel] = cache.rules_salt()\n    path.write_bytes(kept)\n"
        "print(json.dumps(out))\n")
    env = {**os.environ, "PYTHONPATH": str(package_parent)}
    proc = subprocess.run([sys.executable, "-c", script, *edits], env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _copy_of_sweepgate(tmp_path):
    import shutil

    other = tmp_path / "other"
    shutil.copytree(ROOT / "utils" / "sweepgate", other / "sweepgate", ignore=shutil.ignore_patterns("__pycache__"))
    return other


def _modules_the_check_runs() -> list[str]:
    """sweepgate.core.check and every module of sweepgate.core it imports, at the top or in a function
    (found by reading the imports), as paths under sweepgate/core, with the validators core.check loads by
    name (``importlib.import_module``): the code whose answers the cache keeps."""
    import ast

    sys.path.insert(0, str(ROOT / "utils"))
    from sweepgate.core import validators

    core = ROOT / "utils" / "sweepgate" / "core"

    def path_of(module: str):
        rel = module.removeprefix("sweepgate.core.").replace(".", "/")
        for path in (core / f"{rel}.py", core / rel / "__init__.py"):
            if module.startswith("sweepgate.core.") and path.is_file():
                return path
        return None

    seen, todo = set(), ["sweepgate.core.check"]
    while todo:
        module = todo.pop()
        path = path_of(module)
        if module in seen or path is None:
            continue
        seen.add(module)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                todo += [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            elif isinstance(node, ast.Import):
                todo += [a.name for a in node.names]
    found = {path_of(m).relative_to(core).as_posix() for m in seen}
    return sorted(found | {f"validators/{name}.py" for name in validators.GENERATED})


def test_every_module_the_check_runs_salts_the_cache(tmp_path):
    """Security audit: README says the cache's entries are salted with sweepgate's rules, and rules_salt
    hashed a hand-kept list of nine modules; pyyaml.py and jsontext.py (how a block's YAML is read),
    errors.py and expand.py (what the check imports) and the generated validators were not on it, so an
    edit there kept the old parses and verdicts answering, main's cache among them. Each module the check
    runs, edited alone in a copy of sweepgate, now gives the copy another salt."""
    modules = _modules_the_check_runs()
    assert {"check.py", "load.py", "pyyaml.py", "jsontext.py", "validators/master.py"} <= set(modules), modules
    salts = _salts(_copy_of_sweepgate(tmp_path), modules)
    same = [rel for rel in modules if salts[rel] == salts[""]]
    assert not same, f"editing these leaves the cache's salt as it was: {same}"


def test_a_sweepgate_of_another_version_fills_a_cache_of_its_own(make_repo, tmp_path):
    """Security audit: README says the cache is salted with sweepgate's version too, and no test held it (a
    salt without the version passed every cache test). A copy of this sweepgate that differs in its
    version alone has another salt, so over the cache this one filled it reads none of its entries and
    keeps its own beside them; a copy that differs in nothing has this one's salt."""
    other = _copy_of_sweepgate(tmp_path)
    assert _salts(other, [])[""] == _salts(ROOT / "utils", [])[""]  # the salt is of content, not of a path
    init = other / "sweepgate" / "__init__.py"
    text = init.read_text(encoding="utf-8")
    assert text.count('__version__ = "') == 1
    init.write_text(text.replace('__version__ = "', '__version__ = "9.9.9+other-', 1), encoding="utf-8")
    repo = make_repo()
    base = repo.head()
    head = repo.commit_changelog(CHANGELOG + ENTRY)
    mine = run(repo, base, head, cache=True)
    assert mine.returncode == 0, mine.stderr
    folders = lambda: sorted(p.name for p in (repo.path / ".git" / "sweepgate-cache").iterdir())  # noqa: E731
    (own,) = folders()
    env = {k: v for k, v in os.environ.items() if k != "SWEEPGATE_NO_CACHE"}
    theirs = subprocess.run([sys.executable, "-m", "sweepgate", "matrix", "--base-ref", base, "--head-ref", head],
                            cwd=repo.path, capture_output=True, text=True, env={**env, "PYTHONPATH": str(other)})
    assert (theirs.returncode, theirs.stdout) == (0, mine.stdout), theirs.stderr
    assert own in folders() and len(folders()) == 2, folders()


def test_another_pyyaml_gives_another_salt():
    """PyYAML reads every block (``core.fastyaml`` proves rapidyaml's value is PyYAML's), and a pull request
    that moves its pin restores main's cache: the blocks main's PyYAML parsed must not answer for the new
    one. The salt names PyYAML's version and whether libyaml's reader is there."""
    script = ("import sys\nfrom sweepgate.core import cache\nfrom sweepgate.core.pyyaml import yaml\n"
              "if sys.argv[1:]:\n    setattr(yaml, sys.argv[1], sys.argv[2])\nprint(cache.rules_salt())\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "utils")}
    salt = lambda *args: subprocess.run([sys.executable, "-c", script, *args], env=env, capture_output=True,  # noqa: E731
                                        text=True, check=True).stdout
    assert salt() == salt()
    assert salt("__version__", "0.0.0-other") != salt()
    assert salt("__with_libyaml__", "other") != salt()


@pytest.mark.parametrize("module, distribution", [("fastjsonschema", "fastjsonschema"), ("referencing", "referencing"),
                                                  ("jsonschema_specifications", "jsonschema_specifications")])
def test_another_release_of_what_jsonschema_resolves_with_or_fastjsonschema_gives_another_salt(tmp_path, module,
                                                                                           distribution):
    """fastjsonschema compiles the yes/no validator whose yes is cached as a pass (where no generated one is
    current), and jsonschema resolves every $ref with referencing and a schema's dialect with
    jsonschema-specifications; the salt named none of them, so a pull request that moved one's pin was
    answered from main's cache. Here the installed package itself, copied with its metadata folder, is read
    first; renaming that folder to another release changes the salt, still without importing the package."""
    import importlib.util
    import shutil

    spec = importlib.util.find_spec(module)
    source = Path(spec.origin).parent
    site = tmp_path / "site"
    shutil.copytree(source, site / module)
    (info,) = [p for p in source.parent.glob("*.dist-info") if p.name.split("-", 1)[0].lower() == distribution]
    shutil.copytree(info, site / info.name)
    script = (f"import sys\nfrom sweepgate.core import cache\nprint(cache.rules_salt())\n"
              f"print(cache.installed({module!r}, {distribution!r}))\n"
              f"assert {module!r} not in sys.modules and 'importlib.metadata' not in sys.modules\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "utils"), str(site)])}

    def salt() -> list[str]:
        return subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True,
                              check=True).stdout.split()

    first = salt()
    assert first[1] == info.name.removesuffix(".dist-info") and salt() == first, first
    name, version = info.name.removesuffix(".dist-info").split("-", 1)
    (site / info.name).rename(site / f"{name}-{version}.post1.dist-info")
    assert salt()[0] != first[0]


@pytest.mark.parametrize("module, distribution", [("jsonschema", "jsonschema"), ("ryml", "rapidyaml")])
def test_another_jsonschema_or_rapidyaml_gives_another_salt(tmp_path, module, distribution):
    """jsonschema words the refusals the cache keeps and rapidyaml builds the block values it keeps; the salt
    named neither, so a pull request that moved one's pin was answered from main's cache. Each is named by the
    metadata folder beside the module as pip installs it (NAME-VERSION.dist-info), read without importing it."""
    site = tmp_path / "site"
    (site / module).mkdir(parents=True)
    (site / module / "__init__.py").write_text("raise SystemExit('imported')\n")  # found, never run
    script = (f"import sys\nfrom sweepgate.core import cache\nprint(cache.rules_salt())\n"
              f"assert {module!r} not in sys.modules and 'importlib.metadata' not in sys.modules\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "utils"), str(site)])}

    def salt() -> str:
        return subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True,
                              check=True).stdout

    (site / f"{distribution}-1.0.dist-info").mkdir()
    first = salt()
    assert salt() == first
    (site / f"{distribution}-1.0.dist-info").rename(site / f"{distribution}-1.1.dist-info")
    assert salt() != first


def test_with_the_cache_off_its_salt_is_never_worked_out(monkeypatch, tmp_path):
    """The salt names the cache's directory and nothing else, yet with ``SWEEPGATE_NO_CACHE`` set (the cold
    figure of #18) every run still read and hashed each salted file and looked up each salted library for it
    (about 9M instructions of a 1x one-key matrix): an off cache asks for no salt; an on one still does."""
    from sweepgate.core import cache

    asked = []
    monkeypatch.setattr(cache, "rules_salt", lambda: asked.append(1) or "salt")
    monkeypatch.setenv("SWEEPGATE_NO_CACHE", "1")
    assert cache.Cache.for_git_dir(str(tmp_path)).dir is None and not asked
    monkeypatch.delenv("SWEEPGATE_NO_CACHE")
    assert cache.Cache.for_git_dir(str(tmp_path)).dir == str(tmp_path / "sweepgate-cache" / "salt") and asked == [1]
