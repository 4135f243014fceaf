"""polish29: the GPU sweep's workflow file name, run-sweep.yml, is what `results compare --baseline-artifacts`
reads the artifacts of, what `ci dispatch` dispatches and `ci audit` admits, and what the benchmark templates'
callers are checked by. It was spelt in results/source.py and workflow/dispatch.py apart; it is one name now
(``core.fields.SWEEP_WORKFLOW``), README and docs/contracts.md say a copied workflow keeps it, and a repository
without it is told so: `--baseline-artifacts` against one said only "404 ...; the token needs 'actions: read';
check --repository", sending a user after a token that was right."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import synth  # noqa: E402
from github_stub import TOKEN  # noqa: E402
from helpers import ROOT  # noqa: E402
from sweepgate import cli  # noqa: E402
from sweepgate.core import fields as F  # noqa: E402
from sweepgate.results import store  # noqa: E402
from sweepgate.workflow import audit, dispatch  # noqa: E402
from test_compare_artifacts import NAME, OWNER, REPO, gh  # noqa: E402,F401 - the GitHub stand-in's fixture

PACKAGE = ROOT / "utils" / "sweepgate"


def _docstrings(tree) -> set[int]:
    return {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}


def test_the_sweep_workflow_s_name_is_spelt_once():
    """No code of the package spells it but core/fields.py (docstrings and comments may name it)."""
    spelt = []
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = _docstrings(tree)
        spelt += [f"{path.relative_to(PACKAGE)}:{node.lineno}" for node in ast.walk(tree)
                  if isinstance(node, ast.Constant) and isinstance(node.value, str) and F.SWEEP_WORKFLOW in node.value
                  and id(node) not in docs and path != PACKAGE / "core" / "fields.py"]
    assert not spelt, spelt
    assert dispatch.GPU_WORKFLOW == F.SWEEP_WORKFLOW and F.SWEEP_WORKFLOW in audit.GPU_WORKFLOWS
    assert (ROOT / ".github" / "workflows" / F.SWEEP_WORKFLOW).is_file()


def test_the_docs_say_a_copied_workflow_keeps_its_name():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## The workflows in another repository"):]
    section = section[:section.index("\n## ", 1)]
    assert "keep their file names" in section and f"`{F.SWEEP_WORKFLOW}`" in section, section[:600]
    contracts = (ROOT / "docs" / "contracts.md").read_text(encoding="utf-8")
    assert f"a copy of sweepgate's workflows keeps the name `{F.SWEEP_WORKFLOW}`" in contracts


def test_baseline_artifacts_of_a_repository_without_the_workflow_names_it(gh, tmp_path, monkeypatch, capsys):
    """The stand-in answers 404 for a workflow file it does not have, as GitHub does (here: one renamed)."""
    for path in (f"{REPO}/actions/workflows/{F.SWEEP_WORKFLOW}", f"{REPO}/actions/workflows/{F.SWEEP_WORKFLOW}/runs"):
        del gh.stub.routes[("GET", path)]
    url = f"sqlite:///{tmp_path / 'r.db'}"
    with store.open_store(url) as st:
        st.add(synth.pr_run({}))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    for name in ("SWEEPGATE_DB", "GITHUB_STEP_SUMMARY", "GITHUB_ACTIONS"):
        monkeypatch.delenv(name, raising=False)
    code = cli.main(["results", "compare", "--db", url, "--run", "pr-7", "--json", "--baseline-artifacts",
                     "--repository", f"{OWNER}/{NAME}", "--github-api-url", gh.url])
    out, err = capsys.readouterr()
    assert code == 1 and out == "", out
    (line,) = err.strip().splitlines()
    assert f"404 reading {F.SWEEP_WORKFLOW} artifacts of {OWNER}/{NAME}" in line, line
    assert line.endswith(f"check --repository, and that it has .github/workflows/{F.SWEEP_WORKFLOW} (a copy of "
                         "sweepgate's workflow keeps that file name); the token needs 'actions: read' and "
                         "'contents: read'"), line
