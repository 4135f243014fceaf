"""`rehearse` without --exp-name, whose rows are of several exp-names, given a --conc none of them has
(s41e's adoption review: `rehearse --config-keys minimaxm3-fp8-mi300x-vllm-agentic-mtp --conc 99` on
InferenceX's configs, an agentic config whose every concurrency is an exp-name of its own): it was told
"no row chosen: 7 rows (exp-name ...); pass --exp-name NAME", as if --conc had not been given, though no
exp-name would have helped. A --conc no row has is refused for what it names, with the concurrencies the
rows have, as it is with --exp-name (and as a --where none of them meets is)."""
from __future__ import annotations

from test_gate_cli_s34c import own_scripts, sweepgate

from sweepgate.core.sweep import worktree_keyed_rows


def test_a_conc_no_row_of_several_exp_names_has_is_refused_for_it(make_repo):
    repo = own_scripts(make_repo)
    rows = [row for _, row in worktree_keyed_rows(repo.path, ["dsr1-fp4-b300-*"])]
    assert len({row["exp-name"] for row in rows}) > 1 and 5 not in {row["conc"] for row in rows}
    concs = ", ".join(str(c) for c in sorted({row["conc"] for row in rows}))
    r = sweepgate(["rehearse", "--config-keys", "dsr1-fp4-b300-*", "--conc", "5"], repo.path)
    assert r.returncode == 1 and r.stderr.splitlines() == [
        f"configs/nvidia-master.yaml:1: no row has conc 5; pick --conc from: {concs}"], r.stderr
    # A --conc some rows have still leaves the choice among them (s35d), named as before.
    r = sweepgate(["rehearse", "--config-keys", "dsr1-fp4-b300-*", "--conc", "4"], repo.path)
    assert r.returncode == 1 and r.stderr.splitlines() == [
        "configs/nvidia-master.yaml:1: no row chosen: 2 rows (exp-name dsr1_1k1k, dsr1_8k1k); "
        "pass --exp-name dsr1_1k1k, or --exp-name dsr1_8k1k"], r.stderr
