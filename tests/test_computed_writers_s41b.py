"""s41b: a command that may set any variable (or `cd`) whose name or code only the run knows kept what the reading knew.

The reading (``core.shellwords``) treated `read X`, `printf -v X`, `mapfile X`, `eval "X=…"`, `${X:=…}` as setting X
(a value only the run knows), but not a command whose names are computed: `eval "$(cat env)"`, `eval "$CMD"` (CMD
holding `cd b` or `LIB=b.sh`), `export $(grep -v '^#' .env | xargs)`, `declare "$N=…"` (`typeset`, `local`,
`readonly`, `export`, `declare -g` in a function), `read -r "$N"`, `printf -v "$1"`, a nameref (`declare -n R=LIB;
R=b.sh`), `while read -r k v; do declare "$k=$v"; done`, nor a literal name a declaration spells quoted (`declare
"LIB=b.sh"`). After one, `source "$LIB"` was read as the value LIB had before (a.sh) and `source x.sh` from the
folder before it, while bash sourced b.sh, or b/x.sh: an edit of that file kept the identity, and `ci reuse` handed the
row a stale result. Now such a command makes every variable the text knows one only the run knows (and the working
folder too, for an `eval` of code only the run knows): the row has no identity, or hashes every file ending so.

Each case runs under real bash in a real git checkout; every file bash sources there is then either hashed by the
identity (an edit to it changes the identity) or the row has none. Ordinary scripts (a literal `export PATH=…`,
`read -r -u "$FD" line`, `printf -v pause …`, `declare -A M=(…)`) keep their identity."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from test_conditional_flow_s40p import LAUNCHER, _ran, _seen_or_blind
from test_unknown_prefix_s39u import _checkout, _identity
from test_variable_paths_s40i import _hashed

from sweepgate.core import identity
from sweepgate.core.sweep import worktree_rows

ROOT = Path(__file__).resolve().parents[1]

CANDIDATES = ("x.sh", "b/x.sh", "a.sh", "b.sh")

WRONG_BEFORE = {
    'eval "$(cat env.txt)" setting LIB': ('LIB=a.sh\neval "$(cat env.txt)"\nsource "$LIB"\n',
                                          {"env.txt": "LIB=b.sh\n"}),
    'eval "$(cat env.txt)" with a cd': ('eval "$(cat env.txt)"\nsource x.sh\n', {"env.txt": "cd b\n"}),
    "export $(grep … .env | xargs)": ('LIB=a.sh\nexport $(grep -v "^#" .env | xargs)\nsource "$LIB"\n',
                                      {".env": "# the job's settings\nLIB=b.sh\n"}),
    'declare "$N=…"': ('LIB=a.sh\nN=LIB\ndeclare "$N=b.sh"\nsource "$LIB"\n', {}),
    "declare $N=…": ('LIB=a.sh\nN=LIB\ndeclare $N=b.sh\nsource "$LIB"\n', {}),
    'typeset "$N=…"': ('LIB=a.sh\nN=LIB\ntypeset "$N=b.sh"\nsource "$LIB"\n', {}),
    'export "$N=…"': ('LIB=a.sh\nN=LIB\nexport "$N=b.sh"\nsource "$LIB"\n', {}),
    'readonly "${N}=…"': ('LIB=a.sh\nN=LIB\nreadonly "${N}=b.sh"\nsource "$LIB"\n', {}),
    'declare -g "$1=$2" in a function': ('LIB=a.sh\nset_var() { declare -g "$1=$2"; }\nset_var LIB b.sh\n'
                                         'source "$LIB"\n', {}),
    'local "$1=…" in a function': ('LIB=a.sh\nload() {\n  local "$1=b.sh"\n  source "$LIB"\n}\nload LIB\n', {}),
    'declare "LIB=…" (a literal name, quoted)': ('LIB=a.sh\ndeclare "LIB=b.sh"\nsource "$LIB"\n', {}),
    "declare -n R=LIB; R=…": ('LIB=a.sh\ndeclare -n R=LIB\nR=b.sh\nsource "$LIB"\n', {}),
    "local -n out=$1 in a function": ('LIB=a.sh\npick() {\n  local -n out=$1\n  out=b.sh\n}\npick LIB\n'
                                      'source "$LIB"\n', {}),
    "a nameref set by read": ('LIB=a.sh\ndeclare -n R=LIB\nread -r R <<< b.sh\nsource "$LIB"\n', {}),
    'while read -r k v; do declare "$k=$v"; done': ('LIB=a.sh\nwhile read -r k v; do\n  declare "$k=$v"\n'
                                                    'done < kv.txt\nsource "$LIB"\n', {"kv.txt": "LIB b.sh\n"}),
    'eval "$CMD" (a cd)': ('CMD="cd b"\neval "$CMD"\nsource x.sh\n', {}),
    'eval "$CMD" (an assignment)': ('LIB=a.sh\nCMD="LIB=b.sh"\neval "$CMD"\nsource "$LIB"\n', {}),
    "eval `cat env.txt`": ('LIB=a.sh\neval `cat env.txt`\nsource "$LIB"\n', {"env.txt": "LIB=b.sh\n"}),
    "export `cat .env`": ('LIB=a.sh\nexport `cat .env`\nsource "$LIB"\n', {".env": "LIB=b.sh\n"}),
    'eval "$CMD" with an argument': ('LIB=a.sh\nCMD="LIB=b.sh;"\neval "$CMD" true\nsource "$LIB"\n', {}),
    "eval $CMD": ('LIB=a.sh\nCMD="LIB=b.sh"\neval $CMD\nsource "$LIB"\n', {}),
    'eval "$1=…" in a function': ('LIB=a.sh\nset_var() { eval "$1=b.sh"; }\nset_var LIB\nsource "$LIB"\n', {}),
    'read -r "$N"': ('LIB=a.sh\nN=LIB\nread -r "$N" <<< b.sh\nsource "$LIB"\n', {}),
    'printf -v "$1" in a function': ('LIB=a.sh\nset_var() { printf -v "$1" %s b.sh; }\nset_var LIB\n'
                                     'source "$LIB"\n', {}),
    'mapfile -t "$N"': ('LIB=a.sh\nN=LIB\nmapfile -t "$N" <<< b.sh\nsource "$LIB"\n', {}),
}


@pytest.mark.parametrize("how", WRONG_BEFORE)
def test_a_file_sourced_after_a_computed_writer_is_hashed_or_the_row_has_no_identity(tmp_path, how):
    text, data = WRONG_BEFORE[how]
    repo = _checkout(tmp_path, {LAUNCHER: "#!/usr/bin/env bash\n" + text, **data,
                                **{path: f"echo ran:{path}\n" for path in CANDIDATES}})
    ran = _ran(repo, {})
    assert ran and ran[-1] in ("b.sh", "b/x.sh"), (how, ran)  # bash sources the value the computed writer made
    missed = [path for path in ran if not _seen_or_blind(repo, path)]
    assert not missed, (how, ran, _hashed(repo))


# ordinary writers whose names are written out: the reading knows the value bash sources, as before
KEPT = {
    "literal declarations": ('LIB=a.sh\nexport PATH="$HOME/bin:$PATH"\ndeclare -r LIMIT=1\ndeclare -A M=([k]=v)\n'
                             'export LIB\nreadonly SUFFIX="-eval"\nsource "$LIB"\n'),
    "reads into written names": ('LIB=a.sh\nexec 3<<< "x"\nread -r -u 3 line\nread -r -a words <<< "a b"\n'
                                 'read -r -d "" -a more <<< "c" || true\nprintf -v pause "%d" 1\n'
                                 'mapfile -t lines <<< "l"\nsource "$LIB"\n'),
    "eval of written code": ('LIB=a.sh\neval "OTHER=b.sh"\neval "echo $LIB"\nsource "$LIB"\n'),
}


@pytest.mark.parametrize("how", KEPT)
def test_a_writer_whose_names_are_written_out_keeps_the_identity(tmp_path, how):
    repo = _checkout(tmp_path, {LAUNCHER: "#!/usr/bin/env bash\n" + KEPT[how],
                                **{path: f"echo ran:{path}\n" for path in CANDIDATES}})
    assert _ran(repo, {}) == ["a.sh"], how
    assert _identity(repo) is not None and "a.sh" in _hashed(repo), how


def test_every_row_of_the_example_fleet_keeps_its_identity():
    """The repository's own fleet (its launchers, scripts and library use `declare -A`, `read -r -a`, `mapfile -t`,
    `printf -v "${_sg_var}"` in a function, `export X=…`): every full-sweep row still has a run identity."""
    rows = worktree_rows(ROOT)
    runners = yaml.safe_load((ROOT / "configs" / "runners.yaml").read_text())
    ids, blind = identity.identities_and_blind(rows, runners, identity.read_tree(str(ROOT)))
    assert len(rows) >= 51 and None not in ids and not blind, blind
