"""A rehearsal reads the files a script sources or runs for writes it cannot keep in its work dir (s47f).

s46d read the script alone: a write to an absolute path in a library it sources (`source benchmark_lib.sh`,
`. "$(dirname "$0")/x.sh"`) or a file it runs (`bash shared/x.sh`) was not seen, so the rehearsal ran it and the file
landed in a real folder. Now each such file whose path is written out is read too, and its write is a problem at that
file's own line, the script not run. Real bash, a real scratch repository, the real `sweepgate rehearse`.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from test_rehearse import ROOT
from test_rehearse_confined_s46d import SCRIPT, _repo_with_launchers, _run

from sweepgate.core import fields

HELPER = "benchmarks/single_node/fixed_seq_len/helper.sh"


def _lines(stderr: str, path: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith(f"{path}:")]


def test_a_write_in_a_file_the_script_sources_or_runs_is_a_problem_at_that_files_line(tmp_path):
    fixed = f"/tmp/sweepgate-s47f-{os.getpid()}-{tmp_path.name}"
    body = ('set -euo pipefail\n'
            'touch "$HOME/ran"\n'
            'exit 1  # a rehearsal before s47f ran it: what follows must never land, whatever the test finds\n'
            '. "$(dirname "$0")/helper.sh"\n'
            'bash shared/run.sh\n'
            'source "$FROM_THE_RUN/unknown.sh" 2>/dev/null || true\n')  # (a path only the run knows: not read)
    repo = _repo_with_launchers(tmp_path, body)
    (repo / HELPER).write_text('#!/usr/bin/env bash\nOUT=/workspace/results\n\nmkdir -p "$OUT"\n')
    (repo / "shared").mkdir()
    (repo / "shared/run.sh").write_text(f"#!/usr/bin/env bash\necho hi | tee {fixed}\n")
    home, tmp, work = tmp_path / "home", tmp_path / "tmp", tmp_path / "w"
    r = _run(tmp_path, repo, home, tmp)
    assert r.returncode == 1, r.stdout + r.stderr
    assert _lines(r.stderr, HELPER) == [
        f"{HELPER}:4: writes /workspace/results (\"$OUT\"), outside the rehearsal's work dir, so the script was not "
        "run (the job's container mounts the checkout at /workspace); write into \"$RESULT_DIR\" (results the job "
        "uploads) or a path relative to the checkout's top, where the job starts, not /workspace"], r.stderr
    assert _lines(r.stderr, "shared/run.sh") == [
        f"shared/run.sh:2: writes {fixed}, outside the rehearsal's work dir, so the script was not run; make the file "
        "with mktemp (or mktemp -d), which puts it in $TMPDIR, the rehearsal's own"], r.stderr
    assert _lines(r.stderr, SCRIPT) == [] and "Traceback" not in r.stderr, r.stderr
    assert not (work / "home" / "ran").exists() and not Path(fixed).exists()  # not run at all


def test_a_write_in_the_benchmark_library_is_a_problem_at_its_line(tmp_path):
    """The library a script sources (`source "$(dirname "$0")/../../benchmark_lib.sh"`) and its parts are read: a
    write there is said at the library's line; the library as it ships writes nowhere outside, and the script runs."""
    body = ('set -euo pipefail\n'
            'source "$(dirname "$0")/../../benchmark_lib.sh"\n'
            'touch "$HOME/ran"\n'
            'exit 0\n')
    repo = _repo_with_launchers(tmp_path, body)
    for path in fields.BENCHMARK_LIB_FILES:
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / path, repo / path)
    r = _run(tmp_path, repo, tmp_path / "home", tmp_path / "tmp")
    assert "writes" not in r.stderr and (tmp_path / "w" / "home" / "ran").exists(), r.stdout + r.stderr
    (tmp_path / "w" / "home" / "ran").unlink()
    (repo / SCRIPT).write_text(body.replace("exit 0\n", "").replace(
        "set -euo pipefail\n", "set -euo pipefail\ntouch \"$HOME/ran\"\nexit 1  # (as above)\n"))
    part = fields.BENCHMARK_LIB_PARTS[0]
    lines = (repo / part).read_text().count("\n")
    with (repo / part).open("a") as f:
        f.write("echo cached > /workspace/.cache-s47f\n")
    r = _run(tmp_path, repo, tmp_path / "home", tmp_path / "tmp")
    assert r.returncode == 1, r.stdout + r.stderr
    assert [line.split(", ")[0] for line in _lines(r.stderr, part)] == [
        f"{part}:{lines + 1}: writes /workspace/.cache-s47f"], r.stderr
    assert not (tmp_path / "w" / "home" / "ran").exists()
