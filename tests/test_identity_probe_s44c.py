"""s44c: more spellings of the stale cases s44c closed (``test_identity_probe_s43j``'s PASSING): a Python file opening a
relative path from its working folder (the launcher's `cd`, its own `os.chdir`), a tracked folder a program is given, a
JavaScript file's relative `require`/`import`, a tracked script or folder copied and its copy run. Each is run by real
bash in a real git checkout (what it reads says so on its output), then each file it read is edited: the row's identity
must change, or the row has none."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from test_identity_probe_s43j import FIXED, XY, XY_READ, _built, _each_edit_changes_the_identity_or_none
from test_identity_reads_s42b import LAUNCHER, _run
from test_submodule_identity_s39v import ONE, TWO, _both, _gitlink
from test_unknown_prefix_s39u import _checkout, _identity

READER = "print(open('cfg.txt').read())\n"
CFG = {"shared/cfg.txt": None}

# name -> (the launcher's lines, files (path -> text, None: one that says it was read), the files the run reads)
VARIANTS = {
    # a Python file's relative path, from where it runs
    "cd shared && python3 r.py opens os.path.join('cfgs', 'a.yaml')": (
        "cd shared && python3 r.py\n",
        {"shared/r.py": "import os\nwith open(os.path.join('cfgs', 'a.yaml')) as f:\n    print(f.read())\n",
         "shared/cfgs/a.yaml": None},
        ["shared/cfgs/a.yaml"]),
    "pushd shared; python3 r.py reads Path('cfg.txt')": (
        "pushd shared >/dev/null\npython3 r.py\npopd >/dev/null\n",
        {"shared/r.py": "from pathlib import Path\nprint(Path('cfg.txt').read_text())\n", **CFG}, ["shared/cfg.txt"]),
    "python3 shared/r.py: os.chdir(dirname(abspath(__file__))); open('cfg.txt')": (
        "python3 shared/r.py\n",
        {"shared/r.py": "import os\nos.chdir(os.path.dirname(os.path.abspath(__file__)))\n" + READER, **CFG},
        ["shared/cfg.txt"]),
    "python3 r.py imports a module that opens cfg.txt (cd shared)": (
        "cd shared\npython3 r.py\n", {"shared/r.py": "import m\n", "shared/m.py": READER, **CFG}, ["shared/cfg.txt"]),
    # a tracked folder a program is given
    "python3 r.py --config-dir shared/cfgs": (
        "python3 shared/r.py --config-dir shared/cfgs\n",
        {"shared/r.py": "import os, sys\nd = sys.argv[2]\nfor f in sorted(os.listdir(d)):\n"
                        "    print(open(os.path.join(d, f)).read())\n", "shared/cfgs/a.yaml": None},
        ["shared/cfgs/a.yaml"]),
    "cd shared && python3 r.py cfgs (a glob of it read)": (
        "cd shared && python3 r.py cfgs\n",
        {"shared/r.py": "import glob, sys\nfor f in sorted(glob.glob(sys.argv[1] + '/*.yaml')):\n"
                        "    print(open(f).read())\n", "shared/cfgs/a.yaml": None}, ["shared/cfgs/a.yaml"]),
    # a JavaScript file's relative modules
    "node shared/x.mjs imports ./m.mjs": (
        "node shared/x.mjs\n", {"shared/x.mjs": "import { f } from './m.mjs';\nf();\n",
                                "shared/m.mjs": "export function f() { console.log('read:shared/m.mjs'); }\n"},
        ["shared/m.mjs"]),
    "cd shared && node x.js requires ./lib (its index.js, and what that requires)": (
        "cd shared && node x.js\n",
        {"shared/x.js": "require('./lib');\n", "shared/lib/index.js": "console.log('read:shared/lib/index.js');\n"
                                                                       "require(\"../m\");\n",
         "shared/m.js": "console.log('read:shared/m.js')\n"}, ["shared/lib/index.js", "shared/m.js"]),
    # a tracked script copied, its copy run
    "cp shared/x.sh ./run.sh; bash ./run.sh": ("cp shared/x.sh ./run.sh\nbash ./run.sh\nrm -f run.sh\n", XY, XY_READ),
    "install -m 755 shared/x.sh /tmp/F/x; /tmp/F/x": (
        f"rm -rf {FIXED}; mkdir -p {FIXED}\ninstall -m 755 shared/x.sh {FIXED}/x\n{FIXED}/x\n",
        {"shared/x.sh": "#!/usr/bin/env bash\necho read:shared/x.sh\nsource shared/y.sh\n", "shared/y.sh": None},
        XY_READ),
    "cp -t /tmp/F shared/x.sh; bash /tmp/F/x.sh": (
        f"rm -rf {FIXED}; mkdir -p {FIXED}\ncp -t {FIXED} shared/x.sh\nbash {FIXED}/x.sh\n", XY, XY_READ),
    "tar czf /tmp/F.tgz shared; tar xzf -C /tmp/F; bash /tmp/F/shared/y.sh": (
        f"rm -rf {FIXED}; mkdir -p {FIXED}\ntar czf {FIXED}.tgz shared\ntar xzf {FIXED}.tgz -C {FIXED}\n"
        f"bash {FIXED}/shared/y.sh\n", {"shared/y.sh": None}, ["shared/y.sh"]),
    "cp -r shared /tmp/F/s; bash /tmp/F/s/x.sh (from the top: what it sources)": (
        f"rm -rf {FIXED}; mkdir -p {FIXED}\ncp -r shared {FIXED}/s\nbash {FIXED}/s/x.sh\n", XY, XY_READ),
}


@pytest.mark.parametrize("case", VARIANTS)
def test_each_variant_reads_its_files_and_an_edit_changes_the_identity(tmp_path, case):
    lines, files, read = VARIANTS[case]
    if "node " in lines and shutil.which("node", path="/usr/bin:/bin") is None:
        pytest.skip("no node on this host to show the premise")
    repo = _built(tmp_path, lines, files)
    assert set(read) <= set(_run(repo)), _run(repo)
    _each_edit_changes_the_identity_or_none(repo, read)


# --- the known gaps s44c closed: a makefile in a folder only the run knows, a word with a variable part, a submodule's
# files named by a word ---------------------------------------------------------------------------------------------
MAKEFILE = "all:\n\t@echo read:shared/Makefile\n"
OPENER = "import sys\nprint(open(sys.argv[-1].split('=')[-1]).read())\n"
GAPS = {
    # (D from the environment: the premise is shown with D=shared; any tracked makefile may be the one)
    'make -C "$D"': ('make -s -C "$D"\n', {"shared/Makefile": MAKEFILE}, ["shared/Makefile"]),
    'make --directory="$D" -f other.mk': ('make -s --directory="$D" -f other.mk\n',
                                          {"shared/other.mk": MAKEFILE.replace("Makefile", "other.mk")},
                                          ["shared/other.mk"]),
    'N=x; python3 r.py --config "shared/${N}.json"': ('N=x\npython3 shared/r.py --config "shared/${N}.json"\n',
                                                      {"shared/r.py": OPENER, "shared/x.json": None}, ["shared/x.json"]),
    "python3 r.py --config=shared/${N:-x}.json": ("python3 shared/r.py --config=shared/${N:-x}.json\n",
                                                  {"shared/r.py": OPENER, "shared/x.json": None}, ["shared/x.json"]),
    'CFG="shared/$MODEL.json" python3 r.py "$CFG"': ('MODEL=x\nCFG="shared/$MODEL.json" python3 shared/r.py\n',
                                                     {"shared/r.py": "import os\nprint(open(os.environ['CFG']).read())\n",
                                                      "shared/x.json": None}, ["shared/x.json"]),
}


@pytest.mark.parametrize("case", GAPS)
def test_each_gap_reads_its_files_and_an_edit_changes_the_identity(tmp_path, case):
    lines, files, read = GAPS[case]
    repo = _built(tmp_path, lines, files)
    assert set(read) <= set(_ran_with(repo, {"D": "shared"})), _ran_with(repo, {"D": "shared"})
    _each_edit_changes_the_identity_or_none(repo, read)


@pytest.mark.parametrize("line", ["python3 shared/r.py --config vendor/tools/cfg.json\n",
                                  "CFG=vendor/tools/c.yaml python3 shared/r.py\n", "python3 shared/r.py vendor/tools\n"])
def test_a_bump_of_the_submodule_a_word_names_a_file_of_changes_the_identity(tmp_path, line):
    """A file inside a submodule (git tracks none of its files) or the submodule's folder, named by a command's word:
    the submodule's commit stands for it, so a bump changes the identity, the host's and `ci reuse`'s alike."""
    repo = _checkout(tmp_path, {LAUNCHER: "#!/usr/bin/env bash\n" + line, "shared/r.py": "print(1)\n"})
    _gitlink(repo, "vendor/tools", ONE)
    host, reuse = _both(repo)
    assert host is not None and host == reuse
    _gitlink(repo, "vendor/tools", TWO)
    bumped_host, bumped_reuse = _both(repo)
    assert bumped_host == bumped_reuse and bumped_host not in (None, host)


