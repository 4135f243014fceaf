"""Command-line leftovers about benchmark scripts and `rehearse` (s34h), each driven as a real process in a real
git repository.

1. `plan`'s "rerun unchanged" note said "... and benchmarks/benchmark_lib.sh unchanged" in a repository that has
   no benchmark library.
"""

from __future__ import annotations

from conftest import CHANGELOG
from test_changelog_tools import entry
from test_gate_cli_s34c import own_scripts, sweepgate


# --- 1. plan's rerun note names only what the repository has ---------------------------------------------


def test_plan_rerun_note_names_no_library_the_repository_lacks(make_repo):
    repo = own_scripts(make_repo)
    base = repo.head()
    head = repo.commit_changelog(CHANGELOG + entry("dsr1-fp4-b300-*", "5"))
    r = sweepgate(["plan", "--base-ref", base, "--head-ref", head], repo.path)
    notes = [line for line in r.stderr.splitlines() if "identical to base" in line]
    assert r.returncode == 0 and len(notes) == 2, r.stderr
    assert all("benchmark_lib.sh unchanged" not in n and "sh unchanged)" in n for n in notes), notes
    # with the library, the note names it again
    fixed = repo.commit({"benchmarks/benchmark_lib.sh": "#!/usr/bin/env bash\n"})
    head = repo.commit_changelog(CHANGELOG + entry("dsr1-fp4-b300-*", "5") + entry("dsr1-fp4-b300-*", "6"))
    r = sweepgate(["plan", "--base-ref", fixed, "--head-ref", head], repo.path)
    notes = [line for line in r.stderr.splitlines() if "identical to base" in line]
    assert len(notes) == 2 and all("and benchmarks/benchmark_lib.sh unchanged)" in n for n in notes), r.stderr

