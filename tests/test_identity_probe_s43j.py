"""s43j: an adversarial probe of the run identity: ordinary bash a benchmark launcher may hold that reads or runs a
tracked file of the checkout while the row keeps an identity that an edit to that file does not change, so `ci reuse`
would hand back a stale result.

Each case is run by real bash in a real git checkout (``test_each_case_really_reads_its_files``: what the job reads
says so on its output), then each file it read is edited: the row's identity must change or the row must have none
(a blind spot is safe). Those the identity misses today are strict xfails (``test_an_edit_to_a_file_the_job_reads_
changes_the_identity``), so a fix makes them report. No case changes code under utils/."""

from __future__ import annotations

import pytest
from test_identity_reads_s42b import LAUNCHER, _run, _says
from test_unknown_prefix_s39u import _checkout, _identity

# x.sh sources y.sh: a file run whose own sources must be followed too
XY = {"shared/x.sh": "echo read:shared/x.sh\nsource shared/y.sh\n", "shared/y.sh": None}
XY_READ = ["shared/x.sh", "shared/y.sh"]
FIXED = "/tmp/sweepgate-probe-s43j"  # a folder outside the checkout, written out
MAKEFILE = "all:\n\t@echo read:shared/Makefile\n"

# name -> (the launcher's lines, files (path -> text, None: one that says it was read), the files the run reads)
STALE = {
    # a Python module a script run imports: InferenceX's utils/bench_serving/benchmark_serving.py imports its
    # sibling backend_request_func.py (the request and metric code), a module beside the script on sys.path[0]
    "python3 x.py imports a sibling module": (
        "python3 utils/bench_serving/benchmark_serving.py\n",
        {"utils/bench_serving/benchmark_serving.py": "import backend_request_func\n",
         "utils/bench_serving/backend_request_func.py": None},
        ["utils/bench_serving/backend_request_func.py"]),
    "python3 x.py imports a sibling package": (
        "python3 shared/bench.py\n",
        {"shared/bench.py": "from lib import common\n", "shared/lib/__init__.py": "", "shared/lib/common.py": None},
        ["shared/lib/common.py"]),
    "python3 -m pkg.mod from the top": (
        "python3 -m shared.tool\n", {"shared/__init__.py": "", "shared/tool.py": None}, ["shared/tool.py"]),
    "export PYTHONPATH=$PWD/utils; python3 -m mod": (
        'export PYTHONPATH="$PWD/utils"\npython3 -m tool\n', {"utils/tool.py": None}, ["utils/tool.py"]),
    "cd shared; python3 -m mod": ("cd shared\npython3 -m tool\n", {"shared/tool.py": None}, ["shared/tool.py"]),
    "python3 heredoc: sys.path.insert; import": (
        "python3 <<'EOF'\nimport sys\nsys.path.insert(0, 'shared')\nimport mod\nEOF\n", {"shared/mod.py": None},
        ["shared/mod.py"]),
    "python3 x.py opens a file beside __file__": (
        "python3 shared/r.py\n",
        {"shared/r.py": "import os\nprint(open(os.path.join(os.path.dirname(__file__), 'cfg.txt')).read())\n",
         "shared/cfg.txt": None}, ["shared/cfg.txt"]),
    "cd shared; python3 r.py opens cfg.txt": (
        "cd shared\npython3 r.py\n", {"shared/r.py": "print(open('cfg.txt').read())\n", "shared/cfg.txt": None},
        ["shared/cfg.txt"]),
    "python3 x.py DIR lists a tracked folder": (
        "python3 shared/r.py shared/cfgs\n",
        {"shared/r.py": "import os, sys\nfor f in sorted(os.listdir(sys.argv[1])):\n"
                        "    print(open(os.path.join(sys.argv[1], f)).read())\n",
         "shared/cfgs/a.yaml": None}, ["shared/cfgs/a.yaml"]),
    "node x.js requires a sibling": (
        "node shared/x.js\n", {"shared/x.js": "require('./m.js')\n", "shared/m.js": "console.log('read:shared/m.js')\n"},
        ["shared/m.js"]),
    # a path with a default or a part in a variable: `source` of the same word leaves the row blind, a run does not
    'bash "${SCRIPT:-shared/x.sh}"': ('bash "${SCRIPT:-shared/x.sh}"\n', XY, XY_READ),
    'S=${SCRIPT:-shared/x.sh}; bash "$S"': ('S=${SCRIPT:-shared/x.sh}\nbash "$S"\n', XY, XY_READ),
    ': "${S:=shared/x.sh}"; bash "$S"': (': "${S:=shared/x.sh}"\nbash "$S"\n', XY, XY_READ),
    'python3 "${P:-shared/x.py}"': ('python3 "${P:-shared/x.py}"\n', {"shared/x.py": None}, ["shared/x.py"]),
    'N=x; bash "shared/${N}.sh"': ('N=x\nbash "shared/${N}.sh"\n', XY, XY_READ),
    'bash "shared/${MODEL:-x}.sh" (a part from the environment)': ('bash "shared/${MODEL:-x}.sh"\n', XY, XY_READ),
    'F=x.sh; bash "shared/$F"': ('F=x.sh\nbash "shared/$F"\n', XY, XY_READ),
    'N=x; python3 "shared/${N}.py"': ('N=x\npython3 "shared/${N}.py"\n', {"shared/x.py": None}, ["shared/x.py"]),
    'N=x; cat "shared/${N}.txt"': ('N=x\ncat "shared/${N}.txt"\n', {"shared/x.txt": None}, ["shared/x.txt"]),
    'case sets N; bash "shared/${N}.sh"': ('case b300 in b*) N=x ;; *) N=z ;; esac\nbash "shared/${N}.sh"\n', XY,
                                          XY_READ),
    # an array's elements
    'S=(shared/x.sh); for s in "${S[@]}"': ('S=(shared/x.sh)\nfor s in "${S[@]}"; do bash "$s"; done\n', XY, XY_READ),
    'declare -A S=([a]=shared/x.sh); bash "${S[a]}"': ('declare -A S=([a]=shared/x.sh)\nbash "${S[a]}"\n', XY,
                                                       XY_READ),
    "fs=(shared/x*.sh); for f in ${fs[@]}": ('fs=(shared/x*.sh)\nfor f in "${fs[@]}"; do bash "$f"; done\n', XY,
                                             XY_READ),
    # a file run as a copy, or by a finder
    "cp -r shared $T/s; bash $T/s/y.sh": ('T=$(mktemp -d)\ncp -r shared "$T/s"\nbash "$T/s/y.sh"\n',
                                          {"shared/y.sh": None}, ["shared/y.sh"]),
    # (to a folder only the run knows, `T=$(mktemp -d)`, both below are every tracked y.sh, x.sh: safe)
    "tar cf - shared | tar xf - -C /tmp/F; bash": (f'rm -rf {FIXED}; mkdir -p {FIXED}\n'
                                                   f'tar cf - shared | tar xf - -C {FIXED}\nbash {FIXED}/shared/y.sh\n',
                                                   {"shared/y.sh": None}, ["shared/y.sh"]),
    "cp x.sh /tmp/F/x.sh; bash /tmp/F/x.sh (what x.sh sources)": (
        f"rm -rf {FIXED}; mkdir -p {FIXED}\ncp shared/x.sh {FIXED}/x.sh\nbash {FIXED}/x.sh\n", XY, ["shared/y.sh"]),
    "find shared -exec bash {} ;": ("find shared -name y.sh -exec bash {} \\;\n", {"shared/y.sh": None},
                                    ["shared/y.sh"]),
    "find shared | xargs -I{} bash {}": ("find shared -name y.sh | xargs -I{} bash {}\n", {"shared/y.sh": None},
                                         ["shared/y.sh"]),
    # the shell's own hooks and functions
    "trap 'source x.sh' EXIT": ("trap 'source shared/x.sh' EXIT\n", XY, XY_READ),
    'run() { bash "$1"; }; run shared/x.sh (what x.sh sources)': ('run() { bash "$1"; }\nrun shared/x.sh\n', XY,
                                                                  ["shared/y.sh"]),
    # a build tool's own file
    "make -C shared": ("make -s -C shared\n", {"shared/Makefile": MAKEFILE}, ["shared/Makefile"]),
    "cd shared && make": ("cd shared && make -s\n", {"shared/Makefile": MAKEFILE}, ["shared/Makefile"]),
}


