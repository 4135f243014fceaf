"""The tracked files a JavaScript file the job runs requires or imports by a relative path (CONTRACTS section 9).

`node shared/x.js` runs x.js and each module it loads: `require('./m.js')`, `import m from './m.js'`, `import './m'`,
`export … from './m'`, `import('./m')`, each from the file's own folder, as Node resolves a relative one (the path,
then with `.js`, `.mjs`, `.cjs`, `.json`, then its folder's `index.*`): every candidate the checkout tracks is hashed
(more than Node loads costs a reuse at most), and what it loads in turn. Read as text, never run; a module named by a
bare name (`require('fs')`, a package under node_modules) or a computed path is passed over.

Standard library only: no layer of sweepgate is imported here."""

from __future__ import annotations

import posixpath
import re
from typing import Callable

JS_ENDINGS = (".js", ".mjs", ".cjs")  # a JavaScript file's endings: what it loads is followed
_TRIED = ("", ".js", ".mjs", ".cjs", ".json", "/index.js", "/index.mjs", "/index.cjs", "/index.json")
# a relative module specifier after `require(`, `import(`, `import … from`, `import`, `export … from`
_SPECIFIER = re.compile(r'(?:\brequire\s*\(\s*|\bimport\s*\(\s*|\bimport\s+(?:[\w$*{},\s]+?\s+from\s+)?|'
                        r'\bexport\s+[\w$*{},\s]+?\s+from\s+)(?P<q>[\'"`])(?P<spec>\.{1,2}/[^\'"`\n]*)(?P=q)')


def loaded(path: str, text: str, holds: Callable[[str], bool]) -> list[str]:
    """The tracked files (``holds``) the JavaScript ``text`` of ``path`` may load by a relative specifier, in order."""
    folder, out = posixpath.dirname(path), []
    for m in _SPECIFIER.finditer(text):
        stem = posixpath.normpath(posixpath.join(folder or ".", m["spec"]))
        if stem == ".." or stem.startswith("../"):
            continue
        out += [each for end in _TRIED if holds(each := ("" if stem == "." else stem) + end) and each.strip("/")]
    return list(dict.fromkeys(out))


def followed(paths: list[str], text_of: Callable[[str], str | None], holds: Callable[[str], bool]) -> list[str]:
    """The tracked files the JavaScript files of ``paths`` (``JS_ENDINGS``) load, and theirs, each read once."""
    out: dict[str, None] = {}
    todo = [path for path in paths if path.endswith(JS_ENDINGS)]
    seen: set[str] = set()
    while todo:
        path = todo.pop()
        if path in seen or (text := text_of(path)) is None:
            continue
        seen.add(path)
        for each in loaded(path, text, holds):
            out[each] = None
            if each.endswith(JS_ENDINGS):
                todo.append(each)
    return list(out)
