"""Plain YAML blocks built at C speed (rapidyaml), only where they provably equal PyYAML's.

PyYAML's safe loader (YAML 1.1; ``pyyaml.FastReader``) stays the authority. A block goes to rapidyaml only
when nothing in it can be read differently by the two, and otherwise the caller
parses it with PyYAML (``None``), which also reports every error:

* libyaml (PyYAML's C parser, ``raw_parse``: no Python objects) accepts its syntax;
* its text has no anchor, alias, tag, merge key, block scalar (``|``/``>``),
  backslash, tab, CR, BOM, complex key or ``-.5``-style number;
* in rapidyaml's JSON no string is one that YAML 1.1 would read as something else
  if it were plain (PyYAML's own implicit resolvers: bool, int, float, null,
  timestamp, ...), and every unquoted value is spelled the one way JSON and YAML 1.1
  read alike (``true``, ``false``, ``null``, ``12``, ``-3``, ``1.5``; JSON allows no other
  unquoted word, and its numbers with an exponent are refused as they are read).

``tests/bench/yaml_parity.py`` checks the equality on every block of the corpus;
``tests/test_fastyaml.py`` on YAML 1.1's corner cases.
"""

from __future__ import annotations

import contextlib
import json
import os
import re

from sweepgate.core.jsontext import INT_DIGITS
from sweepgate.core.pyyaml import yaml

# (substrings, pattern): the pattern runs only on a text holding one of the substrings. A pattern that
# starts with the indicator itself and looks back for what stands before it (the start of the text or a
# line, or one of a set of characters) lets ``re`` skip to each indicator: written as ``(?:^|[ ])[|>]``,
# the same search was tried at every character, about 10M instructions of a 1x one-key matrix (the
# equivalence is checked in tests/test_fastyaml.py).
_RISKY = (
    (("\\", "\t", "\r", "\ufeff"), None),  # escapes, tabs, CR, BOM: always deferred
    (("<<",), None),  # merge keys
    # anchors, aliases, tags: at a line's start or after whitespace, '[', '{' or ','
    (("&", "*", "!"), re.compile(r"[&*!](?<![^\s\[{,][&*!])", re.M)),
    (("?",), re.compile(r"^[ -]*\?(?:[ ]|$)", re.M)),  # complex keys
    # block scalars: '|' or '>' at a line's start or after a space, then only indicators and a comment
    (("|", ">"), re.compile(r"[|>](?<![^ \n][|>])[-+0-9]*[ ]*(?:\#.*)?$", re.M)),
    # -.5 (not after a word character or a dot): a string in YAML 1.1, a number to rapidyaml
    (("-.", "+."), re.compile(r"[-+](?<![\w.][-+])\.")),
)
_CANONICAL = re.compile(r"true|false|null|-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?")
# An integer PyYAML refuses where it stands (``pyyaml._bounded_int``), or a string of as many digits:
# either way PyYAML decides. Found as a run of zeros once every digit reads as 0 (``_long_digits``).
_LONG_DIGITS = b"0" * (INT_DIGITS + 1)
_DIGITS_AS_ZERO = bytes.maketrans(b"123456789", b"000000000")


def _resolver_patterns() -> str:
    """Every plain-scalar pattern PyYAML's resolver reads as something other than str, each behind a lookahead
    for the first characters PyYAML tries it on, as its resolver tries it (``Resolver.resolve`` picks the
    patterns by a word's first character): a word starting with a letter is no longer tried on the number
    and timestamp patterns, about 3M instructions of a 1x one-key matrix. One registered for every first
    character (``None``) has no lookahead; one for the empty word alone none to add (empty JSON strings are
    never searched)."""
    firsts: dict[str, set] = {}
    for first, resolvers in yaml.resolver.Resolver.yaml_implicit_resolvers.items():
        for _, regexp in resolvers:
            firsts.setdefault(regexp.pattern.strip(), set()).add(first)
    alternatives = []
    for pattern, chars in sorted(firsts.items()):
        body = f"(?x:{pattern.removeprefix('^').removesuffix('$')})"
        if None in chars:
            alternatives.append(body)
        elif chars - {""}:
            alternatives.append(f"(?=[{re.escape(''.join(sorted(chars - {''})))}]){body}")
    return "|".join(alternatives)


# A JSON string (not empty: rapidyaml writes an empty plain value as null) that would not
# be a string if it were plain YAML 1.1.
# The lookahead (the first characters PyYAML's resolvers are tried on) rejects most strings at once.
_FIRST = re.escape("".join(sorted(c for c in yaml.resolver.Resolver.yaml_implicit_resolvers if c)))
_TYPED = f"(?=[{_FIRST}])(?:{_resolver_patterns()})"
_TYPED_STRING = re.compile(f'"{_TYPED}"')


