"""s39m: a file sourced by one of the files every job runs besides its script (`benchmark_lib.sh`, beyond the parts
it lists; a launcher; `launch_common.sh`; a multi-node helper) was not part of the run identity: only the script's
helpers were followed, so a change to, say, a launcher's own helper left the identity as it was and `ci reuse` handed
the row the results of the old code. They are followed now as the script's are; the identity of a row whose support
files source nothing new stays what it was. Real bash sources each helper."""

from __future__ import annotations

import posixpath
import subprocess

import pytest
from test_reuse import M_ROW, script, with_support

from sweepgate.core import fields as F
from sweepgate.core import identity

SCRIPT = identity.script_candidates(M_ROW)[0]
LAUNCHER = identity.launcher_files(M_ROW["runner"], {})[0]
MULTI = {**M_ROW, F.MULTINODE: True}
HOSTS = {  # the file that sources a helper -> the helper beside it, and the row whose job runs the file
    "benchmark_lib.sh, a part it does not list": (F.BENCHMARK_LIB, "benchmarks/lib/extra.sh", M_ROW),
    "the launcher": (LAUNCHER, "benchmarks/runners/site.sh", M_ROW),
    "launch_common.sh": (identity.LAUNCHER_LIB, "benchmarks/runners/common_extra.sh", M_ROW),
    "a multi-node helper": (identity.MULTINODE_PARTS[0], "benchmarks/multi_node/extra.sh", MULTI),
}
SOURCES = 'source "$(dirname "${BASH_SOURCE[0]}")/%s"\necho host ran\n'


@pytest.mark.parametrize("how", HOSTS)
def test_a_helper_a_support_file_sources_is_part_of_the_run_identity(tmp_path, how):
    host, helper, row = HOSTS[how]
    text = SOURCES % posixpath.relpath(helper, posixpath.dirname(host))
    for path, body in {host: text, helper: "echo helper sourced\n"}.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(body)
    said = subprocess.run(["bash", host], cwd=tmp_path, capture_output=True, text=True, timeout=60).stdout
    assert said == "helper sourced\nhost ran\n"  # bash sources it
    tree = with_support({identity.script_candidates(row)[0]: script("x").encode()}, {})
    tree.update({p: b"true\n" for p in identity.support_files(row, {}) if p not in tree})
    tree.update({host: text.encode(), helper: b"echo helper sourced\n"})

    def read(wanted):
        return {p: tree.get(p) for p in wanted}
    first = identity.identities([row], {}, read)[0]
    assert first is not None
    tree[helper] = b"echo helper changed\n"
    assert identity.identities([row], {}, read)[0] != first
    tree[helper] = b"echo helper sourced\n"
    assert identity.identities([row], {}, read)[0] == first


def test_a_row_whose_support_files_source_nothing_new_keeps_its_identity():
    """The shipped launchers source launch_common.sh and disagg_lib.sh names the other multi-node helpers: all support
    files already, so the identity is the one an earlier sweepgate recorded (files in the same order)."""
    from sweepgate.core.digest import files_sha
    from test_blind_identity_s38k import ROOT

    tree = {p: (ROOT / p).read_bytes() for p in identity.support_files(MULTI, {}) if (ROOT / p).exists()}
    tree[identity.LAUNCHER_LIB] = (ROOT / identity.LAUNCHER_LIB).read_bytes()
    tree[identity.launcher_files(MULTI["runner"], {})[0]] = (ROOT / "benchmarks/runners/launch_b300-nv.sh").read_bytes()
    tree[identity.script_candidates(MULTI)[0]] = script("x").encode()
    blobs = dict(tree)
    assert identity.blind_spots(MULTI, {}, blobs) == []
    files = [identity.script_candidates(MULTI)[0], *identity.support_files(MULTI, {})]
    assert identity.executed_files(MULTI, {}, blobs) == files
    assert files_sha(files, blobs)  # the same list the identity hashes


def test_a_folder_a_launcher_names_beside_itself_is_read_as_none_not_refused(tmp_path):
    """What a launcher names beside itself is followed now; a folder there (`"$(dirname "$0")/templates"`) is no
    launcher that cannot be read: it is hashed as missing, as a folder a script names beside itself is."""
    tree = with_support({SCRIPT: script("x").encode()})
    tree[LAUNCHER] = b'cp -r "$(dirname "${BASH_SOURCE[0]}")/templates" /tmp/x\n'
    for path, blob in tree.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_bytes(blob)
    (tmp_path / "benchmarks/runners/templates").mkdir()
    assert identity.identities([M_ROW], {}, identity.read_tree(str(tmp_path)))[0] is not None
