"""YAML hygiene: anchors, aliases, tags, merge keys and duplicate keys, refused where YAML is read.

The scan runs on events (and, only when those are clean, on composed nodes), so
nothing is constructed before the checks pass and an alias bomb costs nothing.
``line_of`` maps a 1-based line of ``text`` to the line reported (the changelog's
appended text is reported at its head line numbers).
"""

from __future__ import annotations

import re

from sweepgate.core.pyyaml import yaml

from sweepgate.core import fields as F
from sweepgate.core.errors import Diagnostic, SweepgateError

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def refuse_features(doc_path: str, text: str, line_of) -> list[Diagnostic]:
    """Anchors, aliases, tags and merge keys are refused before anything is constructed."""
    diags = []
    try:
        for event in yaml.parse(text, Loader=_Loader):
            mark = event.start_mark
            where = (line_of(mark.line + 1), mark.column + 1)
            if isinstance(event, yaml.AliasEvent):
                diags.append(Diagnostic(doc_path, *where, "yaml-alias", "YAML aliases (*name) are not allowed",
                                        "write the value out in full"))
            elif getattr(event, "anchor", None):
                diags.append(Diagnostic(doc_path, *where, "yaml-anchor", "YAML anchors (&name) are not allowed",
                                        "remove the anchor and write values out in full"))
            elif getattr(event, "tag", None) is not None:
                diags.append(Diagnostic(doc_path, *where, "yaml-tag", f"YAML tags ({event.tag}) are not allowed",
                                        "remove the tag"))
            if isinstance(event, yaml.ScalarEvent) and event.value == "<<" and not event.style:  # C loader: ""
                diags.append(Diagnostic(doc_path, *where, "yaml-merge", "YAML merge keys (<<) are not allowed",
                                        "write the keys out in full"))
    except yaml.YAMLError:
        pass  # syntax errors are reported by the parser with their own position
    return diags


# Plain scalars that YAML 1.1 (PyYAML, so the gate and the reference) reads as booleans and YAML 1.2 (an editor
# checking the file against its `$schema`) reads as text: what the file means would depend on its reader.
YAML11_ONLY_BOOLEANS = frozenset(f(w) for w in ("yes", "no", "on", "off") for f in (str.lower, str.title, str.upper))


def yaml11_booleans(doc_path: str, text: str, line_of) -> list[Diagnostic]:
    """Plain ``yes``/``no``/``on``/``off`` (any case PyYAML takes), each where it stands: true or false to PyYAML, the
    word to a YAML 1.2 reader. Quoted it is the word to both, and ``true``/``false`` a boolean to both."""
    diags = []
    try:
        for event in yaml.parse(text, Loader=_Loader):
            if (isinstance(event, yaml.ScalarEvent) and not event.style and event.value in YAML11_ONLY_BOOLEANS
                    and event.tag is None):
                mark = event.start_mark
                truth = "true" if event.value.lower() in ("yes", "on") else "false"
                diags.append(Diagnostic(
                    doc_path, line_of(mark.line + 1), mark.column + 1, "yaml-1.1-boolean",
                    f"'{event.value}' is a boolean only to YAML 1.1 (PyYAML reads {truth}; a YAML 1.2 reader, such as "
                    f"an editor checking the $schema, reads the text '{event.value}')",
                    f"write true or false for a flag ({truth} here), or quote it ('{event.value}') for the word"))
    except yaml.YAMLError:
        pass  # syntax errors are reported by the parser with their own position
    return diags


# Characters YAML counts as line breaks and git, GitHub's annotations and editors do not (a lone CR both do)
_UNSEEN_BREAKS = re.compile("[\x85\u2028\u2029]")


def places(text: str):
    """A function of a PyYAML mark in ``text`` to its 1-based (line, column) as the file's line feeds count them:
    PyYAML's own where ``text`` holds no U+0085, U+2028 or U+2029, which PyYAML takes for line breaks (a line
    further down, a column counted from the separator), else worked out from the mark's offset."""
    if not _UNSEEN_BREAKS.search(text):
        return lambda mark: (mark.line + 1, mark.column + 1)
    from bisect import bisect_right

    starts = [0, *(m.end() for m in re.finditer("\n", text))]

    def place(mark) -> tuple[int, int]:
        line = bisect_right(starts, mark.index)
        return line, mark.index - starts[line - 1] + 1
    return place


# What each of those characters is called where a syntax error is its doing (``unseen_break_blamed``)
_BREAK_NAMES = {"\x85": "U+0085 (next line)", "\u2028": "U+2028 (line separator)",
                "\u2029": "U+2029 (paragraph separator)"}


def unseen_break_blamed(text: str, index: int, loader) -> tuple[int, str, str] | None:
    """(its offset, what is wrong, how to fix) of the U+0085, U+2028 or U+2029 that a syntax error PyYAML stopped at
    at ``index`` of ``text`` is the doing of (s50c: one inside a comment, `# see\u2028https://…`, ends it, and the rest
    of the line is read as YAML): the last such one before ``index``, where ``text`` with each of them read as a blank
    (``loader``'s reading) has no error up to ``index``. None where there is none, or the error is another's."""
    found = [m for m in _UNSEEN_BREAKS.finditer(text, 0, index + 1)]
    if not found:
        return None
    try:
        yaml.load(_UNSEEN_BREAKS.sub(" ", text), Loader=loader)
    except yaml.MarkedYAMLError as exc:
        if (mark := exc.problem_mark or exc.context_mark) is None or mark.index <= index:
            return None
    except yaml.YAMLError:
        return None
    name = _BREAK_NAMES[found[-1].group()]
    return (found[-1].start(), f"{name} is a line break to YAML, though not to git or an editor: the text after it is "
            "read as a new line", "replace it with a space (or a line feed where a new line is meant)")


