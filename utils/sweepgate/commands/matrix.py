"""`sweepgate matrix` / utils/process_changelog.py: changelog diff -> matrix JSON."""

from __future__ import annotations

import argparse
import json
import sys

from sweepgate.commands import argtypes


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--base-ref", type=argtypes.not_empty, required=True, help="revision the change starts from")
    parser.add_argument("--head-ref", type=argtypes.not_empty, required=True, help="revision with the appended entries")
    argtypes.add_changelog_file_argument(parser)
    parser.add_argument("--trim-conc", action="store_true", help="keep only each recipe's lowest concurrency")
    parser.add_argument("--all-evals", action="store_true", help="expand eval selection for every entry")
    parser.add_argument("--evals-only", action="store_true", help="suppress throughput rows for every entry")
    argtypes.add_config_arguments(parser, " at HEAD")
    parser.add_argument("--pretty", action="store_true", help="indent the JSON for reading (same content)")


def options(args):
    from sweepgate.core.select import Options

    return Options(trim_conc=args.trim_conc, all_evals=args.all_evals, evals_only=args.evals_only,
                   config_files=args.config_files, runner_config=args.runner_config,
                   changelog=args.changelog_file)


def run(args) -> int:
    from sweepgate.core.load import open_repo
    from sweepgate.core.select import build_matrix

    git = open_repo(refs=(args.base_ref, args.head_ref))
    argtypes.resolve_refs(git, args)
    matrix = build_matrix(git, args.base_ref, args.head_ref, options(args))
    sys.stdout.write(json.dumps(matrix, indent=2 if args.pretty else None) + "\n")
    return 0
