"""s42k: a results artifact's bytes are a GPU job's, which ran a PR's code. `results compare --baseline-artifacts`
read the whole zip into memory and unpacked whatever it held: a symbolic link's member, an encrypted one, a zip
bomb (any size its headers declared), any number of files; and a zip whose data did not unpack (a corrupt member)
stopped compare with zlib's error. Each is now refused with one line naming the run's artifact, nothing written
outside the temporary folder; the zip goes to a temporary file, refused past a size, not into memory. Against the
GitHub REST stand-in, as `results compare` runs."""

from __future__ import annotations

import io
import stat
import struct
import tempfile
import zipfile

import pytest

import synth
from test_compare_artifacts import artifact_zip, created, gh, one_point_pr  # noqa: F401 (gh: fixture)
from sweepgate import cli
from sweepgate.core import github
from sweepgate.results import source

LINE = f"{source.RESULTS_ARTIFACT} artifact of run 5001"


def _records() -> str:
    return "".join(__import__("json").dumps(r) + "\n" for r in synth.history(runs=1, keys=synth.KEYS[:1]))


def _zip(*members: tuple[zipfile.ZipInfo | str, bytes | str]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for info, data in members:
            zf.writestr(info, data)
    return buf.getvalue()


def _link(name: str, target: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name)
    info.create_system, info.external_attr = 3, (stat.S_IFLNK | 0o777) << 16
    return info


def _declared(data: bytes, size: int) -> bytes:
    """``data``, a zip, with every member's uncompressed size in its central directory said to be ``size``."""
    out, at = bytearray(data), 0
    while (at := out.find(b"PK\x01\x02", at)) != -1:
        out[at + 24:at + 28] = struct.pack("<I", size)
        at += 4
    return bytes(out)


def _encrypted() -> bytes:
    """A zip whose member says it is encrypted (bit 0 of its flags, in its local and its central header)."""
    out = bytearray(_zip(("results.jsonl", _records())))
    for signature, at in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        out[out.find(signature) + at] |= 0x1
    return bytes(out)


def _corrupt() -> bytes:
    data = bytearray(_zip(("results.jsonl", _records() * 20)))
    data[100:140] = b"\xff" * 40  # inside the member's deflated data
    return bytes(data)


HOSTILE = {
    "parent path": (lambda: artifact_zip([], {"a/../../../escape.txt": "x"}), "points outside its folder"),
    "absolute path": (lambda: artifact_zip([], {"/tmp/s42k-absolute-escape.txt": "x"}), "points outside its folder"),
    "symbolic link": (lambda: _zip(("results.jsonl", _records()), (_link("more.jsonl", "/etc/passwd"), "/etc/passwd")),
                      "member 'more.jsonl' is a symbolic link"),
    "encrypted": (_encrypted, "member 'results.jsonl' is encrypted"),
    "zip bomb": (lambda: _declared(_zip(("results.jsonl", _records())), 0xFFFFFFFF), "unpacks to 4,096 MiB by its own "
                 "sizes, more than the 2,048 MiB a results artifact may (a zip bomb?)"),
    "many files": (lambda: _zip(*((f"f{i}.txt", "") for i in range(github.MAX_ARTIFACT_MEMBERS + 1))),
                   f"holds {github.MAX_ARTIFACT_MEMBERS + 1:,} files, more than the {github.MAX_ARTIFACT_MEMBERS:,}"),
    "no zip": (lambda: b"<html>not a zip</html>", "is no zip file that unpacks: File is not a zip file"),
    "truncated": (lambda: _zip(("results.jsonl", _records()))[:-40], "is no zip file that unpacks"),
    "corrupt member": (_corrupt, "is no zip file that unpacks"),
}


@pytest.mark.parametrize("case", HOSTILE)
def test_a_hostile_artifact_is_one_line_and_writes_nothing_outside_the_temporary_folder(gh, tmp_path, monkeypatch,
                                                                                        capsys, case):
    make, said = HOSTILE[case]
    gh.add_run({"id": 5001, "created_at": created(1), "artifacts": [
        {"id": 9001, "name": source.RESULTS_ARTIFACT, "zip": make(), "expired": False}]})
    argv = one_point_pr(gh, tmp_path, monkeypatch)
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))  # where compare's temporary folder goes
    before = {p for p in tmp_path.rglob("*") if not p.is_relative_to(tmp_path / "tmp")}
    assert cli.main(argv) == 1
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1 and LINE in err and said in err, err
    assert "Traceback" not in err and "rerun with SWEEPGATE_DEBUG" not in err, err
    after = {p for p in tmp_path.rglob("*") if not p.is_relative_to(tmp_path / "tmp")}
    assert after == before  # the store is rewritten in place, nothing added beside it
    assert list((tmp_path / "tmp").iterdir()) == []  # the temporary folder, and the zip, removed
    import pathlib

    assert not pathlib.Path("/tmp/s42k-absolute-escape.txt").exists()


def test_an_artifact_within_the_limits_is_read(gh, tmp_path, monkeypatch, capsys):
    """The limits leave a results artifact room: a store, its JSONL and a chart folder of files."""
    charts = {f"charts/c{i}.svg": "<svg/>" for i in range(500)}
    gh.add_run({"id": 5001, "created_at": created(1), "artifacts": [
        {"id": 9001, "name": source.RESULTS_ARTIFACT, "zip": artifact_zip(synth.history(runs=1), charts),
         "expired": False}]})
    assert cli.main(one_point_pr(gh, tmp_path, monkeypatch)) == 0, capsys.readouterr().err