def _ran_with(repo, env: dict[str, str]) -> list[str]:
    """``_run`` with ``env`` in the launcher's environment besides (a variable only the run knows, given here)."""
    out = subprocess.run(["bash", LAUNCHER], cwd=repo.path, capture_output=True, text=True, timeout=60,
                         env={"PATH": "/usr/bin:/bin", "GITHUB_WORKSPACE": str(repo.path), "HOME": str(repo.path), **env})
    return list(dict.fromkeys(word.split(":", 1)[1] for word in out.stdout.split() if word.startswith("read:")))


# --- what a copy does not run: no row made blind by a file it only copies as data, or a folder `install -d` makes ----
KEPT = {
    "cp shared/cfg.txt /tmp/F/ (a config whose text says `source`)": (
        f"mkdir -p {FIXED}\ncp shared/cfg.txt {FIXED}/\n", {"shared/cfg.txt": 'source "$X"\n'}),
    "install -d shared/tools /tmp/F (a folder made, nothing copied)": (
        f"install -d shared/tools {FIXED}\n", {"shared/tools/t.sh": 'source "$X"\n'}),
    "cp -r shared /tmp/F/s (a script it copies sources a file only the run knows: it may run)": (
        f"cp -r shared {FIXED}/s\n", {"shared/t.sh": 'source "$X"\n'}),
}


@pytest.mark.parametrize("case", KEPT)
def test_a_copy_reads_a_config_as_data_and_install_d_copies_nothing(tmp_path, case):
    """A file a copy command copies is read as a script only when it is one (`.sh`, `.py`, a `#!` line); `install -d`
    makes folders and copies none. Both keep the row's identity; a script copied is read as run, so one that sources
    a file only the run knows leaves the row with none (its copy may run), as a file run does."""
    lines, files = KEPT[case]
    repo = _built(tmp_path, lines, files)
    assert (_identity(repo) is None) == case.startswith("cp -r"), case
