"""The options `arena match` and `arena tournament` share (clock, sandbox, series), and `arena match --games`."""

from __future__ import annotations

import argparse
import json
from typing import Any

import arena.api as api
from arena.argtypes import non_negative_int, positive_int
from arena.setups import SetupFileError, parse_set_values


def add_conditions(parser: argparse.ArgumentParser, defaults: bool = True) -> None:
    """--budget-ms, --increment-ms, --move-ms, --margin-ms, --clock-mode, --ponder, --sandbox, --memory-mb, --transport.

    defaults: False leaves them None, so that a command can tell whether they were given.
    """
    def default(value: Any) -> Any:
        return value if defaults else None

    parser.add_argument("--budget-ms", type=positive_int, default=default(10_000),
                        help="time budget per seat for the whole match (default: 10000)")
    parser.add_argument("--increment-ms", type=non_negative_int, default=default(0),
                        help="time added after each move (default: 0)")
    parser.add_argument("--move-ms", type=positive_int, metavar="N",
                        help="at most N ms per move, whatever the budget left (default: no cap)")
    parser.add_argument("--margin-ms", type=non_negative_int, default=default(200),
                        help="one reserve per seat and match for replies past their time (default: 200)")
    parser.add_argument("--clock-mode", choices=["wall", "cpu"], default=default("wall"),
                        help="charge elapsed time (wall) or the bot's CPU time with a wall cap (cpu) (default: wall)")
    parser.add_argument("--ponder", action="store_true", default=default(False),
                        help="let bots think on the opponent's time (default: a bot not on move is frozen)")
    parser.add_argument("--sandbox", choices=["auto", "bwrap", "uid", "none"], default=default("auto"),
                        help="auto (default): bwrap where it works, else each bot its own uid; none: trusted bots "
                             "only (arena doctor tells what this machine supports)")
    parser.add_argument("--memory-mb", type=non_negative_int, default=default(4096),
                        help="address-space limit per bot (default: 4096)")
    parser.add_argument("--transport", choices=["zeromq", "pipes"],
                        help="the wire of Python bots and Pascal modules: zeromq (default) or pipes (JSON lines on "
                             "their own pipes; over a config's `transport`); exec: bots speak ZeroMQ, "
                             "stdio: bots pipes")


def conditions(args: argparse.Namespace) -> dict[str, Any]:
    """The API's keyword arguments for the options of add_conditions."""
    return {"budget_ms": args.budget_ms, "increment_ms": args.increment_ms, "move_ms": args.move_ms,
            "margin_ms": args.margin_ms, "clock_mode": args.clock_mode, "ponder": args.ponder,
            "sandbox": args.sandbox, "memory_mb": args.memory_mb, "transport": args.transport}


def add_setup_arguments(parser: argparse.ArgumentParser) -> None:
    """--setup FILE and --set KEY=VALUE."""
    parser.add_argument("--setup", metavar="FILE", help="setup file (JSON, TOML, or the game's own format)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="setup key (JSON value); overrides --setup; repeatable")


def setup_values(game: str, args: argparse.Namespace) -> Any:
    """The API's setup: the file, or its values with the --set ones over them (None: neither given)."""
    if not args.set:
        return args.setup
    base = api.read_setup(game, args.setup) if args.setup else {}
    try:
        return base | parse_set_values(args.set)
    except SetupFileError as exc:
        raise api.ArenaError(str(exc)) from None


def add_series_arguments(parser: argparse.ArgumentParser) -> None:
    """The options `arena match` gains for series."""
    group = parser.add_argument_group("series (with --games)")
    group.add_argument("--games", type=positive_int, metavar="N",
                       help="play a series of N games in pairs: the same setup and seed with the seats "
                            "swapped (solo games: N boards, played by every bot)")
    group.add_argument("--workers", type=positive_int, metavar="K",
                       help="parallel referee processes (default: cores / 2)")
    group.add_argument("--sprt", metavar="elo0=E0,elo1=E1[,alpha=A,beta=B,model=M]",
                       help="stop as soon as the SPRT accepts H0 (elo0) or H1 (elo1); alpha and beta "
                            "default to 0.05, model to logistic (or normalized)")
    group.add_argument("--out", metavar="DIR",
                       help="results directory (store, signed logs, reports; resumable); default "
                            "results/A-vs-B, or results/A-vs-B-2, -3, ... when earlier runs hold results")
    group.add_argument("--resume", action="store_true",
                       help="continue the series in --out DIR (without --out: the newest results/A-vs-B)")
    group.add_argument("--report-every", type=positive_int, metavar="K",
                       help="a line with the running score every K games (default: every 10 when stderr is "
                            "not a terminal, none on one)")
    group.add_argument("--quiet", action="store_true", help="no progress")


def cmd_series(args: argparse.Namespace) -> int:
    """Play a series and print its summary (cutechess-style, or one JSON object)."""
    for flag, given in (("--log", args.log), ("--force", args.force), ("--show", args.show)):
        if given:
            raise api.ArenaError(f"{flag} is for a single match; a series (--games) keeps its logs in --out DIR")
    summary = api.run_series(args.game, args.bots, args.games, sprt=args.sprt, setup=setup_values(args.game, args),
                             seed=args.seed, names=args.name, workers=args.workers, out=args.out,
                             resume=args.resume, trace=args.trace, progress=not (args.quiet or args.json),
                             report_every=args.report_every or 0, **conditions(args))
    print(json.dumps(summary) if args.json else summary.text)
    return 0
