"""s41s: a job's status "success" is named once (core/jobfile.py, beside STATUSES), not spelt in each module.

compare.job_failed, the store's succeeded condition, show's row style, ingest, synthetic, sidecar and
normalize each spelt the literal, and STATUSES named no success value: a rename would have had to find them
all. They now use ``jobfile.SUCCESS`` (``record.SUCCESS``). `results show` styles a record red unless its status
is a success, and `compare` counts a record with no status as one: the two cannot disagree on a stored record,
since ingest checks every record against the result schema, which requires a status (success, failure or
cancelled) - a status-less record comes only from a hand-made JSONL file, which show does not read.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import sweepgate
from sweepgate.core import jobfile
from sweepgate.results import normalize

PACKAGE = Path(sweepgate.__file__).parent


def _status_literals(path: Path) -> list[int]:
    """Lines where ``path`` spells "success" as a job status: compared, returned, passed or stored."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    hits = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and node.value == "success":
            up = parents.get(node)
            if isinstance(up, (ast.Compare, ast.Return, ast.Call, ast.Dict, ast.IfExp, ast.keyword)):
                hits.append(node.lineno)
    return hits


@pytest.mark.parametrize("module", ["results/compare.py", "results/store.py", "results/store_query.py",
                                    "results/show.py",
                                    "results/ingest.py", "results/synthetic.py", "results/sidecar.py",
                                    "results/normalize.py", "rehearsal/runner.py"])
def test_no_module_spells_the_success_status(module):
    assert _status_literals(PACKAGE / module) == [], module


def test_the_statuses_name_their_success():
    assert jobfile.SUCCESS in jobfile.STATUSES and jobfile.STATUSES[0] == jobfile.SUCCESS


def test_the_result_schema_requires_a_status_of_the_statuses():
    import json

    from sweepgate.core.schemas import schema_bytes

    schema = json.loads(schema_bytes("result"))
    assert "status" in schema["required"] and tuple(schema["properties"]["status"]["enum"]) == jobfile.STATUSES
    assert normalize  # the records ingest stores are checked against it (normalize.build)
