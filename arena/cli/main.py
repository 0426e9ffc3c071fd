"""The `arena` command line."""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import logging
import os
import random
import shutil
import sys
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

from arena.argtypes import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    CliError,
    Parser,
    find_game,
    non_negative_int,
    positive_int,
    resolve_setup,
)
from arena.cli.series import add_series_arguments, display_names, warn_shared_folders
from arena.clock import ClockError, ClockSettings
from arena.games import GameError, State, game_names, get_game
from arena.launch.botspec import BotKind, BotSpecError, default_wire, parse_bot_spec, parse_wire
from arena.launch.plugins import bots_for
from arena.launch.process import LaunchError, Limits, MachineError, preflight
from arena.launch.sandbox import SandboxError, announce, check_sandbox
from arena.match.result import MatchResult
from arena.match.run import MatchPlan, default_log_path, play_match
from arena.viewer.cli import add_replay_arguments, run_replay

# Modules that add subcommands through register(subparsers).
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, what a shell reports for a tool its reader left
SUBCOMMAND_MODULES = ("arena.tournament.cli", "arena.viewer.cli", "arena.analyze.cli", "arena.play.cli",
                      "arena.cli.doctor", "arena.cli.check", "arena.cli.verify", "arena.server.cli")


def cmd_match(args: argparse.Namespace) -> int:
    """Play one match (or, with --games, a series) and report it."""
    if args.games is not None:
        from arena.cli.series import cmd_series

        return cmd_series(args)
    try:
        result = play_one(args)
    except MachineError as exc:
        print(f"arena match: error: {exc}; no result recorded", file=sys.stderr)
        return EXIT_FAILED
    if args.json:
        print(json.dumps(result.summary() | {"seed": args.seed}))
    else:
        if args.show:
            print()
        print(f"{result.game} seed {args.seed}: {describe(result)}")
        print(f"log: {result.log}")
    return EXIT_OK


def play_one(args: argparse.Namespace) -> MatchResult:
    """Play the one match `arena match` describes; CliError for bad input, MachineError if it cannot start."""
    for flag, given in (("--workers", args.workers), ("--sprt", args.sprt), ("--out", args.out),
                        ("--resume", args.resume)):
        if given:
            raise CliError(f"{flag} is for a series: add --games N")
    game = find_game(args.game)
    try:
        wire = parse_wire(args.transport) if args.transport else None
        bots = [default_wire(parse_bot_spec(text, game.name, display=name), wire)
                for text, name in zip(args.bots, display_names(args))]
    except BotSpecError as exc:
        raise CliError(str(exc)) from None
    if any(b.kind == BotKind.PASCAL for b in bots) and shutil.which("fpc") is None:
        raise CliError("pascal: modules need Free Pascal (apt-get install fp-compiler)")
    try:
        sandbox = check_sandbox(args.sandbox)
        for bot in bots:
            preflight(bot, sandbox)
    except (SandboxError, LaunchError) as exc:
        raise CliError(str(exc)) from None
    warn_shared_folders(bots, sandbox)
    if args.log and Path(args.log).exists() and not args.force:
        raise CliError(f"{args.log} exists (a log is never overwritten; --force replaces it)")
    try:
        game.check_players(len(bots))
    except GameError as exc:
        raise CliError(f"{exc} (one BOT per seat)") from None
    seed = args.seed = args.seed if args.seed is not None else random.randrange(2**31)
    setup = resolve_setup(game.name, args.setup, args.set, len(bots), seed)
    try:
        clock = ClockSettings(budget_ms=args.budget_ms, increment_ms=args.increment_ms,
                              margin_ms=args.margin_ms, mode=args.clock_mode)
    except ClockError as exc:
        raise CliError(str(exc)) from None
    limits = Limits(address_space_mb=args.memory_mb)
    log_path = args.log or default_log_path(game.name, seed)
    names = [b.name for b in bots]
    show: Callable[[State, int, Any], None] | None = None
    if args.show:
        from arena.play.ui import Terminal, colour_wanted
        from arena.play.views import view_for

        # The terminal view of `arena play`: the board with coordinates along its edges.
        view = view_for(game.name, Terminal(colour_wanted("auto", sys.stdout)), names, [])
        initial, _ = game.start(setup, len(bots), seed)
        print(view.board(initial), flush=True)

        def show(state: State, seat: int, move: Any) -> None:
            print(f"\n{names[seat]} (seat {seat}) chose {game.render_move(move)}.", flush=True)
            print(view.board(state, (seat, move)), flush=True)

    from arena.logs.signing import (
        user_key,  # the log is signed with the user's key (protocol/LOGS.md)
    )
    plan = MatchPlan(game, bots, setup, seed, clock, f"{game.name}-{seed}", log_path, limits, sandbox,
                     trace_path=args.trace, log_key=user_key(create=True), ponder=args.ponder)
    announce(sandbox)
    try:
        return play_match(plan, on_ply=show)
    except MachineError:
        if not args.log and log_path.exists() and log_path.stat().st_size == 0:
            log_path.unlink()  # the name claimed for a log that was never written
        raise


def describe(result: Any) -> str:
    """One line saying who won and why."""
    best = min(result.ranks)
    winners = [result.names[i] for i, r in enumerate(result.ranks) if r == best]
    outcome = (f"{winners[0]} (seat {result.ranks.index(best)}) wins" if len(winners) == 1 and result.players > 1
               else f"shared first place: {', '.join(winners)}" if len(winners) > 1 else "solo game")
    tail = f", offender seat {result.offender}" if result.offender is not None else ""
    detail = f" ({result.detail})" if result.detail else ""
    return (f"{outcome}; reason {result.reason}{tail}{detail}; scores {result.scores}; "
            f"ranks {result.ranks}; {result.plies} plies")


