"""The front door: `landwatch ...` and `git landwatch ...` (argparse, commands return exit codes).

Each subcommand lives in its own module; this one only parses and dispatches.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from landwatch import __version__


def _program_name(argv0: str) -> str:
    # git runs `git-landwatch` for `git landwatch`; say it the way the person typed it.
    return "git landwatch" if os.path.basename(argv0) == "git-landwatch" else "landwatch"


def build_parser(prog: str = "landwatch") -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Records every commit that lands and reviews it in the background.",
    )
    parser.add_argument("--version", action="version", version=f"landwatch {__version__}")
    parser.add_subparsers(dest="command", metavar="COMMAND")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser(_program_name(sys.argv[0]))
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    parser.error(f"unknown command {args.command!r}")  # pragma: no cover - argparse refuses first


if __name__ == "__main__":
    raise SystemExit(main())
