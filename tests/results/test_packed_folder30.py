"""s30: a folder holding only xz, zstd, bzip2 or 7z files (or tar archives so compressed) said "no result
files (.json, .jsonl, .csv) in this folder; pass the folder the job outputs were downloaded into", as if it
were empty: only zip, tar (.tar, .tgz, .tar.gz) and gzip were named. Every archive and compressed kind of
the one table, ``jsonio.KINDS``, is named now, with the command that unpacks it, and so is every tar name
``tar -xf`` reads. The results are a real vLLM output (tests/data/results-samples) compressed by Python's
lzma and bz2; zstd's frame and 7z's archive are written as their formats define them (no module for
either in the standard library)."""

from __future__ import annotations

import bz2
import io
import lzma
import tarfile

import pytest

from helpers import SAMPLES, no_ref_said, run_cli
from test_packed_files_polish29 import ZSTD, _seven_z

REAL = (SAMPLES / "vllm" / "vllmbench0.1x_qwen3-32b_b200x8_tp8_isl1024_osl128_c100.json").read_bytes()
NO_RESULTS = "no result files (.json, .jsonl, .csv) in this folder, only "


def _tarball(compression: str) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode=f"w:{compression}") as tf:
        info = tarfile.TarInfo("res.json")
        info.size = len(REAL)
        tf.addfile(info, io.BytesIO(REAL))
    return buf.getvalue()


def _ingest(capsys, tmp_path, folder):
    return run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", str(folder))


def _folder(tmp_path, files: dict):
    runs = tmp_path / "runs"
    runs.mkdir()
    for name, content in files.items():
        (runs / name).write_bytes(content)
    return runs


@pytest.mark.parametrize("files, said", [
    ({"b.json.xz": lzma.compress(REAL), "a.jsonl.xz": lzma.compress(REAL)},
     "2 xz-compressed result files (a.jsonl.xz, b.json.xz); decompress each (xz -dk FILE) and ingest the folder"),
    ({"res.json.zst": ZSTD},
     "1 zstd-compressed result file (res.json.zst); decompress each (zstd -d FILE) and ingest the folder"),
    ({"res.csv.bz2": bz2.compress(REAL)},
     "1 bzip2-compressed result file (res.csv.bz2); decompress each (bunzip2 -k FILE) and ingest the folder"),
    ({"runs.7z": _seven_z()}, "1 7z archive (runs.7z); extract each (7z x FILE -oDIR) and ingest the folders"),
    ({"a.tar.xz": _tarball("xz"), "b.txz": _tarball("xz"), "c.tar.bz2": _tarball("bz2"), "d.tbz2": _tarball("bz2")},
     "4 tar archives (a.tar.xz, b.txz, c.tar.bz2, ...); extract each (tar -xf FILE -C DIR) and ingest the folders"),
])
def test_a_folder_of_one_packed_kind_names_it(tmp_path, capsys, files, said):
    runs = _folder(tmp_path, files)
    rc, out, err = _ingest(capsys, tmp_path, runs)
    assert rc == 1 and out == ""  # refused before the store is opened
    assert err.splitlines() == [f"{runs}: {NO_RESULTS}{said}"], err


def test_every_packed_kind_of_the_table_is_named(tmp_path, capsys):
    """Whatever kinds jsonio.KINDS holds: each compressed kind's result file and each archive is named, by
    its own command, in one line, in the table's order; a compressed log (no result's name) is not."""
    from sweepgate.results import jsonio

    compressed = [k for k in jsonio.KINDS if k.kind == jsonio.COMPRESSED]
    archives = [k for k in jsonio.KINDS if k.kind == jsonio.ARCHIVE]
    assert {k.name for k in compressed} == {"gzip", "xz", "zstd", "bzip2"}
    assert {k.name for k in archives} == {"zip", "7z", "tar"}
    named = [f"res.json{k.suffix}" if k in compressed else f"runs{k.ends[0]}"  # in the table's order
             for k in jsonio.KINDS if k in compressed or k in archives]
    files = dict.fromkeys(named, b"x")
    files["server.log.xz"] = lzma.compress(b"started\n")
    runs = _folder(tmp_path, files)
    rc, out, err = _ingest(capsys, tmp_path, runs)
    assert rc == 1 and len(err.splitlines()) == 1, err
    what, fix = err.rstrip("\n").split("; ", 1)
    for kind in jsonio.KINDS:
        if kind in compressed:
            assert f"1 {kind.called} result file (res.json{kind.suffix})" in what, what
            assert f"each {kind.called} result file ({kind.command})" in fix, fix
        elif kind in archives:
            assert f"1 {kind.called} (runs{kind.ends[0]})" in what, what
            assert f"each {kind.called} ({kind.command})" in fix, fix
    assert "server.log" not in err and fix.endswith(" and ingest the folders")
    places = [what.index(f"({name})") for name in named]
    assert places == sorted(places)  # the table's order


def test_the_tar_names_are_the_table_s():
    """ingest's list of tarball names went into jsonio.KINDS: .tar, and .tar + each compressor's suffix
    with its short name (.tgz ...), every one of them a tar archive tar -xf reads."""
    from sweepgate.results import ingest, jsonio

    assert not hasattr(ingest, "TAR_NAMES")
    assert set(jsonio.TAR_NAMES) == {".tar", ".tar.gz", ".tgz", ".tar.xz", ".txz", ".tar.bz2", ".tbz2", ".tbz",
                                     ".tar.zst", ".tzst"}


def test_a_folder_decompressed_as_told_is_ingested(tmp_path, capsys):
    """The hint is the fix: the xz file decompressed beside itself (what `xz -dk FILE` leaves), the folder
    ingests, the compressed file passed over as a walk passes over any name it does not take."""
    runs = _folder(tmp_path, {"res.json.xz": lzma.compress(REAL)})
    rc, out, err = _ingest(capsys, tmp_path, runs)
    assert rc == 1 and "decompress each (xz -dk FILE) and ingest the folder" in err
    (runs / "res.json").write_bytes(lzma.decompress((runs / "res.json.xz").read_bytes()))
    rc, out, err = _ingest(capsys, tmp_path, runs)
    assert rc == 0 and no_ref_said(err) == "", err
    assert "ingested 1 results (1 new)" in out
