"""PyYAML, imported without the one regular expression sweepgate never uses.

Importing ``yaml`` compiles its pure-Python reader's NON_PRINTABLE character class,
a Unicode range that takes the ``re`` compiler about 10 ms, on every command. Only
the pure-Python reader consults it; sweepgate parses with libyaml's C loader, whose
reader is C. So while ``yaml`` is first imported, that one pattern is handed out
uncompiled, and compiles on first use if anything ever uses it.

Every module of ours that needs PyYAML imports it from here, and reads YAML values with
``FastReader`` (libyaml) or ``PythonReader`` (PyYAML's own scanner): PyYAML's safe loaders,
except that a float with no fraction (``4.0``) is the integer it equals, as the reference's
models hold it (an integer field takes ``4.0`` as ``4``; no field it emits is a float), and
``.nan``, ``.inf`` or an integer of more than 300 digits is refused where it stands (``NotFinite``).
"""

from __future__ import annotations

import re
import sys

from sweepgate.core.jsontext import INT_DIGITS

_NON_PRINTABLE_START = "[^\x09\x0A\x0D\x20-\x7E\x85\xA0-"


class _LazyPattern:
    """A compiled pattern made on first use."""

    def __init__(self, pattern: str, flags: int, compile_):
        self._args, self._compile, self._compiled = (pattern, flags), compile_, None

    def __getattr__(self, name: str):
        if self._compiled is None:
            self._compiled = self._compile(*self._args)
        return getattr(self._compiled, name)


def _import():
    if "yaml" in sys.modules:
        return sys.modules["yaml"]
    real = re.compile

    def compile_(pattern, flags=0):
        if isinstance(pattern, str) and pattern.startswith(_NON_PRINTABLE_START):
            return _LazyPattern(pattern, flags, real)
        return real(pattern, flags)

    re.compile = compile_
    try:
        import yaml
    finally:
        re.compile = real
    return yaml


yaml = _import()


class NotFinite(yaml.constructor.ConstructorError):
    """``.nan`` or ``.inf``: no field of a config, runner or changelog entry can be one."""


def _integral_float(loader, node):
    value = loader.construct_yaml_float(node)
    if value != value or value in (float("inf"), float("-inf")):
        raise NotFinite(None, None, f"{node.value} is not a finite number", node.start_mark)
    return int(value) if value.is_integer() else value


def _bounded_int(loader, node):
    """An integer, refused where it stands past ``INT_DIGITS`` digits (as JSON input is, and beyond
    the 4,300 Python turns into an int at all)."""
    digits = len(node.value) > INT_DIGITS and sum(c.isdigit() for c in node.value)  # short: counted no further
    if digits > INT_DIGITS:
        raise NotFinite(None, None, f"an integer of {digits} digits is not a finite number a field takes",
                        node.start_mark)
    return loader.construct_yaml_int(node)


class PythonReader(yaml.SafeLoader):
    """PyYAML's pure-Python safe loader (the reference's ``yaml.safe_load``), integral floats as ints."""


PythonReader.add_constructor("tag:yaml.org,2002:float", _integral_float)
PythonReader.add_constructor("tag:yaml.org,2002:int", _bounded_int)

if hasattr(yaml, "CSafeLoader"):
    class FastReader(yaml.CSafeLoader):
        """libyaml's safe loader, integral floats as ints."""

    FastReader.add_constructor("tag:yaml.org,2002:float", _integral_float)
    FastReader.add_constructor("tag:yaml.org,2002:int", _bounded_int)
else:  # pragma: no cover - PyYAML built without libyaml is only slower
    FastReader = PythonReader
