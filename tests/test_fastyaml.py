"""core.fastyaml builds PyYAML's (YAML 1.1) values, or defers to PyYAML: never a different value."""

from __future__ import annotations

import itertools
import re
import sys
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "utils"))

from sweepgate.core import fastyaml  # noqa: E402
from sweepgate.core.jsontext import INT_DIGITS  # noqa: E402
from sweepgate.core.pyyaml import FastReader  # noqa: E402 - PyYAML's safe loader, 4.0 read as 4

# Plain scalars YAML 1.1 and 1.2/JSON read differently, or that a C++ parser may normalize.
SCALARS = """
yes Yes YES no No NO y n Y N on On ON off Off OFF true True TRUE tRue false False FALSE
~ null Null NULL nULL 0 -0 +0 00 01 007 08 -01 0o17 0x1F 0x_1F 0b101 1_000 1__0 1:30 -1:30 190:20:30
1.5 1.50 -1.5 +1.5 .5 -.5 +.5 5. -5. 0. 1.5.2 1e3 1E3 1e+3 1.0e+3 1.0E-3 1.0e3 .5e+3 1_0.5
.inf -.inf +.inf .Inf .INF inf -inf Infinity .nan .NaN .NAN nan NaN
2024-01-02 2024-1-2 2024-01-02T03:04:05Z 2024-01-02 03:04:05 2024-13-45 12:30:00
= << ! & * - . .. 1.2.3 v1.5 0.8.1.post1 fp8 dsr1 b300-nv_0 1-2 "" ''
""".split()
SCALARS += ["2024-01-02 03:04:05", "a b", "a: b", "x # c", "it's"]
FORMS = ["k: {}\n", "k:\n  - {}\n", "k: [{}]\n", "k: {{a: {}}}\n", "{}: 1\n", "k:\n  {}: 1\n",
         "k: '{}'\n", 'k: "{}"\n']


def pyyaml(text):
    try:
        return ("ok", yaml.load(text, Loader=FastReader))
    except (yaml.YAMLError, ValueError, TypeError) as exc:
        return ("error", type(exc).__name__)


def same(a, b) -> bool:
    """Equal with equal types and key order, recursively (1 == True == 1.0 do not count)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b or (a != a and b != b)  # NaN


@pytest.mark.parametrize("form", FORMS)
def test_every_corner_case_is_pyyaml_or_deferred(form):
    texts = []
    for value in SCALARS:
        if form.count("'") + form.count('"') and ("'" in value or '"' in value):
            continue
        texts.append(form.format(value))
    for text, built in zip(texts, fastyaml.load_blocks(texts)):
        if built is not None:
            status, want = pyyaml(text)
            assert status == "ok" and same(built[0], want), (text, built[0], want)


def test_combinations_in_one_block_are_pyyaml_or_deferred():
    texts = [f"k:\n  a: {x}\n  b: [{y}, 1]\n  c:\n    - {x}\n" for x, y in itertools.product(SCALARS[:60], SCALARS[60:90])]
    for text, built in zip(texts, fastyaml.load_blocks(texts)):
        if built is not None:
            status, want = pyyaml(text)
            assert status == "ok" and same(built[0], want), text


CONFIG = """dsr1-fp8-b300-vllm:
  image: vllm/vllm-openai:v0.11.0
  model: deepseek-ai/DeepSeek-R1-0528
  runner: b300
  multinode: false
  scenarios:
    fixed-seq-len:
    - isl: 1024
      osl: 1024
      search-space:
      - { tp: 8, ep: 1, conc-start: 4, conc-end: 64 }
      - tp: 4
        conc-list: [4, 8, 16]
        dram-utilization: 0.8
        additional-settings:
        - "VLLM_USE_V1=1"
        - plain text, with a comma
