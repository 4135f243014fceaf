"""Each rule name (the title a diagnostic carries: `missing-file`, `event-payload`) is written out in one
place: a module constant, or core/fields.py for one that several modules say. Written out again at a
second Diagnostic, `rule=`, `out.add`, `doc.diag` or `out.has`, the two copies can drift apart, and a
check that looks for one (`out.has("encoding")`) silently stops matching what the other says."""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "utils" / "sweepgate"
GENERATED = ("validators", "migrations")  # generated code and frozen migrations: not written by hand
RULE = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")


def _rule_spots(call: ast.Call) -> list[ast.expr]:
    """The arguments of ``call`` that hold a rule name, by the calls the package makes diagnostics with."""
    name = getattr(call.func, "id", getattr(call.func, "attr", ""))
    spots = [k.value for k in call.keywords if k.arg == "rule"]
    if name == "Diagnostic" and len(call.args) >= 4:
        spots.append(call.args[3])
    if name in ("add", "diag") and len(call.args) >= 2:
        spots.append(call.args[1])
    if name == "has":
        spots.extend(call.args)
    return spots


def rule_names_written(root: Path) -> dict[str, list[str]]:
    """Every rule name written out as a string, with where: at a diagnostic or as a ``*_RULE`` constant."""
    found = defaultdict(list)
    for path in sorted(root.rglob("*.py")):
        if any(part in GENERATED for part in path.relative_to(root).parts):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                values = _rule_spots(node)
            elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id.endswith("_RULE")
                                                      for t in node.targets):
                values = [node.value]
            else:
                continue
            for value in values:
                if isinstance(value, ast.Constant) and isinstance(value.value, str) and RULE.fullmatch(value.value):
                    found[value.value].append(f"{path.relative_to(root)}:{value.lineno}")
    return found


def test_each_rule_name_is_written_out_once():
    repeated = {name: at for name, at in rule_names_written(PACKAGE).items() if len(at) > 1}
    assert not repeated, "give each a name in one place (a module constant, or core/fields.py): " + "; ".join(
        f"{name!r} at {', '.join(at)}" for name, at in sorted(repeated.items()))


def test_the_check_finds_a_rule_name_written_twice(tmp_path):
    """It reads the package as the package writes diagnostics: a copy at any of those calls is found."""
    (tmp_path / "a.py").write_text('X_RULE = "same"\nout.add(1, "same", "m", "h")\n')
    (tmp_path / "b.py").write_text('raise fail(p, 0, "m", "h", rule="other")\nDiagnostic(p, 0, 0, "other", "m", "h")\n'
                                   'out.has("third")\ndoc.diag((), "third", "m", "h")\nprint("same")\n')
    assert {name: len(at) for name, at in rule_names_written(tmp_path).items()} == {"same": 2, "other": 2, "third": 2}
