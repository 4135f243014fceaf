"""s44c: more spellings of the stale cases s44c closed (``test_identity_probe_s43j``'s PASSING): a Python file opening a
relative path from its working folder (the launcher's `cd`, its own `os.chdir`), a tracked folder a program is given, a
JavaScript file's relative `require`/`import`, a tracked script or folder copied and its copy run. Each is run by real
bash in a real git checkout (what it reads says so on its output), then each file it read is edited: the row's identity
must change, or the row has none."""

from __future__ import annotations

import shutil

import pytest
from test_identity_probe_s43j import FIXED, XY, XY_READ, _built, _each_edit_changes_the_identity_or_none
from test_identity_reads_s42b import _run
from test_unknown_prefix_s39u import _identity

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
    "CFG_DIR=shared/cfgs python3 r.py": (
        "CFG_DIR=shared/cfgs python3 shared/r.py\n",
        {"shared/r.py": "import os\nd = os.environ['CFG_DIR']\nfor f in sorted(os.listdir(d)):\n"
                        "    print(open(os.path.join(d, f)).read())\n", "shared/cfgs/a.yaml": None},
        ["shared/cfgs/a.yaml"]),
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
