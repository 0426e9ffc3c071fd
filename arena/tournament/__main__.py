"""`python -m arena.tournament tournament|standings|verify ...`: the subcommands without the `arena` script."""

from __future__ import annotations

import logging
import sys

from arena.argtypes import EXIT_FAILED, EXIT_USAGE, CliError, Parser
from arena.launch.sandbox import MachineError
from arena.tournament.cli import add_verify, register


def main(argv: list[str] | None = None) -> int:
    """Parse and run one of the tournament subcommands."""
    parser = Parser(prog="arena", description="Round-robin tournaments for game-playing bots.")
    parser.add_argument("-v", "--verbose", action="store_true", help="log debugging details")
    subparsers = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    register(subparsers)
    add_verify(subparsers)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    try:
        return int(args.func(args))
    except CliError as exc:
        print(f"arena {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except MachineError as exc:
        print(f"arena {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_FAILED


if __name__ == "__main__":
    sys.exit(main())