def installed_version() -> str:
    """The installed arena's version."""
    try:
        return metadata.version("arena")
    except metadata.PackageNotFoundError:  # a checkout that was never installed
        return "(not installed)"


def cmd_games(args: argparse.Namespace) -> int:
    """List the registered games."""
    rows = []
    for name in game_names():
        game = get_game(name)
        low, high = game.min_players, game.max_players
        span = f"{low}" if low == high else f"{low}-{high}"
        rows.append((name, f"v{game.version}", f"{span} player" + ("" if span == "1" else "s"),
                     "chance" if game.chance else "no chance", game.description))
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    for row in rows:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths)) + "  " + row[4])
    return EXIT_OK


def cmd_bots(args: argparse.Namespace) -> int:
    """List the registered bots, of one game or of all."""
    games = [find_game(args.game).name] if args.game else game_names()
    for game in games:
        for bot in bots_for(game):
            options = f"  (options: {', '.join(bot.options)})" if bot.options else ""
            print(f"{game:10} {bot.name:12} {bot.description}{options}")
    return EXIT_OK


def cmd_replay(args: argparse.Namespace) -> int:
    """Print, dump, verify or re-run a match log."""
    return run_replay(args)


def build_parser() -> Parser:
    """The argument parser of every subcommand."""
    parser = Parser(prog="arena", description="Referee, tournaments and replays for game-playing bots.")
    parser.add_argument("-v", "--verbose", action="store_true", help="log debugging details")
    parser.add_argument("--version", action="version", version=f"arena {installed_version()}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)

    m = sub.add_parser("match", help="play one match, or a series of them (--games N, --sprt)")
    m.add_argument("game")
    m.add_argument("bots", nargs="+", metavar="BOT",
                   help="one per seat: a registered name (options as name:key=value,...; arena bots GAME lists "
                        "them), path/bot.py[:Class], module:Class, exec:COMMAND (a ZeroMQ bot), "
                        "stdio:COMMAND (JSON lines), pascal:PATH/unit.pas")
    m.add_argument("--setup", metavar="FILE", help="setup file (JSON, TOML, or the game's own format)")
    m.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="setup key (JSON value); overrides --setup; repeatable")
    m.add_argument("--seed", type=non_negative_int, help="match seed (random board completion, chance); default random, for a series 1")
    m.add_argument("--budget-ms", type=positive_int, default=10_000, help="time budget per seat for the whole match")
    m.add_argument("--increment-ms", type=non_negative_int, default=0, help="time added after each move")
    m.add_argument("--margin-ms", type=non_negative_int, default=200, help="grace past a deadline")
    m.add_argument("--clock-mode", choices=["wall", "cpu"], default="wall",
                   help="charge elapsed time (wall) or the bot's CPU time with a wall cap (cpu)")
    m.add_argument("--transport", choices=["zeromq", "pipes"],
                   help="the wire of Python bots and Pascal modules: zeromq (default) or pipes (JSON lines on "
                        "their own pipes); exec: bots speak ZeroMQ, stdio: bots pipes")
    m.add_argument("--ponder", action="store_true",
                   help="let bots think on the opponent's time (default: a bot not on move is frozen)")
    m.add_argument("--sandbox", choices=["auto", "bwrap", "uid", "none"], default="auto",
                   help="auto (default): bwrap where it works, else each bot its own uid; none: trusted bots "
                        "only (arena doctor tells what this machine supports)")
    m.add_argument("--memory-mb", type=non_negative_int, default=4096, help="address-space limit per bot")
    m.add_argument("--log", metavar="PATH", help="match log path (default logs/GAME-TIME-seedN-ID.msgpack, "
                                                 "never an existing file)")
    m.add_argument("--force", action="store_true", help="let --log replace an existing file")
    m.add_argument("--trace", metavar="FILE",
                   help="append every message between the referee and the bots to FILE (JSON lines)")
    m.add_argument("--name", action="append", metavar="NAME",
                   help="display name of the next seat's bot in results, logs and reports (one per BOT, in order)")
    m.add_argument("--show", action="store_true", help="print the board after every move")
    m.add_argument("--json", action="store_true", help="print the result as one JSON object")
    add_series_arguments(m)
    m.set_defaults(func=cmd_match)

    g = sub.add_parser("games", help="list the games")
    g.set_defaults(func=cmd_games)

    b = sub.add_parser("bots", help="list the registered bots")
    b.add_argument("game", nargs="?")
    b.set_defaults(func=cmd_bots)

    r = sub.add_parser("replay", help="print, verify or dump a match log")
    r.add_argument("log")
    r.add_argument("--verify", action="store_true", help="re-simulate; exit 1 at the first disagreement")
    r.add_argument("--json", action="store_true", help="dump the whole log as JSON")
    r.add_argument("--at", type=non_negative_int, metavar="N", help="show the position after ply N")
    add_replay_arguments(r)
    r.set_defaults(func=cmd_replay)
    for module in SUBCOMMAND_MODULES:
        if importlib.util.find_spec(module) is not None:
            importlib.import_module(module).register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `arena` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    try:
        code: int = args.func(args)
        sys.stdout.flush()  # inside the try: a reader that left is noticed here, not at exit
        return code
    except CliError as exc:
        print(f"arena {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except MachineError as exc:  # e.g. no process left to probe the sandbox with: the machine's, not the input's
        print(f"arena {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        print("arena: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`arena games | head -1`): stop quietly, as Unix tools do.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BROKEN_PIPE


if __name__ == "__main__":
    # `python -m arena.cli` runs this file as __main__: run the importable module instead, so
    # that main() catches the arena.cli.CliError the subcommand modules raise.
    from arena.cli.main import main as _main

    sys.exit(_main())
