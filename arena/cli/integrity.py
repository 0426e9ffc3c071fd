"""`arena integrity DIR`: look for collusion in a tournament's results directory or a contest server's directory."""

from __future__ import annotations

import argparse
import json
from typing import Any

from arena.argtypes import EXIT_FAILED, EXIT_OK, CliError, positive_int
from arena.integrity.records import IntegrityError, tournament_results
from arena.integrity.report import ALPHA, BUDGET_NODES, analyse
from arena.server.checks.audit import is_contest
from arena.server.checks.integrity import contest_results


def probability(text: str) -> float:
    """A threshold strictly between 0 and 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, got {text}")
    return value


def register(subparsers: Any) -> None:
    """Add `arena integrity` (called by arena.cli.main)."""
    p = subparsers.add_parser(
        "integrity", help="look for collusion: pairs whose results against each other the rest do not explain",
        description="For every ordered pair of players of a two-player tournament (or of a contest server's "
                    "ladder, and its finals): are the player's results against the other what a rating model "
                    "fitted to all the other games predicts, and, where the game has an exact solver, does it "
                    "throw won positions away against that opponent more often than against the rest? Pairs "
                    "whose Holm-adjusted p-value is at most --alpha are flagged, with the evidence, most "
                    "suspicious first (docs/integrity.md). Nothing is changed. Exit 0: no pair flagged, "
                    "1: some pair flagged, 2: DIR cannot be checked.")
    p.add_argument("dir", metavar="DIR", help="a tournament's output directory, or a contest server's directory")
    p.add_argument("--alpha", type=probability, default=ALPHA, metavar="P",
                   help="the family-wise false-flag rate over one set of results (Holm)")
    p.add_argument("--budget", type=positive_int, default=BUDGET_NODES, metavar="NODES",
                   help="the solver's effort per position (positions beyond it are left out)")
    p.add_argument("--no-blunders", action="store_true", help="results only: do not replay the logs with the solver")
    p.add_argument("--all", action="store_true", help="list every ordered pair (default: the flagged and the "
                                                      "three most suspicious others)")
    p.add_argument("--json", action="store_true", help="print the reports as one JSON object")
    p.set_defaults(func=cmd_integrity)


def cmd_integrity(args: argparse.Namespace) -> int:
    """Judge DIR's results; print the reports; exit 1 when a pair is flagged."""
    try:
        found = contest_results(args.dir) if is_contest(args.dir) else [tournament_results(args.dir)]
        reports = [analyse(results, alpha=args.alpha, budget=args.budget, blunders=not args.no_blunders)
                   for results in found]
    except IntegrityError as exc:
        raise CliError(str(exc)) from None
    flagged = sum(len(report.flagged) for report in reports)
    if args.json:
        print(json.dumps({"reports": [report.to_data() for report in reports], "flagged": flagged}))
    else:
        for k, report in enumerate(reports):
            print(("\n" if k else "") + "\n".join(report.lines(every=args.all)))
    return EXIT_FAILED if flagged else EXIT_OK