def _repo(tmp_path, case: str):
    lines, files, read = STALE[case]
    return _built(tmp_path, lines, files), read


def _built(tmp_path, lines: str, files: dict[str, str | None]):
    """A checkout whose launcher runs ``lines``, with ``files`` (None: a file that says it was read)."""
    return _checkout(tmp_path, {LAUNCHER: "#!/usr/bin/env bash\n" + lines,
                                **{path: _says(path) if text is None else text for path, text in files.items()}})


@pytest.mark.parametrize("case", STALE)
def test_each_case_really_reads_its_files(tmp_path, case):
    """The premise: real bash, run as the job runs the launcher, reads (or runs) every file the case names."""
    repo, read = _repo(tmp_path, case)
    assert set(read) <= set(_run(repo)), _run(repo)


# the cases a fix made pass: each must (s43l: the modules a Python file run imports, a file beside its __file__;
# a trap's command string)
PASSING = {"python3 x.py imports a sibling module", "python3 x.py imports a sibling package",
           "python3 -m pkg.mod from the top", "export PYTHONPATH=$PWD/utils; python3 -m mod", "cd shared; python3 -m mod",
           "python3 heredoc: sys.path.insert; import", "python3 x.py opens a file beside __file__",
           "trap 'source x.sh' EXIT",
           # s43n: a find's matches an interpreter runs, a makefile, a function's parameter run
           "find shared -exec bash {} ;", "find shared | xargs -I{} bash {}", "make -C shared", "cd shared && make",
           'run() { bash "$1"; }; run shared/x.sh (what x.sh sources)',
           # s43m: a path with a default or a variable part (a written start: every tracked file its glob matches;
           # a default, an array's element, a variable the text set to what it cannot say: no identity)
           'bash "${SCRIPT:-shared/x.sh}"', 'S=${SCRIPT:-shared/x.sh}; bash "$S"', ': "${S:=shared/x.sh}"; bash "$S"',
           'python3 "${P:-shared/x.py}"', 'N=x; bash "shared/${N}.sh"',
           'bash "shared/${MODEL:-x}.sh" (a part from the environment)', 'F=x.sh; bash "shared/$F"',
           'N=x; python3 "shared/${N}.py"', 'N=x; cat "shared/${N}.txt"', 'case sets N; bash "shared/${N}.sh"',
           'S=(shared/x.sh); for s in "${S[@]}"', 'declare -A S=([a]=shared/x.sh); bash "${S[a]}"',
           "fs=(shared/x*.sh); for f in ${fs[@]}",
           # s44c: a Python file's relative path from its working folder, a tracked folder named as an argument, what
           # a JavaScript file requires, a tracked script or folder copied (its copy may run)
           "cd shared; python3 r.py opens cfg.txt", "python3 x.py DIR lists a tracked folder",
           "node x.js requires a sibling", "cp -r shared $T/s; bash $T/s/y.sh",
           "tar cf - shared | tar xf - -C /tmp/F; bash", "cp x.sh /tmp/F/x.sh; bash /tmp/F/x.sh (what x.sh sources)"}


