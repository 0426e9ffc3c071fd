"""`arena standings DIR`, and the parts of `arena verify DIR` that check a tournament's directory."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from arena.argtypes import EXIT_FAILED, EXIT_OK, CliError, positive_int
from arena.tournament.audit.verify import NotResults, Report, verify_directory
from arena.tournament.plan.errors import TournamentError
from arena.tournament.results.report import terminal, write_reports
from arena.tournament.results.store import StoreError
from arena.tournament.run.coordinator import load_standings
from arena.tournament.run.dirlock import DirectoryInUse, lock_directory


def register(subparsers: Any) -> None:
    """Add the `standings` subcommand to the `arena` parser (`arena tournament` is arena/cli/tournament.py)."""
    s = subparsers.add_parser("standings", help="print (and rewrite) the standings of a tournament directory")
    s.add_argument("dir", metavar="DIR", help="a tournament's output directory")
    s.set_defaults(func=cmd_standings)


VERIFY_HELP = "check a tournament directory as a whole: store, logs, reports"
VERIFY_DESCRIPTION = ("Check that DIR's store holds one row per scheduled match, that every played match's log is "
                      "signed, re-simulates and agrees with its row, and that the reports are what the store gives. "
                      "Prints one line per kind of problem (counted, with examples; --all: every one); "
                      "exit 0: all holds, 1: problems or matches still to play, 2: not a results directory.")


def add_verify(subparsers: Any, func: Any = None, help: str = VERIFY_HELP, description: str = VERIFY_DESCRIPTION,
               dir_help: str = "a tournament's output directory") -> None:
    """Add `verify DIR [--jobs N]` (func: what runs it; default: a tournament directory's check)."""
    v = subparsers.add_parser("verify", help=help, description=description)
    v.add_argument("dir", metavar="DIR", help=dir_help)
    v.add_argument("--jobs", type=positive_int, metavar="N",
                   help="processes re-simulating logs (default: the cores, at most 8)")
    v.add_argument("--all", action="store_true",
                   help="every problem on a line of its own (default: a kind found many times is one line, counted)")
    v.set_defaults(func=func or cmd_verify)


def cmd_verify(args: argparse.Namespace) -> int:
    """Check a tournament directory as a whole: one line per problem, then a summary line."""
    return report_verification(args, verify_directory)


def report_verification(args: argparse.Namespace, check: Callable[..., Report]) -> int:
    """Run check on DIR and print one line per problem, then a summary line; the exit status."""
    try:
        report = check(args.dir, jobs=args.jobs)
    except NotResults as exc:
        raise CliError(str(exc)) from None
    for line in report.lines(every=args.all):
        print(line)
    print(report.summary(), flush=True)
    return EXIT_OK if report.ok else EXIT_FAILED


def cmd_standings(args: argparse.Namespace) -> int:
    """Recompute the standings of a tournament directory from its store; print and rewrite them."""
    try:
        standings = load_standings(args.dir)
    except (TournamentError, StoreError) as exc:
        raise CliError(str(exc)) from None
    try:
        with lock_directory(args.dir):
            write_reports(args.dir, standings)
    except DirectoryInUse as exc:  # the run writes the reports itself when it ends
        print(f"arena standings: {exc}: its reports are left to it", file=sys.stderr)
    except OSError as exc:
        where = exc.filename or args.dir
        print(f"arena standings: error: cannot write {where}: {exc.strerror}", file=sys.stderr)
        return EXIT_FAILED
    print(terminal(standings))
    return EXIT_OK


