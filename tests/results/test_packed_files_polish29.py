"""polish29: an xz, zstd, bzip2 or 7z file, or a PNG (a chart saved where the result was), given to `results
ingest` or `results compare --baseline-jsonl` read "not UTF-8 text (byte 0); pass a client's JSON/JSONL/CSV
output", as if the file were damaged text. Each is named by its magic bytes now, as zip, gzip, tar and SQLite
files were (one table, ``jsonio.KINDS``), with the command that unpacks it, or, for an image, that it is no
result. The files are made by the real compressors (Python's lzma, bz2, tarfile; zstd's frame and 7z's
empty archive written byte for byte, as their formats define them: no such module is in the standard library)."""

from __future__ import annotations

import bz2
import io
import lzma
import struct
import tarfile
import zlib

import pytest

from helpers import job, sweepgate_at, vllm_output, write_job

JSON = b'{"a": 1}\n'
# `printf '{"a":1}\n' | zstd -c`: a zstd frame (magic 28 b5 2f fd, a header, one raw block, its checksum)
ZSTD = bytes.fromhex("28b52ffd04584100007b2261223a317d0ae2efece0")


def _seven_z() -> bytes:
    """An empty 7z archive: the signature, version 0.4, then the start header's CRC over the next-header
    offset, size and CRC (all 0: no header follows)."""
    tail = struct.pack("<QQI", 0, 0, 0)
    return b"7z\xbc\xaf\x27\x1c\x00\x04" + struct.pack("<I", zlib.crc32(tail)) + tail


def _tar() -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tf:
        info = tarfile.TarInfo("res.json")
        info.size = len(JSON)
        tf.addfile(info, io.BytesIO(JSON))
    return buf.getvalue()


def _png() -> bytes:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    fig, buf = Figure(figsize=(1, 1)), io.BytesIO()
    fig.add_subplot().plot([1, 2])
    fig.savefig(buf, format="png")
    return buf.getvalue()


CASES = {  # name -> (content, what the line says, then its hint)
    "res.json.xz": (lzma.compress(JSON), "xz-compressed, not the file itself",
                    "decompress it (xz -dk FILE) and {gzipped}"),
    "res.json": (lzma.compress(JSON), "xz-compressed, not the file itself",  # a name xz -d would refuse
                 "decompress it (xz -dc FILE > NEW_FILE) and {gzipped}"),
    "res.json.bz2": (bz2.compress(JSON), "bzip2-compressed, not the file itself",
                     "decompress it (bunzip2 -k FILE) and {gzipped}"),
    "empty.bz2": (bz2.compress(b""), "bzip2-compressed, not the file itself",
                  "decompress it (bunzip2 -k FILE) and {gzipped}"),
    "res.json.zst": (ZSTD, "zstd-compressed, not the file itself", "decompress it (zstd -d FILE) and {gzipped}"),
    "runs.7z": (_seven_z(), "a 7z archive, not the file itself", "extract it (7z x FILE -oDIR) and {zipped}"),
    "runs.tar.xz": (lzma.compress(_tar()), "an xz-compressed tar archive, not the file itself",
                    "extract it (tar -xJf FILE -C DIR) and {zipped}"),
    "runs.tar.bz2": (bz2.compress(_tar()), "a bzip2-compressed tar archive, not the file itself",
                     "extract it (tar -xjf FILE -C DIR) and {zipped}"),
    "chart.png": (_png(), "an image (a chart?), not a result", None),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_results_ingest_names_a_packed_file_or_an_image_by_its_magic_bytes(tmp_path, name):
    content, said, hint = CASES[name]
    (tmp_path / name).write_bytes(content)
    proc = sweepgate_at(tmp_path, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", name)
    assert proc.returncode == 1, proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    expected = hint.format(zipped="ingest the folder", gzipped="ingest the file") if hint else \
        "pass the job's result file ($RESULT_FILENAME.json, a client's JSON/JSONL/CSV output)"
    assert line.startswith(f"{name}:1: {said}; {expected}"), line
    assert "UTF-8" not in line, line


@pytest.mark.parametrize("name", ["res.json.xz", "res.json.zst", "runs.7z", "chart.png"])
def test_compare_baseline_jsonl_names_them_alike(tmp_path, name):
    content, said, hint = CASES[name]
    db = f"sqlite:///{tmp_path / 'r.db'}"
    write_job(tmp_path / "run", "res", vllm_output(4), job("21", ref="refs/pull/7/merge"))
    assert sweepgate_at(tmp_path, "results", "ingest", "--db", db, "run").returncode == 0
    (tmp_path / name).write_bytes(content)
    proc = sweepgate_at(tmp_path, "results", "compare", "--db", db, "--run", "21", "--baseline-jsonl", name)
    assert proc.returncode == 1, proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    expected = hint.format(zipped="pass the files it holds", gzipped="pass the file") if hint else \
        "pass the JSONL `results ingest --jsonl` wrote beside it"
    assert line.startswith(f"{name}:1: {said}; {expected}"), line


def test_text_that_starts_like_a_magic_is_still_read_as_text(tmp_path):
    """The magics are whole: a CSV whose first cell starts "BZh9" or "7z" is text, refused (or read) as such."""
    from sweepgate.results import jsonio

    for text in (b"BZh9,conc\n1,2\n", b"7z,x\n", b"PK,x\n", b"\xef\xbb\xbf{}"):
        assert jsonio.kind_of(text) is None, text