def retyped(text: str) -> bool:
    """Whether YAML 1.1 reads ``text``, written plain (unquoted), as something other than that text:
    ``yes``, ``on``, ``null``, ``1.0``, ``2024-01-01``. Only a refusal's hint asks (``core.check``), so the
    pattern is compiled then, by ``re``'s own cache: compiled with the module, as ``_TYPED_STRING`` is, it
    cost every run about 10M instructions."""
    return re.fullmatch(_TYPED, text) is not None


_CParser = getattr(getattr(yaml, "_yaml", None), "CParser", None)  # None without libyaml


def _provably_plain(text: str) -> bool:
    if _CParser is None:
        return False
    holds = text.__contains__
    for needles, pattern in _RISKY:
        if any(map(holds, needles)) and (pattern is None or pattern.search(text)):
            return False
    try:
        _CParser(text).raw_parse()
    except yaml.YAMLError:
        return False  # PyYAML reports it
    return True


@contextlib.contextmanager
def _stderr_quiet():
    """rapidyaml prints its parse errors on fd 2; such a block falls back to PyYAML silently."""
    saved = os.dup(2)
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def _canonical_float(token: str) -> float | int:
    """A JSON number with a fraction or exponent, built only when YAML 1.1 reads it alike (and,
    as ``pyyaml.FastReader`` builds it, an integral one as the integer it equals)."""
    if not _CANONICAL.fullmatch(token):
        raise ValueError(token)  # 1e5: a string to YAML 1.1 (its exponents need a dot and a sign)
    value = float(token)
    return int(value) if value.is_integer() else value


def _no_constant(token: str):
    raise ValueError(token)  # NaN, Infinity: JSON's extensions, spelt otherwise in YAML 1.1


def _long_digits(js: str) -> bool:
    """Whether ``js`` holds a run of more than ``INT_DIGITS`` ASCII digits. A search for
    ``[0-9]{301}`` counted from every digit it met: about a tenth of a cold matrix's instructions."""
    return _LONG_DIGITS in js.encode("utf-8", "surrogatepass").translate(_DIGITS_AS_ZERO)


# Where rapidyaml writes each block's JSON, grown when a block's is longer: its emit_json sizes a new buffer
# with a whole emitting pass of its own first, about 6M instructions of a 1x one-key matrix.
_JSON_OUT = [bytearray(1 << 16)]


def _json_of(ryml, tree) -> str:
    """``ryml.emit_json(tree)``, written into the kept buffer (one emitting pass when it is long enough)."""
    failed, size = ryml.emit_json_to_substr(tree, tree.root_id(), _JSON_OUT[0])
    if failed:
        _JSON_OUT[0] = bytearray(2 * size)
        failed, size = ryml.emit_json_to_substr(tree, tree.root_id(), _JSON_OUT[0])
        if failed:  # never, with room for twice what it asked: PyYAML decides (``_value``)
            raise IndexError(f"rapidyaml's JSON of {size} bytes did not fit {len(_JSON_OUT[0])}")
    return str(memoryview(_JSON_OUT[0])[:size], "utf-8")


def _value(ryml, text: str):
    try:
        js = _json_of(ryml, ryml.parse_in_arena(text.encode("utf-8")))
    except Exception:  # noqa: BLE001 - rapidyaml refuses what it cannot build: PyYAML decides
        return None
    if "\\" in js or _TYPED_STRING.search(js) or _long_digits(js):
        return None
    # Any unquoted word but true, false, null and a number fails to load as JSON; JSON spells
    # an integer as YAML 1.1 does, and every other number is checked as it is read.
    try:
        return (json.loads(js, parse_float=_canonical_float, parse_constant=_no_constant),)
    except ValueError:
        return None


def _import_ryml():
    """rapidyaml, without importing ``deprecation`` (and ``packaging``, about 6 ms) for the
    decorators of functions sweepgate never calls; the real package stays importable."""
    import sys
    import types

    if "ryml" in sys.modules or "deprecation" in sys.modules:
        import ryml

        return ryml
    stub = types.ModuleType("deprecation")
    stub.deprecated = lambda *args, **kwargs: (lambda function: function)
    sys.modules["deprecation"] = stub
    try:
        import ryml
    finally:
        if sys.modules.get("deprecation") is stub:
            del sys.modules["deprecation"]
    return ryml


def load_blocks(texts: list[str]) -> list[tuple | None]:
    """For each YAML text, (value,) as PyYAML's safe loader would build it, or None: use PyYAML."""
    try:
        ryml = _import_ryml()
    except ImportError:  # pragma: no cover - an install without rapidyaml is only slower
        return [None] * len(texts)
    plain = [_provably_plain(t) for t in texts]
    with _stderr_quiet():
        return [_value(ryml, t) if ok else None for t, ok in zip(texts, plain)]