# How a key given twice in one mapping is said: the message names the key, not the config holding it
# (``configgate.also_on_base`` tells such a problem of BASE's by that config).
TWICE_IN_A_MAPPING = "appears twice in one mapping"


def duplicate_keys(doc_path: str, text: str, line_of) -> list[Diagnostic]:
    """Keys that appear twice in one mapping (a YAML parser would keep the last silently), each at its second
    occurrence. Read from the parser's events, not composed nodes: a master config's block may use an anchor
    another block sets (it composes only within the whole file) and an alias is not walked again (a billion-laughs
    block costs its length); an alias used as a key is the anchored scalar, at the alias."""
    diags: list[Diagnostic] = []
    place = places(text)
    scalars: dict[str, str] = {}  # anchor -> the scalar it names
    # one frame per open collection: the keys seen (None in a list) and whether the next node is a key
    stack: list[list] = []
    documents = 0
    try:
        for event in yaml.parse(text, Loader=_Loader):
            if isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                stack.pop()
                continue
            if isinstance(event, yaml.DocumentStartEvent):
                documents += 1
                if documents > 1:  # no one document: the parser refuses the stream, at the second
                    return []
            if not isinstance(event, yaml.NodeEvent):
                continue
            frame = stack[-1] if stack else None
            is_key = frame is not None and frame[0] is not None and frame[1]
            if frame is not None and frame[0] is not None:
                frame[1] = not frame[1]
            if isinstance(event, yaml.ScalarEvent) and event.anchor:
                scalars[event.anchor] = event.value
            key = (event.value if isinstance(event, yaml.ScalarEvent)
                   else scalars.get(event.anchor) if isinstance(event, yaml.AliasEvent) else None)
            if is_key and key is not None:  # a complex key (`? [a]`) has no hashable value; the schema refuses it
                (line, col), seen = place(event.start_mark), frame[0]
                if key in seen:
                    diags.append(Diagnostic(doc_path, line_of(line), col, F.DUPLICATE_KEY_RULE,
                                            f"key '{key}' {TWICE_IN_A_MAPPING} (first at line "
                                            f"{line_of(seen[key])})", "keep one of them"))
                else:
                    seen[key] = line
            if isinstance(event, yaml.MappingStartEvent):
                stack.append([{}, True])
            elif isinstance(event, yaml.SequenceStartEvent):
                stack.append([None, False])
    except yaml.YAMLError:
        return []  # the parser says where the text is no YAML; a key before that is no answer
    return diags


# How many values a file's aliases may expand to: the largest master config is about 10,000 lines; a
# "billion laughs" file of a few hundred bytes expands to 9**9, which a check of every value (the
# schema's, a message's repr of it) would never finish.
EXPANDED_VALUES_LIMIT = 1_000_000


def expanded_values(data) -> int:
    """How many values ``data`` holds once every alias (a list or mapping shared) is written out;
    each shared value is counted once, so this takes as long as the file, not as its expansion. A value
    that holds itself (``&x [*x]``) never ends: counted as past the limit. No recursion: a list nested
    900 deep is within PyYAML's depth limit, not within Python's."""
    sizes: dict[int, int] = {}
    todo: list[tuple[object, bool]] = [(data, False)]
    open_ids: set[int] = set()  # being counted: met again below itself, it is a cycle
    while todo:
        value, children_done = todo.pop()
        if not isinstance(value, (list, dict)) or (id(value) in sizes and not children_done):
            continue
        items = list(value.values()) if isinstance(value, dict) else value
        if children_done:
            open_ids.discard(id(value))
            sizes[id(value)] = 1 + sum(sizes[id(v)] if isinstance(v, (list, dict)) else 1 for v in items)
            continue
        if id(value) in open_ids:
            return EXPANDED_VALUES_LIMIT + 1
        open_ids.add(id(value))
        todo.append((value, True))
        todo.extend((v, False) for v in items if isinstance(v, (list, dict)))
    return sizes.get(id(data), 1)


def alias_bomb_at(data, text: str) -> int | None:
    """Where (offset of its ``*``) the first alias of a document whose aliases expand past
    ``EXPANDED_VALUES_LIMIT`` values stands; None for any other document (``data``, parsed ``text``)."""
    first = re.search(r"(?:^|[\s\[{,:])\*[^\s,\]}]", text, re.M) if "*" in text else None
    if first is None or expanded_values(data) <= EXPANDED_VALUES_LIMIT:
        return None
    return first.end() - 2


def refuse_alias_bomb(data, text: str, path: str) -> None:
    """Refuse a document whose aliases expand past ``EXPANDED_VALUES_LIMIT`` values, at its first alias."""
    at = alias_bomb_at(data, text)
    if at is None:
        return
    raise SweepgateError(Diagnostic(
        path, text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at), "yaml-alias-bomb",
        f"its aliases expand to more than {EXPANDED_VALUES_LIMIT:,} values (an alias bomb)",
        "write the values out, or reuse fewer of them through aliases"))
