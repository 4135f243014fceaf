"""The example fleet the package ships (configs/, benchmarks/, the changelog).

`sweepgate example` runs on it, and some of its files are also sweepgate's built-in
defaults (``configs/estimates.yaml``: what a repository without that file is charged), so
each such default is written once, in the file an example user reads.
"""

from __future__ import annotations

import os


def fleet_root() -> str:
    """The directory that holds the example fleet.

    An installed wheel carries it as package data (``sweepgate/fleet``, copied in
    by setup.py's build hook); an editable install reads the checkout itself.
    """
    from sweepgate.core import fields as F
    from sweepgate.core.errors import fail

    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    packaged = os.path.join(package, "fleet")
    if os.path.isfile(os.path.join(packaged, F.RUNNERS_FILE)):  # spares the import of importlib.resources
        return packaged
    from importlib import resources

    zipped = resources.files("sweepgate").joinpath("fleet")
    if zipped.joinpath(F.RUNNERS_FILE).is_file():
        return str(zipped)
    here = package
    while True:
        if os.path.isfile(os.path.join(here, F.RUNNERS_FILE)):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            raise fail(F.RUNNERS_FILE, 0, "the example fleet is not installed", "reinstall sweepgate")
        here = parent


def fleet_bytes(rel: str) -> bytes:
    """The bytes of one file of the example fleet, by its path in a repository."""
    from sweepgate.core.errors import fail

    path = os.path.join(fleet_root(), rel)
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as exc:  # a fleet found but incomplete (an old install's files beside a new one's)
        raise fail(path, 0, f"the example fleet's {rel} cannot be read: {exc.strerror}",
                   "reinstall sweepgate (pip install --force-reinstall)") from None