"""


def test_a_config_block_is_built_by_rapidyaml_and_equals_pyyaml():
    (built,) = fastyaml.load_blocks([CONFIG])
    assert built is not None, "the fast path must take an ordinary config block"
    assert same(built[0], yaml.load(CONFIG, Loader=FastReader))


@pytest.mark.parametrize("text", [
    "k: a: b\n", "k: [1, 2\n", "k: 'open\n", "k:\n\t- 1\n", "? [x]\n: y\n", "[x]: y\n", "k: &a 1\nj: *a\n",
    "k: !!str 1\n", "k: |\n  x\n", "k: >-\n  x\n", "k: \"a\\tb\"\n", "k: yes\n", "k: 1e3\n", "k: -.5\n",
    "k:\n  <<: {a: 1}\n", "k: 2024-01-02\n", "1: x\n", "k: 0x1F\n",
])
def test_risky_or_invalid_blocks_are_left_to_pyyaml_quietly(text, capfd):
    assert fastyaml.load_blocks([text]) == [None]
    assert capfd.readouterr().err == ""


def test_pyyaml_is_imported_without_compiling_the_unused_reader_pattern():
    """core.pyyaml defers PyYAML's NON_PRINTABLE pattern (about 10 ms of re compiling per command),
    and PyYAML's pure-Python reader still refuses control characters with it."""
    import subprocess
    import sys
    from pathlib import Path

    code = """
import sys
sys.path.insert(0, sys.argv[1])
from sweepgate.core.pyyaml import yaml
import yaml.reader
pattern = yaml.reader.Reader.NON_PRINTABLE
assert type(pattern).__name__ == "_LazyPattern", type(pattern)
for loader in (yaml.SafeLoader, yaml.CSafeLoader):
    try:
        yaml.load("a: b\\x07", Loader=loader)
    except yaml.YAMLError as exc:
        assert "#x0007" in str(exc), exc
    else:
        raise AssertionError(loader)
assert yaml.load("a: [1, b]", Loader=yaml.CSafeLoader) == {"a": [1, "b"]}
print("ok")
"""
    utils = Path(__file__).resolve().parents[1] / "utils"
    proc = subprocess.run([sys.executable, "-c", code, str(utils)], capture_output=True, text=True)
    assert proc.stdout.strip() == "ok", proc.stderr


def test_rapidyaml_is_imported_without_deprecation_and_the_real_package_stays_importable():
    import subprocess
    import sys
    from pathlib import Path

    code = """
import sys
sys.path.insert(0, sys.argv[1])
from sweepgate.core import fastyaml
assert fastyaml.load_blocks(["a: {b: [1, x]}\\n"]) == [({"a": {"b": [1, "x"]}},)]
assert "ryml" in sys.modules and "deprecation" not in sys.modules and "packaging.version" not in sys.modules
import deprecation
assert hasattr(deprecation, "DeprecatedWarning"), "the stub leaked"
print("ok")
"""
    utils = Path(__file__).resolve().parents[1] / "utils"
    proc = subprocess.run([sys.executable, "-c", code, str(utils)], capture_output=True, text=True)
    assert proc.stdout.strip() == "ok", proc.stderr


@pytest.mark.parametrize("text, value", [("k: 4.0\n", 4), ("k: [4.0, 16.0, 0.5]\n", [4, 16, 0.5]),
                                         ("k: -2.0\n", -2), ("k: 1.5\n", 1.5)])
def test_an_integral_float_is_the_integer_both_ways(text, value):
    """Differential review: `conc-list: [4.0, 16.0]` or `tp: 8.0` came out as 4.0 in the matrix;
    the reference's models hold integer fields as integers (4)."""
    from sweepgate.core.load import parse_yaml

    assert same(yaml.load(text, Loader=FastReader)["k"], value)
    assert same(parse_yaml(text, "x.yaml")["k"], value)
    assert same(parse_yaml(text.replace(": ", ":\t", 0) + "# a\ttab\n", "x.yaml")["k"], value)  # Python scanner
    built = fastyaml.load_blocks([text])[0]
    assert built is None or same(built[0]["k"], value)


@pytest.mark.parametrize("text", ["k: .inf\n", "k: [-.Inf]\n", "k: {a: .nan}\n"])
def test_a_number_that_is_not_finite_is_refused_by_every_reader(text):
    """Bad-input review: `.nan` reached the expansion (internal error) or a threshold (never flags)."""
    from sweepgate.core.errors import SweepgateError
    from sweepgate.core.load import parse_yaml
    from sweepgate.core.pyyaml import NotFinite, PythonReader

    for reader in (FastReader, PythonReader):
        with pytest.raises(NotFinite):
            yaml.load(text, Loader=reader)
    with pytest.raises(SweepgateError) as info:
        parse_yaml(text, "x.yaml")
    (d,) = info.value.diagnostics
    assert d.rule == "not-finite" and d.line == 1 and "is not a finite number" in d.message
    assert fastyaml.load_blocks([text])[0] is None  # rapidyaml never builds it: PyYAML decides


def test_an_integer_past_300_digits_is_left_to_pyyaml_which_refuses_it():
    """New user 16: rapidyaml's JSON took a plain 400-digit integer that PyYAML refuses where it stands
    (as it does past 4,300 digits, where Python's int() fails and the block falls back already)."""
    from sweepgate.core import fastyaml

    assert fastyaml.load_blocks(["a: [1, " + "9" * 400 + "]\n", "b: " + "9" * 300 + "\n", "c: -" + "9" * 301 + "\n"]) \
        == [None, ({"b": int("9" * 300)},), None]


