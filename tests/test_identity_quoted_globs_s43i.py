"""s43i: a word whose glob characters are all quoted was read as a glob, so a launcher like InferenceX's real B300 one
(`grep -oP 'Job \\K[0-9]+'` after a `cd` into a folder only the run knows) had no run identity, and `ci reuse` never
saved its GPU-hours.

Bash expands `*`, `?` and `[...]` only outside quotes: inside single or double quotes, `$'...'`, or after a `\\` each
is the character itself. Such a word names no set of files, so it leaves no blind spot. A word with an unquoted glob
(`"$D"/*.sh`, `Job*`) still matches files: where only the run knows its folder, the row still has none.

Each launcher runs under real bash in a real git checkout (what it reads says so on its output), and an edit to each
file it reads changes the identity."""

from __future__ import annotations

import pytest
from test_identity_reads_s42b import LAUNCHER, _each_read_is_hashed, _run, _says
from test_reuse import M_ROW
from test_unknown_prefix_s39u import _checkout, _identity

from sweepgate.core import identity, shellwords

# the run's own folder (the working folder only the run knows), then the job's id taken out of a line of text
INTO_THE_RUN_S_FOLDER = 'source "$GITHUB_WORKSPACE/shared/env.sh"\ncd "$(mktemp -d)" || exit 1\nOUT="Job 42 ok"\n'

QUOTED = {
    "grep -oP 'Job \\K[0-9]+'": "J=$(echo \"$OUT\" | grep -oP 'Job \\K[0-9]+')\n",
    'grep -oP "Job \\K[0-9]+"': 'J=$(echo "$OUT" | grep -oP "Job \\K[0-9]+")\n',
    "a || b, both quoted": ("J=$(echo \"$OUT\" | grep -oP '✅ Job \\K[0-9]+' || echo \"$OUT\" | "
                            "grep -oP 'Job \\K[0-9]+')\n"),
    "grep -o $'Job [0-9]*'": "J=$(echo \"$OUT\" | grep -o $'Job [0-9]*')\n",
    "grep -c Job\\*": 'N=$(echo "$OUT" | grep -c Job\\*)\n',
    "grep -o \"Jo\"'b?'": "J=$(echo \"$OUT\" | grep -o \"Jo\"'b?')\n",
}


@pytest.mark.parametrize("case", QUOTED)
def test_a_word_whose_globs_are_quoted_leaves_the_row_its_identity(tmp_path, case):
    _each_read_is_hashed(tmp_path, INTO_THE_RUN_S_FOLDER + QUOTED[case], {"shared/env.sh": None}, ["shared/env.sh"])


UNQUOTED = {
    "grep -c Job*": 'grep -c Job* 2>/dev/null\n',
    'for f in "$D"/*; cat "$f"': 'for f in "$D"/*; do cat "$f"; done\n',
    "cat x\"*\"*": 'cat x"*"* 2>/dev/null\n',
}


@pytest.mark.parametrize("case", UNQUOTED)
def test_a_word_with_an_unquoted_glob_where_only_the_run_knows_the_folder_still_has_no_identity(tmp_path, case):
    """The glob outside quotes matches files of a folder only the run knows, which may be the checkout's own."""
    repo = _checkout(tmp_path, {LAUNCHER: "#!/usr/bin/env bash\n" + INTO_THE_RUN_S_FOLDER + UNQUOTED[case],
                                "shared/env.sh": _says("shared/env.sh")})
    assert _run(repo) == ["shared/env.sh"]
    assert _identity(repo) is None


@pytest.mark.parametrize(("word", "pattern"), [
    ('shared/*.sh', "shared/*.sh"), ('"$GITHUB_WORKSPACE"/shared/*.sh', "shared/*.sh"),
    ('"shared/*.sh"', "shared/[*].sh"),
    ("'x*'", "x[*]"), ('x\\*', "x[*]"), ("$'x*'", "x[*]"), ('x"*"*', "x[*]*"), ('"unclosed*', "unclosed*"),
    ('"a\\"*"', 'a"[*]'), ("'a[0-9]'?", "a[[]0-9]?"), ('"$D/*.sh"', False),
])
def test_only_a_glob_character_outside_quotes_is_a_glob(word, pattern):
    """What bash expands: the `*` of `"$D"/*.sh` but not of `"$D/*.sh"` (a path only the run knows, read as one),
    nor of `"shared/*.sh"`, the one file of that name; a word whose quotes do not close keeps every glob character
    a glob (reading more files than bash does costs a reuse at most)."""
    found = shellwords._globbed(word, {shellwords._CWD: shellwords.TOP_CWD})
    assert (found and found[1]) == pattern


def test_a_quoted_glob_character_in_a_glob_s_pattern_matches_itself(tmp_path):
    """`for f in shared/"x*"-*.sh`: bash runs shared/x*-1.sh (a name with a `*`) and not shared/xa-1.sh."""
    repo = _each_read_is_hashed(tmp_path, 'for f in shared/"x*"-*.sh; do bash "$f"; done\n',
                                {"shared/x*-1.sh": None, "shared/xa-1.sh": None}, ["shared/x*-1.sh"])
    first = _identity(repo)
    repo.write("shared/xa-1.sh", repo.read("shared/xa-1.sh") + b"\n# changed\n")
    assert _identity(repo) == first


def test_the_blind_spot_of_a_loop_s_glob_shows_the_list_s_word_as_written(tmp_path):
    """`for f in "$D"/*; do cat "$f"; done`: the line says `"$D"/*`, the word the loop's list holds, whichever
    quotes the use of `$f` has."""
    repo = _checkout(tmp_path, {LAUNCHER: '#!/usr/bin/env bash\nfor f in "$D"/*; do cat "$f"; done\n'})
    _, blind = identity.identities_and_blind([M_ROW], {}, identity.read_tree(str(repo.path)))
    assert [str(cause) for cause in blind] == [f'{LAUNCHER}:2: runs "$D"/*']


def test_a_file_named_with_a_glob_character_a_quoted_word_names_is_hashed(tmp_path):
    """`cat "shared/*.json"` reads the one file of that name (a `*` in it), never shared/a.json."""
    repo = _each_read_is_hashed(tmp_path, 'cat "shared/*.json"\n', {"shared/*.json": None, "shared/a.json": None},
                                ["shared/*.json"])
    first = _identity(repo)
    repo.write("shared/a.json", repo.read("shared/a.json") + b"\n# changed\n")
    assert _identity(repo) == first
