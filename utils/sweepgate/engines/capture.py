"""Build a flag manifest from the real argument parser of an installed engine or client.

Each entry point below imports the installed package's own parser-building code
and builds the parser without starting anything. A module that the parser code
imports but that only matters when the engine runs may be stubbed; every stub is
named in the manifest's ``captured-with-stubs``.
"""

from __future__ import annotations

import argparse
import platform
import sys
from importlib import metadata

from sweepgate.engines.describe import walk
from sweepgate.engines.names import ENGINES as NAMES

CAPTURED_BY = "sweepgate engines capture"


def _vllm_platform(stubs: list[str]) -> None:
    """vLLM infers its device while building the parser; with no GPU here, say CPU and record it."""
    import vllm.platforms as platforms

    if not platforms.current_platform.device_type:
        from vllm.platforms.cpu import CpuPlatform

        platforms._current_platform = CpuPlatform()
        stubs.append("vllm.platforms.current_platform=CpuPlatform (no GPU where captured; "
                     "only device defaults depend on it)")


def _flexible_parser():
    """vLLM's parser class: in vllm.utils up to 0.11.0, in vllm.utils.argparse_utils from 0.11.1."""
    try:
        from vllm.utils.argparse_utils import FlexibleArgumentParser
    except ImportError:
        from vllm.utils import FlexibleArgumentParser
    return FlexibleArgumentParser


def vllm_serve(stubs: list[str]) -> argparse.ArgumentParser:
    _vllm_platform(stubs)
    from vllm.entrypoints.cli.serve import ServeSubcommand

    root = _flexible_parser()(prog="vllm")
    return ServeSubcommand().subparser_init(root.add_subparsers())


def vllm_bench_serve(stubs: list[str]) -> argparse.ArgumentParser:
    _vllm_platform(stubs)
    from vllm.entrypoints.cli.benchmark.serve import BenchmarkServingSubcommand

    parser = _flexible_parser()(prog="vllm bench serve")
    BenchmarkServingSubcommand.add_cli_args(parser)
    return parser


def lm_eval(stubs: list[str]) -> argparse.ArgumentParser:
    from lm_eval.__main__ import setup_parser

    return setup_parser()


def lmcache_server(stubs: list[str]) -> argparse.ArgumentParser:
    # ServerCommand skips its options silently when an import fails; import what it
    # imports first, so a missing module is the real ImportError, not an empty manifest.
    import lmcache.v1.distributed.config  # noqa: F401
    import lmcache.v1.mp_observability.config  # noqa: F401
    import lmcache.v1.multiprocess.config  # noqa: F401
    from lmcache.cli.commands.server import ServerCommand

    root = argparse.ArgumentParser(prog="lmcache")
    ServerCommand().register(root.add_subparsers(dest="command"))
    return root._subparsers._group_actions[0].choices["server"]


def aiperf_profile(stubs: list[str]) -> tuple[list[dict], list[dict], dict]:
    from aiperf.cli import app

    from sweepgate.engines.cyclopts_cli import command_options

    return command_options(app, "profile")


# engine -> its parser builder (None: mooncake_master's gflags, read from its --helpfull)
BUILDERS = {"vllm": vllm_serve, "vllm-bench": vllm_bench_serve, "lmcache": lmcache_server, "mooncake": None,
            "aiperf": aiperf_profile, "lm-eval": lm_eval}
# engine -> (distribution, command as typed, parser builder)
ENGINES = {engine: (dist, command, BUILDERS[engine]) for engine, (dist, command) in NAMES.items()}


def capture(engine: str) -> dict:
    """The manifest of ``engine`` as installed in this interpreter's environment."""
    dist, command, build = ENGINES[engine]
    version = metadata.version(dist)
    stubs: list[str] = []
    if build is None:
        from sweepgate.engines.gflags import mooncake_master_options

        built = mooncake_master_options(stubs)
    else:
        built = build(stubs)
    if isinstance(built, tuple):  # a CLI that is not argparse: (options, positionals, meta)
        options, positionals, meta = built
    else:
        options, positionals = walk(built)
        meta = {"parser": f"{type(built).__module__}.{type(built).__qualname__}",
                "allow_abbrev": bool(built.allow_abbrev),
                "underscores_as_dashes": type(built).__name__ == "FlexibleArgumentParser"}
    return {"engine": engine, "package": dist, "version": version, "command": command,
            **meta, "captured-by": CAPTURED_BY, "captured-with-stubs": stubs,
            "python": platform.python_version(), "platform": sys.platform,
            "options": options, "positionals": positionals}