_RUN_PIECES = st.one_of(
    st.integers(0, 320).flatmap(lambda n: st.text(alphabet="0123456789", min_size=n, max_size=n)),
    st.text(alphabet=' ",:[]{}-.e+x\u0663\u00e9\u4e00\U0001f600', max_size=4))  # U+0663: an Arabic-Indic 3


@settings(max_examples=300, deadline=None)
@given(pieces=st.lists(_RUN_PIECES, max_size=6))
def test_a_long_digit_run_is_found_as_the_pattern_finds_it(pieces):
    """Session 34: `_long_digits` replaced a `[0-9]{301}` search (which counted from every digit); it finds
    a run of ASCII digits past INT_DIGITS exactly where that pattern does, other scripts' digits aside."""
    from sweepgate.core import fastyaml

    js = "".join(pieces)
    assert fastyaml._long_digits(js) == bool(re.search(f"[0-9]{{{INT_DIGITS + 1}}}", js))


def test_digits_past_300_in_a_string_or_split_by_a_letter_are_told_apart():
    from sweepgate.core import fastyaml

    digits = "1234567890" * 31  # 310 digits, every one of them
    assert fastyaml.load_blocks([f"a: '{digits}'\n", f"b: x{digits[:150]}\u00e9{digits[:151]}\n",
                                 f"c: {digits[:150]}\u0663{digits[:151]}\n"]) \
        == [None, ({"b": f"x{digits[:150]}\u00e9{digits[:151]}"},), ({"c": f"{digits[:150]}\u0663{digits[:151]}"},)]


def test_retyped_says_which_plain_words_pyyaml_reads_as_something_else():
    """``retyped`` (a refusal's hint: quote the value or not) answers as PyYAML's YAML 1.1 resolver reads
    each word written plain, its pattern now compiled on first use."""
    words = [w for w in SCALARS if w and "'" not in w and '"' not in w]
    resolver = yaml.resolver.Resolver()
    for word in words + ["8k1k", "fp4", "1.0", "0.9", "no", "On"]:
        tag = resolver.resolve(yaml.ScalarNode, word, (True, False))  # as a plain scalar
        assert fastyaml.retyped(word) == (tag != "tag:yaml.org,2002:str"), word


def test_importing_fastyaml_compiles_the_typed_word_pattern_once():
    """Its plain-word twin was compiled with the module too, though only a refusal's hint uses it: about
    10M instructions of every matrix and gate run. The JSON-string pattern is compiled at import, once."""
    import subprocess

    code = """
import re, sys
sys.path.insert(0, sys.argv[1])
seen, real = [], re.compile
def compile_(pattern, flags=0):
    seen.append(pattern)
    return real(pattern, flags)
re.compile = compile_
from sweepgate.core import fastyaml
re.compile = real
words = fastyaml._resolver_patterns()
print(sum(isinstance(p, str) and words in p for p in seen))
"""
    utils = Path(__file__).resolve().parents[1] / "utils"
    proc = subprocess.run([sys.executable, "-c", code, str(utils)], capture_output=True, text=True)
    assert proc.stdout.strip() == "1", (proc.stdout, proc.stderr)


# The risky-text patterns as first written (the indicator found after a look at what stands before it): the
# patterns now start with the indicator, so that re skips to each one, and must find exactly what these find.
FIRST_WRITTEN = {
    2: (r"(?:^|[\s\[{,])[&*!]", re.M, "a &*![{,\n\t\x85"),
    4: (r"(?:^|[ ])[|>][-+0-9]*[ ]*(?:\#.*)?$", re.M, "a|> \n-1#\r"),
    5: (r"(?<![\w.])[-+]\.", 0, "a._-+ 1\u00e9"),
}


@pytest.mark.parametrize("index", sorted(FIRST_WRITTEN))
def test_each_risky_pattern_finds_what_its_first_writing_found(index):
    pattern, flags, alphabet = FIRST_WRITTEN[index]
    first, now = re.compile(pattern, flags), fastyaml._RISKY[index][1]
    for length in range(6):
        for letters in itertools.product(alphabet, repeat=length):
            text = "".join(letters)
            assert (first.search(text) is None) == (now.search(text) is None), (now.pattern, text)


def test_a_block_longer_than_the_kept_json_buffer_is_built_whole(monkeypatch):
    """rapidyaml writes each block's JSON into one kept buffer (its emit_json sized a new one with an emitting
    pass of its own first); a block whose JSON is longer grows the buffer and is built whole, as PyYAML builds it."""
    monkeypatch.setattr(fastyaml, "_JSON_OUT", [bytearray(16)])
    text = "k:\n" + "".join(f"  key{i}: [value{i}, {i}, {i}.5]\n" for i in range(200))
    (built,) = fastyaml.load_blocks([text])
    assert built is not None and same(built[0], yaml.load(text, Loader=FastReader))
    assert len(fastyaml._JSON_OUT[0]) > 16
