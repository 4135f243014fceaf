"""`sweepgate engines capture`: write the flag manifest of an installed engine or client.

Run it wherever the package is installed (a scratch venv, or the job's container
before the server starts); configs/engines/README.md says how the committed
manifests were made.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from sweepgate.engines.capture import ENGINES

    sub = parser.add_subparsers(dest="engines_command", metavar="ACTION", required=True)
    cap = sub.add_parser("capture", help="write the manifest of an installed engine's argument parser",
                         description="Import the installed package's own argument parser (nothing is "
                                     "started) and write every option, its type, choices and nargs as JSON.")
    cap.add_argument("--engine", required=True, choices=sorted(ENGINES), help="which parser to capture")
    from sweepgate.commands.argtypes import output_file

    cap.add_argument("--out", metavar="FILE", type=output_file,
                     help="write the manifest here (default: standard output)")


@contextlib.contextmanager
def _stdout_to_stderr():
    """Send file descriptor 1 (Python's prints and a C library's writes alike) to stderr meanwhile."""
    sys.stdout.flush()
    saved = os.dup(1)
    os.dup2(2, 1)
    try:
        yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


def run(args) -> int:
    from importlib import metadata

    from sweepgate.core.atomic import atomic_write
    from sweepgate.core.errors import SweepgateError, fail
    from sweepgate.core.outpaths import writable_file
    from sweepgate.engines.capture import ENGINES, capture

    if args.out:  # a folder that is not there is refused as every output file's is, before the package loads
        writable_file(args.out, "--out")
    dist = ENGINES[args.engine][0]
    try:
        with _stdout_to_stderr():  # what the package prints on import is no part of the manifest on stdout
            manifest = capture(args.engine)
    except metadata.PackageNotFoundError:
        raise fail(args.engine, 0, f"package {dist} is not installed in {sys.prefix}",
                   f"pip install {dist}==VERSION into this environment, then capture again") from None
    except ImportError as exc:
        raise fail(args.engine, 0, f"cannot import {dist}'s parser: {exc}",
                   "install the missing module (configs/engines/README.md lists what each capture needs)") from None
    except SweepgateError:
        raise
    except (Exception, SystemExit) as exc:  # the installed package's own code failed (no GPU, a broken install)
        what = f"exit({exc.code})" if isinstance(exc, SystemExit) else f"{type(exc).__name__}: {exc}"
        raise fail(args.engine, 0, f"building {dist}'s parser failed: {what}",
                   f"the installed {dist} failed, not sweepgate: check that it works in this environment "
                   "(configs/engines/README.md lists what each capture needs)") from None
    text = json.dumps(manifest, indent=1, sort_keys=True) + "\n"
    if args.out:
        atomic_write(Path(args.out), text.encode())
        print(f"engines: {args.engine} {manifest['version']}: {len(manifest['options'])} options -> {args.out}",
              file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0
