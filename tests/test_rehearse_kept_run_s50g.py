"""A rehearsal whose result is kept (`--work-dir DIR`, "e.g. for `sweepgate results ingest`", benchmarks/README.md)
said where the result is, but not the run id its sidecar files it under, which `results show --run` and `results
compare --run` ask for (s50g, an adopter's walk: the id was found by opening the `.job.json`). Its OK line is now
followed by one naming the run id and the two commands that store and show it; run as written (real bash, the
example fleet's repository, a real rehearsal), the result is stored and shown under that run."""

from __future__ import annotations

import re
import subprocess

from test_readme_adopting_s40v import KEY, _env, _repo


def test_a_kept_rehearsal_names_its_run_id_and_the_commands_that_store_and_show_it(tmp_path):
    repo, env = _repo(tmp_path), _env(tmp_path)
    env["SWEEPGATE_DB"] = f"sqlite:///{tmp_path / 'results.db'}"
    env["NO_COLOR"] = "1"
    work = tmp_path / "kept"
    proc = subprocess.run(["sweepgate", "rehearse", "--config-keys", KEY, "--conc", "64", "--work-dir", str(work)],
                          cwd=repo, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    said = re.search(r"^rehearse: its sidecar names run (\S+) \(a rehearsal, on no ref\): `(sweepgate results ingest "
                     r"[^`]*)` stores it, then `(sweepgate results show --run [^`]*)` shows it$", proc.stdout, re.M)
    assert said, proc.stdout
    run_id, ingest, show = said.groups()
    assert run_id.startswith("rehearsal-kept-") and ingest.endswith(str(work / "results")), said.group(0)
    stored = subprocess.run(["bash", "-c", f"set -e; {ingest}; {show}"], cwd=repo, env=env, capture_output=True,
                            text=True, timeout=300)
    assert stored.returncode == 0, stored.stdout + stored.stderr
    assert "(1 new)" in stored.stdout and f"run {run_id}: 1 point" in stored.stdout, stored.stdout
