"""s45a: what a command makes on disk and removes later (a temporary folder, a probe, a temporary file) was
made before the ``try`` that removes it, or named only once the call that made it had returned. A Ctrl-C,
SIGTERM or SIGHUP in that instant stopped the command with nothing to remove it by:

- ``sweepgate rehearse`` left an empty ``sweepgate-rehearse-*`` folder (``mkdtemp`` came before its ``try``);
- ``sweepgate example`` its ``sweepgate-example-*`` folder, the same way;
- preflight's scratch folder (``record_row``), a ``.sweepgate-probe-*`` folder in the user's own folder (the
  check that --plots DIR can be made), the temporary file beside an atomically written one (the name was
  kept only after ``mkstemp`` returned), the cache's temporary file (never removed on a stop).

Each is now made and named under ``core.signals.Held`` (or named before it exists): the signal acts once the
name is where the cleanup finds it. The signals are real, sent in that very instant: to a real ``sweepgate``
process from inside its own ``mkdtemp`` (``os.kill`` of itself), or raised in this process from inside the
call that made the file (``signal.raise_signal``, as tests/test_signal_swaps_s44a.py does)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from sweepgate.core.errors import Terminated

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from test_rehearse import SEED_EXP, SEED_ROW, write_rows  # noqa: E402

# A real sweepgate whose mkdtemp sends this process SIGHUP the instant a folder named PREFIX* exists.
SIGNALLED_AT_MKDTEMP = """
import os, signal, sys, tempfile
real = tempfile.mkdtemp
def mkdtemp(*args, **kwargs):
    made = real(*args, **kwargs)
    if os.path.basename(made).startswith(sys.argv[1]):
        os.kill(os.getpid(), signal.SIGHUP)
    return made