@pytest.mark.parametrize("case", [pytest.param(case, marks=[] if case in PASSING else pytest.mark.xfail(
    strict=True, reason=f"stale: {case}: an edit to a file the job reads keeps the row's identity")) for case in STALE])
def test_an_edit_to_a_file_the_job_reads_changes_the_identity(tmp_path, case):
    """Each file the run read, edited: the row's identity changes, or the row has none (a blind spot, never stale)."""
    _each_edit_changes_the_identity_or_none(*_repo(tmp_path, case))


def _each_edit_changes_the_identity_or_none(repo, read: list[str]) -> None:
    """An edit to each of ``read`` changes the row's identity, or the row has none (a blind spot: never stale)."""
    for path in read:
        first = _identity(repo)
        repo.write(path, repo.read(path) + b"\n# changed\n")
        assert first is None or _identity(repo) != first, path


# --- a path in a container that mounts the workspace ---------------------------------------------------------------
# No container runs here, so these are not run by bash: the file named is the checkout's by the mount the same command
# writes (`-v "$GITHUB_WORKSPACE":/workspace`, `--container-mounts=$GITHUB_WORKSPACE:/workspace`, as InferenceX's
# launchers and multi-node helpers do), and what it sources is read from the container's working folder (/workspace).
# An absolute path was taken for the image's own file, so neither the file nor what it sources was in the identity
# (s44b: mapped back through the mount, or, mounted where only the run knows, `docker exec`, every tracked file the
# path may be; more spellings in test_identity_mounted_s44b.py). Each must pass.
MOUNTED = {
    "docker run -v $GITHUB_WORKSPACE:/workspace img bash /workspace/shared/x.sh": (
        'docker run --rm -v "$GITHUB_WORKSPACE":/workspace -w /workspace img bash /workspace/shared/x.sh\n', XY_READ),
    "srun --container-mounts=$GITHUB_WORKSPACE:/workspace bash /workspace/shared/x.sh": (
        'srun --container-mounts="$GITHUB_WORKSPACE":/workspace --container-workdir=/workspace '
        'bash /workspace/shared/x.sh\n', XY_READ),
    "srun --container-mounts=... bash -c 'exec bash /workspace/shared/x.sh'": (
        'srun --container-mounts="$GITHUB_WORKSPACE":/workspace --container-workdir=/workspace '
        "bash -c 'exec bash /workspace/shared/x.sh'\n", XY_READ),
    "docker exec srv bash /workspace/shared/x.sh": ("docker exec srv bash /workspace/shared/x.sh\n", XY_READ),
}


