"""s43a: a file `results ingest` reads whole (a result file, a job sidecar) was read whatever its size: a 5 GB one into
memory. Now one over jsonio.MAX_INPUT_BYTES is refused by its size, taken before it is read (stat), one line with the
size and the cap; a sparse file stands for a big one, so nothing of that size is written."""

from __future__ import annotations

import pytest

from helpers import no_ref_said, run_cli  # helpers puts utils/ on sys.path
from test_sidecar_identity_s43a import REAL, _folder_with_real, _job_folder, _rows


def test_a_result_file_over_the_cap_is_refused_by_its_size_unread(db, tmp_path, capsys):
    from sweepgate.results.jsonio import MAX_INPUT_BYTES

    folder = _folder_with_real(tmp_path)
    big = folder / "big.json"
    with open(big, "wb") as f:
        f.truncate(MAX_INPUT_BYTES + 1)  # sparse: no gigabytes written
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(folder))
    size, cap = f"{MAX_INPUT_BYTES + 1:,}", f"{MAX_INPUT_BYTES >> 20:,} MiB"
    assert rc == 1 and no_ref_said(err).splitlines() == [
        f"{big}: {size} bytes, over the {cap} a file ingest reads may hold; check that it is the file "
        "meant: real ones are a few MB"], err
    assert _rows(db) == 1  # the real file beside it is stored


def test_a_sidecar_over_the_cap_is_refused_by_its_size(db, tmp_path, capsys):
    from sweepgate.results.jsonio import MAX_INPUT_BYTES

    folder, side = _job_folder(tmp_path)
    with open(side, "r+b") as f:
        f.truncate(MAX_INPUT_BYTES + 1)
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(folder))
    assert rc == 1 and len(err.splitlines()) == 1, err
    assert err.startswith(f"{side}: {MAX_INPUT_BYTES + 1:,} bytes, over"), err
    assert _rows(db) == 0




def test_gpu_samples_over_the_cap_give_no_energy_and_the_result_is_stored(db, tmp_path, capsys):
    """The job's GPU samples beside its output are read whole too: over the cap, a warning, as samples that hold
    no draw are, and the output is stored without an energy figure."""
    from sweepgate.results.formats.gpu_metrics import FILENAME
    from sweepgate.results.jsonio import MAX_INPUT_BYTES

    folder, _ = _job_folder(tmp_path)
    samples = folder / FILENAME
    with open(samples, "wb") as f:
        f.truncate(MAX_INPUT_BYTES + 1)
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(folder))
    assert rc == 0 and err.splitlines() == [
        f"{samples}: warning: no energy per output token: {MAX_INPUT_BYTES + 1:,} bytes, over the "
        f"{MAX_INPUT_BYTES >> 20:,} MiB a file ingest reads may hold; check that it is the file meant: real ones are "
        "a few MB"], err
    assert _rows(db) == 1


def test_gpu_samples_with_a_field_too_long_for_a_csv_reader_give_no_energy(db, tmp_path, capsys):
    """Found beside the cap: a GPU samples file under it whose one field is longer than Python's csv reader takes
    (131,072 characters) stopped the whole ingest with an internal error. It is samples that cannot be read: a
    warning at the file, and the output stored."""
    from sweepgate.results.formats.gpu_metrics import FILENAME

    folder, _ = _job_folder(tmp_path)
    samples = folder / FILENAME
    samples.write_text("timestamp, index, power.draw [W]\n" + "x" * 200_000 + "\n", encoding="utf-8")
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(folder))
    assert rc == 0 and err.splitlines() == [
        f"{samples}:2: warning: no energy per output token: not a CSV table of samples (field larger than field "
        "limit (131072)); write it with benchmark_lib.sh's start_gpu_monitor"], err
    assert _rows(db) == 1


def test_what_grows_past_its_size_or_has_none_is_read_no_further_than_the_cap():
    """A device or pipe says size 0: it is read a MiB at a time and refused once past the cap (a --row of
    /dev/zero read until memory ran out); the read makes no buffer of the cap's size for a small file."""
    import tracemalloc

    from sweepgate.core.errors import SweepgateError
    from sweepgate.results import jsonio

    with pytest.raises(SweepgateError) as exc:
        jsonio.read_bytes("/dev/zero", 3 << 20)
    assert exc.value.diagnostics[0].render() == ("/dev/zero: 3,145,729 bytes, over the 3 MiB a file ingest reads may "
                                                 "hold; check that it is the file meant: real ones are a few MB")
    tracemalloc.start()
    try:
        assert jsonio.read_bytes(REAL) == REAL.read_bytes()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2 * REAL.stat().st_size + (64 << 10), peak