tempfile.mkdtemp = mkdtemp
from sweepgate.cli import main
raise SystemExit(main(sys.argv[2:]))
"""


def signalled_at_mkdtemp(prefix: str, args: list[str], temp: Path, cwd: Path = ROOT):
    temp.mkdir()
    env = {**os.environ, "PYTHONPATH": str(ROOT / "utils"), "TMPDIR": str(temp), "SWEEPGATE_REHEARSE_DURATION": "2"}
    env.pop("GITHUB_ACTIONS", None)
    return subprocess.run([sys.executable, "-c", SIGNALLED_AT_MKDTEMP, prefix, *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def test_a_hangup_the_instant_rehearse_made_its_work_dir_removes_it(tmp_path):
    temp = tmp_path / "tmp"
    r = signalled_at_mkdtemp("sweepgate-rehearse-", ["rehearse", "--exp-name", SEED_EXP, "--row-json",
                                                     str(write_rows(tmp_path, SEED_ROW))], temp)
    assert r.returncode == 129 and "Traceback" not in r.stderr, r.stdout + r.stderr
    assert list(temp.iterdir()) == [], "the work dir made the instant before the hang-up was left behind"
    assert "rehearse: stopped; removed its work dir" in r.stderr, r.stderr


def test_a_hangup_the_instant_example_made_its_repository_folder_removes_it(tmp_path):
    temp = tmp_path / "tmp"
    r = signalled_at_mkdtemp("sweepgate-example-", ["example", "--no-rehearse"], temp)
    assert r.returncode == 129 and "Traceback" not in r.stderr, r.stdout + r.stderr
    assert list(temp.iterdir()) == [], "the example's folder made the instant before the hang-up was left behind"


def test_a_hangup_the_instant_example_made_its_charts_folder_removes_it_and_the_repository(tmp_path):
    """The charts folder was named only once its mkdtemp had returned, inside the try: a signal then left it."""
    temp = tmp_path / "tmp"
    r = signalled_at_mkdtemp("sweepgate-example-charts-", ["example"], temp)
    assert r.returncode == 129 and "Traceback" not in r.stderr, r.stdout + r.stderr
    assert list(temp.iterdir()) == [], "a folder made the instant before the hang-up was left behind"


@pytest.fixture
def terminated_on_sigterm():
    """SIGTERM raising ``Terminated``, as a command's ``run_guarded`` sets it; the suite's handler back after."""
    def _terminated(signum, frame):
        raise Terminated(signum)

    before = signal.signal(signal.SIGTERM, _terminated)
    yield
    signal.signal(signal.SIGTERM, before)


def _signalling(real, prefix: str, sig: int):
    def made(*args, **kwargs):
        out = real(*args, **kwargs)
        name = out[1] if isinstance(out, tuple) else out
        if os.path.basename(name).startswith(prefix):
            signal.raise_signal(sig)  # the handler runs before this call returns: the folder or file exists
        return out
    return made


def test_a_sigterm_the_instant_preflight_made_its_scratch_folder_removes_it(tmp_path, monkeypatch,
                                                                            terminated_on_sigterm):
    from sweepgate.rehearsal.record import record_row

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(tempfile, "mkdtemp", _signalling(tempfile.mkdtemp, "sweepgate-preflight-", signal.SIGTERM))
    with pytest.raises(Terminated):
        record_row(json.loads(json.dumps(SEED_ROW)), ROOT, timeout=30)
    assert list(tmp_path.iterdir()) == [], "preflight's scratch folder was left behind"


def test_a_ctrl_c_the_instant_the_plots_probe_exists_leaves_no_probe_in_the_users_folder(tmp_path, monkeypatch):
    from sweepgate.core.outpaths import why_not_creatable

    monkeypatch.setattr(tempfile, "mkdtemp", _signalling(tempfile.mkdtemp, ".sweepgate-probe-", signal.SIGINT))
    with pytest.raises(KeyboardInterrupt):
        why_not_creatable(tmp_path / "charts")
    assert list(tmp_path.iterdir()) == [], "a .sweepgate-probe-* folder was left in the user's folder"


def test_a_ctrl_c_the_instant_the_temporary_file_of_an_atomic_write_exists_leaves_none(tmp_path, monkeypatch):
    from sweepgate.core.atomic import atomic_write

    target = tmp_path / "out.json"
    monkeypatch.setattr(tempfile, "mkstemp", _signalling(tempfile.mkstemp, ".out.json.", signal.SIGINT))
    with pytest.raises(KeyboardInterrupt):
        atomic_write(target, b"{}\n")
    assert list(tmp_path.iterdir()) == [], "the temporary file beside out.json was left behind"


def test_a_ctrl_c_while_the_cache_writes_its_temporary_file_leaves_none(tmp_path, monkeypatch):
    from sweepgate.core import cache

    monkeypatch.delenv("SWEEPGATE_NO_CACHE", raising=False)
    store = cache.Cache(str(tmp_path))
    real = os.fdopen

    def fdopen(fd, *args, **kwargs):
        if any(p.name.startswith(".tmp-") for p in tmp_path.iterdir()):
            signal.raise_signal(signal.SIGINT)  # the temporary file exists, nothing written to it yet
        return real(fd, *args, **kwargs)

    monkeypatch.setattr(os, "fdopen", fdopen)
    with pytest.raises(KeyboardInterrupt):
        store.write_blob("docs-0", b"data")
    monkeypatch.undo()
    assert list(tmp_path.iterdir()) == [], "the cache's temporary file was left in the git directory"


def test_a_ctrl_c_the_instant_compare_made_its_baseline_folder_removes_it(tmp_path, monkeypatch):
    """``results compare --baseline-artifacts``: TemporaryDirectory names its folder for removal only once its
    own mkdtemp has returned."""
    from sweepgate.results.source import records_from_artifacts

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(tempfile, "mkdtemp", _signalling(tempfile.mkdtemp, "sweepgate-baseline-", signal.SIGINT))
    with pytest.raises(KeyboardInterrupt):
        records_from_artifacts("owner/name", "token", "main", 1, api_url="http://127.0.0.1:9")
    assert list(tmp_path.iterdir()) == [], "the baseline artifacts' folder was left behind"