@pytest.mark.parametrize("case", MOUNTED)
def test_an_edit_to_a_file_a_container_runs_from_the_mounted_checkout_changes_the_identity(tmp_path, case):
    lines, read = MOUNTED[case]
    _each_edit_changes_the_identity_or_none(_built(tmp_path, lines, XY), read)


# what s44b left: a path in the container's own spelling inside a file the container runs (the reading of that file
# does not know it runs in one; s45d: an absolute path a file runs or sources on this host is a written end, every
# tracked file it ends in, as where no mount holds it; more spellings in test_identity_stale_s45d.py). Each must pass
MOUNTED_UNSEEN = {
    "docker run -v ...:/workspace bash shared/x.sh, x.sh runs /workspace/shared/y.sh": (
        'docker run -v "$GITHUB_WORKSPACE":/workspace -w /workspace img bash shared/x.sh\n',
        {"shared/x.sh": "bash /workspace/shared/y.sh\n", "shared/y.sh": None}, ["shared/y.sh"]),
}


@pytest.mark.parametrize("case", MOUNTED_UNSEEN)
def test_an_edit_to_a_file_a_container_reads_by_its_own_path_changes_the_identity(tmp_path, case):
    lines, files, read = MOUNTED_UNSEEN[case]
    _each_edit_changes_the_identity_or_none(_built(tmp_path, lines, files), read)


# s43n: more spellings of the fixed finder, build tool and function cases; each must pass
VARIANTS = {
    "find -execdir bash {} ;": ("find shared -name y.sh -execdir bash {} \\;\n", {"shared/y.sh": None},
                                ["shared/y.sh"]),
    "find -exec bash {} +": ("find shared -name 'y*.sh' -exec bash {} +\n", {"shared/y.sh": None}, ["shared/y.sh"]),
    "find | xargs -i bash {}": ("find shared -name y.sh | xargs -i bash {}\n", {"shared/y.sh": None}, ["shared/y.sh"]),
    "find | xargs -n1 bash": ("find shared -name y.sh | xargs -n1 bash\n", {"shared/y.sh": None}, ["shared/y.sh"]),
    "find -exec bash {} ; (what it sources)": ("find shared -name x.sh -exec bash {} \\;\n", XY, XY_READ),
    "make -C shared -f other.mk": ("make -s -C shared -f other.mk\n",
                                   {"shared/other.mk": MAKEFILE.replace("Makefile", "other.mk")}, ["shared/other.mk"]),
    "make --directory=shared": ("make -s --directory=shared\n", {"shared/Makefile": MAKEFILE}, ["shared/Makefile"]),
    'run() { timeout 60 bash "$@"; }; run shared/x.sh': ('run() { timeout 60 bash "$@"; }\nrun shared/x.sh\n', XY,
                                                         XY_READ),
}


@pytest.mark.parametrize("case", VARIANTS)
def test_each_variant_reads_its_files_and_an_edit_changes_the_identity(tmp_path, case):
    lines, files, read = VARIANTS[case]
    repo = _built(tmp_path, lines, files)
    assert set(read) <= set(_run(repo)), _run(repo)
    _each_edit_changes_the_identity_or_none(repo, read)
