"""Config-key patterns: a changelog entry's ``*`` wildcard and a ``--config-keys`` shell-style one, what each
matches, and the fix named for one that matches no key (both refusals name it alike).
"""

from __future__ import annotations

import re

CHANGELOG_WILD = "*"   # a changelog wildcard's only special character; ``?`` and ``[`` in it are themselves
GLOB_WILD = "*?[]"     # --config-keys patterns are shell-style (fnmatch): ``*``, ``?`` and ``[...]``
KEY_SEPARATORS = "-_."  # what a config key's words are separated by
NEAR_KEYS_SHOWN = 3
CHECK_MASTER_CONFIGS = "check the pattern against configs/*-master.yaml"
UNKNOWN_CONFIG_KEY = "unknown-config-key"  # the rule of a key or pattern naming no config, in an entry or a flag


def wildcard(pattern: str) -> re.Pattern:
    """A changelog entry's wildcard as a regular expression: ``*`` is any text, every other character
    itself (a ``?``, ``[`` or ``.`` in a key is no pattern)."""
    return re.compile(".*".join(map(re.escape, pattern.split("*"))))


def matching(pattern: str, keys, glob: bool = False) -> list[str]:
    """The keys ``pattern`` matches, in their order: as a changelog wildcard, or with ``glob`` as a shell-style
    pattern (what ``--config-keys`` takes)."""
    if glob:
        import fnmatch

        return fnmatch.filter(list(keys), pattern)
    rx = wildcard(pattern)
    return [key for key in keys if rx.fullmatch(key)]


def near_wildcard(pattern: str, keys, glob: bool = False, check: str = CHECK_MASTER_CONFIGS) -> str:
    """The fix for a wildcard (``glob``: a shell-style pattern) that matches no config key: the pattern with
    each whole word no key holds replaced by the nearest word one does, where that makes it match
    (``dsr1-fp8-*-vllmm`` -> ``dsr1-fp8-*-vllm``, naming the keys it then matches); else the keys nearest
    the pattern without its special characters, as an unknown plain key's are named, and ``check``. A word
    beside a special character (``*``; with ``glob`` also ``?``, ``[``, ``]``) is part of one, left as it is."""
    import difflib

    keys, wild = list(keys), GLOB_WILD if glob else CHANGELOG_WILD
    split = re.compile(f"([{re.escape(KEY_SEPARATORS + wild)}])").split  # words at even places, separators between
    words = {word for key in keys for word in split(key)[::2] if word}
    parts = split(pattern)
    for i in range(0, len(parts), 2):
        whole = parts[i] and (i == 0 or parts[i - 1] not in wild) and (i + 1 == len(parts) or parts[i + 1] not in wild)
        if whole and parts[i] not in words:
            parts[i] = next(iter(difflib.get_close_matches(parts[i].lower(), words, n=1)), parts[i])
    fixed = "".join(parts)
    if fixed != pattern and (matched := matching(fixed, keys, glob)):
        more = f" and {len(matched) - NEAR_KEYS_SHOWN} more" if len(matched) > NEAR_KEYS_SHOWN else ""
        return f"did you mean '{fixed}', which matches {', '.join(matched[:NEAR_KEYS_SHOWN])}{more}?"
    close = difflib.get_close_matches(pattern.translate({ord(c): None for c in wild}), keys, n=NEAR_KEYS_SHOWN)
    return (f"the nearest keys are {', '.join(close)}; " if close else "") + check


def config_key_problem(key: str) -> str | None:
    """What keeps ``key`` from being a config key the gate takes (the master-config schema's key pattern and its
    words, ``schemas.schema_key_names``), ``'gpt$oss' is no config key: a config key has letters, ...``; None for
    one that is."""
    from sweepgate.core.schemas import schema_key_names

    rule = schema_key_names()
    if re.search(rule["pattern"], key):  # re.search, as both schema validators apply a pattern
        return None
    return f"{key!r} is no config key: {rule['description'].split(': ', 1)[-1]}"
