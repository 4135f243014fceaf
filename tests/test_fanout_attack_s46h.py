"""Security review s46h: an outside contributor (fork PR) and a triage account trying to get code or text
onto the GPU side. Each test here was seen failing before its fix (or, where the path was already closed,
under a broken copy of what closes it)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "utils"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_ci_authorize import HEAD, SWEEP, dispatch_event, run_cli, serve_pull, stub  # noqa: E402,F401
from sweepgate.workflow import kv  # noqa: E402


def test_the_last_applier_of_a_label_counts_whatever_case_each_event_spelt_it(stub, tmp_path):
    """Issue events keep a label's name as it was spelt when applied (a writer may rename a label, case and
    all). pull_state kept one applier per spelling, and counted_labels then took, among the spellings, the one
    first seen: a triage account (read) that applied `sweep-enabled` before a maintainer applied it as
    `Sweep-Enabled`, and applied it again last after the maintainer's was removed, had the maintainer's label
    counted for its own, and the PR swept. The last `labeled` event of the label, in any case, decides."""
    serve_pull(stub, labels=[SWEEP], events=[(SWEEP, "triager"), ("Sweep-Enabled", "dev"), (SWEEP, "triager")])
    out = tmp_path / "out"
    proc = run_cli(stub, "decide", "--output", str(out), event=dispatch_event(), tmp_path=tmp_path)
    assert proc.returncode == 0, proc.stderr
    values = kv.parse_kv(out.read_text())
    assert values["run"] == "false" and "without write permission" in values["reason"], values
    # and the other way round: the maintainer's application, last, counts
    serve_pull(stub, labels=[SWEEP], events=[("Sweep-Enabled", "triager"), (SWEEP, "triager"), ("SWEEP-ENABLED", "dev")])
    again = tmp_path / "again"
    proc = run_cli(stub, "decide", "--output", str(again), event=dispatch_event(), tmp_path=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert kv.parse_kv(again.read_text())["run"] == "true"
