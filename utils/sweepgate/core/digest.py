"""File digests shared by the run identity (``core.identity``) and the recipe diff (``core.recipes``).

One way to hash a file and one way to hash a set of files, so a change the plan
reports as unlisted is exactly a change that gives a job a new run identity.
"""

from __future__ import annotations

import hashlib
from typing import Iterable


def file_sha(content: bytes | None) -> str | None:
    """sha256 of one file's bytes; None for a missing file."""
    return hashlib.sha256(content).hexdigest() if content is not None else None


def files_sha(paths: Iterable[str], blobs: dict) -> str:
    """One digest of several files: each path with its content (a missing file counts as empty)."""
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.encode() + b"\0" + (blobs.get(path) or b"") + b"\0")
    return digest.hexdigest()
