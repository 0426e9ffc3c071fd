"""`arena verify DIR`: check a tournament's results directory, or a contest server's directory, as a whole."""

from __future__ import annotations

import argparse
from typing import Any

from arena.server.checks.audit import is_contest, verify_contest
from arena.tournament.audit.cli import add_verify, report_verification
from arena.tournament.audit.verify import verify_directory


def register(subparsers: Any) -> None:
    """Add `arena verify` (called by arena.cli.main)."""
    add_verify(subparsers, cmd_verify,
               help="check a tournament or contest directory as a whole: store, logs, reports, ratings",
               description="A tournament's directory: check that its store holds one row per scheduled match, that "
                           "every played match's log is signed, re-simulates and agrees with its row, and that the "
                           "reports are what the store gives. A contest server's directory (arena serve): check "
                           "every ladder game against its signed log, recompute every rating from the results, and "
                           "check the finals. Prints one line per kind of problem (counted, with examples; "
                           "--all: every one); exit 0: all holds, 1: problems or matches still to play, "
                           "2: not a results directory.",
               dir_help="a tournament's output directory, or a contest server's directory")


def cmd_verify(args: argparse.Namespace) -> int:
    """A contest's directory, else a tournament's: one line per problem, then a summary line."""
    return report_verification(args, verify_contest if is_contest(args.dir) else verify_directory)
