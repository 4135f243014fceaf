"""A script that fails says why in the rehearsal's own problem line, not only in the output under it
(new user s37d). The corpus's runners file has no `accelerator-runtime`, so the seed's LMCache row stopped
at `Error: SWEEPGATE_ACCELERATOR_RUNTIME is '', not cuda or rocm; state accelerator-runtime under ...`;
`rehearse` said only "the script exited 1; its output (the last lines below, ...) says why", and under
GitHub Actions its annotation, which holds no lines below it, said nothing of the cause, while `preflight`
says the cause in its line."""

from __future__ import annotations

from test_rehearse import FSL_ROWS, _bench_with_script, cli, write_rows

SCRIPT = "benchmarks/single_node/fixed_seq_len/dsr1_fp8_b300_vllm.sh"
CAUSE = "Error: SWEEPGATE_ACCELERATOR_RUNTIME is '', not cuda or rocm; state accelerator-runtime in runners.yaml"


def test_the_cause_a_failed_script_prints_is_in_the_problem_line_and_its_annotation(tmp_path):
    repo, _ = _bench_with_script(tmp_path, f'echo "{CAUSE}" >&2\necho "(Stopping server)"\nexit 1\n')
    r = cli(["--row-json", str(write_rows(tmp_path, FSL_ROWS[0])), "--work-dir", str(tmp_path / "w")], cwd=repo,
            env={"GITHUB_ACTIONS": "true"})
    said = f"the script exited 1 ({CAUSE}); its output (the last lines below, script.log in the work dir) says why"
    assert r.returncode == 1 and f"{SCRIPT}: {said}\n" in r.stderr, r.stderr
    assert f"::error file={SCRIPT}::{said}\n" in r.stderr, r.stderr
